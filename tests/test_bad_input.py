"""The bad-input error table: every kind of bad argument gets a typed error with a stable
code, names the argument at fault, says how to fix it, and never comes back as a NaN.

Each row of ``BAD_INPUT_CASES`` is ``(call, error class, ErrorCode, argument)``; ``call``
takes the twin module and makes one call through it only (``twin.MovingBlock(0)``, never
``reference.MovingBlock(0)``), so the same table runs against every twin in ``TWINS``.
The Numba engine twin is appended to ``TWINS`` when it exists.
"""

import math
import numbers
import warnings

import numpy as np
import pandas as pd
import pytest

from bootmark import engine, reference
from bootmark.reference.errors import (
    BlockLengthWarning,
    BootmarkError,
    DataTypeError,
    ErrorCode,
    InvalidDataError,
    InvalidParameterError,
    ParameterTypeError,
)

TWINS = [reference, engine]

X = [0.5, 1.5, -0.25, 2.0, 1.0, 0.75, -1.0, 3.0, 0.0, 1.25]  # a small valid series
N = len(X)
X2 = [[0.5, 1.0], [1.5, -2.0], [-0.25, 0.5], [2.0, 1.5], [1.0, 0.0], [0.75, 2.5]]  # 6 rows, 2 variables
B = 20  # replicates for the valid parts of a call; the errors come before any work

BLOCK_SPECS = ["MovingBlock", "CircularBlock", "NonOverlappingBlock", "StationaryBlock", "TaperedBlock"]


def _block_argument(spec_name):
    return "mean_block_length" if spec_name == "StationaryBlock" else "block_length"


def _spec(twin, spec_name, length):
    return getattr(twin, spec_name)(length)


def _reduce(twin, x=X, method=None, statistic="mean", n_bootstraps=B, seed=1):
    method = twin.IID() if method is None else method
    return twin.bootstrap_reduce(x, method, statistic, n_bootstraps=n_bootstraps, seed=seed)


def _nan_only_on_resamples(sample):
    """A statistic that is fine on the original data and NaN on (almost) every resample."""
    return 1.0 if sorted(sample) == sorted(X) else float("nan")


def _data_cases():
    nan, inf = float("nan"), float("inf")
    ok = [1.0, 2.0, 3.0]
    return [
        # non-finite values, through every entry point that takes data
        pytest.param(
            lambda t: _reduce(t, [1.0, nan, 2.0]),
            InvalidDataError,
            ErrorCode.DATA_NOT_FINITE,
            "x",
            id="nan-list-reduce",
        ),
        pytest.param(
            lambda t: t.bootstrap([1.0, nan, 2.0], t.IID(), n_bootstraps=B, seed=1),
            InvalidDataError,
            ErrorCode.DATA_NOT_FINITE,
            "x",
            id="nan-list-bootstrap",
        ),
        pytest.param(
            lambda t: t.conf_int([1.0, nan, 2.0], "mean", t.IID(), n_bootstraps=B, seed=1),
            InvalidDataError,
            ErrorCode.DATA_NOT_FINITE,
            "x",
            id="nan-list-conf_int",
        ),
        pytest.param(
            lambda t: t.optimal_block_length(X + [nan]),
            InvalidDataError,
            ErrorCode.DATA_NOT_FINITE,
            "x",
            id="nan-list-optimal_block_length",
        ),
        pytest.param(
            lambda t: _reduce(t, np.array([1.0, 2.0, nan])),
            InvalidDataError,
            ErrorCode.DATA_NOT_FINITE,
            "x",
            id="nan-numpy",
        ),
        pytest.param(
            lambda t: _reduce(t, pd.Series([1.0, nan, 2.0])),
            InvalidDataError,
            ErrorCode.DATA_NOT_FINITE,
            "x",
            id="nan-series",
        ),
        pytest.param(
            lambda t: _reduce(t, [[1.0, 2.0], [nan, 3.0], [4.0, 5.0]]),
            InvalidDataError,
            ErrorCode.DATA_NOT_FINITE,
            "x",
            id="nan-in-a-row",
        ),
        pytest.param(
            lambda t: _reduce(t, [1.0, inf, 2.0]), InvalidDataError, ErrorCode.DATA_NOT_FINITE, "x", id="plus-inf"
        ),
        pytest.param(
            lambda t: _reduce(t, [1.0, -inf, 2.0]), InvalidDataError, ErrorCode.DATA_NOT_FINITE, "x", id="minus-inf"
        ),
        pytest.param(
            lambda t: _reduce(t, np.array([[1.0, 2.0], [3.0, -inf]])),
            InvalidDataError,
            ErrorCode.DATA_NOT_FINITE,
            "x",
            id="minus-inf-numpy-2d",
        ),
        # too short, empty, too many dimensions
        pytest.param(lambda t: _reduce(t, [1.0]), InvalidDataError, ErrorCode.DATA_TOO_SHORT, "x", id="one-value"),
        pytest.param(
            lambda t: _reduce(t, np.array([1.0])), InvalidDataError, ErrorCode.DATA_TOO_SHORT, "x", id="one-value-numpy"
        ),
        pytest.param(lambda t: _reduce(t, [[1.0, 2.0]]), InvalidDataError, ErrorCode.DATA_TOO_SHORT, "x", id="one-row"),
        pytest.param(
            lambda t: t.optimal_block_length([1.0]),
            InvalidDataError,
            ErrorCode.DATA_TOO_SHORT,
            "x",
            id="one-value-optimal_block_length",
        ),
        # ErrorCode documents DATA_SHAPE as "x is empty, ragged or has more than two dimensions":
        # an empty series is a shape error, not a too-short one.
        pytest.param(lambda t: _reduce(t, []), InvalidDataError, ErrorCode.DATA_SHAPE, "x", id="empty-list"),
        pytest.param(
            lambda t: _reduce(t, np.array([], dtype=float)),
            InvalidDataError,
            ErrorCode.DATA_SHAPE,
            "x",
            id="empty-numpy",
        ),
        pytest.param(
            lambda t: _reduce(t, [[], []]), InvalidDataError, ErrorCode.DATA_SHAPE, "x", id="rows-without-columns"
        ),
        pytest.param(
            lambda t: _reduce(t, [[[1.0], [2.0]], [[3.0], [4.0]]]),
            InvalidDataError,
            ErrorCode.DATA_SHAPE,
            "x",
            id="3d-nested-lists",
        ),
        pytest.param(
            lambda t: _reduce(t, np.zeros((4, 2, 2))), InvalidDataError, ErrorCode.DATA_SHAPE, "x", id="3d-numpy"
        ),
        pytest.param(
            lambda t: _reduce(t, [[1.0, 2.0], [3.0], [4.0, 5.0]]),
            InvalidDataError,
            ErrorCode.DATA_SHAPE,
            "x",
            id="ragged-rows",
        ),
        pytest.param(
            lambda t: _reduce(t, [[1.0, 2.0], [3.0, 4.0, 5.0]]),
            InvalidDataError,
            ErrorCode.DATA_SHAPE,
            "x",
            id="ragged-rows-longer",
        ),
        pytest.param(
            lambda t: _reduce(t, [1.0, [2.0, 3.0], 4.0]),
            InvalidDataError,
            ErrorCode.DATA_SHAPE,
            "x",
            id="numbers-mixed-with-rows",
        ),
        # not numbers
        pytest.param(lambda t: _reduce(t, "1.0 2.0 3.0"), DataTypeError, ErrorCode.DATA_TYPE, "x", id="str-as-x"),
        pytest.param(
            lambda t: _reduce(t, [1.0, "2.0", 3.0]), DataTypeError, ErrorCode.DATA_TYPE, "x", id="list-with-a-string"
        ),
        pytest.param(
            lambda t: _reduce(t, np.array(["1.0", "2.0", "3.0"])),
            DataTypeError,
            ErrorCode.DATA_TYPE,
            "x",
            id="numpy-strings",
        ),
        pytest.param(
            lambda t: _reduce(t, pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": ["x", "y", "z"]})),
            DataTypeError,
            ErrorCode.DATA_TYPE,
            "x",
            id="dataframe-string-column",
        ),
        pytest.param(
            lambda t: _reduce(t, pd.Series(["1.0", "2.0", "3.0"], dtype=object)),
            DataTypeError,
            ErrorCode.DATA_TYPE,
            "x",
            id="series-object-strings",
        ),
        pytest.param(
            lambda t: _reduce(t, [1.0, None, 3.0]), DataTypeError, ErrorCode.DATA_TYPE, "x", id="none-in-list"
        ),
        pytest.param(
            lambda t: _reduce(t, [1.0 + 2.0j, 3.0, 4.0]), DataTypeError, ErrorCode.DATA_TYPE, "x", id="complex"
        ),
        pytest.param(lambda t: _reduce(t, [True, False, True]), DataTypeError, ErrorCode.DATA_TYPE, "x", id="bools"),
        pytest.param(
            lambda t: _reduce(t, {"a": 1.0, "b": 2.0}), DataTypeError, ErrorCode.DATA_TYPE, "x", id="dict-as-x"
        ),
        pytest.param(
            lambda t: t.conf_int(ok + ["4"], "mean", t.IID(), n_bootstraps=B, seed=1),
            DataTypeError,
            ErrorCode.DATA_TYPE,
            "x",
            id="string-conf_int",
        ),
        # Politis-White is undefined for a constant series: the long-run variance is zero
        pytest.param(
            lambda t: t.optimal_block_length([3.0] * 50),
            InvalidDataError,
            ErrorCode.BLOCK_LENGTH_ESTIMATE,
            "x",
            id="constant-optimal_block_length",
        ),
        pytest.param(
            lambda t: t.bootstrap([3.0] * 50, t.MovingBlock("auto"), n_bootstraps=B, seed=1),
            InvalidDataError,
            ErrorCode.BLOCK_LENGTH_ESTIMATE,
            "x",
            id="constant-auto-moving",
        ),
        pytest.param(
            lambda t: _reduce(t, [3.0] * 50, t.StationaryBlock("auto")),
            InvalidDataError,
            ErrorCode.BLOCK_LENGTH_ESTIMATE,
            "x",
            id="constant-auto-stationary",
        ),
        pytest.param(
            lambda t: t.optimal_block_length([[1.0, 3.0]] * 20 + [[2.0, 3.0]] * 20),
            InvalidDataError,
            ErrorCode.BLOCK_LENGTH_ESTIMATE,
            "x",
            id="one-constant-column",
        ),
    ]


def _block_length_cases():
    cases = []
    bad_at_construction = [
        (0, InvalidParameterError, "zero"),
        (-3, InvalidParameterError, "negative"),
        (2.5, InvalidParameterError, "float-2.5"),
        ("bogus", InvalidParameterError, "bogus"),
        (True, ParameterTypeError, "bool"),
        (None, ParameterTypeError, "none"),
    ]
    for spec_name in BLOCK_SPECS:
        argument = _block_argument(spec_name)
        for length, error, label in bad_at_construction:
            cases.append(
                pytest.param(
                    lambda t, s=spec_name, b=length: _spec(t, s, b),
                    error,
                    ErrorCode.BLOCK_LENGTH,
                    argument,
                    id=f"{spec_name}-{label}",
                )
            )
        # legal on its own, refused against the data: n + 1 observations per block
        cases.append(
            pytest.param(
                lambda t, s=spec_name: _reduce(t, X, _spec(t, s, N + 1)),
                InvalidParameterError,
                ErrorCode.BLOCK_LENGTH,
                argument,
                id=f"{spec_name}-longer-than-n",
            )
        )
        cases.append(
            pytest.param(
                lambda t, s=spec_name: t.bootstrap(X2, _spec(t, s, len(X2) + 5), n_bootstraps=B, seed=1),
                InvalidParameterError,
                ErrorCode.BLOCK_LENGTH,
                argument,
                id=f"{spec_name}-longer-than-n-rows",
            )
        )
    cases.append(
        pytest.param(
            lambda t: t.conf_int(X, "mean", t.MovingBlock(10 * N), n_bootstraps=B, seed=1),
            InvalidParameterError,
            ErrorCode.BLOCK_LENGTH,
            "block_length",
            id="longer-than-n-conf_int",
        )
    )
    return cases


def _method_cases():
    return [
        pytest.param(
            lambda t: _reduce(t, X, t.IID), ParameterTypeError, ErrorCode.METHOD, "method", id="IID-class-not-instance"
        ),
        pytest.param(
            lambda t: t.bootstrap(X, t.MovingBlock, n_bootstraps=B, seed=1),
            ParameterTypeError,
            ErrorCode.METHOD,
            "method",
            id="MovingBlock-class-not-instance",
        ),
        pytest.param(
            lambda t: _reduce(t, X, "moving"), ParameterTypeError, ErrorCode.METHOD, "method", id="method-string"
        ),
        pytest.param(
            lambda t: t.conf_int(X, "mean", None, n_bootstraps=B, seed=1),
            ParameterTypeError,
            ErrorCode.METHOD,
            "method",
            id="method-none-conf_int",
        ),
        # conf_int takes (x, statistic, method): swapped arguments are caught, not misread
        pytest.param(
            lambda t: t.conf_int(X, t.IID(), "mean", n_bootstraps=B, seed=1),
            ParameterTypeError,
            ErrorCode.METHOD,
            "method",
            id="conf_int-swapped-statistic-method",
        ),
        pytest.param(
            lambda t: t.TaperedBlock(3, window="kaiser"),
            InvalidParameterError,
            ErrorCode.WINDOW,
            "window",
            id="tapered-unknown-window",
        ),
        pytest.param(
            lambda t: t.TaperedBlock(3, window=1),
            ParameterTypeError,
            ErrorCode.WINDOW,
            "window",
            id="tapered-window-not-a-string",
        ),
        pytest.param(
            lambda t: t.TaperedBlock(3, window="hann", taper_fraction=0.5),
            InvalidParameterError,
            ErrorCode.WINDOW,
            "taper_fraction",
            id="tapered-fraction-with-hann",
        ),
        pytest.param(
            lambda t: t.TaperedBlock(3, window="bartlett", taper_fraction=0.5),
            InvalidParameterError,
            ErrorCode.WINDOW,
            "taper_fraction",
            id="tapered-fraction-with-bartlett",
        ),
        pytest.param(
            lambda t: t.TaperedBlock(3, taper_fraction=0.0),
            InvalidParameterError,
            ErrorCode.WINDOW,
            "taper_fraction",
            id="tapered-fraction-zero",
        ),
        pytest.param(
            lambda t: t.TaperedBlock(3, taper_fraction=1.5),
            InvalidParameterError,
            ErrorCode.WINDOW,
            "taper_fraction",
            id="tapered-fraction-above-one",
        ),
    ]


def _count_and_seed_cases():
    cases = []
    for value, error, label in [
        (0, InvalidParameterError, "zero"),
        (-5, InvalidParameterError, "negative"),
        (10.5, ParameterTypeError, "float-10.5"),
        (10.0, ParameterTypeError, "float-10.0"),
        ("100", ParameterTypeError, "string"),
        (True, ParameterTypeError, "bool"),
        (None, ParameterTypeError, "none"),
    ]:
        cases.append(
            pytest.param(
                lambda t, v=value: _reduce(t, n_bootstraps=v),
                error,
                ErrorCode.N_BOOTSTRAPS,
                "n_bootstraps",
                id=f"n_bootstraps-{label}",
            )
        )
    cases.append(
        pytest.param(
            lambda t: t.bootstrap(X, t.IID(), n_bootstraps=0, seed=1),
            InvalidParameterError,
            ErrorCode.N_BOOTSTRAPS,
            "n_bootstraps",
            id="n_bootstraps-zero-bootstrap",
        )
    )
    cases.append(
        pytest.param(
            lambda t: t.conf_int(X, "mean", t.IID(), n_bootstraps=10.0, seed=1),
            ParameterTypeError,
            ErrorCode.N_BOOTSTRAPS,
            "n_bootstraps",
            id="n_bootstraps-float-conf_int",
        )
    )
    # an interval needs at least two replicates
    cases.append(
        pytest.param(
            lambda t: t.conf_int(X, "mean", t.IID(), n_bootstraps=1, seed=1),
            InvalidParameterError,
            ErrorCode.N_BOOTSTRAPS,
            "n_bootstraps",
            id="conf_int-one-replicate",
        )
    )
    for value, error, label in [
        (-1, InvalidParameterError, "negative"),
        (2**128, InvalidParameterError, "2**128"),
        (1.0, ParameterTypeError, "float"),
        (np.float64(1.0), ParameterTypeError, "numpy-float64"),
        ("7", ParameterTypeError, "string"),
        (True, ParameterTypeError, "bool"),
    ]:
        cases.append(
            pytest.param(lambda t, v=value: _reduce(t, seed=v), error, ErrorCode.SEED, "seed", id=f"seed-{label}")
        )
    cases.append(
        pytest.param(
            lambda t: t.bootstrap(X, t.IID(), n_bootstraps=B, seed=-1),
            InvalidParameterError,
            ErrorCode.SEED,
            "seed",
            id="seed-negative-bootstrap",
        )
    )
    cases.append(
        pytest.param(
            lambda t: t.conf_int(X, "mean", t.IID(), n_bootstraps=B, seed=2**128),
            InvalidParameterError,
            ErrorCode.SEED,
            "seed",
            id="seed-2**128-conf_int",
        )
    )
    return cases


def _statistic_and_interval_cases():
    cases = [
        pytest.param(
            lambda t: _reduce(t, statistic="mode"),
            InvalidParameterError,
            ErrorCode.STATISTIC,
            "statistic",
            id="statistic-unknown",
        ),
        pytest.param(
            lambda t: _reduce(t, statistic=42),
            ParameterTypeError,
            ErrorCode.STATISTIC,
            "statistic",
            id="statistic-not-a-statistic",
        ),
        pytest.param(
            lambda t: t.conf_int(X, "mode", t.IID(), n_bootstraps=B, seed=1),
            InvalidParameterError,
            ErrorCode.STATISTIC,
            "statistic",
            id="statistic-unknown-conf_int",
        ),
        pytest.param(
            lambda t: _reduce(t, statistic=("quantile", 1.5)),
            InvalidParameterError,
            ErrorCode.QUANTILE,
            "statistic",
            id="quantile-above-one",
        ),
        pytest.param(
            lambda t: _reduce(t, statistic=("quantile", -0.1)),
            InvalidParameterError,
            ErrorCode.QUANTILE,
            "statistic",
            id="quantile-negative",
        ),
        pytest.param(
            lambda t: _reduce(t, statistic=("quantile", (0.5, 1.2))),
            InvalidParameterError,
            ErrorCode.QUANTILE,
            "statistic",
            id="quantile-one-of-several-bad",
        ),
        pytest.param(
            lambda t: _reduce(t, statistic=("quantile", float("nan"))),
            InvalidParameterError,
            ErrorCode.QUANTILE,
            "statistic",
            id="quantile-nan",
        ),
        pytest.param(
            lambda t: _reduce(t, statistic=("quantile", ())),
            InvalidParameterError,
            ErrorCode.QUANTILE,
            "statistic",
            id="quantile-no-levels",
        ),
        pytest.param(
            lambda t: _reduce(t).quantile(1.5),
            InvalidParameterError,
            ErrorCode.QUANTILE,
            "q",
            id="result-quantile-above-one",
        ),
        pytest.param(
            lambda t: t.conf_int(X, "mean", t.IID(), kind="bca", n_bootstraps=B, seed=1),
            InvalidParameterError,
            ErrorCode.INTERVAL_KIND,
            "kind",
            id="kind-bca",
        ),
        pytest.param(
            lambda t: t.conf_int(X, "mean", t.IID(), kind=None, n_bootstraps=B, seed=1),
            ParameterTypeError,
            ErrorCode.INTERVAL_KIND,
            "kind",
            id="kind-none",
        ),
        pytest.param(
            lambda t: t.conf_int(X, "mean", t.IID(), alpha="0.1", n_bootstraps=B, seed=1),
            ParameterTypeError,
            ErrorCode.ALPHA,
            "alpha",
            id="alpha-string",
        ),
        # a callable statistic that returns NaN, on the original data and on the resamples
        pytest.param(
            lambda t: _reduce(t, statistic=lambda s: float("nan")),
            InvalidParameterError,
            ErrorCode.STATISTIC_RESULT,
            "statistic",
            id="callable-nan",
        ),
        pytest.param(
            lambda t: _reduce(t, statistic=_nan_only_on_resamples),
            InvalidParameterError,
            ErrorCode.STATISTIC_RESULT,
            "statistic",
            id="callable-nan-on-resamples",
        ),
        pytest.param(
            lambda t: t.conf_int(X, lambda s: float("inf"), t.IID(), n_bootstraps=B, seed=1),
            InvalidParameterError,
            ErrorCode.STATISTIC_RESULT,
            "statistic",
            id="callable-inf-conf_int",
        ),
        pytest.param(
            lambda t: _reduce(t, statistic=lambda s: None),
            InvalidParameterError,
            ErrorCode.STATISTIC_RESULT,
            "statistic",
            id="callable-none",
        ),
        pytest.param(
            lambda t: _reduce(t, statistic=lambda s: [1.0] * (1 + (s[0] > 1.0))),
            InvalidParameterError,
            ErrorCode.STATISTIC_RESULT,
            "statistic",
            id="callable-changing-length",
        ),
    ]
    for alpha in [0, 1, -0.1, 1.5, 0.0, 1.0, float("nan")]:
        cases.append(
            pytest.param(
                lambda t, a=alpha: t.conf_int(X, "mean", t.IID(), alpha=a, n_bootstraps=B, seed=1),
                InvalidParameterError,
                ErrorCode.ALPHA,
                "alpha",
                id=f"alpha-{alpha!r}",
            )
        )
    return cases


def _review_cases():
    """Holes a review found: each once leaked a bare exception or a silent wrong answer."""
    huge = 10**400  # an int no float can hold
    return [
        pytest.param(
            lambda t: _reduce(t, [huge, 1.0, 2.0]),
            InvalidDataError,
            ErrorCode.DATA_NOT_FINITE,
            "x",
            id="int-too-large-for-a-float",
        ),
        pytest.param(
            lambda t: t.conf_int(X, "mean", t.IID(), alpha=huge, n_bootstraps=B, seed=1),
            InvalidParameterError,
            ErrorCode.ALPHA,
            "alpha",
            id="alpha-huge-int",
        ),
        pytest.param(
            lambda t: _reduce(t, statistic=("quantile", huge)),
            InvalidParameterError,
            ErrorCode.QUANTILE,
            "statistic",
            id="quantile-huge-int",
        ),
        pytest.param(
            lambda t: _reduce(t, statistic=lambda s: huge),
            InvalidParameterError,
            ErrorCode.STATISTIC_RESULT,
            "statistic",
            id="callable-returns-huge-int",
        ),
        pytest.param(
            lambda t: _reduce(t, n_bootstraps=np.float32(10.0)),
            ParameterTypeError,
            ErrorCode.N_BOOTSTRAPS,
            "n_bootstraps",
            id="n_bootstraps-numpy-float32",
        ),
        pytest.param(
            lambda t: _reduce(t, seed=np.float32(3.0)),
            ParameterTypeError,
            ErrorCode.SEED,
            "seed",
            id="seed-numpy-float32",
        ),
        pytest.param(
            lambda t: t.optimal_block_length([1 / 3] * 50),
            InvalidDataError,
            ErrorCode.BLOCK_LENGTH_ESTIMATE,
            "x",
            id="constant-with-inexact-mean",
        ),
        pytest.param(
            lambda t: _reduce(t, pd.DataFrame([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]], columns=["a", "a"])),
            InvalidDataError,
            ErrorCode.DATA_SHAPE,
            "x",
            id="duplicate-column-labels",
        ),
        pytest.param(
            lambda t: _reduce(t, statistic=("quantile", (0.5, 0.5))),
            InvalidParameterError,
            ErrorCode.QUANTILE,
            "statistic",
            id="duplicate-quantile-levels",
        ),
        pytest.param(
            lambda t: _reduce(t, np.array(["2024-01-01", "2024-01-02", "2024-01-03"], dtype="datetime64[ns]")),
            DataTypeError,
            ErrorCode.DATA_TYPE,
            "x",
            id="datetime64-ns-stamps",
        ),
        pytest.param(
            lambda t: t.optimal_block_length([1.0, 2.0, 0.5, 3.0, 1.5]),
            InvalidDataError,
            ErrorCode.BLOCK_LENGTH_ESTIMATE,
            "x",
            id="auto-on-five-values",
        ),
        # Squares of deviations this large overflow: once NaN in the engine, inf in the reference.
        pytest.param(
            lambda t: _reduce(t, [1e160, -1e160, 0.0], statistic="var"),
            InvalidDataError,
            ErrorCode.DATA_RANGE,
            "x",
            id="values-whose-squares-overflow",
        ),
        pytest.param(
            lambda t: _reduce(t, [[1.0, 2.0], [3.0, 1.7e308], [0.5, 0.0]]),
            InvalidDataError,
            ErrorCode.DATA_RANGE,
            "x",
            id="huge-value-in-a-row",
        ),
        pytest.param(
            lambda t: _reduce(t, method=t.MovingBlock(N), statistic="bogus"),
            InvalidParameterError,
            ErrorCode.STATISTIC,
            "statistic",
            id="statistic-checked-before-block-length-is-resolved",
        ),
    ]


EXPLOSIVE = [1.1**t for t in range(20)]  # x_t = 1.1 x_{t-1} exactly: the OLS fit has phi = 1.1
TREND = [float(t) for t in range(20)]  # x_t = 1 + x_{t-1} exactly: a unit root, phi = 1
# A short AR(1) path (phi = 0.95, data seed 24) whose fit is stationary (phi = 0.937) while
# 5 of the first 20 replicate refits (seed 1) are explosive, the first one replicate 3.
NEAR_UNIT_ROOT = [0.0, -0.45, -2.29, -0.71, 2.58, 2.96, 4.21, 5.41, 6.06, 6.67, 7.61, 6.96]


def _ar(twin, order=1, innovation=None, **options):
    return twin.ResidualBootstrap(twin.AR(order), twin.IID() if innovation is None else innovation, **options)


def _model_cases():
    """Model-based methods: malformed specs, orders at or above n / 2, model parts passed
    as the method, explosive, unit-root and singular fits, and statistics, intervals and
    index rows that a model-based method does not have."""
    return [
        pytest.param(lambda t: t.AR(-1), InvalidParameterError, ErrorCode.MODEL_ORDER, "order", id="AR-negative-order"),
        pytest.param(lambda t: t.AR(1.0), ParameterTypeError, ErrorCode.MODEL_ORDER, "order", id="AR-float-order"),
        pytest.param(lambda t: t.AR("2"), ParameterTypeError, ErrorCode.MODEL_ORDER, "order", id="AR-string-order"),
        pytest.param(
            lambda t: _reduce(t, X, _ar(t, N // 2)),
            InvalidParameterError,
            ErrorCode.MODEL_ORDER,
            "order",
            id="AR-order-at-half-n",
        ),
        pytest.param(
            lambda t: t.bootstrap(X, _ar(t, N - 1), n_bootstraps=B, seed=1),
            InvalidParameterError,
            ErrorCode.MODEL_ORDER,
            "order",
            id="AR-order-above-half-n-bootstrap",
        ),
        pytest.param(
            lambda t: _reduce(t, X, t.SieveAR(max_order=N // 2)),
            InvalidParameterError,
            ErrorCode.MODEL_ORDER,
            "max_order",
            id="sieve-max-order-at-half-n",
        ),
        pytest.param(
            lambda t: t.SieveAR(max_order=-2),
            InvalidParameterError,
            ErrorCode.MODEL_ORDER,
            "max_order",
            id="sieve-negative-max-order",
        ),
        pytest.param(
            lambda t: _reduce(t, X, t.Wild()), ParameterTypeError, ErrorCode.METHOD, "method", id="Wild-as-method"
        ),
        pytest.param(
            lambda t: t.bootstrap(X, t.BlockWild("rademacher", 3), n_bootstraps=B, seed=1),
            ParameterTypeError,
            ErrorCode.METHOD,
            "method",
            id="BlockWild-as-method",
        ),
        pytest.param(
            lambda t: t.conf_int(X, "mean", t.BlockWild, n_bootstraps=B, seed=1),
            ParameterTypeError,
            ErrorCode.METHOD,
            "method",
            id="BlockWild-class-as-method-conf_int",
        ),
        pytest.param(
            lambda t: _reduce(t, X, t.AR(1)), ParameterTypeError, ErrorCode.METHOD, "method", id="AR-as-method"
        ),
        pytest.param(
            lambda t: _reduce(t, X, t.ResidualBootstrap),
            ParameterTypeError,
            ErrorCode.METHOD,
            "method",
            id="ResidualBootstrap-class-not-instance",
        ),
        pytest.param(
            lambda t: t.Wild("normal"),
            InvalidParameterError,
            ErrorCode.MODEL,
            "distribution",
            id="Wild-unknown-distribution",
        ),
        pytest.param(
            lambda t: t.Wild(1),
            ParameterTypeError,
            ErrorCode.MODEL,
            "distribution",
            id="Wild-distribution-not-a-string",
        ),
        pytest.param(
            lambda t: t.BlockWild("uniform", 3),
            InvalidParameterError,
            ErrorCode.MODEL,
            "distribution",
            id="BlockWild-unknown-distribution",
        ),
        pytest.param(
            lambda t: t.BlockWild("rademacher", 0),
            InvalidParameterError,
            ErrorCode.BLOCK_LENGTH,
            "block_length",
            id="BlockWild-zero-length",
        ),
        pytest.param(
            lambda t: _reduce(t, X, _ar(t, 1, t.BlockWild("mammen", N))),
            InvalidParameterError,
            ErrorCode.BLOCK_LENGTH,
            "block_length",
            id="BlockWild-longer-than-the-residuals",
        ),
        pytest.param(
            lambda t: t.ResidualBootstrap(1),
            ParameterTypeError,
            ErrorCode.MODEL,
            "model",
            id="ResidualBootstrap-model-not-AR",
        ),
        pytest.param(
            lambda t: t.ResidualBootstrap(t.AR),
            ParameterTypeError,
            ErrorCode.MODEL,
            "model",
            id="ResidualBootstrap-AR-class",
        ),
        pytest.param(
            lambda t: t.ResidualBootstrap(t.AR(1), t.MovingBlock(3)),
            ParameterTypeError,
            ErrorCode.MODEL,
            "innovation",
            id="innovation-a-block-method",
        ),
        pytest.param(
            lambda t: t.SieveAR(innovation=t.Wild),
            ParameterTypeError,
            ErrorCode.MODEL,
            "innovation",
            id="innovation-class-not-instance",
        ),
        pytest.param(
            lambda t: t.SieveAR(criterion="hqic"),
            InvalidParameterError,
            ErrorCode.MODEL,
            "criterion",
            id="sieve-unknown-criterion",
        ),
        pytest.param(
            lambda t: _ar(t, 1, explosive="ignore"),
            InvalidParameterError,
            ErrorCode.MODEL,
            "explosive",
            id="unknown-explosive-policy",
        ),
        pytest.param(
            lambda t: _reduce(t, EXPLOSIVE, _ar(t, 1)), InvalidDataError, ErrorCode.MODEL_FIT, "x", id="explosive-fit"
        ),
        pytest.param(
            lambda t: t.bootstrap(TREND, _ar(t, 1, t.Wild()), n_bootstraps=B, seed=1),
            InvalidDataError,
            ErrorCode.MODEL_FIT,
            "x",
            id="unit-root-fit",
        ),
        pytest.param(
            lambda t: t.bootstrap(TREND, _ar(t, 2, t.Wild()), n_bootstraps=B, seed=1),
            InvalidDataError,
            ErrorCode.MODEL_FIT,
            "x",
            id="singular-fit-collinear-lags-of-a-trend",
        ),
        pytest.param(
            lambda t: t.conf_int(TREND, "ar_coef", t.SieveAR(max_order=1), n_bootstraps=B, seed=1),
            InvalidDataError,
            ErrorCode.MODEL_FIT,
            "x",
            id="unit-root-sieve-fit",
        ),
        pytest.param(
            lambda t: _reduce(t, [3.0] * 20, _ar(t, 1)),
            InvalidDataError,
            ErrorCode.MODEL_FIT,
            "x",
            id="singular-fit-of-a-constant-series",
        ),
        pytest.param(
            lambda t: _reduce(t, NEAR_UNIT_ROOT, _ar(t, 1), "ar_coef"),
            InvalidDataError,
            ErrorCode.MODEL_FIT,
            "explosive",
            id="explosive-replicate-refit",
        ),
        pytest.param(
            lambda t: _reduce(t, X2, _ar(t, 1)),
            InvalidDataError,
            ErrorCode.DATA_SHAPE,
            "x",
            id="model-on-several-columns",
        ),
        pytest.param(
            lambda t: _ar(t, 1, design="fixd"),
            InvalidParameterError,
            ErrorCode.MODEL,
            "design",
            id="unknown-residual-design",
        ),
        pytest.param(
            lambda t: t.conf_int([2.0] * 30, "mean", t.MovingBlock(3), kind="studentized", n_bootstraps=B, seed=1),
            InvalidDataError,
            ErrorCode.DATA_CONSTANT,
            "x",
            id="studentized-interval-of-a-constant-series",
        ),
        pytest.param(
            lambda t: t.conf_int([0.1] * 41, "mean", t.MovingBlock(3), kind="studentized", n_bootstraps=B, seed=1),
            InvalidDataError,
            ErrorCode.DATA_CONSTANT,
            "x",
            id="studentized-interval-of-a-constant-series-whose-mean-rounds",
        ),
        pytest.param(
            lambda t: t.conf_int(
                [0.1] * 40 + [0.3], "mean", t.MovingBlock(3), kind="studentized", n_bootstraps=B, seed=1
            ),
            InvalidDataError,
            ErrorCode.DATA_CONSTANT,
            "x",
            id="studentized-interval-with-a-constant-resample",
        ),
        pytest.param(
            lambda t: t.conf_int(X, "median", t.MovingBlock(3), kind="studentized", n_bootstraps=B, seed=1),
            InvalidParameterError,
            ErrorCode.STATISTIC,
            "statistic",
            id="studentized-interval-of-a-median",
        ),
        pytest.param(
            lambda t: _reduce(t, X, t.MovingBlock(3), "ar_coef"),
            InvalidParameterError,
            ErrorCode.STATISTIC,
            "statistic",
            id="ar_coef-with-a-block-method",
        ),
        pytest.param(
            lambda t: t.conf_int(X, "ar_coef", t.IID(), n_bootstraps=B, seed=1),
            InvalidParameterError,
            ErrorCode.STATISTIC,
            "statistic",
            id="ar_coef-with-iid-conf_int",
        ),
        pytest.param(
            lambda t: t.bootstrap(X, _ar(t, 1, t.Wild()), n_bootstraps=B, seed=1).indices(),
            InvalidParameterError,
            ErrorCode.METHOD,
            "method",
            id="indices-of-a-model-based-method",
        ),
        pytest.param(
            lambda t: t.conf_int(X, "mean", _ar(t, 1), kind="calibrated", n_bootstraps=B, seed=1),
            InvalidParameterError,
            ErrorCode.INTERVAL_KIND,
            "kind",
            id="calibrated-with-a-model-based-method",
        ),
    ]


def _panel(twin, series):
    return twin.Panel.from_series(series)


def _panel_cases():
    """A panel's bad inputs: its shape (code PANEL), and each bad series named by its id."""
    two = {"a": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "b": [1.0, 2.0, 3.0]}
    return [
        pytest.param(
            lambda t: t.Panel([1.0, 2.0, 3.0, 4.0], [0, 2, 2, 4], ids=["a", "b", "a"]),
            InvalidParameterError,
            ErrorCode.PANEL,
            "ids",
            id="panel-duplicate-ids",
        ),
        pytest.param(
            lambda t: t.Panel([1.0, 2.0, 3.0, 4.0], [0, 3]),
            InvalidParameterError,
            ErrorCode.PANEL,
            "offsets",
            id="panel-offsets-short-of-the-values",
        ),
        pytest.param(
            lambda t: t.Panel([1.0, 2.0, 3.0, 4.0], [0, 3, 2, 4]),
            InvalidParameterError,
            ErrorCode.PANEL,
            "offsets",
            id="panel-offsets-decrease",
        ),
        pytest.param(
            lambda t: _panel(t, [[1.0, 2.0], []]),
            InvalidDataError,
            ErrorCode.DATA_SHAPE,
            "panel[1]",
            id="panel-empty-series",
        ),
        pytest.param(
            lambda t: _panel(t, {"a": [1.0, 2.0, 3.0], "b": [1.0, float("nan"), 2.0]}),
            InvalidDataError,
            ErrorCode.DATA_NOT_FINITE,
            "panel['b']",
            id="panel-nan-in-one-series",
        ),
        pytest.param(
            lambda t: _reduce(t, _panel(t, two), t.MovingBlock(4)),
            InvalidParameterError,
            ErrorCode.BLOCK_LENGTH,
            "panel['b'].block_length",
            id="panel-series-too-short-for-its-block-length",
        ),
        pytest.param(
            lambda t: _reduce(t, _panel(t, two), seed={"a": 1, "b": -1}),
            InvalidParameterError,
            ErrorCode.SEED,
            "panel['b'].seed",
            id="panel-one-bad-series-seed",
        ),
        pytest.param(
            lambda t: _reduce(t, _panel(t, two), seed=[1, 2, 3]),
            InvalidParameterError,
            ErrorCode.PANEL,
            "seed",
            id="panel-seeds-of-the-wrong-count",
        ),
        pytest.param(
            lambda t: t.bootstrap_reduce(_panel(t, two), t.IID(), "mean", n_bootstraps=B, seed=1, series_id=2),
            InvalidParameterError,
            ErrorCode.SERIES_ID,
            "series_id",
            id="panel-with-a-series-id",
        ),
        pytest.param(
            lambda t: t.bootstrap_reduce(X, t.IID(), "mean", n_bootstraps=B, seed=1, series_id=-1),
            InvalidParameterError,
            ErrorCode.SERIES_ID,
            "series_id",
            id="negative-series-id",
        ),
        pytest.param(
            lambda t: t.conf_int(X, "mean", t.IID(), n_bootstraps=B, seed=1, series_id=2**32),
            InvalidParameterError,
            ErrorCode.SERIES_ID,
            "series_id",
            id="series-id-beyond-32-bits",
        ),
        pytest.param(
            lambda t: t.bootstrap(X, t.IID(), n_bootstraps=B, seed=1, series_id=1.5),
            ParameterTypeError,
            ErrorCode.SERIES_ID,
            "series_id",
            id="series-id-not-an-int",
        ),
    ]


def _forecast_cases():
    return [
        pytest.param(
            lambda t: t.forecast_interval(X, 0, n_bootstraps=B, seed=1),
            InvalidParameterError,
            ErrorCode.HORIZON,
            "horizon",
            id="forecast-horizon-zero",
        ),
        pytest.param(
            lambda t: t.forecast_interval(X, 2.5, n_bootstraps=B, seed=1),
            ParameterTypeError,
            ErrorCode.HORIZON,
            "horizon",
            id="forecast-horizon-a-float",
        ),
        pytest.param(
            lambda t: t.forecast_interval(X, 2, method="quantile", n_bootstraps=B, seed=1),
            InvalidParameterError,
            ErrorCode.METHOD,
            "method",
            id="forecast-unknown-method",
        ),
        pytest.param(
            lambda t: t.forecast_interval(X, 2, block_length=3, n_bootstraps=B, seed=1),
            InvalidParameterError,
            ErrorCode.BLOCK_LENGTH,
            "block_length",
            id="forecast-block-length-for-the-bootstrap",
        ),
    ]


BAD_INPUT_CASES = (
    _forecast_cases()
    + _panel_cases()
    + _data_cases()
    + _block_length_cases()
    + _method_cases()
    + _count_and_seed_cases()
    + _statistic_and_interval_cases()
    + _review_cases()
    + _model_cases()
)

# ErrorCode.DATA_TOO_LONG (n >= 2**31 observations, which would overflow int32 positions) is
# the one code no case triggers: it needs a 2**31-element input (16 GiB of float64 before
# any copy), far too costly for a unit test. test_data_too_long_reference_path below checks
# the reference's message and code by lowering its limit instead.
UNTESTABLE_CODES = {ErrorCode.DATA_TOO_LONG}
# The materializing byte budget and the dtype of returned paths exist only in the engine;
# tests/test_engine_api.py covers them.
ENGINE_ONLY_CODES = {ErrorCode.MEMORY_BUDGET, ErrorCode.DTYPE}


def _contains_nan(value):
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return math.isnan(value)
    if isinstance(value, dict):
        return any(_contains_nan(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_contains_nan(v) for v in value)
    if isinstance(value, np.ndarray):
        return bool(np.isnan(value).any()) if value.dtype.kind == "f" else False
    for attribute in ("point", "lower", "upper", "statistics", "stationary", "circular"):
        if hasattr(value, attribute) and _contains_nan(getattr(value, attribute)):
            return True
    return False


@pytest.mark.parametrize("twin", TWINS, ids=lambda twin: twin.__name__)
@pytest.mark.parametrize("call, error, code, argument", BAD_INPUT_CASES)
def test_bad_input_raises_typed_error(twin, call, error, code, argument):
    with warnings.catch_warnings():
        # a NaN born inside numpy shows up as a RuntimeWarning; make it loud
        warnings.simplefilter("error", RuntimeWarning)
        try:
            result = call(twin)
        except BootmarkError as exc:
            caught = exc
        except Exception as exc:  # wrong kind of error: report what it was
            pytest.fail(f"raised {type(exc).__name__}: {exc} instead of {error.__name__} [{code.value}]")
        else:
            pytest.fail(
                f"returned {result!r} (NaN inside: {_contains_nan(result)}) "
                f"instead of raising {error.__name__} [{code.value}]"
            )
    assert type(caught) is error, f"{type(caught).__name__} is not {error.__name__}: {caught}"
    assert caught.code is code
    assert isinstance(caught.code, ErrorCode)
    assert caught.argument == argument
    message = str(caught)
    assert argument in message
    assert "Fix:" in message
    assert code.value in message
    assert caught.problem and caught.fix  # both parts are spelled out, not empty


def test_table_exercises_every_error_code():
    codes = {case.values[2] for case in BAD_INPUT_CASES}
    assert all(isinstance(code, ErrorCode) for code in codes)
    missing = set(ErrorCode) - UNTESTABLE_CODES - ENGINE_ONLY_CODES - codes
    assert not missing, f"no bad-input case for {sorted(code.name for code in missing)}"


def test_table_ids_are_unique():
    ids = [case.id for case in BAD_INPUT_CASES]
    assert len(ids) == len(set(ids))


def test_error_classes_keep_the_builtin_bases():
    # callers who catch ValueError / TypeError keep working
    assert issubclass(InvalidDataError, ValueError) and issubclass(InvalidParameterError, ValueError)
    assert issubclass(DataTypeError, TypeError) and issubclass(ParameterTypeError, TypeError)
    for cls in (InvalidDataError, DataTypeError, InvalidParameterError, ParameterTypeError):
        assert issubclass(cls, BootmarkError)


def test_error_codes_are_distinct_and_stable_format():
    values = [code.value for code in ErrorCode]
    assert len(values) == len(set(values))
    assert all(len(v) == 5 and v.startswith("BM") and v[2:].isdigit() for v in values)


def test_data_too_long_reference_path(monkeypatch):
    # Reference only: the limit is a module constant, read at call time.
    monkeypatch.setattr(reference.data, "MAX_OBSERVATIONS", 5)
    with pytest.raises(InvalidDataError) as info:
        reference.bootstrap([1.0] * 6, reference.IID(), n_bootstraps=2, seed=1)
    assert info.value.code is ErrorCode.DATA_TOO_LONG
    assert info.value.argument == "x"
    assert "Fix:" in str(info.value)
    reference.bootstrap([1.0] * 5, reference.IID(), n_bootstraps=2, seed=1)  # at the limit: fine


# ---------------------------------------------------------------------------------------
# Legal inputs next to the refused ones


def _finite(values):
    return all(math.isfinite(v) for v in values)


@pytest.mark.parametrize("twin", TWINS, ids=lambda twin: twin.__name__)
@pytest.mark.parametrize("spec_name", BLOCK_SPECS)
def test_block_length_equal_to_n_warns_and_works(twin, spec_name):
    with pytest.warns(BlockLengthWarning):
        result = _reduce(twin, X, _spec(twin, spec_name, N), "mean")
    assert len(result.statistics) == B
    assert _finite(result.statistics) and math.isfinite(result.point)
    with pytest.warns(BlockLengthWarning):
        lower, upper, point = twin.conf_int(X, "mean", _spec(twin, spec_name, N), n_bootstraps=B, seed=1)
    assert _finite([lower, upper, point]) and lower <= upper
    with pytest.warns(BlockLengthWarning):
        rows = twin.bootstrap(X, _spec(twin, spec_name, N), n_bootstraps=3, seed=1).indices()
    assert all(len(row) == N and all(0 <= i < N for i in row) for row in rows)


@pytest.mark.parametrize("twin", TWINS, ids=lambda twin: twin.__name__)
@pytest.mark.parametrize("spec_name", BLOCK_SPECS)
def test_block_length_below_n_does_not_warn(twin, spec_name):
    with warnings.catch_warnings():
        warnings.simplefilter("error", BlockLengthWarning)
        # The longest non-degenerate length: a non-overlapping block above n / 2 leaves one block.
        length = N // 2 if spec_name == "NonOverlappingBlock" else N - 1
        result = _reduce(twin, X, _spec(twin, spec_name, length), "mean")
    assert _finite(result.statistics)


@pytest.mark.parametrize("twin", TWINS, ids=lambda twin: twin.__name__)
def test_non_overlapping_block_above_half_n_warns_that_every_replicate_is_the_same(twin):
    with pytest.warns(BlockLengthWarning, match="one non-overlapping block"):
        rows = twin.bootstrap(X, twin.NonOverlappingBlock(N // 2 + 1), n_bootstraps=4, seed=1).indices()
    assert all(list(row) == list(rows[0]) for row in rows)


@pytest.mark.parametrize("twin", TWINS, ids=lambda twin: twin.__name__)
@pytest.mark.parametrize("integer_type", [np.int32, np.int64, np.uint8, np.uint64])
def test_numpy_integers_are_accepted_for_counts_and_seeds(twin, integer_type):
    expected = _reduce(twin, X, twin.MovingBlock(3), "mean", n_bootstraps=5, seed=5)
    got = _reduce(twin, X, twin.MovingBlock(3), "mean", n_bootstraps=integer_type(5), seed=integer_type(5))
    assert got.n_bootstraps == 5 and type(got.n_bootstraps) is int
    assert got.seed == 5 and type(got.seed) is int
    assert list(got.statistics) == list(expected.statistics)
    lower, upper, point = twin.conf_int(X, "mean", twin.IID(), n_bootstraps=integer_type(5), seed=integer_type(5))
    assert (lower, upper, point) == tuple(twin.conf_int(X, "mean", twin.IID(), n_bootstraps=5, seed=5))


@pytest.mark.parametrize("twin", TWINS, ids=lambda twin: twin.__name__)
def test_seed_range_edges_are_accepted(twin):
    for seed in (0, 2**64, 2**128 - 1):
        result = _reduce(twin, seed=seed, n_bootstraps=3)
        assert result.seed == seed and _finite(result.statistics)


@pytest.mark.parametrize("twin", TWINS, ids=lambda twin: twin.__name__)
def test_smallest_legal_inputs(twin):
    # two observations, one replicate, block length 1, a two-replicate interval
    assert len(_reduce(twin, [1.0, 2.0], twin.MovingBlock(1), "mean", n_bootstraps=1).statistics) == 1
    lower, upper, _ = twin.conf_int([1.0, 2.0], "mean", twin.IID(), n_bootstraps=2, seed=1)
    assert _finite([lower, upper])
    for alpha in (1e-9, 0.5, 1 - 1e-9):
        assert _finite(twin.conf_int(X, "mean", twin.IID(), alpha=alpha, n_bootstraps=B, seed=1))
    for level in (0.0, 1.0):
        assert math.isfinite(_reduce(twin, statistic=("quantile", level)).point)
