"""Floors: what a bench cell would cost if only the unavoidable work were done.

Each floor is timed in the same run and the same rounds as the paths it bounds, so
"10x arch" and "close to the hardware" are read from one table:

* ``philox_floor(words, B)``: generating the Philox words a replicate needs (``words`` per
  replicate: n for i.i.d., one start per block for fixed blocks, a start and two length
  words per stationary block), on Numba's parallel loop, and nothing else;
* ``gather_floor(x, block_length, B)``: the fused reduce with nothing but its data
  movement: the words drawn in L1-sized chunks and mapped to starts without rejection,
  then for i.i.d. (block length 1) the gathered values summed, for blocks each block's
  sum read from a prefix sum (what the engine's block algebra does), plainly added;
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
from bootmark.engine.philox import philox4x32_10
from bootmark.engine.reduce import CHUNK_WORDS

__all__ = ["philox_floor", "gather_floor", "fill_floor", "words_per_replicate", "block_prefix"]

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
            w0, w1, w2, w3 = philox4x32_10(block & _MASK32, block >> _S32, np.uint64(1), np.uint64(0), key,
                                           np.uint64(12345))
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
    for r in prange(n_bootstraps):
        words = np.empty(CHUNK_WORDS, dtype=np.uint64)
        starts = np.empty(CHUNK_WORDS, dtype=np.int64)
        total = 0.0
        done, block = 0, np.int64(0)
        while done < draws:
            step = min(CHUNK_WORDS, draws - done)
            # the engine's own vectorised refill (a whole chunk even for a shorter last step)
            block = refill_from(words, block, np.uint64(r), np.uint64(12345), np.uint64(1))
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
