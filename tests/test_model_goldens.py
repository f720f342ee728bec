"""The golden file of the model-based methods' streams (tests/goldens/models_v<N>.json).

Their purposes (RESIDUAL_INDEX, WILD_MULTIPLIER, BLOCK_WILD_OFFSET) were added under
STREAM_VERSION 2 without shifting any existing stream, so version 2 has two golden files;
scripts/make_goldens.py writes both and never overwrites either. The file pins the fits
(fsum and IEEE arithmetic: portable), the raw words of the new purposes, residual indices,
Rademacher and Mammen multipliers, block phases and rebuilt series. Gaussian multipliers
use libm and are pinned only through their words. The fixed-design purposes (FIXED_*) came
later, under the same version, and have their own file, models_fixed_v<N>.json.
"""

import json
import pathlib
import sys

import numpy as np

from bootmark import engine
from bootmark.reference.indices import STREAM_VERSION

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import make_goldens  # noqa: E402 - scripts/ is put on sys.path just above


def _stored():
    return json.loads(make_goldens.model_golden_path().read_text())


def test_a_model_golden_file_exists_for_the_current_stream_version():
    assert make_goldens.model_golden_path().exists(), "bump STREAM_VERSION only together with new golden files"


def test_current_model_streams_reproduce_the_model_golden_file():
    stored = _stored()
    assert stored["stream_version"] == STREAM_VERSION
    assert make_goldens.model_golden() == stored


def test_engine_reproduces_the_model_golden_series_bitwise():
    stored = _stored()
    for seed, record in stored["seeds"].items():
        for name, series in record["series"].items():
            result = engine.bootstrap(
                np.array(stored["x"]), make_goldens.MODEL_METHODS[name], len(series), seed=int(seed)
            )
            assert list(result.fit.components) == stored["fits"][name]
            assert result.values().tolist() == series, name


def test_model_golden_file_covers_every_innovation_and_purpose():
    for seed_record in _stored()["seeds"].values():
        names = set(seed_record["series"])
        for part in ("IID()", "SieveAR", "Wild('rademacher')", "Wild('mammen')", "BlockWild"):
            assert any(part in name for name in names), part
        assert set(seed_record["words"]) == {"RESIDUAL_INDEX", "WILD_MULTIPLIER", "BLOCK_WILD_OFFSET"}


def test_index_golden_file_still_pins_only_the_resampling_purposes():
    stored = json.loads(make_goldens.golden_path().read_text())
    assert all(set(record["words"]) == {"BLOCK_START", "BLOCK_LENGTH"} for record in stored["seeds"].values())
    assert make_goldens.golden() == stored  # adding purposes shifted nothing


def _stored_fixed():
    return json.loads(make_goldens.fixed_model_golden_path().read_text())


def test_fixed_design_streams_reproduce_their_golden_file():
    stored = _stored_fixed()
    assert stored["stream_version"] == STREAM_VERSION
    assert make_goldens.fixed_model_golden() == stored
    for record in stored["seeds"].values():
        assert set(record["words"]) == {"FIXED_RESIDUAL_INDEX", "FIXED_WILD_MULTIPLIER", "FIXED_BLOCK_WILD_OFFSET"}


def test_engine_reproduces_the_fixed_design_golden_series_bitwise():
    stored = _stored_fixed()
    for seed, record in stored["seeds"].items():
        for name, series in record["series"].items():
            result = engine.bootstrap(
                np.array(stored["x"]), make_goldens.FIXED_MODEL_METHODS[name], len(series), seed=int(seed)
            )
            assert result.values().tolist() == series, name


def test_fixed_design_draws_are_not_the_recursive_ones():
    """Negative control: the two files pin different streams of the same keys, so a
    fixed design that read the recursive purposes would fail the test above."""
    fixed, recursive = _stored_fixed()["seeds"], _stored()["seeds"]
    for seed in fixed:
        assert fixed[seed]["residual_indices"] != recursive[seed]["residual_indices"]
        assert fixed[seed]["multipliers"] != recursive[seed]["multipliers"]
        assert list(fixed[seed]["words"].values()) != list(recursive[seed]["words"].values())
