"""Forecast studies (bootmark.studies.forecast): the oracle's positive control, a half-width
negative control, a forecaster's bad answers stopping the run by entry and horizon, the
protocol's refusals, and the receipt replayed."""

import math
import uuid
from statistics import NormalDist

import numpy as np
import pytest

from bootmark.core import provenance, receipts, workspace
from bootmark.studies import forecast, load, plugins, protocol, runner
from bootmark.studies.dgp import AR1, AR3
from bootmark.studies.runner import StudyError
from bootmark.studies.verify import verify

ALPHA = 0.10
HORIZON = 4
PHI = 0.7

# A forecaster of the test's own: the known AR(1)'s conditional interval in closed form,
# phi**h x_n +- z sigma sqrt((1 - phi**2h) / (1 - phi**2)), widened or narrowed by `scale`;
# and forecasters that answer garbage at one horizon.
FORECASTERS = """
import math
from statistics import NormalDist

import numpy as np


def known_ar1(history, *, horizon, alpha, seed, phi, scale=1.0):
    z = NormalDist().inv_cdf(1 - alpha / 2)
    steps = np.arange(1, horizon + 1)
    point = history[-1] * phi**steps
    spread = scale * z * np.sqrt((1 - phi ** (2 * steps)) / (1 - phi**2))
    return {"lower": point - spread, "upper": point + spread, "point": point}


def short(history, *, horizon, alpha, seed):
    return np.zeros(horizon - 1), np.ones(horizon - 1)


def nan_at_two(history, *, horizon, alpha, seed):
    upper = np.ones(horizon)
    upper[1] = math.nan
    return np.zeros(horizon), upper


def crossed_at_three(history, *, horizon, alpha, seed):
    lower = np.zeros(horizon)
    lower[2] = 2.0
    return lower, np.ones(horizon)
"""

PROTOCOL = """
id = "{id}"
version = 1
registered = 2026-12-07
title = "Forecast controls"
claim = "The oracle covers its nominal level at every horizon; half its width does not."

[dgp]
name = "ar1"
parameters = {{ phi = {phi}, innovation_sd = 1.0, burn_in = 200 }}

[design]
target = "forecast"
horizon = {horizon}
n = [30, 60]
series = {series}
alpha = {alpha}
root_seed = 20261207
chunk_series = 500
{design_extra}

[[resamplers]]
name = "oracle"
oracle = true

{resamplers}

[[criteria]]
id = "oracle-covers"
test = "within"
resampler = "oracle"
target = {nominal}
rationale = "The oracle is the true conditional distribution."

[profiles.tiny]
series = 30
n = [30]
"""

KNOWN = """
[[resamplers]]
name = "known"
callable = "{module}:known_ar1"
[resamplers.options]
phi = {phi}

[[resamplers]]
name = "half"
callable = "{module}:known_ar1"
[resamplers.options]
phi = {phi}
scale = 0.5
"""


@pytest.fixture
def space(tmp_path, monkeypatch):
    workspace.init(str(tmp_path))
    monkeypatch.setenv("BOOTMARK_WORKSPACE", str(tmp_path))
    module = f"forecasters_{uuid.uuid4().hex[:10]}"  # imported modules stay in sys.modules: a fresh name
    (tmp_path / f"{module}.py").write_text(FORECASTERS)
    return tmp_path, module


def _protocol(space, *, resamplers=None, series=2000, design_extra="", horizon=HORIZON, parse_only=False):
    folder, module = space
    study = f"FC{uuid.uuid4().hex[:6]}"
    text = PROTOCOL.format(
        id=study,
        phi=PHI,
        horizon=horizon,
        series=series,
        alpha=ALPHA,
        nominal=1 - ALPHA,
        design_extra=design_extra,
        resamplers=(resamplers if resamplers is not None else KNOWN).format(module=module, phi=PHI),
    )
    if parse_only:
        return protocol.parse(text, f"{study}-v1.toml")
    path = folder / "protocols" / f"{study}-v1.toml"
    path.write_text(text)
    return protocol.load(str(path))


@pytest.fixture
def controls(space, tmp_path):
    found = _protocol(space)
    return runner.run_study(found, run_directory=str(tmp_path / "run"), show_progress=False)


def _rows(body, name, measure):
    return [row for row in body["results"]["performance"] if row["resampler"] == name and row["measure"] == measure]


def test_the_oracle_covers_its_nominal_level_at_every_horizon(controls):
    rows = _rows(controls, "oracle", "coverage")
    assert {(row["n"], row["kind"]) for row in rows} == {(n, f"h{h}") for n in (30, 60) for h in range(1, 5)}
    for row in rows:
        assert abs(row["estimate"] - (1 - ALPHA)) <= 3 * row["mc_se"], row
    # each side misses alpha / 2, within its own Monte Carlo error
    for measure in ("miss_below", "miss_above"):
        for row in _rows(controls, "oracle", measure):
            assert abs(row["estimate"] - ALPHA / 2) <= 3.5 * row["mc_se"], row
    [verdict] = controls["results"]["criteria"]
    assert verdict["passed"] and verdict["judged"]


def test_half_the_oracles_width_is_reported_far_below_nominal(controls):
    # the true coverage of half the width: 2 Phi(z / 2) - 1 = 0.589 at 90%
    truth = 2 * NormalDist().cdf(NormalDist().inv_cdf(1 - ALPHA / 2) / 2) - 1
    for row in _rows(controls, "half", "coverage"):
        assert (1 - ALPHA) - row["estimate"] > 10 * row["mc_se"], row
        assert abs(row["estimate"] - truth) <= 4 * row["mc_se"], row


def test_a_forecaster_that_knows_the_process_is_the_oracle(controls):
    # an independent closed form (phi**h, (1 - phi**2h) / (1 - phi**2)) against the oracle's recursion
    [cell] = [cell for cell in controls["results"]["cells"] if cell["n"] == 60]
    known, oracle = cell["resamplers"]["known"], cell["resamplers"]["oracle"]
    np.testing.assert_allclose(known["lower"], oracle["lower"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(known["upper"], oracle["upper"], rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "process, history",
    [(AR1(0.7, 1.3), [0.2, -1.1]), (AR3(0.5, -0.3, 0.2, 0.8), [0.4, 1.0, -0.6, 0.3])],
)
def test_the_oracle_interval_is_the_conditional_distribution(process, history):
    from statsmodels.tsa.arima_process import arma2ma  # an outside answer: the MA(infinity) weights

    horizon, alpha = 6, 0.2
    lower, upper, point = forecast.oracle_interval(process, history, horizon, alpha)
    phi = [process.phi] if isinstance(process, AR1) else [process.phi1, process.phi2, process.phi3]
    weights = arma2ma(np.r_[1, -np.asarray(phi)], [1], lags=horizon)
    sd = process.innovation_sd * np.sqrt(np.cumsum(weights**2))
    path = list(history)
    for _ in range(horizon):
        path.append(sum(c * path[-1 - k] for k, c in enumerate(phi)))
    np.testing.assert_allclose(point, path[len(history) :], rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(upper - point, NormalDist().inv_cdf(1 - alpha / 2) * sd, rtol=1e-13)
    np.testing.assert_allclose(point - lower, upper - point, rtol=1e-13)


@pytest.mark.parametrize(
    "function, words",
    [
        ("short", r"lower has shape \(3,\); the horizon is 4"),
        ("nan_at_two", "upper at horizon 2 is nan"),
        ("crossed_at_three", r"lower 2\.0 > upper 1\.0 at horizon 3"),
    ],
)
def test_a_bad_answer_at_any_horizon_stops_the_run_naming_the_entry_and_horizon(space, tmp_path, function, words):
    resamplers = f"""
[[resamplers]]
name = "mine.bad"
callable = "{{module}}:{function}"
"""
    found = _protocol(space, resamplers=resamplers, series=30)
    with pytest.raises(StudyError, match=rf"series 0: \[\[resamplers\]\] 'mine.bad' .*{words}"):
        runner.run_study(found, "tiny", run_directory=str(tmp_path / "run"), show_progress=False)


@pytest.mark.parametrize(
    "change, words",
    [
        ({"horizon": None}, "a forecast study needs horizon"),
        ({"design_extra": 'statistic = "mean"'}, "a forecast study does not read statistic"),
        ({"resamplers": '[[resamplers]]\nname = "x"\ncallable = "m:f"\nkinds = ["normal"]'}, "takes no kinds"),
        ({"resamplers": '[[resamplers]]\nname = "x"\nengine = "IID"'}, "not a forecaster"),
        ({"resamplers": '[[resamplers]]\nname = "x"\ncallable = "m:f"\n[resamplers.options]\nseed = 1'}, "seed"),
        ({"horizon": 0}, "horizon' must be >= 1"),
    ],
)
def test_a_forecast_protocol_that_cannot_run_is_refused_when_parsed(space, change, words):
    arguments = {"resamplers": "", **change}
    if arguments.get("horizon", HORIZON) is None:
        with pytest.raises(protocol.ProtocolError, match=words):
            _protocol_without_horizon(space)
        return
    with pytest.raises(protocol.ProtocolError, match=words):
        _protocol(space, parse_only=True, **arguments)


def _protocol_without_horizon(space):
    text = PROTOCOL.format(
        id="NOH", phi=PHI, horizon=1, series=10, alpha=ALPHA, nominal=0.9, design_extra="", resamplers=""
    ).replace("horizon = 1\n", "")
    return protocol.parse(text, "NOH-v1.toml")


def test_an_oracle_on_a_process_without_one_is_refused_when_parsed(space):
    text = PROTOCOL.format(
        id="NOOR", phi=PHI, horizon=2, series=10, alpha=ALPHA, nominal=0.9, design_extra="", resamplers=""
    ).replace(
        'name = "ar1"\nparameters = { phi = 0.7, innovation_sd = 1.0, burn_in = 200 }',
        'name = "arma11"\nparameters = { phi = 0.5, theta = 0.3 }',
    )
    with pytest.raises(protocol.ProtocolError, match="asks for the oracle, which arma11 has not"):
        protocol.parse(text, "NOOR-v1.toml")


def test_a_misspelt_forecaster_option_is_refused_before_any_series(space, tmp_path):
    resamplers = KNOWN.replace("phi = {phi}\nscale = 0.5", "phi = {phi}\nscael = 0.5")
    found = _protocol(space, resamplers=resamplers, series=30)
    with pytest.raises(plugins.PluginError, match=r"'half'.*no parameter 'scael' \(did you mean 'scale'\?\)"):
        runner.run_study(found, "tiny", run_directory=str(tmp_path / "run"), show_progress=False)
    assert not (tmp_path / "run").exists()


def test_a_forecast_receipt_verifies_and_reads_as_frames(space, tmp_path):
    found = _protocol(space, series=60)
    body = runner.run_study(found, run_directory=str(tmp_path / "run"), show_progress=False)
    path = receipts.write_receipt(receipts.seal("study", provenance.collect(), body), str(tmp_path / "out"))
    report = verify(path, sample=5, sample_seed=3)
    assert report.passed, report.render()
    study = load(path)
    measures = study.to_frame()
    assert set(measures["kind"]) == {f"h{h}" for h in range(1, HORIZON + 1)}
    assert set(measures["measure"]) == set(forecast.FORECAST_MEASURES)
    series = study.to_frame(per_series=True)
    assert len(series) == 2 * 60 * 3 * HORIZON  # n, series, resamplers, horizons
    assert list(dict.fromkeys(series["resampler"])) == ["oracle", "known", "half"]  # the protocol's order
    mine = series[(series["resampler"] == "half") & (series["n"] == 60)]
    coverage = measures.query("resampler == 'half' and n == 60 and measure == 'coverage'")
    by_horizon = mine.groupby("horizon")["covered"].mean().tolist()
    assert by_horizon == coverage.sort_values("kind")["estimate"].tolist()  # the measures, counted again
    assert series.query("resampler == 'half'")["point"].notna().all()  # the point forecasts it gave


def test_a_forecast_run_in_chunks_and_resumed_is_the_one_pass_run(space, tmp_path):
    found = _protocol(space, series=60)
    whole = runner.run_study(found, "tiny", run_directory=str(tmp_path / "a"), show_progress=False)
    chunked = protocol.parse(found.text.replace("chunk_series = 500", "chunk_series = 7"), found.file_name)
    pieces = runner.run_study(chunked, "tiny", run_directory=str(tmp_path / "b"), show_progress=False)
    assert pieces["results"]["cells"] == whole["results"]["cells"]
    assert pieces["results"]["performance"] == whole["results"]["performance"]


def test_the_forecast_measures_of_a_hand_computed_case():
    # three series, one horizon: covered, above by 1, below by 2; alpha 0.5 -> penalty 2 / alpha = 4
    found = {
        e.measure: e for e in plugins_measures([-1.0, 0.0, 1.0], [1.0, 1.0, 2.0], [0.0, 2.0, -1.0], 0.5, [0, 1, 2])
    }
    assert found["coverage"].estimate == pytest.approx(1 / 3)
    assert found["winkler"].estimate == pytest.approx((2.0 + (1.0 + 4.0) + (1.0 + 8.0)) / 3)
    assert found["miss_above"].estimate == pytest.approx(1 / 3) and found["miss_below"].estimate == pytest.approx(1 / 3)
    assert (found["coverage_low"].estimate, found["coverage_mid"].estimate) == (1.0, 0.0)
    assert math.isclose(found["coverage"].mc_se, math.sqrt((1 / 3) * (2 / 3) / 3))


def plugins_measures(*arguments):
    from bootmark.studies.measures import forecast_measures

    return forecast_measures(*arguments)


def test_study_new_forecast_scaffolds_a_forecast_study_that_runs_and_shows(tmp_path):
    import os
    import subprocess
    import sys

    environment = {**os.environ, "BOOTMARK_WORKSPACE": str(tmp_path)}
    workspace.init(str(tmp_path))
    command = [sys.executable, "-m", "bootmark.cli.main"]

    def cli(*arguments):
        return subprocess.run([*command, *arguments], capture_output=True, text=True, env=environment, cwd=tmp_path)

    made = cli("study", "new", "FCdemo", "--forecast")
    assert made.returncode == 0, made.stderr
    ran = cli("study", "run", "FCdemo", "--profile", "tiny", "--no-progress")
    assert ran.returncode in (0, 1), ran.stderr  # finished: the criterion judged on 40 series
    assert "mine.ar1-normal" in ran.stdout and "oracle" in ran.stdout and "winkler" in ran.stdout
    written = ran.stdout.split("receipt:")[1].strip()
    shown = cli("study", "show", written, "--format", "markdown")
    assert shown.returncode == 0, shown.stderr
    for step in range(1, 6):
        assert f"| 50 | mine.ar1-normal | {step} |" in shown.stdout
    assert "- **" in shown.stdout and "coverage(mine.ar1-normal, every horizon)" in shown.stdout
    assert "| h5 | winkler |" in shown.stdout  # the measures' table


def _shocks(x, phi):
    return x[1:] - phi * x[:-1]


def test_the_heavy_tailed_and_clustered_processes_keep_their_variance_and_show_their_law():
    from bootmark.studies.dgp import GarchAR1, StudentTAR1

    draws = 40
    t_shocks = np.concatenate([_shocks(StudentTAR1(0.7, df=3.0).sample(2000, seed), 0.7) for seed in range(draws)])
    gaussian = np.concatenate([_shocks(AR1(0.7).sample(2000, seed), 0.7) for seed in range(draws)])
    garch = GarchAR1(0.7, omega=0.1, alpha=0.15, beta=0.8)
    g_shocks = np.concatenate([_shocks(garch.sample(2000, seed), 0.7) for seed in range(draws)])
    # unit variance by construction (t: scaled by sqrt((df - 2) / df); GARCH: omega / (1 - alpha - beta) = 2)
    assert abs(np.median(t_shocks**2) / np.median(gaussian**2) - 1) > 0.3  # the same variance, another law
    assert abs(g_shocks.var() / garch.unconditional_sd() ** 2 - 1) < 0.1
    # heavy tails: beyond 4 sd far more often than a Gaussian's 6e-5
    assert np.mean(np.abs(t_shocks) > 4) > 20 * np.mean(np.abs(gaussian) > 4)

    def lag1(values):
        squared = values**2 - np.mean(values**2)
        return float(squared[1:] @ squared[:-1] / (squared @ squared))

    assert lag1(g_shocks) > 0.1 > abs(lag1(gaussian)) * 5  # volatility clusters: squared shocks correlate


def test_a_level_shift_moves_the_level_where_it_says():
    from bootmark.studies.dgp import LevelShiftAR1

    paths = np.array([LevelShiftAR1(phi=0.5, shift=4.0, at=0.75).sample(400, seed) for seed in range(50)])
    before, after = paths[:, 250:300].mean(), paths[:, 300:].mean()
    assert abs(before) < 0.3 and abs(after - 4.0) < 0.3


def test_the_new_processes_mean_truth_is_the_ar1s_and_they_have_no_oracle(space):
    from bootmark.studies.dgp import GarchAR1, StudentTAR1, make_process

    assert StudentTAR1(0.7).truth(100).standard_error == AR1(0.7).truth(100).standard_error
    exact = GarchAR1(0.7, true_se="finite_n").truth(100).standard_error
    assert exact == AR1(0.7, garch_sd := GarchAR1().unconditional_sd(), true_se="finite_n").truth(100).standard_error
    assert garch_sd == 1.0
    for name in ("student_t_ar1", "garch_ar1", "level_shift_ar1"):
        assert not forecast.has_oracle(make_process(name, {}))
    with pytest.raises(Exception, match="level_shift_ar1 has no truth for 'mean'"):
        make_process("level_shift_ar1", {}).truth(100, "mean")


def test_the_peer_forecasters_run_as_entry_points_and_replay(space, tmp_path):
    resamplers = """
[[resamplers]]
name = "statsmodels.ARIMA(1,0,0)"
contender = "statsmodels.ARIMA"

[[resamplers]]
name = "tsbootstrap.forecast_intervals(AR(1))"
contender = "tsbootstrap.forecast_intervals"
[resamplers.options]
n_bootstraps = 199
"""
    found = _protocol(space, resamplers=resamplers, series=30)
    body = runner.run_study(found, "tiny", run_directory=str(tmp_path / "run"), show_progress=False)
    [cell] = body["results"]["cells"]
    oracle = np.asarray(cell["resamplers"]["oracle"]["upper"]) - np.asarray(cell["resamplers"]["oracle"]["lower"])
    for name in ("statsmodels.ARIMA(1,0,0)", "tsbootstrap.forecast_intervals(AR(1))"):
        width = np.asarray(cell["resamplers"][name]["upper"]) - np.asarray(cell["resamplers"][name]["lower"])
        # a fitted AR(1) on 30 values: widths of the oracle's order, growing with the horizon
        assert 0.5 < np.median(width / oracle) < 1.5, name
        assert np.all(np.median(np.diff(width, axis=1), axis=0) > 0), name
    recorded = {origin["entry"]: origin for origin in body["plugins"]}
    assert recorded["[[resamplers]] 'statsmodels.ARIMA(1,0,0)'"]["requires"]["statsmodels"] == "0.15.0"
    path = receipts.write_receipt(receipts.seal("study", provenance.collect(), body), str(tmp_path / "out"))
    report = verify(path, sample=3, sample_seed=1)
    assert report.passed, report.render()


def test_within_judges_a_share_by_its_se_at_the_target_over_all_its_cells():
    from bootmark.studies.protocol import Criterion

    def rows(estimates):
        return [
            {"n": 50, "resampler": "f", "kind": f"h{step}", "measure": "coverage", "estimate": p, "mc_se": 0.0}
            for step, p in enumerate(estimates, start=1)
        ]

    cells = [{"n": 50, "origin": [0.0] * 40}]
    rule = Criterion("c", "within", "f", None, "why", target=0.9, k=3.0)
    # 40 of 40 covered: its observed-p SE is 0, but a true 90% interval does that 1.5% of the time
    assert forecast.judge(rule, rows([1.0, 0.9, 0.9]), cells, 3)["passed"]
    # 28 of 40: 4.22 SE below at the target's SE sqrt(0.09 / 40)
    verdict = forecast.judge(rule, rows([0.7, 0.9, 0.9]), cells, 3)
    assert not verdict["passed"] and "-4.22 SE" in verdict["detail"]
    # k = 3 held over 3 cells: each at 3.29 SE, so a lone 3.1-SE cell passes
    assert forecast.judge(rule, rows([0.9 - 3.1 * math.sqrt(0.09 / 40), 0.9, 0.9]), cells, 3)["passed"]
    one = Criterion("c", "within", "f", "h1", "why", target=0.9, k=3.0)
    assert not forecast.judge(one, rows([0.9 - 3.1 * math.sqrt(0.09 / 40), 0.9, 0.9]), cells, 3)["passed"]


@pytest.mark.parametrize(
    "entry, words",
    [
        ('contender = "statsmodels.ARIMA"\n[resamplers.options]\norder = 1', "order must be three ints"),
        ('contender = "tsbootstrap.forecast_intervals"\n[resamplers.options]\norder = [1, 0, 0]', "order must be"),
        ('contender = "arch.IIDBootstrap"', "is made for a coverage study"),
    ],
)
def test_a_shipped_forecasters_bad_option_or_a_coverage_contender_is_refused_before_any_series(
    space, tmp_path, entry, words
):
    resamplers = f'[[resamplers]]\nname = "x"\n{entry}\n'
    found = _protocol(space, resamplers=resamplers, series=30)
    with pytest.raises(plugins.PluginError, match=rf"\[\[resamplers\]\] 'x': .*{words}"):
        runner.run_study(found, "tiny", run_directory=str(tmp_path / "run"), show_progress=False)
    assert not (tmp_path / "run").exists()


def test_horizon_without_the_forecast_target_is_refused_by_name():
    text = PROTOCOL.format(
        id="HNT", phi=PHI, horizon=2, series=10, alpha=ALPHA, nominal=0.9, design_extra="", resamplers=""
    ).replace('target = "forecast"\n', "")
    with pytest.raises(
        protocol.ProtocolError, match='horizon is read only by a forecast study; add target = "forecast"'
    ):
        protocol.parse(text, "HNT-v1.toml")


def test_a_stopped_run_names_the_folder_its_chunks_stay_in_and_how_to_go_on(space):
    import os
    import subprocess
    import sys

    folder, module = space
    resamplers = f"""
[[resamplers]]
name = "mine.bad"
callable = "{module}:crossed_at_three"
"""
    found = _protocol(space, resamplers=resamplers, series=30)
    environment = {**os.environ, "BOOTMARK_WORKSPACE": str(folder)}
    command = [sys.executable, "-m", "bootmark.cli.main", "study", "run", found.source_path, "--profile", "tiny"]
    ran = subprocess.run([*command, "--no-progress"], capture_output=True, text=True, env=environment, cwd=folder)
    assert ran.returncode == 3, ran.stderr
    [line] = ran.stderr.strip().splitlines()
    assert "at horizon 3" in line and "the chunks done stay in" in line and "--resume" in line, line
