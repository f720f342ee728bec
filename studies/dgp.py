"""Data-generating processes with a known truth.

Series are drawn with numpy's PCG64 (``numpy.random.default_rng(seed)``), the
generator the published figures of docs/published-figures.md were made with; the bootstrap
streams are bootmark's own.

Each process is a frozen dataclass with

* ``sample(n, seed)``: a float64 array of n observations;
* ``truth(n, statistic)``: a :class:`Truth` for a study's statistic, a built-in name of
  :mod:`bootmark.studies.statistics` as a protocol writes it (``"mean"``, ``"median"``,
  ``"var"``, ``"std"``, ``"quantile:q"``, ``"acf:k"``, ``"ar1_slope"``, ``"ar_coef"``),
  by closed form where one exists; :class:`HeteroskedasticAR1` has none and gets its
  truth (``"ar1_slope"`` only) from a cached Monte Carlo receipt (``studies/truth.py``).
  A statistic a process has no truth for raises a typed error; ``statistics`` lists
  the families a process knows, and :func:`has_truth` asks.

Stationary processes start from zero and drop ``burn_in`` values; the closed-form
standard errors are the large-n ones, sqrt(asymptotic variance / n), unless a process is
built with ``true_se = "finite_n"`` (a protocol's ``[dgp] true_se``, below).

AR1, AR3 and ARMA11 are stationary Gaussian linear processes (Gaussian innovations,
``bootmark.core.simulate.arma_path``), so every built-in statistic has a closed-form
large-n truth from the autocovariances gamma_k = gamma_0 rho_k (sums over all integers
k, truncated after ``BARTLETT_LAGS`` lags and added with math.fsum):

* mean: 0; asymptotic variance the long-run variance sum_k gamma_k (as published);
* var (ddof=0): gamma_0; 2 sum_k gamma_k**2 (Gaussian: no fourth cumulant);
* std: sigma = sqrt(gamma_0); SE(var) / (2 sigma) (delta method);
* median: 0; sigma**2 sum_k arcsin(rho_k), which is (1/f(0)**2) sum_k
  Cov(1{X_0 <= 0}, 1{X_k <= 0}) by the orthant probability 1/4 + arcsin(rho)/(2 pi)
  (i.i.d.: pi sigma**2 / 2);
* quantile:q: sigma z_q; sigma**2 sum_k [Phi2(z_q, z_q; rho_k) - q**2] / phi(z_q)**2, the
  k = 0 term q (1 - q) and the others by Plackett's identity
  Phi2(h, h; rho) - Phi(h)**2 = int_0^rho exp(-h**2/(1+r)) / (2 pi sqrt(1-r**2)) dr,
  taken with r = sin(t) (no endpoint singularity) by fixed-node Gauss-Legendre;
* acf:k: rho_k; Bartlett's w_kk = sum_{m>=1} (rho_{m+k} + rho_{m-k} - 2 rho_k rho_m)**2;
* ar1_slope and ar_coef (one statistic): rho_1; Bartlett's w_11.

With ``true_se = "finite_n"`` the mean and var (the statistics of ``FINITE_N_FAMILIES``) get
their exact standard error at n instead, from gamma_0 .. gamma_{n-1}; the true values stay
the population ones (0 and gamma_0: what an interval should cover), and every other
statistic is refused (its SE has no closed form at finite n):

* mean: Var(xbar) = (1/n) [gamma_0 + 2 sum_{k=1}^{n-1} (1 - k/n) gamma_k] (any stationary
  process: :func:`finite_n_variance_of_mean`);
* var (ddof=0): s2 = x'Ax with A = (I - 11'/n)/n, so Var(s2) = 2 tr((A Sigma)**2) for a
  Gaussian series, Sigma the n x n Toeplitz autocovariance matrix; with c = Sigma 1,
  tr((A Sigma)**2) = [tr(Sigma**2) - 2 c'c/n + (1'c)**2/n**2] / n**2 and tr(Sigma**2) =
  n gamma_0**2 + 2 sum_{k=1}^{n-1} (n - k) gamma_k**2, O(n) (:func:`finite_n_variance_of_var`).

Those sums are exact (integer arithmetic on the floats gamma_0 and rho_k, each a dyadic
rational) and rounded once, so they lose nothing to cancellation (the var's three terms
nearly cancel when phi is near 1 and n small).

Every truth is pure-Python float arithmetic (exact fractions for Yule-Walker, exact
integers for the finite-n sums, no LAPACK, BLAS or scipy), so it has the same bits
wherever the C library's exp, sin, asin and log round alike.

Examples
--------
>>> from bootmark.studies.dgp import AR1
>>> process = AR1(0.5)
>>> process.sample(200, seed=1).shape
(200,)
>>> round(process.truth(200, "mean").standard_error, 6)
0.141421
>>> round(AR1(0.7).truth(100).standard_error, 4), round(AR1(0.7, true_se="finite_n").truth(100).standard_error, 4)
(0.3333, 0.3287)
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass, replace
from decimal import Decimal, localcontext
from fractions import Fraction
from statistics import NormalDist
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from bootmark.core.simulate import ar1, arma_path, series_length
from bootmark.reference.errors import ErrorCode, InvalidParameterError

from . import statistics as builtin_statistics
from .statistics import ols_ar1_slope  # re-exported: the slope truths are defined on it

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any


__all__ = [
    "AR1",
    "AR3",
    "ARMA11",
    "FINITE_N_FAMILIES",
    "PROCESSES",
    "GarchAR1",
    "LevelShiftAR1",
    "StudentTAR1",
    "TRUE_SE",
    "HeteroskedasticAR1",
    "Truth",
    "ar1",
    "ar1_mean_standard_error",
    "autocorrelations",
    "finite_n_variance_of_mean",
    "finite_n_variance_of_var",
    "has_truth",
    "make_process",
    "ols_ar1_slope",
]


@dataclass(frozen=True)
class Truth:
    """The true value of the statistic and its true standard error (data units).

    ``source`` says where both come from: a formula, or a Monte Carlo receipt with its
    number of draws and its own Monte Carlo error.

    Attributes
    ----------
    value : float
        The true value of the statistic (what an interval should cover), in data units.
    standard_error : float
        The true standard error of the statistic at the series length asked for, in data
        units.
    source : str
        Where both come from, in words (a formula, or a truth receipt's file name).
    monte_carlo_error : float, default 0.0
        The Monte Carlo standard error of ``standard_error`` (0.0 for a closed form).

    See Also
    --------
    bootmark.studies.truth.truth_of : The truth of any process, closed form or receipt.

    Examples
    --------
    >>> truth = AR1(0.5).truth(200, "ar1_slope")
    >>> truth.value, round(truth.standard_error, 6), truth.monte_carlo_error
    (0.5, 0.061237, 0.0)
    """

    value: float
    standard_error: float
    source: str
    monte_carlo_error: float = 0.0


def _check_sd(value, name):
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
        raise InvalidParameterError(
            ErrorCode.DATA_SHAPE, name, f"must be a finite number > 0, got {value!r}", f"pass {name} > 0"
        )


def _check_stationary_ar(coefficients, name):
    """Refuse AR coefficients whose characteristic polynomial has a root inside the unit circle."""
    polynomial = np.r_[1.0, -np.asarray(coefficients, dtype=float)]
    roots = np.roots(polynomial[::-1]) if len(coefficients) else np.array([])
    if np.any(np.abs(roots) <= 1.0 + 1e-12):
        raise InvalidParameterError(
            ErrorCode.DATA_SHAPE,
            name,
            f"{tuple(coefficients)} is not stationary",
            "pass coefficients whose AR polynomial has all roots outside the unit circle",
        )


def ar1_mean_standard_error(n: int, phi: float, innovation_sd: float = 1.0) -> float:
    """Large-n standard error of the sample mean of a stationary AR(1).

    (sigma / sqrt(n)) * sqrt((1 + phi) / (1 - phi)), with sigma = innovation_sd /
    sqrt(1 - phi**2) the process standard deviation (docs/published-figures.md, S1).

    Parameters
    ----------
    n : int
        Series length (observations).
    phi : float
        AR(1) coefficient, -1 < phi < 1 (not checked here).
    innovation_sd : float, default 1.0
        Standard deviation of the innovations, in data units.

    Returns
    -------
    float
        The standard error, in data units.

    See Also
    --------
    AR1.truth : The same figure as a :class:`Truth`.

    Examples
    --------
    >>> round(ar1_mean_standard_error(200, 0.5), 6)
    0.141421
    >>> round(ar1_mean_standard_error(200, 0.0, innovation_sd=2.0), 6)
    0.141421
    """
    sigma = innovation_sd / math.sqrt(1.0 - phi * phi)
    return sigma / math.sqrt(n) * math.sqrt((1.0 + phi) / (1.0 - phi))


def _checked_statistic(process, name, statistic):
    """``statistic`` parsed (:func:`bootmark.studies.statistics.parse`), if ``process``
    has a truth for its family; else a typed error (code STATISTIC) naming ``name``."""
    if builtin_statistics.is_builtin(statistic):
        parsed = builtin_statistics.parse(statistic, "statistic")  # a malformed name: parse's own error
        if parsed.family in process.statistics:
            return parsed
        if parsed.family in GAUSSIAN_FAMILIES and getattr(process, "true_se", None) == "finite_n":
            raise InvalidParameterError(
                ErrorCode.STATISTIC,
                "statistic",
                f"{name} with true_se='finite_n' has no exact finite-n SE for {statistic!r}",
                f"use one of {', '.join(FINITE_N_FAMILIES)}, or true_se='large_n' for its large-n SE",
            )
    knows_all = set(process.statistics) == set(builtin_statistics.FAMILIES)
    raise InvalidParameterError(
        ErrorCode.STATISTIC,
        "statistic",
        f"{name} has no truth for {statistic!r}",
        f"use one of {builtin_statistics.FORMS if knows_all else ', '.join(process.statistics)}",
    )


def has_truth(process: Any, text: str) -> bool:
    """Whether ``process`` has a truth for the statistic ``text``: the family of the parsed
    name is in ``process.statistics``.

    Parameters
    ----------
    process : object
        A process of this module (or any object with a ``statistics`` tuple of families).
    text : str
        The statistic as a protocol writes it, e.g. ``"quantile:0.9"``.

    Returns
    -------
    bool
        False for a name that is not a built-in statistic (e.g. ``"pkg.mod:fn"``).

    Raises
    ------
    bootmark.reference.errors.InvalidParameterError
        A malformed built-in name, e.g. ``"quantile:2"`` (:func:`bootmark.studies.statistics.parse`).

    Examples
    --------
    >>> has_truth(ARMA11(0.5, 0.3), "acf:2"), has_truth(HeteroskedasticAR1(), "median")
    (True, False)
    >>> has_truth(AR1(0.5), "pkg.mod:fn")
    False
    """
    if not builtin_statistics.is_builtin(text):
        return False
    return builtin_statistics.parse(text, "statistic").family in getattr(process, "statistics", ())


BARTLETT_LAGS = 2000  # terms of Bartlett's sum; the AR autocorrelations decay geometrically


def _solve_exactly(system, right):
    """x with system @ x = right, in exact rational arithmetic (Gauss-Jordan).

    Not ``np.linalg.solve``: LAPACK's rounding depends on the machine's BLAS kernel, and a
    truth must have the same bits everywhere. Exact fractions, rounded once, do."""
    rows = [row[:] + [value] for row, value in zip(system, right, strict=True)]
    size = len(rows)
    for column in range(size):
        pivot = next((r for r in range(column, size) if rows[r][column] != 0), None)
        if pivot is None:
            raise ZeroDivisionError("singular Yule-Walker system: the AR process is not stationary")
        rows[column], rows[pivot] = rows[pivot], rows[column]
        for r in range(size):
            if r != column and rows[r][column] != 0:
                factor = rows[r][column] / rows[column][column]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[column], strict=True)]
    return [rows[r][size] / rows[r][r] for r in range(size)]


def _yule_walker(phi):
    """rho_1..rho_p of a stationary AR(p) as exact fractions (Yule-Walker)."""
    p = len(phi)
    exact = [Fraction(value) for value in phi]
    system = [[Fraction(int(k == j)) for j in range(p)] for k in range(p)]
    right = [Fraction(0)] * p
    for k in range(1, p + 1):
        for j in range(1, p + 1):
            if k == j:
                right[k - 1] += exact[j - 1]
            else:
                system[k - 1][abs(k - j) - 1] -= exact[j - 1]
    return _solve_exactly(system, right)


def autocorrelations(phi: Sequence[float], lags: int = BARTLETT_LAGS) -> np.ndarray:
    """rho_0..rho_{lags + 1} of a stationary AR(p): Yule-Walker for rho_1..rho_p, then the recursion.

    >>> autocorrelations((0.5,), lags=3)
    array([1.    , 0.5   , 0.25  , 0.125 , 0.0625])
    """
    p = len(phi)
    rho = [1.0, *(float(value) for value in _yule_walker(phi))]
    for k in range(p + 1, lags + 2):
        rho.append(sum(phi[j] * rho[k - 1 - j] for j in range(p)))
    return np.asarray(rho)


def _ar_variance(phi, innovation_sd):
    """gamma_0 = sd**2 / (1 - sum_j phi_j rho_j) of a stationary AR(p), exact, rounded once."""
    explained = sum(Fraction(value) * r for value, r in zip(phi, _yule_walker(phi), strict=True))
    return float(Fraction(innovation_sd) ** 2 / (1 - explained))


def _slope_truth(rho, n):
    """Truth of the OLS AR(1) slope: its limit rho_1 and Bartlett's large-n SE of the lag-1
    autocorrelation, sqrt(sum_k (rho_{k+1} + rho_{k-1} - 2 rho_1 rho_k)**2 / n)."""
    terms = [(rho[k + 1] + rho[k - 1] - 2.0 * rho[1] * rho[k]) ** 2 for k in range(1, len(rho) - 1)]
    return Truth(
        float(rho[1]),
        math.sqrt(math.fsum(terms) / n),
        "closed form: rho_1 by Yule-Walker; SE by Bartlett's formula for the lag-1 autocorrelation",
    )


_SLOPES = ("ar1_slope", "ar_coef")  # one statistic, two names: one truth
GAUSSIAN_FAMILIES = builtin_statistics.FAMILIES  # the closed forms of AR1, AR3 and ARMA11
#: Which SE the closed forms of AR1, AR3 and ARMA11 give (a protocol's ``[dgp] true_se``):
#: ``"large_n"``, sqrt(asymptotic variance / n), the default because every receipt made before
#: the key existed used it; or ``"finite_n"``, the exact SE at n (``FINITE_N_FAMILIES`` only).
TRUE_SE = ("large_n", "finite_n")
#: The statistics with an exact finite-n SE for AR1, AR3 and ARMA11 (Gaussian).
FINITE_N_FAMILIES = ("mean", "var")
_GAUSS_LEGENDRE_ORDER = 40  # nodes per panel (even: no node at 0)
_GAUSS_LEGENDRE_PANELS = 4  # equal panels of [0, asin(rho)]
_NEGLIGIBLE_RHO = 1e-20  # a quantile term with |rho_k| below it adds under 2e-20 (the integrand is ~1 near 0)


def _legendre(order, x):
    """(P_order(x), P_order'(x)) by the three-term recurrence, in x's arithmetic."""
    previous, current = 1, x
    for k in range(2, order + 1):
        previous, current = current, ((2 * k - 1) * x * current - (k - 1) * previous) / k
    return current, order * (x * current - previous) / (x * x - 1)


@functools.cache
def _gauss_legendre(order):
    """Nodes and weights of ``order``-point Gauss-Legendre quadrature on [-1, 1].

    Newton's method on the Legendre recurrence in 50-digit decimal arithmetic, from a
    6-digit start, each node and weight rounded once to a float: the same bits on every
    machine (no LAPACK eigenvalues, no libm rounding).

    >>> nodes, weights = _gauss_legendre(2)
    >>> nodes, weights
    ((0.5773502691896257, -0.5773502691896257), (1.0, 1.0))
    """
    nodes, weights = [], []
    with localcontext() as context:
        context.prec = 50
        for i in range(1, order // 2 + 1):
            x = Decimal(f"{math.cos(math.pi * (i - 0.25) / (order + 0.5)):.6f}")
            for _ in range(100):
                value, slope = _legendre(order, x)
                step = value / slope
                x -= step
                if abs(step) < Decimal("1e-45"):
                    break
            _, slope = _legendre(order, x)
            weight = 2 / ((1 - x * x) * slope * slope)
            nodes += [float(x), -float(x)]
            weights += [float(weight), float(weight)]
    return tuple(nodes), tuple(weights)


def _scaled_orthant_excess(h, rho):
    """[Phi2(h, h; rho) - Phi(h)**2] / phi(h)**2, for |rho| < 1.

    Plackett's identity gives Phi2(h, h; rho) - Phi(h)**2 = int_0^rho exp(-h**2/(1+r)) /
    (2 pi sqrt(1 - r**2)) dr; with r = sin(t), and phi(h)**2 = exp(-h**2) / (2 pi), that is
    int_0^asin(rho) exp(h**2 sin(t) / (1 + sin(t))) dt, whose integrand is smooth (the
    substitution removes the 1/sqrt(1 - r**2) singularities). Composite Gauss-Legendre,
    ``_GAUSS_LEGENDRE_PANELS`` panels of ``_GAUSS_LEGENDRE_ORDER`` nodes, summed with
    math.fsum (within 1e-15 relative of a 40-digit quadrature for |rho| <= 0.99, 1e-12
    for |rho| <= 0.9999, 0 <= |h| <= 6).

    >>> round(_scaled_orthant_excess(0.0, 0.5), 12) == round(math.asin(0.5), 12)
    True
    """
    nodes, weights = _gauss_legendre(_GAUSS_LEGENDRE_ORDER)
    square = h * h
    half = math.asin(rho) / (2 * _GAUSS_LEGENDRE_PANELS)
    terms = []
    for panel in range(_GAUSS_LEGENDRE_PANELS):
        centre = half * (2 * panel + 1)
        for node, weight in zip(nodes, weights, strict=True):
            sine = math.sin(centre + half * node)
            terms.append(weight * half * math.exp(square * sine / (1.0 + sine)))
    return math.fsum(terms)


def _bartlett(rho, k):
    """Bartlett's w_kk = sum_{m>=1} (rho_{m+k} + rho_{m-k} - 2 rho_k rho_m)**2 for
    m = 1 .. len(rho) - k - 1 (every m whose rho_{m+k} ``rho`` holds), with math.fsum (for
    k = 1 and ``BARTLETT_LAGS`` lags, the terms of :func:`_slope_truth`, in its order)."""
    terms = [(rho[m + k] + rho[abs(m - k)] - 2.0 * rho[k] * rho[m]) ** 2 for m in range(1, len(rho) - k)]
    return math.fsum(terms)


@functools.lru_cache(maxsize=256)
def _large_n(process, family, parameter):
    """(value, asymptotic variance, source) of a built-in statistic of a stationary
    Gaussian process with ``process.variance()`` = gamma_0 and
    ``process.autocorrelations(lags)`` = rho_0..rho_{lags + 1}: the truth at every n but
    the 1/n. Not the mean or the slope (their published forms are the processes' own)."""
    gamma0 = process.variance()
    sigma = math.sqrt(gamma0)
    lags = f"|k| <= {BARTLETT_LAGS}"
    if family == "acf":
        # m = 1 .. k + BARTLETT_LAGS - 1, so m - k reaches BARTLETT_LAGS - 1 lags past the
        # peak at m = k (for k = 1, _slope_truth's 2000 terms)
        rho = process.autocorrelations(BARTLETT_LAGS + 2 * parameter - 2)
        source = f"closed form: rho_{parameter}; SE sqrt(w_kk / n), Bartlett's formula for the lag-{parameter}"
        return float(rho[parameter]), _bartlett(rho, parameter), source + " autocorrelation"
    rho = process.autocorrelations(BARTLETT_LAGS)[1 : BARTLETT_LAGS + 1]
    if family in ("var", "std"):
        variance_of_var = 2.0 * gamma0 * gamma0 * math.fsum([1.0, *(2.0 * r * r for r in rho)])
        if family == "var":
            source = "closed form (Gaussian): var gamma_0; SE sqrt(2 sum_k gamma_k**2 / n)"
            return gamma0, variance_of_var, f"{source}, {lags}"
        source = "closed form (Gaussian): std sqrt(gamma_0); SE sqrt(2 sum_k gamma_k**2 / n) / (2 sigma) (delta method)"
        return sigma, variance_of_var / (4.0 * gamma0), f"{source}, {lags}"
    if family == "median":
        total = math.fsum([math.pi / 2.0, *(2.0 * math.asin(r) for r in rho)])
        source = "closed form (Gaussian): median 0; SE sigma sqrt(sum_k arcsin(rho_k) / n)"
        return 0.0, gamma0 * total, f"{source}, {lags}"
    # quantile:q
    z = NormalDist().inv_cdf(parameter)
    density = NormalDist().pdf(z)
    total = math.fsum(
        [
            parameter * (1.0 - parameter) / (density * density),
            *(2.0 * _scaled_orthant_excess(z, r) for r in rho if abs(r) >= _NEGLIGIBLE_RHO),
        ]
    )
    source = (
        "closed form (Gaussian): quantile sigma z_q; SE sigma sqrt(sum_k [Phi2(z_q, z_q; rho_k) - q**2] "
        "/ phi(z_q)**2 / n), Phi2 - q**2 by Plackett's integral (Gauss-Legendre)"
    )
    return sigma * z, gamma0 * total, f"{source}, {lags}"


def _gaussian_truth(process, n, statistic):
    """The closed-form Truth of a parsed statistic other than the mean and the slope."""
    value, variance, source = _large_n(process, statistic.family, statistic.parameter)
    return Truth(value, math.sqrt(variance / series_length(n)), source)


def _check_true_se(value):
    if value not in TRUE_SE:
        raise InvalidParameterError(
            ErrorCode.DATA_SHAPE,
            "true_se",
            f"must be one of {', '.join(map(repr, TRUE_SE))}, got {value!r}",
            "pass true_se='large_n' (the default) or 'finite_n'",
        )


def _dyadic(values):
    """(integers, scale) with ``values[i] == integers[i] / 2**scale`` exactly.

    A finite float is a dyadic rational, so sums and products of these integers are exact:
    the finite-n variances below round once, at their final division (Python's int / int
    is correctly rounded), whatever the cancellation between their terms."""
    ratios = [float(value).as_integer_ratio() for value in values]
    scale = max(denominator.bit_length() - 1 for _, denominator in ratios)
    return [numerator << (scale - denominator.bit_length() + 1) for numerator, denominator in ratios], scale


def _checked_autocorrelations(variance, autocorrelations):
    """``autocorrelations`` as a list of floats rho_0..rho_{n-1}, checked with ``variance``."""
    rho = [float(value) for value in autocorrelations]
    if not rho or rho[0] != 1.0 or not all(math.isfinite(value) for value in rho):
        raise InvalidParameterError(
            ErrorCode.DATA_SHAPE,
            "autocorrelations",
            "must be the finite rho_0 .. rho_{n-1} of a stationary series, rho_0 = 1",
            "pass process.autocorrelations(n - 2)[:n]",
        )
    _check_sd(variance, "variance")
    return rho


def finite_n_variance_of_mean(variance: float, autocorrelations: Sequence[float]) -> float:
    """Exact variance of the sample mean of n consecutive values of a stationary series.

    Var(xbar) = (1/n) [gamma_0 + 2 sum_{k=1}^{n-1} (1 - k/n) gamma_k], gamma_k = ``variance``
    rho_k, n = ``len(autocorrelations)``. No distribution is assumed (only stationarity).
    The sum is exact (:func:`_dyadic`) and rounded once, so the bits are the same on
    every machine.

    Parameters
    ----------
    variance : float
        gamma_0, the process variance (squared data units), finite and > 0.
    autocorrelations : sequence of float
        rho_0 .. rho_{n-1} (rho_0 = 1); its length is the series length n.

    Returns
    -------
    float
        Var(xbar), in squared data units (its square root is the mean's true SE at n).

    Raises
    ------
    bootmark.reference.errors.InvalidParameterError
        An empty sequence, rho_0 other than 1, a non-finite value, or ``variance`` not a
        finite number > 0.

    See Also
    --------
    finite_n_variance_of_var : The same for the sample variance.

    Examples
    --------
    >>> finite_n_variance_of_mean(2.0, [1.0, 0.0, 0.0, 0.0])  # i.i.d.: gamma_0 / n
    0.5
    >>> finite_n_variance_of_mean(1.0, [1.0, 0.5])  # (1 + 2 (1/2) 0.5) / 2
    0.75
    """
    rho = _checked_autocorrelations(variance, autocorrelations)
    n = len(rho)
    scaled, scale = _dyadic(rho)
    # n**2 Var(xbar) / gamma_0 = n + 2 sum_k (n - k) rho_k, times 2**scale: an integer
    weighted = n * scaled[0] + 2 * sum((n - k) * scaled[k] for k in range(1, n))
    numerator, denominator = float(variance).as_integer_ratio()
    return (numerator * weighted) / ((denominator * n * n) << scale)


def finite_n_variance_of_var(variance: float, autocorrelations: Sequence[float]) -> float:
    """Exact variance of the sample variance (divisor n) of n consecutive values of a
    stationary Gaussian series.

    s2 = x'Ax with A = (I - 11'/n)/n, so Var(s2) = 2 tr((A Sigma)**2) (a Gaussian quadratic
    form), Sigma the n x n Toeplitz matrix of gamma_|i-j| = ``variance`` rho_|i-j|. With
    c = Sigma 1, tr((A Sigma)**2) = [tr(Sigma**2) - 2 c'c/n + (1'c)**2/n**2] / n**2 and
    tr(Sigma**2) = n gamma_0**2 + 2 sum_{k=1}^{n-1} (n - k) gamma_k**2; c_i from prefix sums
    of rho, so O(n). Exact integer arithmetic (:func:`_dyadic`), rounded once: the three
    terms nearly cancel when the series is close to constant (phi near 1, small n).

    Parameters
    ----------
    variance : float
        gamma_0, the process variance (squared data units), finite and > 0.
    autocorrelations : sequence of float
        rho_0 .. rho_{n-1} (rho_0 = 1); its length is the series length n.

    Returns
    -------
    float
        Var(s2), in data units to the fourth power (its square root is the true SE of the
        statistic ``"var"`` at n). Gaussian series only: a fourth cumulant would add to it.

    Raises
    ------
    bootmark.reference.errors.InvalidParameterError
        As :func:`finite_n_variance_of_mean`.

    See Also
    --------
    finite_n_variance_of_mean : The same for the sample mean.

    Examples
    --------
    >>> finite_n_variance_of_var(1.0, [1.0] + [0.0] * 9)  # i.i.d.: 2 gamma_0**2 (n - 1) / n**2
    0.18
    >>> finite_n_variance_of_var(1.0, [1.0, 1.0, 1.0])  # a constant series: s2 = 0
    0.0
    """
    rho = _checked_autocorrelations(variance, autocorrelations)
    n = len(rho)
    scaled, scale = _dyadic(rho)
    # everything below is an integer, in units of 2**-scale (c) or 2**-(2 scale) (squares)
    square_trace = n * scaled[0] * scaled[0] + 2 * sum((n - k) * scaled[k] * scaled[k] for k in range(1, n))
    prefix = list(itertools.accumulate(scaled[1:], initial=0))  # prefix[m] = rho_1 + .. + rho_m
    # c_i = sum_j rho_|i-j|: rho_0, the i lags to the left, the n - 1 - i to the right
    column_sums = [scaled[0] + prefix[i] + prefix[n - 1 - i] for i in range(n)]
    total = sum(column_sums)
    # n**2 [tr(R**2) - 2 c'c/n + (1'c)**2/n**2], R = Sigma / gamma_0: an integer
    trace = n * n * square_trace - 2 * n * sum(c * c for c in column_sums) + total * total
    numerator, denominator = float(variance).as_integer_ratio()
    # Var(s2) = 2 gamma_0**2 trace / (n**4 2**(2 scale))
    return (2 * numerator * numerator * trace) / ((denominator * denominator * n**4) << (2 * scale))


@functools.lru_cache(maxsize=256)
def _finite_n(process, family, n):
    """The exact finite-n Truth of ``family`` (one of ``FINITE_N_FAMILIES``) at length n, from
    ``process.variance()`` and ``process.autocorrelations()`` (its own, as the large-n
    truths use)."""
    gamma0 = process.variance()
    rho = process.autocorrelations(n - 2)[:n]  # rho_0 .. rho_{n-1} (AR3 returns at least 4)
    if family == "mean":
        return Truth(
            0.0,
            math.sqrt(finite_n_variance_of_mean(gamma0, rho)),
            f"closed form: mean 0; SE exact at n = {n}: sqrt(Var(xbar)), "
            "Var(xbar) = (gamma_0 + 2 sum_{k=1}^{n-1} (1 - k/n) gamma_k) / n",
        )
    return Truth(
        gamma0,
        math.sqrt(finite_n_variance_of_var(gamma0, rho)),
        f"closed form (Gaussian): var gamma_0; SE exact at n = {n}: sqrt(2 tr((A Sigma)^2)), "
        "A = (I - 11'/n)/n, Sigma the n x n autocovariance matrix",
    )


def _finite_n_truth(process, n, statistic):
    """The exact finite-n Truth of a parsed statistic of ``FINITE_N_FAMILIES``."""
    return _finite_n(process, statistic.family, series_length(n))


def _families(true_se):
    """The statistic families a Gaussian process has a truth for, given its ``true_se``."""
    return FINITE_N_FAMILIES if true_se == "finite_n" else GAUSSIAN_FAMILIES


@dataclass(frozen=True)
class AR1:
    """AR(1) x_t = phi x_{t-1} + e_t, e_t ~ N(0, innovation_sd**2).

    Its truths are closed forms for every built-in statistic (``statistics``; the module
    docstring gives the formulas).

    Parameters
    ----------
    phi : float
        AR coefficient, -1 < phi < 1.
    innovation_sd : float, default 1.0
        Standard deviation of the Gaussian innovations e_t (data units), finite and > 0.
    burn_in : int, default 500
        Values drawn from x = 0 and dropped before the n kept.
    true_se : {"large_n", "finite_n"}, default "large_n"
        Which standard error :meth:`truth` gives: the large-n sqrt(asymptotic variance / n),
        or the exact one at n (the mean and var only; the module docstring's formulas).

    Raises
    ------
    bootmark.reference.errors.InvalidParameterError
        ``phi`` is not a number in (-1, 1), ``innovation_sd`` is not a finite number > 0,
        or ``true_se`` is neither ``"large_n"`` nor ``"finite_n"``.

    See Also
    --------
    make_process : A process by name, from a protocol's parameters.

    Examples
    --------
    >>> process = AR1(0.5)
    >>> x = process.sample(200, seed=1)
    >>> x.shape, x.dtype
    ((200,), dtype('float64'))
    >>> AR1(1.0)
    Traceback (most recent call last):
        ...
    bootmark.reference.errors.InvalidParameterError: phi: 1.0 is not stationary. Fix: pass |phi| < 1 [BM102]
    """

    phi: float
    innovation_sd: float = 1.0
    burn_in: int = 500
    true_se: str = "large_n"

    def __post_init__(self):
        if not (isinstance(self.phi, (int, float)) and -1.0 < self.phi < 1.0):
            raise InvalidParameterError(
                ErrorCode.DATA_SHAPE, "phi", f"{self.phi!r} is not stationary", "pass |phi| < 1"
            )
        _check_sd(self.innovation_sd, "innovation_sd")
        _check_true_se(self.true_se)

    @property
    def statistics(self) -> tuple[str, ...]:
        """The statistic families :meth:`truth` knows: every built-in one with the large-n
        SE, ``FINITE_N_FAMILIES`` with ``true_se="finite_n"``."""
        return _families(self.true_se)

    def sample(self, n: int, seed: int) -> np.ndarray:
        """``n`` observations drawn with ``numpy.random.default_rng(seed)``.

        Parameters
        ----------
        n : int
            Series length (observations).
        seed : int
            Seed of the numpy generator (>= 0).

        Returns
        -------
        numpy.ndarray
            float64 array of shape (n,), in data units.

        Examples
        --------
        >>> AR1(0.5).sample(5, seed=1).shape
        (5,)
        """
        return ar1(n, self.phi, innovation_sd=self.innovation_sd, burn_in=self.burn_in, seed=seed)

    def variance(self) -> float:
        """gamma_0 = innovation_sd**2 / (1 - phi**2), the process variance (squared data units).

        >>> AR1(0.5).variance()
        1.3333333333333333
        """
        return _ar_variance((self.phi,), self.innovation_sd)

    def autocorrelations(self, lags: int = BARTLETT_LAGS) -> np.ndarray:
        """rho_0..rho_{lags + 1} = phi**k (:func:`autocorrelations`).

        >>> AR1(0.5).autocorrelations(2)
        array([1.   , 0.5  , 0.25 , 0.125])
        """
        return autocorrelations((self.phi,), lags)

    def truth(self, n: int, statistic: str = "mean") -> Truth:
        """The closed-form :class:`Truth` of ``statistic`` at series length ``n``.

        Parameters
        ----------
        n : int
            Series length (observations).
        statistic : str, default "mean"
            A built-in statistic as a protocol writes it (:mod:`bootmark.studies.statistics`):
            the sample mean (true value 0; SE by :func:`ar1_mean_standard_error`), the OLS
            slope of x_t on (1, x_{t-1}) as ``"ar1_slope"`` or ``"ar_coef"`` (true value phi;
            SE by Bartlett's formula), or ``"median"``, ``"var"``, ``"std"``,
            ``"quantile:q"``, ``"acf:k"`` (the module docstring's formulas). With
            ``true_se="finite_n"``, ``"mean"`` or ``"var"`` only, with their exact SE at n.

        Returns
        -------
        Truth
            The true value and standard error, in data units.

        Raises
        ------
        bootmark.reference.errors.InvalidParameterError
            A statistic this process has no truth for.

        Examples
        --------
        >>> truth = AR1(0.5).truth(200, "mean")
        >>> truth.value, round(truth.standard_error, 6)
        (0.0, 0.141421)
        >>> AR1(0.5).truth(200, "ar1_slope").value
        0.5
        >>> truth = AR1(0.0).truth(200, "median")  # i.i.d.: SE sqrt(pi / 2) sigma / sqrt(n)
        >>> truth.value, round(truth.standard_error, 6), round(math.sqrt(math.pi / 2 / 200), 6)
        (0.0, 0.088623, 0.088623)
        >>> round(AR1(0.5).truth(200, "quantile:0.9").value, 6)
        1.479808
        >>> exact = AR1(0.7, true_se="finite_n").truth(100)
        >>> round(exact.standard_error, 6), "SE exact at n = 100" in exact.source
        (0.328726, True)
        >>> AR1(0.7, true_se="finite_n").truth(100, "median")
        Traceback (most recent call last):
            ...
        bootmark.reference.errors.InvalidParameterError: statistic: ar1 with true_se='finite_n' has no exact...
        """
        parsed = _checked_statistic(self, "ar1", statistic)
        if self.true_se == "finite_n":
            return _finite_n_truth(self, n, parsed)
        if parsed.family in _SLOPES:
            return _slope_truth(autocorrelations((self.phi,)), series_length(n))
        if parsed.family != "mean":
            return _gaussian_truth(self, n, parsed)
        return Truth(
            0.0,
            ar1_mean_standard_error(n, self.phi, self.innovation_sd),
            "closed form: mean 0; SE (sigma/sqrt(n)) sqrt((1+phi)/(1-phi)), sigma the process sd",
        )


@dataclass(frozen=True)
class AR3:
    """AR(3) x_t = phi1 x_{t-1} + phi2 x_{t-2} + phi3 x_{t-3} + e_t, e_t Gaussian.

    Its truths are closed forms for every built-in statistic (``statistics``; the module
    docstring gives the formulas).

    Parameters
    ----------
    phi1, phi2, phi3 : float
        AR coefficients; the AR polynomial must have all its roots outside the unit circle.
    innovation_sd : float, default 1.0
        Standard deviation of the Gaussian innovations (data units), finite and > 0.
    burn_in : int, default 500
        Values drawn from zero and dropped before the n kept.
    true_se : {"large_n", "finite_n"}, default "large_n"
        Which standard error :meth:`truth` gives: the large-n sqrt(asymptotic variance / n),
        or the exact one at n (the mean and var only; the module docstring's formulas).

    Raises
    ------
    bootmark.reference.errors.InvalidParameterError
        The coefficients are not stationary, ``innovation_sd`` is not a finite number > 0,
        or ``true_se`` is neither ``"large_n"`` nor ``"finite_n"``.

    Examples
    --------
    >>> process = AR3(0.5, -0.2, 0.1)
    >>> process.sample(50, seed=3).shape
    (50,)
    >>> round(process.truth(200).standard_error, 6)
    0.117851
    >>> round(process.truth(200, "acf:2").value, 6)
    0.052632
    """

    phi1: float
    phi2: float
    phi3: float
    innovation_sd: float = 1.0
    burn_in: int = 500
    true_se: str = "large_n"

    def __post_init__(self):
        _check_stationary_ar((self.phi1, self.phi2, self.phi3), "phi1, phi2, phi3")
        _check_sd(self.innovation_sd, "innovation_sd")
        _check_true_se(self.true_se)

    @property
    def statistics(self) -> tuple[str, ...]:
        """The statistic families :meth:`truth` knows: every built-in one with the large-n
        SE, ``FINITE_N_FAMILIES`` with ``true_se="finite_n"``."""
        return _families(self.true_se)

    def sample(self, n: int, seed: int) -> np.ndarray:
        """``n`` observations (float64, shape (n,)) drawn with ``numpy.random.default_rng(seed)``."""
        return arma_path(n, (self.phi1, self.phi2, self.phi3), (), self.innovation_sd, self.burn_in, seed)

    def variance(self) -> float:
        """gamma_0 = sd**2 / (1 - phi1 rho_1 - phi2 rho_2 - phi3 rho_3) (squared data units), exact
        Yule-Walker rounded once."""
        return _ar_variance((self.phi1, self.phi2, self.phi3), self.innovation_sd)

    def autocorrelations(self, lags: int = BARTLETT_LAGS) -> np.ndarray:
        """rho_0..rho_{lags + 1} (:func:`autocorrelations`)."""
        return autocorrelations((self.phi1, self.phi2, self.phi3), lags)

    def truth(self, n: int, statistic: str = "mean") -> Truth:
        """The closed-form :class:`Truth` of ``statistic`` at series length ``n``.

        Parameters
        ----------
        n : int
            Series length (observations).
        statistic : str, default "mean"
            A built-in statistic as a protocol writes it: the sample mean (SE sqrt(long-run
            variance / n)), the OLS AR(1) slope ``"ar1_slope"`` or ``"ar_coef"`` (true value
            rho_1; SE by Bartlett's formula), or ``"median"``, ``"var"``, ``"std"``,
            ``"quantile:q"``, ``"acf:k"`` (the module docstring's formulas). With
            ``true_se="finite_n"``, ``"mean"`` or ``"var"`` only, with their exact SE at n.

        Returns
        -------
        Truth
            The true value and standard error, in data units.

        Raises
        ------
        bootmark.reference.errors.InvalidParameterError
            A statistic this process has no truth for.
        """
        parsed = _checked_statistic(self, "ar3", statistic)
        if self.true_se == "finite_n":
            return _finite_n_truth(self, n, parsed)
        if parsed.family in _SLOPES:
            return _slope_truth(autocorrelations((self.phi1, self.phi2, self.phi3)), series_length(n))
        if parsed.family != "mean":
            return _gaussian_truth(self, n, parsed)
        long_run_sd = self.innovation_sd / abs(1.0 - self.phi1 - self.phi2 - self.phi3)
        return Truth(
            0.0,
            long_run_sd / math.sqrt(series_length(n)),
            "closed form: mean 0; SE sqrt(LRV/n), LRV = sd**2 / (1 - phi1 - phi2 - phi3)**2",
        )


@dataclass(frozen=True)
class ARMA11:
    """ARMA(1,1) x_t = phi x_{t-1} + e_t + theta e_{t-1}, e_t Gaussian.

    Its truths are closed forms for every built-in statistic (``statistics``; the module
    docstring gives the formulas), from gamma_0 = sd**2 (1 + 2 phi theta + theta**2) /
    (1 - phi**2), rho_1 = (1 + phi theta)(phi + theta) / (1 + 2 phi theta + theta**2) and
    rho_k = phi**(k-1) rho_1.

    Parameters
    ----------
    phi : float
        AR coefficient, |phi| < 1.
    theta : float
        MA coefficient.
    innovation_sd : float, default 1.0
        Standard deviation of the Gaussian innovations (data units), finite and > 0.
    burn_in : int, default 500
        Values drawn from zero and dropped before the n kept.
    true_se : {"large_n", "finite_n"}, default "large_n"
        Which standard error :meth:`truth` gives: the large-n sqrt(asymptotic variance / n),
        or the exact one at n (the mean and var only; the module docstring's formulas).

    Raises
    ------
    bootmark.reference.errors.InvalidParameterError
        ``phi`` is not stationary, ``innovation_sd`` is not a finite number > 0, or
        ``true_se`` is neither ``"large_n"`` nor ``"finite_n"``.

    Examples
    --------
    >>> process = ARMA11(0.5, 0.3)
    >>> round(process.truth(200).standard_error, 6)
    0.183848
    >>> round(process.truth(200, "ar1_slope").value, 6)  # rho_1
    0.661871
    >>> process.truth(200, "quantile:1.5")
    Traceback (most recent call last):
        ...
    bootmark.reference.errors.InvalidParameterError: statistic: quantile:1.5: q must lie in (0, 1)... [BM303]
    >>> process.truth(200, "pkg.mod:fn")
    Traceback (most recent call last):
        ...
    bootmark.reference.errors.InvalidParameterError: statistic: arma11 has no truth for 'pkg.mod:fn'. Fix: ... [BM303]
    """

    phi: float
    theta: float
    innovation_sd: float = 1.0
    burn_in: int = 500
    true_se: str = "large_n"

    def __post_init__(self):
        _check_stationary_ar((self.phi,), "phi")
        _check_sd(self.innovation_sd, "innovation_sd")
        _check_true_se(self.true_se)

    @property
    def statistics(self) -> tuple[str, ...]:
        """The statistic families :meth:`truth` knows: every built-in one with the large-n
        SE, ``FINITE_N_FAMILIES`` with ``true_se="finite_n"``."""
        return _families(self.true_se)

    def sample(self, n: int, seed: int) -> np.ndarray:
        """``n`` observations (float64, shape (n,)) drawn with ``numpy.random.default_rng(seed)``."""
        return arma_path(n, (self.phi,), (self.theta,), self.innovation_sd, self.burn_in, seed)

    def _moments(self):
        phi, theta = Fraction(self.phi), Fraction(self.theta)
        spread = 1 + 2 * phi * theta + theta * theta
        return Fraction(self.innovation_sd) ** 2 * spread / (1 - phi * phi), (1 + phi * theta) * (phi + theta) / spread

    def variance(self) -> float:
        """gamma_0 = sd**2 (1 + 2 phi theta + theta**2) / (1 - phi**2) (squared data units),
        exact, rounded once.

        >>> round(ARMA11(0.5, 0.3).variance(), 12)
        1.853333333333
        """
        return float(self._moments()[0])

    def autocorrelations(self, lags: int = BARTLETT_LAGS) -> np.ndarray:
        """rho_0..rho_{lags + 1}: 1, rho_1 (exact, rounded once), then rho_k = phi rho_{k-1}.

        >>> ARMA11(0.5, 0.3).autocorrelations(2).round(6)
        array([1.      , 0.661871, 0.330935, 0.165468])
        """
        rho = [1.0, float(self._moments()[1])]
        for _ in range(2, lags + 2):
            rho.append(self.phi * rho[-1])
        return np.asarray(rho)

    def truth(self, n: int, statistic: str = "mean") -> Truth:
        """The closed-form :class:`Truth` of ``statistic`` at series length ``n``.

        Parameters
        ----------
        n : int
            Series length (observations).
        statistic : str, default "mean"
            A built-in statistic as a protocol writes it: the sample mean (true value 0;
            SE sqrt(long-run variance / n)), the OLS AR(1) slope ``"ar1_slope"`` or
            ``"ar_coef"`` (true value rho_1; SE by Bartlett's formula), or ``"median"``,
            ``"var"``, ``"std"``, ``"quantile:q"``, ``"acf:k"`` (the module docstring's
            formulas). With ``true_se="finite_n"``, ``"mean"`` or ``"var"`` only, with their
            exact SE at n.

        Returns
        -------
        Truth
            The true value and standard error, in data units.

        Raises
        ------
        bootmark.reference.errors.InvalidParameterError
            A statistic that is not a built-in one, or a malformed built-in name.
        """
        parsed = _checked_statistic(self, "arma11", statistic)
        if self.true_se == "finite_n":
            return _finite_n_truth(self, n, parsed)
        if parsed.family in _SLOPES:
            truth = _slope_truth(self.autocorrelations(), series_length(n))
            return replace(truth, source=truth.source.replace("by Yule-Walker", "closed form for ARMA(1,1)"))
        if parsed.family != "mean":
            return _gaussian_truth(self, n, parsed)
        long_run_sd = self.innovation_sd * abs(1.0 + self.theta) / (1.0 - self.phi)
        return Truth(
            0.0,
            long_run_sd / math.sqrt(series_length(n)),
            "closed form: mean 0; SE sqrt(LRV/n), LRV = sd**2 (1 + theta)**2 / (1 - phi)**2",
        )


@dataclass(frozen=True)
class HeteroskedasticAR1:
    """AR(1) with a variance step (docs/published-figures.md, S2).

    x_0 = z_0 / sqrt(1 - phi**2); x_t = phi x_{t-1} + s_t e_t for t = 1..n - 1, with
    s_t = ``first_sd`` in the first half of the shocks and ``second_sd`` in the second.
    The statistic is the OLS slope of x_t on (1, x_{t-1}); its true SE has no closed
    form and comes from ``studies.truth`` (a cached Monte Carlo receipt): the SD of the
    slope over paths of length n, a finite-n SE already. So :func:`make_process` accepts
    ``true_se="finite_n"`` for it (what it is) and refuses ``"large_n"`` (it has none).

    Parameters
    ----------
    phi : float, default 0.5
        AR coefficient, |phi| < 1.
    first_sd, second_sd : float, default 1.0 and 3.0
        Shock standard deviations (data units) in the first and second half of the
        shocks; finite and > 0.

    Raises
    ------
    bootmark.reference.errors.InvalidParameterError
        ``phi`` is not stationary, or a standard deviation is not a finite number > 0.

    See Also
    --------
    bootmark.studies.truth.truth_of : Reads this process's truth from its receipt.
    bootmark.studies.truth.ensure_truths : Computes and caches that receipt.

    Examples
    --------
    >>> process = HeteroskedasticAR1()
    >>> process.sample(100, seed=7).shape
    (100,)
    >>> process.truth(200)
    Traceback (most recent call last):
        ...
    bootmark.reference.errors.InvalidParameterError: statistic: the truth of heteroskedastic_ar1 at n = 200 is...
    """

    phi: float = 0.5
    first_sd: float = 1.0
    second_sd: float = 3.0
    statistics = ("ar1_slope", "ar_coef")  # one statistic, two names

    def __post_init__(self):
        _check_stationary_ar((self.phi,), "phi")
        _check_sd(self.first_sd, "first_sd")
        _check_sd(self.second_sd, "second_sd")

    def shock_scales(self, n: int) -> np.ndarray:
        """The n - 1 shock standard deviations s_1..s_{n-1}.

        Parameters
        ----------
        n : int
            Series length (observations).

        Returns
        -------
        numpy.ndarray
            float64 array of shape (n - 1,), in data units: ``first_sd`` for the first
            (n - 1) // 2 shocks, ``second_sd`` after.

        Examples
        --------
        >>> HeteroskedasticAR1().shock_scales(6)
        array([1., 1., 3., 3., 3.])
        """
        steps = series_length(n) - 1
        return np.where(np.arange(steps) < steps // 2, self.first_sd, self.second_sd)

    def sample_many(self, n: int, draws: int, generator: np.random.Generator) -> np.ndarray:
        """(draws, n) paths from one numpy Generator, vectorised across draws.

        Parameters
        ----------
        n : int
            Series length (observations).
        draws : int
            Number of paths.
        generator : numpy.random.Generator
            The generator the paths are drawn from (advanced in place).

        Returns
        -------
        numpy.ndarray
            float64 array of shape (draws, n), in data units.

        Examples
        --------
        >>> import numpy as np
        >>> HeteroskedasticAR1().sample_many(10, 3, np.random.default_rng(0)).shape
        (3, 10)
        """
        scales = self.shock_scales(n)
        paths = np.empty((draws, n))
        paths[:, 0] = generator.standard_normal(draws) / math.sqrt(1.0 - self.phi**2)
        shocks = generator.standard_normal((n - 1, draws))
        for t in range(1, n):
            paths[:, t] = self.phi * paths[:, t - 1] + scales[t - 1] * shocks[t - 1]
        return paths

    def sample(self, n: int, seed: int) -> np.ndarray:
        """``n`` observations (float64, shape (n,)): one path of :meth:`sample_many` from
        ``numpy.random.default_rng(seed)``."""
        return self.sample_many(n, 1, np.random.default_rng(seed))[0]

    # No closed form: the truth is a Monte Carlo estimate, cached as a truth receipt by an
    # explicit step (studies.truth.ensure_truths, `bootmark study truth`), never here.
    monte_carlo_truth = True

    def truth(self, n: int, statistic: str = "ar1_slope") -> Truth:
        """Refuse: this process's truth is a Monte Carlo estimate (a truth receipt). Ask
        :func:`bootmark.studies.truth.truth_of` for it; this method computes nothing.

        Parameters
        ----------
        n : int
            Series length (observations), named in the message.
        statistic : {"ar1_slope"}, default "ar1_slope"
            The statistic asked for.

        Returns
        -------
        Truth
            Never: the method always raises.

        Raises
        ------
        bootmark.reference.errors.InvalidParameterError
            Always: for ``"ar1_slope"`` the error says to call
            :func:`bootmark.studies.truth.truth_of`; any other statistic has no truth.
        """
        if statistic not in ("ar1_slope", "ar_coef"):
            raise InvalidParameterError(
                ErrorCode.STATISTIC,
                "statistic",
                f"heteroskedastic_ar1 has no truth for {statistic!r}",
                "use statistic = 'ar1_slope'",
            )
        raise InvalidParameterError(
            ErrorCode.STATISTIC,
            "statistic",
            f"the truth of heteroskedastic_ar1 at n = {n} is a Monte Carlo estimate kept in a truth receipt",
            "call bootmark.studies.truth.truth_of(process, n, statistic), after `bootmark study truth <STUDY>`",
        )


def _ar1_filter(phi: float, shocks: np.ndarray, burn_in: int) -> np.ndarray:
    """x_t = phi x_{t-1} + shocks_t from x = 0, the first ``burn_in`` values dropped."""
    path = np.empty(shocks.shape[0])
    value = 0.0
    for t, shock in enumerate(shocks.tolist()):
        value = phi * value + shock
        path[t] = value
    return path[burn_in:]


def _check_ar1_fields(process):
    if not (isinstance(process.phi, (int, float)) and -1.0 < process.phi < 1.0):
        raise InvalidParameterError(ErrorCode.DATA_SHAPE, "phi", f"{process.phi!r} is not stationary", "pass |phi| < 1")
    if not (isinstance(process.burn_in, int) and process.burn_in >= 0):
        raise InvalidParameterError(ErrorCode.DATA_SHAPE, "burn_in", f"{process.burn_in!r}", "pass an int >= 0")


def _mean_truth_of_shocks(process, n, statistic, innovation_sd, shocks):
    """The mean's truth of an AR(1) whose shocks are uncorrelated with variance
    ``innovation_sd**2`` (any law): its autocovariances are the Gaussian AR(1)'s, and
    so the mean's SE, large-n or exact at n (``process.true_se``)."""
    _checked_statistic(process, type(process).__name__, statistic)
    truth = AR1(process.phi, innovation_sd, process.burn_in, process.true_se).truth(n, "mean")
    return replace(truth, source=f"{truth.source}; {shocks} shocks: the mean's SE depends on their variance alone")


@dataclass(frozen=True)
class StudentTAR1:
    """AR(1) x_t = phi x_{t-1} + e_t with Student-t shocks: e_t = innovation_sd
    sqrt((df - 2) / df) t_df, so Var(e_t) = innovation_sd**2 (heavy tails, fourth moment
    infinite for df <= 4). A process a forecaster meets: Gaussian intervals miss its tails.

    Its only truth is the mean's (0; the SE of :class:`AR1` with the same innovation_sd,
    which depends on the shocks' variance alone); ``true_se`` as for :class:`AR1`.

    Parameters
    ----------
    phi : float, default 0.7
        AR coefficient, -1 < phi < 1.
    df : float, default 3.0
        Degrees of freedom of the t shocks, > 2 (a finite variance).
    innovation_sd : float, default 1.0
        Standard deviation of the shocks (data units), finite and > 0.
    burn_in : int, default 500
        Values drawn from x = 0 and dropped before the n kept.
    true_se : {"large_n", "finite_n"}, default "large_n"
        Which SE :meth:`truth` gives for the mean.

    Examples
    --------
    >>> x = StudentTAR1().sample(300, seed=1)
    >>> x.shape
    (300,)
    >>> StudentTAR1(df=2.0)
    Traceback (most recent call last):
        ...
    bootmark.reference.errors.InvalidParameterError: df: 2.0 gives no finite variance. Fix: pass df > 2 [BM102]
    """

    phi: float = 0.7
    df: float = 3.0
    innovation_sd: float = 1.0
    burn_in: int = 500
    true_se: str = "large_n"
    statistics = ("mean",)

    def __post_init__(self):
        _check_ar1_fields(self)
        if not (isinstance(self.df, (int, float)) and math.isfinite(self.df) and self.df > 2.0):
            raise InvalidParameterError(
                ErrorCode.DATA_SHAPE, "df", f"{self.df!r} gives no finite variance", "pass df > 2"
            )
        _check_sd(self.innovation_sd, "innovation_sd")
        _check_true_se(self.true_se)

    def sample(self, n: int, seed: int) -> np.ndarray:
        """``n`` observations (float64) drawn with ``numpy.random.default_rng(seed)``."""
        n = series_length(n)
        scale = self.innovation_sd * math.sqrt((self.df - 2.0) / self.df)
        shocks = np.random.default_rng(seed).standard_t(self.df, n + self.burn_in) * scale
        return _ar1_filter(self.phi, shocks, self.burn_in)

    def truth(self, n: int, statistic: str = "mean") -> Truth:
        """The mean's :class:`Truth` at series length ``n`` (any other statistic: a typed error)."""
        return _mean_truth_of_shocks(self, n, statistic, self.innovation_sd, f"Student-t({self.df:g})")


@dataclass(frozen=True)
class GarchAR1:
    """AR(1) x_t = phi x_{t-1} + e_t with GARCH(1,1) shocks: e_t = s_t z_t, z_t ~ N(0, 1),
    s_t**2 = omega + alpha e_{t-1}**2 + beta s_{t-1}**2 (volatility clusters: a forecaster's
    interval should widen after a shock). The shocks are uncorrelated with unconditional
    variance omega / (1 - alpha - beta).

    Its only truth is the mean's (0; the SE of :class:`AR1` with that variance);
    ``true_se`` as for :class:`AR1`.

    Parameters
    ----------
    phi : float, default 0.7
        AR coefficient, -1 < phi < 1.
    omega, alpha, beta : float, default 0.1, 0.1, 0.8
        GARCH parameters: omega > 0, alpha >= 0, beta >= 0, alpha + beta < 1.
    burn_in : int, default 500
        Values drawn (from x = 0 and s**2 at its unconditional value) and dropped.
    true_se : {"large_n", "finite_n"}, default "large_n"
        Which SE :meth:`truth` gives for the mean.

    Examples
    --------
    >>> GarchAR1().unconditional_sd()
    1.0
    >>> GarchAR1(alpha=0.3, beta=0.7)
    Traceback (most recent call last):
        ...
    bootmark.reference.errors.InvalidParameterError: alpha + beta: 1.0 is not stationary. Fix: pass omega > 0, ...
    """

    phi: float = 0.7
    omega: float = 0.1
    alpha: float = 0.1
    beta: float = 0.8
    burn_in: int = 500
    true_se: str = "large_n"
    statistics = ("mean",)

    def __post_init__(self):
        _check_ar1_fields(self)
        numbers = (self.omega, self.alpha, self.beta)
        if not all(isinstance(value, (int, float)) and math.isfinite(value) for value in numbers) or not (
            self.omega > 0.0 and self.alpha >= 0.0 and self.beta >= 0.0 and self.alpha + self.beta < 1.0
        ):
            raise InvalidParameterError(
                ErrorCode.DATA_SHAPE,
                "alpha + beta",
                f"{self.alpha + self.beta!r} is not stationary",
                "pass omega > 0, alpha >= 0, beta >= 0 and alpha + beta < 1",
            )
        _check_true_se(self.true_se)

    def unconditional_sd(self) -> float:
        """sqrt(omega / (1 - alpha - beta)), the shocks' standard deviation (data units)."""
        return math.sqrt(self.omega / (1.0 - self.alpha - self.beta))

    def sample(self, n: int, seed: int) -> np.ndarray:
        """``n`` observations (float64) drawn with ``numpy.random.default_rng(seed)``."""
        n = series_length(n)
        normals = np.random.default_rng(seed).standard_normal(n + self.burn_in).tolist()
        shocks = np.empty(len(normals))
        variance = self.unconditional_sd() ** 2
        for t, z in enumerate(normals):
            shock = math.sqrt(variance) * z
            shocks[t] = shock
            variance = self.omega + self.alpha * shock * shock + self.beta * variance
        return _ar1_filter(self.phi, shocks, self.burn_in)

    def truth(self, n: int, statistic: str = "mean") -> Truth:
        """The mean's :class:`Truth` at series length ``n`` (any other statistic: a typed error)."""
        return _mean_truth_of_shocks(self, n, statistic, self.unconditional_sd(), "GARCH(1,1)")


@dataclass(frozen=True)
class LevelShiftAR1:
    """A Gaussian AR(1) whose level moves by ``shift`` from position floor(at * n) on, of
    the n values drawn: a break a forecaster meets (a history that ends after it, or
    a future that starts after it). With ``at`` in (0, 1) the break lies inside the path.

    It has no truth for any statistic (its mean is not one number): a process for
    forecast studies, whose truth is the path's own continuation.

    Parameters
    ----------
    phi : float, default 0.7
        AR coefficient, -1 < phi < 1.
    innovation_sd : float, default 1.0
        Standard deviation of the Gaussian shocks (data units).
    shift : float, default 3.0
        The level's move (data units).
    at : float, default 0.8
        Where the move happens, as a fraction of the values drawn, 0 <= at <= 1.
    burn_in : int, default 500
        Values drawn from x = 0 and dropped before the n kept.

    Examples
    --------
    >>> x = LevelShiftAR1(phi=0.0, innovation_sd=1e-9, shift=2.0, at=0.5).sample(4, seed=1)
    >>> (x > 1.0).tolist()
    [False, False, True, True]
    """

    phi: float = 0.7
    innovation_sd: float = 1.0
    shift: float = 3.0
    at: float = 0.8
    burn_in: int = 500
    statistics = ()

    def __post_init__(self):
        _check_ar1_fields(self)
        _check_sd(self.innovation_sd, "innovation_sd")
        if not (isinstance(self.shift, (int, float)) and math.isfinite(self.shift)):
            raise InvalidParameterError(ErrorCode.DATA_SHAPE, "shift", f"{self.shift!r}", "pass a finite number")
        if not (isinstance(self.at, (int, float)) and 0.0 <= self.at <= 1.0):
            raise InvalidParameterError(ErrorCode.DATA_SHAPE, "at", f"{self.at!r}", "pass 0 <= at <= 1")

    def sample(self, n: int, seed: int) -> np.ndarray:
        """``n`` observations (float64) drawn with ``numpy.random.default_rng(seed)``."""
        n = series_length(n)
        shocks = np.random.default_rng(seed).standard_normal(n + self.burn_in) * self.innovation_sd
        path = _ar1_filter(self.phi, shocks, self.burn_in)
        path[math.floor(self.at * n) :] += self.shift
        return path

    def truth(self, n: int, statistic: str = "mean") -> Truth:
        """No statistic has a truth here (a typed error naming the process)."""
        _checked_statistic(self, "level_shift_ar1", statistic)
        raise AssertionError("unreachable: statistics is empty")  # pragma: no cover


PROCESSES = MappingProxyType(
    {
        "ar1": AR1,
        "ar3": AR3,
        "arma11": ARMA11,
        "heteroskedastic_ar1": HeteroskedasticAR1,
        "student_t_ar1": StudentTAR1,
        "garch_ar1": GarchAR1,
        "level_shift_ar1": LevelShiftAR1,
    }
)


def make_process(
    name: str, parameters: Mapping[str, Any], true_se: str | None = None
) -> AR1 | AR3 | ARMA11 | HeteroskedasticAR1:
    """The process ``name`` (a key of PROCESSES) built from a dict of parameters.

    Parameters
    ----------
    name : str
        A key of :data:`PROCESSES`: ``"ar1"``, ``"ar3"``, ``"arma11"`` or
        ``"heteroskedastic_ar1"``.
    parameters : mapping of str to float or int
        The process's fields, by name (a protocol's ``[dgp] parameters``), without
        ``true_se``.
    true_se : {None, "large_n", "finite_n"}, default None
        A protocol's ``[dgp] true_se``: which SE the closed-form truths give (see
        :class:`AR1`). None (the key absent) builds the process as before the key existed:
        the large-n SE for ``ar1``, ``ar3`` and ``arma11``. ``heteroskedastic_ar1``, whose
        Monte Carlo SE is already the SE at n, takes ``"finite_n"`` (it changes nothing)
        and refuses ``"large_n"``.

    Returns
    -------
    AR1 or AR3 or ARMA11 or HeteroskedasticAR1
        The process.

    Raises
    ------
    bootmark.reference.errors.InvalidParameterError
        An unknown ``name``, a field the process does not have or lacks (``true_se`` in
        ``parameters`` too), a ``true_se`` the process cannot give, or the process's own
        refusal of a value (e.g. a non-stationary coefficient).

    Examples
    --------
    >>> make_process("ar1", {"phi": 0.5})
    AR1(phi=0.5, innovation_sd=1.0, burn_in=500, true_se='large_n')
    >>> make_process("ar1", {"phi": 0.5}, true_se="finite_n").statistics
    ('mean', 'var')
    >>> make_process("ar2", {})
    Traceback (most recent call last):
        ...
    bootmark.reference.errors.InvalidParameterError: dgp.name: unknown process 'ar2'. Fix: use one of ...
    >>> make_process("heteroskedastic_ar1", {}, true_se="large_n")
    Traceback (most recent call last):
        ...
    bootmark.reference.errors.InvalidParameterError: dgp.true_se: heteroskedastic_ar1 has no large-n SE...
    """
    if name not in PROCESSES:
        raise InvalidParameterError(
            ErrorCode.DATA_SHAPE, "dgp.name", f"unknown process {name!r}", f"use one of {', '.join(PROCESSES)}"
        )
    if "true_se" in parameters:  # one spelling only: the protocol's [dgp] true_se, checked with the statistic
        raise InvalidParameterError(
            ErrorCode.DATA_SHAPE, "dgp.parameters", "true_se is not a process parameter", "set [dgp] true_se instead"
        )
    if true_se is not None and true_se not in TRUE_SE:
        raise InvalidParameterError(
            ErrorCode.DATA_SHAPE,
            "dgp.true_se",
            f"must be one of {', '.join(map(repr, TRUE_SE))}, got {true_se!r}",
            "use 'large_n' (the default) or 'finite_n'",
        )
    monte_carlo = getattr(PROCESSES[name], "monte_carlo_truth", False)
    if monte_carlo and true_se == "large_n":
        raise InvalidParameterError(
            ErrorCode.DATA_SHAPE,
            "dgp.true_se",
            f"{name} has no large-n SE: its SE is a Monte Carlo estimate at each n, a finite-n SE already",
            "use true_se = 'finite_n', or leave true_se out",
        )
    # None (and finite_n for a Monte Carlo process) builds the process exactly as before true_se existed
    chosen = {} if true_se is None or monte_carlo else {"true_se": true_se}
    try:
        return PROCESSES[name](**parameters, **chosen)
    except TypeError as error:
        raise InvalidParameterError(
            ErrorCode.DATA_SHAPE,
            "dgp.parameters",
            f"{name}: {error}",
            f"see the fields of studies.dgp.{PROCESSES[name].__name__}",
        ) from None
