"""Philox-4x32-10, the counter-based block cipher behind every random word.

Salmon, Moraes, Dror & Shaw (2011), "Parallel random numbers: as easy as 1, 2, 3".
The round function and constants are the canonical Random123 ones and are pinned to
its known-answer vectors in ``tests/test_philox.py``.

A call maps a 128-bit counter (four 32-bit words) and a 64-bit key (two 32-bit words)
to four 32-bit output words. Nothing here keeps state: the same (counter, key) always
gives the same words, which is what makes replicates independent of thread schedule.
"""

MASK32 = 0xFFFFFFFF

PHILOX_M0 = 0xD2511F53  # multiplier applied to counter word 0
PHILOX_M1 = 0xCD9E8D57  # multiplier applied to counter word 2
PHILOX_W0 = 0x9E3779B9  # Weyl increment of key word 0 (golden ratio)
PHILOX_W1 = 0xBB67AE85  # Weyl increment of key word 1 (sqrt(3) - 1)
PHILOX_ROUNDS = 10


def philox4x32_10(counter, key):
    """Return the four 32-bit words Philox-4x32-10 produces for ``counter`` and ``key``.

    ``counter`` is a sequence of four ints in [0, 2**32); ``key`` a sequence of two.
    """
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for round_index in range(PHILOX_ROUNDS):
        if round_index:
            k0 = (k0 + PHILOX_W0) & MASK32
            k1 = (k1 + PHILOX_W1) & MASK32
        product0 = PHILOX_M0 * c0
        product1 = PHILOX_M1 * c2
        c0, c1, c2, c3 = (
            (product1 >> 32) ^ c1 ^ k0,
            product1 & MASK32,
            (product0 >> 32) ^ c3 ^ k1,
            product0 & MASK32,
        )
    return (c0, c1, c2, c3)
