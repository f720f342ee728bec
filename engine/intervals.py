"""Confidence intervals from bootstrap statistics, vectorised.

Same definitions as ``reference/intervals.py``. With theta the statistic on the original
data, s_b its B bootstrap replicates and Q numpy's linear-interpolation quantile of the
s_b:

* ``percentile``: [Q(alpha/2), Q(1 - alpha/2)];
* ``basic``: [2 theta - Q(1 - alpha/2), 2 theta - Q(alpha/2)];
* ``normal``: theta -/+ z(1 - alpha/2) se, with se the standard deviation of the s_b
  (divisor B) and z from ``statistics.NormalDist``;
* ``calibrated``: [Q(lambda_lo), Q(lambda_hi)] with (lambda_lo, lambda_hi) the alpha/2
  and 1 - alpha/2 linear quantiles of the double bootstrap's calibration points u_b
  (defined in ``reference/intervals.py``; counted by ``reduce.calibration_counts``);
* ``studentized``: [theta - Q_t(1 - alpha/2) se, theta - Q_t(alpha/2) se], Q_t the
  linear quantile of t*_b = (s_b - theta) / se*_b, se and se*_b the fixed-b standard
  errors of the data and of each replicate (``reduce.fixed_b_standard_error``); within
  the bounds of those standard errors of the reference's.

``alpha`` is the total two-sided tail probability (0.10 gives a 90% interval); the
caller checks it. Percentile and basic bounds are bit for bit the reference's (both
follow numpy's linear rule on the same sorted values); so are the calibrated levels
given the same u_b, and the calibrated bounds given the same s_b as well; so is se, and
with it the normal bounds, short of overflow (see ``bootstrap_standard_error``).
"""

import math
from statistics import NormalDist

import numpy as np

from bootmark.reference.intervals import (
    CALIBRATED,
    INTERVAL_KINDS,
    STUDENTIZED,
    check_companion,
    check_kind,
    constant_series_error,
)

__all__ = [
    "INTERVAL_KINDS",
    "bootstrap_standard_error",
    "calibrated_levels",
    "check_kind",
    "interval",
    "studentized_bounds",
    "tail_levels",
]


def calibrated_levels(calibration, alpha):
    """(lambda_lo, lambda_hi) as floats: numpy's linear alpha/2 and 1 - alpha/2
    quantiles of the B calibration points u_b of one component."""
    levels = np.quantile(np.asarray(calibration, dtype=np.float64), [alpha / 2.0, 1.0 - alpha / 2.0])
    return tuple(levels.tolist())


def tail_levels(kind, alpha, calibration=None):
    """The (lower, upper) quantile levels of the replicates that a percentile-style
    interval reads: nominal, or calibrated from ``calibration`` (the u_b)."""
    if kind == CALIBRATED:
        return calibrated_levels(calibration, alpha)
    return alpha / 2.0, 1.0 - alpha / 2.0


def bootstrap_standard_error(replicates):
    """Standard deviation of the replicates about their mean, divisor B, as a float.

    The reference's formula and rounding: the centre is fsum(s) / B and the sum of
    squared deviations is an fsum too (correctly rounded), so the result equals the
    reference's bit for bit wherever the reference's is finite and its squares do not
    underflow. Two O(B) fsums cost well under a millisecond at B = 10,000.

    No BLAS: a ``np.dot`` here made se depend on the machine's OpenBLAS kernel (Haswell
    and SkylakeX kernels differ in the last bit) and, above 10,000 replicates, on
    OPENBLAS_NUM_THREADS, against the determinism contract. Scaling by a power of two
    first is exact and keeps the squares finite for huge replicates (where the
    reference's se overflows to inf) and non-zero for tiny ones (where its squares
    underflow to 0).
    """
    replicates = np.asarray(replicates, dtype=np.float64)
    largest = float(np.max(np.abs(replicates)))
    if largest == 0.0:
        return 0.0
    _, exponent = math.frexp(largest)
    scaled = np.ldexp(replicates, -exponent)
    deviations = scaled - math.fsum(scaled.tolist()) / scaled.shape[0]
    return math.ldexp(math.sqrt(math.fsum((deviations * deviations).tolist()) / scaled.shape[0]), exponent)


def studentized_bounds(replicates, point, alpha, studentization):
    """(lower, upper) of a studentized interval (reference.intervals): t*_b =
    (s_b - theta) / se*_b, bounds theta - Q_t(1 - alpha/2) se and theta - Q_t(alpha/2) se,
    Q_t numpy's linear quantile; ``studentization`` = (se, (B,) se*_b)."""
    standard_error, replicate_errors = studentization
    replicate_errors = np.asarray(replicate_errors, dtype=np.float64)
    if standard_error == 0.0 or float(np.min(replicate_errors)) == 0.0:
        raise constant_series_error()
    ratios = (np.asarray(replicates, dtype=np.float64) - point) / replicate_errors
    low, high = np.quantile(ratios, [alpha / 2.0, 1.0 - alpha / 2.0]).tolist()
    return point - high * standard_error, point - low * standard_error


def interval(kind, replicates, point, alpha, calibration=None, studentization=None):
    """Return (lower, upper) as floats for one scalar statistic.

    ``replicates`` holds its B >= 1 bootstrap values (a 1-D float64 array, or anything
    ``np.asarray`` turns into one); ``point`` is its value on the original data;
    ``calibration`` its B calibration points u_b (kind "calibrated" only). An unknown
    ``kind`` raises the reference's typed error rather than falling through.
    """
    check_companion(check_kind(kind), calibration, studentization)
    replicates = np.asarray(replicates, dtype=np.float64)
    point = float(point)
    if kind == STUDENTIZED:
        return studentized_bounds(replicates, point, alpha, studentization)
    if kind == "normal":
        half_width = NormalDist().inv_cdf(1.0 - alpha / 2.0) * bootstrap_standard_error(replicates)
        return point - half_width, point + half_width
    low, high = np.quantile(replicates, list(tail_levels(kind, alpha, calibration))).tolist()
    if kind in ("percentile", CALIBRATED):
        return low, high
    return 2.0 * point - high, 2.0 * point - low
