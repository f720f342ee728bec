"""The S3 process study: the block-wild multiplier process and its triangular law."""

import dataclasses
from itertools import pairwise

import pytest

from bootmark.studies import multipliers, protocol


@pytest.fixture(scope="module")
def s3():
    return protocol.find("S3")


def test_the_process_is_the_reference_twins_block_wild_draws(s3):
    # Outside check: the reference twin's multiplier stream and phase for the same
    # (seed, replicate) build the same process, bit for bit.
    from bootmark.reference import keys, models

    for replicate in (0, 7, 1999):
        key = keys.replicate_key(keys.root_key(s3.root_seed), replicate)
        offset = models.block_offset(s3.block_length, key)
        values = models.multipliers("rademacher", models.block_count(s3.length, s3.block_length, offset), key)
        expected = [values[(j + offset) // s3.block_length] for j in range(s3.length)]
        assert multipliers.multiplier_process(s3, replicate) == expected


def test_blocks_share_one_multiplier(s3):
    v = multipliers.multiplier_process(s3, 5)
    changes = [t for t in range(1, len(v)) if v[t] != v[t - 1]]
    assert changes and all((b - a) % s3.block_length == 0 for a, b in pairwise(changes))


def test_triangular_law_on_a_small_run(s3):
    small = dataclasses.replace(s3, replicates=200)
    results = multipliers.results_of(small, multipliers.estimate(small))
    assert all(verdict["passed"] for verdict in results["criteria"] if verdict["id"].endswith("-law"))


def test_negative_control_blocks_of_one_break_the_law(s3):
    # Length-1 blocks are plain wild multipliers: lag-1 autocorrelation 0, not 0.9.
    broken = dataclasses.replace(s3, replicates=200)
    results = multipliers.results_of(broken, multipliers.estimate(dataclasses.replace(broken, block_length=1)))
    assert not next(v for v in results["criteria"] if v["id"] == "lag-1-law")["passed"]


def test_bad_process_protocols_are_refused(s3):
    text = s3.text
    with pytest.raises(protocol.ProtocolError, match="rademacher"):
        protocol.parse(text.replace('distribution = "rademacher"', 'distribution = "gaussian"'), s3.file_name)
    with pytest.raises(protocol.ProtocolError, match="lags"):
        protocol.parse(text.replace("lags = [1, 5, 12]", "lags = [0, 5]"), s3.file_name)
    with pytest.raises(protocol.ProtocolError, match="unknown study kind"):
        protocol.parse(text.replace('kind = "multiplier_autocorrelation"', 'kind = "other"'), s3.file_name)
