"""The built-in statistics of a study, by the name a protocol writes.

* ``mean``, ``median``, ``var`` (ddof=0), ``std`` (ddof=0);
* ``quantile:q``, 0 < q < 1 (e.g. ``quantile:0.9``): numpy's default "linear" quantile
  (Hyndman-Fan type 7), the rule of the engine's ``("quantile", q)``;
* ``acf:k``, k an int >= 1 (e.g. ``acf:2``): the lag-k sample autocorrelation
  sum_{t=1}^{n-k} (x_t - xbar)(x_{t+k} - xbar) / sum_{t=1}^{n} (x_t - xbar)**2, the usual
  (biased) estimator;
* ``ar1_slope`` and ``ar_coef``: one statistic under two names, the OLS slope of x_t on
  (1, x_{t-1}) (:func:`ols_ar1_slope`). ``ar_coef`` is the issue's
  name for it; a study's receipt keeps the name its protocol wrote.

:func:`parse` reads a name into a :class:`Statistic`, which gives what
``engine.bootstrap_reduce`` takes (:meth:`Statistic.engine_argument`), the statistic of
one series (:meth:`Statistic.value`, the engine's point estimate to the bit) and of each
row of a (draws, n) array (:meth:`Statistic.values`, for Monte Carlo truths).

Examples
--------
>>> import numpy as np
>>> statistic = parse("quantile:0.9")
>>> statistic.family, statistic.parameter, statistic.engine_argument()
('quantile', 0.9, ('quantile', 0.9))
>>> statistic.value(np.arange(11.0))
9.0
>>> parse("acf:1").values(np.array([[1.0, 2.0, 3.0, 4.0], [1.0, -1.0, 1.0, -1.0]]))
array([ 0.25, -0.75])
>>> is_builtin("acf:2"), is_builtin("pkg.mod:fn")
(True, False)
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from bootmark.engine import reduce as kernels
from bootmark.reference.errors import ErrorCode, InvalidParameterError

if TYPE_CHECKING:
    from collections.abc import Callable

    from numpy.typing import ArrayLike

__all__ = ["FAMILIES", "FORMS", "Statistic", "autocorrelation", "is_builtin", "ols_ar1_slope", "parse"]

FAMILIES: tuple[str, ...] = ("mean", "median", "var", "std", "quantile", "acf", "ar1_slope", "ar_coef")
# The forms parse() accepts, as its errors list them.
FORMS = (
    "mean, median, var, std, quantile:q with 0 < q < 1 (e.g. quantile:0.9), "
    "acf:k with k an int >= 1 (e.g. acf:2), ar1_slope, ar_coef (= ar1_slope)"
)
_PARAMETRISED = ("quantile", "acf")
_SLOPES = ("ar1_slope", "ar_coef")  # one statistic, two names
_DECIMAL = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_INTEGER = re.compile(r"[0-9]+")


def autocorrelation(x: ArrayLike, lag: int) -> float:
    """The lag-``lag`` sample autocorrelation of one series (the biased estimator).

    sum_{t=1}^{n-lag} (x_t - xbar)(x_{t+lag} - xbar) / sum_{t=1}^{n} (x_t - xbar)**2; 0.0
    when lag >= n; nan for a constant series (the engine refuses a non-finite statistic).
    Module level, so ``functools.partial(autocorrelation, lag=k)`` pickles.

    Parameters
    ----------
    x : array_like
        One series, shape (n,).
    lag : int
        The lag k >= 1.

    Returns
    -------
    float
        The autocorrelation (dimensionless).

    Examples
    --------
    >>> autocorrelation([1.0, 2.0, 3.0, 4.0], 1)
    0.25
    """
    return float(_autocorrelations(np.asarray(x, dtype=np.float64)[np.newaxis, :], lag)[0])


def _autocorrelations(paths, lag):
    centred = paths - paths.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.sum(centred[:, :-lag] * centred[:, lag:], axis=1) / np.sum(centred * centred, axis=1)


def _quantile_of_sorted(ordered, level):
    """numpy's linear quantile along the last axis of sorted values, in the order of
    operations of the engine's ``quantile_of_sorted`` (so the same bits)."""
    count = ordered.shape[-1]
    position = (count - 1) * level
    below = math.floor(position)
    above = min(below + 1, count - 1)
    fraction = position - below
    low, high = ordered[..., below], ordered[..., above]
    step = high - low
    if fraction >= 0.5:
        return high - step * (1.0 - fraction)
    return low + step * fraction


def _median_of_sorted(ordered):
    """The middle value, or the mean of the two middle ones, as the engine's kernel."""
    half = ordered.shape[-1] // 2
    if ordered.shape[-1] % 2:
        return ordered[..., half]
    return (ordered[..., half - 1] + ordered[..., half]) / 2.0


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
    >>> from bootmark.studies.statistics import ols_ar1_slope
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


def _ar1_slope():
    return ols_ar1_slope


@dataclass(frozen=True)
class Statistic:
    """A built-in statistic, as :func:`parse` reads it.

    Attributes
    ----------
    text : str
        The name as written, e.g. ``"quantile:0.9"``.
    family : str
        One of :data:`FAMILIES`.
    parameter : float, int or None
        q of ``quantile:q`` (a float), k of ``acf:k`` (an int), else None.

    Examples
    --------
    >>> parse("acf:2")
    Statistic(text='acf:2', family='acf', parameter=2)
    """

    text: str
    family: str
    parameter: float | int | None = None

    def engine_argument(self) -> str | tuple[str, float] | Callable[[np.ndarray], float]:
        """What ``engine.bootstrap_reduce`` takes as its ``statistic`` for this one.

        ``"mean"``, ``"median"``, ``"var"`` or ``"std"``; ``("quantile", q)``; for
        ``acf:k`` the callable ``functools.partial(autocorrelation, lag=k)`` (it pickles);
        for ``ar1_slope`` and ``ar_coef`` the callable
        :func:`ols_ar1_slope` (a study's runner may refit the slope
        in the engine's fused kernel instead; that choice is the runner's).

        Returns
        -------
        str, tuple or callable
            The engine's statistic argument.

        Examples
        --------
        >>> parse("var").engine_argument(), parse("quantile:0.25").engine_argument()
        ('var', ('quantile', 0.25))
        >>> parse("acf:3").engine_argument().keywords
        {'lag': 3}
        >>> parse("ar_coef").engine_argument().__name__
        'ols_ar1_slope'
        """
        if self.family == "quantile":
            return ("quantile", self.parameter)
        if self.family == "acf":
            return functools.partial(autocorrelation, lag=self.parameter)
        if self.family in _SLOPES:
            return _ar1_slope()
        return self.family

    def value(self, x: ArrayLike) -> float:
        """The statistic of one series: the engine's point estimate, to the bit.

        Definitions and arithmetic are the engine's (``engine/reduce.py``): mean, var and
        std (ddof=0) by the engine's own compensated-sum kernels; median the middle
        value (or the mean of the two middle ones); ``quantile:q`` numpy's default
        linear rule in the engine's order of operations; ``acf:k``, ``ar1_slope`` and
        ``ar_coef`` the very callables :meth:`engine_argument` hands the engine.

        Parameters
        ----------
        x : array_like
            One series, shape (n,), converted to float64.

        Returns
        -------
        float
            The statistic, in its own units (data units for mean, median, std and
            quantiles; squared data units for var; dimensionless for acf and the slope).

        Raises
        ------
        bootmark.reference.errors.InvalidParameterError
            ``x`` is not one series (1-D) or is empty.

        Examples
        --------
        >>> parse("median").value([3.0, 1.0, 2.0, 10.0])
        2.5
        >>> parse("var").value([1.0, 2.0, 3.0, 4.0])
        1.25
        """
        series = np.array(x, dtype=np.float64)  # a copy: the kernels below overwrite it
        if series.ndim != 1 or series.shape[0] == 0:
            raise InvalidParameterError(
                ErrorCode.DATA_SHAPE, "x", f"must be one non-empty series (1-D), got shape {series.shape}", "pass x[i]"
            )
        n = series.shape[0]
        if self.family == "mean":  # as the engine's point: accurate_sum / n
            return float(kernels.accurate_sum(series, n) / n)
        if self.family in ("var", "std"):
            return float(kernels.moment(kernels.VAR if self.family == "var" else kernels.STD, series))
        if self.family in ("median", "quantile"):
            return float(self._of_sorted(np.sort(series)))
        return float(self.engine_argument()(series))

    def values(self, paths: ArrayLike) -> np.ndarray:
        """The statistic of each row of a (draws, n) array, vectorised (Monte Carlo truths).

        Median, quantiles, ``acf:k`` and the slope have :meth:`value`'s bits row by row;
        mean, var and std use numpy's row sums, within a few units in the last place of
        :meth:`value`'s compensated sums.

        Parameters
        ----------
        paths : array_like
            Shape (draws, n), converted to float64 (a 1-D array is one row).

        Returns
        -------
        numpy.ndarray
            float64, shape (draws,).

        Examples
        --------
        >>> import numpy as np
        >>> parse("std").values(np.array([[1.0, 3.0], [2.0, 2.0]]))
        array([1., 0.])
        """
        rows = np.atleast_2d(np.asarray(paths, dtype=np.float64))
        if rows.ndim != 2:
            raise InvalidParameterError(
                ErrorCode.DATA_SHAPE, "paths", f"must be 2-D (draws, n), got shape {rows.shape}", "pass paths[i, :]"
            )
        if self.family == "mean":
            return rows.mean(axis=1)
        if self.family == "var":
            return rows.var(axis=1)
        if self.family == "std":
            return np.sqrt(rows.var(axis=1))
        if self.family in ("median", "quantile"):
            return np.asarray(self._of_sorted(np.sort(rows, axis=1)), dtype=np.float64)
        if self.family == "acf":
            return _autocorrelations(rows, self.parameter)
        return np.atleast_1d(np.asarray(_ar1_slope()(rows), dtype=np.float64))

    def _of_sorted(self, ordered):
        if self.family == "median":
            return _median_of_sorted(ordered)
        return _quantile_of_sorted(ordered, self.parameter)


def _refuse(where, problem):
    raise InvalidParameterError(ErrorCode.STATISTIC, where, problem, f"use one of {FORMS}")


def parse(text: str, where: str = "statistic") -> Statistic:
    """The built-in statistic ``text`` names, checked.

    Parameters
    ----------
    text : str
        ``"mean"``, ``"median"``, ``"var"``, ``"std"``, ``"quantile:q"`` (0 < q < 1, a
        decimal number), ``"acf:k"`` (k an int >= 1, digits only), ``"ar1_slope"`` or
        ``"ar_coef"``.
    where : str, default "statistic"
        The argument the errors name (e.g. ``"design.statistic"``).

    Returns
    -------
    Statistic
        ``text`` as written, its family and its parameter.

    Raises
    ------
    bootmark.reference.errors.InvalidParameterError
        Code STATISTIC: not a string, an unknown name, ``quantile`` or ``acf`` without
        its parameter, a parameter on a statistic that takes none, q not a decimal in
        (0, 1), k not an int >= 1. The message names ``where`` and lists the valid forms.

    Examples
    --------
    >>> parse("quantile:0.05")
    Statistic(text='quantile:0.05', family='quantile', parameter=0.05)
    >>> parse("quantile:1.5", "design.statistic")
    Traceback (most recent call last):
        ...
    bootmark.reference.errors.InvalidParameterError: design.statistic: quantile:1.5: q must lie in (0, 1)...
    """
    if not isinstance(text, str):
        _refuse(where, f"a statistic is a name (str), got {text!r}")
    family, colon, argument = text.partition(":")
    if family not in FAMILIES:
        _refuse(where, f"unknown statistic {text!r}")
    if family not in _PARAMETRISED:
        if colon:
            _refuse(where, f"{text}: {family} takes no parameter")
        return Statistic(text, family, None)
    if not argument:
        _refuse(where, f"{text}: {family} needs its parameter, {family}:{'q' if family == 'quantile' else 'k'}")
    if family == "quantile":
        q = float(argument) if _DECIMAL.fullmatch(argument) else math.nan
        if not 0.0 < q < 1.0:
            _refuse(where, f"{text}: q must lie in (0, 1), a decimal number such as 0.9")
        return Statistic(text, family, q)
    if not _INTEGER.fullmatch(argument) or int(argument) < 1:
        _refuse(where, f"{text}: k must be an int >= 1, such as 2")
    return Statistic(text, family, int(argument))


def is_builtin(text: str) -> bool:
    """Whether ``text`` names a built-in statistic: its part before any ``:`` is one of
    :data:`FAMILIES` (checked further by :func:`parse`), so ``"pkg.mod:fn"`` is not.

    Parameters
    ----------
    text : str
        A statistic as a protocol writes it.

    Returns
    -------
    bool
        True for a built-in family's name, well formed or not.

    Examples
    --------
    >>> is_builtin("quantile:0.9"), is_builtin("quantile"), is_builtin("numpy:median")
    (True, True, False)
    """
    return isinstance(text, str) and text.partition(":")[0] in FAMILIES
