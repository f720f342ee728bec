"""Distribution checks of the reference streams, each with its power stated and checked.

All draws are seeded, so each test is deterministic; the rejection thresholds are set so
that a correct implementation would fail with probability about 1e-4 or less over a
fresh seed, and the power against a named defect is computed in the test itself.
"""

import math
from statistics import NormalDist

import pytest
from scipy import stats

from bootmark import reference
from bootmark.reference import indices as indices_module
from bootmark.reference.draws import Purpose, WordStream, geometric_table
from bootmark.reference.indices import index_rows
from bootmark.reference.keys import replicate_key, root_key

FAMILY_ALPHA = 1e-4


def _stream(seed, purpose=Purpose.BLOCK_START):
    return WordStream(replicate_key(root_key(seed), 0), purpose)


def _chi_square_power(probabilities, perturbed, draws, alpha=FAMILY_ALPHA):
    """Power of the chi-square goodness-of-fit test against ``perturbed`` cell probabilities."""
    df = len(probabilities) - 1
    noncentrality = draws * sum((q - p) ** 2 / p for p, q in zip(probabilities, perturbed, strict=True))
    return stats.ncx2.sf(stats.chi2.isf(alpha, df), df, noncentrality)


def _chi_square_p(counts, probabilities):
    total = sum(counts)
    statistic = sum((c - total * p) ** 2 / (total * p) for c, p in zip(counts, probabilities, strict=True))
    return stats.chi2.sf(statistic, len(counts) - 1)


def test_bounded_7_is_uniform():
    draws, bound = 140_000, 7
    stream = _stream(7)
    counts = [0] * bound
    for _ in range(draws):
        counts[stream.bounded(bound)] += 1
    uniform = [1 / bound] * bound
    # Power: a 5% relative excess in one value (taken from the others) is caught with
    # probability >= 0.99 at alpha = 1e-4.
    perturbed = [1.05 / bound] + [(1 - 1.05 / bound) / (bound - 1)] * (bound - 1)
    assert _chi_square_power(uniform, perturbed, draws) >= 0.99
    assert _chi_square_p(counts, uniform) > FAMILY_ALPHA


def test_bounded_2_31_minus_1_is_uniform_over_64_bins():
    draws, bound, bins = 64_000, 2**31 - 1, 64
    # Exact probability that floor(v * bins / bound) == i for v uniform on [0, bound).
    edges = [-(-i * bound // bins) for i in range(bins + 1)]
    probabilities = [(edges[i + 1] - edges[i]) / bound for i in range(bins)]
    stream = _stream(2**31)
    counts = [0] * bins
    for _ in range(draws):
        counts[stream.bounded(bound) * bins // bound] += 1
    # Power: a generator that never returns the top half of one bin (e.g. a 32-bit word
    # truncated to fewer bits) would be caught with probability >= 0.99.
    perturbed = list(probabilities)
    perturbed[5] /= 2
    perturbed = [p / sum(perturbed) for p in perturbed]
    assert _chi_square_power(probabilities, perturbed, draws) >= 0.99
    assert _chi_square_p(counts, probabilities) > FAMILY_ALPHA


def _geometric_failures(draw, mean, draws):
    """Failed checks of ``draws`` lengths from ``draw()`` against Geometric(1/mean)."""
    lengths = [draw() for _ in range(draws)]
    p = 1.0 / mean
    variance = mean * (mean - 1)
    excess_kurtosis = 6 + p * p / (1 - p)
    z_limit = NormalDist().inv_cdf(1 - FAMILY_ALPHA / 6)  # three checks share the family alpha
    sample_mean = sum(lengths) / draws
    sample_var = sum((v - sample_mean) ** 2 for v in lengths) / (draws - 1)
    ones = sum(1 for v in lengths if v == 1) / draws
    failures = []
    if abs(sample_mean - mean) / math.sqrt(variance / draws) > z_limit:
        failures.append(f"mean {sample_mean}")
    if abs(sample_var - variance) / (variance * math.sqrt((excess_kurtosis + 2) / draws)) > z_limit:
        failures.append(f"variance {sample_var}")
    if abs(ones - p) / math.sqrt(p * (1 - p) / draws) > z_limit:
        failures.append(f"P(L=1) {ones}")
    if min(lengths) < 1:
        failures.append("length below 1")
    return failures, lengths


@pytest.mark.parametrize("mean", [2, 10, 37])
def test_geometric_lengths_have_the_right_mean_variance_and_tail(mean):
    draws = 20_000
    # Power: with n = 20,000 a mean off by 3% is more than 4 standard errors away at
    # every mean tested here.
    assert 0.03 * mean / math.sqrt(mean * (mean - 1) / draws) > 4
    table = geometric_table(mean)
    stream = _stream(mean, Purpose.BLOCK_LENGTH)
    failures, lengths = _geometric_failures(lambda: stream.geometric(table), mean, draws)
    assert failures == []
    # The tail is not truncated: P(L > 210) at mean 37 is (36/37)**210 ~ 0.003, so about
    # 63 of 20,000 draws exceed 210 (a 32-bit inverse CDF stops near there).
    if mean == 37:
        assert sum(1 for v in lengths if v > 210) > 20


def test_negative_control_truncated_geometric_tail_fails():
    mean = 37
    table = geometric_table(mean)  # 11 base-37 trials per 64-bit draw
    stream = _stream(mean, Purpose.BLOCK_LENGTH)

    def truncated():
        return min(stream.geometric(table), len(table.thresholds) * 4)

    failures, _ = _geometric_failures(truncated, mean, 20_000)
    assert failures


def expected_inclusion(kind, n, b):
    """Expected number of times each position appears in one replicate, by counting.

    A row is ceil(n / b) block slots: full ones of length b and a last one of length
    n - b * (ceil(n / b) - 1). A slot of length L starting at s covers s .. s + L - 1.
    """
    slots = [b] * (n // b) + ([n % b] if n % b else [])
    if kind == "moving":
        starts = list(range(0, n - b + 1))  # Kunsch: every start whose full block fits
    elif kind == "nonoverlapping":
        starts = list(range(0, (n // b) * b, b))
    else:
        raise ValueError(kind)
    rate = [0.0] * n
    for length in slots:
        for s in starts:
            for j in range(s, s + length):
                rate[j] += 1 / len(starts)
    return rate


def _inclusion_failures(method, n, expected, replicates=4000, seed=9):
    counts = [[0] * n for _ in range(replicates)]
    for r, row in enumerate(index_rows(method, n, seed, replicates)):
        if len(row) != n or not all(0 <= i < n for i in row):
            return ["row out of range"]
        for i in row:
            counts[r][i] += 1
    z_limit = NormalDist().inv_cdf(1 - FAMILY_ALPHA / (2 * n))  # Bonferroni over positions
    failures = []
    for j in range(n):
        column = [counts[r][j] for r in range(replicates)]
        average = sum(column) / replicates
        sd = math.sqrt(sum((c - average) ** 2 for c in column) / (replicates - 1))
        if sd == 0.0:
            if average != expected[j]:
                failures.append(j)
        elif abs(average - expected[j]) / (sd / math.sqrt(replicates)) > z_limit:
            failures.append(j)
    return failures


N, B = 23, 5


@pytest.mark.parametrize("method", [reference.IID(), reference.CircularBlock(B), reference.StationaryBlock(B)])
def test_uniform_inclusion_rates(method):
    assert _inclusion_failures(method, N, [1.0] * N) == []


def test_moving_block_under_samples_the_ends_at_the_textbook_rate():
    expected = expected_inclusion("moving", N, B)
    # Position 0 is covered only by the block starting at 0: 5 slots (4 full, 1 of
    # length 3) over 19 starts give 5/19, against 23/19 in the middle.
    assert expected[0] == pytest.approx(5 / 19) and expected[11] == pytest.approx(23 / 19)
    assert _inclusion_failures(reference.MovingBlock(B), N, expected) == []


def test_non_overlapping_inclusion_rates():
    expected = expected_inclusion("nonoverlapping", N, B)
    assert expected[20:] == [0.0, 0.0, 0.0]  # the remainder is never drawn
    assert _inclusion_failures(reference.NonOverlappingBlock(B), N, expected) == []


@pytest.mark.parametrize("shift", [-1, +1])
def test_negative_control_off_by_one_moving_start_range_fails(monkeypatch, shift):
    correct = indices_module.moving_start_count
    monkeypatch.setattr(indices_module, "moving_start_count", lambda n, b: correct(n, b) + shift)
    assert _inclusion_failures(reference.MovingBlock(B), N, expected_inclusion("moving", N, B)) != []
