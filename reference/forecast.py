"""Prediction intervals for the next ``horizon`` values of a series: the specification.

:func:`forecast_interval` is one entry point with a ``method=`` switch. Both methods fit
the same autoregression first: the criteria of :class:`~reference.specs.SieveAR` (orders
0 .. P compared on a common sample, models.py items 1-5) pick the order p (see "The
fit" below), which gives the mean m, the fit (c, phi_1 .. phi_p) in data units and the
M = n - p centred residuals e_0 .. e_{M-1}. Steps are
h = 1 .. H (H = ``horizon``); step h forecasts x_{n-1+h}; ``alpha`` is the two-sided
tail of every step's interval, so alpha=0.10 asks each step for 90%.

**The fit.** The sieve ranks the orders 0 .. P by ``criterion`` (ties to the smaller
order); the order used is the best ranked whose fit to its full sample is non-singular
and stationary (models.py items 1-3), and the better-ranked orders passed over are
recorded in ``refused_orders``. SieveAR itself raises when its best order's fit is
explosive; a forecast instead takes the next order, because short histories make that
common: on 1,000 Gaussian AR(1) histories of n = 50 (phi = 0.7), AIC chose orders up to
16 and 41 best fits were explosive. Order 0 is stationary, so only a constant
series' every order can be refused (InvalidDataError MODEL_FIT).

**method="bootstrap"** (the forward bootstrap of Pascual, Romo & Ruiz 2004, "Bootstrap
predictive inference for ARIMA processes", J. Time Series Analysis 25; with B =
``n_bootstraps``, default 999). Replicate b (b = 0 .. B-1) is drawn from its key of
(seed, series, b), the usual replicate key:

1. *Parameter uncertainty.* x*_b is replicate b of ``SieveAR(IID())`` on the data
   (models.py items 6-7: residual indices from the RESIDUAL_INDEX stream, the recursion
   started at the observed x_0 .. x_{p-1}); (c*_b, phi*_b) is its AR(p) refit (item 8,
   the order not selected again). A refit that is singular or not stationary drops the
   replicate, as ``SieveAR(explosive="skip")`` does (its number is recorded in
   ``skipped``; if every one is dropped, InvalidDataError MODEL_FIT). The forecast
   assumes a stationary process, and an explosive refit's path grows without bound:
   kept, it dominated the long-horizon quantiles (a history of 20 sunspot numbers gave
   a 50-step interval 1,330 wide on data between 0 and 190) and overflowed to NaN past
   about 2,000 steps. Dropping it narrows the interval slightly near the unit circle;
   the F1 studies measure what that costs.
2. *Future shocks.* V_{b,h} = bounded(M), h = 1 .. H, drawn in order from the
   replicate's ``Purpose.FORECAST_SHOCK`` stream (a purpose of its own, so no existing
   stream shifts): the shock of step h is e_{V_{b,h}}.
3. *Path.* v_t = x_t for t < n (the observed past: the forecast is conditional on the
   last p observations, not on a bootstrapped past), and for h = 1 .. H
   v_{n-1+h} = ((c*_b + phi*_p v_{n-1+h-p}) + .. + phi*_1 v_{n-2+h}) + e_{V_{b,h}},
   the lags added from the oldest to the newest, in data units.
4. *Interval.* Step h's bounds are Q(alpha/2) and Q(1 - alpha/2) of the kept replicates'
   v_{n-1+h}, Q the linear quantile rule of intervals.py; its point is the data fit's
   forecast, the same recursion with (c, phi) and zero shocks.

Assumptions: the series is a stationary AR(infinity) well approximated by the chosen
order, with i.i.d. innovations whose law the centred residuals estimate. The shocks are
resampled, not assumed Gaussian (heavy tails carry over); conditional
heteroskedasticity (GARCH) does not, since i.i.d. resampling forgets when the
volatility was high.

**method="conformal"** (EnbPI, Xu & Xie 2021, "Conformal prediction interval for dynamic
time-series", ICML; the block bootstrap is their remedy for dependent rows; with B =
``n_bootstraps``, default 100 ensemble members). With w_t = x_t - m:

1. *Rows.* Origin t has the regressors z_t = (1, w_t, w_{t-1}, .., w_{t-p+1}). Row
   j = 0 .. R-1 (R = n - p) is origin t_j = p - 1 + j; at step h the rows with a known
   target w_{t_j + h} are j = 0 .. R_h - 1, R_h = R - h + 1 (the direct strategy: each
   step has its own regression of w_{t+h} on z_t, so no forecast is fed back).
2. *Members.* Member b draws a moving-block resample of the R rows from its key of
   (seed, series, b): k = ceil(R / L) block starts S_i = bounded(R - L + 1), in order,
   from the ``Purpose.CONFORMAL_BLOCK_START`` stream; its rows are S_0, S_0 + 1, ..,
   S_0 + L - 1, S_1, .. cut at R rows. L = ``block_length``, default the smallest
   integer with L**3 >= n (the n**(1/3) rate of block-bootstrap lengths), at most R.
   The same resample serves every step; at step h the member uses its rows below R_h.
3. *Fits.* Member b's step-h coefficients beta^{b,h} solve the normal equations of
   models.py item 1 summed over its rows at step h, repeats counted (each sum a
   math.fsum of the products, the same elimination and singularity test). A singular
   system leaves the member out of step h.
4. *Out-of-bag residuals.* For a row j < R_h, the members not singular at h that never
   drew j give f_{-j} = (sum over them, in member order, of beta^{b,h} . z_{t_j}) / their
   count, each product beta . z summed from beta_0 up, and r_j = abs(w_{t_j+h} - f_{-j}). A
   row every member drew gets no residual; K_h counts the residuals.
5. *Interval.* The centre is the mean of every member's (not singular at h) forecast
   beta^{b,h} . z_{n-1}, summed in member order; the point is m + centre. The half-width
   q_h is the k-th smallest of the K_h residuals, k = ceil((1 - alpha) (K_h + 1)); the
   bounds are point -/+ q_h. If k > K_h the series is too short for that alpha
   (InvalidDataError DATA_TOO_SHORT naming x).

Assumptions (those of EnbPI): the errors of the direct regressions are stationary and
strongly mixing and the fitted regressions converge; coverage then holds approximately,
for large n, not in finite samples. The interval is symmetric about the ensemble mean;
the centre is the members' mean forecast rather than the (1 - alpha) quantile of
leave-one-out forecasts that the paper's first version used (its intervals were found
off-centre, MAPIE issue 495).

Stream contract: everything depends only on (seed, series, b); the purposes are new
(FORECAST_SHOCK = 9, CONFORMAL_BLOCK_START = 10), so STREAM_VERSION is unchanged. The
engine draws the same indices bit for bit; its refits and member fits sum with
``accurate_sum`` instead of math.fsum, so bounds agree within
``FORECAST_BOUND`` times (1 + max abs(x)) (engine/forecast.py states why).
"""

import math
import secrets
from dataclasses import dataclass, field, replace

from .data import as_series
from .draws import Purpose, WordStream
from .errors import DataTypeError, ErrorCode, InvalidDataError, InvalidParameterError, ParameterTypeError
from .indices import STREAM_VERSION
from .keys import root_key, stream_key
from .models import (
    ARITHMETIC,
    FIT_OK,
    FIT_SINGULAR,
    ModelFit,
    centre_values,
    check_order_fits,
    check_univariate,
    default_max_order,
    fit_error,
    refit,
    replicate_paths,
    resolve_model,
    sieve_criteria,
    solve,
)
from .panel import Panel
from .reduce import quantile_sorted
from .specs import AR, ResidualBootstrap, SieveAR
from .validation import as_positive_int, check_alpha, check_n_bootstraps, check_seed, check_series_id

__all__ = [
    "FORECAST_METHODS",
    "DEFAULT_BOOTSTRAPS",
    "FORECAST_BOUND",
    "ForecastInterval",
    "forecast_interval",
    "check_forecast_arguments",
    "select_model",
    "default_block_length",
    "shock_indices",
    "member_rows",
]

FORECAST_METHODS = ("bootstrap", "conformal")
DEFAULT_BOOTSTRAPS = {"bootstrap": 999, "conformal": 100}  # replicates / ensemble members when None
FORECAST_BOUND = 1e-9  # |engine - reference| of a bound, relative to 1 + max |x| (engine/forecast.py)
SEED_BITS = 64  # entropy drawn for seed=None, as the other entry points draw


@dataclass(frozen=True)
class ForecastInterval:
    """Per-step prediction intervals for the next ``horizon`` values of a series.

    Attributes
    ----------
    lower, upper, point : sequence of float
        Step h's bounds and point forecast at index h - 1, in the data's units (tuples
        here; float64 arrays from the engine).
    method : str
        ``"bootstrap"`` or ``"conformal"``.
    horizon : int
        H, the number of steps.
    alpha : float
        The two-sided tail of every step's interval.
    n_bootstraps : int
        B: bootstrap replicates, or ensemble members.
    seed : int
        The seed used (drawn fresh when None was passed).
    series_id : int
        The counter's series word.
    fit : ModelFit
        The autoregression fitted to the data (its order p chosen by the sieve).
    block_length : int or None
        The members' block length L (conformal); None for the bootstrap.
    skipped : tuple of int
        Replicates dropped for a singular or explosive refit (bootstrap).
    residual_counts : tuple of int
        K_h, the out-of-bag residuals behind each step's width (conformal); empty for
        the bootstrap.
    refused_orders : tuple of int
        Orders ranked above ``fit.order`` by the criterion whose fit was explosive or
        singular, best first (usually empty).
    stream_version : int
        The random streams' version.
    """

    lower: tuple
    upper: tuple
    point: tuple
    method: str
    horizon: int
    alpha: float
    n_bootstraps: int
    seed: int
    series_id: int
    fit: ModelFit
    block_length: int = None
    skipped: tuple = ()
    residual_counts: tuple = ()
    refused_orders: tuple = ()
    stream_version: int = field(default=STREAM_VERSION)

    def __iter__(self):
        """Unpack as ``lower, upper, point``."""
        return iter((self.lower, self.upper, self.point))


def check_forecast_arguments(horizon, method, alpha, n_bootstraps, seed, series_id, criterion, max_order, block_length):
    """The argument checks both twins share, in one order: the checked values, with
    ``n_bootstraps`` None replaced by the method's default and seed None by fresh entropy."""
    horizon = as_positive_int(
        horizon, "horizon", ErrorCode.HORIZON, "pass the number of steps ahead, an int >= 1", integral_floats=False
    )
    if not isinstance(method, str):
        raise ParameterTypeError(ErrorCode.METHOD, "method", f"expected a string, got {method!r}", _method_fix())
    if method not in FORECAST_METHODS:
        raise InvalidParameterError(ErrorCode.METHOD, "method", f"unknown forecast method {method!r}", _method_fix())
    alpha = check_alpha(alpha)
    n_bootstraps = DEFAULT_BOOTSTRAPS[method] if n_bootstraps is None else check_n_bootstraps(n_bootstraps)
    seed = secrets.randbits(SEED_BITS) if seed is None else check_seed(seed)
    series_id = check_series_id(series_id)
    sieve = SieveAR(max_order=max_order, criterion=criterion)  # checks both, with SieveAR's errors
    if block_length is not None:
        if method != "conformal":
            raise InvalidParameterError(
                ErrorCode.BLOCK_LENGTH,
                "block_length",
                "only method='conformal' resamples blocks",
                "leave block_length=None for method='bootstrap'",
            )
        block_length = as_positive_int(
            block_length,
            "block_length",
            ErrorCode.BLOCK_LENGTH,
            "pass a positive int, or leave block_length unset (None) for the smallest L with L**3 >= n",
            integral_floats=False,
        )
    return horizon, alpha, n_bootstraps, seed, series_id, sieve, block_length


def panel_error(panel):
    """The error for a Panel passed as ``x``: a forecast is of one series."""
    return DataTypeError(
        ErrorCode.DATA_TYPE,
        "x",
        f"forecast_interval forecasts one series, got a Panel of {len(panel.ids)} series",
        "call it once per series, e.g. {name: forecast_interval(panel.series(name), horizon) for name in panel.ids}",
    )


def no_paths_error(count, order):
    """The error when every one of ``count`` bootstrap refits was dropped."""
    return InvalidDataError(
        ErrorCode.MODEL_FIT,
        "x",
        f"all {count} replicate AR({order}) refits are explosive or singular, so no future path can be run",
        "pass a longer series, a lower max_order, or use method='conformal'",
    )


def select_model(sieve, series, arithmetic):
    """(resolved model, refused orders): "The fit" above, with the twin's ``arithmetic``.
    The model is ``ResidualBootstrap(AR(p))``'s, its fit carrying the sieve's record."""
    check_univariate(series)
    n = series.n
    max_order = default_max_order(n) if sieve.max_order is None else check_order_fits(sieve.max_order, n, "max_order")
    values = sieve_criteria(arithmetic.centre(series)[1], max_order, sieve.criterion, arithmetic)
    refused = []
    for order in sorted(range(max_order + 1), key=lambda q: (values[q], q)):
        try:
            model = resolve_model(ResidualBootstrap(AR(order)), series, arithmetic)
        except InvalidDataError as error:
            if error.code is not ErrorCode.MODEL_FIT:
                raise
            refused.append(order)
            last = error
            continue
        fit = replace(model.fit, max_order=max_order, criterion=sieve.criterion, criterion_values=values)
        return replace(model, fit=fit), tuple(refused)
    raise last


def _method_fix():
    return f"pass one of {', '.join(repr(m) for m in FORECAST_METHODS)}"


def default_block_length(n):
    """The smallest integer L with L**3 >= n: the float cube root only seeds a search
    whose test is exact integer arithmetic, so the answer is exact."""
    length = max(1, round(n ** (1.0 / 3.0)) - 1)
    while length**3 < n:
        length += 1
    return length


def shock_indices(count, horizon, key):
    """V_1 .. V_H of replicate ``key``: bounded(count) from its FORECAST_SHOCK stream."""
    stream = WordStream(key, Purpose.FORECAST_SHOCK)
    return [stream.bounded(count) for _ in range(horizon)]


def member_rows(rows, block_length, key):
    """Member ``key``'s moving-block resample of ``rows`` row numbers (item 2)."""
    stream = WordStream(key, Purpose.CONFORMAL_BLOCK_START)
    out = []
    for _ in range(-(-rows // block_length)):
        start = stream.bounded(rows - block_length + 1)
        out.extend(range(start, start + block_length))
    return out[:rows]


def _forward(intercept, phi, past, shocks):
    """The recursion of step 3: ``past`` holds at least p observed values, oldest first."""
    order = len(phi)
    values = list(past[len(past) - order :]) if order else []
    out = []
    for shock in shocks:
        value = intercept
        for k in range(order, 0, -1):
            value = value + phi[k - 1] * values[len(values) - k]
        value = value + shock
        values.append(value)
        out.append(value)
    return out


def _bootstrap(model, x, horizon, alpha, n_bootstraps, seed, series_id):
    order, residuals = model.fit.order, model.residuals
    root = root_key(seed)
    paths, skipped = [], []
    for replicate, path in enumerate(replicate_paths(model, x, seed, n_bootstraps, series=series_id)):
        components, status = refit(path, order)
        if status != FIT_OK:
            skipped.append(replicate)
            continue
        key = stream_key(root, replicate, series_id)
        shocks = [residuals[v] for v in shock_indices(len(residuals), horizon, key)]
        paths.append(_forward(components[0], components[1:], x, shocks))
    if not paths:
        raise no_paths_error(n_bootstraps, order)
    point = _forward(model.fit.intercept, model.fit.coefficients, x, [0.0] * horizon)
    lower, upper = [], []
    for step in range(horizon):
        ordered = sorted(path[step] for path in paths)
        lower.append(quantile_sorted(ordered, alpha / 2.0))
        upper.append(quantile_sorted(ordered, 1.0 - alpha / 2.0))
    return tuple(lower), tuple(upper), tuple(point), {"skipped": tuple(skipped)}


def _regressors(w, order, origin):
    """z_origin = (1, w_origin, .., w_{origin-p+1})."""
    return [1.0] + [w[origin - k] for k in range(order)]


def _dot(beta, z):
    total = beta[0] * z[0]
    for k in range(1, len(beta)):
        total = total + beta[k] * z[k]
    return total


def member_fit(w, order, sample, step):
    """beta^{b,h} of item 3 for the rows ``sample`` (with repeats) below R_h, or None
    when singular."""
    origins = [order - 1 + j for j in sample if j < len(w) - order - step + 1]
    size = order + 1
    rows = [_regressors(w, order, t) for t in origins]
    a = [[math.fsum(z[i] * z[k] for z in rows) for k in range(size)] for i in range(size)]
    b = [math.fsum(z[i] * w[t + step] for z, t in zip(rows, origins, strict=True)) for i in range(size)]
    return solve(a, b, size)


def _conformal(model, x, horizon, alpha, n_bootstraps, seed, series_id, block_length):
    order, n = model.fit.order, len(x)
    mean, w = centre_values(x)
    rows = n - order
    length = min(block_length or default_block_length(n), rows)
    root = root_key(seed)
    samples = [member_rows(rows, length, stream_key(root, b, series_id)) for b in range(n_bootstraps)]
    drawn = [set(sample) for sample in samples]
    latest = _regressors(w, order, n - 1)
    lower, upper, point, counts = [], [], [], []
    for step in range(1, horizon + 1):
        fits = [member_fit(w, order, sample, step) for sample in samples]
        members = [b for b, beta in enumerate(fits) if beta is not None]
        if not members:
            raise fit_error(FIT_SINGULAR, order)
        residuals = []
        for j in range(rows - step + 1):
            out_of_bag = [b for b in members if j not in drawn[b]]
            if out_of_bag:
                z = _regressors(w, order, order - 1 + j)
                total = 0.0
                for b in out_of_bag:
                    total = total + _dot(fits[b], z)
                residuals.append(abs(w[order - 1 + j + step] - total / len(out_of_bag)))
        centre = 0.0
        for b in members:
            centre = centre + _dot(fits[b], latest)
        forecast = mean + centre / len(members)
        width = sorted(residuals)[conformal_rank(len(residuals), alpha, n, order, step) - 1]
        lower.append(forecast - width)
        upper.append(forecast + width)
        point.append(forecast)
        counts.append(len(residuals))
    return tuple(lower), tuple(upper), tuple(point), {"block_length": length, "residual_counts": tuple(counts)}


def conformal_rank(count, alpha, n, order, step):
    """k = ceil((1 - alpha) (K + 1)), the rank of step ``step``'s half-width among its
    K = ``count`` residuals; InvalidDataError DATA_TOO_SHORT (naming x, and the shortest
    n that would do) when k > K."""
    rank = math.ceil((1.0 - alpha) * (count + 1))
    if rank > count:
        needed = math.ceil((1.0 - alpha) / alpha)  # the least K with ceil((1 - alpha)(K + 1)) <= K
        while math.ceil((1.0 - alpha) * (needed + 1)) > needed:
            needed += 1
        usable = n - order - step + 1
        fix = f"pass at least {needed + order + step - 1} values (here order p = {order}), or a larger alpha"
        if count < usable:
            fix += f"; {usable - count} rows were drawn by every member, so more n_bootstraps would help too"
        raise InvalidDataError(
            ErrorCode.DATA_TOO_SHORT,
            "x",
            f"n = {n} leaves {count} out-of-bag residuals at step {step}, fewer than the {needed} a "
            f"conformal interval at alpha = {alpha} needs",
            fix,
        )
    return rank


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

    The reference twin's :func:`bootmark.engine.forecast_interval`: the same arguments,
    errors and draws; the module docstring above states every rule.

    Parameters
    ----------
    x : sequence of float
        One observed series, oldest first (n values, n > 2 max_order); a Panel is
        refused (forecast each of its series).
    horizon : int
        H >= 1, the steps ahead.
    method : {"bootstrap", "conformal"}, default "bootstrap"
        Forward bootstrap paths with refitted coefficients, or EnbPI conformal intervals.
    alpha : float, default 0.10
        Two-sided tail of each step's interval, in (0, 1).
    n_bootstraps : int, optional
        Bootstrap replicates (default 999) or ensemble members (default 100).
    seed : int, optional
        In [0, 2**128); None draws fresh entropy (recorded on the result).
    criterion : {"aic", "bic"}, default "aic"
        The sieve's criterion for the order.
    max_order : int, optional
        The largest order compared; None for the sieve's default.
    block_length : int, optional
        The conformal members' block length; None for the smallest L with L**3 >= n.
    series_id : int, default 0
        The counter's series word.

    Returns
    -------
    ForecastInterval
        Per-step ``lower``, ``upper`` and ``point``; unpacks as those three.
    """
    horizon, alpha, n_bootstraps, seed, series_id, sieve, block_length = check_forecast_arguments(
        horizon, method, alpha, n_bootstraps, seed, series_id, criterion, max_order, block_length
    )
    if isinstance(x, Panel):
        raise panel_error(x)
    series = as_series(x)
    model, refused = select_model(sieve, series, ARITHMETIC)
    values = list(series.columns[0])
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
    )
