"""Both sides of a comparison on one CPU (bootmark.core.cpus), and the gate using it.

Why it matters: unpinned, each gate worker keeps its own virtual CPU, and on a shared box
the CPUs run tens of percent apart in stretches, so test_gate_projects' slowed tests read as
"same" now and then. How often is a property of the neighbours, not a test; these tests pin
down the mechanism: which threads are pinned, which cells, and that everything is let go
afterwards.
"""

import json
import os
import subprocess
import sys
import textwrap
import time

import pytest
from test_gate import commit, gate
from test_gate_projects import _repository

from bootmark.core import cpus

needs_two_cpus = pytest.mark.skipif(
    len(cpus.allowed_cpus()) < 2, reason="pinning is only observable with two CPUs or more (Linux affinity)"
)

# A child with a second thread started before it is pinned: it prints, on request, the
# affinity of each of its threads.
CHILD = textwrap.dedent(
    """
    import os, sys, threading
    stop = threading.Event()
    helper = threading.Thread(target=stop.wait, daemon=True)
    helper.start()
    print("ready", flush=True)
    for line in sys.stdin:
        tasks = sorted(int(task) for task in os.listdir(f"/proc/{os.getpid()}/task"))
        print(" ".join(str(len(os.sched_getaffinity(task))) for task in tasks), flush=True)
    """
)


@needs_two_cpus
def test_pinning_reaches_every_thread_and_release_gives_every_cpu_back():
    child = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready"

        def affinities():
            child.stdin.write("?\n")
            child.stdin.flush()
            return [int(count) for count in child.stdout.readline().split()]

        everything = len(cpus.allowed_cpus())
        assert affinities() == [everything, everything]
        shared = cpus.SharedCpu([child.pid], turn=1)
        assert shared.cpu == cpus.allowed_cpus()[1]
        shared.pin()
        assert affinities() == [1, 1]  # the helper thread too, not only the main one
        shared.release()
        assert affinities() == [everything, everything]
    finally:
        child.kill()
        child.wait()


def test_a_dead_process_is_left_to_its_next_reply():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    shared = cpus.SharedCpu([child.pid], turn=0)
    shared.pin()  # no error: the gate reports a dead worker from its next reply
    shared.release()


def test_a_sample_is_single_threaded_below_the_share():
    assert cpus.single_threaded(0.0125, 0.0100)
    assert not cpus.single_threaded(0.0140, 0.0100)
    assert cpus.single_threaded(0.0, 0.0)


# Each benchmark records, on every call, how many CPUs its process may use; one hashes on
# two threads at once (hashlib lets go of the GIL), so its process uses two CPUs.
AFFINITY_SUITE = """
import hashlib
import os
import threading

LOG = os.environ["AFFINITY_LOG"]
DATA = b"x" * 8_000_000  # written, so that no first touch of its pages lands in a call


def _record(name):
    with open(LOG, "a") as stream:
        stream.write(f"{name} {os.getpid()} {len(os.sched_getaffinity(0))}\\n")


def time_one_thread():
    _record("one")
    sum(index % 7 for index in range(20000))


def time_two_threads():
    _record("two")
    threads = [threading.Thread(target=lambda: hashlib.sha256(DATA).digest()) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
"""


def _affinity_project(tmp_path):
    root = tmp_path / "project"
    (root / "benchmarks").mkdir(parents=True)
    (root / "benchmarks" / "__init__.py").write_text("")
    (root / "benchmarks" / "bench_affinity.py").write_text(AFFINITY_SUITE)
    (root / "asv.conf.json").write_text('{"version": 1, "benchmark_dir": "benchmarks"}\n')
    _repository(root)  # commit A
    (root / "README.md").write_text("no code changed\n")
    commit(root, "B")
    return root


def _affinities(log):
    seen = {"one": [], "two": []}
    for line in log.read_text().splitlines():
        name, _pid, allowed = line.split()
        seen[name].append(int(allowed))
    return seen


@needs_two_cpus
def test_the_gate_pins_single_threaded_cells_and_leaves_parallel_ones_spread(tmp_path):
    root = _affinity_project(tmp_path)
    log = tmp_path / "affinity.log"
    completed = gate(
        root, "--baseline", "HEAD~1", "--no-receipt", "--format", "json", environment={"AFFINITY_LOG": str(log)}
    )
    assert completed.returncode in (0, 1), completed.stdout + completed.stderr
    statuses = {cell["label"]: cell["status"] for cell in json.loads(completed.stdout)["cells"]}
    assert set(statuses) == {"bench_affinity.time_one_thread", "bench_affinity.time_two_threads"}
    seen = _affinities(log)
    everything = len(cpus.allowed_cpus())
    # the probe and the warm-ups run free; the rounds (most of the calls) on one CPU
    assert seen["one"].count(1) > len(seen["one"]) / 2 and everything in seen["one"]
    # a parallel cell is never squeezed onto one CPU, and it comes after a pinned one: the
    # workers were let go in between
    assert seen["two"] and set(seen["two"]) == {everything}


def test_the_worker_reports_its_cpu_time_with_each_time_sample():
    from bootmark.gate import worker

    class Prepared:
        def timed(self, number):
            deadline = time.perf_counter() + 0.01
            while time.perf_counter() < deadline:
                pass
            return 0.01

    channel = worker.Channel(None, None)
    reply = channel.answer({"op": "time", "number": 1}, Prepared())
    assert reply["seconds"] == 0.01 and reply["wall_seconds"] >= 0.01
    assert 0.5 < reply["cpu_seconds"] / reply["wall_seconds"] < cpus.SINGLE_THREAD_SHARE
    assert os.sched_getaffinity(0) == set(cpus.allowed_cpus())  # nothing here pinned the test process
