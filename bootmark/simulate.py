"""Simulated series the harness times and the studies sample: ARMA paths from numpy's
PCG64 (``numpy.random.default_rng(seed)``), the generator the published figures of
docs/published-figures.md were made with.

It sits below the bench and the studies (``bootmark.studies.dgp`` builds its processes on
it), so timing a cell never imports the study layer.
"""

import numpy as np

from bootmark.reference.errors import ErrorCode, InvalidParameterError
from bootmark.reference.validation import as_integer

__all__ = ["ar1", "arma_path", "series_length"]


def series_length(n):
    """``n`` as an int >= 2, or a typed error naming ``n``."""
    n = as_integer(n, "n", ErrorCode.DATA_SHAPE, "pass the series length as an int >= 2")
    if n < 2:
        raise InvalidParameterError(ErrorCode.DATA_SHAPE, "n", f"must be >= 2, got {n}", "pass n >= 2")
    return n


def arma_path(n, ar, ma, innovation_sd, burn_in, seed):
    """x_t = sum_k ar[k] x_{t-1-k} + e_t + sum_k ma[k] e_{t-1-k}, zero start, burn-in dropped."""
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


def ar1(n, phi, *, innovation_sd=1.0, burn_in=500, seed):
    """An AR(1) path x_t = phi x_{t-1} + e_t, e_t ~ N(0, innovation_sd**2), x_0 = 0.

    The first ``burn_in`` values are dropped so the returned ``n`` values (float64
    array) are close to stationarity. ``seed`` seeds ``numpy.random.default_rng``.
    """
    series_length(n)
    if not -1.0 < phi < 1.0:
        raise InvalidParameterError(ErrorCode.DATA_SHAPE, "phi", f"{phi} is not stationary", "pass |phi| < 1")
    return arma_path(n, (phi,), (), innovation_sd, burn_in, seed)
