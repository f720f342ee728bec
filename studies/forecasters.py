"""Forecasters for the forecast studies: prediction intervals from bootmark's engine, statsmodels and tsbootstrap.

Each function keeps the forecast contract of :mod:`bootmark.studies.plugins` (its
``check_options`` refuses bad options before any series is drawn),
``function(history, *, horizon, alpha, seed, **options)`` returning ``lower``, ``upper``
and ``point`` for the next ``horizon`` values, and is declared as an entry point in the
group ``bootmark.contenders`` (bootmark's ``pyproject.toml``), so a protocol names it as
``contender = "statsmodels.ARIMA"`` and the runner loads it as it loads anyone's. Both
libraries are optional (the ``peers`` extra pins their versions); a missing one raises
:class:`~bootmark.studies.peers.PeerNotInstalledError` with the command that installs it.

How each is driven (the choices that change results if made differently):

* ``bootmark.forecast_interval``: :func:`bootmark.engine.forecast_interval` with
  ``method`` "bootstrap" (forward bootstrap paths with refitted coefficients) or
  "conformal" (EnbPI with moving-block ensembles), the AR order chosen by the sieve
  (AIC), ``seed`` its seed. Needs no extra.
* ``statsmodels.ARIMA``: ``statsmodels.tsa.arima.model.ARIMA(history, order=order)``
  fitted by its default (state-space maximum likelihood, a constant for d = 0), then
  ``get_forecast(horizon).conf_int(alpha=alpha)``: Gaussian intervals from the fitted
  parameters, their uncertainty ignored. Its convergence warnings are silenced (short
  series raise them often); ``seed`` is unused (nothing random).
* ``tsbootstrap.EnbPI``: tsbootstrap's ``EnbPIEnsemble`` around scikit-learn's
  ``LinearRegression``, one ensemble per step h (the direct strategy): rows
  (x_t, .., x_{t-p+1}) -> x_{t+h}, ``n_bootstraps`` moving-block resamples of the rows
  (``block_length``, tsbootstrap's "auto" by default), ``random_state=seed + h``; the
  interval at the last origin is the retained members' mean forecast plus or minus the
  ``1 - alpha`` quantile of the out-of-bag absolute residuals (``Static`` calibrator).
* ``tsbootstrap.forecast_intervals``: ``tsbootstrap.forecast_intervals(history,
  model=AR(order=order), horizon, alpha, n_bootstraps, random_state=seed)``: an AR(p)
  fitted by least squares, ``n_bootstraps`` future paths simulated with its resampled
  centred residuals, the per-step quantiles read (the fit's own uncertainty ignored).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from bootmark.reference.errors import BootmarkError
from bootmark.reference.forecast import check_forecast_arguments

from .peers import _import

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["bootmark_forecast_interval", "statsmodels_arima", "tsbootstrap_enbpi", "tsbootstrap_forecast_intervals"]


def bootmark_forecast_interval(
    history: np.ndarray,
    *,
    horizon: int,
    alpha: float,
    seed: int,
    method: str = "bootstrap",
    n_bootstraps: int | None = None,
    criterion: str = "aic",
    max_order: int | None = None,
    block_length: int | None = None,
) -> dict[str, np.ndarray]:
    """bootmark's own prediction intervals (:func:`bootmark.engine.forecast_interval`).

    Parameters
    ----------
    history : numpy.ndarray
        The observed series (1-D float64, data units).
    horizon : int
        Steps ahead.
    alpha : float
        Two-sided tail of each step's interval.
    seed : int
        The engine's seed: the interval is a function of (history, seed).
    method, n_bootstraps, criterion, max_order, block_length
        As :func:`bootmark.engine.forecast_interval` takes them.

    Returns
    -------
    dict
        ``lower``, ``upper`` and ``point``, ``horizon`` values each.
    """
    from bootmark.engine import forecast_interval  # late: numba loads only when this forecaster runs

    result = forecast_interval(
        history,
        horizon,
        method=method,
        alpha=alpha,
        n_bootstraps=n_bootstraps,
        seed=seed,
        criterion=criterion,
        max_order=max_order,
        block_length=block_length,
    )
    return {"lower": result.lower, "upper": result.upper, "point": result.point}


def _check_bootmark_options(method="bootstrap", n_bootstraps=None, criterion="aic", max_order=None, block_length=None):
    try:  # the engine's own checks, on a stand-in horizon, alpha and seed
        check_forecast_arguments(1, method, 0.1, n_bootstraps, 0, 0, criterion, max_order, block_length)
    except BootmarkError as error:
        raise ValueError(str(error)) from None


bootmark_forecast_interval.requires = ()
bootmark_forecast_interval.check_options = _check_bootmark_options


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


def tsbootstrap_enbpi(
    history: np.ndarray,
    *,
    horizon: int,
    alpha: float,
    seed: int,
    order: int = 1,
    n_bootstraps: int = 100,
    block_length: int | str = "auto",
) -> dict[str, np.ndarray]:
    """tsbootstrap's EnbPI conformal intervals (``EnbPIEnsemble``), one ensemble per step.

    Parameters
    ----------
    history : numpy.ndarray
        The observed series (1-D float64, data units).
    horizon : int
        Steps ahead.
    alpha : float
        Two-sided tail of each step's interval.
    seed : int
        ``random_state`` of step h's ensemble is ``seed + h``.
    order : int, default 1
        Lags p in each row's regressors.
    n_bootstraps : int, default 100
        Ensemble members per step.
    block_length : int or "auto", default "auto"
        The moving-block length of the row resamples (tsbootstrap's ``MovingBlock``).

    Returns
    -------
    dict
        ``lower``, ``upper`` and ``point`` (the members' mean forecast), ``horizon`` values each.
    """
    tsbootstrap = _import("tsbootstrap")
    conformal = _import("tsbootstrap.uq.conformal")
    calibrators = _import("tsbootstrap.uq.calibrators")
    linear = _import("sklearn.linear_model")
    x = np.asarray(history, dtype=np.float64)
    n = x.shape[0]
    latest = x[n - order :][::-1].reshape(1, order)  # (x_{n-1}, .., x_{n-p})
    bounds = np.empty((3, horizon))
    for step in range(1, horizon + 1):
        origins = np.arange(order - 1, n - step)
        rows = np.stack([x[origins - k] for k in range(order)], axis=1)
        ensemble = conformal.EnbPIEnsemble().fit(
            linear.LinearRegression(),
            rows,
            x[origins + step],
            method=tsbootstrap.MovingBlock(block_length=block_length),
            n_bootstraps=n_bootstraps,
            random_state=seed + step,
        )
        lower, upper, point = ensemble.predict_interval(latest, alpha=alpha, calibrator=calibrators.Static())
        bounds[:, step - 1] = (lower[0], upper[0], point[0])
    return {"lower": bounds[0], "upper": bounds[1], "point": bounds[2]}


def _check_enbpi_options(order=1, n_bootstraps=100, block_length="auto"):
    for name, value in (("order", order), ("n_bootstraps", n_bootstraps)):
        if not (isinstance(value, int) and not isinstance(value, bool) and value >= 1):
            raise ValueError(f"{name} must be an int >= 1 (the lags; the ensemble members), got {value!r}")
    if block_length != "auto" and not (
        isinstance(block_length, int) and not isinstance(block_length, bool) and block_length >= 1
    ):
        raise ValueError(f"block_length must be an int >= 1 or 'auto', got {block_length!r}")


tsbootstrap_enbpi.requires = ("tsbootstrap", "scikit-learn")
tsbootstrap_enbpi.check_options = _check_enbpi_options
tsbootstrap_forecast_intervals.check_options = _check_tsbootstrap_options
