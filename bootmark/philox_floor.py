"""The roofline of the i.i.d. reduce: generating its n x B Philox words and nothing else.

Same words, same buffer refill as the engine's kernels (``engine.draws.refill``), on
Numba's own parallel loop. The receipt stores floor time / engine time (below 1); its
inverse, the engine's i.i.d. time over this, says what mapping, gathering and summing
cost on top of the random numbers. This is the one place bootmark starts Numba's
OpenMP pool, which is why a bench receipt reports the "omp" threading layer.
"""

import numpy as np
from numba import njit, prange

from bootmark.engine.draws import refill


@njit(cache=True, parallel=True)
def philox_floor(n, n_bootstraps):
    """XOR checksums (B,) of n words per replicate; the checksum keeps the work alive."""
    checksum = np.zeros(n_bootstraps, dtype=np.uint64)
    words = 4 * ((n + 3) // 4)
    for r in prange(n_bootstraps):
        buffer = np.empty(words, dtype=np.uint64)
        state = np.zeros(2, dtype=np.int64)
        refill(buffer, state, np.uint64(r), np.uint64(12345), np.uint64(1))
        accumulator = np.uint64(0)
        for i in range(n):
            accumulator ^= buffer[i]
        checksum[r] = accumulator
    return checksum
