"""Data-generating processes with a known truth.

Series are drawn with numpy's PCG64 (``numpy.random.default_rng(seed)``), the
generator the published figures of docs/published-figures.md were made with; the bootstrap
streams are bootmark's own.

Each process is a frozen dataclass with

* ``sample(n, seed)``: a float64 array of n observations;
* ``truth(n, statistic)``: a :class:`Truth` for a study's statistic, ``"mean"`` (the
  sample mean) or ``"ar1_slope"`` (the OLS slope of x_t on (1, x_{t-1})), by closed form
  where one exists; :class:`HeteroskedasticAR1` has none and gets its truth from a
  cached Monte Carlo receipt (``studies/truth.py``). A statistic a process has no truth
  for raises a typed error.

Stationary processes start from zero and drop ``burn_in`` values; the closed-form
standard errors are the large-n ones, sqrt(long-run variance / n).

Examples
--------
>>> from bootmark.studies.dgp import AR1
>>> process = AR1(0.5)
>>> process.sample(200, seed=1).shape
(200,)
>>> round(process.truth(200, "mean").standard_error, 6)
0.141421
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from bootmark.reference.errors import ErrorCode, InvalidParameterError
from bootmark.simulate import ar1, arma_path, series_length

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = [
    "AR1",
    "AR3",
    "ARMA11",
    "PROCESSES",
    "HeteroskedasticAR1",
    "Truth",
    "ar1",
    "ar1_mean_standard_error",
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


def _only_mean(statistic, process):
    if statistic != "mean":
        raise InvalidParameterError(
            ErrorCode.STATISTIC,
            "statistic",
            f"{process} has no truth for {statistic!r}",
            "use statistic = 'mean'" + (" or 'ar1_slope'" if process in ("ar1", "ar3") else ""),
        )


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


def autocorrelations(phi: Sequence[float], lags: int = BARTLETT_LAGS) -> np.ndarray:
    """rho_0..rho_lags of a stationary AR(p): Yule-Walker for rho_1..rho_p, then the recursion.

    >>> autocorrelations((0.5,), lags=3)
    array([1.    , 0.5   , 0.25  , 0.125 , 0.0625])
    """
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
    rho = [1.0, *(float(value) for value in _solve_exactly(system, right))]
    for k in range(p + 1, lags + 2):
        rho.append(sum(phi[j] * rho[k - 1 - j] for j in range(p)))
    return np.asarray(rho)


def _slope_truth(rho, n):
    """Truth of the OLS AR(1) slope: its limit rho_1 and Bartlett's large-n SE of the lag-1
    autocorrelation, sqrt(sum_k (rho_{k+1} + rho_{k-1} - 2 rho_1 rho_k)**2 / n)."""
    terms = [(rho[k + 1] + rho[k - 1] - 2.0 * rho[1] * rho[k]) ** 2 for k in range(1, len(rho) - 1)]
    return Truth(
        float(rho[1]),
        math.sqrt(math.fsum(terms) / n),
        "closed form: rho_1 by Yule-Walker; SE by Bartlett's formula for the lag-1 autocorrelation",
    )


@dataclass(frozen=True)
class AR1:
    """AR(1) x_t = phi x_{t-1} + e_t, e_t ~ N(0, innovation_sd**2); statistic: the mean (true value 0).

    Its truths are closed forms for ``"mean"`` and ``"ar1_slope"`` (``statistics``).

    Parameters
    ----------
    phi : float
        AR coefficient, -1 < phi < 1.
    innovation_sd : float, default 1.0
        Standard deviation of the Gaussian innovations e_t (data units), finite and > 0.
    burn_in : int, default 500
        Values drawn from x = 0 and dropped before the n kept.

    Raises
    ------
    bootmark.reference.errors.InvalidParameterError
        ``phi`` is not a number in (-1, 1), or ``innovation_sd`` is not a finite number
        > 0.

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
    statistics = ("mean", "ar1_slope")  # those truth() knows

    def __post_init__(self):
        if not (isinstance(self.phi, (int, float)) and -1.0 < self.phi < 1.0):
            raise InvalidParameterError(
                ErrorCode.DATA_SHAPE, "phi", f"{self.phi!r} is not stationary", "pass |phi| < 1"
            )
        _check_sd(self.innovation_sd, "innovation_sd")

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

    def truth(self, n: int, statistic: str = "mean") -> Truth:
        """The closed-form :class:`Truth` of ``statistic`` at series length ``n``.

        Parameters
        ----------
        n : int
            Series length (observations).
        statistic : {"mean", "ar1_slope"}, default "mean"
            The sample mean (true value 0; SE by :func:`ar1_mean_standard_error`) or the
            OLS slope of x_t on (1, x_{t-1}) (true value phi; SE by Bartlett's formula).

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
        """
        if statistic == "ar1_slope":
            return _slope_truth(autocorrelations((self.phi,)), series_length(n))
        _only_mean(statistic, "ar1")
        return Truth(
            0.0,
            ar1_mean_standard_error(n, self.phi, self.innovation_sd),
            "closed form: mean 0; SE (sigma/sqrt(n)) sqrt((1+phi)/(1-phi)), sigma the process sd",
        )


@dataclass(frozen=True)
class AR3:
    """AR(3) x_t = phi1 x_{t-1} + phi2 x_{t-2} + phi3 x_{t-3} + e_t; statistic: the mean (0).

    Its truths are closed forms for ``"mean"`` and ``"ar1_slope"`` (``statistics``).

    Parameters
    ----------
    phi1, phi2, phi3 : float
        AR coefficients; the AR polynomial must have all its roots outside the unit circle.
    innovation_sd : float, default 1.0
        Standard deviation of the Gaussian innovations (data units), finite and > 0.
    burn_in : int, default 500
        Values drawn from zero and dropped before the n kept.

    Raises
    ------
    bootmark.reference.errors.InvalidParameterError
        The coefficients are not stationary, or ``innovation_sd`` is not a finite number
        > 0.

    Examples
    --------
    >>> process = AR3(0.5, -0.2, 0.1)
    >>> process.sample(50, seed=3).shape
    (50,)
    >>> round(process.truth(200).standard_error, 6)
    0.117851
    """

    phi1: float
    phi2: float
    phi3: float
    innovation_sd: float = 1.0
    burn_in: int = 500
    statistics = ("mean", "ar1_slope")

    def __post_init__(self):
        _check_stationary_ar((self.phi1, self.phi2, self.phi3), "phi1, phi2, phi3")
        _check_sd(self.innovation_sd, "innovation_sd")

    def sample(self, n: int, seed: int) -> np.ndarray:
        """``n`` observations (float64, shape (n,)) drawn with ``numpy.random.default_rng(seed)``."""
        return arma_path(n, (self.phi1, self.phi2, self.phi3), (), self.innovation_sd, self.burn_in, seed)

    def truth(self, n: int, statistic: str = "mean") -> Truth:
        """The closed-form :class:`Truth` of ``statistic`` at series length ``n``.

        Parameters
        ----------
        n : int
            Series length (observations).
        statistic : {"mean", "ar1_slope"}, default "mean"
            The sample mean (SE sqrt(long-run variance / n)) or the OLS AR(1) slope (true
            value rho_1; SE by Bartlett's formula).

        Returns
        -------
        Truth
            The true value and standard error, in data units.

        Raises
        ------
        bootmark.reference.errors.InvalidParameterError
            A statistic this process has no truth for.
        """
        if statistic == "ar1_slope":
            return _slope_truth(autocorrelations((self.phi1, self.phi2, self.phi3)), series_length(n))
        _only_mean(statistic, "ar3")
        long_run_sd = self.innovation_sd / abs(1.0 - self.phi1 - self.phi2 - self.phi3)
        return Truth(
            0.0,
            long_run_sd / math.sqrt(series_length(n)),
            "closed form: mean 0; SE sqrt(LRV/n), LRV = sd**2 / (1 - phi1 - phi2 - phi3)**2",
        )


@dataclass(frozen=True)
class ARMA11:
    """ARMA(1,1) x_t = phi x_{t-1} + e_t + theta e_{t-1}; statistic: the mean (0).

    Its only truth is the closed form for ``"mean"`` (``statistics``).

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

    Raises
    ------
    bootmark.reference.errors.InvalidParameterError
        ``phi`` is not stationary, or ``innovation_sd`` is not a finite number > 0.

    Examples
    --------
    >>> process = ARMA11(0.5, 0.3)
    >>> round(process.truth(200).standard_error, 6)
    0.183848
    >>> process.truth(200, "ar1_slope")
    Traceback (most recent call last):
        ...
    bootmark.reference.errors.InvalidParameterError: statistic: arma11 has no truth for 'ar1_slope'. Fix: ... [BM303]
    """

    phi: float
    theta: float
    innovation_sd: float = 1.0
    burn_in: int = 500
    statistics = ("mean",)

    def __post_init__(self):
        _check_stationary_ar((self.phi,), "phi")
        _check_sd(self.innovation_sd, "innovation_sd")

    def sample(self, n: int, seed: int) -> np.ndarray:
        """``n`` observations (float64, shape (n,)) drawn with ``numpy.random.default_rng(seed)``."""
        return arma_path(n, (self.phi,), (self.theta,), self.innovation_sd, self.burn_in, seed)

    def truth(self, n: int, statistic: str = "mean") -> Truth:
        """The closed-form :class:`Truth` of the mean at series length ``n``.

        Parameters
        ----------
        n : int
            Series length (observations).
        statistic : {"mean"}, default "mean"
            The sample mean (true value 0; SE sqrt(long-run variance / n)).

        Returns
        -------
        Truth
            The true value and standard error, in data units.

        Raises
        ------
        bootmark.reference.errors.InvalidParameterError
            Any statistic but ``"mean"``.
        """
        _only_mean(statistic, "arma11")
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
    form and comes from ``studies.truth`` (a cached Monte Carlo receipt).

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
    statistics = ("ar1_slope",)

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
        if statistic != "ar1_slope":
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


def ols_ar1_slope(paths: ArrayLike) -> np.ndarray | float:
    """OLS slope of x_t on (1, x_{t-1}) for each row of a (draws, n) or (n,) array.

    Parameters
    ----------
    paths : array_like
        One series of shape (n,), or draws series of shape (draws, n), n >= 3.

    Returns
    -------
    float or numpy.ndarray
        The slope (dimensionless): a float for one series (or a single row), an array of
        shape (draws,) otherwise.

    Examples
    --------
    >>> ols_ar1_slope([1.0, 0.5, 0.3, 0.1, 0.2])
    0.3966480446927375
    >>> ols_ar1_slope([[1.0, 0.5, 0.3, 0.1, 0.2], [0.0, 1.0, 0.0, 1.0, 0.0]])
    array([ 0.39664804, -1.        ])
    """
    paths = np.atleast_2d(np.asarray(paths, dtype=float))
    lagged, current = paths[:, :-1], paths[:, 1:]
    lagged_centred = lagged - lagged.mean(axis=1, keepdims=True)
    current_centred = current - current.mean(axis=1, keepdims=True)
    slopes = np.sum(lagged_centred * current_centred, axis=1) / np.sum(lagged_centred**2, axis=1)
    return slopes if slopes.shape[0] > 1 else float(slopes[0])


PROCESSES = MappingProxyType({"ar1": AR1, "ar3": AR3, "arma11": ARMA11, "heteroskedastic_ar1": HeteroskedasticAR1})


def make_process(name: str, parameters: Mapping[str, Any]) -> AR1 | AR3 | ARMA11 | HeteroskedasticAR1:
    """The process ``name`` (a key of PROCESSES) built from a dict of parameters.

    Parameters
    ----------
    name : str
        A key of :data:`PROCESSES`: ``"ar1"``, ``"ar3"``, ``"arma11"`` or
        ``"heteroskedastic_ar1"``.
    parameters : mapping of str to float or int
        The process's fields, by name (a protocol's ``[dgp] parameters``).

    Returns
    -------
    AR1 or AR3 or ARMA11 or HeteroskedasticAR1
        The process.

    Raises
    ------
    bootmark.reference.errors.InvalidParameterError
        An unknown ``name``, a field the process does not have or lacks, or the process's
        own refusal of a value (e.g. a non-stationary coefficient).

    Examples
    --------
    >>> make_process("ar1", {"phi": 0.5})
    AR1(phi=0.5, innovation_sd=1.0, burn_in=500)
    >>> make_process("ar2", {})
    Traceback (most recent call last):
        ...
    bootmark.reference.errors.InvalidParameterError: dgp.name: unknown process 'ar2'. Fix: use one of ...
    """
    if name not in PROCESSES:
        raise InvalidParameterError(
            ErrorCode.DATA_SHAPE, "dgp.name", f"unknown process {name!r}", f"use one of {', '.join(PROCESSES)}"
        )
    try:
        return PROCESSES[name](**parameters)
    except TypeError as error:
        raise InvalidParameterError(
            ErrorCode.DATA_SHAPE,
            "dgp.parameters",
            f"{name}: {error}",
            f"see the fields of studies.dgp.{PROCESSES[name].__name__}",
        ) from None
