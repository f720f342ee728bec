"""Peak resident memory of the reduce and materialize paths, each in a fresh process.

Each point starts a new interpreter that imports the engine and warms its kernels on a
tiny problem (loading them from the on-disk cache), reads its RSS high-water mark
(ru_maxrss), runs the request, and reads the high-water mark again: the difference is
what the request itself added at its peak.

    .venv/bin/python scripts/memory_engine.py            # B = 50,000, n = 2,000
"""

import json
import subprocess
import sys

PROGRAM = """
import json, resource, sys
import numpy as np
import engine
path, n, B = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
x = np.random.default_rng(0).standard_normal(n)
engine.bootstrap_reduce(x, engine.MovingBlock(10), "mean", 50, seed=1)
engine.bootstrap(x, engine.MovingBlock(10), 50, seed=1).values()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    if path == "reduce":
        result = engine.bootstrap_reduce(x, engine.MovingBlock(10), "mean", B, seed=1).statistics
    else:
        result = engine.bootstrap(x, engine.MovingBlock(10), B, seed=1, memory_budget=int(sys.argv[4])).values()
    outcome = "ok"
except engine.BootmarkError as error:
    outcome = str(error)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"path": path, "baseline_mib": before / 1024, "peak_mib": after / 1024,
                  "added_mib": (after - before) / 1024, "outcome": outcome}))
"""


def measure(path, n, n_bootstraps, budget=2**30):
    completed = subprocess.run([sys.executable, "-c", PROGRAM, path, str(n), str(n_bootstraps), str(budget)],
                               capture_output=True, text=True, check=True)
    return json.loads(completed.stdout)


def main(n=2000, n_bootstraps=50_000):
    measure("reduce", n, 10)  # populate the kernel cache outside the measured processes
    for path, budget in (("reduce", 2**30), ("materialize", 2**30), ("materialize", 256 * 2**20)):
        point = measure(path, n, n_bootstraps, budget)
        label = path if path == "reduce" else f"{path} (budget {budget / 2**20:.0f} MiB)"
        print(f"{label:<32} n={n} B={n_bootstraps}: +{point['added_mib']:8.1f} MiB over a baseline of "
              f"{point['baseline_mib']:.0f} MiB; {point['outcome'][:110]}")


if __name__ == "__main__":
    main()
