"""What a forecast protocol names, and the oracle: the forecast target, the horizon's
limit and label, and the exact conditional interval of a Gaussian AR process.

The oracle (``oracle = true`` in a ``[[resamplers]]`` entry of a forecast study,
:mod:`bootmark.studies.forecast`) is the interval of the true conditional distribution of
a Gaussian AR(p) with known parameters (the built-in ``ar1`` and ``ar3``): mean the AR
recursion from the last p values, variance sigma**2 sum_{j < h} psi_j**2 (psi the
MA(infinity) weights). It covers exactly 1 - alpha at every horizon.

May import: numpy, the studies modules dgp and plugins (the protocol parser imports this
module, so it must not import protocol, forecast, evaluate or summary).
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import numpy as np

from .dgp import AR1, AR3
from .plugins import PluginError

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "FORECAST_TARGET",
    "HORIZON_LIMIT",
    "OracleUnavailable",
    "has_oracle",
    "horizon_kind",
    "oracle_interval",
]

FORECAST_TARGET = "forecast"
HORIZON_LIMIT = 1000  # steps ahead a protocol may ask for: far past any forecaster's use


class OracleUnavailable(PluginError):
    """An ``oracle = true`` entry on a process whose conditional distribution bootmark does
    not know in closed form (only the Gaussian AR(p) processes ``ar1`` and ``ar3``)."""


def horizon_kind(step: int) -> str:
    """The ``kind`` under which the measures of step ``step`` ahead are filed.

    >>> horizon_kind(3)
    'h3'
    """
    return f"h{step}"


def _ar_coefficients(process: Any) -> tuple[tuple[float, ...], float] | None:
    if isinstance(process, AR1):
        return (process.phi,), process.innovation_sd
    if isinstance(process, AR3):
        return (process.phi1, process.phi2, process.phi3), process.innovation_sd
    return None


def has_oracle(process: Any) -> bool:
    """Whether :func:`oracle_interval` knows ``process``'s conditional distribution.

    >>> has_oracle(AR1(0.5)), has_oracle(object())
    (True, False)
    """
    return _ar_coefficients(process) is not None


def oracle_interval(
    process: Any, history: Sequence[float], horizon: int, alpha: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The central 1 - alpha interval of each of the next ``horizon`` values of a Gaussian
    AR(p) given its ``history``: exact, since an AR(p) is Markov in its last p values.

    Parameters
    ----------
    process : AR1 or AR3
        A built-in Gaussian AR process (zero mean).
    history : sequence of float
        The observed values (at least p of them), in data units.
    horizon : int
        Steps ahead, >= 1.
    alpha : float
        Two-sided tail, 0 < alpha < 1.

    Returns
    -------
    tuple of numpy.ndarray
        (lower, upper, point), each ``horizon`` values in data units.

    Raises
    ------
    OracleUnavailable
        A process without a closed-form conditional distribution.

    Examples
    --------
    >>> lower, upper, point = oracle_interval(AR1(0.5), [0.0, 2.0], 2, 0.10)
    >>> point.tolist(), [round(v, 4) for v in (upper - point).tolist()]
    ([1.0, 0.5], [1.6449, 1.8391])
    """
    found = _ar_coefficients(process)
    if found is None:
        raise OracleUnavailable(
            f"no oracle for {type(process).__name__}: the oracle interval is the known conditional "
            "distribution of a Gaussian AR process (ar1, ar3)"
        )
    phi, sigma = found
    order = len(phi)
    past = [float(value) for value in history[-order:]]
    means = []
    for _ in range(horizon):  # the conditional mean: the recursion with future shocks at 0
        mean = math.fsum(coefficient * past[-1 - lag] for lag, coefficient in enumerate(phi))
        means.append(mean)
        past.append(mean)
    weights = [1.0]  # psi_j = sum_k phi_k psi_{j-k}: the MA(infinity) weights
    for j in range(1, horizon):
        weights.append(math.fsum(phi[k] * weights[j - 1 - k] for k in range(min(order, j))))
    z = NormalDist().inv_cdf(1.0 - alpha / 2.0)
    spreads = [z * sigma * math.sqrt(math.fsum(w * w for w in weights[: step + 1])) for step in range(horizon)]
    point = np.array(means)
    spread = np.array(spreads)
    return point - spread, point + spread, point
