"""Statistics and intervals of the reference twin against numpy, within stated bounds.

Notation: u = 2**-53 (unit roundoff of float64), S = sum(|x_i|), n = len(x),
D(n) = the rounding depth of numpy's float64 summation of n values (see
``numpy_sum_depth``; D(n) <= n - 1 for any summation order).

Bounds (each is written again next to the test that uses it):

* mean.  The reference is fsum(x) / n: a correctly rounded sum, then one division, so it is
  within 2u |mean| + O(u^2) of the exact mean. numpy's pairwise sum is within
  gamma_D(n) * S of the exact sum (each term goes through at most D(n) roundings), plus
  one division. Hence
      |ref - np.mean(x)| <= (D(n) + 4) * u * S / n.
* var (ddof=0).  With c a computed centre and m the exact mean, the exact mean square
  about c is W(c) = V + (m - c)^2. The reference evaluates W(c_ref) with relative error
  <= 5u + O(u^2) (subtraction, square, fsum, division); numpy evaluates W(c_np) with
  relative error <= (D(n) + 4)u. Both centres lie within (D(n) + 4) u S / n of m. Hence
      |ref - np.var(x)| <= (D(n) + 10) * u * max(ref, np) + ((D(n) + 4) * u * S / n)^2.
* std = sqrt(var) with a correctly rounded sqrt. With dv the var bound and
  s = ref + np (if s == 0 both are 0):
      |ref - np.std(x)| <= 1.01 * dv / s + 1.01 * u * s.
* median and linear quantile: EXACTLY equal to np.median and np.quantile(method="linear").
  Both pick the same order statistics; numpy's linear rule evaluates
  a + (b - a) * g for g < 0.5 and b - (b - a) * (1 - g) for g >= 0.5 with
  g = (n - 1) q - floor((n - 1) q), the same float operations in the same order as
  ``reference.reduce.quantile_sorted``; the even-length median is (a + b) / 2 in both.
  Identical IEEE operations on identical operands give identical results, so no ulp
  slack is needed (and none is allowed: the tests use ==).

Data are drawn by hypothesis: finite floats whose magnitudes lie in [1e-6, 1e6] (or 0),
n from 2 to 60, plus series of a large offset with small noise (to stress cancellation
in the variance). Magnitudes are kept away from the subnormal range, where the relative
error model above does not hold.
"""

import math
from statistics import NormalDist

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bootmark import reference as twin
from bootmark.reference import reduce as ref_reduce
from bootmark.reference.specs import check_statistic

# Hypothesis draws degenerate block lengths on purpose; their warning is tested elsewhere.
pytestmark = pytest.mark.filterwarnings("ignore::reference.errors.BlockLengthWarning")

U = 2.0**-53
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW_SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---------------------------------------------------------------------------------------
# numpy's float64 summation order (numpy/_core/src/umath/loops_utils.h.src, pairwise_sum)


def numpy_pairwise_sum(values):
    """Emulate numpy's pairwise float64 sum of a contiguous 1-D array, operation by operation."""
    n = len(values)
    if n < 8:
        total = 0.0
        for v in values:
            total += v
        return total
    if n <= 128:
        r = list(values[:8])
        i = 8
        while i < n - (n % 8):
            for j in range(8):
                r[j] += values[i + j]
            i += 8
        total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        for v in values[i:]:
            total += v
        return total
    half = n // 2
    half -= half % 8
    return numpy_pairwise_sum(values[:half]) + numpy_pairwise_sum(values[half:])


def numpy_sum_depth(n):
    """The most roundings any one term goes through in ``numpy_pairwise_sum`` of n terms."""
    if n < 8:
        return max(n - 1, 0)
    if n <= 128:
        return (n // 8 - 1) + 3 + n % 8
    half = n // 2
    half -= half % 8
    return 1 + max(numpy_sum_depth(half), numpy_sum_depth(n - half))


def mean_bound(x):
    n, s = len(x), math.fsum(abs(v) for v in x)
    return (numpy_sum_depth(n) + 4) * U * s / n


def var_bound(x, ref, other):
    n, s = len(x), math.fsum(abs(v) for v in x)
    depth = numpy_sum_depth(n)
    return (depth + 10) * U * max(ref, other) + ((depth + 4) * U * s / n) ** 2


def std_bound(x, ref, other):
    total = ref + other
    if total == 0.0:
        return 0.0
    dv = var_bound(x, ref * ref, other * other) * 1.0001
    return 1.01 * dv / total + 1.01 * U * total


# ---------------------------------------------------------------------------------------
# strategies

magnitudes = st.floats(min_value=1e-6, max_value=1e6, allow_nan=False, allow_infinity=False)
values = st.one_of(st.just(0.0), magnitudes, magnitudes.map(lambda v: -v))
plain_series = st.lists(values, min_size=2, max_size=60)
offset_series = st.builds(
    lambda base, noise: [base + e for e in noise],
    st.floats(min_value=-1e6, max_value=1e6).filter(lambda b: b == 0 or abs(b) >= 1e-6),
    st.lists(
        st.floats(min_value=-1.0, max_value=1.0).filter(lambda e: e == 0 or abs(e) > 1e-6), min_size=2, max_size=60
    ),
)
series = st.one_of(plain_series, offset_series)
levels = st.one_of(st.floats(min_value=0.0, max_value=1.0), st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0, 0.1, 0.9]))
named_statistics = st.sampled_from(["mean", "var", "std", "median"])


def _check_named(name, x, got):
    """Compare one named statistic of ``x`` with numpy under the bound stated above."""
    array = np.array(x, dtype=np.float64)
    if name == "mean":
        expected = float(np.mean(array))
        assert abs(got - expected) <= mean_bound(x), (got, expected)
    elif name == "var":
        expected = float(np.var(array))
        assert abs(got - expected) <= var_bound(x, got, expected), (got, expected)
    elif name == "std":
        expected = float(np.std(array))
        assert abs(got - expected) <= std_bound(x, got, expected), (got, expected)
    elif name == "median":
        assert got == float(np.median(array)), (got, float(np.median(array)))
    else:
        raise AssertionError(name)


def assert_quantile_matches_numpy(quantile_function, x, level):
    """``quantile_function(x, level)`` must EQUAL numpy's linear quantile (no slack)."""
    expected = float(np.quantile(np.array(x, dtype=np.float64), level, method="linear"))
    got = quantile_function(x, level)
    assert got == expected, f"quantile({level}) of {x}: {got!r} != numpy {expected!r}"


def reference_quantile(x, level):
    return ref_reduce.quantile_sorted(sorted(x), level)


def nearest_rank_quantile(x, level):
    """A deliberately wrong rule (nearest rank, Hyndman-Fan type 1) for the negative control."""
    ordered = sorted(x)
    return ordered[max(math.ceil(level * len(ordered)) - 1, 0)]


# ---------------------------------------------------------------------------------------
# the premise of the summation bounds


@SETTINGS
@given(
    st.lists(st.one_of(values, st.sampled_from([1.0, 2.0**-53, -1.0, 3.0 * 2.0**-54, 1e16])), min_size=1, max_size=300)
)
def test_numpy_sum_order_is_the_emulated_pairwise_sum(x):
    # The bounds use D(n) of numpy's pairwise sum. If numpy changes its summation order,
    # this fails first (the values include ones where the order changes the result).
    array = np.array(x, dtype=np.float64)
    assert float(np.add.reduce(array)) == numpy_pairwise_sum(x)
    assert float(np.mean(array)) == numpy_pairwise_sum(x) / len(x)
    centre = numpy_pairwise_sum(x) / len(x)
    assert float(np.var(array)) == numpy_pairwise_sum([(v - centre) * (v - centre) for v in x]) / len(x)


def test_sum_depth_examples():
    # hand-counted: 7 terms summed left to right; 16 = two rounds of 8 accumulators + tree
    assert [numpy_sum_depth(n) for n in (1, 2, 7, 8, 9, 16, 60)] == [0, 1, 6, 3, 4, 4, 13]
    assert all(numpy_sum_depth(n) <= n - 1 for n in range(1, 400))


# ---------------------------------------------------------------------------------------
# reference.reduce against numpy


@SETTINGS
@given(series)
def test_mean_within_bound(x):
    # |ref - np.mean(x)| <= (D(n) + 4) * u * sum(|x|) / n
    _check_named("mean", x, ref_reduce.mean(x))


@SETTINGS
@given(series)
def test_var_within_bound(x):
    # |ref - np.var(x)| <= (D(n) + 10) * u * max(ref, np) + ((D(n) + 4) * u * sum(|x|) / n)^2
    got = ref_reduce.var(x)
    assert got >= 0.0
    _check_named("var", x, got)


@SETTINGS
@given(series)
def test_std_within_bound(x):
    # |ref - np.std(x)| <= 1.01 * dv / (ref + np) + 1.01 * u * (ref + np), dv the var bound
    _check_named("std", x, ref_reduce.std(x))


@SETTINGS
@given(series)
def test_median_equals_numpy_exactly(x):
    # exact: the same order statistics and the same (a + b) / 2
    assert ref_reduce.median(x) == float(np.median(np.array(x)))


@SETTINGS
@given(series, levels)
def test_quantile_equals_numpy_linear_exactly(x, level):
    # exact: the same lerp, from the nearer end, as numpy's "linear" method
    assert_quantile_matches_numpy(reference_quantile, x, level)


@SETTINGS
@given(series, st.lists(levels, min_size=1, max_size=4, unique=True))
def test_quantile_statistic_with_several_levels(x, level_list):
    components = ref_reduce.apply_statistic(check_statistic(("quantile", tuple(level_list))), (x,), True)
    expected = np.quantile(np.array(x), level_list, method="linear")
    assert list(components) == [float(v) for v in expected]


def test_negative_control_nearest_rank_quantile_is_caught():
    # The exact comparison is sharp enough to reject a plausible but wrong quantile rule.
    x = [1.0, 2.0, 3.0, 4.0]
    assert_quantile_matches_numpy(reference_quantile, x, 0.5)  # 2.5 == 2.5
    with pytest.raises(AssertionError):
        assert_quantile_matches_numpy(nearest_rank_quantile, x, 0.5)  # 2.0 != 2.5
    with pytest.raises(AssertionError):
        assert_quantile_matches_numpy(nearest_rank_quantile, [0.5, 1.5, -0.25, 2.0, 1.0], 0.3)


def test_negative_control_sample_variance_is_caught():
    # The var bound is tight enough to reject the ddof=1 variance by a wide margin.
    x = [0.5, 1.5, -0.25, 2.0, 1.0, 0.75]
    sample_var = math.fsum((v - ref_reduce.mean(x)) ** 2 for v in x) / (len(x) - 1)
    with pytest.raises(AssertionError):
        _check_named("var", x, sample_var)
    with pytest.raises(AssertionError):
        _check_named("mean", x, math.fsum(x) / (len(x) - 1))
    with pytest.raises(AssertionError):  # off by 64 ulps of S/n is already out of bounds
        _check_named("mean", x, ref_reduce.mean(x) + 64 * U * math.fsum(map(abs, x)) / len(x))


# ---------------------------------------------------------------------------------------
# bootstrap_reduce: every replicate's statistic, recomputed with numpy from the resamples


def _methods(n):
    upper = max(1, n - 1)  # b == n is legal but warns; it is tested in test_bad_input.py
    b = st.integers(min_value=1, max_value=upper)
    return st.one_of(
        st.just(twin.IID()),
        b.map(twin.MovingBlock),
        b.map(twin.CircularBlock),
        b.map(twin.NonOverlappingBlock),
        b.map(twin.StationaryBlock),
        b.map(twin.TaperedBlock),
        b.map(lambda length: twin.TaperedBlock(length, window="bartlett")),
    )


@st.composite
def bootstrap_cases(draw):
    x = draw(series)
    method = draw(_methods(len(x)))
    seed = draw(st.integers(min_value=0, max_value=2**128 - 1))
    n_bootstraps = draw(st.integers(min_value=1, max_value=25))
    return x, method, seed, n_bootstraps


@SLOW_SETTINGS
@given(bootstrap_cases(), named_statistics)
def test_bootstrap_reduce_named_statistics_match_numpy(case, name):
    x, method, seed, n_bootstraps = case
    result = twin.bootstrap_reduce(x, method, name, n_bootstraps=n_bootstraps, seed=seed)
    resamples = twin.bootstrap(x, method, n_bootstraps=n_bootstraps, seed=seed).values()
    assert len(result.statistics) == len(resamples) == n_bootstraps
    _check_named(name, x, result.point)
    for got, resample in zip(result.statistics, resamples, strict=True):
        assert len(resample) == len(x)
        _check_named(name, resample, got)


@SLOW_SETTINGS
@given(bootstrap_cases(), st.lists(levels, min_size=1, max_size=3, unique=True))
def test_bootstrap_reduce_quantiles_match_numpy_exactly(case, level_list):
    x, method, seed, n_bootstraps = case
    statistic = ("quantile", level_list[0] if len(level_list) == 1 else tuple(level_list))
    result = twin.bootstrap_reduce(x, method, statistic, n_bootstraps=n_bootstraps, seed=seed)
    resamples = twin.bootstrap(x, method, n_bootstraps=n_bootstraps, seed=seed).values()
    for got, resample in zip(result.statistics, resamples, strict=True):
        expected = [float(v) for v in np.quantile(np.array(resample), level_list, method="linear")]
        assert (list(got) if len(level_list) > 1 else [got]) == expected


@SLOW_SETTINGS
@given(bootstrap_cases(), st.floats(min_value=0.0, max_value=1.0))
def test_distribution_quantile_equals_numpy_of_replicates(case, level):
    x, method, seed, n_bootstraps = case
    result = twin.bootstrap_reduce(x, method, "mean", n_bootstraps=n_bootstraps, seed=seed)
    assert result.quantile(level) == float(np.quantile(np.array(result.statistics), level, method="linear"))


# ---------------------------------------------------------------------------------------
# multivariate: named statistics work column by column

STATISTICS_2D = ["mean", "var", "std", "median", ("quantile", 0.3), ("quantile", (0.25, 0.9))]


@st.composite
def two_column_cases(draw):
    n = draw(st.integers(min_value=2, max_value=40))
    a = draw(st.lists(values, min_size=n, max_size=n))
    b = draw(st.lists(values, min_size=n, max_size=n))
    method = draw(_methods(n))
    seed = draw(st.integers(min_value=0, max_value=2**64))
    return a, b, method, seed


def _components(entry):
    return list(entry) if isinstance(entry, tuple) else [entry]


@SLOW_SETTINGS
@given(two_column_cases(), st.sampled_from(STATISTICS_2D))
def test_two_columns_equal_per_column_results(case, statistic):
    a, b, method, seed = case
    reps = 12
    rows = [[u, v] for u, v in zip(a, b, strict=True)]
    joint = twin.bootstrap_reduce(rows, method, statistic, n_bootstraps=reps, seed=seed)
    alone_a = twin.bootstrap_reduce(a, method, statistic, n_bootstraps=reps, seed=seed)
    alone_b = twin.bootstrap_reduce(b, method, statistic, n_bootstraps=reps, seed=seed)
    # components in column-major order: every level of column 0, then column 1
    for entry, entry_a, entry_b in zip(joint.statistics, alone_a.statistics, alone_b.statistics, strict=True):
        assert list(entry) == _components(entry_a) + _components(entry_b)
    point_a, point_b = _components(alone_a.point_components), _components(alone_b.point_components)
    assert list(joint.point_components) == point_a + point_b
    # and, for the named statistics, column by column against numpy on the joint resamples
    if isinstance(statistic, str):
        resamples = twin.bootstrap(rows, method, n_bootstraps=reps, seed=seed).values()
        for entry, resample in zip(joint.statistics, resamples, strict=True):
            columns = list(zip(*resample, strict=True))
            for got, column in zip(entry, columns, strict=True):
                _check_named(statistic, list(column), got)


@pytest.mark.parametrize("kind", ["percentile", "basic", "normal"])
def test_two_column_interval_equals_per_column_intervals(kind):
    a = [0.3, 0.9, 1.4, 0.7, -0.2, -0.8, -0.1, 0.6, 1.1, 1.9, 1.2, 0.4, -0.5, -1.3, -0.9, 0.2]
    b = [5.0, 4.5, 4.0, 4.2, 4.9, 5.5, 6.1, 5.8, 5.2, 4.8, 4.1, 3.9, 4.4, 5.0, 5.6, 6.0]
    rows = [[u, v] for u, v in zip(a, b, strict=True)]
    joint = twin.conf_int(rows, "std", twin.MovingBlock(3), alpha=0.2, kind=kind, n_bootstraps=80, seed=9)
    for j, column in enumerate((a, b)):
        alone = twin.conf_int(column, "std", twin.MovingBlock(3), alpha=0.2, kind=kind, n_bootstraps=80, seed=9)
        assert (joint.lower[j], joint.upper[j], joint.point[j]) == tuple(alone)


# ---------------------------------------------------------------------------------------
# intervals from the replicates

interval_series = st.lists(st.floats(min_value=-100.0, max_value=100.0), min_size=3, max_size=60)
alphas = st.one_of(st.sampled_from([0.05, 0.1, 0.2, 0.5]), st.floats(min_value=0.001, max_value=0.999))


@st.composite
def interval_cases(draw):
    x = draw(interval_series)
    method = draw(_methods(len(x)))
    seed = draw(st.integers(min_value=0, max_value=2**64))
    n_bootstraps = draw(st.integers(min_value=2, max_value=60))
    return x, method, seed, n_bootstraps


@SLOW_SETTINGS
@given(interval_cases(), alphas, st.sampled_from(["mean", "std", "median", ("quantile", 0.8)]))
def test_normal_interval_is_point_plus_minus_z_se(case, alpha, statistic):
    # lower/upper = point -/+ NormalDist().inv_cdf(1 - alpha/2) * np.std(replicates, ddof=0),
    # within 1e-12 relative to the size of the terms (|point| + half-width + the largest
    # |replicate|): np.std and the twins' exactly rounded standard error differ by a few
    # ulps of the replicates, so equal replicates may give np.std 1e-17 where the twins
    # give 0 (found by hypothesis: [0, 0, 0, 3], TaperedBlock(3), median, B = 26, seed 0).
    x, method, seed, n_bootstraps = case
    ci = twin.conf_int(x, statistic, method, alpha=alpha, kind="normal", n_bootstraps=n_bootstraps, seed=seed)
    reduced = twin.bootstrap_reduce(x, method, statistic, n_bootstraps=n_bootstraps, seed=seed)
    assert ci.point == reduced.point
    half = NormalDist().inv_cdf(1.0 - alpha / 2.0) * float(np.std(np.array(reduced.statistics), ddof=0))
    scale = abs(ci.point) + half + float(np.max(np.abs(np.array(reduced.statistics))))
    assert abs(ci.lower - (ci.point - half)) <= 1e-12 * scale
    assert abs(ci.upper - (ci.point + half)) <= 1e-12 * scale
    assert ci.lower <= ci.point <= ci.upper
    assert ci.kind == "normal" and ci.alpha == alpha and ci.coverage == 1.0 - alpha


@SLOW_SETTINGS
@given(interval_cases(), alphas, st.sampled_from(["mean", "var", "median"]))
def test_percentile_and_basic_intervals(case, alpha, statistic):
    # percentile = numpy's linear quantiles of the replicates at alpha/2 and 1 - alpha/2 (exact);
    # basic = 2 * point - (percentile upper, percentile lower) (exact: the same float operations)
    x, method, seed, n_bootstraps = case
    kwargs = dict(alpha=alpha, n_bootstraps=n_bootstraps, seed=seed)
    percentile = twin.conf_int(x, statistic, method, kind="percentile", **kwargs)
    basic = twin.conf_int(x, statistic, method, kind="basic", **kwargs)
    replicates = np.array(twin.bootstrap_reduce(x, method, statistic, n_bootstraps=n_bootstraps, seed=seed).statistics)
    low = float(np.quantile(replicates, alpha / 2.0, method="linear"))
    high = float(np.quantile(replicates, 1.0 - alpha / 2.0, method="linear"))
    assert (percentile.lower, percentile.upper) == (low, high)
    assert basic.point == percentile.point
    assert basic.lower == 2.0 * percentile.point - percentile.upper
    assert basic.upper == 2.0 * percentile.point - percentile.lower
    assert basic.lower <= basic.upper


def test_basic_interval_reflects_on_a_fixed_example():
    # hand-checkable: with the replicates r and point p, basic = (2p - Q(0.95), 2p - Q(0.05))
    x = [1.0, 4.0, 2.0, 8.0, 5.0, 7.0, 3.0, 6.0]
    reduced = twin.bootstrap_reduce(x, twin.IID(), "mean", n_bootstraps=50, seed=3)
    assert reduced.point == 4.5
    r = np.sort(np.array(reduced.statistics))
    lower, upper, point = twin.conf_int(x, "mean", twin.IID(), alpha=0.1, kind="basic", n_bootstraps=50, seed=3)
    assert point == 4.5
    assert lower == 9.0 - np.quantile(r, 0.95) and upper == 9.0 - np.quantile(r, 0.05)
    # a percentile interval is not symmetric about the point in general, so basic != percentile here
    p_lower, p_upper, _ = twin.conf_int(x, "mean", twin.IID(), alpha=0.1, n_bootstraps=50, seed=3)
    assert (lower, upper) != (p_lower, p_upper)


def test_normal_interval_negative_control_ddof1_is_caught():
    # A normal interval built with the ddof=1 standard error would miss the 1e-12 tolerance.
    x = [0.3, 0.9, 1.4, 0.7, -0.2, -0.8, -0.1, 0.6, 1.1, 1.9]
    ci = twin.conf_int(x, "mean", twin.MovingBlock(2), alpha=0.1, kind="normal", n_bootstraps=30, seed=4)
    reps = np.array(twin.bootstrap_reduce(x, twin.MovingBlock(2), "mean", n_bootstraps=30, seed=4).statistics)
    z = NormalDist().inv_cdf(0.95)
    wrong = ci.point + z * float(np.std(reps, ddof=1))
    right = ci.point + z * float(np.std(reps, ddof=0))
    scale = abs(ci.point) + abs(right - ci.point)
    assert abs(ci.upper - right) <= 1e-12 * scale
    assert abs(ci.upper - wrong) > 1e-12 * scale


def test_a_batch_of_short_fixed_rows_maps_each_rows_words_as_the_row_alone_does():
    # engine/reduce.py draws short fixed-block rows 16 replicates at a time. Its known
    # answer is the one-row path: refill_from fills a replicate's words, map_words maps
    # them and returns the first word in Lemire's rejection zone. A bound of 3e8 puts
    # 2.2% of words there (2**32 mod 3e8 = 94,967,296), so about a third of these rows of
    # 20 words must be flagged, and drawn alone, by the batch.
    from bootmark.engine import indices, keys
    from bootmark.engine import reduce as engine_reduce
    from bootmark.engine.draws import BLOCK_START, refill_from

    batch, blocks, bound, scale = 16, 5, np.uint64(300_000_000), 3
    lows, highs, k0s = (np.empty(batch, np.uint64) for _ in range(3))
    series = np.uint64(7) << np.uint64(32)
    for a in range(batch):
        k0, k1 = keys.stream_key(np.uint64(11), np.uint64(12), series, np.uint64(a))
        k0s[a], lows[a], highs[a] = k0, k1 & np.uint64(0xFFFFFFFF), k1 >> np.uint64(32)
    starts = [np.empty(batch * blocks, np.int64) for _ in range(4)]
    rejected = np.empty(batch, np.uint8)
    engine_reduce._fixed_batch(batch, blocks, bound, scale, k0s, lows, highs, tuple(starts), rejected)
    flagged = 0
    for a in range(batch):
        k0, k1 = keys.stream_key(np.uint64(11), np.uint64(12), series, np.uint64(a))
        words = np.empty(4 * blocks, np.uint64)
        refill_from(words, 0, np.uint64(k0), np.uint64(k1), BLOCK_START)
        alone = np.empty(4 * blocks, np.int64)
        first_rejected = indices.map_words(words, 4 * blocks, bound, scale, alone)
        batched = [starts[w % 4][(w // 4) * batch + a] for w in range(4 * blocks)]
        assert batched == alone.tolist()
        assert bool(rejected[a]) == (first_rejected < 4 * blocks)
        flagged += bool(rejected[a])
    assert 0 < flagged < batch  # both outcomes are met
