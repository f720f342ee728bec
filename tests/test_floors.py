"""The bench's floors compute exactly the work their docstrings claim: the words of the
reference Philox (counter (block, 0, purpose, 0), key (replicate, 12345)), mapped without
rejection, and the data they select summed. A floor that drew fewer words or summed
fewer blocks would flatter every engine/floor ratio in the receipts."""

import math

import numpy as np
import pytest

from bootmark.bench import floors
from bootmark.reference.philox import philox4x32_10

FLOOR_KEY = 12345


def words_of(replicate, purpose, count):
    """The first ``count`` words of a floor's stream, from the reference Philox."""
    out = []
    for block in range(-(-count // 4)):
        out.extend(philox4x32_10((block, 0, purpose, 0), (replicate, FLOOR_KEY)))
    return out[:count]


def fixed_floor_sums(x, block_length, n_bootstraps):
    n = len(x)
    prefix = [0.0] + list(np.cumsum(x)) if block_length > 1 else list(x)
    draws, bound = -(-n // block_length), n - block_length + 1
    sums = []
    for replicate in range(n_bootstraps):
        total = 0.0
        for word in words_of(replicate, 1, draws):
            start = (word * bound) >> 32
            total += prefix[start] if block_length == 1 else prefix[start + block_length] - prefix[start]
        sums.append(total)
    return sums


def stationary_floor_sums(x, block_length, n_bootstraps, length_words=2):
    n = len(x)
    prefix = [0.0] + list(np.cumsum(x))
    sums = []
    for replicate in range(n_bootstraps):
        starts, lengths = words_of(replicate, 1, n), words_of(replicate, 2, 2 * n)
        total, filled, block = 0.0, 0, 0
        while filled < n and block < -(-n // block_length):  # ceil(n / b) blocks' words at most
            start = (starts[block] * n) >> 32
            mixed = lengths[2 * block] ^ lengths[2 * block + 1] if length_words == 2 else lengths[block]
            length = min(1 + ((mixed * (2 * block_length - 1)) >> 32), n - filled)
            stop = start + length
            total += prefix[stop] - prefix[start] if stop <= n else (prefix[n] - prefix[start]) + prefix[stop - n]
            filled += length
            block += 1
        sums.append(total)
    return sums


@pytest.mark.parametrize("n, block_length", [(200, 1), (5_003, 1), (200, 10), (5_003, 7)])
def test_gather_floor_sums_the_blocks_its_words_select(n, block_length):
    x = np.random.default_rng(n).standard_normal(n)
    ours = floors.gather_floor(floors.block_prefix(x, block_length), n, block_length, 3)
    assert np.allclose(ours, fixed_floor_sums(x, block_length, 3), rtol=0, atol=1e-9 * n)


@pytest.mark.parametrize("n, block_length", [(200, 10), (5_003, 10), (50, 3)])
def test_stationary_gather_floor_covers_n_with_wrapping_blocks(n, block_length):
    x = np.random.default_rng(n).standard_normal(n)
    ours = floors.stationary_gather_floor(floors.block_prefix(x, block_length), n, block_length, 3)
    expected = stationary_floor_sums(x, block_length, 3)
    assert np.allclose(ours, expected, rtol=0, atol=1e-9 * n)
    # negative control: a floor drawing one length word a block instead of two sums other blocks
    assert not np.allclose(ours, stationary_floor_sums(x, block_length, 3, length_words=1), rtol=0, atol=1e-9 * n)


@pytest.mark.parametrize("words, n_bootstraps", [(8, 3), (200, 5), (20, 999), (5_000, 2)])
def test_philox_floor_generates_every_word_of_every_replicate(words, n_bootstraps):
    # short rows are generated many replicates at a time, long ones in steps: both must
    # give each replicate exactly its own words
    expected = 0
    for replicate in range(n_bootstraps):
        for word in words_of(replicate, 1, 4 * -(-words // 4)):
            expected ^= word
    assert int(floors.philox_floor(words, n_bootstraps)) == expected
    assert int(floors.philox_floor(words, n_bootstraps + 1)) != expected  # one more replicate's words count


def test_philox_throughput_is_a_positive_rate():
    rate = floors.philox_throughput(1, words=1 << 16, rounds=3)
    assert 0.0 < rate < 100.0  # words per ns: the floor generator on one thread


def test_words_per_replicate_counts_three_words_a_stationary_block():
    assert floors.words_per_replicate("stationary", 1000, 10) == 300
    assert floors.words_per_replicate("iid", 1000, 10) == 1000
    assert floors.words_per_replicate("moving", 1001, 10) == math.ceil(1001 / 10)


def test_stationary_floor_refuses_data_in_place_of_prefix_sums():
    x = np.zeros(50)
    with pytest.raises(ValueError, match="n \\+ 1 = 51 prefix sums"):
        floors.stationary_gather_floor(floors.block_prefix(x, 1), 50, 1, 2)
