"""Typed errors and warnings shared by both twins.

Every error names the argument at fault, says what is wrong and how to fix it, and
carries a stable ``code`` (an :class:`ErrorCode`) that tests and callers can match on
without parsing prose. Codes are never renumbered; a retired code is never reused.
"""

import sys
import warnings
from enum import Enum


class ErrorCode(str, Enum):
    """Stable machine-readable codes, one per distinct kind of bad input.

    Every :class:`BootmarkError` carries one as ``code``; its value (``"BM101"`` ..) ends
    the error's message. Codes are never renumbered and a retired code is never reused.
    The comment beside each member (in the source) says which input it stands for.

    Examples
    --------
    >>> from bootmark import reference
    >>> reference.ErrorCode.SEED.value
    'BM302'
    >>> reference.ErrorCode("BM302") is reference.ErrorCode.SEED
    True
    """

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
    SERIES_ID = "BM310"  # series_id not an integer in [0, 2**32)
    HORIZON = "BM311"  # forecast horizon not an int >= 1
    PANEL = "BM110"  # a malformed panel: no series, bad offsets, duplicate or bad ids, seeds per series
    BLOCK_LENGTH_ESTIMATE = "BM401"  # optimal block length undefined for this data


class BootmarkError(Exception):
    """Base class of every bootmark error.

    Raised (as one of its four subclasses) by every public function and spec of both
    twins for bad input, before any work is done. Its message reads
    ``"{argument}: {problem}. Fix: {fix} [{code}]"``.

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

    Examples
    --------
    >>> from bootmark import reference
    >>> try:
    ...     reference.bootstrap([0.5, 1.5, -0.5], reference.IID(), n_bootstraps=0)
    ... except reference.BootmarkError as error:
    ...     print(type(error).__name__, error.code.name, error.argument)
    ...     print(error)
    InvalidParameterError N_BOOTSTRAPS n_bootstraps
    n_bootstraps: must be >= 1, got 0. Fix: pass a whole number of replicates such as 999 [BM301]
    """

    def __init__(self, code, argument, problem, fix):
        self.code = ErrorCode(code)
        self.argument = argument
        self.problem = problem
        self.fix = fix
        super().__init__(f"{argument}: {problem}. Fix: {fix} [{self.code.value}]")

    def __reduce__(self):
        # rebuilt from its four parts (pickle would pass the message alone): a typed error
        # raised on a dask worker reaches the caller as itself
        return (type(self), (self.code, self.argument, self.problem, self.fix))


class InvalidDataError(BootmarkError, ValueError):
    """The data ``x`` has the wrong shape or contains unusable values.

    Raised by ``bootstrap``, ``bootstrap_reduce``, ``conf_int`` and
    ``optimal_block_length`` of both twins: codes DATA_SHAPE, DATA_TOO_SHORT,
    DATA_NOT_FINITE, DATA_TOO_LONG and DATA_RANGE for the data itself; MODEL_FIT for an
    AR fit (or a replicate's refit) that is singular, explosive or has a unit root;
    DATA_CONSTANT for a studentized interval of a constant series or resample; and
    BLOCK_LENGTH_ESTIMATE when a block length cannot be estimated (``"auto"``).
    """


class DataTypeError(BootmarkError, TypeError):
    """The data ``x`` is not numeric.

    Raised (code DATA_TYPE) by every entry point that takes ``x``: for strings, objects,
    complex numbers, bools, times, or containers that are not a list, tuple, numpy
    array or pandas object.
    """


class InvalidParameterError(BootmarkError, ValueError):
    """An argument other than the data has an invalid value.

    Raised by the specs' constructors and by the entry points, with the code of the
    argument at fault (BLOCK_LENGTH, WINDOW, MODEL, MODEL_ORDER, METHOD, N_BOOTSTRAPS,
    SEED, SERIES_ID, STATISTIC, INTERVAL_KIND, ALPHA, QUANTILE, STATISTIC_RESULT, PANEL
    for a malformed panel, and in the engine MEMORY_BUDGET and DTYPE), e.g. a block length
    above n or a seed at or above 2**128.
    """


class ParameterTypeError(BootmarkError, TypeError):
    """An argument other than the data has the wrong type.

    Raised by the specs' constructors and by the entry points, with the code of the
    argument at fault, e.g. a float seed, a spec class passed instead of an instance
    (code METHOD), or a string where a count is expected.
    """


class BlockLengthWarning(UserWarning):
    """A legal but degenerate block length, e.g. one equal to the series length.

    Issued by ``bootstrap``, ``bootstrap_reduce`` and ``conf_int`` of both twins when a
    (resolved) block length equals n, or a non-overlapping one leaves room for a single
    block: every replicate is then the original series up to rotation (or, for the
    non-overlapping case, one and the same series).
    """


class SkippedReplicatesWarning(UserWarning):
    """Replicates were dropped from a model-based bootstrap because their AR refit was
    explosive or singular (only with ``explosive="skip"``); the result records which.

    Issued by ``bootstrap_reduce`` and ``conf_int`` of both twins for the statistic
    ``"ar_coef"``; the dropped replicate numbers are the result's ``skipped``.
    """


class BlockWildDesignWarning(UserWarning):
    """``"ar_coef"`` was asked of a recursive block-wild residual bootstrap. Rebuilt
    through the fitted recursion, y*_{t-1} shares e*_t's multiplier within a block, so
    the refit coefficients' spread shrinks as the block length grows (too narrow
    intervals); ``ResidualBootstrap(..., design="fixed")`` gives the block-wise sandwich
    spread instead (see ``BlockWild``).

    Issued by ``bootstrap_reduce`` and ``conf_int`` of both twins for ``"ar_coef"`` with
    a recursive ResidualBootstrap or a SieveAR whose innovation is a BlockWild of
    (resolved) block length above 1.
    """


def warn_at_caller(message, category):
    """Issue ``warnings.warn(message, category)`` at the first frame outside bootmark,
    so the warning names the user's line, whichever public entry point (and however
    deep in the twins) it came from. Frames belong to bootmark when their module's
    name is ``bootmark`` or starts with ``bootmark.``."""
    frame, level = sys._getframe(1), 2  # level 2 is warn_at_caller's caller
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "bootmark":
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)
