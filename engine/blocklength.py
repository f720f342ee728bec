"""Automatic block length (Politis & White 2004, corrected 2009) and the resolution of
``"auto"`` specs, in vectorised numpy.

The definitions are those of ``reference/blocklength.py`` (whose docstring states them;
they follow ``arch.bootstrap.optimal_block_length`` 8.0.0): the same K, m_max, band,
first-run rule for m_hat, flat-top window, constants and cap, the same rounding of
``"auto"`` to ceil(estimate) floored at 1, and the same errors and warnings. Block
lengths are counts of observations.

Differences from the reference are in arithmetic only:

* the centre is numpy's pairwise mean plus one correction pass (within an ulp or so of
  the reference's correctly rounded fsum mean);
* each autocovariance is numpy's pairwise sum of the centred column times its lagged
  self, and the band test's sums of squares come from cumulative sums over the few lags
  needed. Not ``np.dot``: BLAS kernels differ between CPUs (OpenBLAS's Haswell and
  SkylakeX ddot round differently) and, on long columns, with OPENBLAS_NUM_THREADS, and
  an estimate must not depend on either;
* each column is first scaled by a power of two to a maximum magnitude in [0.5, 1), as
  in the reference: exact, and it keeps squares finite for data near the float limits;
* lags stop at the flat-top bandwidth M once m_hat is known, since g_k for k > M never
  enters the estimate (a persistent series, with no insignificant run, still costs
  m_max + 1 sums of products of length n, as in the reference and arch: about 1.1 s
  for a random walk of 10**6 observations here, 7 times what BLAS dot products took,
  the price of machine-independent bits; series of 10**4 or fewer cost the same).

The raw estimates agree with the reference's to about 1e-12 relative (the test allows
1e-10); the band test is a threshold, so a column whose autocorrelation lies within
rounding of the band could in principle pick a different m_hat. Columns with fewer than
``MIN_ESTIMATE_OBSERVATIONS`` values, or constant ones, are refused by the shared check.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from bootmark.reference import blocklength as reference_blocklength
from bootmark.reference.blocklength import check_estimable, check_long_run_variance

from .data import as_array

if TYPE_CHECKING:  # annotations only: importing this module loads neither numpy.typing nor pandas
    import numpy.typing as npt
    import pandas as pd

    from bootmark.reference.blocklength import BlockLengthEstimate


def _dot(a, b):
    """sum(a * b) by numpy's pairwise summation: the same bits on every CPU and thread count."""
    return float(np.sum(a * b))


def _sums_of_squares(e, max_lag):
    """For k = 0 .. max_lag: later[k] = sum e[k+1:]**2 and earlier[k] = sum
    e[:max(n - k - 1, 0)]**2, the two halves of the band test's denominator.

    Each is a bulk sum plus a cumulative sum over at most max_lag + 1 terms. All terms
    are >= 0, so a sum is exactly 0 only when every term is, as with the reference.
    """
    n = e.shape[0]
    lags = np.arange(max_lag + 1)
    head_end = min(max_lag + 2, n)  # later[k] for k <= max_lag reads e[k+1:], k+1 < head_end
    bulk_later = _dot(e[head_end:], e[head_end:])
    head = e[1:head_end] ** 2
    suffix = np.append(np.cumsum(head[::-1])[::-1], 0.0)  # suffix[i] = sum head[i:]
    later = bulk_later + suffix[np.minimum(lags, head_end - 1)]
    tail_start = max(n - max_lag - 1, 0)  # earlier[k] reads e[:n-k-1], never shorter than this
    bulk_earlier = _dot(e[:tail_start], e[:tail_start])
    prefix = np.append(0.0, np.cumsum(e[tail_start : n - 1] ** 2))  # prefix[i] = sum e[tail_start:tail_start+i]**2
    earlier = bulk_earlier + prefix[np.maximum(n - lags - 1, 0) - tail_start]
    return later, earlier


def flat_top_bandwidth(m_hat, m_max):
    """M = min(2 max(m_hat, 1), m_max), or m_max when no insignificant run was found."""
    return min(2 * max(m_hat, 1), m_max) if m_hat is not None else m_max


def _autocovariances(e, max_lag, run, band):
    """(g_0 .. g_M as an array, m_hat): autocovariances up to the flat-top bandwidth M and
    the first lag opening a run of ``run`` autocorrelations inside ``band`` (or None)."""
    n = e.shape[0]
    later, earlier = _sums_of_squares(e, max_lag)
    cross, streak, m_hat, last = [], 0, None, max_lag
    lag = 0
    while lag <= last:
        # The reference tests lags lag-run .. lag-1 at step `lag`, so the test comes first.
        if m_hat is None and lag >= run and streak >= run:
            m_hat = lag - run
            last = flat_top_bandwidth(m_hat, max_lag)
            if lag > last:
                break
        # Slicing e[:n - lag] with lag >= n would wrap around; the reference's sum is empty.
        product = _dot(e[: n - lag], e[lag:]) if lag < n else 0.0
        cross.append(product)
        denominator = math.sqrt(later[lag] * earlier[lag])
        streak = streak + 1 if denominator > 0 and abs(product) / denominator < band else 0
        lag += 1
    return np.array(cross) / n, m_hat


def _column_estimates(column):
    """(stationary, circular) raw estimates of one contiguous float64 column."""
    n = column.shape[0]
    check_estimable(n, column.min() == column.max())
    # The estimate is scale-free. Scaling by a power of two is exact, so it changes no
    # rounding in the range where the reference works, and keeps squares and products
    # finite for data near the float limits (where the reference's fsum overflows).
    _, exponent = math.frexp(float(np.max(np.abs(column))))
    column = np.ldexp(column, -exponent)
    centre = column.mean()
    centre += (column - centre).mean()  # removes most of the pairwise sum's rounding
    e = column - centre
    cap = float(math.ceil(min(3.0 * math.sqrt(n), n / 3.0)))
    run = max(5, int(math.log10(n)))
    m_max = math.ceil(math.sqrt(n)) + run
    autocovariance, m_hat = _autocovariances(e, m_max, run, 2.0 * math.sqrt(math.log10(n) / n))
    bandwidth = flat_top_bandwidth(m_hat, m_max)
    k = np.arange(1, bandwidth + 1)
    t = k / bandwidth
    flat_top = np.where(t <= 0.5, 1.0, 2.0 * (1.0 - t))
    lagged = autocovariance[1 : bandwidth + 1]
    # G is a signed sum that nearly cancels for white-ish data; fsum over O(sqrt n) terms is free.
    g = 2.0 * math.fsum((flat_top * k * lagged).tolist())
    long_run = float(autocovariance[0]) + 2.0 * math.fsum((flat_top * lagged).tolist())
    check_long_run_variance(long_run)
    scale = (2.0 * g * g / (long_run * long_run)) ** (1.0 / 3.0) * n ** (1.0 / 3.0)
    stationary = min(scale / 2.0 ** (1.0 / 3.0), cap)
    circular = min(scale / (4.0 / 3.0) ** (1.0 / 3.0), cap)
    return stationary, circular


def estimate_block_length(series):
    """:class:`~reference.blocklength.BlockLengthEstimate` of a checked engine
    :class:`~engine.data.Series`, from this module's column arithmetic."""
    return reference_blocklength.estimate_block_length(series, _column_estimates)


def optimal_block_length(x: npt.ArrayLike | pd.Series | pd.DataFrame) -> BlockLengthEstimate:
    """Politis-White (2004, corrected 2009) optimal block lengths of ``x``, in observations.

    Returns a :class:`~reference.blocklength.BlockLengthEstimate`. Raises
    InvalidDataError for bad data, a constant or too short column, or a zero long-run
    variance.

    The definitions are the reference's (:func:`bootmark.reference.optimal_block_length`),
    computed in numpy; the raw estimates agree with the reference's to about 1e-12
    relative, and the integer lengths ``"auto"`` resolves to are the same unless a column's
    autocorrelation lies within rounding of the band (this module's docstring).

    Parameters
    ----------
    x : array_like, pandas.Series or pandas.DataFrame
        One series of n observations, or n rows of d variables (each column estimated on
        its own; the integer lengths take the largest). At least 6 observations per
        column, none constant.

    Returns
    -------
    BlockLengthEstimate
        ``stationary`` and ``circular``: raw estimates in observations (floats, or
        tuples per column); ``stationary_length`` and ``circular_length``: the ints
        ``"auto"`` resolves to; ``labels``: a DataFrame's column labels.

    Raises
    ------
    DataTypeError
        Code DATA_TYPE: ``x`` is not numeric.
    InvalidDataError
        Codes DATA_SHAPE, DATA_TOO_SHORT, DATA_NOT_FINITE, DATA_RANGE, DATA_TOO_LONG: bad
        data. Code BLOCK_LENGTH_ESTIMATE: a column shorter than 6, constant, or with a
        zero long-run variance estimate.

    See Also
    --------
    bootmark.reference.optimal_block_length : the executable specification.

    Examples
    --------
    >>> import numpy as np
    >>> from bootmark import engine, reference
    >>> x = np.array([0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5,
    ...               -0.1, 0.4, 0.5, -0.2, 0.7, 1.4, 1.5, 1.7, 0.6, 0.8, 1.3, 1.1])
    >>> estimate = engine.optimal_block_length(x)
    >>> round(estimate.stationary, 6), round(estimate.circular, 6)
    (2.912846, 3.334376)
    >>> estimate.stationary_length, estimate.circular_length
    (3, 4)
    >>> twin = reference.optimal_block_length(x.tolist())
    >>> abs(estimate.circular - twin.circular) <= 1e-10 * twin.circular
    True
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"level": x, "square": x * x})
    >>> estimate = engine.optimal_block_length(frame)
    >>> estimate.labels, [round(v, 6) for v in estimate.circular], estimate.circular_length
    (('level', 'square'), [3.334376, 3.199385], 4)
    """
    return estimate_block_length(as_array(x))


def resolve_method(method, series):
    """``reference.blocklength.resolve_method`` (checks, warnings, rounding of "auto")
    with this module's column arithmetic."""
    return reference_blocklength.resolve_method(method, series, _column_estimates)
