"""The gate's second measure: instructions retired, counted under valgrind's cachegrind, and
the runner's load that tells when wall time is in doubt (bootmark.gate.instructions,
bootmark.core.runner_load).

Known answers come from construction: the slow-down commit makes ``demo.work`` run its loop
1.5x as many times, so its instructions per call grow by 1.5x (its set-up and call are a
few hundred instructions of several million); a process that is not ours, burning a core,
is one CPU of other load, and a child of ours burning one is none.

valgrind is a system package: these tests skip without it, and fail instead when
BOOTMARK_REQUIRE_VALGRIND=1 (set by .ci/run, which installs it).
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest
import test_gate
from test_gate import commit, gate, gate_receipts

from bootmark.core import receipts
from bootmark.core.runner_load import BUSY_CPUS, OtherLoad

REQUIRED = os.environ.get("BOOTMARK_REQUIRE_VALGRIND") == "1"
project = test_gate.project  # the fixture: a git repository with package demo and an asv suite


def _valgrind():
    if shutil.which("valgrind") is None:
        if REQUIRED:
            pytest.fail("valgrind is required (BOOTMARK_REQUIRE_VALGRIND=1) but not on PATH")
        pytest.skip("valgrind is not installed (Debian: apt-get install valgrind); instruction counts need it")


BURN = "import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end:\n    pass\n"


def _neighbour(seconds):
    """A process burning a core that is not ours: started by a shell that exits at once, so
    it is handed to init (or the nearest subreaper) and is nobody's child here."""
    started = subprocess.run(
        ["sh", "-c", f"{sys.executable} -c '{BURN.format(seconds=seconds)}' >/dev/null 2>&1 & echo $!"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(started.stdout)


def _stop(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@pytest.mark.skipif(not os.path.exists("/proc/stat"), reason="the runner's load is read from Linux's /proc")
def test_the_load_of_other_processes_counts_a_neighbour_and_not_our_own_children():
    own = subprocess.Popen([sys.executable, "-c", BURN.format(seconds=30)])
    try:
        load = OtherLoad()
        time.sleep(2.0)
        ours = load.other_cpus()
    finally:
        own.kill()
        own.wait()
    neighbour = _neighbour(30)
    try:
        load = OtherLoad()
        time.sleep(2.0)
        theirs = load.other_cpus()
    finally:
        _stop(neighbour)
    # one core burnt elsewhere reads about 1.0; our own child's core is subtracted
    assert theirs > 0.7, theirs
    assert theirs - ours > 0.6, (ours, theirs)
    assert ours < BUSY_CPUS or theirs - ours > 0.6


def test_counts_that_do_not_repeat_decide_nothing(monkeypatch):
    from types import SimpleNamespace

    from bootmark.gate import instructions
    from bootmark.gate.suite import WorkerFailure

    cell = SimpleNamespace(benchmark=SimpleNamespace(name="b.time_x", timeout=60), index=0)
    totals = {1: 1_000_000, 2: 1_200_000, 3: 1_400_000}  # 200,000 a sample, twice
    monkeypatch.setattr(instructions, "_instructions", lambda start, cell, number, samples: totals[samples])
    count = instructions.count_cell({"baseline": None, "current": None}, cell, 10, "valgrind")
    assert (count.baseline, count.current, count.ratio) == (20_000.0, 20_000.0, 1.0)
    totals[3] = 1_450_000  # the third sample retired 25% more than the second: a spinning thread
    with pytest.raises(WorkerFailure, match="not repeatable"):
        instructions.count_cell({"baseline": None, "current": None}, cell, 10, "valgrind")


def _slowed(project):
    package = project / "demo" / "__init__.py"
    package.write_text(package.read_text().replace("WORK = 6000", "WORK = 9000"))
    commit(project, "B: work() does 1.5x the work")


def _receipt(project):
    (name,) = gate_receipts(project)
    # loading validates it against gate.schema.json
    return receipts.load_receipt(str(project / "receipts" / "gate" / name))["body"]


def test_instructions_settle_a_slowdown_at_its_true_factor_and_the_receipt_says_so(project):
    _valgrind()
    _slowed(project)
    completed = gate(project, "--baseline", "HEAD~1", "--bench", r"time_work$|time_other$", "--instructions", "always")
    assert completed.returncode == 1, completed.stdout + completed.stderr
    body = _receipt(project)
    cells = {cell["label"]: cell for cell in body["cells"]}
    work = cells["bench_demo.time_work"]
    assert (work["status"], work["decided_by"]) == ("regression", "instructions"), work
    # deterministic: 1.5x the loop is 1.5x the instructions, to three digits
    assert 1.49 < work["instructions"]["ratio"] < 1.51, work["instructions"]
    assert "decided by instructions retired" in work["note"]
    other = cells["bench_demo.time_other"]
    assert other["status"] in ("same", "unconfirmed")
    if other["decided_by"] == "instructions":  # flagged by wall time, cleared by its instructions
        assert 0.99 < other["instructions"]["ratio"] < 1.01
    assert body["runner"]["instructions"] == "always" and body["runner"]["counter"].startswith("valgrind")
    assert "decided by instructions 1.5" in completed.stdout  # the report's ratio column


def test_on_a_busy_runner_the_flagged_cells_are_settled_by_instructions(project):
    _valgrind()
    _slowed(project)
    neighbour = _neighbour(900)
    try:
        completed = gate(project, "--baseline", "HEAD~1", "--bench", r"time_work$|time_other$")
    finally:
        _stop(neighbour)
    assert completed.returncode == 1, completed.stdout + completed.stderr
    body = _receipt(project)
    assert body["runner"]["busy"] and body["runner"]["other_cpus"] > 0.7, body["runner"]
    cells = {cell["label"]: cell for cell in body["cells"]}
    assert cells["bench_demo.time_work"]["decided_by"] == "instructions", cells["bench_demo.time_work"]
    assert cells["bench_demo.time_other"]["status"] in ("same", "unconfirmed")
    assert "The runner was busy" in completed.stdout


def test_a_quiet_runner_keeps_wall_times_word_on_the_cells_it_decided(project):
    _slowed(project)
    completed = gate(project, "--baseline", "HEAD~1", "--bench", r"time_work$", "--format", "json", "--no-receipt")
    assert completed.returncode == 1, completed.stdout + completed.stderr
    body = json.loads(completed.stdout)
    (work,) = body["cells"]
    if body["runner"]["busy"]:
        pytest.skip(f"the machine is busy now (other processes used {body['runner']['other_cpus']:.2f} CPUs)")
    assert (work["status"], work["decided_by"]) == ("regression", "wall time")
    assert "instructions" not in work
