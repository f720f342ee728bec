"""asv benchmarks of the engine: time, peak memory and speed-up over arch.

The settled head-to-head grid with receipts is ``bootmark bench``; these benchmarks let
``asv continuous`` compare the engine between two commits with asv's own statistics.
Methods and the arch call are the bench grid's own (``bootmark.bench.grid``).
"""

import statistics
import time

import numpy as np

from bootmark import engine

# The benchmark code comes from the current tree for both sides of a comparison (as in
# asv), so it must import the bench grid from revisions of either layout: the grid is
# bootmark.bench.grid since the harness was split into rooms, bootmark.bench before.
try:
    from bootmark.bench.grid import METHODS, SCALE_CELLS, arch_path, engine_method, materialize_timed
except ModuleNotFoundError:  # a revision before the rooms: bootmark.bench is the grid module
    from bootmark.bench import METHODS, SCALE_CELLS, arch_path, engine_method, materialize_timed


class EnginePaths:
    """Wall time of the fused reduce and of materializing, per method and n (B = 999)."""

    params = (METHODS, [200, 2000])
    param_names = ["method", "n"]

    def setup(self, name, n):
        self.x = np.random.default_rng(n).standard_normal(n)
        self.method = engine_method(name)
        engine.bootstrap_reduce(self.x, self.method, "mean", 20, seed=1)  # load or compile the kernels
        engine.bootstrap(self.x, self.method, 20, seed=1).values()

    def time_reduce_mean(self, name, n):
        engine.bootstrap_reduce(self.x, self.method, "mean", 999, seed=1)

    def time_materialize(self, name, n):
        engine.bootstrap(self.x, self.method, 999, seed=1).values()

    def peakmem_reduce_mean(self, name, n):
        engine.bootstrap_reduce(self.x, self.method, "mean", 999, seed=1)

    def peakmem_materialize(self, name, n):
        engine.bootstrap(self.x, self.method, 999, seed=1).values()


class EngineScale:
    """The bench grid's scale cells: n = 1e5 (B = 1000) and n = 1e6 (B = 100), the fused
    reduce per method, and materializing where B x n float64 fits the 1 GiB budget."""

    params = (METHODS, sorted({n for _, n, _ in SCALE_CELLS}))
    param_names = ["method", "n"]
    timeout = 600

    def setup(self, name, n):
        self.replicates = next(b for m, size, b in SCALE_CELLS if m == name and size == n)
        self.x = np.random.default_rng(n).standard_normal(n)
        self.method = engine_method(name)
        engine.bootstrap_reduce(self.x, self.method, "mean", 2, seed=1)  # load or compile the kernels

    def time_reduce_mean(self, name, n):
        engine.bootstrap_reduce(self.x, self.method, "mean", self.replicates, seed=1)

    def time_materialize(self, name, n):
        if materialize_timed(n, self.replicates):
            engine.bootstrap(self.x, self.method, self.replicates, seed=1).values()

    def peakmem_reduce_mean(self, name, n):
        engine.bootstrap_reduce(self.x, self.method, "mean", self.replicates, seed=1)


def _median_seconds(run, rounds=7):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


class SpeedupVsArch:
    """arch time / engine reduce time for the mean, n = 2000, B = 999 (> 1: engine faster),
    from interleaved rounds in one process, as ``bootmark bench`` times them."""

    params = (METHODS,)
    param_names = ["method"]
    unit = "x faster than arch"
    number = 1
    repeat = 1

    def setup(self, name):
        x = np.random.default_rng(2000).standard_normal(2000)
        method = engine_method(name)

        def ours():
            engine.bootstrap_reduce(x, method, "mean", 999, seed=1)
        self.paths = (arch_path(name, x, 999), ours)
        for run in self.paths:
            run()

    def track_speedup_vs_arch_mean(self, name):
        ratios = [_median_seconds(self.paths[0], 1) / _median_seconds(self.paths[1], 1) for _ in range(9)]
        return statistics.median(ratios)
