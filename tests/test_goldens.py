"""Golden files pin the first draws of every method for each STREAM_VERSION.

A change to the streams must bump STREAM_VERSION and add a new golden file (scripts/
make_goldens.py refuses to overwrite one), so no stream ever drifts silently.
"""

import json
import pathlib
import sys

import pytest

from bootmark.reference.indices import STREAM_VERSION

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import make_goldens  # noqa: E402 - scripts/ is put on sys.path just above


def test_a_golden_file_exists_for_the_current_stream_version():
    assert make_goldens.golden_path().exists(), "bump STREAM_VERSION only together with a new golden file"


def test_current_streams_reproduce_the_golden_file():
    stored = json.loads(make_goldens.golden_path().read_text())
    assert stored["stream_version"] == STREAM_VERSION
    assert make_goldens.golden() == stored


@pytest.mark.parametrize("version_file", sorted((ROOT / "tests" / "goldens").glob("stream_v*.json")))
def test_golden_files_cover_every_method(version_file):
    stored = json.loads(version_file.read_text())
    for seed_record in stored["seeds"].values():
        assert set(seed_record["rows"]) >= {
            "IID()",
            "MovingBlock(4)",
            "CircularBlock(4)",
            "NonOverlappingBlock(4)",
            "StationaryBlock(4)",
            "TaperedBlock(4)",
        }


def test_panel_series_words_reproduce_the_panel_golden_file():
    stored = json.loads(make_goldens.panel_golden_path().read_text())
    assert stored["stream_version"] == STREAM_VERSION
    assert make_goldens.panel_golden() == stored


def test_panel_series_draw_other_rows_than_series_zero():
    # the series word must change every stream: a panel whose series shared one would
    # give every series of the same length the same replicates
    single = json.loads(make_goldens.golden_path().read_text())
    panel = json.loads(make_goldens.panel_golden_path().read_text())
    for seed, by_series in panel["seeds"].items():
        for record in by_series.values():
            for name, rows in record["rows"].items():
                assert rows != single["seeds"][seed]["rows"][name], (seed, name)
