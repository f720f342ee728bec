"""Automatic block length: Politis & White (2004) with the Patton, Politis & White
(2009) correction, and the resolution of ``"auto"`` specs to integer lengths.

For one column of n observations, with e = x - mean(x), autocovariances
g_k = sum_t e_t e_{t+k} / n (k = 0 .. m_max) and the conventions of
``arch.bootstrap.optimal_block_length`` 8.0.0 (kept so that the two agree to rounding):

* K = max(5, floor(log10 n)), m_max = ceil(sqrt n) + K, band = 2 sqrt(log10(n) / n).
* The k-th autocorrelation used for the band test is
  |sum_t e_t e_{t+k}| / sqrt(sum_{t>k} e_t^2 * sum_{t<n-k-1} e_t^2).
* m_hat is the first lag k at which K consecutive autocorrelations (lags k .. k+K-1)
  are all inside the band; M = min(2 max(m_hat, 1), m_max), or m_max if none is found.
* With the flat-top window h(t) = 1 for t <= 1/2, 2 (1 - t) for 1/2 < t <= 1:
  G = 2 sum_{k=1}^{M} h(k/M) k g_k and sigma2 = g_0 + 2 sum_{k=1}^{M} h(k/M) g_k.
* b = (2 G^2 / (c sigma2^2))^(1/3) n^(1/3), with c = 2 (stationary) or 4/3 (circular),
  capped at ceil(min(3 sqrt n, n / 3)).

Sums use math.fsum. The raw estimates are reported unrounded; ``"auto"`` resolves to
ceil(estimate) floored at 1 (the raw estimate can fall below 1 for nearly white data,
where arch would hand back a fraction). Multivariate data resolve to the largest
per-column length, so the most persistent variable keeps its dependence. Moving,
non-overlapping and tapered blocks use the circular estimate (the MBB and CBB share
their optimal length; the NBB and TBB have none of their own here).
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass, replace

from .data import as_series
from .errors import BlockLengthWarning, ErrorCode, InvalidDataError, InvalidParameterError, warn_at_caller
from .specs import AUTO, IID, DataLike, NonOverlappingBlock, StationaryBlock


def _autocovariances(e, max_lag, run, band):
    """Autocovariances g_0 .. g_max_lag and the first lag opening a run of ``run``
    autocorrelations inside ``band`` (None if there is no such run)."""
    n = len(e)
    autocovariance, inside, m_hat = [], [], None
    for lag in range(max_lag + 1):
        cross = math.fsum(e[t] * e[t + lag] for t in range(n - lag))
        later = math.fsum(v * v for v in e[lag + 1 :])
        earlier = math.fsum(v * v for v in e[: max(n - lag - 1, 0)])
        autocovariance.append(cross / n)
        denominator = math.sqrt(later * earlier)
        inside.append(denominator > 0 and abs(cross) / denominator < band)
        if m_hat is None and lag >= run and all(inside[lag - run : lag]):
            m_hat = lag - run
    return autocovariance, m_hat


def flat_top_bandwidth(m_hat, m_max):
    """M = min(2 max(m_hat, 1), m_max), or m_max when no insignificant run was found."""
    return min(2 * max(m_hat, 1), m_max) if m_hat is not None else m_max


MIN_ESTIMATE_OBSERVATIONS = 6  # below this the flat-top window spans every lag: sigma2 = 0


def check_estimable(n, constant):
    """Refuse a column whose block length cannot be estimated (shared by both twins)."""
    fix = "pass an explicit block length instead of 'auto'"
    if n < MIN_ESTIMATE_OBSERVATIONS:
        # With n <= 5 the window weights every lag 1, so sigma2 = (sum of e)**2 / n = 0
        # exactly and any estimate would be rounding noise.
        raise InvalidDataError(
            ErrorCode.BLOCK_LENGTH_ESTIMATE,
            "x",
            f"{n} observations are too few to estimate a block length (at least {MIN_ESTIMATE_OBSERVATIONS})",
            fix,
        )
    if constant:
        raise InvalidDataError(
            ErrorCode.BLOCK_LENGTH_ESTIMATE, "x", "a constant series has no dependence to measure", fix
        )


def check_long_run_variance(long_run):
    """Refuse a zero long-run variance estimate, which would divide by zero (both twins)."""
    if long_run == 0.0:
        raise InvalidDataError(
            ErrorCode.BLOCK_LENGTH_ESTIMATE,
            "x",
            "the long-run variance estimate is zero",
            "pass an explicit block length instead of 'auto'",
        )


def _column_estimates(column):
    n = len(column)
    check_estimable(n, min(column) == max(column))
    # The estimate is scale-free; scaling by a power of two is exact and keeps squares
    # finite for data near the float limits.
    exponent = math.frexp(max(abs(v) for v in column))[1]
    column = [math.ldexp(v, -exponent) for v in column]
    centre = math.fsum(column) / n
    e = [v - centre for v in column]
    cap = float(math.ceil(min(3.0 * math.sqrt(n), n / 3.0)))
    run = max(5, int(math.log10(n)))
    m_max = math.ceil(math.sqrt(n)) + run
    autocovariance, m_hat = _autocovariances(e, m_max, run, 2.0 * math.sqrt(math.log10(n) / n))
    bandwidth = flat_top_bandwidth(m_hat, m_max)
    flat_top = [1.0 if k / bandwidth <= 0.5 else 2.0 * (1.0 - k / bandwidth) for k in range(bandwidth + 1)]
    g = 2.0 * math.fsum(flat_top[k] * k * autocovariance[k] for k in range(1, bandwidth + 1))
    long_run = autocovariance[0] + 2.0 * math.fsum(flat_top[k] * autocovariance[k] for k in range(1, bandwidth + 1))
    check_long_run_variance(long_run)
    scale = (2.0 * g * g / (long_run * long_run)) ** (1.0 / 3.0) * n ** (1.0 / 3.0)
    stationary = min(scale / 2.0 ** (1.0 / 3.0), cap)
    circular = min(scale / (4.0 / 3.0) ** (1.0 / 3.0), cap)
    return stationary, circular


def _resolved(estimate, n):
    return min(max(1, math.ceil(estimate)), n)


@dataclass(frozen=True)
class BlockLengthEstimate:
    """Politis-White block lengths of a series.

    ``stationary`` and ``circular`` are the raw (unrounded) estimates in observations:
    floats for one series, tuples with one entry per column for multivariate data
    (``labels`` names the columns of a DataFrame). ``stationary_length`` and
    ``circular_length`` are the integers ``"auto"`` resolves to.

    Both twins' :func:`optimal_block_length` return this class.

    Attributes
    ----------
    stationary : float or tuple of float
        Raw estimate of the mean block length of :class:`~bootmark.reference.StationaryBlock`.
    circular : float or tuple of float
        Raw estimate of the block length of :class:`~bootmark.reference.CircularBlock`
        (also used for moving, non-overlapping and tapered blocks).
    stationary_length : int
        What ``StationaryBlock("auto")`` resolves to: ceil(estimate) floored at 1 and
        capped at n; for multivariate data the largest over the columns.
    circular_length : int
        What ``"auto"`` resolves to for the other block methods, by the same rule.
    labels : tuple or None
        The DataFrame's column labels, in the order of the tuples; None otherwise.

    See Also
    --------
    optimal_block_length : computes it.

    Examples
    --------
    >>> from bootmark import reference
    >>> x = [0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5,
    ...      -0.1, 0.4, 0.5, -0.2, 0.7, 1.4, 1.5, 1.7, 0.6, 0.8, 1.3, 1.1]
    >>> rows = [(v, v * v) for v in x]  # two variables: a series and its square
    >>> estimate = reference.optimal_block_length(rows)
    >>> [round(v, 6) for v in estimate.circular]
    [3.334376, 3.199385]
    >>> estimate.circular_length  # the larger column's, rounded up
    4
    """

    stationary: float | tuple[float, ...]
    circular: float | tuple[float, ...]
    stationary_length: int
    circular_length: int
    labels: tuple[Hashable, ...] | None = None


def estimate_block_length(series, column_estimates=None):
    """:class:`BlockLengthEstimate` of an already checked series (either twin's: it needs
    ``n``, ``univariate``, ``labels`` and ``columns_for_estimate()``), from the
    (stationary, circular) pairs of ``column_estimates`` (default: this module's)."""
    pairs = [(column_estimates or _column_estimates)(column) for column in series.columns_for_estimate()]
    stationary = tuple(p[0] for p in pairs)
    circular = tuple(p[1] for p in pairs)
    return BlockLengthEstimate(
        stationary[0] if series.univariate else stationary,
        circular[0] if series.univariate else circular,
        max(_resolved(s, series.n) for s in stationary),
        max(_resolved(c, series.n) for c in circular),
        series.labels,
    )


def optimal_block_length(x: DataLike) -> BlockLengthEstimate:
    """Politis-White (2004, corrected 2009) optimal block lengths of ``x``.

    Returns a :class:`BlockLengthEstimate`. Raises InvalidDataError for bad data or a
    series whose long-run variance estimate is zero.

    The estimator, its constants and its rounding are defined in this module's
    docstring; they follow ``arch.bootstrap.optimal_block_length`` 8.0.0, so the raw
    estimates agree with arch's to rounding. ``"auto"`` block lengths resolve to this
    estimate of the data being bootstrapped.

    Parameters
    ----------
    x : sequence of float, sequence of rows, numpy array or pandas object
        One series of n observations, or n rows of d variables (each column is
        estimated on its own). At least 6 observations per column; no column constant.

    Returns
    -------
    BlockLengthEstimate
        Raw estimates in observations (floats, or tuples per column) and the integer
        lengths ``"auto"`` resolves to.

    Raises
    ------
    DataTypeError
        Code DATA_TYPE: ``x`` is not numeric.
    InvalidDataError
        Codes DATA_SHAPE, DATA_TOO_SHORT, DATA_NOT_FINITE, DATA_RANGE, DATA_TOO_LONG: ``x``
        is not one or two dimensions of finite numbers. Code BLOCK_LENGTH_ESTIMATE: a
        column has fewer than 6 observations, is constant, or has a zero long-run variance
        estimate.

    See Also
    --------
    bootmark.engine.optimal_block_length : the engine's twin (agrees to about 1e-12 relative).
    StationaryBlock, CircularBlock : the specs whose ``"auto"`` this resolves.

    Examples
    --------
    >>> from bootmark import reference
    >>> x = [0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5,
    ...      -0.1, 0.4, 0.5, -0.2, 0.7, 1.4, 1.5, 1.7, 0.6, 0.8, 1.3, 1.1]
    >>> estimate = reference.optimal_block_length(x)
    >>> round(estimate.stationary, 6), round(estimate.circular, 6)
    (2.912846, 3.334376)
    >>> estimate.stationary_length, estimate.circular_length
    (3, 4)
    >>> reference.bootstrap(x, reference.StationaryBlock("auto"), n_bootstraps=1, seed=0).method
    StationaryBlock(mean_block_length=3)
    >>> reference.optimal_block_length([1.0, 2.0, 3.0])
    Traceback (most recent call last):
        ...
    bootmark.reference.errors.InvalidDataError: x: 3 observations are too few to estimate a block length (at least 6)...
    """
    return estimate_block_length(as_series(x))


def resolve_method(method, series, column_estimates=None):
    """Return ``method`` with ``"auto"`` replaced by an int, checked against n.

    ``column_estimates`` is the twin's per-column estimator (see estimate_block_length).

    A block length above n raises InvalidParameterError; one equal to n is allowed with
    a :class:`BlockLengthWarning`, since every replicate is then the original series up
    to rotation (so is a non-overlapping length above n / 2, which leaves one block).
    """
    if isinstance(method, IID):
        return method
    field_name = "mean_block_length" if isinstance(method, StationaryBlock) else "block_length"
    length = method.block_length
    if length == AUTO:
        estimate = estimate_block_length(series, column_estimates)
        length = estimate.stationary_length if isinstance(method, StationaryBlock) else estimate.circular_length
        method = replace(method, **{field_name: length})
    n = series.n
    if length > n:
        raise InvalidParameterError(
            ErrorCode.BLOCK_LENGTH,
            field_name,
            f"{length} exceeds the series length n = {n}",
            f"pass a length between 1 and {n}, or 'auto'",
        )
    if length == n:
        warn_at_caller(
            f"{field_name} equals the series length n = {n}: every replicate is the original series up to rotation",
            BlockLengthWarning,
        )
    elif isinstance(method, NonOverlappingBlock) and n // length == 1:
        warn_at_caller(
            f"block_length {length} leaves room for one non-overlapping block in n = {n}: "
            "every replicate is the same series",
            BlockLengthWarning,
        )
    return method
