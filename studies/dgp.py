"""Data-generating processes with a known truth.

Series are drawn with numpy's PCG64 (``numpy.random.default_rng(seed)``), the
generator the published figures of DESIGN.md section 6 were made with; the bootstrap
streams are bootmark's own.
"""

import math

import numpy as np

from reference.errors import ErrorCode, InvalidParameterError
from reference.validation import as_integer


def ar1(n, phi, *, innovation_sd=1.0, burn_in=500, seed):
    """An AR(1) path x_t = phi x_{t-1} + e_t, e_t ~ N(0, innovation_sd**2), x_0 = 0.

    The first ``burn_in`` values are dropped so the returned ``n`` values (float64
    array) are close to stationarity. ``seed`` seeds ``numpy.random.default_rng``.
    """
    n = as_integer(n, "n", ErrorCode.DATA_SHAPE, "pass the series length as an int >= 2")
    if n < 2:
        raise InvalidParameterError(ErrorCode.DATA_SHAPE, "n", f"must be >= 2, got {n}", "pass n >= 2")
    if not -1.0 < phi < 1.0:
        raise InvalidParameterError(ErrorCode.DATA_SHAPE, "phi", f"{phi} is not stationary",
                                    "pass |phi| < 1")
    shocks = np.random.default_rng(seed).standard_normal(n + burn_in) * innovation_sd
    path = np.empty(n + burn_in)
    previous = 0.0
    for t, shock in enumerate(shocks):
        previous = phi * previous + shock
        path[t] = previous
    return path[burn_in:]


def ar1_mean_standard_error(n, phi, innovation_sd=1.0):
    """Large-n standard error of the sample mean of a stationary AR(1).

    (sigma / sqrt(n)) * sqrt((1 + phi) / (1 - phi)), with sigma = innovation_sd /
    sqrt(1 - phi**2) the process standard deviation (DESIGN.md section 6, S1).
    """
    sigma = innovation_sd / math.sqrt(1.0 - phi * phi)
    return sigma / math.sqrt(n) * math.sqrt((1.0 + phi) / (1.0 - phi))
