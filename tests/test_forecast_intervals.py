"""The engine's own prediction intervals (``forecast_interval``) in both twins.

Known answers come from outside the code under test: the reference twin (indices bit for
bit, bounds within FORECAST_BOUND), the golden file written by the reference, closed
forms recomputed here with NumPy from the draws alone (order 0, where every fit is a
mean), and the nominal level on a Gaussian AR(1) (coverage of the realised next values,
judged within 3 Monte Carlo SE).
"""

import json
import math
import pathlib

import numba
import numpy as np
import pandas as pd
import pytest

from bootmark import engine, reference
from bootmark.engine.forecast import member_rows as engine_member_rows
from bootmark.engine.forecast import shock_indices as engine_shock_indices
from bootmark.engine.models import residual_indices as engine_residual_indices
from bootmark.reference.forecast import FORECAST_BOUND, default_block_length, member_rows, shock_indices
from bootmark.reference.keys import root_key, stream_key

GOLDEN = pathlib.Path(__file__).parent / "goldens" / "forecast_v2.json"


def ar_series(phi, n, seed, burn_in=200, scale=1.0, shift=0.0):
    rng = np.random.default_rng(seed)
    shocks = rng.standard_normal(n + burn_in) * scale
    x = np.zeros(n + burn_in)
    for t in range(len(phi), n + burn_in):
        x[t] = sum(p * x[t - 1 - k] for k, p in enumerate(phi)) + shocks[t]
    return x[burn_in:] + shift


SERIES = {
    "ar1": ar_series([0.6], 80, 1),
    "ar2": ar_series([0.5, -0.3], 120, 2, scale=3.0, shift=100.0),
    "noise": ar_series([], 60, 3),
}


# ---------------------------------------------------------------------------------------
# Draws: bit for bit


@pytest.mark.parametrize("seed", [0, 7, 2**100 + 3])
@pytest.mark.parametrize("series", [0, 5, 2**32 - 1])
def test_shock_indices_equal_between_twins(seed, series):
    for count in (1, 2, 23, 199, 2**31 + 11):
        for replicate in (0, 1, 998):
            expected = shock_indices(count, 7, stream_key(root_key(seed), replicate, series))
            assert engine_shock_indices(count, 7, seed, replicate, series).tolist() == expected
            assert all(0 <= v < count for v in expected)


@pytest.mark.parametrize("seed", [0, 7, 2**100 + 3])
@pytest.mark.parametrize(("rows", "length"), [(23, 3), (50, 1), (10, 10), (199, 6), (7, 4)])
def test_member_rows_equal_between_twins(seed, rows, length):
    drawn = engine_member_rows(rows, length, seed, 5, series=3)
    root = root_key(seed)
    for member in range(5):
        expected = member_rows(rows, length, stream_key(root, member, 3))
        assert drawn[member].tolist() == expected
        assert len(expected) == rows and all(0 <= j < rows for j in expected)
        starts = expected[::length]  # every block is a run of consecutive rows
        for i, start in enumerate(starts):
            assert expected[i * length : (i + 1) * length] == list(range(start, start + length))[: rows - i * length]


def test_default_block_length_is_the_smallest_cube_root():
    for n in range(1, 5000):
        length = default_block_length(n)
        assert length**3 >= n > (length - 1) ** 3
    assert default_block_length(10**9) == 1000 and default_block_length(10**9 + 1) == 1001


def test_goldens_replay_in_both_twins():
    golden = json.loads(GOLDEN.read_text())
    x, horizon = golden["x"], golden["horizon"]
    scale = 1.0 + max(abs(v) for v in x)
    for seed_text, record in golden["seeds"].items():
        seed = int(seed_text)
        root = root_key(seed)
        for replicate, expected in enumerate(record["shock_indices"]):
            assert shock_indices(23, horizon, stream_key(root, replicate)) == expected
            assert engine_shock_indices(23, horizon, seed, replicate).tolist() == expected
        assert engine_member_rows(23, 3, seed, 3).tolist() == record["member_rows"]
        for method, expected in record["intervals"].items():
            arguments = dict(method=method, n_bootstraps=expected["n_bootstraps"], seed=seed, max_order=3)
            mine = reference.forecast_interval(x, horizon, **arguments)
            assert [list(mine.lower), list(mine.upper), list(mine.point)] == [
                expected["lower"],
                expected["upper"],
                expected["point"],
            ]
            fast = engine.forecast_interval(np.array(x), horizon, **arguments)
            for name in ("lower", "upper", "point"):
                assert np.max(np.abs(getattr(fast, name) - np.array(expected[name]))) <= FORECAST_BOUND * scale


# ---------------------------------------------------------------------------------------
# Intervals: within the stated bound of the reference


@pytest.mark.parametrize("name", sorted(SERIES))
@pytest.mark.parametrize("method", ["bootstrap", "conformal"])
def test_engine_intervals_match_the_reference(name, method):
    x = SERIES[name]
    arguments = dict(method=method, n_bootstraps=60, seed=11, alpha=0.2, series_id=4)
    mine = reference.forecast_interval(x.tolist(), 6, **arguments)
    fast = engine.forecast_interval(x, 6, **arguments)
    assert fast.fit == mine.fit
    assert (fast.skipped, fast.block_length, fast.residual_counts) == (
        mine.skipped,
        mine.block_length,
        mine.residual_counts,
    )
    scale = 1.0 + float(np.max(np.abs(x)))
    worst = max(
        float(np.max(np.abs(getattr(fast, k) - np.array(getattr(mine, k))))) for k in ("lower", "upper", "point")
    )
    assert worst <= FORECAST_BOUND * scale
    assert np.all(fast.lower < fast.point) and np.all(fast.point < fast.upper)


def test_the_order_is_the_sieves():
    for name, x in SERIES.items():
        fit = engine.forecast_interval(x, 2, n_bootstraps=5, seed=1).fit
        assert fit == engine.bootstrap(x, engine.SieveAR(), n_bootstraps=1, seed=1).fit, name
    assert engine.forecast_interval(SERIES["ar2"], 2, n_bootstraps=5, seed=1).fit.order == 2


@pytest.mark.parametrize("twin", [engine, reference], ids=["engine", "reference"])
def test_an_explosive_best_order_is_passed_over_and_recorded(twin):
    x = [1.0, 2.0] * 20  # AR(1) fits phi = -1 exactly: the best criterion, and a unit root
    with pytest.raises(reference.InvalidDataError) as info:
        twin.bootstrap(x, twin.SieveAR(max_order=3), n_bootstraps=2, seed=1)
    assert info.value.code is reference.ErrorCode.MODEL_FIT
    result = twin.forecast_interval(x, 2, n_bootstraps=20, seed=1, max_order=3)
    best = min(range(4), key=lambda q: (result.fit.criterion_values[q], q))
    assert result.refused_orders[0] == best and result.fit.order not in result.refused_orders
    ranked = sorted(range(4), key=lambda q: (result.fit.criterion_values[q], q))
    assert list(result.refused_orders) == ranked[: len(result.refused_orders)]
    assert ranked[len(result.refused_orders)] == result.fit.order


def test_results_do_not_depend_on_threads():
    x = ar_series([0.7], 400, 9)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = engine.forecast_interval(x, 5, n_bootstraps=3000, seed=5)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = engine.forecast_interval(x, 5, n_bootstraps=3000, seed=5)
    finally:
        numba.set_num_threads(before)
    for name in ("lower", "upper", "point"):
        assert np.array_equal(getattr(one, name), getattr(two, name))


# ---------------------------------------------------------------------------------------
# Closed forms at order 0, recomputed from the draws with NumPy


def test_bootstrap_at_order_zero_is_a_resampled_mean_plus_a_resampled_shock():
    x = SERIES["noise"]
    n, horizon, count, seed, alpha = x.shape[0], 3, 400, 21, 0.2
    result = engine.forecast_interval(x, horizon, n_bootstraps=count, seed=seed, max_order=0, alpha=alpha)
    assert result.fit.order == 0
    mean = math.fsum(x.tolist()) / n
    residuals = (x - mean) - math.fsum((x - mean).tolist()) / n
    paths = np.empty((count, horizon))
    for b in range(count):
        # the refit of order 0 is the replicate's mean: m + the mean of its resampled errors
        level = mean + residuals[engine_residual_indices(n, seed, b)].mean()
        paths[b] = level + residuals[engine_shock_indices(n, horizon, seed, b)]
    lower, upper = np.quantile(paths, [alpha / 2, 1 - alpha / 2], axis=0)
    assert np.allclose(result.lower, lower, rtol=0, atol=1e-12)
    assert np.allclose(result.upper, upper, rtol=0, atol=1e-12)
    assert np.allclose(result.point, mean, rtol=0, atol=1e-15)


def test_conformal_at_order_zero_is_out_of_bag_means():
    x = SERIES["noise"]
    n, horizon, members, seed, alpha, length = x.shape[0], 2, 30, 8, 0.1, 4
    result = engine.forecast_interval(
        x, horizon, method="conformal", n_bootstraps=members, seed=seed, max_order=0, alpha=alpha, block_length=length
    )
    rows = engine_member_rows(n, length, seed, members)
    mean = math.fsum(x.tolist()) / n
    w = x - mean
    for step in range(1, horizon + 1):
        usable = n - step + 1  # order 0: origin t_j = j - 1, target w[j - 1 + step]
        targets = w[np.arange(usable) - 1 + step]
        fits = np.array([targets[row[row < usable]].mean() for row in rows])
        scores = []
        for j in range(usable):
            out = [m for m in range(members) if j not in set(rows[m].tolist())]
            if out:
                scores.append(abs(targets[j] - fits[out].mean()))
        rank = math.ceil((1 - alpha) * (len(scores) + 1))
        width = np.sort(scores)[rank - 1]
        centre = mean + fits.mean()
        assert result.residual_counts[step - 1] == len(scores)
        assert result.point[step - 1] == pytest.approx(centre, abs=1e-12)
        assert result.upper[step - 1] - result.point[step - 1] == pytest.approx(width, abs=1e-12)
        assert result.point[step - 1] - result.lower[step - 1] == pytest.approx(width, abs=1e-12)


# ---------------------------------------------------------------------------------------
# The nominal level, from outside: coverage of the realised continuation


def _coverage(method, n, series, horizon=3, alpha=0.1):
    hits = np.zeros(horizon)
    for s in range(series):
        path = ar_series([0.5], n + horizon, 1000 + s)
        history, future = path[:n], path[n:]
        result = engine.forecast_interval(history, horizon, method=method, alpha=alpha, n_bootstraps=199, seed=s)
        hits += (result.lower <= future) & (future <= result.upper)
    return hits / series


@pytest.mark.parametrize("method", ["bootstrap", "conformal"])
def test_coverage_of_a_gaussian_ar1_is_near_nominal(method):
    series = 400
    coverage = _coverage(method, 300, series)
    standard_error = math.sqrt(0.9 * 0.1 / series)
    assert np.all(np.abs(coverage - 0.9) <= 3 * standard_error), coverage


# ---------------------------------------------------------------------------------------
# Bad input: the same typed error from both twins


BAD = [
    ({"horizon": 0}, "horizon", "HORIZON"),
    ({"horizon": 2.0}, "horizon", "HORIZON"),
    ({"horizon": True}, "horizon", "HORIZON"),
    ({"method": "enbpi"}, "method", "METHOD"),
    ({"method": None}, "method", "METHOD"),
    ({"alpha": 1.5}, "alpha", "ALPHA"),
    ({"n_bootstraps": 0}, "n_bootstraps", "N_BOOTSTRAPS"),
    ({"seed": -1}, "seed", "SEED"),
    ({"criterion": "hqic"}, "criterion", "MODEL"),
    ({"max_order": 40}, "max_order", "MODEL_ORDER"),
    ({"block_length": 3}, "block_length", "BLOCK_LENGTH"),
    ({"method": "conformal", "block_length": 0}, "block_length", "BLOCK_LENGTH"),
    ({"x": [1.0, float("nan")] * 20}, "x", "DATA_NOT_FINITE"),
    ({"x": [[1.0, 2.0]] * 30}, "x", "DATA_SHAPE"),
    ({"method": "conformal", "alpha": 0.01, "max_order": 1}, "x", "DATA_TOO_SHORT"),
]


@pytest.mark.parametrize(("change", "argument", "code"), BAD, ids=[f"{a}-{c}" for _, a, c in BAD])
@pytest.mark.parametrize("twin", [engine, reference], ids=["engine", "reference"])
def test_bad_input_gets_a_typed_error(twin, change, argument, code):
    arguments = {"x": SERIES["ar1"][:40].tolist(), "horizon": 3, "n_bootstraps": 20, "seed": 1, **change}
    with pytest.raises(reference.BootmarkError) as info:
        twin.forecast_interval(arguments.pop("x"), arguments.pop("horizon"), **arguments)
    assert info.value.argument == argument
    assert info.value.code is reference.ErrorCode[code]


# ---------------------------------------------------------------------------------------
# pandas in, sensible types out


def test_pandas_in_and_a_frame_out():
    index = pd.date_range("2026-01-01", periods=80, freq="D")
    x = pd.Series(SERIES["ar1"], index=index, name="sales")
    result = engine.forecast_interval(x, 4, n_bootstraps=50, seed=2)
    lower, upper, point = result
    assert lower.dtype == np.float64 and lower.shape == (4,)
    frame = result.to_frame()
    assert list(frame.columns) == ["time", "lower", "upper", "point"]
    assert frame.index.name == "horizon" and frame.index.tolist() == [1, 2, 3, 4]
    assert np.array_equal(frame["upper"].to_numpy(), upper)
    same = engine.forecast_interval(SERIES["ar1"], 4, n_bootstraps=50, seed=2)
    assert np.array_equal(same.point, point)


def test_seed_none_is_recorded_and_replays():
    first = engine.forecast_interval(SERIES["ar1"], 2, n_bootstraps=30)
    again = engine.forecast_interval(SERIES["ar1"], 2, n_bootstraps=30, seed=first.seed)
    assert np.array_equal(first.lower, again.lower)
    assert first.stream_version == engine.STREAM_VERSION


@pytest.mark.parametrize("twin", [engine, reference], ids=["engine", "reference"])
def test_explosive_refits_are_dropped_and_long_horizons_stay_finite(twin):
    x = ar_series([0.95], 20, 4)  # short and near the unit circle: many refits are explosive
    result = twin.forecast_interval(x.tolist(), 400, n_bootstraps=200, seed=3)
    assert len(result.skipped) > 0
    with pytest.warns(reference.SkippedReplicatesWarning):  # SieveAR says so; a forecast records it only
        fast = engine.bootstrap_reduce(x, engine.SieveAR(explosive="skip"), "ar_coef", n_bootstraps=200, seed=3)
    if result.fit.order == fast.fit.order:  # the same refits, so the same dropped replicates
        assert tuple(result.skipped) == tuple(fast.skipped)
    assert np.all(np.isfinite(result.lower)) and np.all(np.isfinite(result.upper))
    spread = float(np.max(x) - np.min(x))
    assert float(np.max(np.array(result.upper) - np.array(result.lower))) < 20 * spread


@pytest.mark.parametrize("twin", [engine, reference], ids=["engine", "reference"])
def test_a_panel_is_refused_with_the_per_series_call(twin):
    panel = twin.Panel.from_series({"a": SERIES["ar1"].tolist(), "b": SERIES["noise"].tolist()})
    with pytest.raises(reference.DataTypeError) as info:
        twin.forecast_interval(panel, 2, n_bootstraps=10, seed=1)
    assert info.value.argument == "x" and info.value.code is reference.ErrorCode.DATA_TYPE
    assert "panel.series(name)" in info.value.fix


@pytest.mark.parametrize("twin", [engine, reference], ids=["engine", "reference"])
def test_too_short_for_conformal_names_the_shortest_n_that_works(twin):
    # At alpha = 0.01 the least K with ceil(0.99 (K + 1)) <= K is 99; order 0 and step 1
    # make every one of n rows a residual once members are many enough.
    x = np.random.default_rng(5).standard_normal(99).tolist()
    arguments = dict(method="conformal", alpha=0.01, seed=1, max_order=0)
    with pytest.raises(reference.InvalidDataError) as info:
        twin.forecast_interval(x[:98], 1, **arguments)
    assert info.value.code is reference.ErrorCode.DATA_TOO_SHORT
    assert "pass at least 99 values" in info.value.fix and "n_bootstraps" not in info.value.fix
    assert twin.forecast_interval(x, 1, **arguments).residual_counts == (99,)
    with pytest.raises(reference.InvalidDataError) as info:
        twin.forecast_interval(x[:60], 1, n_bootstraps=3, **{k: v for k, v in arguments.items()})
    assert "more n_bootstraps would help" in info.value.fix


def test_a_regular_time_index_gives_the_future_times():
    daily = pd.Series(SERIES["ar1"], index=pd.date_range("2026-01-01", periods=80, freq="D"))
    frame = engine.forecast_interval(daily, 3, n_bootstraps=20, seed=1).to_frame()
    assert list(frame.columns) == ["time", "lower", "upper", "point"]
    assert frame["time"].tolist() == list(pd.date_range("2026-03-22", periods=3, freq="D"))
    unset = pd.Series(SERIES["ar1"], index=pd.DatetimeIndex(list(daily.index)))  # freq inferred
    assert engine.forecast_interval(unset, 3, n_bootstraps=20, seed=1).times == tuple(frame["time"])
    monthly = pd.Series(SERIES["ar1"], index=pd.period_range("2020-01", periods=80, freq="M"))
    assert engine.forecast_interval(monthly, 2, n_bootstraps=20, seed=1).times == (
        pd.Period("2026-09", "M"),
        pd.Period("2026-10", "M"),
    )
    assert engine.forecast_interval(SERIES["ar1"], 2, n_bootstraps=20, seed=1).times is None
