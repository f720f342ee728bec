"""Index rows in Numba, bit for bit the rows of ``reference/indices.py``.

``fill_row`` writes one replicate's n source positions (int32) into ``row``. It is the
one row builder behind the index path, the materializing path and the fused reducers, so
the three cannot drift apart. Replicate b's row depends only on (seed, b).
"""

import numpy as np
from numba import njit

from bootmark.reference.indices import STREAM_VERSION
from bootmark.reference.specs import IID, CircularBlock, MovingBlock, NonOverlappingBlock, StationaryBlock, TaperedBlock

from .draws import (
    BLOCK_LENGTH,
    BLOCK_START,
    COUNT,
    CROWDED,
    GUIDE_CELLS,
    GUIDE_SHIFT,
    SPAN,
    THRESHOLDS,
    geometric_table,
    refill,
    refill_from,
)
from .keys import stream_key, stream_root
from .parallel import run_replicates
from .philox import philox4x32_10

__all__ = ["STREAM_VERSION", "RowPlan", "row_plan", "fill_row", "index_matrix"]

# Words per step of a streamed row (the i.i.d. mean, block algebra): 16 KiB of words
# and their draws stay in the L1 data cache.
CHUNK_WORDS = 2048
# Words a stationary stream turns into draws at a time: a replicate's last buffer is
# mostly wasted, so shorter ones waste less, but below 256 the passes' fixed costs won.
STATIONARY_UNIT = 256
STREAM_STATES = (2, 4)  # the two streams' cursors (reset_streams), as new_scratch allocates them

_MASK32 = np.uint64(0xFFFFFFFF)
# _LOW_HALVES: a word (< 2**32, held in a uint64) times a bound (a start count <= n <
# 2**31) is written (word & _MASK32) * (bound & _MASK32). The masks change no value; they
# tell LLVM both high halves are zero, so a vectorised product is one 32 x 32 -> 64-bit
# multiply instead of an emulated 64 x 64 one (measured: mapping a word fell from about
# 1.1 to 0.3 ns on the AMD EPYC machine).
_S32 = np.uint64(32)
_LAST_CELL = np.uint64(GUIDE_CELLS - 1)

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

    def scratch(self):
        """A fresh :func:`new_scratch` for this plan (one per thread)."""
        return new_scratch(self.n, self.block_length)

    def arguments(self):
        return (
            self.layout,
            self.n,
            self.block_length,
            np.uint64(self.start_count),
            self.start_scale,
            self.wrap,
            self.table,
        )


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


def stream_words(n, block_length):
    """Words of stream buffer: enough for a whole row's draws in the common case, so one
    branch-free (vectorised) refill serves it; a multiple of 4, at least 4."""
    return 4 * ((n // block_length + 8) // 4 + 1)


# stream_words compiled, for kernels that cut one thread's scratch to a panel series' shape
scratch_words = njit(cache=True, inline="always")(stream_words)


def new_scratch(n, block_length):
    """Work space of one thread, allocated by numpy (compiling allocations would cost
    a second of first-call time): start and length word buffers, their cursors (rows 0
    and 1 of ``states``: position in buffer, next Philox block, draws held, count banked), an index row, n floats,
    and the starts and lengths of up to n blocks (or of a buffer's words, when more)."""
    return new_scratch_sized(n, stream_words(n, block_length))


def new_scratch_sized(n, words):
    """:func:`new_scratch` with ``words`` stream words: a panel's thread allocates the
    largest of its series' and cuts views to each series' shape."""
    return (
        np.empty(words, dtype=np.uint64),
        np.empty(2 * words, dtype=np.uint64),
        np.zeros(STREAM_STATES, dtype=np.int64),
        np.empty(n, dtype=np.int32),
        np.empty(n, dtype=np.float64),
        np.empty(max(n, words), dtype=np.int64),
        np.empty(max(n, words), dtype=np.int64),
    )


@njit(cache=True, inline="always")
def reset_streams(starts_buffer, lengths_buffer, states):
    """Point both cursors at block 0 with an empty buffer: the first draw refills it."""
    states[0, 0] = starts_buffer.shape[0]
    states[0, 1] = 0
    states[0, 2] = 0  # draws held (stationary starts): none
    states[1, 0] = lengths_buffer.shape[0]
    states[1, 1] = 0
    states[1, 2] = 0  # lengths held (stationary): none
    states[1, 3] = 0  # count banked by a pair that passed every threshold


@njit(cache=True, inline="always")
def map_words(words, count, bound, scale, out):
    """out[i] = bounded(bound) of words[i], times ``scale``, for i < count, in one
    branch-free (vectorised) pass, as if no word were rejected; return the position of the
    first word in Lemire's rejection zone, or ``count`` if there is none."""
    bound = bound & _MASK32  # see _LOW_HALVES
    threshold = ((_MASK32 - bound) + np.uint64(1)) % bound
    rejected = False
    for i in range(count):
        product = (words[i] & _MASK32) * bound
        rejected |= (product & _MASK32) < threshold
        out[i] = np.int64(product >> _S32) * scale
    if not rejected:
        return count
    first = 0
    while (words[first] * bound) & _MASK32 >= threshold:
        first += 1
    return first


@njit(cache=True, inline="always")
def compact_words(words, position, end, bound, scale, out, accepted, limit):
    """Continue the draws at out[accepted] from words[position:end], keeping the accepted
    words only, until ``limit`` draws are held; return how many are. Each word is written
    to the next free slot and the slot advances only if the word is accepted: no branch
    on the word."""
    bound = bound & _MASK32  # see _LOW_HALVES
    threshold = ((_MASK32 - bound) + np.uint64(1)) % bound
    while accepted < limit and position < end:
        product = (words[position] & _MASK32) * bound
        position += 1
        out[accepted] = np.int64(product >> _S32) * scale
        accepted += np.int64((product & _MASK32) >= threshold)
    return accepted


@njit(cache=True, inline="always")
def bounded_run(out, count, bound, scale, words, next_block, k0, k1, purpose):
    """out[:count] = the next ``count`` draws of bounded(bound), times ``scale``, from a
    stream whose words from position 0 on fill ``words`` (at least ``count`` of them);
    ``next_block`` is the Philox block after them.

    A word in Lemire's rejection zone is drawn with probability (2**32 mod bound) / 2**32,
    so a row of n draws meets about n * (2**32 mod bound) / 2**32 of them: rare below
    n = 2**16, nearly certain above (1.6 per row at n = 1e5, 225 at 1e6). All words are
    mapped in one vectorised pass (:func:`map_words`); from the first rejected one on, the
    draws are compacted (:func:`compact_words`). Words past the buffer (the rejections
    used up its spare ones) are drawn one Philox block at a time, over the buffer's first
    four words, long consumed by then. Either way the draws are the reference's, word for
    word."""
    first = map_words(words, count, bound, scale, out)
    if first == count:
        return
    accepted = compact_words(words, first + 1, words.shape[0], bound, scale, out, first, count)
    block = np.uint64(next_block)
    while accepted < count:
        words[0], words[1], words[2], words[3] = philox4x32_10(
            block & _MASK32, block >> _S32, purpose, k1 >> _S32, k0, k1 & _MASK32
        )
        block += np.uint64(1)
        accepted = compact_words(words, 0, 4, bound, scale, out, accepted, count)


@njit(cache=True, inline="always")
def iid_row(n, bound, k0, k1, row, starts_buffer, state, purpose):
    """n bounded(bound) draws of the ``purpose`` stream into ``row`` (int32), from a
    cursor at block 0 and a buffer of at least n words (:func:`bounded_run`)."""
    # Only the row's own words, rounded up to a Philox block: the buffer's spare words
    # (for rejections, rare below n = 2**16) cost more in the vectorised refill's scalar
    # tail than the rare rejection's block-at-a-time draws do (measured at n = 200: 212
    # words, 1.17-1.32 ns a draw; 200 words, 0.99-1.15).
    words = starts_buffer[: 4 * ((n + 3) // 4)]
    refill(words, state, k0, k1, purpose)
    bounded_run(row, n, bound, 1, words, state[1], k0, k1, purpose)


@njit(cache=True, inline="always")
def _fixed_blocks(n, block_length, start_count, start_scale, k0, k1, starts_buffer, state, starts, lengths):
    """Blocks of a fixed-length layout: their starts from one vectorised fill of the start
    words (:func:`bounded_run`), their lengths b, the last cut so they sum to n."""
    refill(starts_buffer, state, k0, k1, BLOCK_START)
    blocks = (n + block_length - 1) // block_length
    bounded_run(starts, blocks, start_count, start_scale, starts_buffer, state[1], k0, k1, BLOCK_START)
    for i in range(blocks):
        lengths[i] = block_length
    lengths[blocks - 1] = n - (blocks - 1) * block_length
    return blocks


@njit(cache=True, inline="always")
def _held_starts(words, first_block, bound, k0, k1):
    """Fill ``words`` from Philox block ``first_block`` of the start stream and map them in
    place to their accepted bounded(bound) draws, in order; return how many are held.
    One branch-free pass maps every word; a buffer with a word in Lemire's rejection
    zone (rare below n = 2**16) is generated again and compacted word by word."""
    refill_from(words, first_block, k0, k1, BLOCK_START)
    threshold = ((_MASK32 - bound) + np.uint64(1)) % bound
    rejected = False
    for i in range(words.shape[0]):
        product = (words[i] & _MASK32) * bound
        rejected |= (product & _MASK32) < threshold
        words[i] = product >> _S32
    if not rejected:
        return words.shape[0]
    refill_from(words, first_block, k0, k1, BLOCK_START)
    held = 0
    for i in range(words.shape[0]):
        product = (words[i] & _MASK32) * bound
        words[held] = product >> _S32  # held <= i: the word read is never one written
        held += np.int64((product & _MASK32) >= threshold)
    return held


# A length code: the number of thresholds u passes (0 .. count; count: banked, the next
# pair decides), or count + 1 when u >= span (rejected), with the top bit set. A pair
# whose u lies in a crowded guide cell keeps its words, top bit clear, and is searched
# when it is taken.
_CODE = np.uint64(1 << 63)
_THRESHOLDS, _ONE = np.uint64(THRESHOLDS), np.uint64(1)


@njit(cache=True, inline="always")
def _held_lengths(words, first_block, table, k0, k1, banked):
    """Fill ``words`` from Philox block ``first_block`` of the length stream and turn them
    in place into the geometric lengths they give, in order; return (how many are held,
    the count banked by a last pair that passed every threshold, which the next buffer's
    first length adds).

    Pass 1, branch-free and vectorised, writes at words[2k] the code (``_CODE``) of the
    k-th pair's u = (words[2k] << 32) | words[2k + 1]: the guide, then one step, settle
    every u below the table's first crowded cell. Pass 2 folds the codes into lengths
    with no data-dependent branch but the rare crowded one."""
    refill_from(words, first_block, k0, k1, BLOCK_LENGTH)
    count = np.int64(table[COUNT])
    span, shift, crowded, unsigned_count = table[SPAN], table[GUIDE_SHIFT], table[CROWDED], table[COUNT]
    guide = _THRESHOLDS + unsigned_count
    # indices unsigned throughout: a signed one makes Numba test it for a negative value
    # on every load (see value_at in reduce.py)
    pairs = words.shape[0] // 2
    for k in range(pairs):
        even = np.uint64(2 * k)
        u = (words[even] << _S32) | words[even + _ONE]
        cell = min(u >> shift, _LAST_CELL)  # u >= span may point past the guide: clamped, then rejected
        passed = table[guide + cell]
        # passed <= count, so the index stays in the table (past the thresholds: the guide)
        passed += np.uint64((passed < unsigned_count) & (table[_THRESHOLDS + passed] <= u))
        code = passed if u < span else unsigned_count + _ONE
        words[even] = code | _CODE if (cell < crowded) | (u >= span) else words[even]
    held = 0
    for k in range(pairs):  # writes words[held], held <= k: never a word still to be read
        code = words[2 * k]
        if code & _CODE:
            passed = np.int64(code & ~_CODE)
        else:  # rare: a crowded cell (u < span there)
            passed = _searched_code(table, (code << _S32) | words[2 * k + 1])
        ends = passed < count  # a length; passed == count banks count, count + 1 is rejected
        words[held] = np.uint64(banked + passed + 1)
        held += np.int64(ends)
        banked = (banked + np.int64(passed == count) * count) * np.int64(not ends)
    return held, banked


@njit(cache=True, inline="always")
def _searched_code(table, u):
    """The code of a pair in a crowded guide cell (``_length_codes``), by a full search."""
    count = np.int64(table[COUNT])
    passed = np.int64(table[THRESHOLDS + count + np.int64(u >> table[GUIDE_SHIFT])])
    while passed < count and table[THRESHOLDS + passed] <= u:
        passed += 1
    return passed


@njit(cache=True, inline="always")
def stationary_chunk(
    n, filled, limit, start_count, table, k0, k1, starts_buffer, lengths_buffer, states, starts, lengths
):
    """The next stationary blocks of a replicate, from ``filled`` positions covered on:
    at most ``limit`` of them into starts[:m] and lengths[:m] (the last one cut at n);
    return (m, positions covered). ``states`` holds the two streams' cursors
    (:func:`reset_streams` before a replicate's first chunk); a buffer of any size (a
    multiple of 4) gives the same blocks, so a caller can stream a long row through
    L1-sized buffers."""
    # The draws of reference.draws (bounded starts, geometric lengths). Each buffer of
    # words is turned into draws as it is filled (_held_starts, _held_lengths), so the
    # loop over blocks only takes them in order; the cursors stay in registers rather
    # than in ``states`` while it runs: this loop is the hot one. states[0] = (position,
    # next block, draws held) of the starts; states[1] = (position, next block, lengths
    # held, count banked) of the lengths.
    start_cursor, start_next, start_held = states[0, 0], states[0, 1], states[0, 2]
    length_cursor, length_next, length_held, length_banked = states[1, 0], states[1, 1], states[1, 2], states[1, 3]
    # a replicate's last buffer is mostly wasted: short ones waste less (see STATIONARY_UNIT)
    start_capacity = min(starts_buffer.shape[0], STATIONARY_UNIT)
    length_capacity = min(lengths_buffer.shape[0], STATIONARY_UNIT)
    starts_buffer, lengths_buffer = starts_buffer[:start_capacity], lengths_buffer[:length_capacity]
    start_count = start_count & _MASK32  # see _LOW_HALVES
    count = np.int64(table[COUNT])
    blocks = 0
    while filled < n and blocks < limit:
        while start_cursor >= start_held:
            start_held = _held_starts(starts_buffer, start_next, start_count, k0, k1)
            start_next += start_capacity // 4
            start_cursor = 0
        start = np.int64(starts_buffer[start_cursor])
        start_cursor += 1
        length = 1
        if count > 0:
            while length_cursor >= length_held:
                length_held, length_banked = _held_lengths(lengths_buffer, length_next, table, k0, k1, length_banked)
                length_next += length_capacity // 4
                length_cursor = 0
            length = np.int64(lengths_buffer[length_cursor])
            length_cursor += 1
        starts[blocks] = start
        lengths[blocks] = min(length, n - filled)
        filled += lengths[blocks]
        blocks += 1
    states[0, 0], states[0, 1], states[0, 2] = start_cursor, start_next, start_held
    states[1, 0], states[1, 1], states[1, 2], states[1, 3] = length_cursor, length_next, length_held, length_banked
    return blocks, filled


@njit(cache=True, inline="always")
def fixed_chunk(n, filled, block_length, start_count, start_scale, k0, k1, words, states, starts, lengths):
    """The next fixed-length blocks of a replicate, from ``filled`` positions covered on:
    the accepted draws of the start stream's next ``len(words)`` words (starts needs that
    many slots), as many as the row still needs, into starts[:m] and lengths[:m] (b, the
    last one cut at n); return (m, positions covered). ``states[0, 1]`` is the stream's
    next Philox block (0 before a replicate's first chunk). Each chunk consumes its words
    whole, so any buffer size gives the blocks of :func:`row_blocks`."""
    capacity = words.shape[0]
    states[0, 1] = refill_from(words, states[0, 1], k0, k1, BLOCK_START)
    accepted = map_words(words, capacity, start_count, start_scale, starts)
    if accepted < capacity:
        accepted = compact_words(words, accepted + 1, capacity, start_count, start_scale, starts, accepted, capacity)
    blocks = min(accepted, (n - filled + block_length - 1) // block_length)
    for i in range(blocks):
        lengths[i] = block_length
    filled += blocks * block_length
    if filled > n:
        lengths[blocks - 1] -= filled - n
        filled = n
    return blocks, filled


@njit(cache=True)
def row_blocks(
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
):
    """Fill starts[:m] and lengths[:m] with the m blocks of a replicate's row (layouts
    other than IID_ROWS; lengths already cut so they sum to n); return m."""
    reset_streams(starts_buffer, lengths_buffer, states)
    if layout == STATIONARY_ROWS:
        return stationary_chunk(
            n, 0, n, start_count, table, k0, k1, starts_buffer, lengths_buffer, states, starts, lengths
        )[0]
    return _fixed_blocks(n, block_length, start_count, start_scale, k0, k1, starts_buffer, states[0], starts, lengths)


@njit(cache=True, inline="always")
def fill_row(layout, n, block_length, start_count, start_scale, wrap, table, k0, k1, row, scratch):
    """Write replicate (k0, k1)'s n positions into ``row`` (int32), using the work space
    of :func:`new_scratch`."""
    starts_buffer, lengths_buffer, states, _, _, starts, lengths = scratch
    reset_streams(starts_buffer, lengths_buffer, states)
    if layout == IID_ROWS:
        iid_row(n, start_count, k0, k1, row, starts_buffer, states[0], BLOCK_START)
        return
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
    for i in range(blocks):
        position = starts[i]
        for j in range(lengths[i]):
            row[filled + j] = np.int32(position)
            position += 1
            if wrap and position == n:
                position = 0
        filled += lengths[i]


@njit(cache=True, nogil=True)
def _index_task(
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
    out,
):
    for r in range(begin, end):
        k0, k1 = stream_key(root_lo, root_hi, series, np.uint64(first + r))
        fill_row(layout, n, block_length, start_count, start_scale, wrap, table, k0, k1, out[r], scratch)


def index_matrix(method, n, seed, n_bootstraps, first=0, series=0):
    """(n_bootstraps - first, n) int32 rows of replicates first .. n_bootstraps - 1 of
    series id ``series``."""
    out = np.empty((n_bootstraps - first, n), dtype=np.int32)
    root_lo, root_hi, series_word = stream_root(seed, series)
    plan = row_plan(method, n)
    run_replicates(
        _index_task,
        out.shape[0],
        2 * out.size,
        plan.scratch,
        *plan.arguments(),
        root_lo,
        root_hi,
        series_word,
        first,
        out,
    )
    return out
