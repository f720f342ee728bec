"""Prediction intervals in NumPy + Numba: ``reference/forecast.py`` defines every rule.

What the engine guarantees against the reference (u = 2**-53):

* **The draws are bitwise.** The bootstrap's rebuilt replicates (residual indices from
  the RESIDUAL_INDEX stream), its future-shock indices (FORECAST_SHOCK) and the conformal
  members' block starts (CONFORMAL_BLOCK_START) are integer arithmetic on the same
  Philox words, so :func:`shock_indices` and :func:`member_rows` equal the reference's
  for every (seed, series, b). The fit to the data is the reference's bit for bit
  (``models.py``), so the order p, the mean and the residuals are too.
* **The bounds agree within** ``FORECAST_BOUND`` = 1e-9 times (1 + max abs(x)). The
  refits (bootstrap) and the member fits (conformal) sum their normal equations with
  ``reduce.accurate_sum`` (within 6 u S of exact) where the reference uses math.fsum;
  the refit coefficients then agree within ``models.REFIT_BOUND`` and a member's within
  the same order. A coefficient error d moves an H-step path by at most about
  d (1 + max abs(x)) H times the recursion's gain, and a quantile or order statistic of
  values each moved by at most e moves by at most e, so the bounds inherit it. The
  paths' own additions are the reference's, in its order.

Results depend only on (seed, series, b): the same for any thread count and chunking.
The bootstrap's replicates run on ``parallel.run_replicates`` (one replicate per work
item: rebuild, refit, H forward steps); the conformal members' fits are cheap (B x H
least-squares fits of p + 1 coefficients) and run on one thread.
"""

from dataclasses import dataclass

import numpy as np
from numba import njit

from bootmark.reference.forecast import (
    FORECAST_BOUND,
    check_forecast_arguments,
    conformal_rank,
    default_block_length,
    no_paths_error,
    panel_error,
    select_model,
)
from bootmark.reference.forecast import ForecastInterval as ReferenceForecastInterval
from bootmark.reference.models import FIT_OK, FIT_SINGULAR, fit_error

from .data import as_array
from .draws import CONFORMAL_BLOCK_START, FORECAST_SHOCK, bounded
from .keys import stream_key, stream_root
from .models import ARITHMETIC, ModelPlan, refit_recursive, replicate_series, solve_leading
from .panel import Panel
from .parallel import run_replicates
from .reduce import accurate_sum

__all__ = ["FORECAST_BOUND", "ForecastInterval", "forecast_interval", "shock_indices", "member_rows"]


@dataclass(frozen=True)
class ForecastInterval(ReferenceForecastInterval):
    """The reference twin's :class:`bootmark.reference.ForecastInterval`, with ``lower``,
    ``upper`` and ``point`` as float64 arrays, and :meth:`to_frame`.

    ``times`` holds the H future time stamps (pandas Timestamps or Periods) when ``x``
    was a pandas Series on a regular DatetimeIndex or PeriodIndex, else None.
    """

    times: tuple = None

    def to_frame(self):
        """A pandas DataFrame indexed by step (``horizon`` = 1 .. H) with the columns
        ``lower``, ``upper`` and ``point`` (data units), and ``time`` first when
        :attr:`times` is known."""
        import pandas as pd  # late: pandas is needed only for a frame

        index = pd.RangeIndex(1, self.horizon + 1, name="horizon")
        columns = {"lower": self.lower, "upper": self.upper, "point": self.point}
        if self.times is not None:
            columns = {"time": list(self.times), **columns}
        return pd.DataFrame(columns, index=index)


def future_times(x, horizon):
    """The next ``horizon`` time stamps of a pandas Series on a DatetimeIndex with a
    frequency (set or inferable) or a PeriodIndex; None for anything else."""
    index = getattr(x, "index", None)
    if index is None or not hasattr(index, "freq") or len(index) < 3:
        return None
    import pandas as pd  # late: x is a pandas object, so pandas is already loaded

    if isinstance(index, pd.PeriodIndex):
        return tuple(pd.period_range(index[-1] + 1, periods=horizon, freq=index.freq))
    if isinstance(index, pd.DatetimeIndex):
        frequency = index.freq or pd.DatetimeIndex(index, freq="infer").freq  # None if irregular
        if frequency is not None:
            return tuple(pd.date_range(index[-1], periods=horizon + 1, freq=frequency)[1:])
    return None


@njit(cache=True, inline="always")
def _draw_start(small, state):
    state[0] = small.shape[0]  # empty buffer: the first draw fills it from block 0
    state[1] = 0


@njit(cache=True)
def forward(intercept, phi, order, x, shocks, horizon, out):
    """out[:H] = the recursion of reference.forecast item 3 from the last ``order``
    values of ``x`` (oldest lag first, data units); ``shocks`` None-free (zeros for the
    point forecast)."""
    n = x.shape[0]
    for h in range(horizon):
        value = intercept
        for k in range(order, 0, -1):
            back = h - k
            value = value + phi[k - 1] * (out[back] if back >= 0 else x[n + back])
        out[h] = value + shocks[h]


@njit(cache=True, nogil=True)
def _bootstrap_task(
    begin,
    end,
    scratch,
    innovation,
    distribution,
    block_length,
    iid_words,
    order,
    mean,
    intercept,
    phi,
    residuals,
    x,
    fixed,
    fitted,
    w,
    design_a,
    root_lo,
    root_hi,
    series_word,
    horizon,
    out,
    status,
):
    coefficients, small, state, shocks = scratch[17:21]
    count = np.uint64(residuals.shape[0])
    for r in range(begin, end):
        k0, k1 = stream_key(root_lo, root_hi, series_word, np.uint64(r))
        series = replicate_series(
            innovation,
            distribution,
            block_length,
            iid_words,
            order,
            mean,
            intercept,
            phi,
            residuals,
            x,
            fixed,
            fitted,
            w,
            design_a,
            k0,
            k1,
            scratch,
        )
        status[r] = refit_recursive(series, order, mean, scratch, coefficients)
        _draw_start(small, state)
        for h in range(horizon):
            shocks[h] = residuals[bounded(small, state, k0, k1, FORECAST_SHOCK, count)]
        forward(coefficients[0], coefficients[1:], order, x, shocks, horizon, out[r])


def _bootstrap(model, x, horizon, alpha, n_bootstraps, seed, series_id):
    plan = ModelPlan(model, x)
    order = plan.order

    def scratch():
        return (
            *plan.scratch(),
            np.empty(order + 1),
            np.empty(4, dtype=np.uint64),
            np.zeros(2, dtype=np.int64),
            np.empty(horizon),
        )

    paths = np.empty((n_bootstraps, horizon))
    status = np.zeros(n_bootstraps, dtype=np.int8)
    root = stream_root(seed, series_id)
    per_value = 2 + (order + 1) * (order + 2)  # ns a value: the refit's passes, as models.refits
    run_replicates(
        _bootstrap_task,
        n_bootstraps,
        plan.nanoseconds(n_bootstraps, per_value),
        scratch,
        *plan.arguments(),
        root[0],
        root[1],
        root[2],
        horizon,
        paths,
        status,
    )
    kept = status == FIT_OK
    if not kept.any():
        raise no_paths_error(n_bootstraps, order)
    point = np.empty(horizon)
    forward(
        model.fit.intercept,
        np.asarray(model.fit.coefficients, dtype=np.float64),
        order,
        plan.x,
        np.zeros(horizon),
        horizon,
        point,
    )
    lower, upper = np.quantile(paths[kept], [alpha / 2.0, 1.0 - alpha / 2.0], axis=0)
    return lower, upper, point, {"skipped": tuple(np.flatnonzero(~kept).tolist())}


@njit(cache=True)
def _member_rows(rows, block_length, root_lo, root_hi, series_word, members, out):
    small, state = np.empty(4, dtype=np.uint64), np.zeros(2, dtype=np.int64)
    starts = np.uint64(rows - block_length + 1)
    for b in range(members):
        k0, k1 = stream_key(root_lo, root_hi, series_word, np.uint64(b))
        _draw_start(small, state)
        filled = 0
        while filled < rows:
            start = np.int64(bounded(small, state, k0, k1, CONFORMAL_BLOCK_START, starts))
            for offset in range(block_length):
                if filled == rows:
                    break
                out[b, filled] = start + offset
                filled += 1


@njit(cache=True)
def _member_fits(w, order, samples, step, out, singular):
    """out[b] = beta^{b,h} of reference.forecast item 3 at step ``step`` (singular[b] if
    its system is singular)."""
    members, rows = samples.shape
    size = order + 1
    usable = rows - step + 1
    origins = np.empty(rows, dtype=np.int64)
    products = np.empty(rows)
    a, b = np.empty((size, size)), np.empty(size)
    work, rhs, diagonal = np.empty((size, size)), np.empty(size), np.empty(size)
    for m in range(members):
        count = 0
        for i in range(rows):
            j = samples[m, i]
            if j < usable:
                origins[count] = order - 1 + j
                count += 1
        for i in range(size):
            for k in range(i, size):
                for c in range(count):
                    t = origins[c]
                    products[c] = (1.0 if i == 0 else w[t - i + 1]) * (1.0 if k == 0 else w[t - k + 1])
                a[i, k] = accurate_sum(products, count)
                a[k, i] = a[i, k]
            for c in range(count):
                t = origins[c]
                products[c] = (1.0 if i == 0 else w[t - i + 1]) * w[t + step]
            b[i] = accurate_sum(products, count)
        singular[m] = not solve_leading(a, b, size, work, rhs, diagonal, out[m])


@njit(cache=True, inline="always")
def _dot(beta, w, order, origin):
    total = beta[0]  # beta_0 * 1.0, exactly
    for k in range(1, order + 1):
        total = total + beta[k] * w[origin - k + 1]
    return total


@njit(cache=True)
def _out_of_bag_residuals(w, order, samples, step, fits, singular, out):
    """out[:K] = the out-of-bag residuals r_j of item 4 at step ``step``; returns K."""
    members, rows = samples.shape
    usable = rows - step + 1
    drawn = np.zeros((members, rows), dtype=np.bool_)
    for m in range(members):
        for i in range(rows):
            drawn[m, samples[m, i]] = True
    count = 0
    for j in range(usable):
        total, votes = 0.0, 0
        for m in range(members):
            if not singular[m] and not drawn[m, j]:
                total = total + _dot(fits[m], w, order, order - 1 + j)
                votes += 1
        if votes:
            out[count] = abs(w[order - 1 + j + step] - total / votes)
            count += 1
    return count


def _conformal(model, x, horizon, alpha, n_bootstraps, seed, series_id, block_length):
    order, n = model.fit.order, x.shape[0]
    mean = model.fit.mean  # the data fit's m: fsum(x) / n, the reference's centre bit for bit
    w = x - mean
    rows = n - order
    length = min(block_length or default_block_length(n), rows)
    root = stream_root(seed, series_id)
    samples = np.empty((n_bootstraps, rows), dtype=np.int64)
    _member_rows(rows, length, root[0], root[1], root[2], n_bootstraps, samples)
    fits = np.empty((n_bootstraps, order + 1))
    singular = np.empty(n_bootstraps, dtype=np.bool_)
    residuals = np.empty(rows)
    lower, upper, point, counts = np.empty(horizon), np.empty(horizon), np.empty(horizon), []
    for step in range(1, horizon + 1):
        _member_fits(w, order, samples, step, fits, singular)
        if singular.all():
            raise fit_error(FIT_SINGULAR, order)
        count = _out_of_bag_residuals(w, order, samples, step, fits, singular, residuals)
        centre = 0.0
        for m in np.flatnonzero(~singular).tolist():
            centre = centre + float(_dot(fits[m], w, order, n - 1))
        forecast = mean + centre / int((~singular).sum())
        rank = conformal_rank(count, alpha, n, order, step)
        width = float(np.partition(residuals[:count], rank - 1)[rank - 1])
        lower[step - 1], upper[step - 1], point[step - 1] = forecast - width, forecast + width, forecast
        counts.append(count)
    return lower, upper, point, {"block_length": length, "residual_counts": tuple(counts)}


def forecast_interval(
    x,
    horizon,
    *,
    method="bootstrap",
    alpha=0.10,
    n_bootstraps=None,
    seed=None,
    criterion="aic",
    max_order=None,
    block_length=None,
    series_id=0,
):
    """Prediction intervals for the next ``horizon`` values of a univariate series.

    One entry point, two methods (``reference/forecast.py`` states every rule). Both
    first fit an AR(p), p the order of least criterion (AIC by default) among orders
    0 .. max_order whose fit is stationary (orders passed over: ``refused_orders``).

    * ``"bootstrap"``: an AR(p) chosen by the sieve (AIC by default) is fitted; each of
      B replicates rebuilds the series from resampled residuals, refits the AR(p) (so
      the interval carries the coefficients' uncertainty) and runs it ``horizon`` steps
      forward from the last observed values with resampled centred residuals as shocks;
      each step's bounds are the alpha/2 and 1 - alpha/2 quantiles of the B paths
      (Pascual, Romo & Ruiz 2004). Assumes i.i.d. innovations: heavy tails carry over,
      volatility clustering does not.
    * ``"conformal"``: EnbPI (Xu & Xie 2021) with moving-block ensembles: B members each
      fit, per step h, the direct regression of x_{t+h} on the last p values over a
      block-bootstrap resample of the rows; the interval is the members' mean forecast
      plus or minus the ceil((1 - alpha)(K + 1))-th smallest out-of-bag absolute
      residual. Approximate coverage under strong mixing, for large n.

    Parameters
    ----------
    x : array_like or pandas.Series
        One observed series, oldest first: n finite values, n > 2 max_order. A Series
        on a regular DatetimeIndex or PeriodIndex gives the future time stamps
        (``times``, and a ``time`` column in ``to_frame()``); a Panel is refused
        (forecast each of its series).
    horizon : int
        H >= 1, the steps ahead.
    method : {"bootstrap", "conformal"}, default "bootstrap"
        How the intervals are made (above).
    alpha : float, default 0.10
        Two-sided tail of each step's interval, in (0, 1): 0.10 asks for 90%.
    n_bootstraps : int, optional
        Bootstrap replicates (default 999) or ensemble members (default 100).
    seed : int, optional
        In [0, 2**128); None draws fresh entropy (recorded on the result).
    criterion : {"aic", "bic"}, default "aic"
        The sieve's criterion for the order p.
    max_order : int, optional
        The largest order compared; None for min(floor(10 log10 n), (n - 1) // 2).
    block_length : int, optional
        The conformal members' block length in observations; None for the smallest L
        with L**3 >= n. Refused for the bootstrap.
    series_id : int, default 0
        The counter's series word (as in the other entry points).

    Returns
    -------
    ForecastInterval
        ``lower``, ``upper`` and ``point`` as float64 arrays of length H (step h at
        index h - 1, data units), the fit, and what was drawn; it unpacks as
        ``lower, upper, point`` and ``to_frame()`` gives a DataFrame indexed by step.

    Raises
    ------
    ParameterTypeError, InvalidParameterError
        Bad ``horizon`` (code HORIZON), ``method`` (METHOD), ``alpha``, ``n_bootstraps``,
        ``seed``, ``criterion`` or ``max_order``, or a ``block_length`` for the bootstrap.
    InvalidDataError
        Bad ``x`` (as every entry point), a fit that is explosive or singular
        (MODEL_FIT), or a series too short for a conformal interval at this alpha
        (DATA_TOO_SHORT).

    Examples
    --------
    >>> import numpy as np
    >>> from bootmark import engine
    >>> x = np.array([0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5,
    ...               -0.1, 0.4, 0.5, -0.2, 0.7, 1.4, 1.5, 1.7, 0.6, 0.8, 1.3, 1.1])
    >>> result = engine.forecast_interval(x, 3, n_bootstraps=200, seed=1)
    >>> result.fit.order, result.lower.shape
    (1, (3,))
    """
    horizon, alpha, n_bootstraps, seed, series_id, sieve, block_length = check_forecast_arguments(
        horizon, method, alpha, n_bootstraps, seed, series_id, criterion, max_order, block_length
    )
    if isinstance(x, Panel):
        raise panel_error(x)
    series = as_array(x)
    model, refused = select_model(sieve, series, ARITHMETIC)
    values = np.ascontiguousarray(series.values[:, 0])
    if method == "bootstrap":
        lower, upper, point, extra = _bootstrap(model, values, horizon, alpha, n_bootstraps, seed, series_id)
    else:
        lower, upper, point, extra = _conformal(
            model, values, horizon, alpha, n_bootstraps, seed, series_id, block_length
        )
    return ForecastInterval(
        lower,
        upper,
        point,
        method,
        horizon,
        alpha,
        n_bootstraps,
        seed,
        series_id,
        model.fit,
        **extra,
        refused_orders=refused,
        times=future_times(x, horizon),
    )


# ---------------------------------------------------------------------------------------
# The draws, for tests and inspection


def shock_indices(count, horizon, seed, replicate, series=0):
    """V_1 .. V_H of replicate ``replicate``: which of ``count`` residuals each step's
    shock is (int64)."""
    root = stream_root(seed, series)
    k0, k1 = stream_key(root[0], root[1], root[2], np.uint64(replicate))
    return _shock_indices(np.uint64(count), horizon, np.uint64(k0), np.uint64(k1))


@njit(cache=True)
def _shock_indices(count, horizon, k0, k1):
    small, state = np.empty(4, dtype=np.uint64), np.zeros(2, dtype=np.int64)
    _draw_start(small, state)
    out = np.empty(horizon, dtype=np.int64)
    for h in range(horizon):
        out[h] = bounded(small, state, k0, k1, FORECAST_SHOCK, count)
    return out


def member_rows(rows, block_length, seed, members, series=0):
    """(members, rows) int64: every member's moving-block resample of the row numbers."""
    root = stream_root(seed, series)
    out = np.empty((members, rows), dtype=np.int64)
    _member_rows(rows, block_length, root[0], root[1], root[2], members, out)
    return out
