"""Index rows in Numba, bit for bit the rows of ``reference/indices.py``.

``fill_row`` writes one replicate's n source positions (int32) into ``row``. It is the
one row builder behind the index path, the materializing path and the fused reducers, so
the three cannot drift apart. Replicate b's row depends only on (seed, b).
"""

import numpy as np
from numba import njit, prange

from reference.indices import STREAM_VERSION
from reference.specs import IID, CircularBlock, MovingBlock, NonOverlappingBlock, StationaryBlock, TaperedBlock

from .draws import BLOCK_LENGTH, BLOCK_START, COUNT, bounded, geometric, geometric_table, refill
from .keys import replicate_key, root_key

__all__ = ["STREAM_VERSION", "RowPlan", "row_plan", "fill_row", "index_matrix"]

_MASK32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)

# Layout codes of the kernels. Tapered blocks share the moving-block rows.
IID_ROWS, FIXED_ROWS, STATIONARY_ROWS = 0, 1, 2


class RowPlan:
    """Everything ``fill_row`` needs for a resolved method and length n, computed once.

    ``start_count`` admissible block starts, each scaled by ``start_scale``; ``wrap``
    whether blocks wrap at n; ``table`` the packed geometric table (stationary; empty
    otherwise).
    """

    __slots__ = ("layout", "n", "block_length", "start_count", "start_scale", "wrap", "table")

    def __init__(self, layout, n, block_length, start_count, start_scale, wrap, table):
        self.layout, self.n, self.block_length = layout, n, block_length
        self.start_count, self.start_scale, self.wrap = start_count, start_scale, wrap
        self.table = table

    def arguments(self):
        return (self.layout, self.n, self.block_length, np.uint64(self.start_count), self.start_scale,
                self.wrap, self.table)


def row_plan(method, n):
    """The :class:`RowPlan` of a resolved method (integer block length in [1, n])."""
    no_table = geometric_table(1)
    if isinstance(method, IID):
        return RowPlan(IID_ROWS, n, 1, n, 1, False, no_table)
    b = method.block_length
    if isinstance(method, StationaryBlock):
        return RowPlan(STATIONARY_ROWS, n, b, n, 1, True, geometric_table(b))
    if isinstance(method, (MovingBlock, TaperedBlock)):
        return RowPlan(FIXED_ROWS, n, b, n - b + 1, 1, False, no_table)
    if isinstance(method, CircularBlock):
        return RowPlan(FIXED_ROWS, n, b, n, 1, True, no_table)
    if isinstance(method, NonOverlappingBlock):
        return RowPlan(FIXED_ROWS, n, b, n // b, b, False, no_table)
    raise TypeError(f"not a resolved method spec: {method!r}")


REPLICATES_PER_TASK = 32  # replicates sharing one scratch allocation in the parallel loops


@njit(cache=True)
def stream_words(n, block_length):
    """Words of stream buffer: enough for a whole row's draws in the common case, so one
    branch-free (vectorised) refill serves it; a multiple of 4, at least 4."""
    return 4 * ((n // block_length + 8) // 4 + 1)


@njit(cache=True)
def new_scratch(n, block_length):
    """Per-task work space: start and length word buffers, their cursors (rows 0 and 1
    of ``states``: position in buffer, next Philox block), an index row and n floats."""
    words = stream_words(n, block_length)
    starts_buffer = np.empty(words, dtype=np.uint64)
    lengths_buffer = np.empty(2 * words, dtype=np.uint64)
    states = np.zeros((2, 2), dtype=np.int64)
    return starts_buffer, lengths_buffer, states, np.empty(n, dtype=np.int32), np.empty(n, dtype=np.float64)


@njit(cache=True, inline="always")
def reset_streams(starts_buffer, lengths_buffer, states):
    """Point both cursors at block 0 with an empty buffer: the first draw refills it."""
    states[0, 0] = starts_buffer.shape[0]
    states[0, 1] = 0
    states[1, 0] = lengths_buffer.shape[0]
    states[1, 1] = 0


@njit(cache=True, inline="always")
def next_block(layout, block_length, start_count, start_scale, table, k0, k1,
               starts_buffer, lengths_buffer, states):
    """(start, length) of the replicate's next block (layouts other than IID_ROWS)."""
    start = np.int64(bounded(starts_buffer, states[0], k0, k1, BLOCK_START, start_count)) * start_scale
    if layout != STATIONARY_ROWS:
        return start, block_length
    if table[COUNT] == 0:
        return start, 1
    return start, geometric(lengths_buffer, states[1], k0, k1, BLOCK_LENGTH, table)


@njit(cache=True, inline="always")
def _iid_row(n, bound, k0, k1, row, starts_buffer, state):
    # Fill the words, map them all, and only if some word falls in Lemire's rejection
    # zone (probability about n**2 / 2**32 per row) redo the row word by word.
    refill(starts_buffer, state, k0, k1, BLOCK_START)
    threshold = ((_MASK32 - bound) + np.uint64(1)) % bound
    rejected = False
    for i in range(n):
        product = starts_buffer[i] * bound
        rejected |= (product & _MASK32) < threshold
        row[i] = np.int32(product >> _S32)
    if rejected:
        state[0] = 0
        for i in range(n):
            row[i] = np.int32(bounded(starts_buffer, state, k0, k1, BLOCK_START, bound))


@njit(cache=True)
def fill_row(layout, n, block_length, start_count, start_scale, wrap, table, k0, k1, row,
             starts_buffer, lengths_buffer, states):
    """Write replicate (k0, k1)'s n positions into ``row`` (int32), using the scratch
    buffers of :func:`new_scratch`."""
    reset_streams(starts_buffer, lengths_buffer, states)
    if layout == IID_ROWS:
        _iid_row(n, start_count, k0, k1, row, starts_buffer, states[0])
        return
    filled = 0
    while filled < n:
        start, length = next_block(layout, block_length, start_count, start_scale, table, k0, k1,
                                   starts_buffer, lengths_buffer, states)
        stop = min(length, n - filled)
        if wrap:
            position = start
            for j in range(stop):
                row[filled + j] = np.int32(position)
                position += 1
                if position == n:
                    position = 0
        else:
            for j in range(stop):
                row[filled + j] = np.int32(start + j)
        filled += stop


@njit(cache=True, parallel=True)
def _index_matrix(layout, n, block_length, start_count, start_scale, wrap, table,
                  root_lo, root_hi, first, out):
    for task in prange((out.shape[0] + REPLICATES_PER_TASK - 1) // REPLICATES_PER_TASK):
        starts_buffer, lengths_buffer, states, _, _ = new_scratch(n, block_length)
        for r in range(task * REPLICATES_PER_TASK, min((task + 1) * REPLICATES_PER_TASK, out.shape[0])):
            k0, k1 = replicate_key(root_lo, root_hi, np.uint64(first + r))
            fill_row(layout, n, block_length, start_count, start_scale, wrap, table, k0, k1, out[r],
                     starts_buffer, lengths_buffer, states)


def index_matrix(method, n, seed, n_bootstraps, first=0):
    """(n_bootstraps - first, n) int32 rows of replicates first .. n_bootstraps - 1."""
    out = np.empty((n_bootstraps - first, n), dtype=np.int32)
    root_lo, root_hi = root_key(seed)
    _index_matrix(*row_plan(method, n).arguments(), root_lo, root_hi, first, out)
    return out
