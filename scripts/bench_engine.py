"""Head-to-head timing of the engine against arch and tsbootstrap, settled medians.

For every cell of {IID, moving, circular, stationary} x n x B (block length 10, mean 10
for stationary) it times, in one process and one run:

* engine reduce:       engine.bootstrap_reduce(x, method, "mean", B)
* engine materialize:  engine.bootstrap(x, method, B).values().mean(axis=1)
* arch:                XBootstrap(..., x).apply(np.mean, reps=B)            (arch 8.0.0)
* tsbootstrap:         bootstrap_reduce(x, method=..., statistic="mean", backend="compiled")

Each path gets untimed warm-ups at the real shape, then ``--samples`` rounds in which
every path runs once, in the same order, so a busy moment lands on all of them. Ratios
are medians of per-round ratios (adjacent samples). For IID cells the Philox floor is
timed too: generating the n x B words and nothing else.

This is the issue-3 measurement script; the receipt-writing harness is ``bootmark bench``.

    .venv/bin/python scripts/bench_engine.py                 # the full grid
    .venv/bin/python scripts/bench_engine.py --cells n=200   # a filter
"""

import argparse
import os
import statistics
import sys
import time

# Idle OpenMP workers (tsbootstrap's kernels, the Philox floor) otherwise spin for a while
# after each parallel region and steal the cores from whichever path runs next.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".venv",
                                                      "numba-cache"))

import numba  # noqa: E402
import numpy as np  # noqa: E402
from numba import njit, prange  # noqa: E402

import engine  # noqa: E402
from engine.draws import refill  # noqa: E402

METHODS = ("iid", "moving", "circular", "stationary")
SIZES = (200, 2000, 10000)
REPLICATES = (999, 10000)
BLOCK = 10


@njit(cache=True, parallel=True)
def _philox_floor(n, n_bootstraps):
    checksum = np.zeros(n_bootstraps, dtype=np.uint64)
    words = 4 * ((n + 3) // 4)
    for r in prange(n_bootstraps):
        buffer = np.empty(words, dtype=np.uint64)
        state = np.zeros(2, dtype=np.int64)
        refill(buffer, state, np.uint64(r), np.uint64(12345), np.uint64(1))
        accumulator = np.uint64(0)
        for i in range(n):
            accumulator ^= buffer[i]
        checksum[r] = accumulator
    return checksum


def engine_method(name):
    return {"iid": engine.IID(), "moving": engine.MovingBlock(BLOCK), "circular": engine.CircularBlock(BLOCK),
            "stationary": engine.StationaryBlock(BLOCK)}[name]


def arch_runner(name, x, n_bootstraps):
    from arch.bootstrap import CircularBlockBootstrap, IIDBootstrap, MovingBlockBootstrap, StationaryBootstrap

    def run():
        if name == "iid":
            bootstrap = IIDBootstrap(x, seed=1)
        else:
            kind = {"moving": MovingBlockBootstrap, "circular": CircularBlockBootstrap,
                    "stationary": StationaryBootstrap}[name]
            bootstrap = kind(BLOCK, x, seed=1)
        return bootstrap.apply(np.mean, reps=n_bootstraps)
    return run


def tsbootstrap_runner(name, x, n_bootstraps):
    try:
        import tsbootstrap as tb
    except ImportError:
        return None
    method = {"iid": lambda: tb.IID(), "moving": lambda: tb.MovingBlock(block_length=BLOCK),
              "circular": lambda: tb.CircularBlock(block_length=BLOCK),
              "stationary": lambda: tb.StationaryBlock(avg_block_length=BLOCK)}[name]()

    def run():
        return tb.bootstrap_reduce(x, method=method, statistic="mean", n_bootstraps=n_bootstraps,
                                   random_state=1, backend="compiled")
    return run


def cell_paths(name, n, n_bootstraps):
    x = np.random.default_rng(n).standard_normal(n)
    method = engine_method(name)
    paths = {
        "engine_reduce": lambda: engine.bootstrap_reduce(x, method, "mean", n_bootstraps, seed=1),
        "engine_materialize": lambda: engine.bootstrap(x, method, n_bootstraps, seed=1,
                                                       memory_budget=8 << 30).values().mean(axis=1),
        "arch": arch_runner(name, x, n_bootstraps),
    }
    peer = tsbootstrap_runner(name, x, n_bootstraps)
    if peer is not None:
        paths["tsbootstrap"] = peer
    if name == "iid":
        paths["philox_floor"] = lambda: _philox_floor(n, n_bootstraps)
    return paths


def time_cell(paths, warmups, samples):
    for run in paths.values():
        for _ in range(warmups):
            run()
    times = {name: [] for name in paths}
    for _ in range(samples):
        for name, run in paths.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return times


def summarise(times):
    reduce_times = times["engine_reduce"]
    row = {name: (statistics.median(t) * 1e3, min(t) * 1e3) for name, t in times.items()}
    ratios = {name: statistics.median(a / b for a, b in zip(t, reduce_times))
              for name, t in times.items() if name != "engine_reduce"}
    return row, ratios


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cells", default="", help="comma-separated filters such as n=200,method=iid,B=999")
    parser.add_argument("--warmups", type=int, default=3)
    parser.add_argument("--samples", type=int, default=15)
    args = parser.parse_args(argv)
    filters = dict(part.split("=") for part in args.cells.split(",") if part)
    print(f"numba threads {numba.get_num_threads()}; OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']}; "
          f"{args.warmups} warm-ups, {args.samples} interleaved samples; times are median (min) ms; "
          "ratios are medians of per-round ratios to engine reduce (>1: engine reduce faster)")
    header = (f"{'method':<11}{'n':>6}{'B':>7} | {'reduce':>15}{'materialize':>16}{'arch':>17}{'tsbootstrap':>17}"
              f" | {'arch/red':>9}{'tsb/red':>9}{'arch/mat':>9}{'red/floor':>10}")
    print(header)
    print("-" * len(header))
    for name in METHODS:
        for n in SIZES:
            for n_bootstraps in REPLICATES:
                cell = {"method": name, "n": str(n), "B": str(n_bootstraps)}
                if any(cell.get(key) != value for key, value in filters.items()):
                    continue
                times = time_cell(cell_paths(name, n, n_bootstraps), args.warmups, args.samples)
                row, ratios = summarise(times)

                def show(path):
                    return f"{row[path][0]:8.1f} ({row[path][1]:5.1f})" if path in row else f"{'skipped':>15}"

                arch_over_materialize = statistics.median(
                    a / m for a, m in zip(times["arch"], times["engine_materialize"]))
                floor = f"{1 / ratios['philox_floor']:10.2f}" if "philox_floor" in ratios else f"{'':>10}"
                tsb = f"{ratios['tsbootstrap']:9.1f}" if "tsbootstrap" in ratios else f"{'-':>9}"
                print(f"{name:<11}{n:>6}{n_bootstraps:>7} | {show('engine_reduce')} {show('engine_materialize')}"
                      f"  {show('arch')}  {show('tsbootstrap')} | {ratios['arch']:9.1f}{tsb}"
                      f"{arch_over_materialize:9.2f}{floor}", flush=True)
    print(f"threading layer: {numba.threading_layer()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
