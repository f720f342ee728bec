"""Statistics of one series, with correctly rounded sums (math.fsum).

* mean: fsum(x) / n.
* var: population variance (ddof=0), fsum((x - mean)**2) / n; std is its square root.
* median: the middle order statistic, or the mean of the two middle ones.
* quantile: numpy's default "linear" rule (Hyndman-Fan type 7): with sorted values s
  and h = (n - 1) q, the value is s[floor(h)] + (h - floor(h)) (s[floor(h) + 1] -
  s[floor(h)]), evaluated from the nearer end as numpy does.

Every statistic returns a tuple of floats (its components); ``components`` says how
many, so a result can be laid out before the first replicate is computed.
"""

import math

from .validation import statistic_components


def mean(values):
    return math.fsum(values) / len(values)


def var(values):
    centre = mean(values)
    return math.fsum((v - centre) * (v - centre) for v in values) / len(values)


def std(values):
    return math.sqrt(var(values))


def quantile_sorted(ordered, level):
    """Linear-interpolation quantile of already sorted values (numpy's default)."""
    position = (len(ordered) - 1) * level
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    fraction = position - below
    low, high = ordered[below], ordered[above]
    step = high - low
    if fraction >= 0.5:
        return high - step * (1.0 - fraction)
    return low + step * fraction


def median(values):
    ordered = sorted(values)
    half = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[half]
    return (ordered[half - 1] + ordered[half]) / 2.0


def _column_statistic(statistic, column):
    if statistic.kind == "quantile":
        ordered = sorted(column)
        return tuple(quantile_sorted(ordered, level) for level in statistic.levels)
    return (_NAMED[statistic.kind](column),)


_NAMED = {"mean": mean, "var": var, "std": std, "median": median}


def apply_statistic(statistic, columns, univariate, replicate="the original data"):
    """Evaluate ``statistic`` on d columns; return its components as a tuple of floats.

    Named statistics are applied column by column (components in column-major order:
    every level of column 0, then column 1, ...). A callable gets the whole sample:
    a list of floats for univariate data, a list of row tuples otherwise.
    """
    if statistic.kind == "callable":
        sample = list(columns[0]) if univariate else list(zip(*columns, strict=True))
        return statistic_components(statistic.function(sample), replicate)
    components = ()
    for column in columns:
        components += _column_statistic(statistic, column)
    return components
