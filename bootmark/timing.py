"""Settled, interleaved timing and the confidence interval of a median ratio.

Timing protocol (docs/receipts.md): every path gets untimed warm-ups at the real
shape, then ``samples`` rounds in which every path runs once, always in the same order,
so a busy moment of a shared machine lands on all of them. A ratio is taken within a
round (adjacent samples), never across runs.

Why a moving-block bootstrap for the ratio's interval: the per-round ratios form a short
time series whose neighbours share the machine's state (frequency, cache, a noisy
neighbour), so they are positively autocorrelated and an i.i.d. bootstrap would make
the interval too narrow. The moving-block bootstrap of the sample median is consistent
for stationary, weakly dependent (strong-mixing) sequences when the block length grows
with the sample but slower than it (Kunsch 1989; Lahiri 2003, ch. 3 and 6 on smooth
functions and quantiles). With 15 to 50 rounds we take b = round(S ** (1/3)), at least
2, and read the percentile interval of 2,000 replicates. The engine computes it, with a
fixed seed, so the same samples always give the same interval.
"""

import math
import statistics
import time

RATIO_CONFIDENCE = 0.95
RATIO_REPLICATES = 2000
RATIO_SEED = 20261202  # fixed: an interval is a function of the samples alone


def time_interleaved(paths, warmups, samples, progress=None):
    """{name: [seconds per round]} for a dict of zero-argument callables.

    ``progress`` (optional) is called with no argument after each timed round."""
    for run in paths.values():
        for _ in range(warmups):
            run()
    times = {name: [] for name in paths}
    for _ in range(samples):
        for name, run in paths.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
        if progress is not None:
            progress()
    return times


def ratio_block_length(rounds):
    """Block length of the ratio bootstrap for ``rounds`` paired samples."""
    return max(2, round(rounds ** (1.0 / 3.0)))


def median_ratio(numerators, denominators, confidence=RATIO_CONFIDENCE):
    """Median of per-round ratios numerator/denominator with a moving-block bootstrap
    percentile interval: {"median", "ci_low", "ci_high", "confidence", "block_length"}."""
    # late on purpose: `bootmark versus` workers import this module before they choose
    # which source tree's engine to load (head_to_head.import_engine)
    from bootmark import engine

    if len(numerators) != len(denominators) or len(numerators) < 3:
        raise ValueError(f"need at least 3 paired rounds, got {len(numerators)} and {len(denominators)}")
    ratios = [a / b for a, b in zip(numerators, denominators, strict=True)]
    block = ratio_block_length(len(ratios))
    lower, upper, point = engine.conf_int(
        ratios,
        "median",
        engine.MovingBlock(block),
        alpha=1.0 - confidence,
        n_bootstraps=RATIO_REPLICATES,
        seed=RATIO_SEED,
    )
    return {
        "median": float(point),
        "ci_low": float(lower),
        "ci_high": float(upper),
        "confidence": confidence,
        "block_length": block,
    }


def summary(samples):
    """{"samples_s", "median_s", "min_s"} of a list of seconds."""
    return {"samples_s": list(samples), "median_s": statistics.median(samples), "min_s": min(samples)}


def all_positive(samples):
    return all(isinstance(s, float) and math.isfinite(s) and s > 0 for s in samples)
