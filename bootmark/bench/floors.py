"""Floors: what a bench cell would cost if only the unavoidable work were done.

Each floor is timed in the same run and the same rounds as the paths it bounds, so
"10x arch" and "close to the hardware" are read from one table:

* ``philox_floor(words, B)``: generating the Philox words a replicate needs (``words`` per
  replicate: n for i.i.d., one start per block for fixed blocks, a start and two length
  words per stationary block), on Numba's parallel loop, and nothing else;
* ``gather_floor(prefix, n, b, B)``: the fused reduce with nothing but its data
  movement: the words drawn in L1-sized chunks (or the row's words, when fewer) and
  mapped to starts without rejection, then for i.i.d. (block length 1) the gathered values
  summed, for fixed blocks each block's sum read from a prefix sum (what the engine's
  block algebra does), plainly added;
* ``stationary_gather_floor(prefix, n, b, B)``: the same for stationary blocks, which
  draw a start and two length words per block, have lengths that vary (so the number of
  blocks is known only once they cover n) and wrap at n; the lengths come from a uniform
  law of mean b instead of the geometric one, without rejection;
* ``fill_floor(out)``: writing every element of a B x n float64 array once, into a fresh
  array (``fresh=True``: its pages are first touched here, as a materializing call's
  are) or into one touched before (the memory bandwidth alone).

They use the engine's Philox round function (``engine.philox``), the same words the
engine draws, but none of its rejection, length or summation logic: a floor bounds the
engine from below, it is never a result. Like the engine's kernels they run on
``numba.get_num_threads()`` threads.
"""

import numpy as np
from numba import njit, prange

from bootmark.engine.draws import refill_from
from bootmark.engine.indices import CHUNK_WORDS, stream_words
from bootmark.engine.philox import philox4x32_10

__all__ = [
    "philox_floor",
    "gather_floor",
    "stationary_gather_floor",
    "fill_floor",
    "words_per_replicate",
    "block_prefix",
]

_MASK32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)


@njit(cache=True, parallel=True)
def philox_floor(words, n_bootstraps):
    """XOR checksums (B,) of ``words`` Philox words per replicate; the checksum keeps the
    work alive."""
    checksum = np.zeros(n_bootstraps, dtype=np.uint64)
    blocks = (words + 3) // 4
    for r in prange(n_bootstraps):
        accumulator = np.uint64(0)
        key = np.uint64(r)
        for j in range(blocks):
            block = np.uint64(j)
            w0, w1, w2, w3 = philox4x32_10(
                block & _MASK32, block >> _S32, np.uint64(1), np.uint64(0), key, np.uint64(12345)
            )
            accumulator ^= w0 ^ w1 ^ w2 ^ w3
        checksum[r] = accumulator
    return checksum


@njit(cache=True, parallel=True)
def gather_floor(prefix, n, block_length, n_bootstraps):
    """Per replicate, the sum of ceil(n / b) blocks at Philox-drawn starts: x[start] for
    b = 1, prefix[start + b] - prefix[start] otherwise; ``prefix`` has n + 1 entries
    (:func:`block_prefix`)."""
    out = np.empty(n_bootstraps)
    draws = (n + block_length - 1) // block_length
    bound = np.uint64(n - block_length + 1)
    capacity = min(CHUNK_WORDS, 4 * ((draws + 3) // 4))  # L1-sized, or the whole row when it is shorter
    for r in prange(n_bootstraps):
        words = np.empty(capacity, dtype=np.uint64)
        starts = np.empty(capacity, dtype=np.int64)
        total = 0.0
        done, block = 0, np.int64(0)
        while done < draws:
            step = min(capacity, draws - done)
            # the engine's own vectorised refill, of the words this step uses (rounded up to a Philox block)
            block = refill_from(words[: 4 * ((step + 3) // 4)], block, np.uint64(r), np.uint64(12345), np.uint64(1))
            for i in range(step):
                starts[i] = np.int64((words[i] * bound) >> _S32)
            if block_length == 1:
                for i in range(step):
                    total += prefix[starts[i]]
            else:
                for i in range(step):
                    total += prefix[starts[i] + block_length] - prefix[starts[i]]
            done += step
        out[r] = total
    return out


def stationary_gather_floor(prefix, n, block_length, n_bootstraps):
    """Per replicate, the sum of wrapped blocks at Philox-drawn starts (bound n) with
    Philox-drawn lengths, until they cover n positions, the last one cut: the work of a
    stationary replicate without its rejections and its geometric law.

    Each block takes one start word and two length words, as the engine's blocks do; the
    length is 1 + floor(w * (2b - 1) / 2**32) for w the two words XORed (uniform on
    1 .. 2b - 1, mean b), so a replicate has about n / b blocks, and a block that passes
    position n wraps to 0 through the prefix sums (n + 1 entries, :func:`block_prefix`)."""
    if np.shape(prefix) != (n + 1,):
        raise ValueError(
            f"prefix must hold the n + 1 = {n + 1} prefix sums of x, got shape {np.shape(prefix)}; "
            f"block_prefix(x, b) returns x itself for b = 1"
        )
    capacity = min(CHUNK_WORDS, stream_words(n, block_length))  # the engine's buffer, L1-sized at most
    return _stationary_gather(prefix, n, block_length, n_bootstraps, capacity)


@njit(cache=True, parallel=True)
def _stationary_gather(prefix, n, block_length, n_bootstraps, capacity):
    out = np.empty(n_bootstraps)
    bound, lengths_bound = np.uint64(n), np.uint64(2 * block_length - 1)
    for r in prange(n_bootstraps):
        start_words = np.empty(capacity, dtype=np.uint64)
        length_words = np.empty(2 * capacity, dtype=np.uint64)
        key = np.uint64(r)
        start_cursor, start_block = capacity, np.int64(0)
        length_cursor, length_block = 2 * capacity, np.int64(0)
        total, filled = 0.0, 0
        while filled < n:
            if start_cursor == capacity:
                start_block = refill_from(start_words, start_block, key, np.uint64(12345), np.uint64(1))
                start_cursor = 0
            if length_cursor == 2 * capacity:
                length_block = refill_from(length_words, length_block, key, np.uint64(12345), np.uint64(2))
                length_cursor = 0
            start = np.int64((start_words[start_cursor] * bound) >> _S32)
            mixed = length_words[length_cursor] ^ length_words[length_cursor + 1]
            length = min(1 + np.int64((mixed * lengths_bound) >> _S32), n - filled)
            start_cursor += 1
            length_cursor += 2
            stop = start + length
            if stop <= n:
                total += prefix[stop] - prefix[start]
            else:
                total += (prefix[n] - prefix[start]) + prefix[stop - n]
            filled += length
        out[r] = total
    return out


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
