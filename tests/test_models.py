"""Model-based resampling in the reference twin (reference/models.py), checked against
answers from outside the sampler: exact enumeration of the multiplier rules, numpy's
least squares and eigenvalues, an AIC/BIC computed here with numpy, a recursion rebuilt
here, and the triangular autocorrelation law of block-wild multipliers
(docs/published-figures.md, S3). Each important check has a negative control showing that a broken rule
fails it.

Tolerances, stated where they are used:
* sample moments of N multipliers: within 5 standard errors (sd / sqrt N) of the law;
* the OLS fit against numpy.linalg.lstsq: 1e-9 relative to max(1, max |coefficient|)
  (stationary data, so well conditioned normal equations);
* criterion values against the independent AIC/BIC: 1e-8 relative.
"""

import dataclasses
import math
import random
import warnings
from decimal import Decimal, getcontext
from fractions import Fraction
from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bootmark import reference
from bootmark.reference import models
from bootmark.reference.data import as_series
from bootmark.reference.draws import Purpose, WordStream
from bootmark.reference.keys import replicate_key, root_key
from bootmark.reference.models import (
    ARITHMETIC,
    MAMMEN_HIGH,
    MAMMEN_LOW,
    MAMMEN_THRESHOLD,
    block_offset,
    multipliers,
    replicate_paths,
    resolve_model,
    synthetic_errors,
)

NEAR_UNIT_ROOT = [0.0, -0.45, -2.29, -0.71, 2.58, 2.96, 4.21, 5.41, 6.06, 6.67, 7.61, 6.96]


def ar_series(phi, n, seed, offset=0.0, scale=1.0, burn_in=200):
    """A stationary AR(len(phi)) path from numpy's generator: the data, not the sampler."""
    generator = np.random.default_rng(seed)
    p = len(phi)
    values = np.zeros(n + burn_in + p)
    shocks = generator.standard_normal(values.shape[0])
    for t in range(p, values.shape[0]):
        values[t] = sum(phi[k] * values[t - 1 - k] for k in range(p)) + shocks[t]
    return (offset + scale * values[-n:]).tolist()


def key_of(seed, replicate):
    return replicate_key(root_key(seed), replicate)


# ---------------------------------------------------------------------------------------
# Multipliers: the threshold rule by exact enumeration, then sample moments


def two_point_moments(threshold, low, high):
    """Exact E v, E v^2, E v^3 of 'low if word < threshold else high' over all 2**32
    equally likely words: exactly ``threshold`` words are below the threshold."""
    p = Fraction(threshold, 2**32)
    low, high = Fraction(low), Fraction(high)
    return tuple(p * low**k + (1 - p) * high**k for k in (1, 2, 3))


def moment_failures(moments):
    """What a two-point law with these exact moments gets wrong, against the stated
    bounds (E v = 0 and E v^2 = 1 within 3e-10, E v^3 = 1 within 6e-10)."""
    first, second, third = (float(m) for m in moments)
    failures = []
    if abs(first) > 3e-10:
        failures.append(f"E v = {first}")
    if abs(second - 1.0) > 3e-10:
        failures.append(f"E v^2 = {second}")
    if abs(third - 1.0) > 6e-10:
        failures.append(f"E v^3 = {third}")
    return failures


def test_mammen_threshold_is_floor_of_p_times_2_to_the_32():
    # p = (5 + sqrt 5) / 10, so T <= 2**32 p < T + 1 iff
    # (10 T - 5 * 2**32)**2 <= 5 * 2**64 < (10 T + 10 - 5 * 2**32)**2 (both bases positive).
    t = MAMMEN_THRESHOLD
    assert 10 * t - 5 * 2**32 > 0
    assert (10 * t - 5 * 2**32) ** 2 <= 5 * 2**64 < (10 * t + 10 - 5 * 2**32) ** 2
    assert t == 3107867531


def test_mammen_values_are_the_correctly_rounded_two_points():
    getcontext().prec = 50
    root5 = Decimal(5).sqrt()
    assert abs(Decimal(MAMMEN_LOW) - (1 - root5) / 2) < Decimal("6e-17")
    assert abs(Decimal(MAMMEN_HIGH) - (1 + root5) / 2) < Decimal("6e-17")
    assert MAMMEN_LOW == (1.0 - math.sqrt(5.0)) / 2.0 and MAMMEN_HIGH == (1.0 + math.sqrt(5.0)) / 2.0


def test_mammen_exact_moments_match_the_documented_bias():
    moments = two_point_moments(MAMMEN_THRESHOLD, MAMMEN_LOW, MAMMEN_HIGH)
    assert moment_failures(moments) == []
    # models.py states E v = 2.60024e-10, E v^2 = 1 + 2.60024e-10, E v^3 = 1 + 5.20048e-10
    # on the exact two values; the stored doubles move them by < 1e-15.
    getcontext().prec = 50
    root5 = Decimal(5).sqrt()
    p = (5 + root5) / 10
    delta = p - Decimal(MAMMEN_THRESHOLD) / Decimal(2**32)
    assert Decimal(0) <= delta < Decimal(1) / Decimal(2**32)
    documented = (2.60024e-10, 1 + 2.60024e-10, 1 + 5.20048e-10)
    exact = (root5 * delta, 1 + root5 * delta, 1 + 2 * root5 * delta)
    for stored, value, stated in zip(moments, exact, documented, strict=True):
        assert abs(float(value) - stated) < 1e-15
        assert abs(float(stored) - float(value)) < 1e-15


def test_negative_control_broken_mammen_thresholds_fail_the_moment_check():
    assert moment_failures(two_point_moments(2**31, MAMMEN_LOW, MAMMEN_HIGH))  # p = 1/2
    swapped = 2**32 - MAMMEN_THRESHOLD  # the probability of the other point
    assert moment_failures(two_point_moments(swapped, MAMMEN_LOW, MAMMEN_HIGH))
    assert moment_failures(two_point_moments(MAMMEN_THRESHOLD + 2, MAMMEN_LOW, MAMMEN_HIGH))  # off by two words


def test_rademacher_bit_rule_is_exactly_balanced_by_enumeration():
    # Over every 16-bit pattern, each bit position is set in exactly half: E v = 0, and
    # v^2 = 1 always, so E v^2 = 1 and E v^3 = E v = 0 exactly.
    for position in range(16):
        plus = sum((word >> position) & 1 for word in range(1 << 16))
        assert plus == 1 << 15
    values = multipliers("rademacher", 96, key_of(3, 0))
    assert set(values) <= {1.0, -1.0}


def sample_failures(values, law):
    """Sample mean, second and third moments and lag-1 correlation of N multipliers,
    each against the law within 5 standard errors (sd of the power / sqrt N)."""
    v = np.asarray(values)
    n = v.shape[0]
    expected = {"rademacher": (0.0, 1.0, 0.0), "mammen": (0.0, 1.0, 1.0), "gaussian": (0.0, 1.0, 0.0)}[law]
    # sd of v, v^2, v^3: Mammen has E v^4 = 2 and E v^6 = 5; the normal E v^4 = 3, E v^6 = 15
    sds = {"rademacher": (1.0, 0.0, 1.0), "mammen": (1.0, 1.0, 2.0), "gaussian": (1.0, math.sqrt(2), math.sqrt(15))}[
        law
    ]
    failures = []
    for power, (centre, sd) in enumerate(zip(expected, sds, strict=True), start=1):
        estimate = float(np.mean(v**power))
        if abs(estimate - centre) > 5 * sd / math.sqrt(n) + 1e-12:
            failures.append(f"E v^{power} = {estimate}")
    lag_one = float(np.corrcoef(v[:-1], v[1:])[0, 1])
    if abs(lag_one) > 5 / math.sqrt(n):
        failures.append(f"lag-1 correlation {lag_one}")
    return failures


@pytest.mark.parametrize("law", ["rademacher", "mammen", "gaussian"])
def test_multiplier_sample_moments_follow_their_law(law):
    values = []
    for replicate in range(40):
        values += multipliers(law, 1000, key_of(11, replicate))
    assert sample_failures(values, law) == []


def test_negative_control_a_broken_bit_rule_fails_the_sample_check():
    # Bit 0 of every word instead of bit k mod 32: runs of 32 equal multipliers.
    values = []
    for replicate in range(40):
        stream = WordStream(key_of(11, replicate), Purpose.WILD_MULTIPLIER)
        words = [stream.word() for _ in range(1000 // 32 + 1)]
        values += [1.0 if words[k // 32] & 1 else -1.0 for k in range(1000)]
    assert sample_failures(values, "rademacher")


def test_gaussian_multipliers_are_box_muller_of_the_uniform53_pairs():
    key = key_of(5, 1)
    stream = WordStream(key, Purpose.WILD_MULTIPLIER)
    values = multipliers("gaussian", 7, key)
    for pair in range(4):
        u1, u2 = stream.uniform53(), stream.uniform53()
        radius = math.sqrt(-2.0 * math.log(1.0 - u1))
        assert values[2 * pair] == radius * math.cos(2.0 * math.pi * u2)
        if 2 * pair + 1 < 7:
            assert values[2 * pair + 1] == radius * math.sin(2.0 * math.pi * u2)


# ---------------------------------------------------------------------------------------
# The fit: numpy's least squares, numpy's eigenvalues, an independent sieve


def lstsq_fit(x, order, start):
    """(coefficients [c, phi_1..], residuals) by numpy least squares on t = start .. n-1."""
    x = np.asarray(x)
    n = x.shape[0]
    design = np.column_stack([np.ones(n - start)] + [x[start - k : n - k] for k in range(1, order + 1)])
    coefficients = np.linalg.lstsq(design, x[start:], rcond=None)[0]
    return coefficients, x[start:] - design @ coefficients


@st.composite
def stationary_cases(draw):
    order = draw(st.integers(0, 4))
    roots = [draw(st.floats(1.3, 4.0)) * draw(st.sampled_from([-1, 1])) for _ in range(order)]
    phi = -np.poly(1.0 / np.array(roots))[1:] if order else np.array([])  # roots of 1 - sum phi z^k
    n = draw(st.integers(max(2 * order + 8, 30), 250))
    offset = draw(st.sampled_from([0.0, 5.0, -1e3]))
    return order, phi.tolist(), ar_series(phi.tolist(), n, draw(st.integers(0, 10**6)), offset)


@given(stationary_cases())
@settings(max_examples=40)
def test_ols_fit_agrees_with_numpy_lstsq(case):
    order, _, x = case
    model = resolve_model(reference.ResidualBootstrap(reference.AR(order)), as_series(x), ARITHMETIC)
    coefficients, residuals = lstsq_fit(x, order, order)
    ours = np.array(model.fit.components)
    assert np.all(np.abs(ours - coefficients) <= 1e-9 * max(1.0, np.max(np.abs(coefficients))))
    assert model.fit.order == order and model.fit.residual_count == len(x) - order
    # residuals are centred: the lstsq residuals minus their (rounding-size) mean
    scale = max(1.0, float(np.max(np.abs(x))))
    assert np.max(np.abs(np.array(model.residuals) - (residuals - residuals.mean()))) <= 1e-9 * scale
    assert abs(math.fsum(model.residuals)) <= 1e-9 * scale


def test_negative_control_a_fit_that_drops_its_first_equation_fails_the_lstsq_check():
    x = ar_series([0.5, -0.3], 60, 17, offset=2.0)

    def off_by_one(w, order, start):  # equations t = start + 1 .. n-1, but N = n - start
        a, b = models.normal_equations(w[1:], order, start)
        a[0][0] = float(len(w) - start)
        return a, b

    broken = dataclasses.replace(ARITHMETIC, normal_equations=off_by_one)
    method = reference.ResidualBootstrap(reference.AR(2))
    good = resolve_model(method, as_series(x), ARITHMETIC).fit.components
    bad = resolve_model(method, as_series(x), broken).fit.components
    coefficients, _ = lstsq_fit(x, 2, 2)
    assert np.max(np.abs(np.array(good) - coefficients)) <= 1e-9
    assert np.max(np.abs(np.array(bad) - coefficients)) > 1e-4


def companion_radius(phi):
    p = len(phi)
    companion = np.zeros((p, p))
    companion[0] = phi
    companion[1:, :-1] = np.eye(p - 1)
    return float(np.max(np.abs(np.linalg.eigvals(companion))))


def naive_stationary(phi):
    return all(abs(f) < 1.0 for f in phi)


def test_step_down_test_agrees_with_companion_eigenvalues():
    generator = random.Random(7)
    naive_disagreements = 0
    for _ in range(3000):
        p = generator.randint(1, 6)
        phi = [generator.uniform(-1.6, 1.6) / math.sqrt(k + 1) for k in range(p)]
        radius = companion_radius(phi)
        if abs(radius - 1.0) < 1e-9:
            continue
        assert models.is_stationary(phi) == (radius < 1.0), (phi, radius)
        naive_disagreements += naive_stationary(phi) != (radius < 1.0)
    # Negative control: |phi_k| < 1 for every k is not the stationarity condition.
    assert naive_disagreements > 100
    assert not models.is_stationary([0.7, 0.4]) and naive_stationary([0.7, 0.4])  # phi_1 + phi_2 > 1
    assert models.is_stationary([]) and not models.is_stationary([1.0]) and not models.is_stationary([-1.0])


def independent_criteria(x, max_order, criterion):
    """AIC/BIC of orders 0 .. max_order on the common sample, with numpy least squares."""
    count = len(x) - max_order
    values = []
    for order in range(max_order + 1):
        _, residuals = lstsq_fit(x, order, max_order)
        rss = float(np.sum(residuals**2))
        penalty = 2.0 * (order + 1) if criterion == "aic" else (order + 1) * math.log(count)
        values.append(count * math.log(rss / count) + penalty)
    return values


@pytest.mark.parametrize("criterion", ["aic", "bic"])
@pytest.mark.parametrize(
    "phi, n, seed", [([0.6], 200, 1), ([0.5, -0.3], 300, 2), ([0.2, 0.1, 0.4], 150, 3), ([], 120, 4), ([0.9], 60, 5)]
)
def test_sieve_selects_the_order_an_independent_criterion_selects(criterion, phi, n, seed):
    x = ar_series(phi, n, seed, offset=2.0)
    max_order = 8
    model = resolve_model(reference.SieveAR(max_order=max_order, criterion=criterion), as_series(x), ARITHMETIC)
    expected = independent_criteria(x, max_order, criterion)
    ours = model.fit.criterion_values
    assert len(ours) == max_order + 1
    assert all(abs(a - b) <= 1e-8 * max(1.0, abs(b)) for a, b in zip(ours, expected, strict=True))
    ordered = sorted(expected)
    assert ordered[1] - ordered[0] > 1e-6  # no near-tie in these cases, so the choice is well defined
    assert model.fit.order == int(np.argmin(expected))
    assert model.method.max_order == max_order and model.fit.max_order == max_order
    coefficients, _ = lstsq_fit(x, model.fit.order, model.fit.order)  # refitted on its own full sample
    assert np.allclose(model.fit.components, coefficients, rtol=0, atol=1e-9 * max(1.0, np.max(np.abs(coefficients))))


def test_negative_control_criteria_on_each_orders_own_sample_fail_the_comparison():
    # The classic slip: fitting each order on its own full sample t = q .. n-1 instead of
    # the common sample t = P .. n-1 changes the criterion values far beyond 1e-8.
    x = ar_series([0.5, -0.3], 300, 2, offset=2.0)
    ours = resolve_model(reference.SieveAR(max_order=8), as_series(x), ARITHMETIC).fit.criterion_values
    own_sample = []
    for order in range(9):
        _, residuals = lstsq_fit(x, order, order)
        count = len(x) - order
        own_sample.append(count * math.log(float(np.sum(residuals**2)) / count) + 2.0 * (order + 1))
    assert max(abs(a - b) for a, b in zip(ours, own_sample, strict=True)) > 1.0


@pytest.mark.parametrize("n", [2, 3, 7, 10, 21, 99, 100, 101, 1000, 12345, 10**6])
def test_default_sieve_order_is_ten_log10_n_capped_below_half_n(n):
    expected = min(math.floor(10 * math.log10(n) + 1e-12), (n - 1) // 2)
    assert models.default_max_order(n) == expected
    assert 2 * models.default_max_order(n) < n


def test_sieve_default_max_order_is_resolved_and_recorded():
    x = ar_series([0.5], 200, 9)
    result = reference.bootstrap(x, reference.SieveAR(criterion="bic"), 3, seed=1)
    assert result.method.max_order == 23 == result.fit.max_order  # floor(10 log10 200) = 23
    assert result.fit.criterion == "bic" and len(result.fit.criterion_values) == 24


# ---------------------------------------------------------------------------------------
# Synthetic errors and the rebuilt series


def numpy_rebuild(x, fit, errors):
    """x*_t = x_t for t < p, then c + sum_k phi_k x*_{t-k} + e*_{t-p}, in data units
    (a different arithmetic from the reference's centred recursion)."""
    p = fit.order
    out = list(x[:p])
    for t in range(p, len(x)):
        out.append(fit.intercept + sum(fit.coefficients[k - 1] * out[t - k] for k in range(1, p + 1)) + errors[t - p])
    return np.array(out)


def off_by_one_rebuild(model, x, errors):
    """A broken recursion for the negative control: phi_k multiplies y*_{t-k+1}."""
    fit = model.fit
    p, mean = fit.order, fit.mean
    y = [v - mean for v in x[:p]]
    for t in range(p, len(x)):
        value = model.centred_intercept + sum(
            fit.coefficients[k - 1] * y[t - k + 1 if k > 1 else t - 1] for k in range(1, p + 1)
        )
        y.append(value + errors[t - p])
    return list(x[:p]) + [mean + v for v in y[p:]]


INNOVATIONS = [
    reference.IID(),
    reference.Wild(),
    reference.Wild("mammen"),
    reference.Wild("gaussian"),
    reference.BlockWild("rademacher", 5),
    reference.BlockWild("gaussian", 3),
]


@pytest.mark.parametrize("innovation", INNOVATIONS, ids=repr)
@pytest.mark.parametrize("order", [0, 1, 3])
def test_replicates_run_the_fitted_recursion_from_the_observed_start(innovation, order):
    x = ar_series([0.5, 0.2, -0.1][:order], 120, 21, offset=3.0)
    model = resolve_model(reference.ResidualBootstrap(reference.AR(order), innovation), as_series(x), ARITHMETIC)
    paths = list(replicate_paths(model, x, 8, 4))
    for replicate, path in enumerate(paths):
        errors = synthetic_errors(model.method.innovation, model.residuals, key_of(8, replicate))
        assert path[:order] == x[:order]  # the observed start, exactly
        expected = numpy_rebuild(x, model.fit, errors)
        assert np.max(np.abs(np.array(path) - expected)) <= 1e-11 * (1.0 + np.max(np.abs(expected)))
    assert paths != [list(x)] * 4


def test_negative_control_an_off_by_one_recursion_fails_the_rebuild_check(monkeypatch):
    x = ar_series([0.5, 0.2], 120, 21, offset=3.0)
    model = resolve_model(reference.ResidualBootstrap(reference.AR(2), reference.Wild()), as_series(x), ARITHMETIC)
    errors = synthetic_errors(model.method.innovation, model.residuals, key_of(8, 0))
    broken = np.array(off_by_one_rebuild(model, x, errors))
    expected = numpy_rebuild(x, model.fit, errors)
    assert np.max(np.abs(broken - expected)) > 1e-3


def test_iid_errors_are_drawn_from_the_centred_residuals():
    x = ar_series([0.4], 80, 2)
    model = resolve_model(reference.ResidualBootstrap(reference.AR(1)), as_series(x), ARITHMETIC)
    pool = set(model.residuals)
    for replicate in range(5):
        errors = synthetic_errors(model.method.innovation, model.residuals, key_of(1, replicate))
        assert len(errors) == len(model.residuals) and set(errors) <= pool
        assert len(set(errors)) < len(errors)  # with replacement: some residual repeats (certain at M = 79)


def wild_multipliers_of(model, errors):
    return [e_star / e for e_star, e in zip(errors, model.residuals, strict=True)]


@pytest.mark.parametrize("distribution", ["rademacher", "mammen", "gaussian"])
@pytest.mark.parametrize("block_length", [1, 4, 10, 79])
def test_block_wild_residuals_in_a_block_share_one_multiplier(distribution, block_length):
    x = ar_series([0.4], 80, 3)
    method = reference.ResidualBootstrap(reference.AR(1), reference.BlockWild(distribution, block_length))
    model = resolve_model(method, as_series(x), ARITHMETIC)
    for replicate in range(6):
        key = key_of(4, replicate)
        offset = block_offset(block_length, key)
        assert 0 <= offset < block_length
        errors = synthetic_errors(model.method.innovation, model.residuals, key)
        values = multipliers(distribution, models.block_count(79, block_length, offset), key)
        for j, e in enumerate(model.residuals):
            assert errors[j] == values[(j + offset) // block_length] * e
        # Recovered multipliers e*_j / e_j: constant on each block, the first block
        # holding block_length - offset residuals (the random phase), the others
        # block_length (the last cut at M = 79).
        recovered = wild_multipliers_of(model, errors)
        starts = [0] + list(range(block_length - offset, 79, block_length))
        for start, stop in zip(starts, starts[1:] + [79], strict=True):
            block = recovered[start:stop]
            assert max(block) - min(block) <= 1e-12 * max(1.0, abs(block[0]))
        if distribution != "gaussian" and block_length < 79:
            changes = sum(abs(a - b) > 1e-9 for a, b in pairwise(recovered))
            assert changes <= len(starts) - 1  # a multiplier changes only at a block edge


@pytest.mark.parametrize("distribution", ["rademacher", "mammen", "gaussian"])
def test_block_wild_of_length_one_is_wild_bit_for_bit(distribution):
    x = ar_series([0.3], 60, 5)
    wild = reference.bootstrap(
        x, reference.ResidualBootstrap(reference.AR(1), reference.Wild(distribution)), 5, seed=12
    ).values()
    block = reference.bootstrap(
        x, reference.ResidualBootstrap(reference.AR(1), reference.BlockWild(distribution, 1)), 5, seed=12
    ).values()
    assert wild == block


def block_multiplier_process(count, block_length, replicates, seed, fixed_phase=False):
    """(replicates, count) multiplier of each residual position under BlockWild."""
    rows = []
    for replicate in range(replicates):
        key = key_of(seed, replicate)
        offset = 0 if fixed_phase else block_offset(block_length, key)
        values = multipliers("rademacher", models.block_count(count, block_length, offset), key)
        rows.append([values[(j + offset) // block_length] for j in range(count)])
    return np.array(rows)


def test_block_wild_multipliers_have_the_triangular_autocorrelation_law():
    # docs/published-figures.md, S3: L = 10, Rademacher, 2,000 replicates: 0.904, 0.513 and 0.007 at lags
    # 1, 5 and 12, on the law max(0, 1 - h / L). Correlations across replicates at a
    # fixed pair of positions (sd about (1 - rho^2) / sqrt(2000) <= 0.023), here at the
    # pair (9, 9 + h), and pooled over 40 starting positions.
    process = block_multiplier_process(60, 10, 2000, seed=2026)
    for lag, law in [(1, 0.9), (5, 0.5), (12, 0.0)]:
        at_pair = float(np.corrcoef(process[:, 9], process[:, 9 + lag])[0, 1])
        assert abs(at_pair - law) < 0.08, (lag, at_pair)
        pooled = float(np.mean([np.mean(process[:, t] * process[:, t + lag]) for t in range(40)]))
        assert abs(pooled - law) < 0.03, (lag, pooled)


def test_negative_control_a_fixed_block_grid_breaks_the_law_at_a_block_edge():
    # Without the random phase positions 9 and 10 always lie in different blocks: their
    # correlation is 0, not 0.9, so the at-pair check above would fail.
    process = block_multiplier_process(60, 10, 2000, seed=2026, fixed_phase=True)
    at_edge = float(np.corrcoef(process[:, 9], process[:, 10])[0, 1])
    assert abs(at_edge - 0.9) > 0.5


# ---------------------------------------------------------------------------------------
# Results, refits, the explosive policy and the stream contract


def test_ar_coef_refits_each_replicate_with_labels_and_intervals():
    x = ar_series([0.6], 150, 6, offset=1.0)
    method = reference.ResidualBootstrap(reference.AR(1), reference.Wild("mammen"))
    result = reference.bootstrap_reduce(x, method, "ar_coef", 30, seed=3)
    assert result.labels == ("intercept", "phi_1") and set(result.point) == {"intercept", "phi_1"}
    paths = reference.bootstrap(x, method, 30, seed=3).values()
    for path, components in zip(paths, result.statistics, strict=True):
        coefficients, _ = lstsq_fit(path, 1, 1)
        assert np.allclose(components, coefficients, rtol=0, atol=1e-9)
    for kind in ("percentile", "basic", "normal"):
        lower, upper, point = reference.conf_int(x, "ar_coef", method, alpha=0.1, kind=kind, n_bootstraps=30, seed=3)
        assert lower["phi_1"] < point["phi_1"] < upper["phi_1"]


def test_other_statistics_and_callables_run_on_the_rebuilt_series():
    x = ar_series([0.5], 100, 7)
    method = reference.ResidualBootstrap(reference.AR(1), reference.BlockWild("rademacher", "auto"))
    paths = reference.bootstrap(x, method, 10, seed=2).values()
    means = reference.bootstrap_reduce(x, method, "mean", 10, seed=2).statistics
    medians = reference.bootstrap_reduce(x, method, lambda s: float(np.median(s)), 10, seed=2).statistics
    assert means == [math.fsum(p) / len(p) for p in paths]
    assert medians == [float(np.median(p)) for p in paths]


def test_ar_zero_is_the_mean_plus_resampled_centred_data():
    x = ar_series([], 40, 8, offset=4.0)
    result = reference.bootstrap(x, reference.ResidualBootstrap(reference.AR(0)), 3, seed=1)
    mean = math.fsum(x) / len(x)
    assert result.fit.components == (mean,) and result.fit.coefficients == ()
    centred = {v - mean for v in x}
    for path in result.values():
        assert all(any(abs((v - mean) - c) <= 1e-12 for c in centred) for v in path)


def test_explosive_skip_drops_counts_and_warns_both_twins_alike():
    from bootmark import engine

    method = reference.ResidualBootstrap(reference.AR(1), explosive="skip")
    paths = reference.bootstrap(NEAR_UNIT_ROOT, method, 20, seed=1).values()
    # which replicates are explosive, decided outside the sampler: |phi| >= 1 by lstsq
    expected = tuple(b for b, path in enumerate(paths) if abs(lstsq_fit(path, 1, 1)[0][1]) >= 1.0)
    assert 0 < len(expected) < 20
    for twin in (reference, engine):
        with pytest.warns(reference.SkippedReplicatesWarning, match=f"{len(expected)} of 20"):
            result = twin.bootstrap_reduce(NEAR_UNIT_ROOT, method, "ar_coef", 20, seed=1)
        assert result.skipped == expected
        assert len(result.statistics) == 20 - len(expected) and result.n_bootstraps == 20
        with pytest.warns(reference.SkippedReplicatesWarning):
            lower, upper, _ = twin.conf_int(NEAR_UNIT_ROOT, "ar_coef", method, n_bootstraps=20, seed=1)
        assert lower["phi_1"] <= upper["phi_1"]
    with warnings.catch_warnings():  # other statistics do not refit, so nothing is skipped
        warnings.simplefilter("error")
        assert reference.bootstrap_reduce(NEAR_UNIT_ROOT, method, "mean", 20, seed=1).skipped == ()


def test_negative_control_the_raise_policy_names_the_first_explosive_replicate():
    with pytest.raises(reference.InvalidDataError, match="replicate 3 ") as info:
        reference.bootstrap_reduce(NEAR_UNIT_ROOT, reference.ResidualBootstrap(reference.AR(1)), "ar_coef", 20, seed=1)
    assert info.value.code is reference.ErrorCode.MODEL_FIT and info.value.argument == "explosive"


@pytest.mark.parametrize(
    "method",
    [
        reference.ResidualBootstrap(reference.AR(2), reference.BlockWild("mammen", 4)),
        reference.SieveAR(max_order=4, innovation=reference.IID()),
    ],
    ids=repr,
)
def test_first_replicates_of_a_longer_run_equal_a_shorter_run(method):
    x = ar_series([0.5, -0.2], 50, 10)
    long_run = reference.bootstrap(x, method, 12, seed=99).values()
    assert reference.bootstrap(x, method, 5, seed=99).values() == long_run[:5]
    model = resolve_model(method, as_series(x), ARITHMETIC)
    assert list(replicate_paths(model, x, 99, 12, first=7)) == long_run[7:]


def test_model_streams_are_new_purposes():
    assert {p.name: int(p) for p in Purpose} == {
        "BLOCK_START": 1,
        "BLOCK_LENGTH": 2,
        "RESIDUAL_INDEX": 3,
        "WILD_MULTIPLIER": 4,
        "BLOCK_WILD_OFFSET": 5,
        "FIXED_RESIDUAL_INDEX": 6,
        "FIXED_WILD_MULTIPLIER": 7,
        "FIXED_BLOCK_WILD_OFFSET": 8,
        "FORECAST_SHOCK": 9,
        "CONFORMAL_BLOCK_START": 10,
    }
    assert reference.STREAM_VERSION == 2


def test_resolved_method_and_fit_are_recorded():
    x = ar_series([0.5], 90, 12)
    result = reference.bootstrap_reduce(
        x, reference.ResidualBootstrap(reference.AR(1), reference.BlockWild("rademacher", "auto")), "mean", 4, seed=1
    )
    assert isinstance(result.method.innovation.block_length, int) and result.fit.order == 1
    assert isinstance(result.fit, reference.ModelFit) and result.skipped == ()


def test_model_based_reference_runs_without_numpy_in_an_isolated_interpreter():
    import pathlib
    import subprocess
    import sys

    root = pathlib.Path(__file__).resolve().parent.parent
    program = f"""
import sys
sys.path.insert(0, {str(root)!r})
from bootmark import reference as rf
x = [0.5, -1.0, 2.0, 0.25, 1.5, -0.75, 0.0, 1.0, 0.3, -0.2, 0.9, 1.1, -0.4, 0.6]
rf.conf_int(x, "ar_coef", rf.ResidualBootstrap(rf.AR(1), rf.BlockWild("gaussian", "auto")), n_bootstraps=20, seed=1)
rf.bootstrap(x, rf.SieveAR(innovation=rf.Wild("mammen")), n_bootstraps=3, seed=1).values()
print(",".join(sorted(m for m in sys.modules if m.split(".")[0] in {{"numpy", "numba", "scipy", "pandas"}})))
"""
    completed = subprocess.run([sys.executable, "-I", "-c", program], capture_output=True, text=True, check=True)
    assert completed.stdout.strip() == ""
