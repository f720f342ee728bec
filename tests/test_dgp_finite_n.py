"""The exact finite-n true SEs of the built-in Gaussian processes (``[dgp] true_se =
"finite_n"``, studies/dgp.py), checked against answers from outside the code:

* Var(mean) and Var(var) against the definitions computed by brute force in this file:
  the full n x n autocovariance matrix (scipy's toeplitz of autocovariances derived here,
  not by the processes: AR(1) and ARMA(1,1) by their textbook forms, AR(3) by its
  MA(infinity) weights from scipy's lfilter), 1'Sigma1/n**2 and 2 tr((A Sigma)**2) by
  matrix products; and, where the O(n) formula's terms nearly cancel, in exact rational
  arithmetic;
* the user's figure: AR(1), phi = 0.7, n = 100: large-n SE 0.3333, exact 0.3287;
* Monte Carlo: 20,000 paths of the process's own sampler at n = 50;
* the large-n SE is the limit of the exact one;
* protocols: true_se parsed and refused at parse time where it cannot hold, and a
  protocol without the key (or with true_se = "large_n") gives the truth bits the
  committed receipts store.

The negative controls (a broken formula fails these tests) were run by hand: see the
report of the change that added this file.
"""

import glob
import math
import os
import sys
from fractions import Fraction

import numpy as np
import pytest
from scipy.linalg import toeplitz
from scipy.signal import lfilter

from bootmark.core import provenance, receipts, workspace
from bootmark.reference.errors import InvalidParameterError
from bootmark.studies import dgp, protocol, runner, truth
from bootmark.studies.dgp import AR1, AR3, ARMA11, HeteroskedasticAR1
from bootmark.studies.verify import verify

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CI_PROTOCOL = os.path.join(os.path.dirname(__file__), "protocols", "CI-v1.toml")
NS = (10, 50, 200)


# ---------------------------------------------------------------------------------------
# Autocovariances from outside studies/dgp.py


def _ar1_autocovariances(phi, sd, n):
    return sd**2 / (1.0 - phi**2) * phi ** np.arange(n)


def _arma11_autocovariances(phi, theta, sd, n):
    # Brockwell & Davis (3.3.8): gamma_0 = sd**2 (1 + 2 phi theta + theta**2) / (1 - phi**2),
    # gamma_1 = sd**2 (1 + phi theta)(phi + theta) / (1 - phi**2), gamma_k = phi**(k-1) gamma_1
    gamma = np.empty(n)
    gamma[0] = sd**2 * (1.0 + 2.0 * phi * theta + theta**2) / (1.0 - phi**2)
    gamma[1:] = sd**2 * (1.0 + phi * theta) * (phi + theta) / (1.0 - phi**2) * phi ** np.arange(n - 1)
    return gamma


def _ar_autocovariances(coefficients, sd, n, weights=20_000):
    # MA(infinity) weights psi_j (the impulse response of the AR filter), gamma_k = sd**2 sum_j psi_j psi_{j+k}
    impulse = np.zeros(weights)
    impulse[0] = 1.0
    psi = lfilter([1.0], np.r_[1.0, -np.asarray(coefficients)], impulse)
    return np.array([sd**2 * (psi[: weights - k] @ psi[k:]) for k in range(n)])


CASES = [
    ("AR1(0.7)", AR1(0.7), lambda n: _ar1_autocovariances(0.7, 1.0, n)),
    ("AR1(-0.5, sd 2)", AR1(-0.5, innovation_sd=2.0), lambda n: _ar1_autocovariances(-0.5, 2.0, n)),
    ("AR1(0.95)", AR1(0.95), lambda n: _ar1_autocovariances(0.95, 1.0, n)),
    ("AR3(0.5, -0.2, 0.1)", AR3(0.5, -0.2, 0.1), lambda n: _ar_autocovariances((0.5, -0.2, 0.1), 1.0, n)),
    (
        "AR3(0.3, 0.2, -0.1, sd 1.5)",
        AR3(0.3, 0.2, -0.1, innovation_sd=1.5),
        lambda n: _ar_autocovariances((0.3, 0.2, -0.1), 1.5, n),
    ),
    ("ARMA11(0.5, 0.3)", ARMA11(0.5, 0.3), lambda n: _arma11_autocovariances(0.5, 0.3, 1.0, n)),
    (
        "ARMA11(-0.4, 0.6, sd 0.7)",
        ARMA11(-0.4, 0.6, innovation_sd=0.7),
        lambda n: _arma11_autocovariances(-0.4, 0.6, 0.7, n),
    ),
]
IDS = [case[0] for case in CASES]


def _brute_force(gamma):
    """(Var(mean), Var(var)) of n = len(gamma) Gaussian values by their definitions."""
    n = len(gamma)
    sigma = toeplitz(gamma)
    ones = np.ones(n)
    centring = (np.eye(n) - np.outer(ones, ones) / n) / n  # s2 = x'Ax, A = (I - 11'/n)/n
    product = centring @ sigma
    return ones @ sigma @ ones / n**2, 2.0 * np.trace(product @ product)


def _finite(process):
    return dgp.make_process(type(process).__name__.lower(), _fields(process), true_se="finite_n")


def _fields(process):
    return {name: getattr(process, name) for name in process.__dataclass_fields__ if name != "true_se"}


@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize(("name", "process", "autocovariances"), CASES, ids=IDS)
def test_the_exact_variances_of_mean_and_var_match_the_brute_force_definitions(name, process, autocovariances, n):
    variance_of_mean, variance_of_var = _brute_force(autocovariances(n))
    exact = _finite(process)
    mean, var = exact.truth(n, "mean"), exact.truth(n, "var")
    assert mean.standard_error**2 == pytest.approx(variance_of_mean, rel=1e-12, abs=0)
    assert var.standard_error**2 == pytest.approx(variance_of_var, rel=1e-12, abs=0)
    # the true values are the population ones, whatever the SE
    assert (mean.value, mean.monte_carlo_error, var.monte_carlo_error) == (0.0, 0.0, 0.0)
    assert var.value == pytest.approx(autocovariances(1)[0], rel=1e-14)
    assert f"SE exact at n = {n}" in mean.source and f"SE exact at n = {n}" in var.source


def _exact_definitions(phi, n):
    """(Var(mean), Var(var)) of an AR(1) with unit innovations in exact rational arithmetic,
    phi taken as the float's exact value: the n x n matrices, no O(n) algebra."""
    phi = Fraction(phi)
    sigma = [[phi ** abs(i - j) / (1 - phi * phi) for j in range(n)] for i in range(n)]
    variance_of_mean = sum(sum(row) for row in sigma) / n**2
    centring = [[(Fraction(int(i == j)) - Fraction(1, n)) / n for j in range(n)] for i in range(n)]
    product = [[sum(centring[i][m] * sigma[m][j] for m in range(n)) for j in range(n)] for i in range(n)]
    trace = sum(product[i][m] * product[m][i] for i in range(n) for m in range(n))
    return variance_of_mean, 2 * trace


@pytest.mark.parametrize(("phi", "n"), [(0.99, 10), (0.9, 12), (-0.9, 10)])
def test_the_exact_variances_lose_nothing_where_the_o_n_formulas_terms_cancel(phi, n):
    # phi near 1 at small n: tr(Sigma**2) - 2 c'c/n + (1'c)**2/n**2 nearly cancels (a float
    # evaluation of it is off by ~1e-12 at phi = 0.99, n = 10); the sums are exact integers
    variance_of_mean, variance_of_var = _exact_definitions(phi, n)
    exact = AR1(phi, true_se="finite_n")
    assert exact.truth(n, "mean").standard_error ** 2 == pytest.approx(float(variance_of_mean), rel=1e-14)
    assert exact.truth(n, "var").standard_error ** 2 == pytest.approx(float(variance_of_var), rel=1e-14)


def test_the_users_figure_ar1_phi_07_at_n_100():
    large, exact = AR1(0.7).truth(100, "mean"), AR1(0.7, true_se="finite_n").truth(100, "mean")
    assert round(large.standard_error, 4) == 0.3333
    assert round(exact.standard_error, 4) == 0.3287
    assert "exact" not in large.source and "SE exact at n = 100" in exact.source


def test_the_formulas_give_the_iid_answers():
    # i.i.d. Gaussian: Var(mean) = gamma_0 / n, Var(s2) = 2 gamma_0**2 (n - 1) / n**2
    for n in NS:
        white = [1.0] + [0.0] * (n - 1)
        assert dgp.finite_n_variance_of_mean(4.0, white) == pytest.approx(4.0 / n, rel=1e-15)
        assert dgp.finite_n_variance_of_var(4.0, white) == pytest.approx(32.0 * (n - 1) / n**2, rel=1e-15)
        exact = AR1(0.0, innovation_sd=2.0, true_se="finite_n")
        assert exact.truth(n, "var").standard_error == pytest.approx(math.sqrt(32.0 * (n - 1)) / n, rel=1e-15)


@pytest.mark.parametrize("process", [case[1] for case in CASES], ids=IDS)
@pytest.mark.parametrize("statistic", ["mean", "var"])
def test_the_large_n_se_is_the_limit_of_the_exact_one(process, statistic):
    # n Var_n -> the asymptotic variance, with an O(1/n) gap: 1e-2 at n = 5,000 is loose
    # for these processes, and the gap shrinks as n grows
    gaps = [
        abs(_finite(process).truth(n, statistic).standard_error / process.truth(n, statistic).standard_error - 1)
        for n in (500, 5000)
    ]
    assert gaps[1] < 1e-2 and gaps[1] < gaps[0]


def test_the_exact_se_of_the_mean_agrees_with_the_processs_own_paths():
    # 20,000 paths of n = 50 from AR1.sample (a short burn-in, 60 values, keeps it fast:
    # phi**120 of the start's deficit is left); the SD of the means has an MC SE of about
    # SD / sqrt(2 (draws - 1)) for a Gaussian statistic
    draws, n = 20_000, 50
    process = AR1(0.7, burn_in=60)
    means = np.array([process.sample(n, seed).mean() for seed in range(draws)])
    spread = means.std(ddof=1)
    error = spread / math.sqrt(2 * (draws - 1))
    exact = AR1(0.7, true_se="finite_n").truth(n).standard_error
    large = AR1(0.7).truth(n).standard_error
    assert abs(spread - exact) < 3 * error, (spread, exact, error)
    assert large - spread > 4 * error, (spread, large, error)  # the large-n SE is clearly too big


# ---------------------------------------------------------------------------------------
# Protocols


def _ci_text(dgp_line):
    """tests/protocols/CI-v1.toml with ``dgp_line`` added to its [dgp] table."""
    with open(CI_PROTOCOL, encoding="utf-8") as stream:
        return stream.read().replace('name = "ar1"\n', f'name = "ar1"\n{dgp_line}\n', 1)


def test_a_protocol_with_true_se_finite_n_runs_on_the_exact_se():
    found = protocol.parse(_ci_text('true_se = "finite_n"'), "CI-v1.toml")
    assert found.true_se == "finite_n"
    process = found.process()
    assert process == AR1(0.7, true_se="finite_n")
    for n in found.n:
        assert truth.truth_of(process, n, found.statistic) == AR1(0.7, true_se="finite_n").truth(n)


# A protocol of a few lines, for the refusals (CI-v1's calibrated kinds refuse most statistics first).
MINIMAL = """
id = "FN"
version = 1
registered = 2026-12-07
title = "true_se test"
claim = "Not a claim."

[dgp]
{process}
{true_se}
parameters = {parameters}
truth = "closed form"

[design]
statistic = "{statistic}"
n = [60]
series = 10
n_bootstraps = 99
alpha = 0.10
root_seed = 1

[[resamplers]]
name = "engine.MovingBlock(auto)"
engine = "MovingBlock"
kinds = ["percentile"]
"""


def _minimal(true_se=None, statistic="mean", process='name = "ar1"', parameters="{ phi = 0.7 }"):
    line = "" if true_se is None else f"true_se = {true_se}"
    text = MINIMAL.format(process=process, true_se=line, parameters=parameters, statistic=statistic)
    return protocol.parse(text, "FN-v1.toml")


def test_the_minimal_protocol_parses_with_each_value_and_without_the_key():
    assert [_minimal(value).true_se for value in (None, '"large_n"', '"finite_n"')] == [None, "large_n", "finite_n"]
    assert _minimal().process() == _minimal('"large_n"').process() == AR1(0.7)


@pytest.mark.parametrize("value", ['"exact"', '"Finite_n"', '""', "1", "true", '["finite_n"]'])
def test_a_bad_true_se_is_refused_naming_the_key_and_its_values(value):
    with pytest.raises(protocol.ProtocolError, match=r"\[dgp\]: true_se must be one of 'large_n', 'finite_n', got"):
        _minimal(value)


@pytest.mark.parametrize("statistic", ["median", "std", "quantile:0.9", "acf:1", "ar1_slope", "ar_coef"])
@pytest.mark.parametrize("process", ['name = "ar1"', 'name = "arma11"'])
def test_finite_n_with_a_statistic_without_a_finite_n_truth_is_refused_at_parse_time(statistic, process):
    parameters = "{ phi = 0.7 }" if "ar1" in process else "{ phi = 0.5, theta = 0.3 }"
    with pytest.raises(
        protocol.ProtocolError,
        match=rf"FN-v1.toml \[dgp\]: true_se = 'finite_n' gives the exact SE at n of the statistics mean, var "
        rf"only; '{statistic}' has no finite-n closed form: use true_se = 'large_n'",
    ):
        _minimal('"finite_n"', statistic, process, parameters)
    # the same protocol with the large-n SE (or without the key) parses
    assert _minimal('"large_n"', statistic, process, parameters).statistic == statistic
    assert _minimal(None, statistic, process, parameters).true_se is None


def test_true_se_with_a_users_process_is_refused_at_parse_time():
    for value in ('"finite_n"', '"large_n"'):
        with pytest.raises(protocol.ProtocolError, match=r"true_se is for the built-in processes; a process of your"):
            _minimal(value, process='callable = "mypkg.processes:AR1"')
    assert _minimal(process='callable = "mypkg.processes:AR1"').dgp_callable == "mypkg.processes:AR1"


def test_the_monte_carlo_process_takes_finite_n_as_what_it_is_and_refuses_large_n():
    options = {"statistic": "ar1_slope", "process": 'name = "heteroskedastic_ar1"', "parameters": "{ phi = 0.5 }"}
    plain, finite = _minimal(None, **options), _minimal('"finite_n"', **options)
    assert finite.process() == plain.process() == HeteroskedasticAR1(0.5)  # the same truth receipt
    with pytest.raises(protocol.ProtocolError, match="has no large-n SE: its SE is a Monte Carlo estimate at each n"):
        _minimal('"large_n"', **options)


def test_true_se_is_no_process_parameter_and_the_processes_check_it():
    with pytest.raises(InvalidParameterError, match="true_se is not a process parameter"):
        _minimal(parameters='{ phi = 0.7, true_se = "finite_n" }')
    with pytest.raises(InvalidParameterError, match="true_se: must be one of 'large_n', 'finite_n'"):
        AR3(0.5, -0.2, 0.1, true_se="exact")
    with pytest.raises(InvalidParameterError, match="ar1 with true_se='finite_n' has no exact finite-n SE for 'std'"):
        AR1(0.5, true_se="finite_n").truth(100, "std")
    assert dgp.has_truth(ARMA11(0.5, 0.3, true_se="finite_n"), "var")
    assert not dgp.has_truth(ARMA11(0.5, 0.3, true_se="finite_n"), "median")


def _committed_closed_form_cells():
    """(receipt name, protocol text, file name, cell) of every committed study receipt made
    on a built-in closed-form process (a forecast study's truth is the process's future)."""
    found = []
    for path in sorted(glob.glob(os.path.join(workspace.find().receipt_directory("study"), "study-*.json"))):
        body = receipts.load_receipt(path)["body"]
        dgp_table = tomllib.loads(body["study"]["protocol_text"]).get("dgp", {})
        if dgp_table.get("name") in ("ar1", "ar3", "arma11") and body["design"].get("target") != "forecast":
            for cell in body["results"]["cells"]:
                found.append((os.path.basename(path), body["study"]["protocol_text"], body["study"]["file"], cell))
    return found


COMMITTED = _committed_closed_form_cells()


def test_there_are_committed_receipts_to_compare_with():
    assert len(COMMITTED) >= 10 and {cell["n"] for *_, cell in COMMITTED} >= {50, 100, 200, 2000}


@pytest.mark.parametrize(
    ("name", "text", "file_name", "cell"), COMMITTED, ids=[f"{c[0]}-n{c[3]['n']}" for c in COMMITTED]
)
def test_a_protocol_without_the_key_keeps_the_truth_bits_its_receipts_store(name, text, file_name, cell):
    # every committed receipt embeds a protocol without true_se; its truth must not move a bit,
    # nor with true_se = "large_n" written out (the default, spelt)
    spelt = text.replace("[dgp]\n", '[dgp]\ntrue_se = "large_n"\n', 1)
    for version in (text, spelt):
        found = protocol.parse(version, file_name)
        stored = cell["truth"]
        got = truth.truth_of(found.process(), cell["n"], found.statistic)
        assert (got.value, got.standard_error, got.source, got.monte_carlo_error) == (
            stored["value"],
            stored["standard_error"],
            stored["source"],
            stored["monte_carlo_error"],
        ), name


def test_a_receipt_made_with_finite_n_carries_the_exact_truth_and_verifies(tmp_path):
    folder = tmp_path / "protocols"
    folder.mkdir()
    (folder / "CI-v1.toml").write_text(_ci_text('true_se = "finite_n"'), encoding="utf-8")
    found = protocol.load(str(folder / "CI-v1.toml"))
    body = runner.run_study(found, "tiny", run_directory=str(tmp_path / "run"), show_progress=False)
    (cell,) = body["results"]["cells"]
    exact = AR1(0.7, true_se="finite_n").truth(cell["n"])
    assert cell["truth"]["standard_error"] == exact.standard_error and cell["truth"]["source"] == exact.source
    # verify re-parses the embedded protocol text, so it recomputes the same exact truth
    path = receipts.write_receipt(receipts.seal("study", provenance.collect(), body), str(tmp_path / "out"))
    report = verify(path, sample=2, sample_seed=0, protocol_directory=str(folder))
    assert report.passed, report.render()
