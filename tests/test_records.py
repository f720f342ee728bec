"""Typed records (bootmark/core/records.py): every committed receipt loads through them, and
writing a record back gives the receipt's exact canonical bytes, so it still validates
against its schema and its content hash.

Negative controls: a record that drops an optional key, or reads a number as another
type, breaks the byte-exact round trip; a key no record knows is refused by name.
"""

import copy
import dataclasses
import glob
import json
import os
from collections.abc import Mapping

import pytest

from bootmark.core import receipts, records, workspace

RECEIPTS = sorted(glob.glob(os.path.join(workspace.find().root, "receipts", "**", "*.json"), recursive=True))


def _raw(path):
    with open(path, encoding="utf-8") as stream:
        return json.load(stream)


def test_there_are_committed_receipts_of_every_kind():
    kinds = {_raw(path)["kind"] for path in RECEIPTS}
    assert kinds == set(receipts.KINDS), kinds


@pytest.mark.parametrize("path", RECEIPTS, ids=os.path.basename)
def test_every_committed_receipt_loads_through_the_records_and_writes_back_byte_for_byte(path):
    raw = _raw(path)
    loaded = records.load(path)
    assert isinstance(loaded.provenance, records.Provenance)
    assert isinstance(loaded.provenance.machine, records.Machine)
    back = loaded.to_json()
    assert receipts.canonical_json(back) == receipts.canonical_json(raw)
    receipts.validate(back, path)  # schema and content hash, from the record's own output
    if loaded.kind == "bench":
        assert isinstance(loaded.body, records.BenchBody)
        cell = loaded.body.cells[0]
        assert isinstance(cell, records.BenchCell) and isinstance(next(iter(cell.paths.values())), records.PathTiming)
        assert all(isinstance(ratio, records.Ratio) for ratio in cell.ratios.values())
        if cell.materialize_ratios is not None:
            assert all(isinstance(ratio, records.Ratio) for ratio in cell.materialize_ratios.values())
    elif loaded.kind == "study" and loaded.body.design.get("target") == "forecast":
        results = loaded.body.results
        assert isinstance(results, records.ForecastResults) and isinstance(results.cells[0], records.ForecastCell)
        column = next(iter(results.cells[0].resamplers.values()))
        assert isinstance(column, records.ForecastColumn) and isinstance(column.lower[0], tuple)
        assert all(isinstance(row, records.CoverageRow) for row in results.coverage)
    elif loaded.kind == "study":
        results = loaded.body.results
        assert isinstance(results, records.StudyResults)
        assert all(isinstance(row, records.CoverageRow) for row in results.coverage)
        assert all(isinstance(verdict, records.CriterionVerdict) for verdict in results.criteria)
        column = next(iter(results.cells[0].resamplers.values()))
        assert isinstance(column, records.ResamplerColumn) and isinstance(column.point, tuple)
    else:
        assert isinstance(loaded.body, Mapping)


def test_records_are_frozen():
    loaded = records.load(next(p for p in RECEIPTS if _raw(p)["kind"] == "bench"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        loaded.body.cells[0].n = 3
    with pytest.raises(TypeError):
        loaded.body.cells[0].paths["x"] = None  # a read-only mapping


def test_negative_control_a_dropped_optional_key_breaks_the_round_trip(monkeypatch):
    path = next(p for p in RECEIPTS if "materialize_ratios" in _raw(p).get("body", {}).get("cells", [{}])[0])
    raw = _raw(path)
    original = records.BenchCell.to_json
    monkeypatch.setattr(
        records.BenchCell,
        "to_json",
        lambda self: {k: v for k, v in original(self).items() if k != "materialize_ratios"},
    )
    assert receipts.canonical_json(records.Receipt.from_json(raw).to_json()) != receipts.canonical_json(raw)


def test_negative_control_a_number_read_as_another_type_breaks_the_round_trip(monkeypatch):
    path = next(p for p in RECEIPTS if _raw(p)["kind"] == "bench")
    raw = _raw(path)
    original = records.PathTiming.from_json.__func__

    def as_floats(cls, data):
        timing = original(cls, data)
        return dataclasses.replace(timing, samples_s=tuple(float(round(s, 6)) for s in timing.samples_s))

    monkeypatch.setattr(records.PathTiming, "from_json", classmethod(as_floats))
    assert receipts.canonical_json(records.Receipt.from_json(raw).to_json()) != receipts.canonical_json(raw)


def test_a_key_no_record_knows_is_refused_by_name():
    raw = copy.deepcopy(_raw(next(p for p in RECEIPTS if _raw(p)["kind"] == "bench")))
    raw["body"]["cells"][0]["speed"] = 1.0
    with pytest.raises(ValueError, match="BenchCell: unexpected keys \\['speed'\\]"):
        records.Receipt.from_json(raw)
