"""The engine's model-based resampling against the reference twin.

Bounds, as stated in engine/models.py (u = 2**-53):
* the fit to the data (coefficients, residuals, criterion values, selected order): bitwise;
* residual indices, block phases, Rademacher and Mammen multipliers: bitwise;
* rebuilt series under IID, Rademacher and Mammen innovations (wild and block-wild):
  bitwise;
* Gaussian multipliers: within GAUSSIAN_TOLERANCE = 2**-48 absolute; Gaussian series
  within GAUSSIAN_PATH_BOUND = 2**-40 times (1 + max |x* - mean|);
* "ar_coef" refits: within REFIT_BOUND = 1e-10 times max(1, max |coefficient|), for the
  stationary fits drawn here (normal matrices with condition below about 1e4);
* named statistics of the rebuilt series: the bounds of engine/reduce.py (a mean within
  6 u S / n + u |mean|, S = sum |x*|; medians and quantiles exactly).
"""

import dataclasses
import warnings

import numba
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_models import NEAR_UNIT_ROOT, ar_series, lstsq_fit

from bootmark import engine, reference
from bootmark.engine import models as engine_models
from bootmark.engine import parallel as engine_parallel
from bootmark.engine.data import as_array
from bootmark.reference import models as reference_models
from bootmark.reference.data import as_series
from bootmark.reference.keys import replicate_key, root_key

U = 2.0**-53
seeds = st.integers(min_value=0, max_value=(1 << 128) - 1)
EXACT_INNOVATIONS = [
    reference.IID(),
    reference.Wild(),
    reference.Wild("mammen"),
    reference.BlockWild("rademacher", 1),
    reference.BlockWild("rademacher", 6),
    reference.BlockWild("mammen", 11),
]
GAUSSIAN_INNOVATIONS = [reference.Wild("gaussian"), reference.BlockWild("gaussian", 4)]


def both_fits(method, x):
    return (
        reference_models.resolve_model(method, as_series(list(x)), reference_models.ARITHMETIC),
        engine_models.resolve(method, as_array(np.asarray(x))),
    )


@st.composite
def model_cases(draw, innovations=EXACT_INNOVATIONS):
    order = draw(st.integers(0, 3))
    phi = [0.5, -0.2, 0.15][:order]
    n = draw(st.integers(2 * order + 12, 160))
    x = ar_series(
        phi,
        n,
        draw(st.integers(0, 10**6)),
        draw(st.sampled_from([0.0, 3.0, -250.0])),
        draw(st.sampled_from([1.0, 1e-3, 40.0])),
    )
    innovation = draw(st.sampled_from(innovations))
    if draw(st.booleans()):
        method = reference.SieveAR(
            max_order=draw(st.integers(0, 4)), criterion=draw(st.sampled_from(["aic", "bic"])), innovation=innovation
        )
    else:
        method = reference.ResidualBootstrap(reference.AR(order), innovation)
    try:
        engine_models.resolve(method, as_array(np.asarray(x)))
    except reference.InvalidDataError:
        assume(False)  # a short series can fit an explosive AR: refused by design (test_bad_input)
    return np.array(x), method, draw(seeds), draw(st.integers(1, 12))


# ---------------------------------------------------------------------------------------
# Draws


@given(seeds, st.integers(0, 2**40), st.integers(1, 300), st.sampled_from(["rademacher", "mammen"]))
@settings(max_examples=150)
def test_rademacher_and_mammen_multipliers_equal_the_reference_bitwise(seed, replicate, count, distribution):
    ours = engine_models.multipliers(distribution, count, seed, replicate)
    theirs = reference_models.multipliers(distribution, count, replicate_key(root_key(seed), replicate))
    assert ours.tolist() == theirs


@given(seeds, st.integers(0, 2**40), st.integers(1, 300))
@settings(max_examples=100)
def test_gaussian_multipliers_agree_within_the_stated_tolerance(seed, replicate, count):
    ours = engine_models.multipliers("gaussian", count, seed, replicate)
    theirs = np.array(reference_models.multipliers("gaussian", count, replicate_key(root_key(seed), replicate)))
    assert np.all(np.abs(ours - theirs) <= engine_models.GAUSSIAN_TOLERANCE)


@given(seeds, st.integers(0, 2**40), st.integers(1, 600))
@settings(max_examples=150)
def test_residual_indices_and_block_phases_equal_the_reference_bitwise(seed, replicate, count):
    key = replicate_key(root_key(seed), replicate)
    assert engine_models.residual_indices(count, seed, replicate).tolist() == reference_models.residual_indices(
        count, key
    )
    assert engine_models.block_offset(count, seed, replicate) == reference_models.block_offset(count, key)


# ---------------------------------------------------------------------------------------
# The fit and the rebuilt series


@given(model_cases(EXACT_INNOVATIONS + GAUSSIAN_INNOVATIONS))
@settings(max_examples=60)
def test_the_fit_to_the_data_is_the_reference_fit_bitwise(case):
    x, method, _, _ = case
    theirs, ours = both_fits(method, x)
    assert ours.fit == theirs.fit and ours.method == theirs.method
    assert ours.centred_intercept == theirs.centred_intercept
    assert ours.residuals.tolist() == list(theirs.residuals)


@given(model_cases())
@settings(max_examples=80)
def test_rebuilt_series_equal_the_reference_bitwise(case):
    x, method, seed, n_bootstraps = case
    ours = engine.bootstrap(x, method, n_bootstraps, seed=seed).values()
    theirs = reference.bootstrap(x.tolist(), method, n_bootstraps, seed=seed).values()
    assert ours.shape == (n_bootstraps, x.shape[0]) and ours.tolist() == theirs


@given(model_cases(GAUSSIAN_INNOVATIONS))
@settings(max_examples=40)
def test_gaussian_series_agree_within_the_stated_bound(case):
    x, method, seed, n_bootstraps = case
    ours = engine.bootstrap(x, method, n_bootstraps, seed=seed).values()
    result = reference.bootstrap(x.tolist(), method, n_bootstraps, seed=seed)
    theirs = np.array(result.values())
    scale = 1.0 + np.max(np.abs(theirs - result.fit.mean), axis=1, keepdims=True)
    assert np.all(np.abs(ours - theirs) <= engine_models.GAUSSIAN_PATH_BOUND * scale)


def test_negative_control_an_off_by_one_reference_recursion_is_caught(monkeypatch):
    from test_models import off_by_one_rebuild

    x = np.array(ar_series([0.5, 0.2], 80, 3))
    method = reference.ResidualBootstrap(reference.AR(2), reference.Wild("mammen"))
    ours = engine.bootstrap(x, method, 4, seed=5).values()
    assert ours.tolist() == reference.bootstrap(x.tolist(), method, 4, seed=5).values()
    monkeypatch.setattr(reference_models, "rebuild", off_by_one_rebuild)
    assert ours.tolist() != reference.bootstrap(x.tolist(), method, 4, seed=5).values()


def test_float32_series_are_the_rounded_float64_series_and_the_budget_holds():
    x = np.array(ar_series([0.4], 100, 4))
    result = engine.bootstrap(
        x, reference.ResidualBootstrap(reference.AR(1), reference.Wild()), 7, seed=2, memory_budget=7 * 100 * 8
    )
    assert np.array_equal(result.values("float32"), result.values().astype(np.float32))
    too_small = engine.bootstrap(x, reference.SieveAR(), 7, seed=2, memory_budget=100)
    with pytest.raises(engine.InvalidParameterError) as info:
        too_small.values()
    assert info.value.code is engine.ErrorCode.MEMORY_BUDGET


def test_a_one_column_frame_gives_three_dimensional_values():
    import pandas as pd

    x = ar_series([0.4], 60, 4)
    frame = pd.DataFrame({"a": x})
    method = reference.ResidualBootstrap(reference.AR(1), reference.Wild())
    values = engine.bootstrap(frame, method, 3, seed=1).values()
    assert values.shape == (3, 60, 1)
    assert values[:, :, 0].tolist() == engine.bootstrap(np.array(x), method, 3, seed=1).values().tolist()
    assert engine.bootstrap_reduce(frame, method, "mean", 3, seed=1).labels == ("a",)


# ---------------------------------------------------------------------------------------
# Refits and statistics


def refit_bound(theirs):
    return engine_models.REFIT_BOUND * np.maximum(1.0, np.max(np.abs(theirs), axis=-1, keepdims=True))


@given(model_cases(EXACT_INNOVATIONS + GAUSSIAN_INNOVATIONS))
@settings(max_examples=50)
def test_refit_coefficients_agree_within_the_stated_bound(case):
    x, method, seed, n_bootstraps = case
    method = dataclasses.replace(method, explosive="skip")  # skips, if any, are compared below
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", reference.SkippedReplicatesWarning)
        ours = engine.bootstrap_reduce(x, method, "ar_coef", n_bootstraps, seed=seed)
        theirs = reference.bootstrap_reduce(x.tolist(), method, "ar_coef", n_bootstraps, seed=seed)
    assert ours.skipped == theirs.skipped
    expected = np.array(theirs.statistics, dtype=float).reshape(ours.statistics.shape)
    assert ours.statistics.shape[1] == ours.fit.order + 1 and ours.labels == theirs.labels
    assert np.all(np.abs(ours.statistics - expected) <= refit_bound(expected))
    assert ours.point.tolist() == list(theirs.point.values())


@pytest.mark.parametrize(
    "order, phi, innovation",
    [
        (2, [0.6, -0.2], reference.BlockWild("mammen", 7)),
        (1, [0.9], reference.Wild()),  # order 1 takes the one-pass refit on the centred rebuild
        (1, [-0.7], reference.IID()),
    ],
)
def test_fused_refits_agree_with_numpy_lstsq_on_the_materialized_series(order, phi, innovation):
    x = np.array(ar_series(phi, 400 if order == 2 else 5000, 8, offset=10.0))
    method = reference.ResidualBootstrap(reference.AR(order), innovation)
    fused = engine.bootstrap_reduce(x, method, "ar_coef", 40, seed=6).statistics
    for components, path in zip(fused, engine.bootstrap(x, method, 40, seed=6).values(), strict=True):
        coefficients, _ = lstsq_fit(path, order, order)
        assert np.all(np.abs(components - coefficients) <= 1e-9 * max(1.0, np.max(np.abs(coefficients))))


def test_negative_control_the_refit_bound_separates_neighbouring_replicates():
    x = np.array(ar_series([0.5], 200, 9))
    method = reference.ResidualBootstrap(reference.AR(1), reference.Wild())
    ours = engine.bootstrap_reduce(x, method, "ar_coef", 6, seed=1).statistics
    theirs = np.array(reference.bootstrap_reduce(x.tolist(), method, "ar_coef", 6, seed=1).statistics)
    assert np.all(np.abs(ours - theirs) <= refit_bound(theirs))
    shifted = np.abs(ours[1:] - theirs[:-1])  # replicate b against b - 1
    assert np.all(np.max(shifted - refit_bound(theirs[:-1]), axis=1) > 0)


@pytest.mark.parametrize("statistic", ["mean", "var", "std", "median", ("quantile", (0.1, 0.5, 0.9))])
@pytest.mark.parametrize(
    "innovation", [reference.IID(), reference.Wild("mammen"), reference.BlockWild("rademacher", 5)], ids=repr
)
def test_named_statistics_of_rebuilt_series_agree_with_the_reference(statistic, innovation):
    x = np.array(ar_series([0.5, 0.1], 150, 10, offset=-2.0))
    method = reference.ResidualBootstrap(reference.AR(2), innovation)
    ours = engine.bootstrap_reduce(x, method, statistic, 25, seed=3).statistics
    theirs = np.array(reference.bootstrap_reduce(x.tolist(), method, statistic, 25, seed=3).statistics)
    values = engine.bootstrap(x, method, 25, seed=3).values()
    if statistic in ("median",) or isinstance(statistic, tuple):
        assert np.array_equal(ours.reshape(theirs.shape), theirs)
        return
    mean_bound = 6 * U * np.sum(np.abs(values), axis=1) / x.shape[0] + U * np.abs(theirs)
    bound = mean_bound if statistic == "mean" else 1e-12 * np.max(np.abs(values), axis=1) ** 2 + 1e-12
    assert np.all(np.abs(ours - theirs) <= bound)


def test_callable_statistics_see_the_rebuilt_series():
    x = np.array(ar_series([0.5], 90, 11))
    method = reference.SieveAR(max_order=3, innovation=reference.Wild())
    values = engine.bootstrap(x, method, 300, seed=7).values()  # 300 > one chunk of 256
    called = engine.bootstrap_reduce(x, method, lambda s: (s.min(), s[-1]), 300, seed=7).statistics
    assert np.array_equal(called, np.column_stack([values.min(axis=1), values[:, -1]]))


@pytest.mark.parametrize("kind", ["percentile", "basic", "normal"])
def test_intervals_of_ar_coef_agree_with_the_reference(kind):
    x = np.array(ar_series([0.6], 200, 12, offset=1.0))
    method = reference.ResidualBootstrap(reference.AR(1), reference.Wild())
    ours = engine.conf_int(x, "ar_coef", method, alpha=0.1, kind=kind, n_bootstraps=99, seed=4)
    theirs = reference.conf_int(x.tolist(), "ar_coef", method, alpha=0.1, kind=kind, n_bootstraps=99, seed=4)
    for bound in ("lower", "upper"):
        expected = np.array(list(getattr(theirs, bound).values()))
        assert np.all(np.abs(getattr(ours, bound).to_numpy() - expected) <= 4 * refit_bound(expected))
    assert list(ours.lower.index) == ["intercept", "phi_1"] and ours.fit == theirs.fit


def test_explosive_refits_raise_in_the_engine_as_in_the_reference():
    method = reference.ResidualBootstrap(reference.AR(1))
    for twin in (engine, reference):
        with pytest.raises(reference.InvalidDataError, match="replicate 3 ") as info:
            twin.bootstrap_reduce(NEAR_UNIT_ROOT, method, "ar_coef", 20, seed=1)
        assert info.value.argument == "explosive"


# ---------------------------------------------------------------------------------------
# Schedule independence


@pytest.mark.parametrize("statistic", ["ar_coef", "median"])
@pytest.mark.parametrize(
    "method",
    [
        reference.ResidualBootstrap(reference.AR(2), reference.BlockWild("mammen", 9)),
        reference.SieveAR(innovation=reference.Wild("gaussian")),
        reference.ResidualBootstrap(reference.AR(1), reference.IID()),
    ],
    ids=repr,
)
def test_results_are_identical_on_one_or_two_threads_and_prefix_stable(method, statistic, monkeypatch):
    monkeypatch.setattr(engine_parallel, "PARALLEL_MIN_NANOSECONDS", 0)  # thread even these small requests
    monkeypatch.setattr(engine_parallel, "CHUNK_NANOSECONDS", 1)  # in as many chunks as allowed
    x = np.array(ar_series([0.5, -0.2], 501, 13))
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = engine.bootstrap_reduce(x, method, statistic, 200, seed=4).statistics
        one_values = engine.bootstrap(x, method, 64, seed=4).values()
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = engine.bootstrap_reduce(x, method, statistic, 200, seed=4).statistics
        two_values = engine.bootstrap(x, method, 64, seed=4).values()
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one, two) and np.array_equal(one_values, two_values)
    assert np.array_equal(engine.bootstrap_reduce(x, method, statistic, 70, seed=4).statistics, one[:70])
    model = engine.bootstrap(x, method, 1, seed=4).model
    assert np.array_equal(engine_models.paths(model, x, 4, 64, first=40), one_values[40:])
