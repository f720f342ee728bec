"""The reference twin is standard-library only: importing and running it loads no numpy."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

PROGRAM = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
import reference
x = [0.5, -1.0, 2.0, 0.25, 1.5, -0.75, 0.0, 1.0]
reference.conf_int(x, "mean", reference.StationaryBlock("auto"), n_bootstraps=50, seed=1)
reference.bootstrap(x, reference.TaperedBlock(3), n_bootstraps=5, seed=1).values()
heavy = sorted(m for m in sys.modules if m.split(".")[0] in {{"numpy", "numba", "scipy", "pandas"}})
print(",".join(heavy))
"""


def test_reference_runs_without_numpy_in_an_isolated_interpreter():
    completed = subprocess.run([sys.executable, "-I", "-c", PROGRAM], capture_output=True, text=True, check=True)
    assert completed.stdout.strip() == ""


def test_negative_control_the_probe_sees_numpy_when_it_is_loaded():
    completed = subprocess.run([sys.executable, "-I", "-c", "import numpy\n" + PROGRAM],
                               capture_output=True, text=True, check=True)
    assert "numpy" in completed.stdout
