"""Argument checks shared by both twins, so both raise the same error for the same input.

Only checks of plain Python values live here (integers, seeds, probabilities). Checks of
the data itself are arithmetic on arrays and are written once per twin (``data.py``).
"""

import math
import numbers
import operator

from .errors import ErrorCode, InvalidParameterError, ParameterTypeError

SEED_LIMIT = 1 << 128


def finite_float(value, argument, code, fix, error=InvalidParameterError):
    """Return a real number as a finite float; ints too large for a float are refused
    with ``error`` instead of leaking an OverflowError."""
    try:
        number = float(value)
    except OverflowError:
        raise error(code, argument, f"{value!r} is too large for a float", fix) from None
    if not math.isfinite(number):
        raise error(code, argument, f"{number} is not finite", fix)
    return number


def as_integer(value, argument, code, fix, *, integral_floats=True):
    """Return ``value`` as a Python int; accept numpy integers, and integral floats
    unless ``integral_floats`` is False (counts and seeds refuse every float, as numpy
    refuses float sizes).

    Raises ParameterTypeError for bools, strings, refused floats and other non-numbers,
    and InvalidParameterError for non-integral or non-finite floats.
    """
    if isinstance(value, bool) or value is None or isinstance(value, (str, bytes)):
        raise ParameterTypeError(code, argument, f"expected an integer, got {value!r}", fix)
    try:
        return operator.index(value)
    except TypeError:
        pass
    if not isinstance(value, numbers.Real):
        raise ParameterTypeError(code, argument, f"expected an integer, got {type(value).__name__}", fix)
    if not integral_floats:
        raise ParameterTypeError(code, argument, f"expected an integer, got the {type(value).__name__} {value!r}", fix)
    as_float = finite_float(value, argument, code, fix)
    if not as_float.is_integer():
        raise InvalidParameterError(code, argument, f"expected an integer, got {value!r}", fix)
    return int(as_float)


def as_positive_int(value, argument, code, fix, *, integral_floats=True):
    """Return ``value`` as an int >= 1, or raise a typed error naming ``argument``."""
    number = as_integer(value, argument, code, fix, integral_floats=integral_floats)
    if number < 1:
        raise InvalidParameterError(code, argument, f"must be >= 1, got {number}", fix)
    return number


def check_n_bootstraps(n_bootstraps):
    """Return the replicate count B as an int >= 1 (numpy integer types are accepted)."""
    return as_positive_int(
        n_bootstraps,
        "n_bootstraps",
        ErrorCode.N_BOOTSTRAPS,
        "pass a whole number of replicates such as 999",
        integral_floats=False,
    )


def check_seed(seed):
    """Return ``seed`` as an int in [0, 2**128); ``None`` is handled by the caller."""
    fix = "pass a non-negative integer below 2**128, or None for fresh entropy"
    number = as_integer(seed, "seed", ErrorCode.SEED, fix, integral_floats=False)
    if not 0 <= number < SEED_LIMIT:
        raise InvalidParameterError(ErrorCode.SEED, "seed", f"must be in [0, 2**128), got {number}", fix)
    return number


SERIES_ID_LIMIT = 1 << 32  # the counter's series word is 32 bits


def check_series_id(series_id):
    """Return ``series_id`` as an int in [0, 2**32): the counter's series word."""
    fix = "pass a non-negative integer below 2**32 (a panel's series s uses series_id=s)"
    number = as_integer(series_id, "series_id", ErrorCode.SERIES_ID, fix, integral_floats=False)
    if not 0 <= number < SERIES_ID_LIMIT:
        raise InvalidParameterError(ErrorCode.SERIES_ID, "series_id", f"must be in [0, 2**32), got {number}", fix)
    return number


def as_probability(value, argument, code, fix, *, open_interval):
    """Return ``value`` as a float in (0, 1) if ``open_interval`` else in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ParameterTypeError(code, argument, f"expected a number, got {value!r}", fix)
    probability = finite_float(value, argument, code, fix)
    inside = 0.0 < probability < 1.0 if open_interval else 0.0 <= probability <= 1.0
    if not inside:
        bounds = "(0, 1)" if open_interval else "[0, 1]"
        raise InvalidParameterError(code, argument, f"must lie in {bounds}, got {value!r}", fix)
    return probability


def check_alpha(alpha):
    """Return the interval's total tail probability as a float in (0, 1)."""
    return as_probability(
        alpha, "alpha", ErrorCode.ALPHA, "pass e.g. alpha=0.10 for a 90% two-sided interval", open_interval=True
    )


def _component(value, replicate):
    return finite_float(
        value,
        "statistic",
        ErrorCode.STATISTIC_RESULT,
        f"make the statistic return finite floats (it did not on {replicate})",
    )


def statistic_components(value, replicate):
    """A callable statistic's result on ``replicate`` as a non-empty tuple of finite
    floats: a real number, a flat list/tuple of them, or anything with ``tolist``."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        components = (_component(value, replicate),)
    elif hasattr(value, "tolist") or isinstance(value, (list, tuple)):
        raw = value.tolist() if hasattr(value, "tolist") else value
        raw = list(raw) if isinstance(raw, (list, tuple)) else [raw]
        if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in raw):
            raise InvalidParameterError(
                ErrorCode.STATISTIC_RESULT,
                "statistic",
                f"returned non-numbers on {replicate}",
                "return a float or a flat sequence of floats",
            )
        components = tuple(_component(v, replicate) for v in raw)
    else:
        raise InvalidParameterError(
            ErrorCode.STATISTIC_RESULT,
            "statistic",
            f"returned {type(value).__name__} on {replicate}",
            "return a float or a flat sequence of floats",
        )
    if not components or not all(math.isfinite(v) for v in components):
        raise InvalidParameterError(
            ErrorCode.STATISTIC_RESULT,
            "statistic",
            f"returned {value!r} on {replicate}",
            "make the statistic return finite numbers for every resample",
        )
    return components
