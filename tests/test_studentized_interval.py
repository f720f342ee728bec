"""kind="studentized": the bootstrap-t interval for the mean with the fixed-b standard error.

The definition is in reference/intervals.py. Checked here:

* The fixed-b standard error equals, to rounding, the Bartlett-kernel long-run variance
  with bandwidth n written through autocovariances (Kiefer & Vogelsang 2002's identity),
  computed here with numpy; negative controls (bandwidth n - 1, a dropped factor 2) fail.
* The twins: the same B means and the same rows, so se*_b agree within the bound of two
  accurate sums (stated in engine/reduce.py) and the bounds within a few ulps of the
  data's scale times the t* spread.
* The critical values the bootstrap finds for a long i.i.d. series reach the fixed-b
  limit's published 95% quantile, 3.764 (Kiefer & Vogelsang 2002, Table 1, b = 1);
  negative control: the normal quantile 1.645 is far outside the same tolerance.
* Bad input: a statistic other than the mean, a tapered or model-based method, a constant
  series, interval() without its (se, [se*_b]): typed errors naming the argument.
"""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bootmark import engine, reference
from bootmark.engine import intervals as engine_intervals
from bootmark.engine import reduce as engine_reduce
from bootmark.engine.api import studentization
from bootmark.reference import intervals as reference_intervals
from bootmark.reference.errors import ErrorCode, InvalidDataError, InvalidParameterError
from bootmark.reference.intervals import fixed_b_standard_error
from bootmark.studies.dgp import ar1

METHODS = [
    reference.IID(),
    reference.MovingBlock(6),
    reference.CircularBlock(6),
    reference.StationaryBlock(6),
    reference.NonOverlappingBlock(5),
    reference.MovingBlock("auto"),
]
KVB_CRITICAL_95 = 3.764  # Kiefer & Vogelsang (2002), Table 1: Bartlett kernel, b = 1, 95% quantile of t


def bartlett_long_run_variance(x, bandwidth):
    """sum over |j| < bandwidth of (1 - |j| / bandwidth) gamma_j, gamma_j with divisor n."""
    x = np.asarray(x, dtype=float)
    u, n = x - x.mean(), x.shape[0]
    total = float(np.dot(u, u)) / n
    for lag in range(1, bandwidth):
        total += 2.0 * (1.0 - lag / bandwidth) * float(np.dot(u[lag:], u[:-lag])) / n
    return total


@pytest.mark.parametrize("n,offset", [(30, 0.0), (200, 0.0), (501, 1e3)])
def test_fixed_b_standard_error_is_the_bartlett_kernel_with_bandwidth_n(n, offset):
    x = ar1(n, 0.6, seed=n) + offset
    expected = math.sqrt(bartlett_long_run_variance(x, n) / n)
    assert fixed_b_standard_error(x.tolist()) == pytest.approx(expected, rel=1e-9)
    assert float(engine_reduce.fixed_b_standard_error(x.copy())) == pytest.approx(expected, rel=1e-9)
    # negative controls: another bandwidth, or the identity's factor 2 dropped
    assert math.sqrt(bartlett_long_run_variance(x, n - 1) / n) != pytest.approx(expected, rel=1e-6)
    assert expected / math.sqrt(2.0) != pytest.approx(fixed_b_standard_error(x.tolist()), rel=1e-6)


@settings(max_examples=25)
@given(
    n=st.integers(12, 90),
    data_seed=st.integers(0, 10**6),
    seed=st.integers(0, 2**64),
    method=st.sampled_from(METHODS),
    offset=st.sampled_from([0.0, 50.0, -3e3]),
    alpha=st.sampled_from([0.05, 0.1, 0.32]),
)
def test_twins_agree_on_the_studentized_interval(n, data_seed, seed, method, offset, alpha):
    x = ar1(n, 0.5, seed=data_seed) + offset
    ours = engine.conf_int(x, "mean", method, alpha=alpha, kind="studentized", n_bootstraps=60, seed=seed)
    theirs = reference.conf_int(x.tolist(), "mean", method, alpha=alpha, kind="studentized", n_bootstraps=60, seed=seed)
    scale = max(1.0, abs(offset)) * float(np.ptp(x) + 1.0)
    assert ours.kind == "studentized" and ours.point == pytest.approx(theirs.point, abs=1e-13 * scale)
    assert abs(ours.lower - theirs.lower) <= 1e-9 * scale and abs(ours.upper - theirs.upper) <= 1e-9 * scale
    # theta need not lie inside a bootstrap-t interval (at n = 12 all t*_b can share a
    # sign); its ordering is what the rule guarantees: se > 0 and Q_t is monotone
    assert ours.lower <= ours.upper


def test_replicate_standard_errors_are_each_replicates_own():
    """se*_b from the fused kernel equals the rule applied to the materialized replicate."""
    x = ar1(120, 0.7, seed=4)
    method = engine.MovingBlock(9)
    result = engine.bootstrap_reduce(x, method, "mean", 50, seed=3)
    standard_error, replicate_errors = studentization(x, result)[0]
    values = engine.bootstrap(x, method, 50, seed=3).values()
    expected = [fixed_b_standard_error(row.tolist()) for row in values]
    assert standard_error == pytest.approx(fixed_b_standard_error(x.tolist()), rel=1e-12)
    assert np.allclose(replicate_errors, expected, rtol=1e-12, atol=0)
    # negative control: the standard errors of another seed's replicates differ
    other = studentization(x, engine.bootstrap_reduce(x, method, "mean", 50, seed=4))[0][1]
    assert not np.allclose(replicate_errors, other, rtol=1e-3)


def test_bootstrap_critical_values_reach_the_fixed_b_limit_for_long_iid_series():
    """For i.i.d. data the i.i.d. bootstrap of t is the fixed-b law at this n: the 95%
    quantile of t*, pooled over several series, is within MC error of 3.764."""
    quantiles = []
    for seed in range(6):
        x = np.random.default_rng(seed).standard_normal(1500)
        result = engine.bootstrap_reduce(x, engine.IID(), "mean", 4000, seed=seed)
        _, replicate_errors = studentization(x, result)[0]
        t = (np.asarray(result.statistics) - float(result.point)) / replicate_errors
        quantiles.append(float(np.quantile(np.abs(t), 0.90)))  # |t| at 90% = t at 95% (symmetric law)
    estimate, spread = float(np.mean(quantiles)), float(np.std(quantiles, ddof=1)) / math.sqrt(len(quantiles))
    tolerance = max(4.0 * spread, 0.08)
    assert abs(estimate - KVB_CRITICAL_95) < tolerance
    assert abs(estimate - 1.645) > 10 * tolerance  # negative control: the normal quantile


@pytest.mark.parametrize("twin", [reference, engine], ids=["reference", "engine"])
def test_studentized_interval_refuses_what_it_is_not_defined_for(twin):
    x = ar1(60, 0.5, seed=1)
    x = x.tolist() if twin is reference else x
    with pytest.raises(InvalidParameterError) as error:
        twin.conf_int(x, "median", reference.MovingBlock(5), kind="studentized", n_bootstraps=20, seed=1)
    assert error.value.code == ErrorCode.STATISTIC and error.value.argument == "statistic"
    for method in (reference.TaperedBlock(6), reference.ResidualBootstrap(reference.AR(1))):
        with pytest.raises(InvalidParameterError) as error:
            twin.conf_int(x, "mean", method, kind="studentized", n_bootstraps=20, seed=1)
        assert error.value.code == ErrorCode.INTERVAL_KIND and error.value.argument == "kind"
    constant = [2.5] * 40 if twin is reference else np.full(40, 2.5)
    with pytest.raises(InvalidDataError) as error:
        twin.conf_int(constant, "mean", reference.MovingBlock(5), kind="studentized", n_bootstraps=20, seed=1)
    assert error.value.code == ErrorCode.DATA_CONSTANT and error.value.argument == "x"
    with pytest.raises(InvalidParameterError) as error:
        twin.conf_int(
            x, "mean", reference.MovingBlock(5), kind="studentized", n_bootstraps=20, seed=1, inner_bootstraps=50
        )
    assert error.value.argument == "inner_bootstraps"


def test_studentized_interval_takes_pandas_and_lays_out_columns():
    index = pd.date_range("2026-01-01", periods=150, freq="h")
    frame = pd.DataFrame({"a": ar1(150, 0.6, seed=1), "b": ar1(150, 0.2, seed=2) + 10.0}, index=index)
    lower, upper, point = engine.conf_int(
        frame, "mean", engine.MovingBlock("auto"), alpha=0.1, kind="studentized", seed=5
    )
    assert isinstance(lower, pd.Series) and list(lower.index) == ["a", "b"]
    assert np.all(lower < point) and np.all(point < upper)
    single = engine.conf_int(frame["a"], "mean", engine.MovingBlock("auto"), alpha=0.1, kind="studentized", seed=5)
    assert isinstance(single.lower, float)
    assert single.lower == pytest.approx(float(lower["a"]), rel=1e-12)


@pytest.mark.parametrize(
    "interval", [engine_intervals.interval, reference_intervals.interval], ids=["engine", "reference"]
)
@pytest.mark.parametrize("kind,argument", [("studentized", "studentization"), ("calibrated", "calibration")])
def test_interval_without_its_companion_data_is_a_typed_error(interval, kind, argument):
    """The low-level interval() names the missing argument instead of a TypeError."""
    with pytest.raises(InvalidParameterError) as error:
        interval(kind, [1.0, 2.0, 3.0], 2.0, 0.1)
    assert error.value.code == ErrorCode.INTERVAL_KIND and error.value.argument == argument


@pytest.mark.parametrize("twin", [engine, reference], ids=["engine", "reference"])
def test_studentized_interval_leans_towards_the_long_tail_of_skewed_data(twin):
    """Orientation, from a known property rather than from the code: for right-skewed
    data the t statistic of the mean has a long *left* tail (a high mean comes with a
    high se), so the bootstrap-t interval reaches further above the mean than below;
    the mirror-image series gives the mirror-image interval. Negative control: the basic
    interval reflects the replicates' quantiles about theta (a bound read from the other
    tail), leans the other way and fails the same check."""
    x = np.random.default_rng(7).exponential(1.0, 80) ** 2
    data = x if twin is engine else x.tolist()
    mirror = -x if twin is engine else (-x).tolist()
    ours = twin.conf_int(data, "mean", twin.IID(), kind="studentized", n_bootstraps=2000, seed=11)
    mirrored = twin.conf_int(mirror, "mean", twin.IID(), kind="studentized", n_bootstraps=2000, seed=11)
    above, below = ours.upper - ours.point, ours.point - ours.lower
    assert above > 1.3 * below
    assert mirrored.lower == pytest.approx(-ours.upper, rel=1e-12)
    assert mirrored.upper == pytest.approx(-ours.lower, rel=1e-12)
    basic = twin.conf_int(data, "mean", twin.IID(), kind="basic", n_bootstraps=2000, seed=11)
    assert not basic.upper - basic.point > 1.3 * (basic.point - basic.lower)
