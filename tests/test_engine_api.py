"""The engine's public functions against the reference twin.

Bounds (u = 2**-53), stated here and in engine/reduce.py:
* gather kernels: mean within 6 u S / n + u |mean| of the reference's fsum mean, S = sum
  |gathered values|; median and quantiles exactly equal;
* block algebra (untapered block methods, mean/var/std): mean within
  (2 m + 2) u C / n + 2 u |mean|, C = sum |x - mean(x)|, m = number of blocks in the row.
The tests use the looser of the two with m = n (every block of length 1).
"""

import numba
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bootmark import engine, reference
from bootmark.engine import parallel as engine_parallel
from bootmark.engine import reduce as engine_reduce

U = 2.0**-53
SPECS = [
    reference.MovingBlock,
    reference.CircularBlock,
    reference.NonOverlappingBlock,
    reference.StationaryBlock,
    reference.TaperedBlock,
]


def mean_bound(x):
    x = np.asarray(x, dtype=float)
    n = x.shape[0]
    centred = np.abs(x - x.mean(axis=0)).sum(axis=0)
    gathered = np.abs(x).sum(axis=0)
    return np.maximum((4 * n + 3) * U * centred / n, 6 * U * gathered / n) + 2 * U * np.abs(x.mean(axis=0)) + 1e-300


@st.composite
def cases(draw, multivariate=False):
    n = draw(st.integers(2, 120))
    d = draw(st.integers(1, 3)) if multivariate else 1
    offset = draw(st.sampled_from([0.0, 1.0, 1e3, -1e6]))
    values = draw(st.lists(st.floats(-100, 100, allow_nan=False), min_size=n * d, max_size=n * d))
    x = np.array(values).reshape(n, d) + offset
    spec = draw(st.sampled_from([None] + SPECS))
    method = reference.IID() if spec is None else spec(draw(st.integers(1, max(1, n // 2))))
    return (x if multivariate else x[:, 0]), method, draw(st.integers(0, 2**64 - 1)), draw(st.integers(1, 30))


@given(cases(multivariate=True), st.sampled_from(["mean", "var", "std"]))
@settings(max_examples=120)
def test_moments_agree_with_the_reference_within_the_stated_bound(case, statistic):
    x, method, seed, n_bootstraps = case
    ours = engine.bootstrap_reduce(x, method, statistic, n_bootstraps, seed).statistics
    theirs = np.array(reference.bootstrap_reduce(x.tolist(), method, statistic, n_bootstraps, seed).statistics)
    ours = ours.reshape(theirs.shape)
    bound = mean_bound(x)
    if statistic == "mean":
        assert np.all(np.abs(ours - theirs) <= bound)
    else:
        # var = mean of squared deviations: the mean bound applied to the squares, plus the
        # cross term 2 |mean*| * (error of mean*); std by the derivative of the root.
        scale = np.max(np.abs(x - x.mean(axis=0)), axis=0) + np.abs(x.mean(axis=0))
        var_bound = 8 * bound * scale * x.shape[0] + 1e-280
        if statistic == "std":
            var_bound = var_bound / np.maximum(2 * theirs, np.sqrt(var_bound))
        assert np.all(np.abs(ours - theirs) <= var_bound)


@given(cases(multivariate=True), st.sampled_from(["median", ("quantile", (0.0, 0.05, 0.5, 0.975, 1.0))]))
@settings(max_examples=80)
def test_order_statistics_equal_the_reference_exactly(case, statistic):
    x, method, seed, n_bootstraps = case
    ours = engine.bootstrap_reduce(x, method, statistic, n_bootstraps, seed).statistics
    theirs = np.array(reference.bootstrap_reduce(x.tolist(), method, statistic, n_bootstraps, seed).statistics)
    if isinstance(method, reference.TaperedBlock):  # tapered values use libm cos: a few ulps
        assert np.allclose(ours.reshape(theirs.shape), theirs, rtol=1e-13, atol=1e-13 * np.abs(x).max())
    else:
        assert np.array_equal(ours.reshape(theirs.shape), theirs)


@given(cases())
@settings(max_examples=60)
def test_reduce_equals_materialize_then_reduce(case):
    x, method, seed, n_bootstraps = case
    values = engine.bootstrap(x, method, n_bootstraps, seed).values()
    reduced = engine.bootstrap_reduce(x, method, "median", n_bootstraps, seed).statistics
    assert np.array_equal(np.median(values, axis=1), reduced)
    means = engine.bootstrap_reduce(x, method, "mean", n_bootstraps, seed).statistics
    assert np.all(np.abs(values.mean(axis=1) - means) <= mean_bound(x) + 2 * x.shape[0] * U * np.abs(x).max())


def test_values_equal_the_reference_and_rows_move_together():
    x = np.random.default_rng(0).standard_normal((40, 3))
    for method in [reference.StationaryBlock(5), reference.TaperedBlock(4, "hann")]:
        ours = engine.bootstrap(x, method, 6, seed=9).values()
        theirs = np.array(reference.bootstrap(x.tolist(), method, 6, seed=9).values())
        assert ours.shape == (6, 40, 3) and np.allclose(ours, theirs, rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("statistic", ["mean", "var", ("quantile", (0.1, 0.9))])
@pytest.mark.parametrize("method", [reference.IID(), reference.StationaryBlock(8), reference.TaperedBlock(6)])
def test_reduce_is_identical_on_one_or_two_threads_and_prefix_stable(statistic, method, monkeypatch):
    monkeypatch.setattr(engine_parallel, "PARALLEL_MIN_NANOSECONDS", 0)  # thread even these small requests
    monkeypatch.setattr(engine_parallel, "CHUNK_NANOSECONDS", 1)  # in as many chunks as allowed
    x = np.random.default_rng(1).standard_normal(777)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = engine.bootstrap_reduce(x, method, statistic, 300, seed=4).statistics
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = engine.bootstrap_reduce(x, method, statistic, 300, seed=4).statistics
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one, two)
    assert np.array_equal(engine.bootstrap_reduce(x, method, statistic, 120, seed=4).statistics, one[:120])


def test_negative_control_block_algebra_without_centring_fails_its_bound(monkeypatch):
    x = np.random.default_rng(2).standard_normal(500) + 1e8
    method = reference.MovingBlock(10)
    theirs = np.array(reference.bootstrap_reduce(x.tolist(), method, "var", 50, seed=1).statistics)
    centred = engine.bootstrap_reduce(x, method, "var", 50, seed=1).statistics
    assert np.max(np.abs(centred - theirs)) <= 1e-9
    monkeypatch.setattr(engine_reduce, "centre_columns", lambda columns: (columns, np.zeros(columns.shape[0])))
    uncentred = engine.bootstrap_reduce(x, method, "var", 50, seed=1).statistics
    assert np.max(np.abs(uncentred - theirs)) > 1e-3


def test_callable_statistic_matches_the_named_one():
    x = np.random.default_rng(3).standard_normal(90)
    named = engine.bootstrap_reduce(x, reference.CircularBlock(6), "median", 600, seed=2).statistics
    called = engine.bootstrap_reduce(x, reference.CircularBlock(6), np.median, 600, seed=2).statistics
    assert np.array_equal(named, called)
    pair = engine.bootstrap_reduce(x, reference.IID(), lambda s: (s.min(), s.max()), 20, seed=2).statistics
    assert pair.shape == (20, 2) and np.all(pair[:, 0] <= pair[:, 1])


def test_pandas_in_labelled_types_out():
    frame = pd.DataFrame(np.random.default_rng(4).standard_normal((60, 2)), columns=["a", "b"])
    lower, upper, point = engine.conf_int(frame, "mean", reference.MovingBlock(5), alpha=0.1, n_bootstraps=200, seed=1)
    assert isinstance(lower, pd.Series) and list(lower.index) == ["a", "b"]
    assert np.all(lower < point) and np.all(point < upper)
    series = pd.Series(frame["a"].to_numpy(), name="a")
    low, high, centre = engine.conf_int(series, "mean", reference.MovingBlock(5), alpha=0.1, n_bootstraps=200, seed=1)
    assert isinstance(low, float) and low == lower["a"] and high == upper["a"]


def test_materializing_beyond_the_budget_is_refused_with_the_size():
    result = engine.bootstrap(
        np.zeros(2000) + np.arange(2000), reference.IID(), 50_000, seed=1, memory_budget=100 * 2**20
    )
    with pytest.raises(engine.InvalidParameterError, match="bootstrap_reduce") as info:
        result.values()
    assert info.value.code is engine.ErrorCode.MEMORY_BUDGET and "MiB" in str(info.value)
    with pytest.raises(engine.ParameterTypeError):
        engine.bootstrap([1.0, 2.0], reference.IID(), memory_budget=-1)


def test_float32_paths_are_the_rounded_float64_paths():
    x = np.random.default_rng(5).standard_normal(100)
    result = engine.bootstrap(x, reference.StationaryBlock(4), 7, seed=3)
    assert np.array_equal(result.values("float32"), result.values().astype(np.float32))
    with pytest.raises(engine.InvalidParameterError) as info:
        result.values("float16")
    assert info.value.code is engine.ErrorCode.DTYPE


def test_int32_guard_fires_before_any_allocation(monkeypatch):

    monkeypatch.setattr(engine.data, "MAX_OBSERVATIONS", 10)
    with pytest.raises(engine.InvalidDataError) as info:
        engine.bootstrap_reduce(np.arange(11.0), reference.IID(), "mean", 5, seed=1)
    assert info.value.code is engine.ErrorCode.DATA_TOO_LONG


def test_a_callable_that_mutates_its_argument_cannot_rewrite_the_data():
    x = [5.0, 1.0, 4.0, 2.0, 3.0, 9.0]

    def first_after_sort(sample):
        value = float(sample[0])
        sample.sort()
        return value

    ours = engine.bootstrap_reduce(x, reference.IID(), first_after_sort, 5, seed=1).statistics
    theirs = reference.bootstrap_reduce(x, reference.IID(), first_after_sort, 5, seed=1).statistics
    assert list(ours) == list(theirs)


def test_unhashable_dtype_gets_the_typed_error():
    result = engine.bootstrap([1.0, 2.0, 3.0], reference.IID(), 2, seed=0)
    with pytest.raises(engine.InvalidParameterError) as info:
        result.values(dtype=["float64"])
    assert info.value.code is engine.ErrorCode.DTYPE


def _documented_sum(values):
    """The engine's summation order as docs/methods.md states it, in Python floats:
    blocks of 16 values summed by the fixed pairwise tree (lane j = (v[j] + v[j+4]) +
    (v[j+8] + v[j+12]), block = (lane0 + lane1) + (lane2 + lane3)), block sums and the
    leftover values joined in order with Knuth's TwoSum."""
    total, compensation = 0.0, 0.0

    def two_sum(total, compensation, value):
        updated = total + value
        virtual = updated - total
        return updated, compensation + ((total - (updated - virtual)) + (value - virtual))

    full = len(values) - len(values) % 16
    for i in range(0, full, 16):
        v = values[i : i + 16]
        lanes = [(v[j] + v[j + 4]) + (v[j + 8] + v[j + 12]) for j in range(4)]
        total, compensation = two_sum(total, compensation, (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]))
    for value in values[full:]:
        total, compensation = two_sum(total, compensation, value)
    return total + compensation


@pytest.mark.parametrize("n", [37, 200, engine_reduce.STREAM_MIN_N + 9])
def test_iid_means_follow_the_documented_summation_order_bit_for_bit(n):
    # Study receipts replay bit for bit only while the engine's i.i.d. mean keeps its
    # summation order; the means are recomputed here from the reference twin's rows in
    # that order alone (a reordered tree, or a plain running sum, fails), on the single
    # call (row and streamed paths) and on a panel holding the series.
    x = np.random.default_rng(n).standard_normal(n) * 1e3 + 7.0
    values = x.tolist()
    rows = reference.bootstrap(values, reference.IID(), n_bootstraps=4, seed=11, series_id=1).indices()
    expected = [_documented_sum([values[i] for i in row]) / n for row in rows]
    single = engine.bootstrap_reduce(x, engine.IID(), "mean", n_bootstraps=4, seed=11, series_id=1)
    assert np.asarray(single.statistics).ravel().tolist() == expected
    panel = engine.Panel.from_series([x[: n // 2], x])  # series 1 draws with series_id 1
    both = engine.bootstrap_reduce(panel, engine.IID(), "mean", n_bootstraps=4, seed=11)
    assert np.asarray(both.statistics[1]).ravel().tolist() == expected
