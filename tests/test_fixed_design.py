"""The fixed-design residual bootstrap (reference/models.py item 9), in both twins.

* Draws and rebuilt series: the engine equals the reference bit for bit (indices,
  phases, Rademacher and Mammen multipliers, the series x*), refits within REFIT_BOUND;
  negative control: the recursive design on the same seed gives other errors and series.
* Known answers from outside the code: by linearity beta* - beta = (X'X)^-1 X' e*, so
  - Wild multipliers give the HC0 sandwich variance of the OLS slope, computed here with
    numpy least squares on the observed lags;
  - BlockWild(L) gives the block-wise sandwich averaged over the L phases;
  - BlockWild(M) (one block per residual count) cuts the residuals into at most two
    blocks, so each Rademacher replicate is one of at most 4 M values, enumerated here.
  Tolerances follow from B and the multipliers' fourth moments; each test has a
  negative control that the tolerance rejects.
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_models import ar_series, lstsq_fit

from bootmark import engine, reference
from bootmark.engine import models as engine_models
from bootmark.reference import models as reference_models
from bootmark.reference.draws import Purpose
from bootmark.reference.keys import replicate_key, root_key

EXACT_INNOVATIONS = [
    reference.IID(),
    reference.Wild(),
    reference.Wild("mammen"),
    reference.BlockWild("rademacher", 1),
    reference.BlockWild("rademacher", 7),
    reference.BlockWild("mammen", 12),
]
seeds = st.integers(min_value=0, max_value=(1 << 128) - 1)


def fixed(order, innovation):
    return reference.ResidualBootstrap(reference.AR(order), innovation, design="fixed")


def misspecified_series(n, seed):
    """An AR(3) (phi = 0.3, 0.3, 0.2, the S4 process) whose AR(1) fit leaves serially
    correlated residuals: the case where the block-wise and HC0 sandwiches differ."""
    return ar_series([0.3, 0.3, 0.2], n, seed)


# ---------------------------------------------------------------------------------------
# The twins, bit for bit


@settings(max_examples=30)
@given(
    order=st.integers(0, 3),
    n=st.integers(20, 120),
    data_seed=st.integers(0, 10**6),
    seed=seeds,
    innovation=st.sampled_from(EXACT_INNOVATIONS),
    offset=st.sampled_from([0.0, -40.0, 7.5]),
)
def test_fixed_design_series_are_bitwise_the_references(order, n, data_seed, seed, innovation, offset):
    x = ar_series([0.5, -0.2, 0.15][:order], n, data_seed, offset)
    method = fixed(order, innovation)
    expected = np.array(reference.bootstrap(x, method, 6, seed).values())
    got = engine.bootstrap(np.asarray(x), method, 6, seed).values()
    assert got.dtype == np.float64 and np.array_equal(got, expected)
    assert np.array_equal(got[:, :order], np.tile(np.asarray(x)[:order], (6, 1)))  # the observed start


@settings(max_examples=30)
@given(
    order=st.integers(0, 3),
    n=st.integers(20, 120),
    data_seed=st.integers(0, 10**6),
    seed=seeds,
    innovation=st.sampled_from(EXACT_INNOVATIONS + [reference.Wild("gaussian")]),
)
def test_fixed_design_refits_agree_within_the_refit_bound(order, n, data_seed, seed, innovation):
    x = ar_series([0.5, -0.2, 0.15][:order], n, data_seed, 3.0)
    method = fixed(order, innovation)
    expected = np.array(reference.bootstrap_reduce(x, method, "ar_coef", 8, seed).statistics).reshape(8, order + 1)
    got = np.asarray(engine.bootstrap_reduce(np.asarray(x), method, "ar_coef", 8, seed).statistics).reshape(8, -1)
    bound = engine_models.REFIT_BOUND * max(1.0, float(np.max(np.abs(expected))))
    assert np.max(np.abs(got - expected)) <= bound


@pytest.mark.parametrize("count", [1, 31, 32, 33, 200])
def test_fixed_design_draws_are_bitwise_the_references_and_on_their_own_streams(count):
    seed, replicate = 20261203, 5
    key = replicate_key(root_key(seed), replicate)
    for distribution in ("rademacher", "mammen"):
        got = engine_models.multipliers(distribution, count, seed, replicate, fixed=True)
        assert got.tolist() == reference_models.multipliers(distribution, count, key, Purpose.FIXED_WILD_MULTIPLIER)
        # negative control: the recursive stream of the same key is another draw
        if count >= 31:
            assert not np.array_equal(got, engine_models.multipliers(distribution, count, seed, replicate))
    indices = engine_models.residual_indices(count, seed, replicate, fixed=True)
    assert indices.tolist() == reference_models.residual_indices(count, key, Purpose.FIXED_RESIDUAL_INDEX)
    phase = engine_models.block_offset(count, seed, replicate, fixed=True)
    assert phase == reference_models.block_offset(count, key, Purpose.FIXED_BLOCK_WILD_OFFSET)


@pytest.mark.parametrize(
    "innovation", EXACT_INNOVATIONS[:3] + [reference.BlockWild("rademacher", 7)], ids=lambda spec: repr(spec)
)
def test_negative_control_recursive_and_fixed_differ_on_the_same_seed(innovation):
    x = np.asarray(ar_series([0.6], 90, 4))
    recursive = engine.bootstrap(x, reference.ResidualBootstrap(reference.AR(1), innovation), 5, 9).values()
    fixed_paths = engine.bootstrap(x, fixed(1, innovation), 5, 9).values()
    assert np.array_equal(recursive[:, 0], fixed_paths[:, 0])  # both keep the observed start
    assert np.all(np.any(recursive[:, 1:] != fixed_paths[:, 1:], axis=1))


def test_fixed_design_series_are_fitted_values_plus_errors_on_the_observed_lags():
    """x*_t - x_t = e*_{t-p} - e_{t-p}: the fitted part is the data's (regressors observed)."""
    x = np.asarray(ar_series([0.5, -0.2], 70, 8, 2.0))
    method = fixed(2, reference.Wild())
    result = engine.bootstrap(x, method, 3, 11)
    model = engine_models.resolve(method, engine.bootstrap(x, method, 1, 0).series)
    for replicate, path in enumerate(result.values()):
        errors = engine_models.synthetic_errors(model, x, 11, replicate)
        assert np.allclose(path[2:] - x[2:], errors - model.residuals, rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------------------
# Known answers: the sandwiches and the L = M enumeration


def slope_weights(x, order):
    """c_j = [(X'X)^-1 X']_{1, j} e_j over the M equations, from numpy least squares on
    the observed lags, the residuals centred as the method centres them; and the slope."""
    x = np.asarray(x)
    n = x.shape[0]
    design = np.column_stack([np.ones(n - order)] + [x[order - k : n - k] for k in range(1, order + 1)])
    coefficients, residuals = lstsq_fit(x, order, order)
    residuals = residuals - residuals.mean()
    projection = np.linalg.solve(design.T @ design, design.T)
    return projection[1] * residuals, float(coefficients[1])


def block_sums(weights, length, phase):
    """Sums of the weights over the blocks of the grid with ``phase`` (item 6)."""
    blocks = (np.arange(weights.shape[0]) + phase) // length
    return np.bincount(blocks, weights=weights)


def block_sandwich_law(weights, length):
    """(E d^2, var of d^2) of d = sum_k V_k s_k(U), V Rademacher, U uniform on the phases:
    the block-wise sandwich averaged over phases, and the spread of one squared draw."""
    second, fourth = [], []
    for phase in range(length):
        sums = block_sums(weights, length, phase)
        variance = float(np.sum(sums**2))
        second.append(variance)
        fourth.append(3.0 * variance**2 - 2.0 * float(np.sum(sums**4)))  # E (sum V s)^4, Rademacher
    mean_second = float(np.mean(second))
    return mean_second, float(np.mean(fourth)) - mean_second**2


def slope_replicates(x, method, n_bootstraps, seed):
    result = engine.bootstrap_reduce(np.asarray(x), method, "ar_coef", n_bootstraps, seed)
    return np.asarray(result.component(1))


def variance_gap(replicates, centre, law):
    """|mean of (s - centre)^2 - E d^2| in units of its standard error over B."""
    expected, spread = law
    observed = float(np.mean((replicates - centre) ** 2))
    return abs(observed - expected) / math.sqrt(spread / replicates.shape[0])


B_KNOWN = 40_000


@pytest.mark.parametrize("order", [1, 2])
def test_fixed_wild_variance_is_the_hc0_sandwich(order):
    x = misspecified_series(120, 21)
    weights, slope = slope_weights(x, order)
    replicates = slope_replicates(x, fixed(order, reference.Wild()), B_KNOWN, 5)
    law = block_sandwich_law(weights, 1)  # blocks of one: sum c_j^2, the HC0 entry
    assert law[0] == pytest.approx(float(np.sum(weights**2)), rel=1e-12)
    assert variance_gap(replicates, slope, law) < 4.5
    # negative controls: a 10% error in the variance, or the block-wise sandwich of a
    # length that keeps the residuals' correlation, is far outside the tolerance
    assert variance_gap(slope + (replicates - slope) * math.sqrt(1.1), slope, law) > 4.5
    assert variance_gap(replicates, slope, block_sandwich_law(weights, 12)) > 4.5


@pytest.mark.parametrize("length", [5, 12])
def test_fixed_block_wild_variance_is_the_phase_averaged_block_sandwich(length):
    x = misspecified_series(120, 22)
    weights, slope = slope_weights(x, 1)
    replicates = slope_replicates(x, fixed(1, reference.BlockWild("rademacher", length)), B_KNOWN, 6)
    assert variance_gap(replicates, slope, block_sandwich_law(weights, length)) < 4.5
    # negative controls: the HC0 sandwich, and a grid without the random phase
    assert variance_gap(replicates, slope, block_sandwich_law(weights, 1)) > 4.5
    sums = block_sums(weights, length, 0)
    fixed_grid = (
        float(np.sum(sums**2)),
        3.0 * float(np.sum(sums**2)) ** 2 - 2.0 * float(np.sum(sums**4)) - float(np.sum(sums**2)) ** 2,
    )
    assert variance_gap(replicates, slope, fixed_grid) > 4.5


def enumerated_law(weights, slope):
    """{value: probability} of the slope replicate under BlockWild("rademacher", M),
    fixed design: phase U uniform on [0, M), then V_0 (and V_1 if U > 0) +-1."""
    count = weights.shape[0]
    law = {}
    for phase in range(count):
        sums = block_sums(weights, count, phase)
        signs = [(1.0,), (-1.0,)] if sums.shape[0] == 1 else [(a, b) for a in (1.0, -1.0) for b in (1.0, -1.0)]
        for sign in signs:
            value = slope + float(np.dot(sign, sums))
            law[value] = law.get(value, 0.0) + 1.0 / (count * len(signs))
    return law


def test_block_wild_of_length_m_gives_the_enumerated_replicates_and_law():
    order, n, seed, n_bootstraps = 1, 60, 7, 4000
    x = misspecified_series(n, 23)
    count = n - order
    weights, slope = slope_weights(x, order)
    replicates = slope_replicates(x, fixed(order, reference.BlockWild("rademacher", count)), n_bootstraps, seed)
    # each replicate is the enumerated value of its own phase and signs
    for replicate in range(0, n_bootstraps, 97):
        phase = engine_models.block_offset(count, seed, replicate, fixed=True)
        sums = block_sums(weights, count, phase)
        signs = engine_models.multipliers("rademacher", sums.shape[0], seed, replicate, fixed=True)
        assert replicates[replicate] == pytest.approx(slope + float(np.dot(signs, sums)), abs=1e-12)
    # every replicate lies in the enumerated support ...
    law = enumerated_law(weights, slope)
    support = np.array(sorted(law))
    nearest = support[np.clip(np.searchsorted(support, replicates), 0, support.shape[0] - 1)]
    below = support[np.clip(np.searchsorted(support, replicates) - 1, 0, support.shape[0] - 1)]
    assert np.all(np.minimum(np.abs(nearest - replicates), np.abs(below - replicates)) < 1e-12)
    # ... and their empirical CDF is within the 99.9% Kolmogorov band of the exact one
    cumulative = np.cumsum([law[value] for value in support])
    empirical = np.searchsorted(np.sort(replicates), support + 1e-12, side="right") / n_bootstraps
    band = 1.95 / math.sqrt(n_bootstraps)
    assert np.max(np.abs(empirical - cumulative)) < band
    # negative control: the law of a grid without the random phase (one block, so only
    # slope +- sum c_j) is far outside the same band
    one_block = {slope + sum(weights): 0.5, slope - sum(weights): 0.5}
    cumulative_one = np.array([sum(p for v, p in one_block.items() if v <= value + 1e-12) for value in support])
    assert np.max(np.abs(empirical - cumulative_one)) > band


# ---------------------------------------------------------------------------------------
# The warning, the argument, pandas


@pytest.mark.parametrize("twin", [reference, engine], ids=["reference", "engine"])
def test_recursive_block_wild_refits_warn_and_point_to_the_fixed_design(twin):
    x = ar_series([0.5], 60, 3)
    x = x if twin is reference else np.asarray(x)
    recursive = reference.ResidualBootstrap(reference.AR(1), reference.BlockWild("rademacher", 4))
    with pytest.warns(reference.BlockWildDesignWarning, match="design='fixed'"):
        twin.bootstrap_reduce(x, recursive, "ar_coef", 5, seed=1)
    with pytest.warns(reference.BlockWildDesignWarning):
        twin.bootstrap_reduce(
            x, reference.SieveAR(2, innovation=reference.BlockWild("rademacher", 4)), "ar_coef", 5, seed=1
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        twin.bootstrap_reduce(x, fixed(1, reference.BlockWild("rademacher", 4)), "ar_coef", 5, seed=1)
        twin.bootstrap_reduce(x, reference.ResidualBootstrap(reference.AR(1), reference.Wild()), "ar_coef", 5, seed=1)
        twin.bootstrap_reduce(x, recursive, "mean", 5, seed=1)  # a path statistic keeps what blocks keep
        # L = 1 is the plain Wild bootstrap: no multiplier is shared, nothing to warn of
        twin.bootstrap_reduce(
            x, reference.ResidualBootstrap(reference.AR(1), reference.BlockWild("rademacher", 1)), "ar_coef", 5, seed=1
        )


def test_design_argument_is_checked_with_a_typed_error():
    with pytest.raises(reference.InvalidParameterError) as error:
        reference.ResidualBootstrap(reference.AR(1), design="fixd")
    assert error.value.argument == "design" and error.value.code == reference.ErrorCode.MODEL
    assert "'recursive', 'fixed'" in error.value.fix
    with pytest.raises(reference.ParameterTypeError) as error:
        reference.ResidualBootstrap(reference.AR(1), design=True)
    assert error.value.argument == "design"


def test_fixed_design_takes_pandas_and_never_skips():
    pandas = pytest.importorskip("pandas")
    x = pandas.Series(ar_series([0.95], 40, 5), index=pandas.date_range("2026-01-01", periods=40, freq="D"))
    result = engine.bootstrap_reduce(x, fixed(1, reference.Wild()), "ar_coef", 2000, seed=3)
    assert result.skipped == () and result.component(1).shape == (2000,)
    assert np.all(np.isfinite(result.component(1)))
    # the check has teeth: many refits are explosive (slope >= 1), which a recursive
    # design's default explosive="raise" would refuse; the fixed design keeps them all
    assert np.sum(result.component(1) >= 1.0) > 100
    assert fixed(1, reference.Wild()).explosive == "raise"
