"""The ADEMP performance measures of Morris, White & Crowther (2019), Table 6, and their MC SEs.

Three kinds of evidence:

* a hand-computed case: every estimate and MC SE of a 4-repetition study worked out below
  from arithmetic literals (the module's helpers are not called to compute expectations);
* a known-answer check by simulation: no independent implementation of Table 6 is installable
  here (PyPI has no port of R's rsimsum or simhelpers, and Debian packages neither), so the
  MC SE formulas are checked against their definition: over many independent simulation
  studies of a known process, the SD of each measure's estimate must match the mean of its
  reported MC SE within ``TOLERANCE``; broken variants of the formulas (negative controls)
  must miss it;
* bad input, undefined measures and the JSON round trip.
"""

import json
import math
import random

import numpy as np
import pytest

from bootmark.studies.measures import (
    INTERVAL_MEASURES,
    MEASURES,
    POINT_MEASURES,
    Estimate,
    interval_measures,
    point_measures,
)

Z975 = 1.959963984540054  # Phi^-1(0.975), written out: the median-width MC SE's z


def by_name(estimates):
    return {e.measure: e for e in estimates}


def test_the_measure_names_are_the_published_list_in_order():
    assert MEASURES == (
        "bias",
        "relative_bias",
        "empirical_se",
        "model_se",
        "relative_error_modse",
        "mse",
        "coverage",
        "bias_eliminated_coverage",
        "rejection",
        "mean_width",
        "median_width",
    )
    assert POINT_MEASURES == MEASURES[:6]
    assert INTERVAL_MEASURES == MEASURES[6:]


# --- A hand-computed study: 4 repetitions, theta = 2 -------------------------------------------------

POINTS = [1.0, 2.0, 3.0, 6.0]
SES = [1.0, 1.0, 2.0, 2.0]
TRUTH = 2.0
LOWERS = [0.0, 1.0, 2.5, 3.0]
UPPERS = [2.0, 3.0, 3.5, 9.0]


def test_every_point_measure_of_the_hand_computed_study():
    got = point_measures(POINTS, SES, TRUTH)
    assert tuple(e.measure for e in got) == POINT_MEASURES
    got = by_name(got)
    # thbar = (1 + 2 + 3 + 6) / 4 = 3; deviations -2, -1, 0, 3; sum of squares 4 + 1 + 0 + 9 = 14
    # bias = 3 - 2 = 1; MC SE sqrt(14 / (4 * 3))
    assert got["bias"].estimate == pytest.approx(1.0, rel=1e-15)
    assert got["bias"].mc_se == pytest.approx(math.sqrt(14 / 12), rel=1e-15)
    # relative bias = 1 / 2; MC SE that of bias / |2|
    assert got["relative_bias"].estimate == pytest.approx(0.5, rel=1e-15)
    assert got["relative_bias"].mc_se == pytest.approx(math.sqrt(14 / 12) / 2, rel=1e-15)
    # EmpSE = sqrt(14 / 3); MC SE sqrt(14 / 3) / sqrt(2 * 3) = sqrt(14 / 18)
    assert got["empirical_se"].estimate == pytest.approx(math.sqrt(14 / 3), rel=1e-15)
    assert got["empirical_se"].mc_se == pytest.approx(math.sqrt(14 / 18), rel=1e-15)
    # SE^2 = 1, 1, 4, 4: mean 2.5, so ModSE = sqrt(2.5); their sample variance is
    # (1.5^2 * 4) / 3 = 3, so the MC SE is sqrt(3 / (4 * 4 * 2.5)) = sqrt(3 / 40)
    assert got["model_se"].estimate == pytest.approx(math.sqrt(2.5), rel=1e-15)
    assert got["model_se"].mc_se == pytest.approx(math.sqrt(3 / 40), rel=1e-15)
    # ModSE / EmpSE = sqrt(2.5 / (14 / 3)) = sqrt(15 / 28); relative error sqrt(15 / 28) - 1;
    # MC SE sqrt(15 / 28) * sqrt(3 / (4 * 4 * 2.5^2) + 1 / (2 * 3)) = sqrt(15 / 28) * sqrt(3 / 100 + 1 / 6)
    assert got["relative_error_modse"].estimate == pytest.approx(math.sqrt(15 / 28) - 1, rel=1e-14)
    assert got["relative_error_modse"].mc_se == pytest.approx(
        math.sqrt(15 / 28) * math.sqrt(3 / 100 + 1 / 6), rel=1e-14
    )
    # errors -1, 0, 1, 4; squared 1, 0, 1, 16: MSE = 18 / 4 = 4.5 (= bias^2 + 14 / 4, as it must);
    # (squared - 4.5)^2 = 12.25, 20.25, 12.25, 132.25, sum 177: MC SE sqrt(177 / (4 * 3))
    assert got["mse"].estimate == pytest.approx(4.5, rel=1e-15)
    assert got["mse"].mc_se == pytest.approx(math.sqrt(177 / 12), rel=1e-15)


def test_every_interval_measure_of_the_hand_computed_study():
    got = interval_measures(LOWERS, UPPERS, TRUTH, mean_point=3.0, null=0.0)
    assert tuple(e.measure for e in got) == INTERVAL_MEASURES
    got = by_name(got)
    # theta = 2 lies in [0, 2] (its edge counts) and [1, 3], not in [2.5, 3.5] or [3, 9]: 2 / 4
    assert got["coverage"].estimate == 0.5
    assert got["coverage"].mc_se == pytest.approx(math.sqrt(0.5 * 0.5 / 4), rel=1e-15)
    # thbar = 3 lies in [1, 3], [2.5, 3.5] and [3, 9], not in [0, 2]: 3 / 4
    assert got["bias_eliminated_coverage"].estimate == 0.75
    assert got["bias_eliminated_coverage"].mc_se == pytest.approx(math.sqrt(0.75 * 0.25 / 4), rel=1e-15)
    # the null 0 is excluded by [1, 3], [2.5, 3.5] and [3, 9]; [0, 2] holds it on its edge: 3 / 4
    assert got["rejection"].estimate == 0.75
    assert got["rejection"].mc_se == pytest.approx(math.sqrt(0.75 * 0.25 / 4), rel=1e-15)
    # widths 2, 2, 1, 6: mean 11 / 4 = 2.75; deviations -0.75, -0.75, -1.75, 3.25, squares
    # 0.5625 + 0.5625 + 3.0625 + 10.5625 = 14.75: MC SE sqrt(14.75 / 3 / 4)
    assert got["mean_width"].estimate == 2.75
    assert got["mean_width"].mc_se == pytest.approx(math.sqrt(14.75 / 12), rel=1e-15)
    # sorted widths 1, 2, 2, 6: median (2 + 2) / 2 = 2. Rank c = (4 + 1) / 2 - 1.96 * sqrt(4) / 2
    # = 0.54, rounded to 1: MC SE (w_(4) - w_(1)) / (2 z) = (6 - 1) / (2 z)
    assert got["median_width"].estimate == 2.0
    assert got["median_width"].mc_se == pytest.approx(5 / (2 * Z975), rel=1e-15)


def test_the_median_width_mc_se_uses_the_order_statistics_at_ranks_c_and_n_plus_1_minus_c():
    # widths 1, 2, ..., 100 (shuffled): median 50.5. c = 101 / 2 - 1.96 * sqrt(100) / 2 = 40.70, rounded
    # to 41; n + 1 - c = 60: MC SE (60 - 41) / (2 z)
    widths = list(range(1, 101))
    random.Random(7).shuffle(widths)
    median = by_name(interval_measures([0.0] * 100, [float(w) for w in widths], 0.5, 0.5))["median_width"]
    assert median.estimate == 50.5
    assert median.mc_se == pytest.approx(19 / (2 * Z975), rel=1e-15)
    # odd n: widths 1..5, median 3; c = 3 - 1.96 * sqrt(5) / 2 = 0.81, rounded to 1: (5 - 1) / (2 z)
    median = by_name(interval_measures([0.0] * 5, [1.0, 2.0, 3.0, 4.0, 5.0], 0.5, 0.5))["median_width"]
    assert median.estimate == 3.0
    assert median.mc_se == pytest.approx(4 / (2 * Z975), rel=1e-15)


def test_results_are_the_same_to_the_bit_whatever_the_order_of_the_repetitions():
    rng = np.random.default_rng(3)
    points = (1.0 + 1e-3 * rng.standard_normal(501)).tolist()
    ses = (1e-3 * (1.0 + 0.1 * rng.standard_normal(501))).tolist()
    lowers = [p - 2 * s for p, s in zip(points, ses, strict=True)]
    uppers = [p + 2 * s for p, s in zip(points, ses, strict=True)]
    before = point_measures(points, ses, 1.0) + interval_measures(lowers, uppers, 1.0, 1.0, 1.001)
    order = rng.permutation(501)
    after = point_measures([points[i] for i in order], [ses[i] for i in order], 1.0) + interval_measures(
        [lowers[i] for i in order], [uppers[i] for i in order], 1.0, 1.0, 1.001
    )
    assert [e.to_json() for e in before] == [e.to_json() for e in after]


def test_numpy_input_gives_plain_python_floats():
    got = point_measures(np.array(POINTS), np.array(SES), np.float64(TRUTH)) + interval_measures(
        np.array(LOWERS), np.array(UPPERS), np.float64(TRUTH), np.float64(3.0), np.float64(0.0)
    )
    for e in got:
        assert type(e.estimate) is float and type(e.mc_se) is float, e
    assert [e.to_json() for e in got] == [
        e.to_json() for e in point_measures(POINTS, SES, TRUTH) + interval_measures(LOWERS, UPPERS, TRUTH, 3.0, 0.0)
    ]


# --- The MC SEs against their definition: the SD of the estimate over independent studies -----------

STUDIES = 4000  # independent simulation studies
REPS = 200  # repetitions (n_sim) in each
TOLERANCE = 0.10  # |mean reported MC SE / SD of the estimate - 1| must stay below this
# The process: each repetition is the mean of m = 10 draws from N(theta + 0.05, 0.5^2) with its
# usual SE, s / sqrt(m), and the interval point +/- 1.96 SE; the point and its SE are independent
# (as for normal data), as Table 6's approximations for ModSE assume.
THETA, SHIFT, SIGMA, M = 1.0, 0.05, 0.5, 10
NULL = 1.3  # rejection of a false null: power near 0.4


@pytest.fixture(scope="module")
def simulated():
    """(estimate, reported MC SE) of every measure in each of STUDIES independent studies."""
    rng = np.random.default_rng(20260517)
    sd = SIGMA / math.sqrt(M)
    points = THETA + SHIFT + sd * rng.standard_normal((STUDIES, REPS))
    ses = sd * np.sqrt(rng.chisquare(M - 1, (STUDIES, REPS)) / (M - 1))
    lowers, uppers = points - 1.96 * ses, points + 1.96 * ses
    estimates = {name: np.empty(STUDIES) for name in MEASURES}
    mc_ses = {name: np.empty(STUDIES) for name in MEASURES}
    for k in range(STUDIES):
        row = points[k].tolist()
        got = point_measures(row, ses[k].tolist(), THETA) + interval_measures(
            lowers[k].tolist(), uppers[k].tolist(), THETA, math.fsum(row) / REPS, NULL
        )
        for e in got:
            estimates[e.measure][k] = e.estimate
            mc_ses[e.measure][k] = e.mc_se
    return estimates, mc_ses


def ratio(mc_se, estimates):
    """Mean reported MC SE over the SD (ddof 1) of the estimates across studies."""
    return float(np.mean(mc_se) / np.std(estimates, ddof=1))


@pytest.mark.parametrize("name", MEASURES)
def test_each_mc_se_matches_the_sd_of_its_estimate_across_independent_studies(simulated, name):
    estimates, mc_ses = simulated
    assert np.all(np.isfinite(estimates[name])) and np.all(np.isfinite(mc_ses[name]))
    got = ratio(mc_ses[name], estimates[name])
    assert abs(got - 1.0) < TOLERANCE, f"{name}: mean MC SE / SD of estimates = {got:.4f}"


def test_the_check_catches_broken_mc_se_formulas(simulated):
    """Negative controls: each broken variant, computed here from the same studies, misses the tolerance."""
    estimates, mc_ses = simulated
    n = REPS
    broken = {
        # EmpSE / sqrt(n - 1): the factor 2 of EmpSE / sqrt(2 (n - 1)) left out
        "empirical_se": estimates["empirical_se"] / math.sqrt(n - 1),
        # sd / n for sd / sqrt(n)
        "bias": estimates["empirical_se"] / n,
        # sqrt(sum ((theta_i - theta)^2 - MSE)^2 / (n - 1)) / n: n for sqrt(n)
        "mse": mc_ses["mse"] / math.sqrt(n),
        # sqrt(Var(SE^2) / (n ModSE^2)): the 4 left out
        "model_se": 2.0 * mc_ses["model_se"],
        # ratio * sqrt(Var(SE^2) / (4 n ModSE^4)) alone: EmpSE's own MC error left out
        "relative_error_modse": np.sqrt(
            np.maximum(
                mc_ses["relative_error_modse"] ** 2 - (estimates["relative_error_modse"] + 1.0) ** 2 / (2.0 * (n - 1)),
                0.0,
            )
        ),
        # sqrt(p (1 - p)) without the / n
        "coverage": np.sqrt(estimates["coverage"] * (1.0 - estimates["coverage"])),
        # the SD of the widths, not its / sqrt(n)
        "mean_width": mc_ses["mean_width"] * math.sqrt(n),
        # (w_(n+1-c) - w_(c)) / z: the half-length not halved
        "median_width": 2.0 * mc_ses["median_width"],
    }
    for name, wrong in broken.items():
        got = ratio(wrong, estimates[name])
        assert abs(got - 1.0) >= TOLERANCE, f"the broken {name} MC SE passed: ratio {got:.4f}"


# --- Undefined measures --------------------------------------------------------------------------------


def test_relative_bias_is_undefined_at_truth_zero_and_the_rest_is_not():
    got = by_name(point_measures([-0.5, 0.0, 1.5], [0.5, 0.5, 0.5], 0.0))
    assert got["relative_bias"] == Estimate("relative_bias", None, None)
    assert got["bias"].estimate == pytest.approx(1.0 / 3.0)
    assert all(got[name].estimate is not None for name in POINT_MEASURES if name != "relative_bias")


def test_a_missing_standard_error_makes_the_model_se_measures_undefined_and_nothing_else():
    complete = by_name(point_measures(POINTS, SES, TRUTH))
    for ses in ([1.0, None, 2.0, 2.0], [None] * 4, None):
        got = by_name(point_measures(POINTS, ses, TRUTH))
        assert got["model_se"] == Estimate("model_se", None, None)
        assert got["relative_error_modse"] == Estimate("relative_error_modse", None, None)
        for name in ("bias", "relative_bias", "empirical_se", "mse"):
            assert got[name] == complete[name]


def test_rejection_is_undefined_without_a_null_and_is_the_size_at_the_truth():
    got = by_name(interval_measures(LOWERS, UPPERS, TRUTH, 3.0))
    assert got["rejection"] == Estimate("rejection", None, None)
    # at null = truth, a rejection is a miss of the truth by the interval: 1 - coverage
    got = by_name(interval_measures(LOWERS, UPPERS, TRUTH, 3.0, null=TRUTH))
    assert got["rejection"].estimate == 1.0 - got["coverage"].estimate == 0.5


def test_measures_that_divide_by_zero_are_undefined_not_nan():
    # all points equal: EmpSE = 0, so ModSE / EmpSE is undefined
    got = by_name(point_measures([2.0, 2.0, 2.0], [0.1, 0.2, 0.3], 2.0))
    assert got["empirical_se"] == Estimate("empirical_se", 0.0, 0.0)
    assert got["relative_error_modse"] == Estimate("relative_error_modse", None, None)
    # every SE 0: ModSE = 0, and its MC SE divides by ModSE^2
    got = by_name(point_measures([1.0, 2.0, 3.0], [0.0, 0.0, 0.0], 2.0))
    assert got["model_se"] == Estimate("model_se", 0.0, None)
    assert got["relative_error_modse"] == Estimate("relative_error_modse", -1.0, None)


# --- Bad input -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: point_measures([1.0], [0.1], 1.0), "points"),
        (lambda: point_measures([], [], 1.0), "points"),
        (lambda: interval_measures([0.0], [1.0], 0.5, 0.5), "lowers"),
    ],
)
def test_fewer_than_two_repetitions_are_refused(call, argument):
    with pytest.raises(ValueError, match=rf"{argument}.*at least 2 repetitions"):
        call()


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: point_measures([1.0, 2.0, 3.0], [0.1, 0.1], 1.0), "standard_errors"),
        (lambda: interval_measures([0.0, 1.0], [1.0, 2.0, 3.0], 0.5, 0.5), "uppers"),
    ],
)
def test_mismatched_lengths_are_refused(call, argument):
    with pytest.raises(ValueError, match=r"differ in length") as error:
        call()
    assert argument in str(error.value)


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: point_measures([1.0, math.nan], [0.1, 0.1], 1.0), r"points\[1\]"),
        (lambda: point_measures([1.0, 2.0], [0.1, math.inf], 1.0), r"standard_errors\[1\]"),
        (lambda: point_measures([1.0, 2.0], [0.1, None], math.nan), "truth"),
        (lambda: point_measures([1.0, None], [0.1, 0.1], 1.0), r"points\[1\]"),
        (lambda: point_measures([1.0, "2"], [0.1, 0.1], 1.0), r"points\[1\]"),
        (lambda: interval_measures([0.0, -math.inf], [1.0, 2.0], 0.5, 0.5), r"lowers\[1\]"),
        (lambda: interval_measures([0.0, 1.0], [math.nan, 2.0], 0.5, 0.5), r"uppers\[0\]"),
        (lambda: interval_measures([0.0, 1.0], [1.0, 2.0], math.inf, 0.5), "truth"),
        (lambda: interval_measures([0.0, 1.0], [1.0, 2.0], 0.5, math.nan), "mean_point"),
        (lambda: interval_measures([0.0, 1.0], [1.0, 2.0], 0.5, 0.5, null=math.nan), "null"),
    ],
)
def test_non_finite_or_non_numeric_input_is_refused_by_name(call, argument):
    with pytest.raises(ValueError, match=argument):
        call()


def test_a_negative_standard_error_and_an_inverted_interval_are_refused():
    with pytest.raises(ValueError, match=r"standard_errors\[0\]"):
        point_measures([1.0, 2.0], [-0.1, 0.1], 1.0)
    with pytest.raises(ValueError, match=r"lowers\[1\].*uppers\[1\]"):
        interval_measures([0.0, 2.5], [1.0, 2.0], 0.5, 0.5)


# --- Estimate and its JSON -----------------------------------------------------------------------------


def test_estimates_round_trip_through_json_exactly():
    estimates = (
        point_measures(POINTS, SES, TRUTH)
        + point_measures([0.1, -0.2, 0.3], [None, 0.1, 0.1], 0.0)
        + interval_measures(LOWERS, UPPERS, TRUTH, 3.0)
        + (Estimate("bias", 0.1 + 0.2, 1e-300), Estimate("mse", 5e-324, 0.0))
    )
    for e in estimates:
        item = e.to_json()
        assert set(item) == {"measure", "estimate", "mc_se"}
        text = json.dumps(item, allow_nan=False)  # never NaN or inf
        back = Estimate.from_json(json.loads(text))
        assert back == e
        assert back.estimate == e.estimate and back.mc_se == e.mc_se  # to the bit, None included
    assert Estimate.from_json(Estimate("bias", 0.1 + 0.2, 0.0).to_json()).estimate == 0.30000000000000004


@pytest.mark.parametrize(
    "item",
    [
        {"measure": "power", "estimate": 0.5, "mc_se": 0.1},
        {"measure": "bias", "estimate": math.nan, "mc_se": None},
        {"measure": "bias", "estimate": 1.0, "mc_se": math.inf},
        {"measure": "bias", "estimate": 1.0, "mc_se": -0.1},
        {"measure": "bias", "estimate": None, "mc_se": 0.1},
        {"measure": "bias", "estimate": "1.0", "mc_se": None},
        {"measure": "bias", "estimate": 1.0},
        {"measure": "bias", "estimate": 1.0, "mc_se": 0.1, "units": "data"},
    ],
)
def test_invalid_estimates_are_refused(item):
    with pytest.raises(ValueError):
        Estimate.from_json(item)


def test_the_module_imports_only_the_standard_library():
    # It is imported in production: no scipy (nor anything else heavy) at import.
    import ast
    import sys

    import bootmark.studies.measures as module

    with open(module.__file__, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported
