"""Interval sanity on dependent data, and the interval object's contract."""

import math

import numpy as np

from bootmark import reference
from bootmark.studies.dgp import ar1


def test_iid_percentile_interval_is_narrower_than_moving_block_on_ar1_for_most_seeds():
    # On an AR(1) with phi = 0.7 the i.i.d. bootstrap ignores the positive
    # autocorrelation, so its interval for the mean should be about 1 / 2.38 as wide as
    # an interval that respects it. "Most" is 18 of 20: the ratio's sampling spread at
    # n = 200 and B = 199 makes an occasional inversion possible but rare.
    narrower = 0
    for seed in range(20):
        x = ar1(200, 0.7, seed=seed).tolist()
        low_iid, high_iid, _ = reference.conf_int(x, "mean", reference.IID(), alpha=0.10, n_bootstraps=199, seed=seed)
        low_mbb, high_mbb, _ = reference.conf_int(
            x, "mean", reference.MovingBlock("auto"), alpha=0.10, n_bootstraps=199, seed=seed
        )
        narrower += (high_iid - low_iid) < (high_mbb - low_mbb)
    assert narrower >= 18


def test_interval_unpacks_and_records_its_provenance():
    x = ar1(60, 0.3, seed=1).tolist()
    interval = reference.conf_int(
        x, "median", reference.CircularBlock(4), alpha=0.2, kind="basic", n_bootstraps=50, seed=3
    )
    lower, upper, point = interval
    assert lower <= upper
    assert point == float(np.median(x))
    assert interval.coverage == 0.8 and interval.kind == "basic" and interval.seed == 3
    assert interval.stream_version == reference.STREAM_VERSION
    assert interval.method == reference.CircularBlock(4)


def test_percentile_interval_brackets_the_bootstrap_quantiles():
    x = ar1(80, 0.5, seed=2).tolist()
    result = reference.bootstrap_reduce(x, reference.StationaryBlock(5), "mean", n_bootstraps=300, seed=4)
    lower, upper, _ = reference.conf_int(x, "mean", reference.StationaryBlock(5), alpha=0.1, n_bootstraps=300, seed=4)
    replicates = np.array(result.statistics)
    assert lower == np.quantile(replicates, 0.05) and upper == np.quantile(replicates, 0.95)
    inside = np.mean((replicates >= lower) & (replicates <= upper))
    assert math.isclose(inside, 0.9, abs_tol=2 / 300)
