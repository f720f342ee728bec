"""kind="calibrated": the double block bootstrap's calibrated percentile interval.

The definition is in reference/intervals.py. What is checked here, and the bounds:

* The calibration points u_b = (less + 0.5 * equal) / C are equal bit for bit between the
  twins. They are counts of inner statistics below / equal to theta, so they can differ
  only if an inner statistic lies within the statistics' stated bound (a few ulps for a
  mean, 0 for medians and quantiles; tests/test_engine_api.py) of theta: with
  continuous data that does not happen (the numpy re-implementation below measures the
  gap), and exact ties (a median equal to theta) are exact in both twins.
* Given equal u_b, the calibrated levels are equal bit for bit (the same linear rule),
  so the bounds are equal bit for bit when the replicates are (medians, quantiles), and
  within the mean bound of tests/test_engine_api.py plus 8 ulps of the largest replicate
  for means (an order statistic moves by at most the largest replicate error, a linear
  interpolation between two of them by no more, plus its own rounding).
"""

import math

import numba
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_engine_api import mean_bound

from bootmark import engine, reference
from bootmark.engine import parallel as engine_parallel
from bootmark.reference.errors import ErrorCode, InvalidParameterError, ParameterTypeError
from bootmark.reference.indices import row_builder
from bootmark.reference.keys import MASK64, inner_root, mix64, replicate_key, replicate_word, root_key
from bootmark.studies.dgp import ar1

U = 2.0**-53
TWINS = [reference, engine]
METHODS = [reference.IID(), reference.MovingBlock(5), reference.CircularBlock(5), reference.StationaryBlock(5)]


def _x(n=40, seed=7):
    # Mild dependence and alpha = 0.2 below keep the calibrated levels inside (0, 1) at
    # these small B and C; strongly dependent short series push them to 0 and 1, where
    # the bounds are the extreme replicates and say less about the levels.
    return ar1(n, 0.3, seed=seed)


def _calibrated(twin, x, method, statistic, n_bootstraps, inner, seed, alpha=0.2):
    data = x.tolist() if twin is reference else x
    return twin.conf_int(
        data,
        statistic,
        method,
        alpha=alpha,
        kind="calibrated",
        n_bootstraps=n_bootstraps,
        seed=seed,
        inner_bootstraps=inner,
    )


def _points(twin, x, method, statistic, n_bootstraps, inner, seed):
    """(k, B) calibration points of ``twin``, through its own reduce and calibrate."""
    data = x.tolist() if twin is reference else x
    result = twin.bootstrap_reduce(data, method, statistic, n_bootstraps=n_bootstraps, seed=seed)
    return np.array(twin.api.calibration_points(data, result, inner), dtype=float)


def _components(bound):
    """A bound as a list of floats: a float, the engine's Series or array, the reference's dict or list."""
    if isinstance(bound, float):
        return [bound]
    if isinstance(bound, dict):
        return list(bound.values())
    return list(np.asarray(bound, dtype=float).tolist())


def _assert_twins_agree(x, method, statistic, n_bootstraps=40, inner=20, seed=11, alpha=0.2):
    ours = _calibrated(engine, x, method, statistic, n_bootstraps, inner, seed, alpha)
    theirs = _calibrated(reference, x, method, statistic, n_bootstraps, inner, seed, alpha)
    assert np.array_equal(
        _points(engine, x, method, statistic, n_bootstraps, inner, seed),
        _points(reference, x, method, statistic, n_bootstraps, inner, seed),
    )
    assert ours.kind == theirs.kind == "calibrated" and ours.inner_bootstraps == theirs.inner_bootstraps == inner
    assert ours.method == theirs.method
    if statistic == "mean":
        replicates = engine.bootstrap_reduce(x, method, "mean", n_bootstraps, seed).statistics
        bound = float(mean_bound(x)) + 8 * U * float(np.max(np.abs(replicates)))
        assert abs(ours.lower - theirs.lower) <= bound and abs(ours.upper - theirs.upper) <= bound
    else:
        for side in ("lower", "upper", "point"):
            assert _components(getattr(ours, side)) == _components(getattr(theirs, side)), side
    assert all(low <= high for low, high in zip(_components(ours.lower), _components(ours.upper), strict=True))
    return ours, theirs


# ---------------------------------------------------------------------------------------
# the twins agree


@pytest.mark.parametrize("statistic", ["mean", "median"])
@pytest.mark.parametrize("method", METHODS, ids=lambda m: type(m).__name__)
def test_twins_agree(method, statistic):
    x = _x(50)
    _assert_twins_agree(x, method, statistic)
    # and the case is not degenerate: a level strictly inside (0, 1) moved off its nominal value
    levels = engine.intervals.calibrated_levels(_points(engine, x, method, statistic, 40, 20, 11)[0], 0.2)
    assert any(0.0 < level < 1.0 and level not in (0.1, 0.9) for level in levels), levels


@pytest.mark.parametrize(
    "method, statistic",
    [
        (reference.NonOverlappingBlock(4), ("quantile", (0.25, 0.75))),
        (reference.CircularBlock(3), "std"),
        (reference.MovingBlock("auto"), "median"),  # "auto" resolved once, on the original data
    ],
)
def test_twins_agree_on_other_statistics_and_methods(method, statistic):
    x = _x(48, seed=3)
    if statistic == "std":  # u_b bitwise; bounds within 1e-12 relative (the std bound is loose)
        ours = _calibrated(engine, x, method, statistic, 25, 12, 5)
        theirs = _calibrated(reference, x, method, statistic, 25, 12, 5)
        assert np.array_equal(
            _points(engine, x, method, statistic, 25, 12, 5), _points(reference, x, method, statistic, 25, 12, 5)
        )
        assert math.isclose(ours.lower, theirs.lower, rel_tol=1e-12)
        assert math.isclose(ours.upper, theirs.upper, rel_tol=1e-12)
        return
    ours, _ = _assert_twins_agree(x, method, statistic, n_bootstraps=25, inner=12, seed=5)
    if method.block_length == "auto":
        assert ours.method == reference.MovingBlock(reference.optimal_block_length(x.tolist()).circular_length)


def test_twins_agree_on_tapered_blocks_within_the_taper_rounding():
    # Taper weights use libm cos (a few ulps between the twins), so the resampled values
    # are not bitwise equal: u_b still agree exactly (no inner median lies within ulps of
    # theta), the bounds within 1e-13 relative.
    x, method = _x(40, seed=4), reference.TaperedBlock(6, "hann")
    ours = _calibrated(engine, x, method, "median", 20, 10, 2)
    theirs = _calibrated(reference, x, method, "median", 20, 10, 2)
    assert np.array_equal(
        _points(engine, x, method, "median", 20, 10, 2), _points(reference, x, method, "median", 20, 10, 2)
    )
    assert math.isclose(ours.lower, theirs.lower, rel_tol=1e-13)
    assert math.isclose(ours.upper, theirs.upper, rel_tol=1e-13)


@settings(max_examples=15, deadline=None)
@given(
    n=st.integers(12, 40),
    spec=st.sampled_from([None, reference.MovingBlock, reference.CircularBlock, reference.StationaryBlock]),
    length=st.integers(1, 6),
    seed=st.integers(0, 2**128 - 1),
    data_seed=st.integers(0, 1000),
    alpha=st.sampled_from([0.05, 0.1, 0.3]),
)
def test_twins_agree_on_medians_bitwise(n, spec, length, seed, data_seed, alpha):
    method = reference.IID() if spec is None else spec(length)
    _assert_twins_agree(_x(n, data_seed), method, "median", n_bootstraps=12, inner=10, seed=seed, alpha=alpha)


def test_per_component_calibration_equals_one_column_at_a_time():
    rows = np.column_stack([_x(40, 1), 5.0 + _x(40, 2)])
    frame = pd.DataFrame(rows, columns=["a", "b"])
    for twin in TWINS:
        data = rows.tolist() if twin is reference else frame
        joint = twin.conf_int(
            data,
            "median",
            twin.MovingBlock(4),
            alpha=0.2,
            kind="calibrated",
            n_bootstraps=20,
            seed=9,
            inner_bootstraps=10,
        )
        for j, label in enumerate("ab"):
            column = rows[:, j].tolist() if twin is reference else frame[label]
            alone = twin.conf_int(
                column,
                "median",
                twin.MovingBlock(4),
                alpha=0.2,
                kind="calibrated",
                n_bootstraps=20,
                seed=9,
                inner_bootstraps=10,
            )
            key = j if twin is reference else label
            assert (joint.lower[key], joint.upper[key], joint.point[key]) == tuple(alone)


# ---------------------------------------------------------------------------------------
# from outside the code: the documented key rule and a straightforward numpy version


def test_inner_root_is_the_documented_formula():
    # lo = mix64(key ^ pi digits 33-48), hi = mix64(lo ^ pi digits 49-64), key = replicate
    # b's 64-bit key; written out here with the constants, not read from the module.
    for seed in (0, 1, 2**64 + 3, 2**128 - 1):
        root = root_key(seed)
        for b in (0, 1, 998, 2**40):
            k0, k1 = replicate_key(root, b)
            lo = mix64((k0 | k1 << 32) ^ 0xA4093822299F31D0)
            assert inner_root(root, b) == (lo, mix64(lo ^ 0x082EFA98EC4E6C89))
            elo, ehi = engine.keys.inner_root(engine.keys.root_key(seed), b)
            assert type(elo) is np.uint64 and (int(elo), int(ehi)) == inner_root(root, b)


def test_inner_roots_are_distinct_and_unlike_outer_keys():
    root = root_key(5)
    inner_roots = {inner_root(root, b) for b in range(50_000)}
    assert len(inner_roots) == 50_000
    outer_keys = {replicate_word(root, b) for b in range(50_000)}
    inner_keys = {replicate_word(inner_root(root, b), c) for b in range(200) for c in range(250)}
    assert len(inner_keys) == 200 * 250 and not inner_keys & outer_keys
    # inner replicate 0's key never cancels to a constant (hi is salted apart from lo)
    assert len({replicate_word(inner_root(root, b), 0) for b in range(1000)}) == 1000
    assert all(0 < k <= MASK64 for k in list(inner_keys)[:100])


def _numpy_calibrated(x, method, function, n_bootstraps, inner, seed, alpha, inner_root_of=inner_root):
    """The calibrated interval written out plainly: x*_b from engine.bootstrap().values(),
    inner rows from the documented key rule (reference row builder), numpy statistics."""
    outer_values = engine.bootstrap(x, method, n_bootstraps, seed).values()
    theta = function(x)
    build, root = row_builder(method, x.shape[0]), root_key(seed)
    u, gap = [], math.inf
    for b in range(n_bootstraps):
        rows = np.array([build(replicate_key(inner_root_of(root, b), c)) for c in range(inner)])
        inner_statistics = function(outer_values[b][rows], axis=1)
        u.append((np.sum(inner_statistics < theta) + 0.5 * np.sum(inner_statistics == theta)) / inner)
        off = np.abs(inner_statistics - theta)
        gap = min(gap, float(np.min(off[off > 0], initial=math.inf)))
    levels = np.quantile(u, [alpha / 2.0, 1.0 - alpha / 2.0])
    lower, upper = np.quantile(function(outer_values, axis=1), levels)
    return float(lower), float(upper), np.array(u), gap


@pytest.mark.parametrize(
    "method", [reference.MovingBlock(6), reference.StationaryBlock(4), reference.IID()], ids=lambda m: type(m).__name__
)
def test_engine_equals_a_plain_numpy_reimplementation(method):
    x = _x(60, seed=12)
    n_bootstraps, inner, seed = 40, 20, 3
    lower, upper, u, _ = _numpy_calibrated(x, method, np.median, n_bootstraps, inner, seed, 0.2)
    ours = _calibrated(engine, x, method, "median", n_bootstraps, inner, seed)
    assert np.array_equal(_points(engine, x, method, "median", n_bootstraps, inner, seed)[0], u)
    assert (ours.lower, ours.upper) == (lower, upper)
    # the mean: u_b exact as long as no inner mean lies within rounding of theta (measured)
    lower, upper, u, gap = _numpy_calibrated(x, method, np.mean, n_bootstraps, inner, seed, 0.2)
    assert gap > 1e-10
    ours = _calibrated(engine, x, method, "mean", n_bootstraps, inner, seed)
    assert np.array_equal(_points(engine, x, method, "mean", n_bootstraps, inner, seed)[0], u)
    assert abs(ours.lower - lower) <= 1e-13 and abs(ours.upper - upper) <= 1e-13


def test_constant_data_gives_u_one_half_and_a_point_interval():
    # Every inner statistic equals theta: u_b = (0 + 0.5 C) / C = 1/2, both levels 1/2.
    x = np.full(20, 3.0)
    for twin in TWINS:
        for statistic in ("mean", "median"):
            points = _points(twin, x, reference.MovingBlock(4), statistic, 15, 10, 1)
            assert np.all(points == 0.5)
            assert tuple(_calibrated(twin, x, reference.MovingBlock(4), statistic, 15, 10, 1)) == (3.0, 3.0, 3.0)


@pytest.mark.parametrize("twin", TWINS, ids=lambda twin: twin.__name__)
def test_identity_calibration_gives_the_percentile_interval(twin, monkeypatch):
    x, method = _x(50, 8), reference.CircularBlock(4)
    kwargs = dict(alpha=0.2, n_bootstraps=40, seed=6)
    data = x.tolist() if twin is reference else x
    calibrated = _calibrated(twin, x, method, "mean", 40, 20, 6)
    percentile = twin.conf_int(data, "mean", method, kind="percentile", **kwargs)
    assert calibrated.lower != percentile.lower and calibrated.upper != percentile.upper  # the calibration moved both
    module = reference.intervals if twin is reference else engine.intervals
    monkeypatch.setattr(module, "calibrated_levels", lambda calibration, alpha: (alpha / 2.0, 1.0 - alpha / 2.0))
    forced = _calibrated(twin, x, method, "mean", 40, 20, 6)
    assert (forced.lower, forced.upper, forced.point) == tuple(percentile)


# ---------------------------------------------------------------------------------------
# determinism


@pytest.mark.parametrize(
    "method, statistic", [(reference.MovingBlock(7), "mean"), (reference.StationaryBlock(5), "median")]
)
def test_identical_on_one_or_two_threads_and_prefix_stable(method, statistic, monkeypatch):
    monkeypatch.setattr(engine_parallel, "PARALLEL_MIN_NANOSECONDS", 0)  # thread even these small requests
    monkeypatch.setattr(engine_parallel, "CHUNK_NANOSECONDS", 1)  # in as many chunks as allowed
    x = _x(150, seed=21)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = _calibrated(engine, x, method, statistic, 120, 30, 4)
        one_points = _points(engine, x, method, statistic, 120, 30, 4)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = _calibrated(engine, x, method, statistic, 120, 30, 4)
        two_points = _points(engine, x, method, statistic, 120, 30, 4)
    finally:
        numba.set_num_threads(before)
    assert (one.lower, one.upper) == (two.lower, two.upper) and np.array_equal(one_points, two_points)
    # u_b depends only on (seed, b): the first 50 of a run with B = 120 are a run with B = 50
    assert np.array_equal(_points(engine, x, method, statistic, 50, 30, 4), one_points[:, :50])
    assert not np.array_equal(_points(engine, x, method, statistic, 120, 30, 5), one_points)  # the seed matters


# ---------------------------------------------------------------------------------------
# bad input: typed errors naming the argument, in both twins


X = [0.5, 1.5, -0.25, 2.0, 1.0, 0.75, -1.0, 3.0, 0.0, 1.25]


@pytest.mark.parametrize("twin", TWINS, ids=lambda twin: twin.__name__)
@pytest.mark.parametrize(
    "kwargs, error, code, argument",
    [
        (
            dict(kind="calibrated", inner_bootstraps=20.0),
            ParameterTypeError,
            ErrorCode.N_BOOTSTRAPS,
            "inner_bootstraps",
        ),
        (
            dict(kind="calibrated", inner_bootstraps="50"),
            ParameterTypeError,
            ErrorCode.N_BOOTSTRAPS,
            "inner_bootstraps",
        ),
        (
            dict(kind="calibrated", inner_bootstraps=True),
            ParameterTypeError,
            ErrorCode.N_BOOTSTRAPS,
            "inner_bootstraps",
        ),
        (
            dict(kind="calibrated", inner_bootstraps=9),
            InvalidParameterError,
            ErrorCode.N_BOOTSTRAPS,
            "inner_bootstraps",
        ),
        (
            dict(kind="calibrated", inner_bootstraps=-1),
            InvalidParameterError,
            ErrorCode.N_BOOTSTRAPS,
            "inner_bootstraps",
        ),
        (
            dict(kind="percentile", inner_bootstraps=199),
            InvalidParameterError,
            ErrorCode.N_BOOTSTRAPS,
            "inner_bootstraps",
        ),
        (dict(kind="normal", inner_bootstraps=50), InvalidParameterError, ErrorCode.N_BOOTSTRAPS, "inner_bootstraps"),
        (
            dict(kind="calibrated", statistic=lambda s: sum(s) / len(s)),
            InvalidParameterError,
            ErrorCode.STATISTIC,
            "statistic",
        ),
        (dict(kind="calibrated", n_bootstraps=1), InvalidParameterError, ErrorCode.N_BOOTSTRAPS, "n_bootstraps"),
    ],
)
def test_bad_input_is_refused_with_a_typed_error(twin, kwargs, error, code, argument):
    call = dict(statistic="mean", n_bootstraps=20, seed=1)
    call.update(kwargs)
    statistic = call.pop("statistic")
    with pytest.raises(error) as info:
        twin.conf_int(X, statistic, twin.MovingBlock(2), **call)
    assert info.value.code is code and info.value.argument == argument
    assert "Fix:" in str(info.value) and argument in str(info.value)


@pytest.mark.parametrize("twin", TWINS, ids=lambda twin: twin.__name__)
def test_legal_inner_counts(twin):
    default = twin.conf_int(X, "mean", twin.MovingBlock(2), kind="calibrated", n_bootstraps=12, seed=1)
    explicit = twin.conf_int(
        X, "mean", twin.MovingBlock(2), kind="calibrated", n_bootstraps=12, seed=1, inner_bootstraps=np.int64(199)
    )
    assert default.inner_bootstraps == explicit.inner_bootstraps == 199 and tuple(default) == tuple(explicit)
    assert twin.conf_int(X, "mean", twin.MovingBlock(2), n_bootstraps=12, seed=1).inner_bootstraps is None
    assert (
        twin.conf_int(
            X, "mean", twin.MovingBlock(2), kind="calibrated", n_bootstraps=12, seed=1, inner_bootstraps=10
        ).inner_bootstraps
        == 10
    )


# ---------------------------------------------------------------------------------------
# negative controls: the agreement checks fail on broken variants


def test_negative_control_inner_root_ignoring_the_outer_replicate_is_caught(monkeypatch):
    x, method = _x(50), reference.MovingBlock(5)
    _assert_twins_agree(x, method, "median")  # the real twins agree
    # A reference whose inner draws forget which outer replicate they came from:
    monkeypatch.setattr(reference.api, "inner_root", lambda root, replicate: inner_root(root, 0))
    with pytest.raises(AssertionError):
        _assert_twins_agree(x, method, "median")


def test_negative_control_swapped_tails_are_caught(monkeypatch):
    x, method = _x(50), reference.CircularBlock(5)
    real = reference.intervals.calibrated_levels
    monkeypatch.setattr(reference.intervals, "calibrated_levels", lambda u, alpha: real(u, alpha)[::-1])
    with pytest.raises(AssertionError):
        _assert_twins_agree(x, method, "median")


def test_negative_control_numpy_reimplementation_with_a_broken_key_rule_disagrees():
    x, method = _x(60, seed=12), reference.MovingBlock(6)
    for statistic, function in (("median", np.median), ("mean", np.mean)):
        ours = _calibrated(engine, x, method, statistic, 40, 20, 3)
        broken = _numpy_calibrated(
            x, method, function, 40, 20, 3, 0.2, inner_root_of=lambda root, b: inner_root(root, 0)
        )
        assert not np.array_equal(_points(engine, x, method, statistic, 40, 20, 3)[0], broken[2])
        if statistic == "mean":  # mean replicates have no ties, so other levels give other bounds
            assert abs(ours.lower - broken[0]) > 1e-6 or abs(ours.upper - broken[1]) > 1e-6
