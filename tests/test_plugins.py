"""A user's own code in a study: contenders, processes and statistics named by import path.

The acceptance test writes a process module (a Gaussian MA(1)) and a contender module
(normal intervals for the mean) into a temporary workspace, runs a protocol that names
them by import path, and checks each contender's coverage against its closed form:

* a Newey-West interval with one lag estimates the long-run variance's limit
  gamma_0 + gamma_1 instead of gamma_0 + 2 gamma_1, so it covers
  2 Phi(z sqrt((gamma_0 + gamma_1) / (gamma_0 + 2 gamma_1))) - 1 as n grows;
* an oracle interval with the exact SE of the mean, scaled by c, covers exactly
  2 Phi(c z) - 1 for every n (the mean of a Gaussian MA(1) is exactly normal).

The bad-plugin tests check that each failure names the protocol entry, and that the
runner's tripwires stop a contender that answers garbage.
"""

import io
import math
import os
import re
import subprocess
import sys
import textwrap
import uuid
from statistics import NormalDist

import pandas
import pytest

from bootmark.core import workspace
from bootmark.studies import load, plugins, protocol, runner, truth
from bootmark.studies.runner import StudyError, TripwireError

THETA = 0.5
ALPHA = 0.10
Z = NormalDist().inv_cdf(1 - ALPHA / 2)
N = 400
SERIES = 800

PROCESS_MODULE = '''
import math
import numpy as np


class MA1:
    """x_t = e_t + theta e_{t-1}, e_t ~ N(0, 1)."""

    def __init__(self, theta):
        self.theta = theta

    def simulate(self, n, rng):
        e = rng.standard_normal(n + 1)
        return e[1:] + self.theta * e[:-1]

    def truth(self, statistic, n):
        if statistic != "mean":
            raise ValueError(f"no truth for {statistic}")
        return 0.0

    def true_se(self, statistic, n):
        gamma0, gamma1 = 1 + self.theta**2, self.theta
        return math.sqrt((gamma0 + 2 * (1 - 1 / n) * gamma1) / n)


class MA1MonteCarlo(MA1):
    """The same process, its true SE left to bootmark's Monte Carlo truth step."""

    monte_carlo_truth = True
    true_se = None

    def __getattribute__(self, name):
        if name == "true_se":
            raise AttributeError(name)
        return object.__getattribute__(self, name)


class NoTruth:
    def __init__(self, theta):
        self.theta = theta

    def simulate(self, n, rng):
        return rng.standard_normal(n)


class AnyTruth(MA1):
    """Knows a truth (0) for any statistic, and no true SE."""

    def truth(self, statistic, n):
        return 0.0

    true_se = None


class WrongLength(MA1):
    def simulate(self, n, rng):
        return rng.standard_normal(n - 1)
'''

CONTENDER_MODULE = """
import math
from statistics import NormalDist

import numpy as np


def newey_west(series, *, statistic, alpha, kind, n_bootstraps, seed, lags=1):
    x = np.asarray(series)
    n = x.shape[0]
    c = x - x.mean()
    variance = c @ c / n
    for lag in range(1, lags + 1):
        variance += 2 * (1 - lag / (lags + 1)) * (c[lag:] @ c[:-lag]) / n
    se = math.sqrt(variance / n)
    z = NormalDist().inv_cdf(1 - alpha / 2)
    point = statistic(x)
    return {"lower": point - z * se, "upper": point + z * se, "se": se}


newey_west.kinds = ("normal",)  # bootmark refuses a protocol that asks for another kind


def oracle(series, *, statistic, alpha, kind, n_bootstraps, seed, theta, scale=1.0):
    n = len(series)
    se = math.sqrt((1 + theta**2 + 2 * (1 - 1 / n) * theta) / n)
    z = NormalDist().inv_cdf(1 - alpha / 2)
    point = statistic(series)
    return (point - scale * z * se, point + scale * z * se)


def raises(series, **settings):
    raise RuntimeError("my contender broke")


def returns_nan(series, **settings):
    return (float("nan"), 1.0)


def reversed_bounds(series, **settings):
    return {"lower": 1.0, "upper": -1.0}


def constant(series, **settings):
    return (-1.0, 1.0)


def imports_late(series, **settings):
    import no_such_module_at_call_time  # noqa: F401

    return (-1.0, 1.0)


def zero_dimensional(series, **settings):
    return np.array(1.0)


def sorts_in_place(series, **settings):
    series.sort()
    return (series[0], series[-1])


def strings(series, **settings):
    return ("-0.5", "0.5")


def stat_raises(x):
    raise ArithmeticError("my statistic broke")


def stat_array(x):
    return np.array([1.0, 2.0])


def trimmed_mean(x):
    x = np.sort(np.asarray(x))
    k = len(x) // 10
    return float(x[k:len(x) - k].mean())
"""

PROTOCOL = """
id = "{id}"
version = 1
registered = 2026-12-04
title = "Plugin acceptance: Newey-West and oracle intervals for the mean of an MA(1)"
claim = "Not a claim: checks the contender and process interfaces against closed forms."

[dgp]
callable = "{process}"
parameters = {{ theta = {theta} }}
truth = "The process's own truth(): mean 0; exact SE of the mean."
{dgp_extra}

[design]
statistic = "{statistic}"
n = [{n}]
series = {series}
n_bootstraps = 49
alpha = {alpha}
root_seed = 20261204
chunk_series = 100
null = 0.0
{resamplers}

[profiles.tiny]
series = 20
"""

RESAMPLERS = """
[[resamplers]]
name = "mine.newey-west(1)"
callable = "{contenders}:newey_west"
kinds = ["normal"]
[resamplers.options]
lags = 1

[[resamplers]]
name = "mine.oracle"
callable = "{contenders}:oracle"
kinds = ["normal"]
[resamplers.options]
theta = {theta}

[[resamplers]]
name = "mine.oracle(0.6)"
callable = "{contenders}:oracle"
kinds = ["normal"]
[resamplers.options]
theta = {theta}
scale = 0.6
"""


@pytest.fixture
def space(tmp_path, monkeypatch):
    """A fresh workspace holding a process module and a contender module of unique names
    (imported modules stay in sys.modules, so names are never reused across tests)."""
    workspace.init(str(tmp_path))
    monkeypatch.setenv("BOOTMARK_WORKSPACE", str(tmp_path))
    suffix = uuid.uuid4().hex[:10]
    names = {"process": f"process_{suffix}", "contenders": f"contenders_{suffix}"}
    (tmp_path / f"{names['process']}.py").write_text(PROCESS_MODULE)
    (tmp_path / f"{names['contenders']}.py").write_text(CONTENDER_MODULE)
    return tmp_path, names


def _protocol(space, *, process="MA1", resamplers=None, statistic="mean", dgp_extra="", series=SERIES, n=N):
    folder, names = space
    study = f"PLUG{uuid.uuid4().hex[:6]}"
    text = PROTOCOL.format(
        id=study,
        process=f"{names['process']}:{process}",
        theta=THETA,
        statistic=statistic,
        n=n,
        series=series,
        alpha=ALPHA,
        dgp_extra=dgp_extra,
        resamplers=resamplers or RESAMPLERS.format(contenders=names["contenders"], theta=THETA),
    )
    path = folder / "protocols" / f"{study}-v1.toml"
    path.write_text(text)
    return protocol.load(str(path))


def _one_resampler(space, function, kinds='["normal"]'):
    return f"""
[[resamplers]]
name = "mine.bad"
callable = "{space[1]["contenders"]}:{function}"
kinds = {kinds}
"""


def _coverage(body, name):
    row = next(row for row in body["results"]["coverage"] if row["resampler"] == name)
    return row["coverage"], row["mc_se"]


@pytest.fixture
def acceptance_body(space, tmp_path):
    found = _protocol(space)
    return runner.run_study(found, run_directory=str(tmp_path / "run"), show_progress=False)


def test_contenders_and_process_by_import_path_cover_as_their_closed_forms(acceptance_body):
    gamma0, gamma1 = 1 + THETA**2, THETA
    expected = {
        "mine.newey-west(1)": 2 * NormalDist().cdf(Z * math.sqrt((gamma0 + gamma1) / (gamma0 + 2 * gamma1))) - 1,
        "mine.oracle": 1 - ALPHA,
        "mine.oracle(0.6)": 2 * NormalDist().cdf(0.6 * Z) - 1,
    }
    for name, target in expected.items():
        coverage, mc_se = _coverage(acceptance_body, name)
        # 3.5 MC SE: three checks at once; the Newey-West form is the large-n limit, and at
        # n = 400 its finite-n error (O(1/n) bias, O(n^-1/2) noise in the variance) is far smaller
        assert abs(coverage - target) <= 3.5 * mc_se, (name, coverage, target, mc_se)
    # negative control: had the options not reached the contender (scale 1 for all), the
    # scaled oracle would cover 0.90, which the check above tells apart by far
    coverage, mc_se = _coverage(acceptance_body, "mine.oracle(0.6)")
    assert abs(coverage - (1 - ALPHA)) > 10 * mc_se


def test_a_contenders_se_and_the_process_true_se_reach_the_measures(acceptance_body):
    rows = acceptance_body["results"]["performance"]
    ratio = next(
        row for row in acceptance_body["results"]["standard_errors"] if row["resampler"] == "mine.newey-west(1)"
    )
    # the NW(1) SE estimates sqrt(gamma0 + gamma1) / sqrt(gamma0 + 2 gamma1) of the true SE
    assert ratio["mean_se_ratio"] == pytest.approx(math.sqrt(1.75 / 2.25), abs=0.02)
    oracle = {row["measure"]: row for row in rows if row["resampler"] == "mine.oracle" and row["kind"] == "point"}
    assert oracle["model_se"]["estimate"] is None  # the oracle gives bounds only
    assert oracle["bias"]["estimate"] == pytest.approx(0.0, abs=3.5 * oracle["bias"]["mc_se"])
    rejection = next(
        row for row in rows if row["resampler"] == "mine.oracle" and row["measure"] == "rejection"
    )  # null = 0 = the truth: the size, 1 - coverage
    assert rejection["estimate"] == pytest.approx(1 - _coverage(acceptance_body, "mine.oracle")[0])


def test_the_receipt_names_the_users_code(acceptance_body, space):
    plugins_recorded = acceptance_body["plugins"]
    entries = [origin["entry"] for origin in plugins_recorded]
    assert entries[0] == "[dgp] callable"
    assert "[[resamplers]] 'mine.oracle'" in entries
    origin = plugins_recorded[1]
    assert origin["distribution"] is None and len(origin["file_sha256"]) == 64  # a workspace module, pinned by hash


def test_csv_round_trips_to_the_frame(acceptance_body, space, tmp_path):
    from bootmark.core import provenance, receipts

    path = receipts.write_receipt(receipts.seal("study", provenance.collect(), acceptance_body), str(tmp_path))
    study = load(path)
    frame = study.to_frame()
    back = pandas.read_csv(io.StringIO(study.render("csv")))  # pandas' defaults, as a user reads it
    pandas.testing.assert_frame_equal(back, frame, check_exact=True)
    assert set(frame["kind"]) == {"point", "normal"}
    assert len(frame) == 3 * (6 + 5)


def test_the_per_series_frame_holds_every_interval_the_measures_judged(acceptance_body, tmp_path):
    from bootmark.core import provenance, receipts

    path = receipts.write_receipt(receipts.seal("study", provenance.collect(), acceptance_body), str(tmp_path))
    series = load(path).to_frame(per_series=True)
    [cell] = acceptance_body["results"]["cells"]
    names = list(cell["resamplers"])
    assert len(series) == len(names) * SERIES and series["series"].tolist() == list(range(SERIES)) * len(names)
    assert series.dtypes["n"] == "int64" and series.dtypes["covered"] == "bool" and series.dtypes["lower"] == "float64"
    for name in names:
        mine = series[series["resampler"] == name]
        bounds = cell["resamplers"][name]["intervals"]["normal"]
        assert mine["lower"].tolist() == bounds["lower"] and mine["upper"].tolist() == bounds["upper"]
        # the coverage the receipt's measures report, counted again from the series
        coverage, _ = _coverage(acceptance_body, name)
        assert mine["covered"].mean() == coverage
    oracle = series[series["resampler"] == "mine.oracle"]
    assert oracle["standard_error"].isna().all()  # the oracle reports bounds only: NaN, not a made-up SE


def test_the_point_estimates_measures_are_shown_once_unless_a_contender_answers_its_own_point():
    from bootmark.studies.summary import shown_once

    def rows(name, bias):
        return [
            {"n": 50, "resampler": name, "kind": "point", "measure": measure, "estimate": value, "mc_se": 0.1}
            for measure, value in (("bias", bias), ("empirical_se", 1.0), ("model_se", 0.9))
        ]

    shared = shown_once(rows("a", 0.2) + rows("b", 0.2) + rows("c", 0.3))
    labels = [(row["resampler"], row["measure"]) for row in shared]
    assert labels == [
        ("a, b", "bias"),
        ("a, b", "empirical_se"),
        ("a", "model_se"),
        ("b", "model_se"),
        ("c", "bias"),
        ("c", "empirical_se"),
        ("c", "model_se"),
    ]
    everyone = shown_once(rows("a", 0.2) + rows("b", 0.2))
    assert [row["resampler"] for row in everyone if row["measure"] == "bias"] == ["every resampler"]


def test_an_import_path_that_does_not_import_names_the_entry(space, tmp_path):
    resamplers = f"""
[[resamplers]]
name = "mine.missing"
callable = "no_such_module_{uuid.uuid4().hex[:6]}:interval"
kinds = ["normal"]
"""
    found = _protocol(space, resamplers=resamplers)
    with pytest.raises(plugins.PluginError, match=r"\[\[resamplers\]\] 'mine.missing': cannot import module"):
        runner.run_study(found, "tiny", run_directory=str(tmp_path / "run"), show_progress=False)
    assert not (tmp_path / "run").exists()  # refused before anything ran


def test_a_missing_attribute_names_the_entry(space, tmp_path):
    found = _protocol(space, resamplers=_one_resampler(space, "no_such_function"))
    with pytest.raises(plugins.PluginError, match=r"'mine.bad': module .* has no attribute 'no_such_function'"):
        runner.run_study(found, "tiny", run_directory=str(tmp_path / "run"), show_progress=False)


def test_a_declared_kind_refuses_another(space, tmp_path):
    found = _protocol(space, resamplers=_one_resampler(space, "newey_west", '["percentile"]'))
    with pytest.raises(plugins.PluginError, match="serves kinds normal, not percentile"):
        runner.run_study(found, "tiny", run_directory=str(tmp_path / "run"), show_progress=False)


@pytest.mark.parametrize(
    "function, message",
    [
        ("imports_late", r"'mine.bad' .* raised ModuleNotFoundError: No module named 'no_such_module_at_call_time'"),
        ("zero_dimensional", r"'mine.bad' .*: returned array\(1\.\)"),
        ("sorts_in_place", r"'mine.bad' .* raised ValueError: .*read-only"),
        ("strings", r"'mine.bad' .*: lower is '-0.5', not a number"),
        ("raises", r"'mine.bad' .* raised RuntimeError: my contender broke"),
        ("returns_nan", r"'mine.bad' .*: lower is nan"),
        ("reversed_bounds", r"'mine.bad' .*: lower 1.0 > upper -1.0"),
    ],
)
def test_a_contender_that_fails_stops_the_run_naming_the_entry_and_series(space, tmp_path, function, message):
    found = _protocol(space, resamplers=_one_resampler(space, function))
    with pytest.raises(StudyError, match=f"n={N} series 0: .*{message}"):
        runner.run_study(found, "tiny", run_directory=str(tmp_path / "run"), show_progress=False)


def test_a_contender_that_answers_garbage_trips_the_tripwire(space, tmp_path):
    found = _protocol(space, resamplers=_one_resampler(space, "constant"))
    with pytest.raises(TripwireError, match="mine.bad normal intervals are all identical"):
        runner.run_study(found, "tiny", run_directory=str(tmp_path / "run"), show_progress=False)


def test_a_process_without_a_truth_is_refused_before_the_run(space, tmp_path):
    found = _protocol(space, process="NoTruth")
    with pytest.raises(plugins.PluginError, match=r"\[dgp\] callable .*NoTruth.*has no truth\(statistic, n\)"):
        runner.run_study(found, "tiny", run_directory=str(tmp_path / "run"), show_progress=False)
    assert not (tmp_path / "run").exists()


def test_a_process_that_simulates_the_wrong_length_stops_the_run(space, tmp_path):
    found = _protocol(space, process="WrongLength")
    with pytest.raises(StudyError, match=r"simulate returned shape \(399,\) for n = 400"):
        runner.run_study(found, "tiny", run_directory=str(tmp_path / "run"), show_progress=False)


def test_a_monte_carlo_truth_shows_its_progress_when_asked(space, capsys):
    found = _protocol(space, process="MA1MonteCarlo", dgp_extra="truth_draws = 300", series=20)
    truth.ensure_truths(found.process(), (N,), "mean", draws=300, report=lambda line: None, show_progress=True)
    assert f"truth n={N}" in capsys.readouterr().err  # a tqdm bar over the 300 draws


def test_a_monte_carlo_truth_of_a_users_process_is_computed_once_and_cached(space, tmp_path):
    found = _protocol(space, process="MA1MonteCarlo", dgp_extra="truth_draws = 4000", series=20)
    process = found.process()
    assert truth.is_monte_carlo(process)
    paths = truth.ensure_truths(process, (N,), "mean", draws=4000, report=lambda line: None)
    again = truth.ensure_truths(process, (N,), "mean", draws=4000, report=lambda line: None)
    assert paths == again and len(paths) == 1
    found_truth = truth.truth_of(process, N, "mean", draws=4000)
    exact = math.sqrt((1 + THETA**2 + 2 * (1 - 1 / N) * THETA) / N)
    # the SD of 4,000 draws is within 4 of its own MC errors of the exact SE
    assert abs(found_truth.standard_error - exact) <= 4 * found_truth.monte_carlo_error
    assert found_truth.value == 0.0


def test_a_statistic_by_import_path_runs_through_the_engine(space, tmp_path):
    folder, names = space
    resamplers = """
[[resamplers]]
name = "engine.MovingBlock(4)"
engine = "MovingBlock"
block_length = 4
kinds = ["percentile"]
"""
    # the process knows no truth for the trimmed mean: refused, naming the process
    found = _protocol(space, resamplers=resamplers, statistic=f"{names['contenders']}:trimmed_mean", series=20)
    with pytest.raises(plugins.PluginError, match="truth.*raised ValueError: no truth for"):
        runner.run_study(found, run_directory=str(tmp_path / "run"), show_progress=False)


def _cli(arguments, environment, cwd):
    """``bootmark ARGUMENTS`` in a fresh interpreter, as a user would type it."""
    command = [sys.executable, "-m", "bootmark.cli.main", *arguments]
    return subprocess.run(command, capture_output=True, text=True, env=environment, cwd=cwd, check=False)


def test_study_new_scaffolds_a_study_that_runs_at_once(tmp_path):
    environment = {**os.environ, "BOOTMARK_WORKSPACE": str(tmp_path)}
    workspace.init(str(tmp_path))
    made = _cli(["study", "new", "HACdemo"], environment, tmp_path)
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "protocols" / "HACdemo-v1.toml").is_file()
    assert (tmp_path / "contenders" / "hacdemo.py").is_file()

    def tree():  # Python's own bytecode cache of the imported contender is not bootmark's output
        return sorted(path.relative_to(tmp_path) for path in tmp_path.rglob("*") if "__pycache__" not in path.parts)

    before = tree()
    tried = _cli(["study", "run", "HACdemo", "--profile", "tiny", "--no-progress", "--no-write"], environment, tmp_path)
    assert tried.returncode in (0, 1) and "mine.newey-west" in tried.stdout, tried.stderr
    assert "re-running with" not in tried.stderr  # said only with --verbose
    # --no-write writes nothing: no receipt, no runs/ folder (which would refuse the real run)
    assert tree() == before
    ran = _cli(["study", "run", "HACdemo", "--profile", "tiny", "--no-progress"], environment, tmp_path)
    assert ran.returncode in (0, 1), ran.stderr  # finished: criteria judged on 20 series
    assert "mine.newey-west" in ran.stdout and "receipt:" in ran.stdout
    # the file the protocol's comment names (for the registered profile) is the one written
    comment = re.search(
        r"writes (receipts/studies/[^)]+\.json)", (tmp_path / "protocols" / "HACdemo-v1.toml").read_text()
    )
    named = re.escape(comment.group(1).replace("-registered-", "-tiny-"))
    named = re.sub(r"<[^>]+>", "[^/]+", named)
    written = ran.stdout.split("receipt:")[1].strip()
    assert re.fullmatch(named, os.path.relpath(written, tmp_path)), (named, written)
    shown = _cli(["study", "show", written, "--format", "markdown"], environment, tmp_path)
    assert shown.returncode == 0, shown.stderr
    # coverage with its Wilson interval, every criterion's verdict, the measures' table
    coverage = load(written).body["results"]["coverage"]
    for row in coverage:
        wilson = f"{row['wilson_low']:.3f}-{row['wilson_high']:.3f}"
        assert f"| {row['resampler']} | {row['kind']} | {row['coverage']:.3f} | {wilson} |" in shown.stdout
    verdict = "PASS" if ran.returncode == 0 else "FAIL"
    assert f"- **{verdict}** `coverage(mine.newey-west, normal) within 3 mc_se of 0.900`" in shown.stdout
    # the point estimate's own measures once (both resamplers' point is the mean), each SE's per resampler
    assert shown.stdout.count("| every resampler | point | bias |") == 1
    assert shown.stdout.count("| point | model_se |") == 2
    again = _cli(["study", "new", "HACdemo"], environment, tmp_path)
    assert again.returncode == 2 and "already registered" in again.stderr and "Traceback" not in again.stderr


def test_bad_plugins_are_one_line_errors_at_the_command_line(space, tmp_path):
    found = _protocol(space, resamplers=_one_resampler(space, "raises"))
    environment = {**os.environ, "BOOTMARK_WORKSPACE": str(space[0])}
    arguments = ["study", "run", found.source_path, "--profile", "tiny", "--no-progress", "--no-write"]
    ran = _cli(arguments, environment, tmp_path)
    assert ran.returncode == 3, ran.stderr
    assert "mine.bad" in ran.stderr and "Traceback" not in ran.stderr
    assert textwrap.dedent(ran.stderr).count("\n") <= 3


def test_verify_replays_a_plugin_study_and_notes_changed_code(acceptance_body, space, tmp_path):
    from bootmark.core import provenance, receipts
    from bootmark.studies.verify import verify

    folder, names = space
    path = receipts.write_receipt(receipts.seal("study", provenance.collect(), acceptance_body), str(tmp_path))
    report = verify(path, sample=4, sample_seed=1)
    assert report.passed, report.render()
    assert not any("source differs" in note for note in report.notes)
    module = folder / f"{names['contenders']}.py"
    module.write_text(module.read_text() + "\n# edited after the run\n")
    report = verify(path, sample=1, sample_seed=1)
    assert any("the module's source differs" in note for note in report.notes), report.notes


@pytest.mark.parametrize(
    "function, message",
    [("stat_raises", "raised ArithmeticError: my statistic broke"), ("stat_array", r"returned shape \(2,\)")],
)
def test_a_statistic_of_ones_own_that_fails_stops_the_run_naming_it(space, tmp_path, function, message):
    resamplers = """
[[resamplers]]
name = "engine.MovingBlock(4)"
engine = "MovingBlock"
block_length = 4
kinds = ["percentile"]
"""
    statistic = f"{space[1]['contenders']}:{function}"
    found = _protocol(space, process="AnyTruth", resamplers=resamplers, statistic=statistic, series=20)
    with pytest.raises(StudyError, match=rf"\[design\] statistic .*{message}"):
        runner.run_study(found, "tiny", run_directory=str(tmp_path / "run"), show_progress=False)


@pytest.mark.parametrize(
    "entry, message",
    [
        ('kinds = ["point"]', "'point' names the measures of the point estimate"),
        ('kinds = ["normal"]\n[resamplers.options]\nseed = 3', r"options\] cannot set seed"),
    ],
)
def test_a_contender_entry_that_cannot_work_is_refused_when_parsed(space, entry, message):
    resamplers = f"""
[[resamplers]]
name = "mine.bad"
callable = "{space[1]["contenders"]}:oracle"
{entry}
"""
    with pytest.raises(protocol.ProtocolError, match=message):
        _protocol(space, resamplers=resamplers)


@pytest.mark.parametrize(
    "options, message",
    [
        ("thetaa = 0.5", r"no parameter 'thetaa' \(did you mean 'theta'\?\) .*its options are theta, scale"),
        ("theta = 0.5\nwidth = 2", r"no parameter 'width' for \[resamplers.options\]"),
        ("", r"cannot be called as bootmark calls a contender.*'theta'"),  # a required option left out
    ],
)
def test_contender_options_are_checked_against_its_signature_before_any_series(space, tmp_path, options, message):
    resamplers = f"""
[[resamplers]]
name = "mine.oracle"
callable = "{space[1]["contenders"]}:oracle"
kinds = ["normal"]
[resamplers.options]
{options}
"""
    found = _protocol(space, resamplers=resamplers, series=20)
    with pytest.raises(plugins.PluginError, match=rf"\[\[resamplers\]\] 'mine.oracle': .*{message}"):
        runner.run_study(found, "tiny", run_directory=str(tmp_path / "run"), show_progress=False)
    assert not (tmp_path / "run").exists()  # refused before the run directory, before any series


def test_a_contender_that_takes_any_option_or_misses_a_call_argument():
    def open_ended(series, *, statistic, alpha, kind, n_bootstraps, seed, **options):
        return (0.0, 1.0)

    def no_seed(series, *, statistic, alpha, kind, n_bootstraps):
        return (0.0, 1.0)

    plugins.Contender("[[resamplers]] 'a'", "m:open_ended", open_ended, {"anything": 1}).check(("normal",), "mean")
    with pytest.raises(plugins.PluginError, match="cannot be called as bootmark calls a contender.*'seed'"):
        plugins.Contender("[[resamplers]] 'b'", "m:no_seed", no_seed, {}).check(("normal",), "mean")


def test_calibrated_intervals_of_a_statistic_the_engine_cannot_nest_are_refused(space):
    resamplers = """
[[resamplers]]
name = "engine.MovingBlock(4)"
engine = "MovingBlock"
block_length = 4
kinds = ["calibrated"]
"""
    with pytest.raises(protocol.ProtocolError, match='kind "calibrated"'):
        _protocol(space, process="AnyTruth", resamplers=resamplers, statistic="acf:1")


def test_a_profile_runs_without_the_contenders_it_leaves_out(space, tmp_path):
    folder, names = space
    resamplers = (
        RESAMPLERS.format(contenders=names["contenders"], theta=THETA)
        + """
[[resamplers]]
name = "mine.missing"
callable = "no_such_module_anywhere:interval"
kinds = ["normal"]
"""
    )
    found = _protocol(space, resamplers=resamplers, series=20)
    text = found.text.replace(
        "[profiles.tiny]\nseries = 20", '[profiles.tiny]\nseries = 20\nresamplers = ["mine.oracle"]'
    )
    path = folder / "protocols" / found.file_name
    path.write_text(text)
    body = runner.run_study(protocol.load(str(path)), "tiny", run_directory=str(tmp_path / "run"), show_progress=False)
    assert [origin["entry"] for origin in body["plugins"]] == ["[dgp] callable", "[[resamplers]] 'mine.oracle'"]


def test_study_new_refuses_the_id_of_a_registered_study(tmp_path, monkeypatch):
    from bootmark.studies import scaffold

    workspace.init(str(tmp_path))
    monkeypatch.setenv("BOOTMARK_WORKSPACE", str(tmp_path))
    with pytest.raises(protocol.ProtocolError, match="'S1' is already registered"):
        scaffold.create("S1", workspace.find())
    assert not (tmp_path / "protocols" / "S1-v1.toml").exists()
