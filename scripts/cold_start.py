"""Cold- and warm-start time of the engine's first fused reduce, in fresh processes.

Cold: a new, empty NUMBA_CACHE_DIR, so every kernel the call needs is compiled. Warm:
the same directory again, so the kernels load from the on-disk cache. Numba floor: the
warm start of a one-line cached ``@njit`` function (import numpy and numba, load it,
call it), which no Numba kernel can beat; it is timed in the same run, so the engine's
own share of the warm start is the difference. Each figure is
the median of several fresh processes; "in-process" counts from before ``import engine``
to the end of the first ``bootstrap_reduce(x, MovingBlock(10), "mean")`` call, "process"
adds interpreter start-up.

    .venv/bin/python scripts/cold_start.py

Run it with the interpreter of a plain ``pip install bootmark`` (no extras) to time what
a user of the engine alone gets.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

PROGRAM = """
import time
start = time.perf_counter()
import numpy as np
from bootmark import engine
x = np.random.default_rng(0).standard_normal(2000)
engine.bootstrap_reduce(x, engine.MovingBlock(10), "mean", seed=1)
print(time.perf_counter() - start)
"""


FLOOR_MODULE = """
from numba import njit


@njit(cache=True)
def total(values):
    return values.sum()
"""

FLOOR_PROGRAM = """
import time
start = time.perf_counter()
import numpy as np
import floor_module
floor_module.total(np.ones(3))
print(time.perf_counter() - start)
"""


def run(cache_dir, program=PROGRAM, path=None):
    environment = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    if path is not None:
        environment["PYTHONPATH"] = path
    start = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, "-c", program], env=environment, capture_output=True, text=True, check=True
    )
    return float(completed.stdout.strip()), time.perf_counter() - start


def main(cold_runs=3, warm_runs=5):
    cold, warm, floor = [], [], []
    for _ in range(cold_runs):
        with tempfile.TemporaryDirectory() as cache_dir, tempfile.TemporaryDirectory() as module_dir:
            with open(os.path.join(module_dir, "floor_module.py"), "w") as module:
                module.write(FLOOR_MODULE)
            cold.append(run(cache_dir))
            run(cache_dir, FLOOR_PROGRAM, module_dir)  # compiles the floor function
            for _ in range(warm_runs):  # interleaved, so a busy moment lands on both
                warm.append(run(cache_dir))
                floor.append(run(cache_dir, FLOOR_PROGRAM, module_dir))
    print(f"python {sys.version.split()[0]}; scipy installed: {_has('scipy')} (Numba imports scipy.linalg when it is)")
    for label, samples in (("cold (empty cache)", cold), ("warm (cached)", warm), ("numba floor (warm)", floor)):
        inside = statistics.median(s[0] for s in samples)
        whole = statistics.median(s[1] for s in samples)
        print(
            f"{label:<20} in-process {inside:6.2f} s   process {whole:6.2f} s   "
            f"(median of {len(samples)}; min in-process {min(s[0] for s in samples):.2f} s)"
        )


def _has(module):
    import importlib.util

    return importlib.util.find_spec(module) is not None


if __name__ == "__main__":
    main()
