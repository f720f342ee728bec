"""Typed errors and warnings shared by both twins.

Every error names the argument at fault, says what is wrong and how to fix it, and
carries a stable ``code`` (an :class:`ErrorCode`) that tests and callers can match on
without parsing prose. Codes are never renumbered; a retired code is never reused.
"""

import sys
import warnings
from enum import Enum


class ErrorCode(str, Enum):
    """Stable machine-readable codes, one per distinct kind of bad input."""

    DATA_TYPE = "BM101"  # x is not numeric (strings, objects, complex, ...)
    DATA_SHAPE = "BM102"  # x is empty, ragged or has more than two dimensions
    DATA_TOO_SHORT = "BM103"  # fewer than two observations
    DATA_NOT_FINITE = "BM104"  # NaN or +-inf in x
    DATA_TOO_LONG = "BM105"  # n would overflow int32 positions
    DATA_RANGE = "BM106"  # a value so large that sums of squares would overflow
    MODEL_FIT = "BM107"  # an AR fit (to x, or a replicate's refit) is explosive, unit-root or singular
    DATA_CONSTANT = "BM108"  # x (or a resample of it) is constant where a standard error must be positive
    BLOCK_LENGTH = "BM201"  # block length not a positive int <= n, or "auto"
    WINDOW = "BM202"  # unknown taper window or bad taper parameter
    METHOD = "BM203"  # method is not a method spec
    MODEL = "BM204"  # malformed model-based spec: model, innovation, distribution, criterion, explosive
    MODEL_ORDER = "BM205"  # AR order or sieve max_order not an int >= 0, or at or above n / 2
    N_BOOTSTRAPS = "BM301"  # n_bootstraps not a positive integer
    SEED = "BM302"  # seed not a non-negative integer below 2**128
    STATISTIC = "BM303"  # unknown or malformed statistic
    INTERVAL_KIND = "BM304"  # unknown interval kind
    ALPHA = "BM305"  # alpha outside (0, 1)
    QUANTILE = "BM306"  # quantile level outside [0, 1]
    STATISTIC_RESULT = "BM307"  # a callable statistic returned a non-finite/odd value
    MEMORY_BUDGET = "BM308"  # a materialized tensor would exceed the byte budget (engine)
    DTYPE = "BM309"  # dtype of returned paths is not float64 or float32 (engine)
    BLOCK_LENGTH_ESTIMATE = "BM401"  # optimal block length undefined for this data


class BootmarkError(Exception):
    """Base class of every bootmark error.

    Attributes
    ----------
    code : ErrorCode
        Stable code of the failure.
    argument : str
        Name of the offending argument, as the caller spelled it.
    problem : str
        What is wrong.
    fix : str
        What to do instead.
    """

    def __init__(self, code, argument, problem, fix):
        self.code = ErrorCode(code)
        self.argument = argument
        self.problem = problem
        self.fix = fix
        super().__init__(f"{argument}: {problem}. Fix: {fix} [{self.code.value}]")


class InvalidDataError(BootmarkError, ValueError):
    """The data ``x`` has the wrong shape or contains unusable values."""


class DataTypeError(BootmarkError, TypeError):
    """The data ``x`` is not numeric."""


class InvalidParameterError(BootmarkError, ValueError):
    """An argument other than the data has an invalid value."""


class ParameterTypeError(BootmarkError, TypeError):
    """An argument other than the data has the wrong type."""


class BlockLengthWarning(UserWarning):
    """A legal but degenerate block length, e.g. one equal to the series length."""


class SkippedReplicatesWarning(UserWarning):
    """Replicates were dropped from a model-based bootstrap because their AR refit was
    explosive or singular (only with ``explosive="skip"``); the result records which."""


class BlockWildDesignWarning(UserWarning):
    """``"ar_coef"`` was asked of a recursive block-wild residual bootstrap. Rebuilt
    through the fitted recursion, y*_{t-1} shares e*_t's multiplier within a block, so
    the refit coefficients' spread shrinks as the block length grows (too narrow
    intervals); ``ResidualBootstrap(..., design="fixed")`` gives the block-wise sandwich
    spread instead (see ``BlockWild``)."""


def warn_at_caller(message, category):
    """Issue ``warnings.warn(message, category)`` at the first frame outside bootmark,
    so the warning names the user's line, whichever public entry point (and however
    deep in the twins) it came from. Frames belong to bootmark when their module's
    name is ``bootmark`` or starts with ``bootmark.``."""
    frame, level = sys._getframe(1), 2  # level 2 is warn_at_caller's caller
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "bootmark":
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)
