"""Cold- and warm-start time of the engine's first fused reduce, in fresh processes.

Cold: a new, empty NUMBA_CACHE_DIR, so every kernel the call needs is compiled. Warm:
the same directory again, so the kernels load from the on-disk cache. Each figure is
the median of several fresh processes; "in-process" counts from before ``import engine``
to the end of the first ``bootstrap_reduce(x, MovingBlock(10), "mean")`` call, "process"
adds interpreter start-up.

    .venv/bin/python scripts/cold_start.py
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
import engine
x = np.random.default_rng(0).standard_normal(2000)
engine.bootstrap_reduce(x, engine.MovingBlock(10), "mean", seed=1)
print(time.perf_counter() - start)
"""


def run(cache_dir):
    environment = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    start = time.perf_counter()
    completed = subprocess.run([sys.executable, "-c", PROGRAM], env=environment, capture_output=True, text=True,
                               check=True)
    return float(completed.stdout.strip()), time.perf_counter() - start


def main(cold_runs=3, warm_runs=5):
    cold, warm = [], []
    for _ in range(cold_runs):
        with tempfile.TemporaryDirectory() as cache_dir:
            cold.append(run(cache_dir))
            warm.extend(run(cache_dir) for _ in range(warm_runs))
    for label, samples in (("cold (empty cache)", cold), ("warm (cached)", warm)):
        inside = statistics.median(s[0] for s in samples)
        whole = statistics.median(s[1] for s in samples)
        print(f"{label:<20} in-process {inside:6.2f} s   process {whole:6.2f} s   "
              f"(median of {len(samples)}; min in-process {min(s[0] for s in samples):.2f} s)")


if __name__ == "__main__":
    main()
