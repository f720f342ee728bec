"""``bootmark bench --panel`` (bootmark/bench/panel.py): panels timed against a loop of
single-series calls, tsbootstrap's panel and the engine's floor.

Fast: a small panel (200 and 40 series, B = 999) run for real gives a receipt that validates
against panel.schema.json, survives a write and a load, and renders as a table in the
scoreboard and on the site; the schema refuses a doctored receipt (a loop that was not
identical, a cell without its floor); the tripwire stops a run whose loop differs from
the panel by one bit; the cells and panels are the ones issue 32 names; a missing
tsbootstrap is a one-line error naming the extra; the committed full receipt matches the
code's panels and RESULTS.md holds its table. Slow: one method of the full panels,
timed for real.
"""

import copy
import doctest
import importlib.util
import inspect
import os
import re

import numpy as np
import pytest

from bootmark.bench import panel as bench_panel
from bootmark.bench import scoreboard
from bootmark.bench.grid import TripwireError
from bootmark.cli.main import main
from bootmark.core import receipts, workspace
from bootmark.site import engine as engine_pages
from bootmark.site.model import Publisher, Table

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HAVE_TSBOOTSTRAP = importlib.util.find_spec("tsbootstrap") is not None


@pytest.fixture(scope="module")
def quick_receipt():
    """A real run of the quick profile: 2 panels x 3 methods, 200 and 40 series, B = 999."""
    return bench_panel.run_panel(bench_panel.cells("quick"), warmups=1, samples=3, profile="quick", show_progress=False)


def test_the_quick_receipt_validates_round_trips_and_renders(quick_receipt, tmp_path):
    receipts.validate(quick_receipt, "quick panel receipt")
    path = receipts.write_receipt(quick_receipt, str(tmp_path))
    assert os.path.basename(path).startswith("panel-")
    assert receipts.load_receipt(path) == quick_receipt
    # never overwritten: a second write gets a new name
    assert receipts.write_receipt(quick_receipt, str(tmp_path)) != path

    body = quick_receipt["body"]
    assert [(cell["panel"], cell["method"]) for cell in body["cells"]] == [
        (panel, method) for panel in ("square", "ragged") for method in bench_panel.METHODS
    ]
    for cell in body["cells"]:
        assert cell["series"] == (200 if cell["panel"] == "square" else 40)
        assert cell["n_bootstraps"] == 999 and cell["loop_identical"] is True
        assert cell["fused"] is True
        expected = {"panel", "loop", "floor", "floor_per_call"} | ({"tsbootstrap"} if HAVE_TSBOOTSTRAP else set())
        assert set(cell["paths"]) == expected
        assert all(len(timing["samples_s"]) == 3 for timing in cell["paths"].values())
    square, ragged = body["cells"][0], body["cells"][3]
    assert square["floor_calls"] == 1  # one length: one floor call with 200 x B replicates
    assert ragged["floor_calls"] == body["panels"]["ragged"]["distinct_lengths"] == 19  # of 40 series

    table = bench_panel.render_table(quick_receipt).splitlines()
    assert len(table) == 2 + 6
    assert table[0].startswith(
        "| panel | method | series | n | B | panel s | loop s | tsbootstrap s | floor s | floor per-call s |"
    )
    assert re.match(r"\| square \| iid \| 200 \| 200 \| 999 \| ", table[2])
    ragged_row = table[5].split(" | ")
    assert ragged_row[3] == f"{ragged['n_min']}–{ragged['n_max']}"
    for line, cell in zip(table[2:], body["cells"], strict=True):
        net, gross = cell["floor_ratios"]["panel_net"]["median"], cell["floor_ratios"]["panel"]["median"]
        assert net >= gross  # the net floor is the lower bar
        assert f"| {net:.2f} (" in line and f"): {'met' if net <= 1.2 else 'MISSED'} | {gross:.2f} (" in line
    assert "tsbootstrap / panel ≥ 3: met in" in bench_panel.render_summary(quick_receipt)

    part = scoreboard._panel_part(path)
    assert part.startswith("### Panels: many series in one call")
    assert bench_panel.render_table(quick_receipt) in part

    blocks = engine_pages.panel_blocks(Publisher(str(tmp_path)), path, quick_receipt)
    (table_block,) = [block for block in blocks if isinstance(block, Table)]
    assert len(table_block.rows) == 6
    missed = [
        row for row, cell in zip(table_block.rows, body["cells"], strict=True) if row[1] == "loss"
    ]  # rows marked as misses
    assert len(missed) == sum(1 for cell in body["cells"] if False in bench_panel.target_verdicts(cell).values())


def test_the_schema_refuses_a_doctored_receipt(quick_receipt):
    not_identical = copy.deepcopy(quick_receipt)
    not_identical["body"]["cells"][0]["loop_identical"] = False
    no_floor = copy.deepcopy(quick_receipt)
    del no_floor["body"]["cells"][1]["paths"]["floor_per_call"]
    unknown_method = copy.deepcopy(quick_receipt)
    unknown_method["body"]["cells"][2]["method"] = "circular"
    for doctored, field in (
        (not_identical, "loop_identical"),
        (no_floor, "paths"),
        (unknown_method, "method"),
    ):
        with pytest.raises(receipts.ReceiptError, match=field):
            receipts.seal("panel", doctored["provenance"], doctored["body"])
    edited = copy.deepcopy(quick_receipt)
    edited["body"]["cells"][0]["paths"]["panel"]["median_s"] *= 0.5
    with pytest.raises(receipts.ReceiptError, match="content_sha256"):
        receipts.validate(edited, "edited")


def test_the_tripwire_stops_a_loop_that_differs_from_the_panel_by_one_bit():
    cell = bench_panel.cells("quick")[0]
    paths, _ = bench_panel.cell_paths(cell, {"tsbootstrap": "not timed here"})
    honest = paths["loop"]

    def one_bit_off():
        statistics = honest()
        statistics[7] = statistics[7].copy()
        statistics[7][3] = np.nextafter(statistics[7][3], np.inf)
        return statistics

    assert bench_panel.check_statistics(paths, cell, "honest") == {"fused": True}
    with pytest.raises(TripwireError, match="differ from the single-series loop's in 1 of 199800 places"):
        bench_panel.check_statistics(dict(paths, loop=one_bit_off), cell, "doctored")


def test_the_cells_are_the_panels_issue_32_names():
    full = bench_panel.cells("full")
    assert [(c.panel.name, c.method, c.n_bootstraps) for c in full] == [
        (panel, method, 999) for panel in ("square", "ragged") for method in ("iid", "moving", "stationary")
    ]
    square, ragged = bench_panel.PANELS["full"]
    assert (square.series, square.n_low, square.n_high) == (2000, 200, 200)
    lengths = ragged.lengths()
    assert lengths.min() >= 50 and lengths.max() <= 2000 and lengths.max() - lengths.min() > 1500
    data = bench_panel.panel_data(ragged)
    assert [x.shape[0] for x in data] == lengths.tolist()
    assert np.array_equal(np.concatenate(bench_panel.panel_data(ragged)), np.concatenate(data))  # deterministic
    # the two panels hold totals of the same order
    assert 0.5 < lengths.sum() / (square.series * square.n_low) < 2
    assert bench_panel.select(full, {"panel": "ragged", "method": "moving"}) == [full[4]]
    with pytest.raises(ValueError, match="unknown panel cell filter"):
        bench_panel.select(full, {"n": "200"})


def test_the_floor_makes_one_call_per_distinct_length(monkeypatch):
    from bootmark.bench import floors

    calls = []
    monkeypatch.setattr(floors, "gather_floor", lambda prefix, n, b, replicates: calls.append((n, b, replicates)))
    series = [np.zeros(30), np.ones(40), np.zeros(30), np.ones(30)]
    paths, count = bench_panel._floor_paths("moving", series, 99)
    paths["floor"]()
    assert count == 2 and sorted(calls) == [(30, 10, 3 * 99), (40, 10, 99)]
    calls.clear()
    paths["floor_per_call"]()
    assert sorted(calls) == [(30, 10, 1), (40, 10, 1)]


def test_without_tsbootstrap_the_verb_names_the_extra_that_installs_it(monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "tsbootstrap" else real(name, *a))
    assert main(["bench", "--panel", "--quick", "--no-write"]) == 2
    error = capsys.readouterr().err
    assert "bootmark bench --panel" in error and "needs tsbootstrap" in error
    assert "pip install 'bootmark[peers]'" in error


def test_a_filter_that_matches_no_panel_cell_is_a_usage_error(capsys):
    assert main(["bench", "--panel", "--cells", "panel=round", "--no-write"]) == 2
    assert "no panel cell of the full profile matches" in capsys.readouterr().err


def _committed_full():
    return scoreboard.newest_panel_receipt(os.path.join(workspace.find(ROOT).root, "receipts", "panel"))


def test_the_committed_panel_receipt_is_the_codes_panels_and_results_md_renders_it(monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("BOOTMARK_WORKSPACE", raising=False)
    path = _committed_full()
    if path is None:
        pytest.skip("no full panel receipt committed yet")
    receipt = receipts.load_receipt(path)
    body = receipt["body"]
    assert body["panels"] == {spec.name: spec.to_json() for spec in bench_panel.PANELS["full"]}
    assert [(cell["panel"], cell["method"]) for cell in body["cells"]] == [
        (cell.panel.name, cell.method) for cell in bench_panel.cells("full")
    ]
    assert all(cell["n_bootstraps"] == 999 and cell["loop_identical"] for cell in body["cells"])
    assert body["samples"] >= 15
    with open(os.path.join(ROOT, "RESULTS.md"), encoding="utf-8") as stream:
        results = stream.read()
    assert bench_panel.render_table(receipt) in results, "RESULTS.md is stale: run `bootmark scoreboard --readme`"


def test_the_modules_examples_run_and_its_public_functions_are_documented(monkeypatch):
    monkeypatch.chdir(ROOT)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = []
    for test in doctest.DocTestFinder().find(bench_panel, bench_panel.__name__):
        runner.run(test, out=report.append)
    assert runner.tries > 0 and runner.failures == 0, "".join(report)
    for name in bench_panel.__all__:
        value = getattr(bench_panel, name)
        if inspect.isfunction(value) and inspect.signature(value).parameters:
            assert "Parameters\n" in inspect.cleandoc(value.__doc__ or ""), name


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_TSBOOTSTRAP, reason="tsbootstrap (the peers extra) is not installed")
def test_the_full_panels_run_for_real():
    chosen = bench_panel.select(bench_panel.cells("full"), {"method": "moving"})
    receipt = bench_panel.run_panel(chosen, warmups=1, samples=3, profile="custom", show_progress=False)
    receipts.validate(receipt, "full moving panels")
    for cell in receipt["body"]["cells"]:
        assert cell["fused"] and set(cell["paths"]) == {"panel", "loop", "tsbootstrap", "floor", "floor_per_call"}
        # the fused panel pass beats calling the engine series by series
        assert cell["ratios"]["loop"]["median"] > 1
