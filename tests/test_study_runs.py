"""Study runs end to end on a small protocol (tests/protocols/CI-v1.toml).

* The results (and their hash) are identical from 1 process, 2 processes and a Dask
  LocalCluster.
* A run killed with SIGKILL midway resumes to the same results.
* Tripwires stop garbage; verify replays series bit for bit and catches a tampered one.
* Committed study receipts match their registered protocols (protocols are immutable).
"""

import glob
import json
import math
import os
import signal
import subprocess
import sys
import time

import pytest

from bootmark.core import blas, receipts, workspace
from bootmark.studies import evaluate, protocol, runner
from bootmark.studies.verify import verify

TESTS = os.path.dirname(os.path.abspath(__file__))
CI_PROTOCOL = os.path.join(TESTS, "protocols", "CI-v1.toml")
ROOT = os.path.dirname(TESTS)


@pytest.fixture(scope="module")
def ci_protocol():
    return protocol.load(CI_PROTOCOL)


@pytest.fixture(scope="module")
def in_process_body(ci_protocol, tmp_path_factory):
    directory = tmp_path_factory.mktemp("run") / "one"
    return runner.run_study(ci_protocol, workers=1, run_directory=str(directory), show_progress=False)


def _seal(body, tmp_path):
    from bootmark.core import provenance

    return receipts.write_receipt(receipts.seal("study", provenance.collect(), body), str(tmp_path))


def test_results_identical_across_processes(ci_protocol, in_process_body, tmp_path):
    pooled = runner.run_study(ci_protocol, workers=2, run_directory=str(tmp_path / "two"), show_progress=False)
    assert pooled["execution"]["executor"] == "processes"
    assert pooled["results"] == in_process_body["results"]
    assert pooled["results_sha256"] == in_process_body["results_sha256"]


def test_results_identical_on_a_dask_local_cluster(ci_protocol, in_process_body, tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        body = runner.run_study(
            ci_protocol, scheduler=cluster.scheduler_address, run_directory=str(tmp_path / "dask"), show_progress=False
        )
    assert body["execution"]["executor"] == "dask"
    assert body["results"] == in_process_body["results"]
    assert body["results_sha256"] == in_process_body["results_sha256"]


def test_a_different_root_seed_changes_the_results(ci_protocol, in_process_body, tmp_path):
    # Negative control for the identity tests: they compare something that can differ.
    text = ci_protocol.text.replace("root_seed = 20261202", "root_seed = 20261203")
    other = runner.run_study(
        protocol.parse(text, "CI-v1.toml"), workers=1, run_directory=str(tmp_path / "o"), show_progress=False
    )
    assert other["results_sha256"] != in_process_body["results_sha256"]


def test_killed_run_resumes_to_the_same_results(ci_protocol, in_process_body, tmp_path):
    run_directory, output = tmp_path / "killed", tmp_path / "receipts"
    arguments = ["study", "run", CI_PROTOCOL, "--run-dir", str(run_directory), "--output-dir", str(output)]
    command = [sys.executable, "-m", "bootmark.cli.main", *arguments, "--no-progress"]
    # The command line, in a child whose chunks each take 0.4 s longer (wrapped here, in
    # the test: the runner has no switch for it), so the kill lands mid-run.
    script = (
        "import sys, time\nfrom bootmark.cli.main import main\nfrom bootmark.studies import runner\n"
        "chunk = runner.run_chunk\n"
        "runner.run_chunk = lambda *a: (time.sleep(0.4), chunk(*a))[1]\n"
        f"sys.exit(main({arguments + ['--no-progress']!r}))"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 120
    while len(glob.glob(str(run_directory / "chunk-*.json"))) < 3 and time.monotonic() < deadline:
        assert child.poll() is None, child.stderr.read().decode()
        time.sleep(0.05)
    assert child.poll() is None, "the run finished before it could be killed"
    child.send_signal(signal.SIGKILL)
    child.wait()
    done = len(glob.glob(str(run_directory / "chunk-*.json")))
    assert 3 <= done < len(runner.chunks(ci_protocol, ci_protocol.profile()))
    assert not glob.glob(str(output / "*.json")), "a killed run wrote a receipt"

    refused = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert refused.returncode == 3 and "--resume" in refused.stderr

    resumed = subprocess.run(command + ["--resume"], cwd=ROOT, capture_output=True, text=True)
    assert resumed.returncode in (0, 1), resumed.stderr
    [path] = glob.glob(str(output / "study-CI-v1-registered-*.json"))
    body = receipts.load_receipt(path)["body"]
    assert body["execution"]["resumed_chunks"] == done
    assert body["results"] == in_process_body["results"]


def test_resume_refuses_a_changed_protocol(ci_protocol, tmp_path):
    directory = tmp_path / "run"
    runner.run_study(ci_protocol, "tiny", run_directory=str(directory), show_progress=False)
    changed = protocol.parse(ci_protocol.text.replace("n_bootstraps = 99", "n_bootstraps = 98"), "CI-v1.toml")
    with pytest.raises(runner.StudyError, match="protocol_sha256"):
        runner.run_study(changed, "tiny", run_directory=str(directory), resume=True, show_progress=False)


def _constant_outcome(width):
    def fake(spec, x, protocol_, seed, prepared=None):
        return evaluate.Outcome(0.0, 1.0, 1.0, tuple((kind, 0.0, width) for kind in spec.kinds))

    return fake


@pytest.mark.parametrize("width, message", [(0.0, "zero-width"), (1.0, "all identical")])
def test_tripwire_stops_garbage(ci_protocol, tmp_path, monkeypatch, width, message):
    monkeypatch.setattr(runner, "evaluate", _constant_outcome(width))
    with pytest.raises(runner.TripwireError, match=message):
        runner.run_study(ci_protocol, run_directory=str(tmp_path / "trip"), show_progress=False)


def test_non_finite_outcome_stops_the_run(ci_protocol, tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "evaluate", _constant_outcome(float("nan")))
    with pytest.raises(runner.StudyError, match="non-finite"):
        runner.run_study(ci_protocol, run_directory=str(tmp_path / "nan"), show_progress=False)


def test_tripwire_passes_real_intervals(in_process_body):
    assert all(row["trials"] == 30 for row in in_process_body["results"]["coverage"])


def test_verify_replays_and_catches_a_tampered_series(in_process_body, tmp_path):
    path = _seal(in_process_body, tmp_path)
    passed = verify(path, replay_all=True)
    assert passed.passed, passed.render()
    tampered = json.loads(json.dumps(in_process_body))
    bounds = tampered["results"]["cells"][1]["resamplers"]["engine.MovingBlock(auto)"]["intervals"]["calibrated"]
    bounds["upper"][7] += 2.0**-40
    # Re-summarise honestly so only the replay can notice the changed bound.
    tampered["results"] = runner.results_of(
        protocol.load(CI_PROTOCOL),
        protocol.load(CI_PROTOCOL).profile(),
        {
            (cell["n"], 0): {"n": cell["n"], "first": 0, "last": 30, "columns": cell["resamplers"]}
            for cell in tampered["results"]["cells"]
        },
    )
    tampered["results_sha256"] = runner.results_hash(tampered["results"])
    caught = verify(_seal(tampered, tmp_path / "t"), replay_all=True)
    assert not caught.passed and "n=120 series 7" in caught.render()


def test_verify_catches_an_edited_summary(in_process_body, tmp_path):
    edited = json.loads(json.dumps(in_process_body))
    edited["results"]["coverage"][0]["coverage"] = 0.9
    report_ = verify(_seal(edited, tmp_path), sample=2, sample_seed=1)
    assert not report_.passed and "recomputed" in report_.render()


@pytest.mark.parametrize("verbose", [True, False])
def test_study_command_pins_the_blas_kernel_itself(in_process_body, tmp_path, verbose):
    # Started on another kernel than the pinned one, the command re-executes itself pinned
    # and the receipt replays; it says so only with --verbose. Sandybridge runs on any
    # x86-64 with AVX; merely unsetting the variable is not enough where the CPU's own
    # kernel is already the pinned one (AMD EPYC).
    path = _seal(in_process_body, tmp_path)
    command = os.path.join(os.path.dirname(sys.executable), "bootmark")
    environment = {**os.environ, blas.CORETYPE_VARIABLE: "Sandybridge"}
    completed = subprocess.run(
        [command, "study", "verify", path, "--sample", "3", "--sample-seed", "1", *(["--verbose"] * verbose)],
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    said = f"re-running with {blas.CORETYPE_VARIABLE}={blas.PINNED_CORETYPE}" in completed.stderr
    assert said == verbose, completed.stderr
    assert "3 series replayed bit for bit" in completed.stdout


def test_verify_recomputes_a_truth_receipt_and_catches_a_changed_one(tmp_path):
    from bootmark.studies import dgp, truth

    truth.heteroskedastic_slope_truth(dgp.HeteroskedasticAR1(), 80, draws=3000, seed=5, directory=str(tmp_path / "a"))
    [path] = glob.glob(str(tmp_path / "a" / "*.json"))
    report_ = verify(path)
    assert report_.passed and "3,000 draws recomputed bit for bit" in report_.render(), report_.render()
    receipt = receipts.load_receipt(path)
    body = receipt["body"]
    body["standard_deviation"] = math.nextafter(body["standard_deviation"], 1.0)
    changed = receipts.write_receipt(receipts.seal("truth", receipt["provenance"], body), str(tmp_path / "b"))
    assert not verify(changed).passed


def test_committed_receipts_match_their_registered_protocols():
    # Protocol immutability: a protocol with a committed receipt is never edited.
    paths = sorted(
        glob.glob(os.path.join(workspace.find().receipt_directory("study"), "study-*.json"))
        + glob.glob(os.path.join(workspace.find().receipt_directory("study"), "process-*.json"))
    )
    assert paths, "no committed study receipt"
    by_file = {p.file_name: p for p in protocol.registered()}
    for path in paths:
        study = receipts.load_receipt(path)["body"]["study"]
        assert study["file"] in by_file, f"{path}: its protocol {study['file']} is gone"
        assert by_file[study["file"]].sha256 == study["protocol_sha256"], (
            f"{study['file']} was edited after {os.path.basename(path)} was made; register a new version"
        )


def test_immutability_check_notices_an_edit(tmp_path, in_process_body):
    # Negative control: a receipt whose protocol file changed fails verify.
    os.makedirs(tmp_path / "protocols")
    edited = in_process_body["study"]["protocol_text"].replace("Runner test", "Runner test (edited)")
    (tmp_path / "protocols" / "CI-v1.toml").write_text(edited)
    found = verify(
        _seal(in_process_body, tmp_path), sample=1, sample_seed=0, protocol_directory=str(tmp_path / "protocols")
    )
    assert not found.passed and "edited after this receipt" in found.render()


def test_an_unreachable_scheduler_is_a_clear_error(ci_protocol, tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(runner, "DASK_CONNECT_SECONDS", 2)
    with pytest.raises(runner.StudyError, match="cannot reach the dask scheduler"):
        runner.run_study(
            ci_protocol, "tiny", scheduler="tcp://127.0.0.1:9", run_directory=str(tmp_path / "d"), show_progress=False
        )
