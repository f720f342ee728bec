"""Index streams at the sizes users meet: bit for bit the reference twin's at n = 1e5, 1e6
and 3e6, where Lemire's rejection zone is met in nearly every row.

A word w is rejected for bound m when (w * m) mod 2**32 < 2**32 mod m. Below n = 2**16 a
row of n i.i.d. draws rarely meets one; at n = 1e5 it meets 1.6 on average, at 1e6 about
225, and at 3e6 about 1,374: more than the spare words of the row's buffer, so the engine
must draw further Philox blocks. Each test checks, from the raw words, that its row
really met rejections (so the compaction path ran), and the negative control shows that
mapping every word without compaction gives rows the test rejects.
"""

import numpy as np
import pytest
from numba import njit
from test_engine_api import mean_bound

from bootmark import engine, reference
from bootmark.engine import models as engine_models
from bootmark.engine.draws import BLOCK_START, RESIDUAL_INDEX, refill_from
from bootmark.engine.indices import (
    STATIONARY_ROWS,
    STREAM_STATES,
    fixed_chunk,
    new_scratch,
    reset_streams,
    row_blocks,
    row_plan,
    stationary_chunk,
    stream_words,
)
from bootmark.engine.keys import replicate_key, root_key
from bootmark.engine.reduce import STREAM_MIN_N, accurate_sum, centre_columns, rounded_prefix
from bootmark.reference import models as reference_models
from bootmark.reference.keys import replicate_key as reference_replicate_key
from bootmark.reference.keys import root_key as reference_root_key

SEED = 20261203


def stream(seed, replicate, purpose, count):
    """The first ``count`` words of a replicate's stream, as the engine's refill draws them."""
    root = root_key(seed)
    k0, k1 = replicate_key(root[0], root[1], np.uint64(replicate))
    words = np.empty(4 * ((count + 3) // 4), dtype=np.uint64)
    refill_from(words, np.int64(0), np.uint64(k0), np.uint64(k1), purpose)
    return words[:count]


def rejected(words, bound):
    bound = np.uint64(bound)
    threshold = (np.uint64(2**32) - bound) % bound
    return int(np.count_nonzero((words * bound) & np.uint64(0xFFFFFFFF) < threshold))


def no_compaction_row(words, bound):
    """The broken variant: every word mapped, rejected or not."""
    return ((words * np.uint64(bound)) >> np.uint64(32)).astype(np.int64)


def reference_rows(method, n, replicates):
    return np.array(reference.bootstrap([0.0] * n, method, n_bootstraps=replicates, seed=SEED).indices())


@pytest.mark.parametrize("n", [100_000, 1_000_000, pytest.param(3_000_000, marks=pytest.mark.slow)])
def test_iid_rows_equal_the_reference_where_rejections_are_certain(n):
    ours = engine.bootstrap(np.zeros(n), engine.IID(), 2, seed=SEED).indices()
    theirs = reference_rows(reference.IID(), n, 2)
    met = [rejected(stream(SEED, b, BLOCK_START, n), n) for b in range(2)]
    assert sum(met) >= 1, "this seed's rows meet no rejection: the test would not exercise compaction"
    if n == 3_000_000:
        assert min(met) > stream_words(n, 1) - n, "the rejections must use up the buffer's spare words"
    assert np.array_equal(ours, theirs)


def test_negative_control_rows_without_compaction_differ():
    n = 100_000
    theirs = reference_rows(reference.IID(), n, 2)
    broken = [no_compaction_row(stream(SEED, b, BLOCK_START, n), n) for b in range(2)]
    assert not all(np.array_equal(row, expected) for row, expected in zip(broken, theirs, strict=True))


@pytest.mark.parametrize(
    "method, n",
    [
        (reference.MovingBlock(3), 1_000_000),
        (reference.CircularBlock(2), 1_000_000),
        (reference.NonOverlappingBlock(2), 1_000_000),
        pytest.param(reference.MovingBlock(2), 3_000_000, marks=pytest.mark.slow),
    ],
)
def test_fixed_block_rows_equal_the_reference_past_the_spare_words(method, n):
    ours = engine.bootstrap(np.zeros(n), method, 1, seed=SEED).indices()
    blocks = -(-n // method.block_length)
    bound = {
        "MovingBlock": n - method.block_length + 1,
        "CircularBlock": n,
        "NonOverlappingBlock": n // method.block_length,
    }[type(method).__name__]
    assert rejected(stream(SEED, 0, BLOCK_START, blocks), bound) >= 1
    assert np.array_equal(ours, reference_rows(method, n, 1))


def test_residual_indices_equal_the_reference_at_1e5():
    count = 100_000
    ours = engine_models.residual_indices(count, SEED, 3).tolist()
    theirs = reference_models.residual_indices(count, reference_replicate_key(reference_root_key(SEED), 3))
    assert rejected(stream(SEED, 3, RESIDUAL_INDEX, count), count) >= 1
    assert ours == theirs


@pytest.mark.parametrize("n", [STREAM_MIN_N, 100_003, 1_000_000])
def test_streamed_iid_mean_has_the_row_paths_bits_and_the_references_value(n):
    x = np.random.default_rng(n).standard_normal(n)
    streamed = engine.bootstrap_reduce(x, engine.IID(), "mean", 3, seed=SEED).statistics
    rows = engine.bootstrap(x, engine.IID(), 3, seed=SEED).indices()
    # The row path's own summation over the same rows: the streamed kernel must equal it.
    assert np.array_equal(streamed, [accurate_sum(x[row], n) / n for row in rows])
    exact = [reference.bootstrap_reduce(x.tolist(), reference.IID(), "mean", n_bootstraps=3, seed=SEED).statistics]
    assert np.all(np.abs(streamed - np.asarray(exact[0])) <= mean_bound(x))


def test_values_out_and_chunks_equal_values():
    x = np.random.default_rng(5).standard_normal(20_000)
    for method in (engine.IID(), engine.MovingBlock(10), engine.CircularBlock(10), engine.StationaryBlock(10)):
        result = engine.bootstrap(x, method, 23, seed=SEED)
        whole = result.values()
        assert np.array_equal(whole, x[result.indices()])
        out = np.empty_like(whole)
        assert result.values(out=out) is out and np.array_equal(out, whole)
        chunks = list(result.iter_values(chunk_size=7))
        assert [first for first, _ in chunks] == [0, 7, 14, 21]
        assert np.array_equal(np.concatenate([block for _, block in chunks]), whole)


@pytest.mark.parametrize(
    "bad, words", [(np.empty((3, 4)), "shape"), (np.empty((23, 500), dtype=np.int64), "dtype"), ([0.0], "numpy array")]
)
def test_a_bad_out_array_is_refused_by_name(bad, words):
    result = engine.bootstrap(np.zeros(500), engine.IID(), 23, seed=1)
    with pytest.raises(engine.BootmarkError, match=f"out.*{words}"):
        result.values(out=bad)


# Block algebra streams a long row through L1-sized buffers (engine/reduce.py,
# _block_mean_var_task): at most CHUNK_WORDS start words and their blocks at a time.


@njit
def chunked_blocks(layout, n, block_length, start_count, start_scale, table, k0, k1, capacity, forget):
    """Every block of a replicate, drawn through buffers of ``capacity`` start words as
    the streamed block algebra draws them; ``forget`` is the broken variant that starts
    each chunk's streams afresh."""
    start_words = np.empty(capacity, dtype=np.uint64)
    length_words = np.empty(2 * capacity, dtype=np.uint64)
    states = np.zeros(STREAM_STATES, dtype=np.int64)
    starts, lengths = np.empty(max(n, capacity), dtype=np.int64), np.empty(max(n, capacity), dtype=np.int64)
    all_starts, all_lengths = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    reset_streams(start_words, length_words, states)
    filled, count = 0, 0
    while filled < n:
        if forget:
            reset_streams(start_words, length_words, states)
        if layout == STATIONARY_ROWS:
            blocks, filled = stationary_chunk(
                n,
                filled,
                min(capacity, n),
                start_count,
                table,
                k0,
                k1,
                start_words,
                length_words,
                states,
                starts,
                lengths,
            )
        else:
            blocks, filled = fixed_chunk(
                n, filled, block_length, start_count, start_scale, k0, k1, start_words, states, starts, lengths
            )
        all_starts[count : count + blocks] = starts[:blocks]
        all_lengths[count : count + blocks] = lengths[:blocks]
        count += blocks
    return all_starts[:count], all_lengths[:count]


def whole_row_blocks(layout, n, block_length, start_count, start_scale, table, k0, k1):
    """The blocks of the row builder behind every index row (one buffer for the row)."""
    starts_buffer, lengths_buffer, states, _, _, starts, lengths = new_scratch(n, block_length)
    count = row_blocks(
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
    return starts[:count], lengths[:count]


BLOCK_METHODS = [
    engine.MovingBlock(3),
    engine.CircularBlock(2),
    engine.NonOverlappingBlock(2),
    engine.StationaryBlock(10),
]


def plan_and_keys(method, n, replicate):
    plan = row_plan(method, n)
    root = root_key(SEED)
    k0, k1 = replicate_key(root[0], root[1], np.uint64(replicate))
    return plan, (
        plan.layout,
        n,
        plan.block_length,
        np.uint64(plan.start_count),
        plan.start_scale,
        plan.table,
        np.uint64(k0),
        np.uint64(k1),
    )


@pytest.mark.parametrize("method", BLOCK_METHODS, ids=lambda m: type(m).__name__)
def test_blocks_drawn_chunk_by_chunk_are_the_whole_rows_blocks(method):
    n = 3_001  # hundreds of chunks of 4 words, one of 2,048
    _, arguments = plan_and_keys(method, n, 1)
    expected = whole_row_blocks(*arguments)
    for capacity in (4, 8, 64, 2048):
        starts, lengths = chunked_blocks(*arguments, capacity, False)
        assert np.array_equal(starts, expected[0]) and np.array_equal(lengths, expected[1]), capacity
    # negative control: chunks that forget the stream's position give other blocks
    broken = chunked_blocks(*arguments, 64, True)
    assert broken[0].shape != expected[0].shape or not np.array_equal(broken[0], expected[0])


@pytest.mark.parametrize("method", BLOCK_METHODS, ids=lambda m: type(m).__name__)
def test_chunks_keep_the_whole_rows_blocks_where_most_start_words_are_rejected(method):
    # A start bound of 2**31 + 1 rejects about half the words: chunks of 4 words often
    # accept none, and compaction runs in nearly every chunk.
    n = 3_001
    plan, arguments = plan_and_keys(method, n, 2)
    arguments = arguments[:3] + (np.uint64(2**31 + 1),) + arguments[4:]
    met = rejected(stream(SEED, 2, BLOCK_START, 64), 2**31 + 1)
    assert met >= 16, "the bound must reject words for this test to exercise compaction"
    expected = whole_row_blocks(*arguments)
    for capacity in (4, 8, 64):
        starts, lengths = chunked_blocks(*arguments, capacity, False)
        assert np.array_equal(starts, expected[0]) and np.array_equal(lengths, expected[1]), capacity


def one_pass_block_moments(x, method, statistic, n_bootstraps, forget=False):
    """Each replicate's mean or variance by block algebra in plain Python floats: the whole
    row's blocks (or the broken chunks'), then one pass over them in row order."""
    centred, means = centre_columns(x[None, :])
    sums = rounded_prefix(np.ascontiguousarray(centred[0])).tolist()
    squares = rounded_prefix(np.ascontiguousarray(centred[0] * centred[0])).tolist()
    n, out = x.shape[0], []

    def total(prefix, starts, lengths):
        added = 0.0
        for start, length in zip(starts, lengths, strict=True):
            stop = start + length
            added += prefix[stop] - prefix[start] if stop <= n else (prefix[n] - prefix[start]) + prefix[stop - n]
        return added

    for replicate in range(n_bootstraps):
        _, arguments = plan_and_keys(method, n, replicate)
        starts, lengths = chunked_blocks(*arguments, 2048, True) if forget else whole_row_blocks(*arguments)
        starts, lengths = starts.tolist(), lengths.tolist()
        shift = total(sums, starts, lengths) / n
        if statistic == "mean":
            out.append(means[0] + shift)
        else:
            out.append(max(total(squares, starts, lengths) / n - shift * shift, 0.0))
    return np.array(out)


@pytest.mark.parametrize("statistic", ["mean", "var"])
@pytest.mark.parametrize("method", BLOCK_METHODS, ids=lambda m: type(m).__name__)
def test_streamed_block_moments_have_the_one_pass_bits_at_1e5(method, statistic):
    n = 100_000  # 33,000 to 50,000 blocks a row: many 2,048-word chunks
    x = np.random.default_rng(7).standard_normal(n)
    ours = engine.bootstrap_reduce(x, method, statistic, 3, seed=SEED).statistics
    assert np.array_equal(ours, one_pass_block_moments(x, method, statistic, 3))
    # negative control: chunks that forget the stream's position
    assert not np.array_equal(ours, one_pass_block_moments(x, method, statistic, 3, forget=True))


def test_stationary_rows_equal_the_reference_at_1e5():
    n = 100_000
    ours = engine.bootstrap(np.zeros(n), engine.StationaryBlock(10), 2, seed=SEED).indices()
    assert np.array_equal(ours, reference_rows(reference.StationaryBlock(10), n, 2))
