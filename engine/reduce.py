"""Fused "generate, gather, reduce" kernels: one replicate per work item, never the
B x n tensor.

Statistics match ``reference/reduce.py``: mean, population variance (ddof=0), std,
median (mean of the two middle values for even n) and numpy's linear quantile rule.

Accuracy, with u = 2**-53 and S the sum of |values| summed:

* sums add blocks of 16 values by a fixed pairwise tree (at most 4 roundings each, and
  vectorisable) and accumulate the block sums with Knuth's error-free TwoSum, so a sum
  is within 6 u S of exact and a mean within 6 u S / n + u |mean| of the correctly
  rounded mean the reference computes with math.fsum;
* variance: that bound on both passes (tests/test_engine_api.py states the combination);
* median and quantiles sort the gathered values and are exactly the reference's.

Block algebra (``block_mean_var``): for untapered block methods a replicate's mean and
variance are sums over its m blocks of differences of prefix sums of the *centred*
data c = x - mean(x): O(m) per replicate instead of O(n). The prefix sums are built with
TwoSum and rounded once, so each is within u sum|c_i| of exact (centring keeps them that
small), and a replicate mean is within (2 m + 2) u sum|c_i| / n + 2 u |mean| of exact.

Double bootstrap (``calibration_counts``, for kind="calibrated" intervals): one work
item per *outer* replicate b. It rebuilds x*_b (as ``materialize`` would), then runs the
fused kernels above on x*_b as the data, over its C inner replicates, with the inner
root ``keys.inner_root_key(root, b)`` in place of the root, and counts the inner
statistics below and equal to the point estimate. The inner statistics are therefore
exactly what ``gather_reduce`` / ``block_mean_var`` return for x*_b and that root (same
bounds against the reference), and neither the B x n nor the B x C tensor is built.

Streamed i.i.d. mean (``_iid_mean_streamed``): for one series of n >= STREAM_MIN_N, the
i.i.d. mean never builds the replicate's n-word buffer or its n-index row. It draws
``CHUNK_WORDS`` words at a time (with their indices, about 24 KiB: they stay in the L1
data cache), maps them as :func:`indices.bounded_run` does, and feeds the compensated sum
16 positions at a time. Indices and summation order are those of the row path, so the
bits are too. Block algebra streams the same way: a replicate's blocks are drawn a
buffer of at most ``CHUNK_WORDS`` start words at a time (``indices.fixed_chunk``,
``indices.stationary_chunk``) and added to each column's running total in row order, so
on a long series the words, starts and lengths stay in cache and the totals keep the
one-pass bits. Short fixed-block rows (at most ``BATCH_MAX_BLOCKS`` blocks) go the other
way: ``BATCH_REPLICATES`` replicates' start words are generated and mapped in one loop
(``_fixed_batch``), so the vector units are full even when a row is a few Philox
blocks; a replicate with a word in Lemire's rejection zone is then drawn alone, and
every replicate's blocks are added in row order as above, so the bits are the same.

Kernels are ``nogil`` functions over a range of replicates, run on threads by
``parallel.run_replicates``; each thread gets its own scratch (allocated by numpy), and a replicate's
result depends only on (seed, replicate), never on the range it fell in.
"""

import numpy as np
from numba import njit

from .draws import BLOCK_START, refill_from
from .indices import (
    CHUNK_WORDS,
    IID_ROWS,
    STATIONARY_ROWS,
    compact_words,
    fill_row,
    fixed_chunk,
    map_words,
    new_scratch_sized,
    reset_streams,
    row_blocks,
    scratch_words,
    stationary_chunk,
)
from .keys import inner_root_key, stream_key
from .parallel import run_replicates
from .philox import MASK32 as _MASK32
from .philox import SHIFT32 as _S32
from .philox import philox4x32_10

MEAN, VAR, STD, MEDIAN, QUANTILES = 0, 1, 2, 3, 4
_ZERO = np.uint64(0)
# Short fixed-block rows (at most BATCH_MAX_BLOCKS blocks) are drawn BATCH_REPLICATES at a
# time (_fixed_batch); longer rows vectorise over their own blocks, and batching them was
# slower (n = 1,000, b = 10: no gain; n = 2,000: 18% slower).
BATCH_REPLICATES, BATCH_MAX_BLOCKS = 16, 64
KIND_CODES = {"mean": MEAN, "var": VAR, "std": STD, "median": MEDIAN, "quantile": QUANTILES}
FIXED_B_SE = 5  # not a user statistic: the studentized interval's fixed-b standard error of a replicate


@njit(cache=True, inline="always")
def _two_sum(total, compensation, value):
    # Knuth's TwoSum: the rounding error of total + value, exactly, without a branch.
    updated = total + value
    virtual = updated - total
    error = (total - (updated - virtual)) + (value - virtual)
    return updated, compensation + error


@njit(cache=True, inline="always")
def value_at(values, row, position):
    # values[position] (row is None) or values[row[position]]. The row's int32 index is
    # read as unsigned: a signed one makes Numba add a negative-index (wraparound) test
    # to every load, which alone made the gathered sums half as fast (measured: 0.35
    # against 0.6-0.9 ns a value at n = 200).
    return values[position] if row is None else values[np.uint64(np.uint32(row[position]))]


@njit(cache=True, inline="always")
def sum_of_16(values, row, first):
    # values[first:first + 16] (row is None) or values[row[first:first + 16]], summed by a
    # fixed pairwise tree: the one summation order of every engine mean. Sixteen scalar
    # loads in registers: LLVM's vector gathers were slower here than scalar loads.
    v0, v1, v2, v3 = (
        value_at(values, row, first),
        value_at(values, row, first + 1),
        value_at(values, row, first + 2),
        value_at(values, row, first + 3),
    )
    v4, v5, v6, v7 = (
        value_at(values, row, first + 4),
        value_at(values, row, first + 5),
        value_at(values, row, first + 6),
        value_at(values, row, first + 7),
    )
    v8, v9, v10, v11 = (
        value_at(values, row, first + 8),
        value_at(values, row, first + 9),
        value_at(values, row, first + 10),
        value_at(values, row, first + 11),
    )
    v12, v13, v14, v15 = (
        value_at(values, row, first + 12),
        value_at(values, row, first + 13),
        value_at(values, row, first + 14),
        value_at(values, row, first + 15),
    )
    lane0 = (v0 + v4) + (v8 + v12)
    lane1 = (v1 + v5) + (v9 + v13)
    lane2 = (v2 + v6) + (v10 + v14)
    lane3 = (v3 + v7) + (v11 + v15)
    return (lane0 + lane1) + (lane2 + lane3)


@njit(cache=True, inline="always")
def _compensated_sum(values, row, count):
    # row is None (compile-time pruned): values[:count]; else values[row[:count]], the
    # gather fused into the sum so the gathered copy is never written.
    total, compensation = 0.0, 0.0
    full = count - count % 16
    for i in range(0, full, 16):
        total, compensation = _two_sum(total, compensation, sum_of_16(values, row, i))
    for i in range(full, count):
        total, compensation = _two_sum(total, compensation, value_at(values, row, i))
    return total + compensation


# Below STREAM_MIN_N the i.i.d. row path's n-sized buffers fit in cache anyway.
STREAM_MIN_N = 4 * CHUNK_WORDS


@njit(cache=True, inline="always")
def _iid_mean_streamed(column, n, k0, k1, words, indices):
    """Sum over positions 0 .. n-1 of column[U_i], U_i the replicate's i.i.d. draws,
    in the summation order of ``_compensated_sum`` (so the same bits), with ``words``
    (CHUNK_WORDS) and ``indices`` (CHUNK_WORDS + 16) as the only work space."""
    bound = np.uint64(n)
    full = n - n % 16
    total, compensation = 0.0, 0.0
    block = np.int64(0)
    held, position = 0, 0  # indices[:held] drawn, not summed yet; position: how many were summed
    while position < n:
        # Each step takes exactly the next CHUNK_WORDS words of the stream and appends
        # the draws they give (fewer when some are rejected), so steps never share a word.
        block = refill_from(words, block, k0, k1, BLOCK_START)
        appended = indices[held:]
        first = map_words(words, CHUNK_WORDS, bound, 1, appended)
        if first < CHUNK_WORDS:
            first = compact_words(words, first + 1, CHUNK_WORDS, bound, 1, appended, first, CHUNK_WORDS)
        held += first
        used = 0
        while used + 16 <= held and position + used + 16 <= full:
            total, compensation = _two_sum(total, compensation, sum_of_16(column, indices, used))
            used += 16
        while position + used >= full and used < held and position + used < n:
            total, compensation = _two_sum(total, compensation, value_at(column, indices, used))
            used += 1
        for j in range(held - used):
            indices[j] = indices[used + j]
        held -= used
        position += used
    return total + compensation


@njit(cache=True)
def accurate_sum(values, count):
    """Sum of values[:count]: pairwise blocks of 16, block sums accumulated with TwoSum."""
    return _compensated_sum(values, None, count)


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
def moment(kind, values):
    """Mean, variance (ddof=0) or std of ``values`` (overwritten by squared deviations)."""
    n = values.shape[0]
    centre = accurate_sum(values, n) / n
    if kind == MEAN:
        return centre
    for i in range(n):
        deviation = values[i] - centre
        values[i] = deviation * deviation
    variance = accurate_sum(values, n) / n
    return variance if kind == VAR else np.sqrt(variance)


@njit(cache=True)
def fixed_b_standard_error(values):
    """The Kiefer-Vogelsang b = 1 standard error of the mean of ``values`` (overwritten),
    reference.intervals item 1 of ``studentized``: the partial sums S_t are accumulated
    left to right as there; the mean and the sum of the S_t^2 use accurate_sum instead
    of fsum (within 6 u S each). Exactly 0 when every value is equal, as there."""
    n = values.shape[0]
    if values.min() == values.max():
        return 0.0
    mean = accurate_sum(values, n) / n
    partial = 0.0
    for i in range(n):
        partial = partial + (values[i] - mean)
        values[i] = partial * partial
    return np.sqrt(2.0 * accurate_sum(values, n) / (n * n) / n)


@njit(cache=True)
def reduce_column(kind, levels, gathered, out, offset):
    """Write the statistic of ``gathered`` (overwritten) into out[offset:]; return the
    offset after it."""
    n = gathered.shape[0]
    if kind == MEAN or kind == VAR or kind == STD:
        out[offset] = moment(kind, gathered)
        return offset + 1
    if kind == FIXED_B_SE:
        out[offset] = fixed_b_standard_error(gathered)
        return offset + 1
    gathered.sort()
    if kind == MEDIAN:
        half = n // 2
        out[offset] = gathered[half] if n % 2 else (gathered[half - 1] + gathered[half]) / 2.0
        return offset + 1
    for j in range(levels.shape[0]):
        out[offset + j] = quantile_of_sorted(gathered, levels[j])
    return offset + levels.shape[0]


@njit(cache=True, nogil=True)
def _gather_reduce_task(
    begin,
    end,
    scratch,
    layout,
    n,
    block_length,
    start_count,
    start_scale,
    wrap,
    table,
    root_lo,
    root_hi,
    series,
    first,
    columns,
    weights,
    centres,
    kind,
    levels,
    out,
):
    d = columns.shape[0]
    tapered = weights.shape[0] > 0
    row, gathered = scratch[3], scratch[4]
    streamed = layout == IID_ROWS and d == 1 and kind == MEAN and not tapered and n >= STREAM_MIN_N
    for r in range(begin, end):
        k0, k1 = stream_key(root_lo, root_hi, series, np.uint64(first + r))
        if streamed:
            out[r, 0] = _iid_mean_streamed(columns[0], n, k0, k1, scratch[0][:CHUNK_WORDS], row[: CHUNK_WORDS + 16]) / n
            continue
        fill_row(layout, n, block_length, start_count, start_scale, wrap, table, k0, k1, row, scratch)
        offset = 0
        for c in range(d):
            column = columns[c]
            if kind == MEAN and not tapered:
                out[r, offset] = _compensated_sum(column, row, n) / n  # same order as moment()
                offset += 1
            elif tapered:
                centre = centres[c]
                for i in range(n):
                    gathered[i] = centre + weights[i % block_length] * (column[row[i]] - centre)
                offset = reduce_column(kind, levels, gathered, out[r], offset)
            else:
                for i in range(n):
                    gathered[i] = column[row[i]]
                offset = reduce_column(kind, levels, gathered, out[r], offset)


def gather_reduce(plan, root, first, columns, weights, centres, kind, levels, out):
    """Fill ``out`` (rows first .. first + len(out) - 1) with the fused gather kernel:
    ``columns`` is (d, n), ``weights`` the taper weights (empty when untapered)."""
    per_value = 2 if kind in (MEAN, VAR, STD, FIXED_B_SE) else 20  # ns; order statistics sort
    run_replicates(
        _gather_reduce_task,
        out.shape[0],
        out.shape[0] * plan.n * columns.shape[0] * per_value,
        plan.scratch,
        *plan.arguments(),
        root[0],
        root[1],
        root[2],
        first,
        columns,
        weights,
        centres,
        kind,
        levels,
        out,
    )


@njit(cache=True, nogil=True)
def _materialize_task(
    begin,
    end,
    scratch,
    layout,
    n,
    block_length,
    start_count,
    start_scale,
    wrap,
    table,
    root_lo,
    root_hi,
    series,
    first,
    data,
    weights,
    centres,
    out,
):
    d = data.shape[1]
    tapered = weights.shape[0] > 0
    row = scratch[3]
    for r in range(begin, end):
        k0, k1 = stream_key(root_lo, root_hi, series, np.uint64(first + r))
        fill_row(layout, n, block_length, start_count, start_scale, wrap, table, k0, k1, row, scratch)
        target = out[r]
        for i in range(n):
            source = data[row[i]]
            for c in range(d):
                if tapered:
                    target[i, c] = centres[c] + weights[i % block_length] * (source[c] - centres[c])
                else:
                    target[i, c] = source[c]


@njit(cache=True, nogil=True)
def _materialize_column_task(
    begin,
    end,
    scratch,
    layout,
    n,
    block_length,
    start_count,
    start_scale,
    wrap,
    table,
    root_lo,
    root_hi,
    series,
    first,
    column,
    out,
):
    # One untapered series into (R, n): i.i.d. rows are a flat gather; block rows copy
    # each block whole (two runs where it wraps), never building the index row.
    row = scratch[3]
    starts_buffer, lengths_buffer, states, _, _, starts, lengths = scratch
    for r in range(begin, end):
        k0, k1 = stream_key(root_lo, root_hi, series, np.uint64(first + r))
        target = out[r]
        if layout == IID_ROWS:
            fill_row(layout, n, block_length, start_count, start_scale, wrap, table, k0, k1, row, scratch)
            for i in range(n):
                target[i] = column[row[i]]
            continue
        blocks = row_blocks(
            layout,
            n,
            block_length,
            start_count,
            start_scale,
            table,
            k0,
            k1,
            starts_buffer,
            lengths_buffer,
            states,
            starts,
            lengths,
        )
        filled = 0
        for b in range(blocks):
            start, length = starts[b], lengths[b]
            head = min(length, n - start)  # positions before the wrap (all of them without wrap)
            for j in range(head):
                target[filled + j] = column[start + j]
            for j in range(length - head):
                target[filled + head + j] = column[j]
            filled += length


def materialize(plan, root, first, data, weights, centres, out):
    """Fill the preallocated ``out`` (R, n, d), in its own dtype, with replicates
    first .. first + R - 1 of the (n, d) ``data``."""
    if data.shape[1] == 1 and weights.shape[0] == 0:
        column = np.ascontiguousarray(data[:, 0])
        run_replicates(
            _materialize_column_task,
            out.shape[0],
            out.size,
            plan.scratch,
            *plan.arguments(),
            root[0],
            root[1],
            root[2],
            first,
            column,
            out.reshape(out.shape[0], out.shape[1]),
        )
        return
    run_replicates(
        _materialize_task,
        out.shape[0],
        2 * out.size,
        plan.scratch,
        *plan.arguments(),
        root[0],
        root[1],
        root[2],
        first,
        data,
        weights,
        centres,
        out,
    )


@njit(cache=True, inline="always")
def _fill_rounded_prefix(values, prefix):
    # prefix[: len(values) + 1] of rounded_prefix, written into a preallocated row.
    prefix[0] = 0.0
    total, compensation = 0.0, 0.0
    for i in range(values.shape[0]):
        total, compensation = _two_sum(total, compensation, values[i])
        prefix[i + 1] = total + compensation


@njit(cache=True)
def rounded_prefix(values):
    """Prefix sums p[0] = 0, p[k] = sum(values[:k]), accumulated with TwoSum and rounded
    once each (so every p[k] is within u sum|values| of exact)."""
    prefix = np.zeros(values.shape[0] + 1)
    _fill_rounded_prefix(values, prefix)
    return prefix


@njit(cache=True, inline="always")
def _one_block(prefix, c, n, wrap, start, length, total):
    # total plus one block's sum from the prefix sums, wrapping at n when wrap: the one
    # block sum of _block_total and _fixed_total
    # positions read as unsigned, so no load pays Numba's negative-index test (see value_at;
    # measured: the moving panel of 2,000 series of n = 200, 13% faster)
    stop = start + length
    if not wrap or stop <= n:
        return total + (prefix[c, np.uint64(stop)] - prefix[c, np.uint64(start)])
    return total + ((prefix[c, n] - prefix[c, np.uint64(start)]) + prefix[c, np.uint64(stop - n)])


@njit(cache=True, inline="always")
def _block_total(prefix, c, n, wrap, starts, lengths, blocks, total):
    # total plus the blocks' sums, added in block order; no wrap test per block in the
    # common untapered cases (wrap False is a constant there, folded by the compiler).
    if not wrap:
        for i in range(blocks):
            total = _one_block(prefix, c, n, False, starts[i], lengths[i], total)
        return total
    for i in range(blocks):
        total = _one_block(prefix, c, n, True, starts[i], lengths[i], total)
    return total


@njit(cache=True, nogil=True)
def _block_mean_var_task(
    begin,
    end,
    scratch,
    layout,
    n,
    block_length,
    start_count,
    start_scale,
    wrap,
    table,
    root_lo,
    root_hi,
    series,
    first,
    sums_prefix,
    squares_prefix,
    means,
    kind,
    out,
):
    # A replicate's blocks are drawn and summed a chunk at a time (at most CHUNK_WORDS
    # start words and their blocks), so a long row's words, starts and lengths stay in
    # cache; every column's totals add the blocks in row order, as one pass would. Short
    # fixed-block rows go BATCH_REPLICATES replicates at a time, in a function of their
    # own: inlined here, the batch made the stationary loop 8% slower.
    d = means.shape[0]
    starts_buffer, lengths_buffer, states, _, _, starts, lengths = scratch
    capacity = min(CHUNK_WORDS, starts_buffer.shape[0])
    start_words, length_words = starts_buffer[:capacity], lengths_buffer[: 2 * capacity]
    limit = min(capacity, n)
    sums, squares = np.empty(d), np.empty(d)
    alone = np.arange(begin, end)  # the rows drawn alone: all, or those a batch left
    if layout != STATIONARY_ROWS and (n + block_length - 1) // block_length <= BATCH_MAX_BLOCKS:
        alone = _batched_fixed_rows(
            begin,
            end,
            n,
            block_length,
            start_count,
            start_scale,
            wrap,
            root_lo,
            root_hi,
            series,
            first,
            sums_prefix,
            squares_prefix,
            means,
            kind,
            out,
        )
    for r in alone:
        k0, k1 = stream_key(root_lo, root_hi, series, np.uint64(first + r))
        reset_streams(start_words, length_words, states)
        sums[:], squares[:] = 0.0, 0.0
        filled = 0
        while filled < n:
            if layout == STATIONARY_ROWS:
                blocks, filled = stationary_chunk(
                    n, filled, limit, start_count, table, k0, k1, start_words, length_words, states, starts, lengths
                )
            else:
                blocks, filled = fixed_chunk(
                    n, filled, block_length, start_count, start_scale, k0, k1, start_words, states, starts, lengths
                )
            for c in range(d):
                sums[c] = _block_total(sums_prefix, c, n, wrap, starts, lengths, blocks, sums[c])
            if kind != MEAN:
                for c in range(d):
                    squares[c] = _block_total(squares_prefix, c, n, wrap, starts, lengths, blocks, squares[c])
        _finish_row(sums, squares, means, n, kind, out[r])


@njit(cache=True, inline="always")
def _finish_row(sums, squares, means, n, kind, row):
    # a replicate's statistics from its columns' block totals
    for c in range(means.shape[0]):
        shift = sums[c] / n
        if kind == MEAN:
            row[c] = means[c] + shift
        else:
            variance = max(squares[c] / n - shift * shift, 0.0)
            row[c] = variance if kind == VAR else np.sqrt(variance)


@njit(cache=True, nogil=True)
def _batched_fixed_rows(
    begin,
    end,
    n,
    block_length,
    start_count,
    start_scale,
    wrap,
    root_lo,
    root_hi,
    series,
    first,
    sums_prefix,
    squares_prefix,
    means,
    kind,
    out,
):
    """Fill out[r] for the rows begin .. end - 1 of short fixed-block replicates that
    whole batches of BATCH_REPLICATES (:func:`_fixed_batch`) can serve; return the rows
    left for the caller to draw alone, in order: those with a word in Lemire's rejection
    zone, then the last, partial batch. In a function of its own: inlined into the task,
    the batch made the task's stationary loop 8% slower."""
    d = means.shape[0]
    sums, squares = np.empty(d), np.empty(d)
    needed = (n + block_length - 1) // block_length
    philox_blocks = (needed + 3) // 4
    batch = BATCH_REPLICATES
    k0s, lows, highs = np.empty(batch, np.uint64), np.empty(batch, np.uint64), np.empty(batch, np.uint64)
    lanes = batch * philox_blocks  # one array of starts per word of a Philox block (_fixed_batch)
    batch_starts = (
        np.empty(lanes, np.int64),
        np.empty(lanes, np.int64),
        np.empty(lanes, np.int64),
        np.empty(lanes, np.int64),
    )
    rejected = np.empty(batch, np.uint8)
    alone = np.empty(end - begin, np.int64)
    count = 0
    batch_first = begin
    while end - batch_first >= batch:
        for a in range(batch):
            k0, k1 = stream_key(root_lo, root_hi, series, np.uint64(first + batch_first + a))
            k0s[a], lows[a], highs[a] = k0, k1 & _MASK32, k1 >> _S32
        _fixed_batch(batch, philox_blocks, start_count, start_scale, k0s, lows, highs, batch_starts, rejected)
        for a in range(batch):
            if rejected[a]:
                alone[count] = batch_first + a
                count += 1
                continue
            for c in range(d):
                sums[c] = _fixed_total(sums_prefix, c, n, wrap, block_length, batch_starts, a, batch, needed)
                if kind != MEAN:
                    squares[c] = _fixed_total(squares_prefix, c, n, wrap, block_length, batch_starts, a, batch, needed)
            _finish_row(sums, squares, means, n, kind, out[batch_first + a])
        batch_first += batch
    for r in range(batch_first, end):
        alone[count] = r
        count += 1
    return alone[:count]


@njit(cache=True, inline="always")
def _fixed_batch(replicates, blocks, start_count, start_scale, k0s, lows, highs, batch_starts, rejected):
    """The block starts of Philox blocks 0 .. blocks - 1 of the start streams of a batch
    of replicates, keyed (k0s[a], lows[a]) with series word highs[a]: word 4 j + w of
    replicate a, mapped as ``indices.map_words`` maps it, lands in
    batch_starts[w][j * replicates + a]. rejected[a] is nonzero when a word of replicate a is
    in Lemire's rejection zone (rare below n = 2**16): that row must be drawn alone.

    One loop over the replicates per Philox block, each word mapped as it is made: a
    short row's few blocks, generated and mapped alone, leave the vector units idle.
    Measured at n = 200, b = 10 on one thread of the AMD EPYC machine: 88 ns a replicate
    alone, 33 in batches of 16 (at 8 LLVM left the loop scalar, and it was slower)."""
    # four arrays, not one: four store streams into one array kept LLVM from vectorising
    starts0, starts1, starts2, starts3 = batch_starts
    bound = start_count & _MASK32  # see indices._LOW_HALVES
    threshold = ((_MASK32 - bound) + np.uint64(1)) % bound
    for a in range(replicates):
        rejected[a] = 0
    for j in range(blocks):
        counter, base = np.uint64(j), j * replicates
        for a in range(replicates):
            w0, w1, w2, w3 = philox4x32_10(counter, _ZERO, BLOCK_START, highs[a], k0s[a], lows[a])
            p0, p1, p2, p3 = w0 * bound, w1 * bound, w2 * bound, w3 * bound
            low = ((p0 & _MASK32) < threshold) | ((p1 & _MASK32) < threshold)
            low |= ((p2 & _MASK32) < threshold) | ((p3 & _MASK32) < threshold)
            rejected[a] |= np.uint8(low)
            starts0[base + a] = np.int64(p0 >> _S32) * start_scale
            starts1[base + a] = np.int64(p1 >> _S32) * start_scale
            starts2[base + a] = np.int64(p2 >> _S32) * start_scale
            starts3[base + a] = np.int64(p3 >> _S32) * start_scale


@njit(cache=True, inline="always")
def _fixed_total(prefix, c, n, wrap, b, batch_starts, a, replicates, blocks):
    """_block_total of replicate a's ``blocks`` fixed blocks (length b, the last cut at n)
    from :func:`_fixed_batch`'s starts: the same sums, added in block order from 0.0."""
    starts0, starts1, starts2, starts3 = batch_starts
    total = 0.0
    whole = blocks // 4
    for j in range(whole):
        k, i = j * replicates + a, 4 * j
        total = _one_block(prefix, c, n, wrap, starts0[k], min(b, n - i * b), total)
        total = _one_block(prefix, c, n, wrap, starts1[k], min(b, n - (i + 1) * b), total)
        total = _one_block(prefix, c, n, wrap, starts2[k], min(b, n - (i + 2) * b), total)
        total = _one_block(prefix, c, n, wrap, starts3[k], min(b, n - (i + 3) * b), total)
    k, i = whole * replicates + a, 4 * whole
    if i < blocks:
        total = _one_block(prefix, c, n, wrap, starts0[k], min(b, n - i * b), total)
    if i + 1 < blocks:
        total = _one_block(prefix, c, n, wrap, starts1[k], min(b, n - (i + 1) * b), total)
    if i + 2 < blocks:
        total = _one_block(prefix, c, n, wrap, starts2[k], min(b, n - (i + 2) * b), total)
    return total


def centre_columns(columns):
    """(columns minus their means, the means): centring bounds the prefix sums by
    sum |x - mean| instead of sum |x|, which is what keeps block algebra accurate."""
    means = np.array([accurate_sum(column, column.shape[0]) / column.shape[0] for column in columns])
    return columns - means[:, None], means


def block_mean_var(plan, root, first, columns, kind, out):
    """Fill ``out`` (B, d) with mean/var/std of untapered block replicates by block
    algebra on the (d, n) ``columns``."""
    centred, means = centre_columns(columns)
    sums_prefix = np.array([rounded_prefix(np.ascontiguousarray(c)) for c in centred])
    if kind == MEAN:  # never read
        squares_prefix = np.zeros((centred.shape[0], 1))
    else:
        squares_prefix = np.array([rounded_prefix(np.ascontiguousarray(c * c)) for c in centred])
    blocks = -(-plan.n // plan.block_length)
    per_block = 15 if plan.layout == STATIONARY_ROWS else 6  # ns, with the geometric length draw or without
    run_replicates(
        _block_mean_var_task,
        out.shape[0],
        out.shape[0] * (blocks * columns.shape[0] * per_block + 60),
        plan.scratch,
        *plan.arguments(),
        root[0],
        root[1],
        root[2],
        first,
        sums_prefix,
        squares_prefix,
        means,
        kind,
        out,
    )


@njit(cache=True, inline="always")
def _centred_prefixes(sample, means, centred, sums_prefix, squares_prefix):
    # block_mean_var's preparation (centre_columns, then rounded_prefix of the centred
    # values and of their squares), in the same operations, into preallocated arrays.
    n = sample.shape[1]
    for c in range(sample.shape[0]):
        means[c] = accurate_sum(sample[c], n) / n
        for i in range(n):
            centred[i] = sample[c, i] - means[c]
        _fill_rounded_prefix(centred, sums_prefix[c])
        for i in range(n):
            centred[i] = centred[i] * centred[i]
        _fill_rounded_prefix(centred, squares_prefix[c])


@njit(cache=True, inline="always")
def _gather_outer(columns, row, weights, centres, block_length, sample):
    # x*_b as (d, n) columns: the values materialize() writes for this row, bit for bit.
    tapered = weights.shape[0] > 0
    for c in range(columns.shape[0]):
        column, target = columns[c], sample[c]
        for i in range(row.shape[0]):
            if tapered:
                target[i] = centres[c] + weights[i % block_length] * (column[row[i]] - centres[c])
            else:
                target[i] = column[row[i]]


@njit(cache=True, inline="always")
def _count_around(inner, points, less, equal):
    # Per component k: how many of the C inner statistics are < points[k], == points[k].
    for k in range(points.shape[0]):
        below, tied = 0, 0
        for j in range(inner.shape[0]):
            below += inner[j, k] < points[k]
            tied += inner[j, k] == points[k]
        less[k] = below
        equal[k] = tied


@njit(cache=True, nogil=True)
def _calibration_task(
    begin,
    end,
    workspace,
    layout,
    n,
    block_length,
    start_count,
    start_scale,
    wrap,
    table,
    root_lo,
    root_hi,
    series,
    columns,
    weights,
    centres,
    kind,
    levels,
    block_algebra,
    points,
    less,
    equal,
):
    scratch, sample, inner_centres, centred, sums_prefix, squares_prefix, inner = workspace
    row = scratch[3]
    inner_count = inner.shape[0]
    for r in range(begin, end):
        outer = np.uint64(r)
        k0, k1 = stream_key(root_lo, root_hi, series, outer)
        fill_row(layout, n, block_length, start_count, start_scale, wrap, table, k0, k1, row, scratch)
        _gather_outer(columns, row, weights, centres, block_length, sample)
        inner_lo, inner_hi = inner_root_key(root_lo, root_hi, outer)
        # The inner draws reuse ``scratch`` (and its row): the outer row is no longer needed.
        if block_algebra:
            _centred_prefixes(sample, inner_centres, centred, sums_prefix, squares_prefix)
            _block_mean_var_task(
                0,
                inner_count,
                scratch,
                layout,
                n,
                block_length,
                start_count,
                start_scale,
                wrap,
                table,
                inner_lo,
                inner_hi,
                series,
                0,
                sums_prefix,
                squares_prefix,
                inner_centres,
                kind,
                inner,
            )
        else:
            if weights.shape[0] > 0:  # an inner taper works around x*_b's own means
                for c in range(sample.shape[0]):
                    inner_centres[c] = accurate_sum(sample[c], n) / n
            _gather_reduce_task(
                0,
                inner_count,
                scratch,
                layout,
                n,
                block_length,
                start_count,
                start_scale,
                wrap,
                table,
                inner_lo,
                inner_hi,
                series,
                0,
                sample,
                weights,
                inner_centres,
                kind,
                levels,
                inner,
            )
        _count_around(inner, points, less[r], equal[r])


def calibration_counts(
    plan, root, columns, weights, centres, kind, levels, block_algebra, points, inner_bootstraps, n_bootstraps
):
    """(less, equal), two (B, k) int64 arrays: for outer replicate b and component k, how
    many of the C = ``inner_bootstraps`` inner statistics of x*_b are below / equal to
    ``points[k]`` (theta). ``columns`` is the (d, n) data, ``weights``/``centres`` its
    tapering (empty weights: untapered), ``kind``/``levels`` the statistic, and
    ``block_algebra`` picks ``block_mean_var`` over ``gather_reduce`` for the inner
    statistics (mean/var/std of untapered block methods, as ``bootstrap_reduce`` does).
    """
    d, n, width = columns.shape[0], plan.n, points.shape[0]
    less = np.zeros((n_bootstraps, width), dtype=np.int64)
    equal = np.zeros((n_bootstraps, width), dtype=np.int64)

    def workspace():
        return (
            plan.scratch(),
            np.empty((d, n)),
            np.empty(d),
            np.empty(n),
            np.empty((d, n + 1)),
            np.empty((d, n + 1)),
            np.empty((inner_bootstraps, width)),
        )

    if block_algebra:  # ns per inner replicate, as block_mean_var estimates it
        per_block = 15 if plan.layout == STATIONARY_ROWS else 6
        per_inner = -(-n // plan.block_length) * d * per_block + 60
    else:
        per_inner = n * d * (2 if kind in (MEAN, VAR, STD) else 20)
    run_replicates(
        _calibration_task,
        n_bootstraps,
        n_bootstraps * (inner_bootstraps * per_inner + 8 * n * d),
        workspace,
        *plan.arguments(),
        root[0],
        root[1],
        root[2],
        columns,
        weights,
        centres,
        kind,
        levels,
        block_algebra,
        points,
        less,
        equal,
    )
    return less, equal


# ---------------------------------------------------------------------------------------
# Panels: many series in one pass


@njit(cache=True, nogil=True)
def _panel_task(
    begin,
    end,
    workspace,
    items,
    offsets,
    layouts,
    block_lengths,
    start_counts,
    start_scales,
    wraps,
    tables,
    table_bounds,
    roots_lo,
    roots_hi,
    series_words,
    algebra,
    values,
    kind,
    levels,
    out,
):
    # One work item is (series, first replicate, last replicate). Each series runs the
    # single-series task on views of the thread's scratch cut to exactly the shapes
    # new_scratch(n, block_length) gives it, so its draws and sums are the single call's.
    scratch, means, centred, sums_prefix, squares_prefix = workspace
    starts_buffer, lengths_buffer, states, row, gathered, starts, lengths = scratch
    no_weights, centres = np.zeros(0), np.zeros(1)
    for item in range(begin, end):
        s, first, last = items[item, 0], items[item, 1], items[item, 2]
        low, high = offsets[s], offsets[s + 1]
        n, block_length = high - low, block_lengths[s]
        words = scratch_words(n, block_length)
        spare = max(n, words)
        view = (
            starts_buffer[:words],
            lengths_buffer[: 2 * words],
            states,
            row[:n],
            gathered[:n],
            starts[:spare],
            lengths[:spare],
        )
        table = tables[table_bounds[s, 0] : table_bounds[s, 1]]
        # (1, n) and (1, n + 1) views reshaped from contiguous 1-D slices: C layout, as
        # the single call's arrays are (a 2-D slice would be strided, and slower)
        columns = values[low:high].reshape((1, n))
        if algebra[s]:
            sums, squares = sums_prefix[: n + 1].reshape((1, n + 1)), squares_prefix[: n + 1].reshape((1, n + 1))
            _centred_prefixes(columns, means, centred[:n], sums, squares)
            _block_mean_var_task(
                first,
                last,
                view,
                layouts[s],
                n,
                block_length,
                start_counts[s],
                start_scales[s],
                wraps[s],
                table,
                roots_lo[s],
                roots_hi[s],
                series_words[s],
                0,
                sums,
                squares,
                means,
                kind,
                out[s],
            )
        else:
            _gather_reduce_task(
                first,
                last,
                view,
                layouts[s],
                n,
                block_length,
                start_counts[s],
                start_scales[s],
                wraps[s],
                table,
                roots_lo[s],
                roots_hi[s],
                series_words[s],
                0,
                columns,
                no_weights,
                centres,
                kind,
                levels,
                out[s],
            )


@njit(cache=True)
def panel_points(kind, levels, values, offsets, out):
    """out[s] = the statistic (``KIND_CODES``) of series s of the packed ``values`` (1-D)
    with row ``offsets``: what ``reduce_column`` gives on its copy."""
    for s in range(offsets.shape[0] - 1):
        copy = values[offsets[s] : offsets[s + 1]].copy()
        reduce_column(kind, levels, copy, out[s], 0)


def panel_reduce(plans, items, offsets, roots, algebra, values, kind, levels, out):
    """Fill ``out`` (S, B, width) with every series' replicate statistics in one pass.

    ``plans`` holds each series' :class:`~indices.RowPlan` (layout, n, block length,
    start count and scale, wrap, geometric table), ``items`` the (series, first, last)
    work items, ``roots`` three (S,) uint64 arrays (root lo, root hi, series word),
    ``algebra`` (S,) bools: block algebra (``block_mean_var``) or the gather kernel
    (``gather_reduce``), as the single call picks; ``values`` is every series' values
    packed end to end (1-D).
    """
    # each distinct geometric table once (series of one method and length share a plan):
    # 2,000 stationary series read one 2 KiB table, not 4 MiB of copies
    tables, table_bounds, placed, total = [], np.empty((len(plans), 2), dtype=np.int64), {}, 0
    for s, plan in enumerate(plans):
        if id(plan.table) not in placed:
            placed[id(plan.table)] = (total, total + plan.table.shape[0])
            total += plan.table.shape[0]
            tables.append(plan.table)
        table_bounds[s] = placed[id(plan.table)]
    lengths = offsets[1:] - offsets[:-1]
    block_lengths = np.array([plan.block_length for plan in plans], dtype=np.int64)
    n_max = int(lengths.max())
    words_max = int(max(scratch_words(plan.n, plan.block_length) for plan in plans))
    per_replicate = np.where(
        algebra,
        -(-lengths // block_lengths) * np.where([plan.layout == STATIONARY_ROWS for plan in plans], 15, 6) + 60,
        lengths * (2 if kind in (MEAN, VAR, STD) else 20),
    )
    nanoseconds = float(np.sum(per_replicate)) * out.shape[1]

    def workspace():
        return (
            new_scratch_sized(n_max, words_max),
            np.empty(1),
            np.empty(n_max),
            np.empty(n_max + 1),
            np.empty(n_max + 1),
        )

    run_replicates(
        _panel_task,
        items.shape[0],
        nanoseconds,
        workspace,
        items,
        offsets,
        np.array([plan.layout for plan in plans], dtype=np.int64),
        block_lengths,
        np.array([plan.start_count for plan in plans], dtype=np.uint64),
        np.array([plan.start_scale for plan in plans], dtype=np.int64),
        np.array([plan.wrap for plan in plans], dtype=np.bool_),
        np.concatenate(tables),
        table_bounds,
        roots[0],
        roots[1],
        roots[2],
        np.asarray(algebra, dtype=np.bool_),
        values,
        kind,
        levels,
        out,
    )
