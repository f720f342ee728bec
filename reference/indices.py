"""Index rows: which source positions replicate b is made of (docs/streams.md).

Every method draws block starts from the replicate's ``Purpose.BLOCK_START`` stream,
one bounded integer per block, and (stationary only) block lengths from its
``Purpose.BLOCK_LENGTH`` stream. Blocks are laid end to end and the row is truncated to
n. With block length 1 every method draws exactly the i.i.d. row, bit for bit.

``method`` must be resolved: its block length is an int in [1, n] (see
``blocklength.resolve_method``).
"""

from .draws import Purpose, WordStream, geometric_table
from .keys import root_key, stream_key
from .specs import IID, CircularBlock, MovingBlock, NonOverlappingBlock, StationaryBlock, TaperedBlock

# 2: geometric spans scaled to reject < 1/64 of words. Bump with any change to philox,
# keys, draws or this file's rows, or models.py's draws. Its purposes 3-8 were added
# under version 2: no existing stream changed.
STREAM_VERSION = 2


def moving_start_count(n, block_length):
    """Number of admissible moving-block starts: 0 .. n - block_length."""
    return n - block_length + 1


def _fixed_blocks(n, block_length, starts, start_count, start_scale, wrap):
    row = []
    while len(row) < n:
        start = starts.bounded(start_count) * start_scale
        stop = min(block_length, n - len(row))
        if wrap:
            row.extend((start + j) % n for j in range(stop))
        else:
            row.extend(range(start, start + stop))
    return row


def _stationary_blocks(n, starts, lengths, table):
    row = []
    while len(row) < n:
        start = starts.bounded(n)
        length = lengths.geometric(table) if table is not None else 1
        stop = min(length, n - len(row))
        row.extend((start + j) % n for j in range(stop))
    return row


def row_builder(method, n):
    """Return ``build(key) -> list of n ints`` for a resolved ``method`` and length ``n``;
    ``key`` is a stream key (``keys.stream_key``) or a (k0, k1) pair (series 0)."""
    if isinstance(method, IID):

        def build(key):
            starts = WordStream(key, Purpose.BLOCK_START)
            return [starts.bounded(n) for _ in range(n)]

        return build
    b = method.block_length
    if isinstance(method, StationaryBlock):
        table = geometric_table(b) if b > 1 else None

        def build(key):
            return _stationary_blocks(
                n, WordStream(key, Purpose.BLOCK_START), WordStream(key, Purpose.BLOCK_LENGTH), table
            )

        return build
    if isinstance(method, (MovingBlock, TaperedBlock)):
        layout = (moving_start_count(n, b), 1, False)
    elif isinstance(method, CircularBlock):
        layout = (n, 1, True)
    elif isinstance(method, NonOverlappingBlock):
        layout = (n // b, b, False)
    else:
        raise TypeError(f"not a resolved method spec: {method!r}")

    def build(key):
        return _fixed_blocks(n, b, WordStream(key, Purpose.BLOCK_START), *layout)

    return build


def index_rows(method, n, seed, n_bootstraps, first=0, series=0):
    """Yield the index rows of replicates ``first .. n_bootstraps - 1`` for ``seed`` and
    series id ``series`` (the counter's series word).

    Row b depends only on (seed, series, b), never on ``first`` or on other rows.
    """
    build = row_builder(method, n)
    root = root_key(seed)
    for replicate in range(first, n_bootstraps):
        yield build(stream_key(root, replicate, series))
