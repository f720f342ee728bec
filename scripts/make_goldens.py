"""Write the golden files of the current STREAM_VERSION that do not exist yet:

* tests/goldens/stream_v<STREAM_VERSION>.json: the first draws of every resampling method;
* tests/goldens/models_v<STREAM_VERSION>.json: the first draws and rebuilt series of the
  model-based methods (their purposes were added under version 2 without changing any
  existing stream, so version 2 has both files);
* tests/goldens/models_fixed_v<STREAM_VERSION>.json: the same for the fixed-design
  residual bootstrap, whose purposes (FIXED_*) were added later, again under version 2
  and again shifting no existing stream: a third file, so the second is never rewritten;
* tests/goldens/panel_v<STREAM_VERSION>.json: the first draws of a panel's series 1, 2
  and 2**32 - 1 (the counter's series word; series 0 is the stream file above), added
  under version 2 without changing any stream: a fourth file;
* tests/goldens/forecast_v<STREAM_VERSION>.json: the first draws of the prediction
  intervals (purposes FORECAST_SHOCK and CONFORMAL_BLOCK_START, added under version 2
  without changing any stream) and both methods' intervals on the model series: a fifth.

Run it when STREAM_VERSION was bumped, or when a file for the current version is
missing: an existing golden file is never overwritten, because it is the record of what
that stream version produced.

    .venv/bin/python scripts/make_goldens.py
"""

import json
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bootmark import reference
from bootmark.reference.data import as_series
from bootmark.reference.draws import Purpose, WordStream
from bootmark.reference.forecast import forecast_interval, member_rows, shock_indices
from bootmark.reference.indices import STREAM_VERSION, index_rows
from bootmark.reference.keys import replicate_key, root_key, stream_key
from bootmark.reference.models import (
    ARITHMETIC,
    FIXED_STREAMS,
    RECURSIVE_STREAMS,
    block_offset,
    multipliers,
    replicate_paths,
    residual_indices,
    resolve_model,
)

SEEDS = [0, 42, 2**100 + 3]
N = 17
ROWS = 3
METHODS = {
    "IID()": reference.IID(),
    "MovingBlock(4)": reference.MovingBlock(4),
    "CircularBlock(4)": reference.CircularBlock(4),
    "NonOverlappingBlock(4)": reference.NonOverlappingBlock(4),
    "StationaryBlock(4)": reference.StationaryBlock(4),
    "StationaryBlock(2)": reference.StationaryBlock(2),
    "TaperedBlock(4)": reference.TaperedBlock(4),
}
INDEX_PURPOSES = (Purpose.BLOCK_START, Purpose.BLOCK_LENGTH)  # the purposes of the resampling methods
MODEL_PURPOSES = (Purpose.RESIDUAL_INDEX, Purpose.WILD_MULTIPLIER, Purpose.BLOCK_WILD_OFFSET)
# A fixed AR(1)-like series of 24 values (exact dyadic shocks); its fits are fsum and
# IEEE arithmetic, so they and the rebuilt series are portable bit for bit.
MODEL_DATA = [0.25]
for _t in range(1, 24):
    MODEL_DATA.append(0.5 * MODEL_DATA[-1] + ((_t * 7919) % 23 - 11) / 8.0)
# Gaussian multipliers use libm (log, cos, sin), so they are pinned through their words
# (WILD_MULTIPLIER) only; every method below is integer draws and IEEE arithmetic.
MODEL_METHODS = {
    "ResidualBootstrap(AR(1), IID())": reference.ResidualBootstrap(reference.AR(1), reference.IID()),
    "ResidualBootstrap(AR(2), Wild('rademacher'))": reference.ResidualBootstrap(reference.AR(2), reference.Wild()),
    "ResidualBootstrap(AR(1), Wild('mammen'))": reference.ResidualBootstrap(reference.AR(1), reference.Wild("mammen")),
    "ResidualBootstrap(AR(1), BlockWild('rademacher', 3))": reference.ResidualBootstrap(
        reference.AR(1), reference.BlockWild("rademacher", 3)
    ),
    "ResidualBootstrap(AR(2), BlockWild('mammen', 4))": reference.ResidualBootstrap(
        reference.AR(2), reference.BlockWild("mammen", 4)
    ),
    "SieveAR(max_order=3, innovation=IID())": reference.SieveAR(max_order=3),
}
FIXED_PURPOSES = (Purpose.FIXED_RESIDUAL_INDEX, Purpose.FIXED_WILD_MULTIPLIER, Purpose.FIXED_BLOCK_WILD_OFFSET)
FIXED_MODEL_METHODS = {
    "ResidualBootstrap(AR(1), IID(), design='fixed')": reference.ResidualBootstrap(
        reference.AR(1), reference.IID(), design="fixed"
    ),
    "ResidualBootstrap(AR(2), Wild('rademacher'), design='fixed')": reference.ResidualBootstrap(
        reference.AR(2), reference.Wild(), design="fixed"
    ),
    "ResidualBootstrap(AR(1), Wild('mammen'), design='fixed')": reference.ResidualBootstrap(
        reference.AR(1), reference.Wild("mammen"), design="fixed"
    ),
    "ResidualBootstrap(AR(1), BlockWild('rademacher', 3), design='fixed')": reference.ResidualBootstrap(
        reference.AR(1), reference.BlockWild("rademacher", 3), design="fixed"
    ),
    "ResidualBootstrap(AR(2), BlockWild('mammen', 4), design='fixed')": reference.ResidualBootstrap(
        reference.AR(2), reference.BlockWild("mammen", 4), design="fixed"
    ),
}


def golden():
    """The golden record of the current stream version's resampling methods."""
    record = {"stream_version": STREAM_VERSION, "n": N, "seeds": {}}
    for seed in SEEDS:
        root = root_key(seed)
        key = replicate_key(root, 0)
        record["seeds"][str(seed)] = {
            "root_key": [hex(root[0]), hex(root[1])],
            "replicate_keys": [[hex(w) for w in replicate_key(root, b)] for b in range(3)],
            "words": {purpose.name: [hex(w) for w in _words(key, purpose, 8)] for purpose in INDEX_PURPOSES},
            "rows": {name: list(index_rows(method, N, seed, ROWS)) for name, method in METHODS.items()},
        }
    return record


def _model_record(methods, purposes, streams):
    """Fits, raw words of ``purposes``, draws on ``streams`` and rebuilt series of ``methods``."""
    series = as_series(MODEL_DATA)
    models = {name: resolve_model(method, series, ARITHMETIC) for name, method in methods.items()}
    record = {
        "stream_version": STREAM_VERSION,
        "x": MODEL_DATA,
        "fits": {name: list(model.fit.components) for name, model in models.items()},
        "seeds": {},
    }
    for seed in SEEDS:
        root = root_key(seed)
        keys = [replicate_key(root, b) for b in range(ROWS)]
        record["seeds"][str(seed)] = {
            "words": {purpose.name: [hex(w) for w in _words(keys[0], purpose, 8)] for purpose in purposes},
            "residual_indices": [residual_indices(N, key, streams.residual_index) for key in keys],
            "multipliers": {
                name: multipliers(name, 40, keys[0], streams.multiplier) for name in ("rademacher", "mammen")
            },
            "block_offsets": [block_offset(10, key, streams.offset) for key in keys],
            "series": {name: list(replicate_paths(model, MODEL_DATA, seed, ROWS)) for name, model in models.items()},
        }
    return record


def model_golden():
    """The golden record of the current stream version's recursive model-based methods."""
    return _model_record(MODEL_METHODS, MODEL_PURPOSES, RECURSIVE_STREAMS)


def fixed_model_golden():
    """The golden record of the current stream version's fixed-design residual bootstraps."""
    return _model_record(FIXED_MODEL_METHODS, FIXED_PURPOSES, FIXED_STREAMS)


PANEL_SERIES = (1, 2, 2**32 - 1)  # series 0 is every single-series stream, pinned above


def panel_golden():
    """The golden record of a panel's series words: words and index rows of series
    ``PANEL_SERIES`` (``reference.panel``: series s draws with series word s)."""
    record = {"stream_version": STREAM_VERSION, "n": N, "seeds": {}}
    for seed in SEEDS:
        root = root_key(seed)
        record["seeds"][str(seed)] = {
            str(series): {
                "words": {
                    purpose.name: [hex(w) for w in _words(stream_key(root, 0, series), purpose, 8)]
                    for purpose in INDEX_PURPOSES
                },
                "rows": {
                    name: list(index_rows(method, N, seed, ROWS, series=series)) for name, method in METHODS.items()
                },
            }
            for series in PANEL_SERIES
        }
    return record


FORECAST_PURPOSES = (Purpose.FORECAST_SHOCK, Purpose.CONFORMAL_BLOCK_START)
FORECAST_HORIZON = 4
FORECAST_RUNS = {  # name -> (method, replicates or members); small, so the file stays short
    "bootstrap": ("bootstrap", 40),
    "conformal": ("conformal", 40),
}


def forecast_golden():
    """The golden record of the prediction intervals' draws: words of their two
    purposes, shock indices (M = 23 residuals, H = 4) and member rows (R = 23 rows,
    L = 3) of replicates 0-2, and both methods' intervals on ``MODEL_DATA`` (fsum and
    IEEE arithmetic only, so portable bit for bit)."""
    record = {"stream_version": STREAM_VERSION, "x": MODEL_DATA, "horizon": FORECAST_HORIZON, "seeds": {}}
    for seed in SEEDS:
        root = root_key(seed)
        keys = [stream_key(root, b) for b in range(ROWS)]
        record["seeds"][str(seed)] = {
            "words": {purpose.name: [hex(w) for w in _words(keys[0], purpose, 8)] for purpose in FORECAST_PURPOSES},
            "shock_indices": [shock_indices(23, FORECAST_HORIZON, key) for key in keys],
            "member_rows": [member_rows(23, 3, key) for key in keys],
            "intervals": {
                name: {
                    "n_bootstraps": count,
                    **dict(
                        zip(
                            ("lower", "upper", "point"),
                            (
                                list(bounds)
                                for bounds in forecast_interval(
                                    MODEL_DATA,
                                    FORECAST_HORIZON,
                                    method=method,
                                    n_bootstraps=count,
                                    seed=seed,
                                    max_order=3,
                                )
                            ),
                            strict=True,
                        )
                    ),
                }
                for name, (method, count) in FORECAST_RUNS.items()
            },
        }
    return record


def _words(key, purpose, count):
    stream = WordStream(key, purpose)
    return [stream.word() for _ in range(count)]


def golden_path():
    return ROOT / "tests" / "goldens" / f"stream_v{STREAM_VERSION}.json"


def model_golden_path():
    return ROOT / "tests" / "goldens" / f"models_v{STREAM_VERSION}.json"


def fixed_model_golden_path():
    return ROOT / "tests" / "goldens" / f"models_fixed_v{STREAM_VERSION}.json"


def panel_golden_path():
    return ROOT / "tests" / "goldens" / f"panel_v{STREAM_VERSION}.json"


def forecast_golden_path():
    return ROOT / "tests" / "goldens" / f"forecast_v{STREAM_VERSION}.json"


def _write(path, record):
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(record, indent=1) + "\n")
    os.replace(temporary, path)
    print(f"wrote {path}")


def main():
    files = [
        (golden_path(), golden),
        (model_golden_path(), model_golden),
        (fixed_model_golden_path(), fixed_model_golden),
        (panel_golden_path(), panel_golden),
        (forecast_golden_path(), forecast_golden),
    ]
    missing = [(path, build) for path, build in files if not path.exists()]
    if not missing:
        sys.exit(
            f"{', '.join(str(path) for path, _ in files)} exist; golden files are never overwritten. Bump "
            "STREAM_VERSION in reference/indices.py if the stream changed."
        )
    for path, build in missing:
        _write(path, build())


if __name__ == "__main__":
    main()
