"""Buffered word streams and exact draws, as ``reference/draws.py`` defines them.

A stream is a (key, purpose) pair plus a buffer of its next words (a multiple of 4) and
a cursor ``state = [position in buffer, next Philox block]``. Filling the buffer is a
loop with no branch, which LLVM vectorises; the draws then consume words strictly in
order, so rejections cost one more word exactly as in the reference.
"""

import numpy as np
from numba import njit

from reference.draws import Purpose

from .philox import philox4x32_10

BLOCK_START = np.uint64(int(Purpose.BLOCK_START))
BLOCK_LENGTH = np.uint64(int(Purpose.BLOCK_LENGTH))
_MASK32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_ZERO = np.uint64(0)


@njit(cache=True, inline="always")
def refill(buffer, state, k0, k1, purpose):
    """Fill ``buffer`` with the stream's words from Philox block ``state[1]`` on."""
    first = state[1]
    for j in range(buffer.shape[0] // 4):
        block = np.uint64(first + j)
        w0, w1, w2, w3 = philox4x32_10(block & _MASK32, block >> _S32, purpose, _ZERO, k0, k1)
        buffer[4 * j] = w0
        buffer[4 * j + 1] = w1
        buffer[4 * j + 2] = w2
        buffer[4 * j + 3] = w3
    state[0] = 0
    state[1] = first + buffer.shape[0] // 4


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


@njit(cache=True, inline="always")
def _mul_64x64(a, b):
    """(high, low) 64-bit halves of the 128-bit product of two uint64."""
    a_lo, a_hi = a & _MASK32, a >> _S32
    b_lo, b_hi = b & _MASK32, b >> _S32
    lo_lo = a_lo * b_lo
    lo_hi = a_lo * b_hi
    hi_lo = a_hi * b_lo
    cross = (lo_lo >> _S32) + (lo_hi & _MASK32) + (hi_lo & _MASK32)
    high = a_hi * b_hi + (lo_hi >> _S32) + (hi_lo >> _S32) + (cross >> _S32)
    return high, a * b


@njit(cache=True, inline="always")
def bounded64(buffer, state, k0, k1, purpose, bound):
    """Uniform integer on [0, bound) for a uint64 bound (two words per attempt)."""
    high_word = word(buffer, state, k0, k1, purpose)
    u = (high_word << _S32) | word(buffer, state, k0, k1, purpose)
    high, low = _mul_64x64(u, bound)
    if low < bound:
        threshold = (_ZERO - bound) % bound
        while low < threshold:
            high_word = word(buffer, state, k0, k1, purpose)
            u = (high_word << _S32) | word(buffer, state, k0, k1, purpose)
            high, low = _mul_64x64(u, bound)
    return high


@njit(cache=True, inline="always")
def geometric(buffer, state, k0, k1, purpose, span, thresholds):
    """Exact Geometric(1/m) length from the table (span, thresholds) of reference.draws."""
    banked = 0
    count = thresholds.shape[0]
    while True:
        u = bounded64(buffer, state, k0, k1, purpose, span)
        if u < thresholds[count - 1]:
            low, high = 0, count - 1  # the first k with u < thresholds[k] lies in [low, high]
            while low < high:
                middle = (low + high) // 2
                if u < thresholds[middle]:
                    high = middle
                else:
                    low = middle + 1
            return banked + low + 1
        banked += count


def geometric_table(mean):
    """(span, thresholds) of Geometric(1/mean) for an integer mean >= 2, built by integer
    multiplications only: span = mean**j < 2**64 with j maximal, thresholds[k-1] =
    span - (mean - 1)**k * mean**(j - k). For mean 1 an empty table (every length is 1)."""
    if mean < 2:
        return np.uint64(1), np.zeros(0, dtype=np.uint64)
    trials, span = 0, 1
    while span * mean < (1 << 64):
        span *= mean
        trials += 1
    thresholds = [span - (mean - 1) ** k * mean ** (trials - k) for k in range(1, trials + 1)]
    return np.uint64(span), np.array(thresholds, dtype=np.uint64)
