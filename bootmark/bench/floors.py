"""Floors: what a bench cell would cost if only the unavoidable work were done.

Each floor is timed in the same run and the same rounds as the paths it bounds, so
"10x arch" and "close to the hardware" are read from one table. Every floor draws its
Philox words the fastest way measured on this hardware: a batch of (replicate, Philox
block) lanes, about 256 at a time, each lane's four words computed by one vectorised
loop, whatever the row's length (a short row's few blocks would leave the vector units
idle if a replicate were generated alone: 3 ns a word against 0.6 on the AMD EPYC
machine), on Numba's parallel loop, whose threads start once per process.

* ``philox_floor(words, B)``: generating the Philox words a replicate needs (``words`` per
  replicate: n for i.i.d., one start per block for fixed blocks, a start and two length
  words per stationary block), and nothing else;
* ``gather_floor(prefix, n, b, B)``: those words mapped to starts without rejection (one
  32 x 32-bit multiply each), then for i.i.d. (block length 1) the gathered values
  summed, for fixed blocks each block's sum read from a prefix sum (what the engine's
  block algebra does), added in any order the compiler likes;
* ``stationary_gather_floor(prefix, n, b, B)``: the same for stationary blocks: ceil(n/b)
  start words and twice as many length words per replicate, each block a start (bound n)
  and a length uniform on 1 .. 2b - 1 (mean b) from two words XORed, without the
  geometric law or rejection, wrapping at n, until the blocks cover n or the words run
  out (the number of blocks a mean-b replicate needs, on average);
* ``fill_floor(out)``: writing every element of a B x n float64 array once, into a fresh
  array (``fresh=True``: its pages are first touched here, as a materializing call's
  are) or into one touched before (the memory bandwidth alone);
* ``philox_throughput(threads)``: words per nanosecond of the floors' generator alone, on
  ``threads`` threads, the ceiling every floor above sits under.

They use the engine's Philox round function (``engine.philox``) with counter
(block, 0, purpose, 0) and key (replicate, 12345), and for i.i.d. gathers its unsigned
loads and pairwise tree of 16 (``engine.reduce.sum_of_16``, the fastest gathered sum
measured here), but none of its rejection, length or compensation logic: a floor bounds
the engine from below, it is never a result. Like the
engine's kernels they run on ``numba.get_num_threads()`` threads.
"""

import time

import numba
import numpy as np
from numba import njit, prange

from bootmark.engine.draws import refill_from
from bootmark.engine.indices import CHUNK_WORDS
from bootmark.engine.philox import philox4x32_10
from bootmark.engine.reduce import sum_of_16, value_at

__all__ = [
    "philox_floor",
    "gather_floor",
    "stationary_gather_floor",
    "fill_floor",
    "philox_throughput",
    "words_per_replicate",
    "block_prefix",
]

_MASK32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_ZERO = np.uint64(0)
FLOOR_KEY = np.uint64(12345)
_PURPOSE_START, _PURPOSE_LENGTH = np.uint64(1), np.uint64(2)
# _UNSIGNED: the floors index with uint64 offsets wherever they can, because Numba tests
# every signed index for a negative value (wraparound), and that test alone stopped LLVM
# vectorising the loops that read the words (measured: 1.07 against 0.66 ns a word).
LANES = 256  # (replicate, block) lanes generated together: 1024 words, L1-resident


@njit(cache=True, inline="always")
def _lane_layout(first_replicate, replicates, blocks, lane_replicates, lane_offsets):
    """Lane q * blocks + j: replicate first_replicate + q, block offset j. Set once per
    batch: a batch is whole short rows (one step) or one long row (steps of LANES blocks,
    the last one a prefix of the lanes), so the layout holds for all its steps."""
    for q in range(replicates):
        for j in range(blocks):
            lane_replicates[q * blocks + j] = np.uint64(first_replicate + q)
            lane_offsets[q * blocks + j] = np.uint64(j)


@njit(cache=True, inline="always")
def _philox_lanes(lanes, first_block, purpose, lane_replicates, lane_offsets, out):
    """The four words of Philox block first_block + lane_offsets[i] of replicate
    lane_replicates[i] into out[4 i: 4 i + 4], for i < lanes: replicate-major, so a
    replicate's words are contiguous and in stream order. One loop over all lanes, so
    LLVM vectorises across replicates when rows are short and across blocks when they
    are long."""
    block = np.uint64(first_block)
    for i in range(lanes):
        w0, w1, w2, w3 = philox4x32_10(block + lane_offsets[i], _ZERO, purpose, _ZERO, lane_replicates[i], FLOOR_KEY)
        out[4 * i] = w0
        out[4 * i + 1] = w1
        out[4 * i + 2] = w2
        out[4 * i + 3] = w3


@njit(cache=True, inline="always")
def _batch_shape(blocks):
    # (replicates per batch, blocks per step): whole short rows together, long rows in
    # LANES-block steps.
    return (max(1, LANES // blocks), min(blocks, LANES))


@njit(cache=True, parallel=True)
def philox_floor(words, n_bootstraps):
    """XOR of the ``words`` Philox words of every replicate (rounded up to whole Philox
    blocks); the checksum keeps the work alive. One checksum for all, not one a
    replicate: storing to a uint64 array LLVM cannot prove apart from the words stopped
    it vectorising (1.07 against 0.66 ns a word, and 0.4 with the words never stored)."""
    blocks = (words + 3) // 4
    per_batch, step = _batch_shape(blocks)
    batches = (n_bootstraps + per_batch - 1) // per_batch
    checksums = np.empty(batches, dtype=np.uint64)
    for batch in prange(batches):
        lane_replicates, lane_offsets = np.empty(LANES, np.uint64), np.empty(LANES, np.uint64)
        first = batch * per_batch
        replicates = min(per_batch, n_bootstraps - first)
        _lane_layout(first, replicates, step, lane_replicates, lane_offsets)
        accumulator = np.uint64(0)
        for done in range(0, blocks, step):
            # the words are XORed as they are made, never stored: the generator alone
            base = np.uint64(done)
            for i in range(replicates * min(step, blocks - done)):
                w0, w1, w2, w3 = philox4x32_10(
                    base + lane_offsets[i], _ZERO, _PURPOSE_START, _ZERO, lane_replicates[i], FLOOR_KEY
                )
                accumulator ^= (w0 ^ w1) ^ (w2 ^ w3)
        checksums[batch] = accumulator
    checksum = np.uint64(0)
    for batch in range(batches):
        checksum ^= checksums[batch]
    return checksum


@njit(cache=True, inline="always")
def _value(prefix, start, span, single):
    # the int32 start read as unsigned, so no load pays Numba's negative-index test
    first = np.uint64(np.uint32(start))
    return prefix[first] if single else prefix[first + np.uint64(span)] - prefix[first]


@njit(cache=True, inline="always")
def _four_lane_sum(prefix, starts, count, span, single):
    """Sum over i < count of prefix[starts[i]] (``single``) or of the block sums
    prefix[starts[i] + span] - prefix[starts[i]], in four independent running sums."""
    s0, s1, s2, s3 = 0.0, 0.0, 0.0, 0.0
    whole = count - count % 4
    for i in range(0, whole, 4):
        s0 += _value(prefix, starts[i], span, single)
        s1 += _value(prefix, starts[i + 1], span, single)
        s2 += _value(prefix, starts[i + 2], span, single)
        s3 += _value(prefix, starts[i + 3], span, single)
    for i in range(whole, count):
        s0 += _value(prefix, starts[i], span, single)
    return (s0 + s1) + (s2 + s3)


def gather_floor(prefix, n, block_length, n_bootstraps):
    """Per replicate, the sum of ceil(n / b) blocks at Philox-drawn starts: x[start] for
    b = 1, prefix[start + b] - prefix[start] otherwise; ``prefix`` has n + 1 entries
    (:func:`block_prefix`).

    A row of at least ``ROW_DRAWS`` draws is generated on its own, ``CHUNK_WORDS`` words
    at a time (long enough to fill the vector units), its values gathered and summed
    sixteen at a time; shorter rows are generated many replicates together. Each way was
    the faster of the two, measured on rows of its kind."""
    draws = -(-n // block_length)
    if draws >= ROW_DRAWS:
        return _row_gather(prefix, n, block_length, n_bootstraps)
    return _batched_gather(prefix, n, block_length, n_bootstraps)


ROW_DRAWS = 128


@njit(cache=True, parallel=True)
def _row_gather(prefix, n, block_length, n_bootstraps):
    out = np.empty(n_bootstraps)
    draws = (n + block_length - 1) // block_length
    capacity = min(CHUNK_WORDS, 4 * ((draws + 3) // 4))
    bound, span = np.uint64(n - block_length + 1) & _MASK32, np.int32(block_length)
    # buffers allocated once per run of ROW_RUN replicates, not per replicate: at n = 200
    # two allocations a replicate cost about a third of the floor
    for run in prange((n_bootstraps + ROW_RUN - 1) // ROW_RUN):
        words, starts = np.empty(capacity, np.uint64), np.empty(capacity, np.int32)
        for r in range(run * ROW_RUN, min(n_bootstraps, (run + 1) * ROW_RUN)):
            total, done, block = 0.0, 0, np.int64(0)
            while done < draws:
                step = min(capacity, draws - done)
                block = refill_from(words, block, np.uint64(r), FLOOR_KEY, _PURPOSE_START)
                for i in range(capacity):
                    starts[i] = np.int32(((words[i] & _MASK32) * bound) >> _S32)
                total += _gathered_sum(prefix, starts, step, span, block_length == 1)
                done += step
            out[r] = total
    return out


ROW_RUN = 64  # replicates per parallel work item of _row_gather


@njit(cache=True, inline="always")
def _gathered_sum(prefix, starts, count, span, single):
    """Sum over i < count of prefix[starts[i]] (``single``: sixteen at a time) or of the
    block sums prefix[starts[i] + span] - prefix[starts[i]] (four running sums)."""
    if not single:
        return _four_lane_sum(prefix, starts, count, span, False)
    total = 0.0
    whole = count - count % 16
    for i in range(0, whole, 16):
        total += sum_of_16(prefix, starts, i)
    for i in range(whole, count):
        total += value_at(prefix, starts, i)
    return total


@njit(cache=True, parallel=True)
def _batched_gather(prefix, n, block_length, n_bootstraps):
    out = np.zeros(n_bootstraps)
    draws = (n + block_length - 1) // block_length
    blocks = (draws + 3) // 4
    bound = np.uint64(n - block_length + 1) & _MASK32
    span = np.int32(block_length)
    per_batch, step = _batch_shape(blocks)
    for batch in prange((n_bootstraps + per_batch - 1) // per_batch):
        lane_replicates, lane_offsets = np.empty(LANES, np.uint64), np.empty(LANES, np.uint64)
        words, starts = np.empty(4 * LANES, np.uint64), np.empty(4 * LANES, np.int32)
        first = batch * per_batch
        replicates = min(per_batch, n_bootstraps - first)
        _lane_layout(first, replicates, step, lane_replicates, lane_offsets)
        for done in range(0, blocks, step):
            count = min(step, blocks - done)
            used = min(4 * count, draws - 4 * done)  # the row's last block may hold words it does not need
            _philox_lanes(replicates * count, done, _PURPOSE_START, lane_replicates, lane_offsets, words)
            for q in range(replicates):
                row = 4 * count * q
                # mapped in one vectorised pass, then gathered into four running sums, so
                # no addition waits on the one before (one sum was slower than the engine)
                for i in range(used):
                    starts[i] = np.int32(((words[row + i] & _MASK32) * bound) >> _S32)
                out[first + q] += _gathered_sum(prefix, starts, used, span, block_length == 1)
    return out


def stationary_gather_floor(prefix, n, block_length, n_bootstraps):
    """Per replicate, the sum of wrapped blocks at Philox-drawn starts (bound n) with
    Philox-drawn lengths: the work of a stationary replicate without its rejections and
    its geometric law.

    A replicate draws ceil(n / b) start words (purpose 1) and twice as many length words
    (purpose 2), as many as a replicate of mean block length b needs on average. Block k
    starts at floor(s_k n / 2**32) and is 1 + floor((l_2k ^ l_2k+1)(2b - 1) / 2**32) long
    (uniform on 1 .. 2b - 1, mean b); blocks are added until they cover n positions (the
    last one cut) or the words run out, and a block that passes position n wraps to 0
    through the prefix sums (n + 1 entries, :func:`block_prefix`)."""
    if np.shape(prefix) != (n + 1,):
        raise ValueError(
            f"prefix must hold the n + 1 = {n + 1} prefix sums of x, got shape {np.shape(prefix)}; "
            f"block_prefix(x, b) returns x itself for b = 1"
        )
    return _stationary_gather(prefix, n, block_length, n_bootstraps)


@njit(cache=True, parallel=True)
def _stationary_gather(prefix, n, block_length, n_bootstraps):
    out = np.zeros(n_bootstraps)
    draws = (n + block_length - 1) // block_length
    start_blocks = (draws + 3) // 4
    bound, lengths_bound = np.uint64(n) & _MASK32, np.uint64(2 * block_length - 1) & _MASK32
    per_batch, step = _batch_shape(2 * start_blocks)  # a step holds 2 length blocks per start block
    step = max(1, step // 2)
    for batch in prange((n_bootstraps + per_batch - 1) // per_batch):
        start_replicates, start_offsets = np.empty(LANES, np.uint64), np.empty(LANES, np.uint64)
        length_replicates, length_offsets = np.empty(LANES, np.uint64), np.empty(LANES, np.uint64)
        start_words, length_words = np.empty(4 * LANES, np.uint64), np.empty(4 * LANES, np.uint64)
        first = batch * per_batch
        replicates = min(per_batch, n_bootstraps - first)
        _lane_layout(first, replicates, step, start_replicates, start_offsets)
        _lane_layout(first, replicates, 2 * step, length_replicates, length_offsets)
        filled = np.zeros(replicates, np.int64)
        for done in range(0, start_blocks, step):
            count = min(step, start_blocks - done)
            used = min(4 * count, draws - 4 * done)
            _philox_lanes(replicates * count, done, _PURPOSE_START, start_replicates, start_offsets, start_words)
            _philox_lanes(
                2 * replicates * count, 2 * done, _PURPOSE_LENGTH, length_replicates, length_offsets, length_words
            )
            for q in range(replicates):
                starts, lengths = np.uint64(4 * count * q), np.uint64(8 * count * q)  # see _UNSIGNED
                total, covered = 0.0, filled[q]
                for i in range(used):
                    if covered >= n:
                        break
                    start = np.int64(((start_words[starts + i] & _MASK32) * bound) >> _S32)
                    mixed = (length_words[lengths + 2 * i] ^ length_words[lengths + 2 * i + 1]) & _MASK32
                    length = min(1 + np.int64((mixed * lengths_bound) >> _S32), n - covered)
                    stop = start + length
                    if stop <= n:
                        total += prefix[stop] - prefix[start]
                    else:
                        total += (prefix[n] - prefix[start]) + prefix[stop - n]
                    covered += length
                filled[q] = covered
                out[first + q] += total
    return out


def philox_throughput(threads, words=1 << 24, rounds=7):
    """Words per nanosecond of the floors' Philox generator alone (:func:`philox_floor`,
    ``words`` words over 1024 replicates), the median of ``rounds`` timed runs after one
    warm-up, on ``threads`` Numba threads (restored afterwards).

    Parameters
    ----------
    threads : int
        Numba threads, at most ``numba.config.NUMBA_NUM_THREADS``.
    words : int, optional
        Words per run, 2**24 by default (about 10 to 30 ms here).
    rounds : int, optional
        Timed runs.

    Returns
    -------
    float
        Words generated per nanosecond of wall time.
    """
    before = numba.get_num_threads()
    per_replicate = max(4, words // 1024)
    try:
        numba.set_num_threads(threads)
        philox_floor(per_replicate, 1024)
        times = []
        for _ in range(rounds):
            began = time.perf_counter_ns()
            philox_floor(per_replicate, 1024)
            times.append(time.perf_counter_ns() - began)
    finally:
        numba.set_num_threads(before)
    return 1024 * 4 * ((per_replicate + 3) // 4) / float(np.median(times))


def block_prefix(x, block_length):
    """What :func:`gather_floor` reads: x itself for block length 1, else its prefix sums
    (n + 1 entries, starting at 0)."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    return x if block_length == 1 else np.concatenate([[0.0], np.cumsum(x)])


@njit(cache=True, parallel=True)
def _fill(out, value):
    rows = out.shape[0]
    for r in prange(rows):
        row = out[r]
        for i in range(row.shape[0]):
            row[i] = value


def fill_floor(out=None, shape=None):
    """Write 1.0 into every element of ``out``, or of a fresh float64 array of ``shape``;
    return the array (a fresh one is first touched here, page by page)."""
    target = np.empty(shape) if out is None else out
    _fill(target, 1.0)
    return target


def words_per_replicate(method, n, block_length):
    """Philox words a replicate of bench method ``method`` needs on average: n for
    i.i.d., one start per block for moving and circular blocks, a start and two length
    words per block (mean length ``block_length``) for stationary blocks."""
    blocks = -(-n // block_length)
    return {"iid": n, "moving": blocks, "circular": blocks, "stationary": 3 * blocks}[method]
