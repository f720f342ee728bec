"""Peer forecasters for the forecast studies: prediction intervals from statsmodels and tsbootstrap.

Each function keeps the forecast contract of :mod:`bootmark.studies.plugins` (its
``check_options`` refuses bad options before any series is drawn),
``function(history, *, horizon, alpha, seed, **options)`` returning ``lower``, ``upper``
and ``point`` for the next ``horizon`` values, and is declared as an entry point in the
group ``bootmark.contenders`` (bootmark's ``pyproject.toml``), so a protocol names it as
``contender = "statsmodels.ARIMA"`` and the runner loads it as it loads anyone's. Both
libraries are optional (the ``peers`` extra pins their versions); a missing one raises
:class:`~bootmark.studies.peers.PeerNotInstalledError` with the command that installs it.

How each is driven (the choices that change results if made differently):

* ``statsmodels.ARIMA``: ``statsmodels.tsa.arima.model.ARIMA(history, order=order)``
  fitted by its default (state-space maximum likelihood, a constant for d = 0), then
  ``get_forecast(horizon).conf_int(alpha=alpha)``: Gaussian intervals from the fitted
  parameters, their uncertainty ignored. Its convergence warnings are silenced (short
  series raise them often); ``seed`` is unused (nothing random).
* ``tsbootstrap.forecast_intervals``: ``tsbootstrap.forecast_intervals(history,
  model=AR(order=order), horizon, alpha, n_bootstraps, random_state=seed)``: an AR(p)
  fitted by least squares, ``n_bootstraps`` future paths simulated with its resampled
  centred residuals, the per-step quantiles read (the fit's own uncertainty ignored).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from .peers import _import

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["statsmodels_arima", "tsbootstrap_forecast_intervals"]


def statsmodels_arima(
    history: np.ndarray, *, horizon: int, alpha: float, seed: int, order: Sequence[int] = (1, 0, 0)
) -> dict[str, np.ndarray]:
    """statsmodels' ARIMA prediction intervals (``get_forecast(h).conf_int``).

    Parameters
    ----------
    history : numpy.ndarray
        The observed series (1-D float64, data units).
    horizon : int
        Steps ahead.
    alpha : float
        Two-sided tail of each step's interval.
    seed : int
        Unused: the interval is not random.
    order : sequence of int, default (1, 0, 0)
        The ARIMA (p, d, q).

    Returns
    -------
    dict
        ``lower``, ``upper`` and ``point`` (the predicted mean), ``horizon`` values each.
    """
    arima = _import("statsmodels.tsa.arima.model")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence chatter on short series, not a failure
        fitted = arima.ARIMA(np.asarray(history, dtype=np.float64), order=tuple(order)).fit()
        forecast = fitted.get_forecast(horizon)
        bounds = np.asarray(forecast.conf_int(alpha=alpha), dtype=np.float64)
    return {"lower": bounds[:, 0], "upper": bounds[:, 1], "point": np.asarray(forecast.predicted_mean)}


def _check_arima_options(order=(1, 0, 0)):
    if not (
        isinstance(order, (list, tuple))
        and len(order) == 3
        and all(isinstance(value, int) and not isinstance(value, bool) and value >= 0 for value in order)
    ):
        raise ValueError(f"order must be three ints >= 0, (p, d, q), e.g. [1, 0, 0]; got {order!r}")


statsmodels_arima.requires = ("statsmodels",)
statsmodels_arima.check_options = _check_arima_options


def tsbootstrap_forecast_intervals(
    history: np.ndarray, *, horizon: int, alpha: float, seed: int, order: int = 1, n_bootstraps: int = 999
) -> dict[str, np.ndarray]:
    """tsbootstrap's bootstrap forecast intervals of an AR(p) (``forecast_intervals``).

    Parameters
    ----------
    history : numpy.ndarray
        The observed series (1-D float64, data units).
    horizon : int
        Steps ahead.
    alpha : float
        Two-sided tail of each step's interval.
    seed : int
        ``random_state`` (tsbootstrap makes a ``SeedSequence`` of it).
    order : int, default 1
        The AR order p.
    n_bootstraps : int, default 999
        Simulated future paths.

    Returns
    -------
    dict
        ``lower``, ``upper`` and ``point`` (the paths' median), ``horizon`` values each.
    """
    tsbootstrap = _import("tsbootstrap")
    lower, upper, median = tsbootstrap.forecast_intervals(
        np.asarray(history, dtype=np.float64),
        model=tsbootstrap.AR(order=order),
        horizon=horizon,
        alpha=alpha,
        n_bootstraps=n_bootstraps,
        random_state=seed,
    )
    return {"lower": lower, "upper": upper, "point": median}


def _check_tsbootstrap_options(order=1, n_bootstraps=999):
    for name, value in (("order", order), ("n_bootstraps", n_bootstraps)):
        if not (isinstance(value, int) and not isinstance(value, bool) and value >= 1):
            raise ValueError(f"{name} must be an int >= 1 (the AR order p; the simulated paths), got {value!r}")


tsbootstrap_forecast_intervals.requires = ("tsbootstrap",)
tsbootstrap_forecast_intervals.check_options = _check_tsbootstrap_options
