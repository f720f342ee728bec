"""The comparator's rules, with the negative controls issue 4 names."""

import copy
import glob
import json
import os

import pytest
from test_receipts import synthetic_cell, synthetic_receipt

from bootmark.bench import compare
from bootmark.core import receipts, records, timing, workspace


def _grid(engine_scale=1.0, arch_scale=1.0, slowed_cell=None, seed_offset=0):
    """Receipt of 4 cells + 1 sentinel; ``slowed_cell`` (index) runs its engine 2x slower."""
    specs = [
        ("iid", 2000, 999, False),
        ("moving", 2000, 999, False),
        ("circular", 2000, 999, False),
        ("stationary", 2000, 999, False),
        ("moving", 2000, 10000, True),
    ]
    cells = []
    for k, (method, n, b, sentinel) in enumerate(specs):
        engine = 0.001 * (k + 1) * engine_scale * (2.0 if k == slowed_cell else 1.0)
        cells.append(
            synthetic_cell(
                method, n, b, sentinel, engine_s=engine, arch_s=0.02 * (k + 1) * arch_scale, seed=k + seed_offset
            )
        )
    return synthetic_receipt(cells)


def test_an_unchanged_engine_passes_on_the_same_box():
    verdict = compare.compare(_grid(), _grid(seed_offset=10))
    assert verdict.exit_code == compare.PASS and verdict.comparable_boxes


def test_negative_control_one_cell_slowed_twofold_is_a_regression():
    verdict = compare.compare(_grid(), _grid(slowed_cell=1, seed_offset=10))
    assert verdict.exit_code == compare.REGRESSION
    assert [row.method for row in verdict.cells if row.regressed] == ["moving"]


def test_negative_control_a_slower_box_is_not_called_a_regression():
    # Every column, arch included, 1.5x slower: the machine changed, not the engine.
    verdict = compare.compare(_grid(), _grid(engine_scale=1.5, arch_scale=1.5, seed_offset=10))
    assert verdict.exit_code == compare.INCOMPARABLE
    assert verdict.box_drift == pytest.approx(0.5, abs=0.05)


def test_a_regression_shows_through_a_slower_box():
    verdict = compare.compare(_grid(), _grid(engine_scale=1.5, arch_scale=1.5, slowed_cell=0, seed_offset=10))
    assert verdict.exit_code == compare.REGRESSION


def test_the_sentinel_is_judged_on_absolute_time_only_on_comparable_boxes():
    old = _grid()
    new = copy.deepcopy(old)
    sentinel = new["body"]["cells"][-1]
    slower = [2 * s for s in sentinel["paths"]["engine_reduce"]["samples_s"]]
    sentinel["paths"]["engine_reduce"] = timing.summary(slower)
    sentinel["ratios"]["arch"] = timing.median_ratio(sentinel["paths"]["arch"]["samples_s"], slower)
    new = receipts.seal("bench", new["provenance"], new["body"])
    verdict = compare.compare(old, new)
    assert verdict.exit_code == compare.REGRESSION
    assert any("sentinel median" in reason for row in verdict.cells for reason in row.reasons)


def test_receipts_of_other_kinds_or_with_nothing_in_common_cannot_be_compared():
    other = copy.deepcopy(_grid())
    other["kind"] = "memory"
    with pytest.raises(compare.ComparisonError, match="only bench receipts"):
        compare.compare(_grid(), other)
    lone = synthetic_receipt([synthetic_cell("iid", 200, 999)])
    with pytest.raises(compare.ComparisonError, match="no cell in common"):
        compare.compare(_grid(), lone)


def test_typed_receipts_of_other_kinds_are_refused_too(tmp_path, capsys):
    """compare_paths reads records; a study or truth receipt is refused by kind, not by
    an AttributeError (the command line's exit 2, not 70)."""
    from bootmark.cli.main import main

    root = workspace.find().root
    bench_path = os.path.join(root, "receipts", "bench", "bench-amd-epyc-20261203T221558Z-dd88ddf67d.json")
    truth_path = glob.glob(os.path.join(root, "receipts", "studies", "truth", "*.json"))[0]
    with pytest.raises(compare.ComparisonError, match="got a 'truth' receipt"):
        compare.compare(records.load(bench_path), records.load(truth_path))
    assert main(["compare", bench_path, truth_path]) == compare.INCOMPARABLE
    assert "only bench receipts" in capsys.readouterr().err


def test_a_receipt_the_records_cannot_read_is_a_receipt_error(tmp_path):
    """The schema leaves provenance.machine open; a key the records do not know is a
    one-line ReceiptError (exit 2 from the command line), not a ValueError."""
    raw = receipts.load_receipt(
        os.path.join(workspace.find().root, "receipts", "bench", "bench-amd-epyc-20261203T221558Z-dd88ddf67d.json")
    )
    raw = copy.deepcopy(raw)
    raw["provenance"]["machine"]["numa_nodes"] = 1
    raw["content_sha256"] = receipts.content_hash(raw)
    path = tmp_path / "extra.json"
    path.write_text(json.dumps(raw))
    receipts.load_receipt(str(path))  # the schema accepts it
    with pytest.raises(receipts.ReceiptError, match="records cannot read it"):
        records.load(str(path))


def test_the_command_line_exit_codes(tmp_path, capsys):
    from bootmark.cli.main import main

    old = receipts.write_receipt(_grid(), tmp_path / "old")
    slow = receipts.write_receipt(_grid(slowed_cell=2, seed_offset=10), tmp_path / "new")
    assert main(["compare", old, old]) == compare.PASS
    assert main(["compare", old, slow, "--json", str(tmp_path / "verdict.json")]) == compare.REGRESSION
    assert "REGRESSION" in capsys.readouterr().out and (tmp_path / "verdict.json").exists()
    saved = json.loads((tmp_path / "verdict.json").read_text())  # the --json shape is unchanged by the records
    assert set(saved) == {
        "exit_code",
        "verdict",
        "box_drift",
        "box_drift_limit",
        "comparable_boxes",
        "tolerance",
        "threaded_tolerance",
        "judged_cells",
        "setup_differences",
        "old_sha",
        "new_sha",
        "unmatched_cells",
        "cells",
    }
    judged = next(row for row in saved["cells"] if "new_cost" in row)
    assert set(judged) >= {
        "method",
        "n",
        "n_bootstraps",
        "sentinel",
        "threads",
        "tolerance",
        "regressed",
        "judged",
        "reasons",
        "old_cost",
        "new_cost",
        "new_cost_ci",
        "old_ms",
        "new_ms",
    }
    broken = tmp_path / "broken.json"
    broken.write_text("{}")
    assert main(["compare", old, str(broken)]) == compare.INCOMPARABLE


def test_multi_thread_cells_can_get_a_looser_tolerance_than_the_sentinels():
    old = _grid()
    lost_core = _grid(seed_offset=10)
    for cell in lost_core["body"]["cells"]:  # a core taken away: two-thread engine cells 1.6x slower
        if cell["threads"] > 1:
            slower = [1.6 * s for s in cell["paths"]["engine_reduce"]["samples_s"]]
            cell["paths"]["engine_reduce"] = timing.summary(slower)
            cell["ratios"]["arch"] = timing.median_ratio(cell["paths"]["arch"]["samples_s"], slower)
    lost_core = receipts.seal("bench", lost_core["provenance"], lost_core["body"])
    assert compare.compare(old, lost_core).exit_code == compare.REGRESSION
    assert compare.compare(old, lost_core, 1.25, 2.0).exit_code == compare.PASS
    slowed_sentinel = _grid(slowed_cell=4, seed_offset=10)  # the one-thread cell, 2x slower
    assert compare.compare(old, slowed_sentinel, 1.25, 2.0).exit_code == compare.REGRESSION


def test_nothing_judged_is_never_a_pass():
    old = _grid()
    no_control = copy.deepcopy(_grid(engine_scale=3.0, seed_offset=10))  # 3x slower, but arch missing
    for cell in no_control["body"]["cells"]:
        del cell["paths"]["arch"]
        cell["ratios"] = {}
    no_control = receipts.seal("bench", no_control["provenance"], no_control["body"])
    verdict = compare.compare(old, no_control)
    assert verdict.exit_code == compare.INCOMPARABLE and verdict.judged_cells == 0


def test_cells_on_different_thread_counts_or_arch_versions_are_not_judged():
    old = _grid()
    more_threads = copy.deepcopy(_grid(slowed_cell=1, seed_offset=10))
    for cell in more_threads["body"]["cells"]:
        cell["threads"] += 2
    more_threads = receipts.seal("bench", more_threads["provenance"], more_threads["body"])
    verdict = compare.compare(old, more_threads)
    assert verdict.exit_code == compare.INCOMPARABLE and verdict.judged_cells == 0
    other_arch = copy.deepcopy(_grid(seed_offset=10))
    other_arch["provenance"]["versions"]["arch"] = "7.2.0"
    other_arch = receipts.seal("bench", other_arch["provenance"], other_arch["body"])
    verdict = compare.compare(old, other_arch)
    assert verdict.exit_code == compare.INCOMPARABLE
    assert verdict.setup_differences == (f"arch {old['provenance']['versions']['arch']} before, 7.2.0 now",)
