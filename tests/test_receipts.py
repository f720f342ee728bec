"""Receipts: schema, hash, atomic never-overwriting writes, and the bench tripwires."""

import json
import os

import numpy as np
import pytest

from bootmark.bench import grid as bench
from bootmark.core import provenance, receipts, timing


def synthetic_cell(
    method="moving", n=2000, n_bootstraps=999, sentinel=False, engine_s=0.001, arch_s=0.02, rounds=15, seed=0
):
    """A bench cell from seeded log-normal timings (no real timing: fast and exact)."""
    rng = np.random.default_rng(seed)
    noise = np.exp(rng.normal(0.0, 0.05, size=(2, rounds)))
    times = {"engine_reduce": list(engine_s * noise[0]), "arch": list(arch_s * noise[1])}
    return {
        "method": method,
        "n": n,
        "n_bootstraps": n_bootstraps,
        "threads": 1 if sentinel else 2,
        "sentinel": sentinel,
        "paths": {k: timing.summary(v) for k, v in times.items()},
        "ratios": {"arch": timing.median_ratio(times["arch"], times["engine_reduce"])},
    }


def synthetic_receipt(cells=None):
    cells = cells or [
        synthetic_cell(),
        synthetic_cell("iid", seed=1),
        synthetic_cell("moving", sentinel=True, n_bootstraps=10000, seed=2),
    ]
    body = {
        "profile": "custom",
        "warmups": 3,
        "samples": 15,
        "block_length": 10,
        "reference_path": "engine_reduce",
        "skipped_paths": {"tsbootstrap": "not installed"},
        "cells": cells,
    }
    return receipts.seal("bench", provenance.collect(), body)


def test_provenance_carries_every_field_design_section_5_names():
    block = provenance.collect()
    assert set(block["machine"]) >= {"cpu_model", "cores", "load_average", "governor"}
    assert set(block["versions"]) >= {"python", "numpy", "numba", "arch", "tsbootstrap", "bootmark", "stream_version"}
    assert set(block["threads"]) == {"numba_threads", "threading_layer"}
    assert len(block["source"]["git_sha"] or "x" * 40) == 40 and block["command_line"]


def test_write_then_load_round_trips_and_never_overwrites(tmp_path):
    receipt = synthetic_receipt()
    first = receipts.write_receipt(receipt, tmp_path)
    second = receipts.write_receipt(receipt, tmp_path)
    assert first != second and os.path.exists(first) and os.path.exists(second)
    assert receipts.load_receipt(first) == receipt
    assert sorted(os.listdir(tmp_path)) == sorted([os.path.basename(first), os.path.basename(second)])  # no temp


def test_an_edited_figure_is_detected_by_the_hash(tmp_path):
    path = receipts.write_receipt(synthetic_receipt(), tmp_path)
    with open(path) as stream:
        receipt = json.load(stream)
    receipt["body"]["cells"][0]["paths"]["engine_reduce"]["median_s"] *= 0.5  # a flattering edit
    with open(path, "w") as stream:
        json.dump(receipt, stream)
    with pytest.raises(receipts.ReceiptError, match=r"content_sha256 does not match"):
        receipts.load_receipt(path)


def test_a_schema_failure_names_the_path_and_the_first_failing_field(tmp_path):
    receipt = synthetic_receipt()
    del receipt["body"]["cells"][1]["paths"]["arch"]["min_s"]
    receipt["content_sha256"] = receipts.content_hash(receipt)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(receipt))
    with pytest.raises(receipts.ReceiptError, match=r"broken\.json: field \$\.body\.cells\[1\]\.paths\.arch fails"):
        receipts.load_receipt(path)


def test_a_receipt_from_a_newer_schema_is_refused_clearly(tmp_path):
    receipt = synthetic_receipt()
    receipt["schema_version"] = receipts.SCHEMA_VERSION + 1
    receipt["content_sha256"] = receipts.content_hash(receipt)
    path = tmp_path / "future.json"
    path.write_text(json.dumps(receipt))
    with pytest.raises(receipts.ReceiptError, match="newer than this bootmark understands"):
        receipts.load_receipt(path)


def test_unknown_kinds_and_non_finite_numbers_are_refused():
    with pytest.raises(receipts.ReceiptError, match="field 'kind'"):
        receipts.seal("scoreboard", provenance.collect(), {})
    cell = synthetic_cell()
    cell["paths"]["arch"]["median_s"] = float("nan")
    with pytest.raises(receipts.ReceiptError, match="not a finite number"):
        synthetic_receipt([cell])


def test_ratio_interval_is_deterministic_and_brackets_the_median():
    rng = np.random.default_rng(5)
    slow, fast = list(0.02 * np.exp(rng.normal(0, 0.1, 15))), list(0.001 * np.exp(rng.normal(0, 0.1, 15)))
    first, again = timing.median_ratio(slow, fast), timing.median_ratio(slow, fast)
    assert first == again
    assert first["ci_low"] <= first["median"] <= first["ci_high"]
    assert first["median"] == pytest.approx(float(np.median(np.array(slow) / np.array(fast))))


def _paths(**results):
    return {name: (lambda value=value: np.asarray(value)) for name, value in results.items()}


def test_tripwire_on_a_nan_statistic():
    with pytest.raises(bench.TripwireError, match="non-finite"):
        bench.check_statistics(_paths(engine_reduce=[1.0, 2.0], arch=[1.0, np.nan]), "cell")


def test_tripwire_on_reduce_disagreeing_with_materialize():
    bench.check_statistics(_paths(engine_reduce=[1.0, 2.0], engine_materialize=[1.0, 2.0 + 1e-13]), "cell")
    with pytest.raises(bench.TripwireError, match="disagrees with materialize"):
        bench.check_statistics(_paths(engine_reduce=[1.0, 2.0], engine_materialize=[1.0, 2.001]), "cell")


def test_tripwire_on_a_path_timed_at_zero(monkeypatch):
    def zero_timing(paths, warmups, samples, progress=None):
        return {name: [0.0 if name == "arch" else 0.001] * samples for name in paths}

    monkeypatch.setattr(bench, "cell_paths", lambda *a: _paths(engine_reduce=[1.0], arch=[1.0]))
    monkeypatch.setattr(timing, "time_interleaved", zero_timing)
    with pytest.raises(bench.TripwireError, match="path arch was timed at zero"):
        bench.measure_cell("iid", 200, 999, False, 0, 5, {})


def test_cell_filters_select_and_reject_clearly():
    cells = bench.grid("full")
    # the grid, the scale cells (n = 1e5 and 1e6 per method), the model-based cells, one sentinel per method
    assert len(cells) == 4 * 3 * 2 + 4 * 2 + 2 * 2 + 4
    assert {c[1] for c in cells} >= {100_000, 1_000_000}
    chosen = bench.select(cells, bench.parse_filters("method=iid,n=200"))
    assert [c[:3] for c in chosen] == [("iid", 200, 999), ("iid", 200, 10000)]
    with pytest.raises(ValueError, match="not key=value"):
        bench.parse_filters("iid")
    with pytest.raises(ValueError, match="unknown cell filter"):
        bench.select(cells, {"size": "200"})


def test_a_missing_peer_is_skipped_with_its_reason_never_a_crash(monkeypatch):
    real = provenance.package_version
    monkeypatch.setattr(provenance, "package_version", lambda name: None if name == "tsbootstrap" else real(name))
    skipped = bench.peer_status()
    assert skipped == {"tsbootstrap": "tsbootstrap is not installed (pip install tsbootstrap==0.7.3)"}
    paths = bench.cell_paths("moving", 200, 10, False, skipped)
    assert "tsbootstrap" not in paths and {"engine_reduce", "engine_materialize", "arch"} <= set(paths)
    bench.check_statistics(paths, "moving n=200 B=10")  # the remaining paths run and agree


def test_newest_receipt_prefers_the_later_write_of_the_same_second(tmp_path):
    receipt = synthetic_receipt()
    receipts.write_receipt(receipt, tmp_path)
    second = receipts.write_receipt(receipt, tmp_path)
    assert receipts.newest_receipt(tmp_path, "bench") == second


def test_unreadable_receipts_get_typed_errors_naming_the_file(tmp_path):
    with pytest.raises(receipts.ReceiptError, match="missing.json: cannot be read"):
        receipts.load_receipt(tmp_path / "missing.json")
    nan = tmp_path / "nan.json"
    nan.write_text('{"kind": "bench", "value": NaN}')
    with pytest.raises(receipts.ReceiptError, match="nan.json: holds NaN"):
        receipts.load_receipt(nan)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(receipts.ReceiptError, match="binary.json: not a JSON receipt"):
        receipts.load_receipt(binary)


def test_the_intervals_profile_times_each_kind_against_the_percentile_interval():
    cells = bench.grid("intervals")
    assert [c[:3] for c in cells] == [("interval_mean", n, 999) for n in (100, 200, 500, 1000, 2000)]
    paths = bench.cell_paths("interval_mean", 100, 40, False, {})
    assert list(paths) == [bench.ANCHOR_PATH, "studentized", "calibrated"]
    bounds = {name: run() for name, run in paths.items()}
    assert all(b.shape == (2,) and b[0] < b[1] for b in bounds.values())
    # the percentile path is the engine's percentile interval, not another computation
    from bootmark import engine

    x = bench.cell_series("interval_mean", 100)
    expected = engine.conf_int(x, "mean", engine.MovingBlock("auto"), alpha=0.10, n_bootstraps=40, seed=1)
    assert bounds[bench.ANCHOR_PATH].tolist() == [expected.lower, expected.upper]
    with pytest.raises(ValueError, match="'intervals'"):
        bench.grid("interval")


def test_interval_costs_render_the_bar_verdict_on_the_ratio_interval():
    def ratio(low, median, high):
        return {"median": median, "ci_low": low, "ci_high": high, "confidence": 0.95, "block_length": 2}

    def cell(n, studentized):
        return {
            "method": "interval_mean",
            "n": n,
            "n_bootstraps": 999,
            "paths": {name: {"median_s": 0.001} for name in (bench.ANCHOR_PATH, "studentized", "calibrated")},
            "ratios": {"studentized": studentized, "calibrated": ratio(150, 160, 170)},
        }

    table = bench.render_interval_costs(
        {
            "body": {
                "cells": [
                    cell(100, ratio(1.8, 2.0, 2.2)),
                    cell(200, ratio(4.8, 5.1, 5.3)),
                    cell(500, ratio(5.2, 5.5, 5.9)),
                ]
            }
        }
    )
    rows = table.splitlines()[2:]
    assert [row.split(" | ")[5] for row in rows] == ["yes", "unclear", "NO"]
