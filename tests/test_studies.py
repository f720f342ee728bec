"""Study machinery without runs: processes and their truths, protocols, summaries, criteria.

Known answers come from outside the code: closed-form variances checked by simulation,
scipy's Wilson interval, the published S2 Monte Carlo truth (docs/published-figures.md).
"""

import math
import os

import numpy as np
import pytest

from bootmark.reference.errors import InvalidParameterError
from bootmark.studies import dgp, protocol, summary
from bootmark.studies import truth as truths
from bootmark.studies.evaluate import series_seeds

TESTS = os.path.dirname(os.path.abspath(__file__))
CI_PROTOCOL = os.path.join(TESTS, "protocols", "CI-v1.toml")


def _variance_of_means(process, n, draws, seed):
    means = [process.sample(n, seed * 100_000 + d).mean() for d in range(draws)]
    return float(np.var(means, ddof=1))


@pytest.mark.parametrize(
    "process", [dgp.AR1(0.7), dgp.AR3(0.5, 0.2, -0.1), dgp.ARMA11(0.6, 0.3)], ids=["ar1", "ar3", "arma11"]
)
def test_closed_form_standard_error_matches_simulation(process):
    # 2,000 means of n = 400: the variance estimate has relative SE sqrt(2/1999) = 3.2%;
    # the large-n formula's own finite-n bias is under 2% here. 4 SE plus the bias.
    n, draws = 400, 2000
    simulated = _variance_of_means(process, n, draws, seed=3)
    closed = process.truth(n).standard_error ** 2
    assert abs(simulated / closed - 1.0) < 4 * math.sqrt(2.0 / (draws - 1)) + 0.02


def test_closed_form_check_fails_on_a_wrong_formula():
    # Negative control: the i.i.d. formula sigma / sqrt(n) is far outside the band.
    process, n, draws = dgp.AR1(0.7), 400, 2000
    simulated = _variance_of_means(process, n, draws, seed=3)
    wrong = (1.0 / math.sqrt(1 - 0.49)) ** 2 / n
    assert abs(simulated / wrong - 1.0) > 4 * math.sqrt(2.0 / (draws - 1)) + 0.02


def test_ar1_is_the_published_recursion():
    # x_t = phi x_{t-1} + e_t from x = 0 on default_rng(seed) normals, burn-in dropped.
    shocks = np.random.default_rng(42).standard_normal(700)
    path, previous = [], 0.0
    for shock in shocks:
        previous = 0.7 * previous + shock
        path.append(previous)
    assert np.array_equal(dgp.ar1(200, 0.7, seed=42), np.array(path[500:]))


def test_heteroskedastic_truth_matches_the_published_monte_carlo():
    # docs/published-figures.md: true SE 0.045326 from 200,000 draws; both estimates carry an
    # MC error of sd / sqrt(2 (draws - 1)).
    truth = truths.truth_of(dgp.HeteroskedasticAR1(), 600, "ar1_slope")  # the committed truth receipt
    assert truth.value == 0.5
    combined = math.sqrt(2.0) * truth.monte_carlo_error
    assert abs(truth.standard_error - 0.045326) < 3 * combined
    assert "200,000 draws" in truth.source


def test_heteroskedastic_path_has_the_variance_step():
    paths = dgp.HeteroskedasticAR1().sample_many(600, 4000, np.random.default_rng(1))
    innovations = paths[:, 1:] - 0.5 * paths[:, :-1]
    first, second = innovations[:, :299].std(), innovations[:, 300:].std()
    assert abs(first - 1.0) < 0.01 and abs(second - 3.0) < 0.03


def test_ols_slope_equals_numpy_lstsq():
    path = dgp.HeteroskedasticAR1().sample(600, 5)
    design = np.column_stack([np.ones(599), path[:-1]])
    expected = np.linalg.lstsq(design, path[1:], rcond=None)[0][1]
    assert dgp.ols_ar1_slope(path) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    "name, parameters, field",
    [
        ("ar1", {"phi": 1.0}, "phi"),
        ("ar3", {"phi1": 0.9, "phi2": 0.3, "phi3": 0.0}, "phi1"),
        ("arma11", {"phi": 0.5, "theta": 0.1, "innovation_sd": 0}, "innovation_sd"),
        ("nope", {}, "dgp.name"),
        ("ar1", {"phi": 0.5, "colour": 1}, "dgp.parameters"),
    ],
)
def test_bad_process_parameters_name_the_argument(name, parameters, field):
    with pytest.raises(ValueError, match=field.split(",")[0]):
        dgp.make_process(name, parameters)


def test_series_seeds_depend_only_on_root_n_and_series():
    a = series_seeds(7, 200, 5)
    assert a == series_seeds(7, 200, 5)
    others = {series_seeds(7, 200, 6), series_seeds(7, 100, 5), series_seeds(8, 200, 5)}
    assert a not in others and len(others) == 3
    assert a.data != a.bootstrap and 0 <= a.bootstrap < 2**128


@pytest.mark.parametrize("hits, trials", [(0, 20), (7, 20), (20, 20), (1596, 2000), (992, 2000)])
def test_wilson_interval_matches_scipy(hits, trials):
    from scipy.stats import binomtest

    expected = binomtest(hits, trials).proportion_ci(0.95, method="wilson")
    low, high = summary.wilson_interval(hits, trials)
    assert low == pytest.approx(expected.low, abs=1e-12) and high == pytest.approx(expected.high, abs=1e-12)


def _rows(*coverages, trials=2000):
    return [
        {
            "n": n,
            "resampler": "r",
            "kind": "percentile",
            "coverage": c,
            "trials": trials,
            "mc_se": math.sqrt(c * (1 - c) / trials),
            "wilson_low": c - 0.01,
            "wilson_high": c + 0.01,
        }
        for n, c in coverages
    ]


def test_criteria_verdicts():
    within = protocol.Criterion("w", "within", "r", "percentile", "why", target=0.51, k=3.0)
    assert summary.judge(within, _rows((200, 0.50)))["passed"]
    assert not summary.judge(within, _rows((200, 0.47)))["passed"]  # 3.6 MC SE away
    least = protocol.Criterion("a", "at_least", "r", "percentile", "why", target=0.87)
    assert summary.judge(least, _rows((200, 0.871)))["passed"]
    assert not summary.judge(least, _rows((200, 0.869)))["passed"]
    rising = protocol.Criterion("i", "increases_with_n", "r", "percentile", "why", k=3.0)
    assert summary.judge(rising, _rows((100, 0.70), (200, 0.75), (500, 0.82)))["passed"]
    assert not summary.judge(rising, _rows((100, 0.70), (200, 0.80), (500, 0.72)))["passed"]  # a fall of 4 SE
    assert not summary.judge(rising, _rows((100, 0.70), (200, 0.71), (500, 0.715)))["passed"]  # no real rise
    missing = summary.judge(within, [])
    assert not missing["passed"] and not missing["judged"]


def test_published_z_combines_both_monte_carlo_errors():
    figure = protocol.PublishedFigure("r", "percentile", 200, 0.496, "docs/published-figures.md", series=2000)
    entry = summary.compare_published(figure, _rows((200, 0.51)))
    assert entry["z"] == pytest.approx(0.014 / math.sqrt(0.51 * 0.49 / 2000 + 0.496 * 0.504 / 2000))


def test_registered_protocols_parse():
    found = protocol.registered()
    ids = {p.id for p in found}
    assert {"S1", "S1-kinds", "S1-length"} <= ids
    for item in found:
        assert item.criteria, f"{item.file_name} registers no criterion"
        assert all(c.rationale.strip() for c in item.criteria)


def _text():
    with open(CI_PROTOCOL, encoding="utf-8") as stream:
        return stream.read()


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda t: t.replace('id = "CI"', 'id = "XX"'), "must be named XX-v1.toml"),
        (lambda t: t.replace("series = 30", "series = 0"), "'series' must be >= 1"),
        (lambda t: t.replace('engine = "IID"', 'engine = "Bogus"'), "unknown engine method"),
        (lambda t: t.replace('kinds = ["percentile", "basic", "normal"]', 'kinds = ["bca"]'), "unsupported"),
        (lambda t: t.replace("target = 0.510", 'target = "high"'), "'target' must be float"),
        (lambda t: t.replace('resampler = "engine.IID"\nkind', 'resampler = "engine.None"\nkind'), "no resampler"),
        (lambda t: t.replace("n = [60, 120]", "n = [120, 60]"), "increasing list"),
        (lambda t: t.replace("alpha = 0.10", "alpha = 1.5"), "alpha must lie in"),
        (lambda t: t.replace("block_length = 5", "block_length = -5"), "block_length"),
        (lambda t: t.replace("[dgp]", "[dgp\n"), "not valid TOML"),
        (
            lambda t: t.replace("block_length = 5\n", 'block_length = 5\ndesign = "fixed"\n'),
            "StationaryBlock does not read design",
        ),
    ],
)
def test_bad_protocols_are_refused_with_the_field(edit, message):
    with pytest.raises(protocol.ProtocolError, match=message):
        protocol.parse(edit(_text()), "CI-v1.toml")


def test_protocol_hash_is_the_file_bytes():
    import hashlib

    parsed = protocol.load(CI_PROTOCOL)
    with open(CI_PROTOCOL, "rb") as stream:
        assert parsed.sha256 == hashlib.sha256(stream.read()).hexdigest()


def test_more_criteria_verdicts():
    most = protocol.Criterion("m", "at_most", "r", "percentile", "why", target=0.80)
    assert summary.judge(most, _rows((200, 0.79)))["passed"] and not summary.judge(most, _rows((200, 0.81)))["passed"]
    exceeds = protocol.Criterion("e", "exceeds", "r", "percentile", "why", k=3.0, other="s")
    mine, theirs = _rows((300, 0.80)), [dict(row, resampler="s") for row in _rows((300, 0.70))]
    assert summary.judge(exceeds, mine + theirs)["passed"]  # 0.10 apart is about 7 SE at 2,000 series
    close = [dict(row, resampler="s") for row in _rows((300, 0.79))]
    assert not summary.judge(exceeds, mine + close)["passed"]


def _cells(se_mine, se_other, truth_se=1.0):
    return [
        {
            "n": 600,
            "truth": {"value": 0.5, "standard_error": truth_se},
            "resamplers": {"a": {"standard_error": se_mine}, "b": {"standard_error": se_other}},
        }
    ]


def test_standard_error_criteria():
    ratio = protocol.Criterion("r", "se_ratio_within", "a", "se", "why", target=0.78, published_series=500)
    steady = [0.77, 0.79] * 250
    assert summary.judge(ratio, [], _cells(steady, steady))["passed"]
    assert not summary.judge(ratio, [], _cells([v + 0.05 for v in steady], steady))["passed"]
    below = protocol.Criterion("b", "se_below", "a", "se", "why", target=0.99, other="b")
    assert summary.judge(below, [], _cells([1.0] * 100, [2.0] * 100))["passed"]
    assert not summary.judge(below, [], _cells([1.0] * 98 + [3.0] * 2, [2.0] * 100))["passed"]  # 98 of 100


def test_model_based_resamplers_parse_to_engine_specs():
    from bootmark import engine

    text = _text().replace(
        '''[[resamplers]]
name = "engine.StationaryBlock(5)"''',
        '''[[resamplers]]
name = "engine.Sieve"
engine = "SieveAR"
criterion = "bic"
innovation = "BlockWild"
distribution = "mammen"
block_length = 4
kinds = ["percentile"]

[[resamplers]]
name = "engine.StationaryBlock(5)"''',
    )
    parsed = protocol.parse(text, "CI-v1.toml")
    assert parsed.resampler("engine.Sieve").method() == engine.SieveAR(None, "bic", engine.BlockWild("mammen", 4))
    broken = text.replace('innovation = "BlockWild"', 'innovation = "Blockwild"')
    with pytest.raises(protocol.ProtocolError, match="unknown innovation"):
        protocol.parse(broken, "CI-v1.toml")
    calibrated = text.replace('block_length = 4\nkinds = ["percentile"]', 'block_length = 4\nkinds = ["calibrated"]')
    with pytest.raises(protocol.ProtocolError, match="unsupported"):
        protocol.parse(calibrated, "CI-v1.toml")


def test_slope_truth_is_bartlett():
    # For an AR(1), Bartlett's variance of r_1 is (1 - phi**2) / n (a textbook closed form).
    truth = dgp.AR1(0.5).truth(300, "ar1_slope")
    assert truth.value == pytest.approx(0.5) and truth.standard_error == pytest.approx(math.sqrt(0.75 / 300))
    with pytest.raises(ValueError, match="statistic"):
        dgp.ARMA11(0.5, 0.2).truth(300, "kurtosis")


def test_fixed_design_of_a_higher_order_is_refused_for_the_ar1_slope():
    """Its path statistic would regress on the replicate's own lags, not the observed ones."""
    peer = """[[resamplers]]
name = "arch.IIDBootstrap"
peer = "arch.IIDBootstrap"
kinds = ["percentile"]
"""
    assert peer in _text()
    text = (
        _text()
        .replace(peer, "")
        .replace('statistic = "mean"', 'statistic = "ar1_slope"')
        .replace(
            '''[[resamplers]]
name = "engine.StationaryBlock(5)"''',
            '''[[resamplers]]
name = "engine.Fixed2"
engine = "ResidualBootstrap"
order = 2
design = "fixed"
innovation = "Wild"
kinds = ["percentile"]

[[resamplers]]
name = "engine.StationaryBlock(5)"''',
        )
    )
    with pytest.raises(protocol.ProtocolError, match="observed ones"):
        protocol.parse(text, "CI-v1.toml")
    # the fused refit keeps the observed lags (and the moving block drops its calibrated
    # interval, which the engine nests for its named statistics only)
    accepted = text.replace("order = 2", "order = 1").replace(
        'kinds = ["percentile", "calibrated"]', 'kinds = ["percentile"]'
    )
    protocol.parse(accepted, "CI-v1.toml")
    with pytest.raises(protocol.ProtocolError, match='kind "calibrated"'):
        protocol.parse(text.replace("order = 2", "order = 1"), "CI-v1.toml")


def test_a_process_without_a_closed_form_is_pure_and_its_truth_an_explicit_step(tmp_path):
    """Asking the process computes and writes nothing; truth_of only reads; ensure_truths is
    the one step that computes, once. Negative control: before that step truth_of refuses."""
    process = dgp.HeteroskedasticAR1()
    with pytest.raises(InvalidParameterError, match="Monte Carlo estimate"):
        process.truth(80)
    folder = tmp_path / "truth"
    with pytest.raises(truths.TruthMissingError, match="bootmark study truth"):
        truths.truth_of(process, 80, "ar1_slope", str(folder), draws=500, seed=3)
    assert not folder.exists() or not list(folder.iterdir())
    lines = []
    [path] = truths.ensure_truths(process, (80,), "ar1_slope", str(folder), draws=500, seed=3, report=lines.append)
    assert "computing the Monte Carlo truth" in lines[0] and path in lines[1]
    again = []
    assert truths.ensure_truths(process, (80,), "ar1_slope", str(folder), draws=500, seed=3, report=again.append) == (
        path,
    )
    assert again == []  # cached: nothing computed, nothing said
    found = truths.truth_of(process, 80, "ar1_slope", str(folder), draws=500, seed=3)
    assert found.value == 0.5 and "500 draws" in found.source
    assert truths.ensure_truths(dgp.AR1(0.5), (80,), "mean") == ()  # a closed form needs no step
