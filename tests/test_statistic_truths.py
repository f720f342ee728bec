"""The built-in statistics (studies/statistics.py) and their closed-form truths for the
Gaussian processes (studies/dgp.py), checked against answers from outside the code.

* the truths of "mean" and "ar1_slope" are pinned to the bits they had before the other
  statistics were added (old receipts store them and are re-verified);
* i.i.d. closed forms (AR1 with phi = 0), and the ARMA autocovariances and Plackett's
  integral computed another way (MA(infinity) weights by scipy's lfilter, scipy's quad
  and bivariate normal CDF);
* Monte Carlo: 20,000 paths of n = 1000 of AR1(0.5), AR3(0.5, -0.2, 0.1) and
  ARMA11(0.5, 0.3), simulated with scipy's lfilter (not the processes' own sampler), the
  mean and SD of every statistic against its truth within tolerances derived below;
* negative controls: broken SE formulas fail the same Monte Carlo check;
* parse() errors, and Statistic.value against the engine's point estimate, to the bit.
"""

import functools
import math
import pickle
from statistics import NormalDist

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.signal import lfilter

from bootmark import engine
from bootmark.reference.errors import ErrorCode, InvalidParameterError
from bootmark.studies import dgp, statistics
from bootmark.studies.dgp import AR1, AR3, ARMA11, HeteroskedasticAR1

GAUSSIAN = (AR1(0.5), AR3(0.5, -0.2, 0.1), ARMA11(0.5, 0.3))
STANDARD = NormalDist()

# ---------------------------------------------------------------------------------------
# The truths of "mean" and "ar1_slope", pinned: computed by the code before this change.
SLOPE_SOURCE = "closed form: rho_1 by Yule-Walker; SE by Bartlett's formula for the lag-1 autocorrelation"
PINNED = [
    (AR1(0.5), 50, "mean", 0.0, 0.282842712474619),
    (AR1(0.5), 200, "mean", 0.0, 0.1414213562373095),
    (AR1(0.5), 1000, "ar1_slope", 0.5, 0.027386127875258306),
    (AR1(0.0), 200, "ar1_slope", 0.0, 0.07071067811865475),
    (AR1(-0.3, innovation_sd=2.0), 50, "mean", 0.0, 0.21757131728816842),
    (AR1(-0.3, innovation_sd=2.0), 200, "ar1_slope", -0.3, 0.06745368781616022),
    (AR1(0.9), 1000, "mean", 0.0, 0.316227766016838),
    (AR1(0.9), 1000, "ar1_slope", 0.9, 0.013784048752090218),
    (AR3(0.5, -0.2, 0.1), 200, "mean", 0.0, 0.11785113019775792),
    (AR3(0.5, -0.2, 0.1), 50, "ar1_slope", 0.42105263157894735, 0.11576031124232143),
    (AR3(0.3, 0.2, -0.1, innovation_sd=1.5), 1000, "mean", 0.0, 0.07905694150420949),
    (AR3(0.3, 0.2, -0.1, innovation_sd=1.5), 200, "ar1_slope", 0.3414634146341463, 0.07709510705670618),
    (ARMA11(0.5, 0.3), 200, "mean", 0.0, 0.18384776310850234),
    (ARMA11(-0.4, 0.6, innovation_sd=0.7), 1000, "mean", 0.0, 0.02529822128134703),
]


@pytest.mark.parametrize(("process", "n", "statistic", "value", "standard_error"), PINNED)
def test_the_truths_of_mean_and_ar1_slope_keep_their_bits(process, n, statistic, value, standard_error):
    truth = process.truth(n, statistic)
    assert (truth.value, truth.standard_error, truth.monte_carlo_error) == (value, standard_error, 0.0)
    if statistic == "ar1_slope":
        assert truth.source == SLOPE_SOURCE
        assert process.truth(n, "ar_coef") == truth  # one statistic, two names, one truth


def test_the_sources_of_the_mean_truths_are_unchanged():
    assert AR1(0.5).truth(200).source == (
        "closed form: mean 0; SE (sigma/sqrt(n)) sqrt((1+phi)/(1-phi)), sigma the process sd"
    )
    assert AR3(0.5, -0.2, 0.1).truth(200).source == (
        "closed form: mean 0; SE sqrt(LRV/n), LRV = sd**2 / (1 - phi1 - phi2 - phi3)**2"
    )
    assert ARMA11(0.5, 0.3).truth(200).source == (
        "closed form: mean 0; SE sqrt(LRV/n), LRV = sd**2 (1 + theta)**2 / (1 - phi)**2"
    )


# The new truths, pinned too: pure-Python arithmetic, so the same bits on every machine whose
# libm rounds exp, sin, asin and log alike (a change here changes what receipts record).
NEW_PINNED = [
    (AR1(0.5), 200, "median", 0.0, 0.15543708704951953),
    (AR1(0.5), 200, "var", 1.3333333333333333, 0.17213259316477408),
    (AR1(0.5), 200, "std", 1.1547005383792515, 0.07453559924999299),
    (AR1(0.5), 200, "quantile:0.9", 1.479808282695123, 0.19178890255261966),
    (AR1(0.5), 200, "acf:2", 0.25, 0.08100925873009825),
    (AR3(0.5, -0.2, 0.1), 200, "quantile:0.05", -1.843860928468467, 0.19831817207089533),
    (ARMA11(0.5, 0.3), 200, "acf:1", 0.6618705035971223, 0.04521454220438683),
    (ARMA11(0.5, 0.3), 200, "median", 0.0, 0.20090324544303634),
]


@pytest.mark.parametrize(("process", "n", "statistic", "value", "standard_error"), NEW_PINNED)
def test_the_new_truths_have_fixed_bits(process, n, statistic, value, standard_error):
    truth = process.truth(n, statistic)
    assert (truth.value, truth.standard_error) == (value, standard_error)


# ---------------------------------------------------------------------------------------
# (a) i.i.d. closed forms: AR1 with phi = 0 is i.i.d. N(0, sd**2).


@pytest.mark.parametrize("sd", [1.0, 2.5])
@pytest.mark.parametrize("n", [50, 400])
def test_iid_truths_are_the_textbook_closed_forms(sd, n):
    process = AR1(0.0, innovation_sd=sd)
    root = math.sqrt(n)
    expected = {
        "median": (0.0, math.sqrt(math.pi / 2) * sd / root),
        "var": (sd**2, math.sqrt(2) * sd**2 / root),
        "std": (sd, sd / math.sqrt(2 * n)),
        "acf:1": (0.0, 1 / root),
        "acf:3": (0.0, 1 / root),
        "ar1_slope": (0.0, 1 / root),
    }
    for q in (0.05, 0.25, 0.5, 0.9, 0.999):
        z = STANDARD.inv_cdf(q)
        expected[f"quantile:{q}"] = (sd * z, math.sqrt(q * (1 - q)) / STANDARD.pdf(z) * sd / root)
    for statistic, (value, standard_error) in expected.items():
        truth = process.truth(n, statistic)
        assert truth.value == pytest.approx(value, rel=1e-14, abs=1e-300), statistic
        assert truth.standard_error == pytest.approx(standard_error, rel=1e-13), statistic
        assert truth.monte_carlo_error == 0.0 and truth.source


def test_the_median_and_the_middle_quantile_have_one_truth():
    for process in GAUSSIAN:
        median, middle = process.truth(300, "median"), process.truth(300, "quantile:0.5")
        assert median.value == middle.value == 0.0
        assert middle.standard_error == pytest.approx(median.standard_error, rel=1e-14)


def _ma_weights(process, count=6000):
    """psi_0.. of the MA(infinity) form, by scipy's lfilter of an impulse (not Yule-Walker)."""
    impulse = np.zeros(count)
    impulse[0] = 1.0
    return lfilter(*_filter(process), impulse)


@functools.cache
def reference_autocovariances(process, lags=3000):
    """gamma_0..gamma_{lags-1} = sd**2 sum_j psi_j psi_{j+k}: independent of dgp's formulas."""
    psi = _ma_weights(process)
    return process.innovation_sd**2 * np.array([psi[: len(psi) - k] @ psi[k:] for k in range(lags)])


@pytest.mark.parametrize(
    "process", [*GAUSSIAN, AR1(-0.8, innovation_sd=1.7), AR3(0.3, 0.2, -0.1, innovation_sd=1.5), ARMA11(-0.4, 0.6, 0.7)]
)
def test_variance_and_autocorrelations_match_the_ma_infinity_form(process):
    gamma = reference_autocovariances(process)
    assert process.variance() == pytest.approx(gamma[0], rel=1e-13)
    np.testing.assert_allclose(process.autocorrelations(40)[:42], gamma[:42] / gamma[0], rtol=1e-12, atol=1e-15)


def test_the_arma11_closed_forms_of_the_brief():
    phi, theta, sd = 0.5, 0.3, 1.3
    process = ARMA11(phi, theta, sd)
    spread = 1 + 2 * phi * theta + theta**2
    assert process.variance() == pytest.approx(sd**2 * spread / (1 - phi**2), rel=1e-15)
    rho1 = (1 + phi * theta) * (phi + theta) / spread
    np.testing.assert_allclose(process.autocorrelations(5), [1.0, *(rho1 * phi ** (k - 1) for k in range(1, 7))])


@pytest.mark.parametrize("h", [0.0, 0.3, -0.67, 1.2816, 2.3263, -3.5])
@pytest.mark.parametrize("rho", [-0.99, -0.6, -0.05, 1e-6, 0.3, 0.8, 0.99])
def test_the_quantile_integral_agrees_with_scipy(h, rho):
    """[Phi2(h, h; rho) - Phi(h)**2] / phi(h)**2, as dgp integrates it (r = sin t, Gauss-Legendre),
    against scipy's adaptive quad of Plackett's integrand in r itself and, more loosely,
    against scipy's bivariate normal CDF (Genz's algorithm, ~1e-8 absolute)."""
    density = STANDARD.pdf(h)
    ours = dgp._scaled_orthant_excess(h, rho)
    quadrature, _ = integrate.quad(_plackett, 0, rho, args=(h,), epsabs=0, epsrel=1e-13, limit=200)
    assert ours == pytest.approx(quadrature / density**2, rel=1e-11)
    q = STANDARD.cdf(h)
    bivariate = stats.multivariate_normal(mean=[0, 0], cov=[[1, rho], [rho, 1]]).cdf([h, h])
    assert ours * density**2 == pytest.approx(bivariate - q * q, abs=2e-7)


def test_gauss_legendre_nodes_integrate_polynomials_exactly():
    nodes, weights = dgp._gauss_legendre(dgp._GAUSS_LEGENDRE_ORDER)
    for degree in range(0, 2 * dgp._GAUSS_LEGENDRE_ORDER, 7):
        exact = 0.0 if degree % 2 else 2.0 / (degree + 1)
        assert math.fsum(w * x**degree for x, w in zip(nodes, weights, strict=True)) == pytest.approx(exact, abs=1e-15)


# ---------------------------------------------------------------------------------------
# (b) Monte Carlo.
#
# 20,000 paths of n = 1000 per process, shocks from numpy's PCG64, 500 burn-in values
# dropped (0.5**500 of the zero start is left), filtered by scipy's lfilter. For each
# statistic, the mean m and SD s over the draws must satisfy
#
#   |m - (value + bias_n)| <= Z s / sqrt(D) + 0.3 |bias_n|
#   |s / SE - 1|           <= Z / sqrt(2 (D - 1)) + (2 + sum_h |h| |rho_h|) / n
#
# Z = 4.5 (54 checks; a two-sided 4.5-sigma miss has probability 7e-6 each). bias_n is the
# statistic's O(1/n) finite-n bias by its textbook expansion (below), allowed 30% slack for
# its O(1/n**2) remainder. s / sqrt(2 (D - 1)) is the Monte Carlo SE of an SD (a near-normal
# statistic). The SD's finite-n allowance covers the mean's exact relative term
# sum_h |h| rho_h / (2 n L) and the ~2/n of i.i.d. order statistics (an exact beta simulation
# of 4e6 sample 0.9-quantiles at n = 1000 gives a relative SD error of -1.5/n).

MC_N = 1000
MC_DRAWS = 20_000
MC_CHUNK = 5_000  # 5,000 x 1,500 float64 per chunk: 60 MB
MC_BURN_IN = 500
MC_SEED = 20260801
Z = 4.5
MC_STATISTICS = ("mean", "median", "var", "std", "quantile:0.9", "quantile:0.25", "acf:1", "acf:2", "ar1_slope")


def _filter(process):
    if isinstance(process, ARMA11):
        return [1.0, process.theta], [1.0, -process.phi]
    if isinstance(process, AR3):
        return [1.0], [1.0, -process.phi1, -process.phi2, -process.phi3]
    return [1.0], [1.0, -process.phi]


@functools.cache
def monte_carlo(process):
    """{statistic: (mean, sd)} over MC_DRAWS lfilter paths of length MC_N."""
    b, a = _filter(process)
    generator = np.random.default_rng(MC_SEED)
    found = {text: [] for text in MC_STATISTICS}
    for _ in range(MC_DRAWS // MC_CHUNK):
        shocks = generator.standard_normal((MC_CHUNK, MC_BURN_IN + MC_N)) * process.innovation_sd
        paths = lfilter(b, a, shocks, axis=1)[:, MC_BURN_IN:]
        for text in MC_STATISTICS:
            found[text].append(statistics.parse(text).values(paths))
    return {text: (float(np.mean(v)), float(np.std(np.concatenate(v), ddof=1))) for text, v in found.items()}


def _all_lags(rho, lo, hi):
    """rho_j for j = lo..hi (rho_{-j} = rho_j), from the one-sided array."""
    return np.array([rho[abs(j)] for j in range(lo, hi + 1)])


def predicted_bias(process, text, n, sd):
    """The O(1/n) bias of the statistic at n, by its textbook expansion (sums over all lags
    j, |j| <= 2000, from the MA(infinity) autocovariances). ``sd``: the Monte Carlo SD."""
    gamma = reference_autocovariances(process)
    gamma0, rho, lags = gamma[0], gamma / gamma[0], 2000
    sigma = math.sqrt(gamma0)
    family = statistics.parse(text).family
    if family in ("mean", "median"):
        return 0.0  # the process is symmetric about 0 and both statistics are odd: unbiased
    mean_variance = gamma0 / n * (1 + 2 * math.fsum((1 - h / n) * rho[h] for h in range(1, n)))
    if family == "var":  # exact: E s**2 = gamma_0 - Var(xbar)
        return -mean_variance
    var_sd = process.truth(n, "var").standard_error  # only its size matters here
    if family == "std":  # E s = sqrt(E s**2) - Var(s**2) / (8 sigma**3) + O(1/n**2)
        return math.sqrt(gamma0 - mean_variance) - var_sd**2 / (8 * sigma**3) - sigma
    long_run = math.fsum(_all_lags(rho, -lags, lags))  # L = sum_j rho_j
    if family in ("acf", "ar1_slope"):
        # E r_k = rho_k - [k rho_k + L (1 - rho_k) + 2 sum_j rho_j rho_{j+k} - 2 rho_k sum_j rho_j**2] / n
        # (E c_k = gamma_k (1 - k/n) - Var(xbar), then the ratio's second-order term with
        # Bartlett's Cov(c_k, c_0)); AR(1): -(1 + 4 phi)/n. The OLS slope divides by
        # n - 1 squares: + rho_1/n more (AR(1): Kendall's -(1 + 3 phi)/n).
        k = 1 if family == "ar1_slope" else statistics.parse(text).parameter
        cross = math.fsum(_all_lags(rho, -lags, lags) * _all_lags(rho, -lags + k, lags + k))
        squares = math.fsum(_all_lags(rho, -lags, lags) ** 2)
        acf_bias = -(k * rho[k] + long_run * (1 - rho[k]) + 2 * cross - 2 * rho[k] * squares) / n
        return acf_bias + (rho[1] / n if family == "ar1_slope" else 0.0)
    # quantile:q, xi = sigma h: the sample quantile solves F_n(xi_hat) = q + (1/2 - q)/n
    # (numpy's linear rule), and the second-order Bahadur expansion gives
    #   E xi_hat - xi = [(1 - 2q) + sum_{j != 0} (P(X_j <= xi | X_0 = xi) - q)] / (n f(xi))
    #                   + xi Var(xi_hat) / (2 sigma**2),
    # with P(X_j <= xi | X_0 = xi) = Phi(h sqrt((1 - rho_j) / (1 + rho_j))); i.i.d.: the
    # classical (1 - 2q)/(n f) + q (1 - q) xi / (2 n sigma**2 f**2).
    q = statistics.parse(text).parameter
    h = STANDARD.inv_cdf(q)
    conditional = stats.norm.cdf(h * np.sqrt((1 - rho[1 : lags + 1]) / (1 + rho[1 : lags + 1]))) - q
    density = STANDARD.pdf(h) / sigma
    return ((1 - 2 * q) + 2 * math.fsum(conditional)) / (n * density) + sigma * h * sd**2 / (2 * gamma0)


def sd_allowance(process, n):
    rho = reference_autocovariances(process) / reference_autocovariances(process)[0]
    return (2 + 2 * math.fsum(h * abs(rho[h]) for h in range(1, 2001))) / n


def mean_ok(mean, sd, target, bias):
    return abs(mean - (target + bias)) <= Z * sd / math.sqrt(MC_DRAWS) + 0.3 * abs(bias)


def sd_ok(sd, standard_error, allowance):
    return abs(sd / standard_error - 1) <= Z / math.sqrt(2 * (MC_DRAWS - 1)) + allowance


@pytest.mark.parametrize("text", MC_STATISTICS)
@pytest.mark.parametrize("process", GAUSSIAN, ids=lambda p: type(p).__name__)
def test_monte_carlo_mean_and_sd_match_the_truth(process, text):
    mean, sd = monte_carlo(process)[text]
    truth = process.truth(MC_N, text)
    bias = predicted_bias(process, text, MC_N, sd)
    assert mean_ok(mean, sd, truth.value, bias), (mean, truth.value, bias, sd / math.sqrt(MC_DRAWS))
    allowance = sd_allowance(process, MC_N)
    assert sd_ok(sd, truth.standard_error, allowance), (sd / truth.standard_error - 1, allowance)
    # and the check has power: an SE 8% off either way fails it
    assert not sd_ok(sd, 1.08 * truth.standard_error, allowance)
    assert not sd_ok(sd, truth.standard_error / 1.08, allowance)


# ---------------------------------------------------------------------------------------
# (c) Negative controls: deliberately broken SEs fail the same Monte Carlo check.


def _broken_quantile_se(process, q, n, integrand):
    """The quantile SE with Plackett's integral replaced by ``integrand`` (r, h) (scipy quad)."""
    gamma = reference_autocovariances(process)
    rho = gamma / gamma[0]
    h = STANDARD.inv_cdf(q)
    terms = [q * (1 - q)]
    for k in range(1, 200):
        terms.append(2 * integrate.quad(lambda r: integrand(r, h), 0, rho[k])[0])
    variance = gamma[0] * math.fsum(terms) / STANDARD.pdf(h) ** 2 / n
    return math.sqrt(variance) if variance > 0 else math.nan  # nan: no SE, fails any check


def _plackett(r, h):
    return math.exp(-h * h / (1 + r)) / (2 * math.pi * math.sqrt(1 - r * r))


def test_negative_control_median_se_without_the_arcsin_sum_fails_on_ar1():
    process = AR1(0.7)
    mean, sd = monte_carlo(process)["median"]
    truth = process.truth(MC_N, "median")
    allowance = sd_allowance(process, MC_N)
    assert sd_ok(sd, truth.standard_error, allowance)  # the real formula passes on AR1(0.7) too
    iid = math.sqrt(math.pi / 2 * process.variance() / MC_N)  # sigma**2 arcsin(rho_0) only
    assert not sd_ok(sd, iid, allowance)


@pytest.mark.parametrize("q", [0.9, 0.25])
def test_negative_control_quantile_integral_with_a_wrong_sign_fails(q):
    process = GAUSSIAN[0]
    mean, sd = monte_carlo(process)[f"quantile:{q}"]
    allowance = sd_allowance(process, MC_N)
    # the integral recomputed by scipy passes the check, as the truth does ...
    assert sd_ok(sd, _broken_quantile_se(process, q, MC_N, _plackett), allowance)
    # ... and with the exponent's sign flipped, or the integral's, fails it
    flipped = _broken_quantile_se(process, q, MC_N, lambda r, h: _plackett(r, h) * math.exp(2 * h * h / (1 + r)))
    assert not sd_ok(sd, flipped, allowance)
    negated = _broken_quantile_se(process, q, MC_N, lambda r, h: -_plackett(r, h))
    assert not sd_ok(sd, negated, allowance)


@pytest.mark.parametrize("process", GAUSSIAN, ids=lambda p: type(p).__name__)
def test_negative_control_quantile_se_scaled_like_the_mean_fails(process):
    """A plausible shortcut, the i.i.d. quantile SE times sqrt(long-run variance / gamma_0),
    is 20-26% too large for these processes: the check tells it apart."""
    mean, sd = monte_carlo(process)["quantile:0.9"]
    gamma = reference_autocovariances(process)
    long_run = gamma[0] + 2 * math.fsum(gamma[1:])
    shortcut = math.sqrt(0.9 * 0.1) / STANDARD.pdf(STANDARD.inv_cdf(0.9)) * math.sqrt(long_run / MC_N)
    assert not sd_ok(sd, shortcut, sd_allowance(process, MC_N))


# ---------------------------------------------------------------------------------------
# (d) parse()


@pytest.mark.parametrize(
    ("text", "family", "parameter"),
    [
        ("mean", "mean", None),
        ("median", "median", None),
        ("var", "var", None),
        ("std", "std", None),
        ("quantile:0.9", "quantile", 0.9),
        ("quantile:.05", "quantile", 0.05),
        ("quantile:1e-3", "quantile", 0.001),
        ("acf:1", "acf", 1),
        ("acf:12", "acf", 12),
        ("ar1_slope", "ar1_slope", None),
        ("ar_coef", "ar_coef", None),
    ],
)
def test_parse_reads_each_form(text, family, parameter):
    parsed = statistics.parse(text)
    assert parsed == statistics.Statistic(text, family, parameter)
    assert type(parsed.parameter) is type(parameter)
    assert statistics.is_builtin(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "average",
        "Mean",
        "mean:1",
        "median:",
        "ar_coef:2",
        "quantile",
        "quantile:",
        "quantile:0",
        "quantile:1",
        "quantile:1.5",
        "quantile:-0.1",
        "quantile:nan",
        "quantile:inf",
        "quantile: 0.5",
        "quantile:0.5:0.9",
        "quantile:half",
        "acf",
        "acf:",
        "acf:0",
        "acf:-1",
        "acf:1.5",
        "acf:two",
        "pkg.mod:fn",
        None,
        3,
    ],
)
def test_parse_refuses_malformed_names_naming_where_and_the_forms(text):
    with pytest.raises(InvalidParameterError) as caught:
        statistics.parse(text, "design.statistic")
    message = str(caught.value)
    assert caught.value.code is ErrorCode.STATISTIC
    assert message.startswith("design.statistic: ")
    assert "quantile:q" in message and "acf:k" in message and "ar_coef" in message


def test_is_builtin_looks_at_the_part_before_the_colon():
    assert statistics.is_builtin("quantile") and statistics.is_builtin("acf:x")
    assert not statistics.is_builtin("pkg.mod:fn") and not statistics.is_builtin("numpy:median")
    assert not statistics.is_builtin(None)
    assert statistics.FAMILIES == ("mean", "median", "var", "std", "quantile", "acf", "ar1_slope", "ar_coef")


def test_truth_and_has_truth_refuse_what_a_process_does_not_know():
    for process in GAUSSIAN:
        assert process.statistics == statistics.FAMILIES
        assert all(dgp.has_truth(process, text) for text in ("mean", "quantile:0.3", "acf:4", "ar_coef"))
        assert not dgp.has_truth(process, "pkg.mod:fn")
        for bad in ("quantile:2", "acf:0", "average", "pkg.mod:fn"):
            with pytest.raises(InvalidParameterError) as caught:
                process.truth(100, bad)
            assert caught.value.code is ErrorCode.STATISTIC
    assert HeteroskedasticAR1.statistics == ("ar1_slope", "ar_coef")  # one statistic, two names
    assert dgp.has_truth(HeteroskedasticAR1(), "ar1_slope") and dgp.has_truth(HeteroskedasticAR1(), "ar_coef")
    assert not dgp.has_truth(HeteroskedasticAR1(), "median")
    with pytest.raises(InvalidParameterError, match="heteroskedastic_ar1 has no truth for 'median'"):
        HeteroskedasticAR1().truth(100, "median")
    with pytest.raises(InvalidParameterError, match="Monte Carlo estimate"):
        HeteroskedasticAR1().truth(100, "ar1_slope")


def test_truths_of_large_lags_and_many_ns_are_consistent():
    process = GAUSSIAN[0]
    far = process.truth(400, "acf:2500")  # its Bartlett sum still has 2000 terms
    assert far.value == 0.5**2500 and far.standard_error == pytest.approx(math.sqrt(5 / 3 / 400), rel=1e-12)
    # the SE scales as 1/sqrt(n), the value does not move
    for text in ("median", "var", "std", "quantile:0.7", "acf:3"):
        small, large = process.truth(100, text), process.truth(10_000, text)
        assert small.value == large.value
        assert small.standard_error == pytest.approx(10 * large.standard_error, rel=1e-14)


# ---------------------------------------------------------------------------------------
# (e) Statistic.value against the engine's point estimate


POINT_CASES = [
    (text, n)
    for text in (*MC_STATISTICS, "quantile:0.37", "quantile:0.5", "acf:5", "ar_coef")
    for n in (2, 7, 64, 301)
    # two values: some i.i.d. replicate is constant, its acf or slope 0/0, and the engine refuses it
    if n > 2 or statistics.parse(text).family not in ("acf", "ar1_slope", "ar_coef")
]


@pytest.mark.parametrize(("text", "n"), POINT_CASES)
def test_value_is_the_engines_point_estimate_to_the_bit(text, n):
    """Bit for bit for every family: mean, var and std go through the engine's own
    compensated-sum kernels, median and quantile through its order of operations, acf
    and the slope through the very callable the engine gets."""
    statistic = statistics.parse(text)
    generator = np.random.default_rng(n)
    for x in (generator.standard_normal(n), np.cumsum(generator.standard_normal(n)) + 1e3):
        point = engine.bootstrap_reduce(x, engine.IID(), statistic.engine_argument(), 9, 1).point
        assert statistic.value(x) == point, text


@pytest.mark.parametrize("text", [*MC_STATISTICS, "quantile:0.37", "acf:5", "ar_coef"])
def test_values_are_value_row_by_row(text):
    statistic = statistics.parse(text)
    paths = np.random.default_rng(5).standard_normal((40, 257)).cumsum(axis=1)
    rows = statistic.values(paths)
    one_by_one = np.array([statistic.value(row) for row in paths])
    assert rows.shape == (40,) and rows.dtype == np.float64
    if statistic.family in ("mean", "var", "std"):  # numpy's sums, not the engine's compensated ones
        np.testing.assert_allclose(rows, one_by_one, rtol=1e-13, atol=0)
    else:
        assert np.array_equal(rows, one_by_one)


def test_engine_arguments_and_their_pickles():
    assert statistics.parse("quantile:0.9").engine_argument() == ("quantile", 0.9)
    assert statistics.parse("ar1_slope").engine_argument() is dgp.ols_ar1_slope
    assert statistics.parse("ar_coef").engine_argument() is dgp.ols_ar1_slope
    acf = statistics.parse("acf:2").engine_argument()
    again = pickle.loads(pickle.dumps(acf))
    x = np.random.default_rng(1).standard_normal(50)
    assert again(x) == acf(x) == statistics.autocorrelation(x, 2)
    assert statistics.autocorrelation(x, 50) == 0.0
    with pytest.raises(InvalidParameterError):
        statistics.parse("mean").value(np.ones((3, 3)))
