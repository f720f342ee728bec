"""asv benchmarks of the engine: time, peak memory and speed-up over arch.

The settled head-to-head grid with receipts is ``bootmark bench``; these benchmarks let
``asv continuous`` compare the engine between two commits with asv's own statistics.
Block length 10 (mean 10 for stationary), as in the bench grid.
"""

import statistics
import time

import numpy as np

import engine

METHODS = ("iid", "moving", "circular", "stationary")
BLOCK_LENGTH = 10


def _method(name):
    return {"iid": engine.IID(), "moving": engine.MovingBlock(BLOCK_LENGTH),
            "circular": engine.CircularBlock(BLOCK_LENGTH), "stationary": engine.StationaryBlock(BLOCK_LENGTH)}[name]


class EnginePaths:
    """Wall time of the fused reduce and of materializing, per method and n (B = 999)."""

    params = (METHODS, [200, 2000])
    param_names = ["method", "n"]

    def setup(self, name, n):
        self.x = np.random.default_rng(n).standard_normal(n)
        self.method = _method(name)
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
        from arch.bootstrap import CircularBlockBootstrap, IIDBootstrap, MovingBlockBootstrap, StationaryBootstrap
        x = np.random.default_rng(2000).standard_normal(2000)
        method = _method(name)
        kind = {"iid": None, "moving": MovingBlockBootstrap, "circular": CircularBlockBootstrap,
                "stationary": StationaryBootstrap}[name]

        def arch():
            resampler = IIDBootstrap(x, seed=1) if kind is None else kind(BLOCK_LENGTH, x, seed=1)
            resampler.apply(np.mean, reps=999)

        def ours():
            engine.bootstrap_reduce(x, method, "mean", 999, seed=1)
        self.paths = (arch, ours)
        for run in self.paths:
            run()

    def track_speedup_vs_arch_mean(self, name):
        ratios = [_median_seconds(self.paths[0], 1) / _median_seconds(self.paths[1], 1) for _ in range(9)]
        return statistics.median(ratios)
