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

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Mapping, Sequence

__all__ = ["RATIO_CONFIDENCE", "all_positive", "median_ratio", "ratio_block_length", "summary", "time_interleaved"]

RATIO_CONFIDENCE = 0.95
RATIO_REPLICATES = 2000
RATIO_SEED = 20261202  # fixed: an interval is a function of the samples alone


def time_interleaved(
    paths: Mapping[str, Callable[[], object]],
    warmups: int,
    samples: int,
    progress: Callable[[], object] | None = None,
) -> dict[str, list[float]]:
    """Time zero-argument callables in interleaved rounds: {name: [seconds per round]}.

    Every path first runs ``warmups`` times untimed; then, ``samples`` times, every path
    runs once, in the order of ``paths``, each call timed with ``time.perf_counter``.

    Parameters
    ----------
    paths : mapping of str to callable
        The zero-argument callables to time, by name.
    warmups : int
        Untimed calls of each path before the first round.
    samples : int
        Timed rounds.
    progress : callable, optional
        Called with no argument after each timed round.

    Returns
    -------
    dict of str to list of float
        Each path's seconds, one per round, in round order.

    See Also
    --------
    median_ratio : the ratio of two paths' times, with its interval.
    summary : the median and minimum of one path's times.
    """
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


def ratio_block_length(rounds: int) -> int:
    """Block length of the ratio bootstrap for ``rounds`` paired samples.

    Parameters
    ----------
    rounds : int
        The number of paired samples (timed rounds).

    Returns
    -------
    int
        ``round(rounds ** (1/3))``, at least 2.

    Examples
    --------
    >>> from bootmark.core.timing import ratio_block_length
    >>> ratio_block_length(15), ratio_block_length(50)
    (2, 4)
    """
    return max(2, round(rounds ** (1.0 / 3.0)))


def median_ratio(
    numerators: Sequence[float], denominators: Sequence[float], confidence: float = RATIO_CONFIDENCE
) -> dict[str, float]:
    """Median of per-round ratios numerator/denominator with a moving-block bootstrap
    percentile interval.

    The interval is the engine's ``conf_int`` of the median of the ratios with
    ``MovingBlock(ratio_block_length(rounds))``, ``RATIO_REPLICATES`` replicates and the
    fixed seed ``RATIO_SEED``, so the same samples always give the same interval.

    Parameters
    ----------
    numerators, denominators : sequence of float
        Paired times of the same rounds, in seconds (any common unit will do).
    confidence : float, optional
        The interval's confidence level (default 0.95).

    Returns
    -------
    dict
        ``{"median", "ci_low", "ci_high", "confidence", "block_length"}``, the keys of a
        receipt's ratio (:class:`bootmark.core.records.Ratio`).

    Raises
    ------
    ValueError
        The sequences differ in length or hold fewer than 3 rounds.

    See Also
    --------
    ratio_block_length : the block length used.
    bootmark.core.records.Ratio : the typed record of the returned dict.

    Examples
    --------
    >>> from bootmark.core.timing import median_ratio
    >>> median_ratio([2.0, 2.2, 1.9, 2.1, 2.0], [1.0, 1.0, 1.0, 1.1, 1.0])
    {'median': 2.0, 'ci_low': 1.9, 'ci_high': 2.2, 'confidence': 0.95, 'block_length': 2}
    >>> median_ratio([1.0, 2.0], [1.0, 1.0])
    Traceback (most recent call last):
        ...
    ValueError: need at least 3 paired rounds, got 2 and 2
    """
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


def summary(samples: Sequence[float]) -> dict[str, object]:
    """The receipt summary of one path's times: its samples, median and minimum.

    Parameters
    ----------
    samples : sequence of float
        One path's seconds per round (non-empty).

    Returns
    -------
    dict
        ``{"samples_s": list, "median_s": float, "min_s": float}``, in seconds (the keys
        of :class:`bootmark.core.records.PathTiming`).

    Examples
    --------
    >>> from bootmark.core.timing import summary
    >>> summary([0.003, 0.001, 0.002])
    {'samples_s': [0.003, 0.001, 0.002], 'median_s': 0.002, 'min_s': 0.001}
    """
    return {"samples_s": list(samples), "median_s": statistics.median(samples), "min_s": min(samples)}


def all_positive(samples: Sequence[float]) -> bool:
    """Whether every sample is a finite float above zero (a bench tripwire).

    Parameters
    ----------
    samples : sequence of float
        Times in seconds.

    Returns
    -------
    bool
        False when any sample is zero, negative, non-finite or not a float.

    Examples
    --------
    >>> from bootmark.core.timing import all_positive
    >>> all_positive([0.5, 1.25]), all_positive([0.5, 0.0]), all_positive([1])
    (True, False, False)
    """
    return all(isinstance(s, float) and math.isfinite(s) and s > 0 for s in samples)
