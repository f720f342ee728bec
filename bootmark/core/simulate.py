"""Simulated series the harness times and the studies sample: ARMA paths from numpy's
PCG64 (``numpy.random.default_rng(seed)``), the generator the published figures of
docs/published-figures.md were made with.

It sits below the bench and the studies (``bootmark.studies.dgp`` builds its processes on
it), so timing a cell never imports the study layer.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bootmark.reference.errors import ErrorCode, InvalidParameterError
from bootmark.reference.validation import as_integer

__all__ = ["ar1", "arma_path", "series_length"]


def series_length(n: object) -> int:
    """``n`` as an int >= 2, or a typed error naming ``n``.

    Parameters
    ----------
    n : int
        A series length; any integral value the twins accept as an integer.

    Returns
    -------
    int
        ``n`` as a Python int.

    Raises
    ------
    bootmark.reference.errors.ParameterTypeError
        ``n`` is not an integer.
    bootmark.reference.errors.InvalidParameterError
        ``n`` is below 2, or a non-integral or non-finite float.

    Examples
    --------
    >>> from bootmark.core.simulate import series_length
    >>> series_length(200)
    200
    >>> series_length(1)
    Traceback (most recent call last):
        ...
    bootmark.reference.errors.InvalidParameterError: n: must be >= 2, got 1...
    """
    n = as_integer(n, "n", ErrorCode.DATA_SHAPE, "pass the series length as an int >= 2")
    if n < 2:
        raise InvalidParameterError(ErrorCode.DATA_SHAPE, "n", f"must be >= 2, got {n}", "pass n >= 2")
    return n


def arma_path(
    n: int, ar: Sequence[float], ma: Sequence[float], innovation_sd: float, burn_in: int, seed: object
) -> np.ndarray:
    """An ARMA path x_t = sum_k ar[k] x_{t-1-k} + e_t + sum_k ma[k] e_{t-1-k}, zero start,
    burn-in dropped.

    Parameters
    ----------
    n : int
        The length of the returned path (>= 2).
    ar, ma : sequence of float
        The autoregressive and moving-average coefficients (either may be empty).
    innovation_sd : float
        The standard deviation of the Gaussian innovations e_t.
    burn_in : int
        Leading values generated and dropped (>= 0).
    seed : int or numpy.random.SeedSequence
        Seeds ``numpy.random.default_rng``.

    Returns
    -------
    numpy.ndarray
        ``n`` float64 values.

    Raises
    ------
    bootmark.reference.errors.ParameterTypeError
        ``n`` or ``burn_in`` is not an integer.
    bootmark.reference.errors.InvalidParameterError
        ``n`` is below 2, or a non-integral or non-finite float.

    See Also
    --------
    ar1 : the AR(1) case, with stationarity checked.

    Examples
    --------
    >>> from bootmark.core.simulate import arma_path
    >>> path = arma_path(5, (0.5,), (0.3,), 1.0, 10, seed=1)
    >>> path.shape, path.dtype
    ((5,), dtype('float64'))
    """
    n = series_length(n)
    burn_in = as_integer(burn_in, "burn_in", ErrorCode.DATA_SHAPE, "pass burn_in as an int >= 0")
    shocks = np.random.default_rng(seed).standard_normal(n + burn_in) * innovation_sd
    path = np.zeros(n + burn_in)
    for t in range(n + burn_in):
        value = shocks[t]
        for k, coefficient in enumerate(ar):
            if t - 1 - k >= 0:
                value += coefficient * path[t - 1 - k]
        for k, coefficient in enumerate(ma):
            if t - 1 - k >= 0:
                value += coefficient * shocks[t - 1 - k]
        path[t] = value
    return path[burn_in:]


def ar1(n: int, phi: float, *, innovation_sd: float = 1.0, burn_in: int = 500, seed: object) -> np.ndarray:
    """An AR(1) path x_t = phi x_{t-1} + e_t, e_t ~ N(0, innovation_sd**2), x_0 = 0.

    The first ``burn_in`` values are dropped so the returned ``n`` values (float64
    array) are close to stationarity. ``seed`` seeds ``numpy.random.default_rng``.

    Parameters
    ----------
    n : int
        The length of the returned path (>= 2).
    phi : float
        The autoregressive coefficient, strictly between -1 and 1.
    innovation_sd : float, optional
        The innovations' standard deviation (default 1.0).
    burn_in : int, optional
        Leading values generated and dropped (default 500).
    seed : int or numpy.random.SeedSequence
        Seeds ``numpy.random.default_rng`` (keyword only, required).

    Returns
    -------
    numpy.ndarray
        ``n`` float64 values; the same ``seed`` gives the same path.

    Raises
    ------
    bootmark.reference.errors.ParameterTypeError
        ``n`` or ``burn_in`` is not an integer.
    bootmark.reference.errors.InvalidParameterError
        ``n`` is below 2, or ``|phi| >= 1`` (not stationary).

    See Also
    --------
    arma_path : the general ARMA recursion.

    Examples
    --------
    >>> import numpy as np
    >>> from bootmark.core.simulate import ar1
    >>> x = ar1(200, 0.5, seed=7)
    >>> x.shape
    (200,)
    >>> bool(np.array_equal(x, ar1(200, 0.5, seed=7)))
    True
    >>> ar1(200, 1.0, seed=7)
    Traceback (most recent call last):
        ...
    bootmark.reference.errors.InvalidParameterError: phi: 1.0 is not stationary...
    """
    series_length(n)
    if not -1.0 < phi < 1.0:
        raise InvalidParameterError(ErrorCode.DATA_SHAPE, "phi", f"{phi} is not stationary", "pass |phi| < 1")
    return arma_path(n, (phi,), (), innovation_sd, burn_in, seed)
