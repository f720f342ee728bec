"""Confidence intervals from bootstrap statistics.

With theta the statistic on the original data, s_b its bootstrap replicates and Q the
linear-interpolation quantile of the s_b (numpy's default; see ``reduce.py``):

* ``percentile``: [Q(alpha/2), Q(1 - alpha/2)];
* ``basic``: [2 theta - Q(1 - alpha/2), 2 theta - Q(alpha/2)];
* ``normal``: theta -/+ z(1 - alpha/2) se, with se the standard deviation of the s_b
  about their mean with divisor B (as ``arch`` computes it), z the standard normal
  quantile.

``alpha`` is the total two-sided tail probability: alpha=0.10 gives a 90% interval.
"""

import math
from statistics import NormalDist

from .errors import ErrorCode, InvalidParameterError, ParameterTypeError
from .reduce import quantile_sorted

INTERVAL_KINDS = ("percentile", "basic", "normal")


def check_kind(kind):
    """Return ``kind`` if it names an interval, else raise a typed error."""
    fix = f"pass kind= one of {', '.join(map(repr, INTERVAL_KINDS))}"
    if not isinstance(kind, str):
        raise ParameterTypeError(ErrorCode.INTERVAL_KIND, "kind", f"expected a string, got {kind!r}", fix)
    if kind not in INTERVAL_KINDS:
        raise InvalidParameterError(ErrorCode.INTERVAL_KIND, "kind", f"unknown interval kind {kind!r}", fix)
    return kind


def bootstrap_standard_error(replicates):
    """Standard deviation of the replicates, divisor B."""
    centre = math.fsum(replicates) / len(replicates)
    return math.sqrt(math.fsum((r - centre) * (r - centre) for r in replicates) / len(replicates))


def interval(kind, replicates, point, alpha):
    """Return (lower, upper) for one scalar statistic; ``replicates`` are its B values."""
    kind = check_kind(kind)
    if kind == "normal":
        half_width = NormalDist().inv_cdf(1.0 - alpha / 2.0) * bootstrap_standard_error(replicates)
        return point - half_width, point + half_width
    ordered = sorted(replicates)
    low = quantile_sorted(ordered, alpha / 2.0)
    high = quantile_sorted(ordered, 1.0 - alpha / 2.0)
    if kind == "percentile":
        return low, high
    return 2.0 * point - high, 2.0 * point - low
