"""Bits that must not depend on the machine's BLAS (bootmark/core/blas.py).

numpy's bundled OpenBLAS picks a kernel per CPU at load time, and its kernels round
differently (Haswell vs SkylakeX ddot), as does its threaded ddot above 10,000 terms
(OPENBLAS_NUM_THREADS). Study receipts made on an AMD EPYC failed verify on an Intel Xeon
for exactly this reason. So:

* the engine's own arithmetic uses no BLAS: its standard error equals the reference's bit
  for bit, and its se and Politis-White estimates are the same under every kernel and
  BLAS thread count (child processes, since OpenBLAS reads its settings once);
* a study chunk refuses to run on another kernel than the pinned one, with the fix in
  the message, and ``bootmark study`` pins it itself.

Negative controls: ``np.dot`` on the same inputs does change with the BLAS thread count
(the test shows the difference it guards against), and a dot-product se differs from
the reference's.
"""

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bootmark.core import blas
from bootmark.engine import intervals as engine_intervals
from bootmark.reference import intervals as reference_intervals
from bootmark.studies import protocol, runner

TESTS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TESTS)
CI_PROTOCOL = os.path.join(TESTS, "protocols", "CI-v1.toml")

PROBE = """
import json, numpy as np
from bootmark.core import blas
from bootmark.engine import intervals, blocklength
rng = np.random.default_rng(7)
replicates = rng.standard_normal(50_000)
shocks, path = rng.standard_normal(30_000), np.empty(30_000)
path[0] = shocks[0]
for t in range(1, path.size):
    path[t] = 0.9 * path[t - 1] + shocks[t]
estimate = blocklength.optimal_block_length(path)
print(json.dumps({"kernel": blas.loaded_coretype(),
                  "se": repr(intervals.bootstrap_standard_error(replicates)),
                  "block": [repr(estimate.stationary), repr(estimate.circular)],
                  "dot": repr(float(np.dot(replicates, replicates)))}))
"""


def _probe(coretype, threads):
    environment = {**os.environ, blas.CORETYPE_VARIABLE: coretype, "OPENBLAS_NUM_THREADS": str(threads)}
    completed = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(completed.stdout.strip().splitlines()[-1])


def _dot_standard_error(replicates):
    """The engine's old se: the right centre, but the sum of squares from BLAS."""
    deviations = replicates - math.fsum(replicates.tolist()) / replicates.shape[0]
    return math.sqrt(float(np.dot(deviations, deviations)) / replicates.shape[0])


@settings(deadline=None, max_examples=60)
@given(st.integers(1, 60_000), st.integers(0, 2**32 - 1), st.floats(-1e6, 1e6), st.floats(1e-6, 1e6))
def test_engine_standard_error_is_the_reference_bit_for_bit(count, seed, loc, scale):
    replicates = loc + scale * np.random.default_rng(seed).standard_normal(count)
    assert engine_intervals.bootstrap_standard_error(replicates) == reference_intervals.bootstrap_standard_error(
        replicates.tolist()
    )


def test_negative_control_a_blas_sum_of_squares_is_not_the_reference():
    rng = np.random.default_rng(11)
    cases = [rng.standard_normal(999) for _ in range(20)]
    differing = sum(_dot_standard_error(c) != reference_intervals.bootstrap_standard_error(c.tolist()) for c in cases)
    assert differing > 0


def _has_avx512():
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            return any(line.startswith("flags") and " avx512f" in line for line in cpuinfo)
    except OSError:
        return False


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="OpenBLAS threads its ddot only with two or more cores")
def test_engine_bits_ignore_the_blas_kernel_and_thread_count():
    # SkylakeX's kernel needs AVX-512: forced on a CPU without it (AMD EPYC) it dies with SIGILL.
    settings = [(blas.PINNED_CORETYPE, 1), (blas.PINNED_CORETYPE, 2), ("Sandybridge", 1), ("Sandybridge", 2)]
    if _has_avx512():
        settings.append(("SkylakeX", 1))
    runs = [_probe(coretype, threads) for coretype, threads in settings]
    assert runs[0]["kernel"] == blas.PINNED_CORETYPE
    for run in runs[1:]:
        assert (run["se"], run["block"]) == (runs[0]["se"], runs[0]["block"]), (run, runs[0])
    # Negative control: what the engine no longer calls does change under these settings.
    assert len({run["dot"] for run in runs}) > 1, runs


def test_this_test_process_runs_the_pinned_kernel():
    assert blas.loaded_coretype() == blas.PINNED_CORETYPE and blas.kernel_problem() is None


def test_a_study_chunk_refuses_another_kernel():
    script = (
        "import sys; from studies import protocol, runner\n"
        f"p = protocol.load({CI_PROTOCOL!r})\n"
        "try:\n    runner.run_chunk(p.text, p.file_name, 'registered', 60, 0, 1)\n"
        "except runner.StudyError as error:\n    print('REFUSED', error); sys.exit(0)\n"
        "print('RAN'); sys.exit(1)\n"
    )
    environment = {**os.environ, blas.CORETYPE_VARIABLE: "Sandybridge"}
    completed = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=300
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "Sandybridge kernel" in completed.stdout and "OPENBLAS_CORETYPE=Haswell" in completed.stdout


def test_kernel_problem_names_the_fix(monkeypatch):
    monkeypatch.setattr(blas, "loaded_coretype", lambda: "Zen")
    assert "start the process with OPENBLAS_CORETYPE=Haswell" in blas.kernel_problem()
    monkeypatch.setattr(blas, "loaded_coretype", lambda: None)
    assert "bundled OpenBLAS" in blas.kernel_problem()
    # The pinned process itself computes a chunk.
    monkeypatch.undo()
    found = protocol.load(CI_PROTOCOL)
    chunk = runner.run_chunk(found.text, found.file_name, "tiny", 60, 0, 1)
    assert chunk["columns"]["engine.IID"]["point"]


def test_pinned_environment_sets_only_the_kernel():
    pinned = blas.pinned_environment({"PATH": "/bin", blas.CORETYPE_VARIABLE: "SkylakeX"})
    assert pinned == {"PATH": "/bin", blas.CORETYPE_VARIABLE: blas.PINNED_CORETYPE}
