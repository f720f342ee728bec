"""Fused "generate, gather, reduce" kernels: one replicate per work item, never the
B x n tensor.

Statistics match ``reference/reduce.py``: mean, population variance (ddof=0), std,
median (mean of the two middle values for even n) and numpy's linear quantile rule.

Accuracy (u = 2**-53, S = sum |x_i| of the gathered values):

* sums are Neumaier-compensated, so a mean is within 3 u S / n + u |mean| of the
  correctly rounded mean the reference computes with math.fsum;
* variance: the same bound applied to both passes (see tests/test_engine_reduce.py);
* median and quantiles sort the gathered values and are exactly the reference's.

Block algebra (``_block_mean_var_kernel``): for untapered block methods the mean and
variance of a replicate are sums over its blocks of differences of compensated prefix
sums of the *centred* data c = x - mean(x), O(number of blocks) per replicate instead of
O(n). Centring keeps |prefix| <= sum |c_i|, so each block sum is within 4 u sum|c_i| of
exact and a replicate mean within (4 m + 3) u sum|c_i| / n + u |mean| (m blocks).
"""

import numpy as np
from numba import njit, prange

from .indices import fill_row, new_streams, next_block
from .keys import replicate_key

MEAN, VAR, STD, MEDIAN, QUANTILES = 0, 1, 2, 3, 4
KIND_CODES = {"mean": MEAN, "var": VAR, "std": STD, "median": MEDIAN, "quantile": QUANTILES}


@njit(cache=True, inline="always")
def _two_sum(total, compensation, value):
    updated = total + value
    if abs(total) >= abs(value):
        compensation += (total - updated) + value
    else:
        compensation += (value - updated) + total
    return updated, compensation


@njit(cache=True)
def compensated_sum(values):
    """Neumaier's compensated sum of a 1-D float64 array."""
    total, compensation = 0.0, 0.0
    for value in values:
        total, compensation = _two_sum(total, compensation, value)
    return total + compensation


@njit(cache=True)
def quantile_of_sorted(ordered, level):
    """numpy's linear quantile of sorted values, in numpy's order of operations."""
    count = ordered.shape[0]
    position = (count - 1) * level
    below = int(np.floor(position))
    above = min(below + 1, count - 1)
    fraction = position - below
    low, high = ordered[below], ordered[above]
    step = high - low
    if fraction >= 0.5:
        return high - step * (1.0 - fraction)
    return low + step * fraction


@njit(cache=True)
def reduce_column(kind, levels, gathered, out, offset):
    """Write the statistic of one gathered column into out[offset:...]; return the new offset."""
    n = gathered.shape[0]
    if kind == MEAN or kind == VAR or kind == STD:
        centre = compensated_sum(gathered) / n
        if kind == MEAN:
            out[offset] = centre
            return offset + 1
        total, compensation = 0.0, 0.0
        for value in gathered:
            deviation = value - centre
            total, compensation = _two_sum(total, compensation, deviation * deviation)
        variance = (total + compensation) / n
        out[offset] = variance if kind == VAR else np.sqrt(variance)
        return offset + 1
    ordered = np.sort(gathered)
    if kind == MEDIAN:
        half = n // 2
        out[offset] = ordered[half] if n % 2 else (ordered[half - 1] + ordered[half]) / 2.0
        return offset + 1
    for j in range(levels.shape[0]):
        out[offset + j] = quantile_of_sorted(ordered, levels[j])
    return offset + levels.shape[0]


@njit(cache=True, parallel=True)
def _gather_reduce_kernel(layout, n, block_length, start_count, start_scale, wrap, span, thresholds,
                          root_lo, root_hi, first, columns, weights, centres, kind, levels, out):
    """out[r] = statistic of replicate first + r; ``columns`` is (d, n), ``weights`` the
    taper weights (empty when untapered)."""
    d = columns.shape[0]
    tapered = weights.shape[0] > 0
    for r in prange(out.shape[0]):
        k0, k1 = replicate_key(root_lo, root_hi, np.uint64(first + r))
        row = np.empty(n, dtype=np.int32)
        gathered = np.empty(n, dtype=np.float64)
        fill_row(layout, n, block_length, start_count, start_scale, wrap, span, thresholds, k0, k1, row)
        offset = 0
        for c in range(d):
            column = columns[c]
            if tapered:
                centre = centres[c]
                for i in range(n):
                    gathered[i] = centre + weights[i % block_length] * (column[row[i]] - centre)
            else:
                for i in range(n):
                    gathered[i] = column[row[i]]
            offset = reduce_column(kind, levels, gathered, out[r], offset)


def gather_reduce(plan, root, first, columns, weights, centres, kind, levels, out):
    """Fill ``out`` (rows first .. first + len(out) - 1) with the fused gather kernel."""
    _gather_reduce_kernel(*plan.arguments(), root[0], root[1], first, columns, weights, centres,
                          kind, levels, out)


@njit(cache=True)
def compensated_prefix(values):
    """(high, low) arrays of length n + 1: prefix sums as unevaluated pairs high + low."""
    n = values.shape[0]
    high = np.zeros(n + 1)
    low = np.zeros(n + 1)
    total, compensation = 0.0, 0.0
    for i in range(n):
        total, compensation = _two_sum(total, compensation, values[i])
        high[i + 1] = total
        low[i + 1] = compensation
    return high, low


@njit(cache=True, inline="always")
def _segment(high, low, start, stop):
    return (high[stop] - high[start]) + (low[stop] - low[start])


@njit(cache=True, inline="always")
def _wrapped_segment(high, low, n, start, length):
    if start + length <= n:
        return _segment(high, low, start, start + length)
    return _segment(high, low, start, n) + _segment(high, low, 0, start + length - n)


@njit(cache=True, parallel=True)
def _block_mean_var_kernel(layout, n, block_length, start_count, start_scale, wrap, span, thresholds,
                           root_lo, root_hi, first, centred_high, centred_low, squares_high, squares_low,
                           means, kind, out):
    """Mean / var / std of every replicate from block sums of centred prefix sums."""
    d = means.shape[0]
    for r in prange(out.shape[0]):
        k0, k1 = replicate_key(root_lo, root_hi, np.uint64(first + r))
        starts_buffer, lengths_buffer, starts_state, lengths_state = new_streams()
        sums = np.zeros(d)
        squares = np.zeros(d)
        filled = 0
        while filled < n:
            start, length = next_block(layout, block_length, start_count, start_scale, span, thresholds, k0, k1,
                                       starts_buffer, lengths_buffer, starts_state, lengths_state)
            length = min(length, n - filled)
            for c in range(d):
                sums[c] += _wrapped_segment(centred_high[c], centred_low[c], n, start, length)
                if kind != MEAN:
                    squares[c] += _wrapped_segment(squares_high[c], squares_low[c], n, start, length)
            filled += length
        for c in range(d):
            shift = sums[c] / n
            if kind == MEAN:
                out[r, c] = means[c] + shift
            else:
                variance = max(squares[c] / n - shift * shift, 0.0)
                out[r, c] = variance if kind == VAR else np.sqrt(variance)


def centre_columns(columns):
    """(columns minus their means, the means): centring bounds the prefix sums by
    sum |x - mean| instead of sum |x|, which is what keeps block algebra accurate."""
    means = np.array([compensated_sum(column) / column.shape[0] for column in columns])
    return columns - means[:, None], means


def block_mean_var(plan, root, first, columns, kind, out):
    """Fill ``out`` (B, d) with mean/var/std of untapered block replicates by block
    algebra on the (d, n) ``columns``."""
    centred, means = centre_columns(columns)
    centred_high, centred_low = _prefix_table(centred)
    squares_high, squares_low = _prefix_table(centred * centred)
    _block_mean_var_kernel(*plan.arguments(), root[0], root[1], first, centred_high, centred_low,
                           squares_high, squares_low, means, kind, out)


def _prefix_table(columns):
    pairs = [compensated_prefix(np.ascontiguousarray(column)) for column in columns]
    return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
