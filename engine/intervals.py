"""Confidence intervals from bootstrap statistics, vectorised.

Same definitions as ``reference/intervals.py``. With theta the statistic on the original
data, s_b its B bootstrap replicates and Q numpy's linear-interpolation quantile of the
s_b:

* ``percentile``: [Q(alpha/2), Q(1 - alpha/2)];
* ``basic``: [2 theta - Q(1 - alpha/2), 2 theta - Q(alpha/2)];
* ``normal``: theta -/+ z(1 - alpha/2) se, with se the standard deviation of the s_b
  (divisor B) and z from ``statistics.NormalDist``.

``alpha`` is the total two-sided tail probability (0.10 gives a 90% interval); the
caller checks it. Percentile and basic bounds are bit for bit the reference's (both
follow numpy's linear rule on the same sorted values); normal bounds differ only by the
rounding of the sums inside se (pairwise here, fsum there).
"""

import math
from statistics import NormalDist

import numpy as np

from reference.intervals import INTERVAL_KINDS, check_kind

__all__ = ["INTERVAL_KINDS", "bootstrap_standard_error", "check_kind", "interval"]


def bootstrap_standard_error(replicates):
    """Standard deviation of the replicates about their mean, divisor B."""
    centre = replicates.mean()
    centre += (replicates - centre).mean()  # brings the centre within an ulp or so of the exact mean
    deviations = replicates - centre
    return math.sqrt(float(np.dot(deviations, deviations)) / replicates.shape[0])


def interval(kind, replicates, point, alpha):
    """Return (lower, upper) as floats for one scalar statistic.

    ``replicates`` holds its B >= 1 bootstrap values (a 1-D float64 array, or anything
    ``np.asarray`` turns into one); ``point`` is its value on the original data. An
    unknown ``kind`` raises the reference's typed error rather than falling through.
    """
    check_kind(kind)
    replicates = np.asarray(replicates, dtype=np.float64)
    point = float(point)
    if kind == "normal":
        half_width = NormalDist().inv_cdf(1.0 - alpha / 2.0) * bootstrap_standard_error(replicates)
        return point - half_width, point + half_width
    low, high = np.quantile(replicates, [alpha / 2.0, 1.0 - alpha / 2.0]).tolist()
    if kind == "percentile":
        return low, high
    return 2.0 * point - high, 2.0 * point - low
