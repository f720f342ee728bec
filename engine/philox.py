"""Philox-4x32-10 in Numba: the same function as ``reference/philox.py``.

Words travel as uint64 holding 32-bit values, so the 32x32 -> 64-bit products of the
round function are exact. Every constant is a np.uint64: mixing uint64 with Python ints
would make Numba promote to float64 and silently lose bits.
"""

import numpy as np
from numba import njit

MASK32 = np.uint64(0xFFFFFFFF)
SHIFT32 = np.uint64(32)
PHILOX_M0 = np.uint64(0xD2511F53)
PHILOX_M1 = np.uint64(0xCD9E8D57)
PHILOX_W0 = np.uint64(0x9E3779B9)
PHILOX_W1 = np.uint64(0xBB67AE85)


@njit(cache=True, inline="always")
def philox4x32_10(c0, c1, c2, c3, k0, k1):
    """Four output words of Philox-4x32-10 for counter (c0..c3) and key (k0, k1)."""
    for round_index in range(10):
        if round_index:
            k0 = (k0 + PHILOX_W0) & MASK32
            k1 = (k1 + PHILOX_W1) & MASK32
        product0 = PHILOX_M0 * c0
        product1 = PHILOX_M1 * c2
        c0, c1, c2, c3 = (
            (product1 >> SHIFT32) ^ c1 ^ k0,
            product1 & MASK32,
            (product0 >> SHIFT32) ^ c3 ^ k1,
            product0 & MASK32,
        )
    return c0, c1, c2, c3
