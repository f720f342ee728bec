"""Buffered word streams and exact draws, as ``reference/draws.py`` defines them.

A stream is a (key, purpose) pair plus a buffer of its next words (a multiple of 4) and
a cursor ``state = [position in buffer, next Philox block]``. Filling the buffer is a
loop with no branch, which LLVM vectorises; the draws then consume words strictly in
order, so rejections cost one more word exactly as in the reference.
"""

import numpy as np
from numba import njit

from bootmark.reference.draws import Purpose

from .philox import philox4x32_10

BLOCK_START = np.uint64(int(Purpose.BLOCK_START))
BLOCK_LENGTH = np.uint64(int(Purpose.BLOCK_LENGTH))
RESIDUAL_INDEX = np.uint64(int(Purpose.RESIDUAL_INDEX))
WILD_MULTIPLIER = np.uint64(int(Purpose.WILD_MULTIPLIER))
BLOCK_WILD_OFFSET = np.uint64(int(Purpose.BLOCK_WILD_OFFSET))
FIXED_RESIDUAL_INDEX = np.uint64(int(Purpose.FIXED_RESIDUAL_INDEX))
FIXED_WILD_MULTIPLIER = np.uint64(int(Purpose.FIXED_WILD_MULTIPLIER))
FIXED_BLOCK_WILD_OFFSET = np.uint64(int(Purpose.FIXED_BLOCK_WILD_OFFSET))
FORECAST_SHOCK = np.uint64(int(Purpose.FORECAST_SHOCK))
CONFORMAL_BLOCK_START = np.uint64(int(Purpose.CONFORMAL_BLOCK_START))
_MASK32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)


@njit(cache=True)
def refill_from(buffer, first, k0, k1, purpose):
    """Fill ``buffer`` with the stream's words from Philox block ``first`` on; return the
    next block. ``k1``'s high half is the counter's series word (``keys.stream_key``)."""
    for j in range(buffer.shape[0] // 4):
        block = np.uint64(first + j)
        w0, w1, w2, w3 = philox4x32_10(block & _MASK32, block >> _S32, purpose, k1 >> _S32, k0, k1 & _MASK32)
        buffer[4 * j] = w0
        buffer[4 * j + 1] = w1
        buffer[4 * j + 2] = w2
        buffer[4 * j + 3] = w3
    return first + buffer.shape[0] // 4


@njit(cache=True, inline="always")
def refill(buffer, state, k0, k1, purpose):
    """Fill ``buffer`` from the cursor's next block and point the cursor at its start."""
    state[1] = refill_from(buffer, state[1], k0, k1, purpose)
    state[0] = 0


@njit(cache=True, inline="always")
def word(buffer, state, k0, k1, purpose):
    """Next 32-bit word of the stream (as a uint64)."""
    if state[0] == buffer.shape[0]:
        refill(buffer, state, k0, k1, purpose)
    value = buffer[state[0]]
    state[0] += 1
    return value


@njit(cache=True, inline="always")
def bounded(buffer, state, k0, k1, purpose, bound):
    """Uniform integer on [0, bound) for a uint64 bound <= 2**32 (Lemire, rejection)."""
    product = word(buffer, state, k0, k1, purpose) * bound
    low = product & _MASK32
    if low < bound:
        threshold = ((_MASK32 - bound) + np.uint64(1)) % bound
        while low < threshold:
            product = word(buffer, state, k0, k1, purpose) * bound
            low = product & _MASK32
    return product >> _S32


# Layout of a packed geometric table (one uint64 array, so kernels take one argument):
SPAN, GUIDE_SHIFT, COUNT, CROWDED, THRESHOLDS = 0, 1, 2, 3, 4
GUIDE_CELLS = 256  # cells narrow enough that the likely lengths have at most one threshold each


def geometric_table(mean):
    """Packed uint64 table of Geometric(1/mean) for an integer mean >= 1.

    [span, guide shift, j, crowded, thresholds (j), guide (256)], with j the
    largest count with mean**j <= 2**58, c = (2**64 - 1) // mean**j, span = c * mean**j
    and thresholds[k-1] = span - c * (mean - 1)**k * mean**(j - k), built by integer
    multiplications only (as in reference.draws). The
    guide maps the top 8 bits of u to the number of thresholds below that cell: it only
    speeds the search and never changes a length; ``crowded`` is the first guide cell
    holding two or more thresholds (256 if none), below which one step from the guide
    settles every u. For mean 1 the table is empty (j = 0): every length is 1 and no word
    is drawn.
    """
    if mean < 2:
        return np.array([1, 0, 0, GUIDE_CELLS], dtype=np.uint64)
    return _packed_table(mean)


_ALL_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True)
def _packed_table(mean):
    # geometric_table for mean >= 2, compiled: built in Python it was a fifth of a small
    # stationary call's own cost (21 us). Every product below fits 64 bits: power <= 2**58,
    # span = scale * power < 2**64, and scale * (mean - 1)**k * mean**(j - k) <= span.
    m = np.uint64(mean)
    trials, power = 0, np.uint64(1)
    while power <= np.uint64(1 << 58) // m:
        power *= m
        trials += 1
    scale = _ALL_ONES // power
    span = scale * power
    bits, rest = 0, span
    while rest:
        rest >>= np.uint64(1)
        bits += 1
    shift = max(bits - 8, 0)  # 256 cells: span >> shift < 2**8
    table = np.empty(THRESHOLDS + trials + GUIDE_CELLS, dtype=np.uint64)
    table[SPAN], table[GUIDE_SHIFT], table[COUNT] = span, shift, trials
    term = power  # (mean - 1)**k * mean**(j - k), exactly: mean divides it while k < j
    for k in range(1, trials + 1):
        term = term // m * (m - np.uint64(1))
        table[THRESHOLDS + k - 1] = span - scale * term
    passed, crowded = 0, GUIDE_CELLS
    for cell in range(GUIDE_CELLS):
        while passed < trials and table[THRESHOLDS + passed] <= np.uint64(cell) << np.uint64(shift):
            passed += 1
        table[THRESHOLDS + trials + cell] = passed
    for cell in range(GUIDE_CELLS):  # thresholds in a cell: the next cell's guide (or j) minus its own
        end = table[THRESHOLDS + trials + cell + 1] if cell + 1 < GUIDE_CELLS else np.uint64(trials)
        if crowded == GUIDE_CELLS and end - table[THRESHOLDS + trials + cell] >= 2:
            crowded = cell
    table[CROWDED] = crowded
    return table
