"""Turn the caller's ``x`` into checked float columns, or raise a typed error.

Accepted: a list or tuple of numbers (one series), a list or tuple of equal-length rows
(n observations of d variables; rows are resampled together), numpy arrays and pandas
Series/DataFrames (read through their ``tolist``/``to_numpy`` methods, so this module
never imports numpy or pandas).
"""

import numbers
from dataclasses import dataclass

from .errors import DataTypeError, ErrorCode, InvalidDataError
from .validation import finite_float

MAX_OBSERVATIONS = (1 << 31) - 1  # positions are int32 in the engine
# Largest |x| accepted: n (< 2**31) squared deviations of at most (2 |x|)**2 each then sum
# to below 2**1024, so no mean, variance or prefix sum can overflow into inf or NaN.
MAX_MAGNITUDE = 2.0**495


def range_error(value, where):
    """The error for a value beyond MAX_MAGNITUDE (shared by both twins)."""
    return InvalidDataError(
        ErrorCode.DATA_RANGE,
        "x",
        f"|{value!r}| at {where} exceeds {MAX_MAGNITUDE:.3g}, where sums of squares would overflow",
        "rescale the data (e.g. divide by a power of ten) before bootstrapping",
    )


FIX_TYPE = (
    "pass numbers: a list, a numpy array or a pandas Series/DataFrame of floats"
    " (many series, e.g. a dict of them: a Panel, Panel.from_series)"
)


@dataclass(frozen=True)
class Series:
    """Checked data: ``columns`` holds d lists of n finite floats.

    ``univariate`` is True for 1-D input (a list, a 1-D array or a Series), whose
    statistics come back as plain floats. ``labels`` holds the DataFrame's column labels
    (None for unlabelled input).
    """

    columns: tuple
    univariate: bool
    labels: tuple = None

    @property
    def n(self):
        return len(self.columns[0])

    @property
    def d(self):
        return len(self.columns)

    def columns_for_estimate(self):
        """The columns as block-length estimation reads them."""
        return self.columns

    def rows(self):
        """The observations as n tuples of d floats."""
        return list(zip(*self.columns, strict=True))


def reject_temporal(dtype):
    """Refuse datetime64/timedelta64 data: their integer ticks are not observations."""
    if getattr(dtype, "kind", "") in ("M", "m"):
        raise DataTypeError(
            ErrorCode.DATA_TYPE,
            "x",
            f"{dtype} values are times, not numbers",
            "pass the numeric series (e.g. returns or differences), not the time stamps",
        )


def _number(value, where):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        shown = type(value).__name__ if not isinstance(value, (str, bytes)) else repr(value)
        raise DataTypeError(ErrorCode.DATA_TYPE, "x", f"non-numeric value {shown} at {where}", FIX_TYPE)
    return finite_float(
        value,
        "x",
        ErrorCode.DATA_NOT_FINITE,
        f"drop or impute NaN, infinite and overflowing values (at {where}) before bootstrapping",
        InvalidDataError,
    )


def _unwrap(x):
    """Return (nested Python lists, univariate flag or None if unknown, labels)."""
    if isinstance(x, (str, bytes)):
        raise DataTypeError(ErrorCode.DATA_TYPE, "x", f"got a {type(x).__name__}", FIX_TYPE)
    if hasattr(x, "columns") and hasattr(x, "to_numpy"):  # pandas DataFrame
        for dtype in getattr(x, "dtypes", ()):
            reject_temporal(dtype)
        return x.to_numpy().tolist(), False, tuple(x.columns)
    if hasattr(x, "to_numpy"):  # pandas Series
        reject_temporal(getattr(x, "dtype", None))
        return x.to_numpy().tolist(), True, None
    if hasattr(x, "tolist") and hasattr(x, "ndim"):  # numpy array
        reject_temporal(x.dtype)
        if x.ndim > 2:
            raise InvalidDataError(
                ErrorCode.DATA_SHAPE, "x", f"{x.ndim}-D input", "pass one series (1-D) or n rows of d variables (2-D)"
            )
        return x.tolist(), None, None
    if isinstance(x, (list, tuple)):
        return x, None, None
    raise DataTypeError(ErrorCode.DATA_TYPE, "x", f"unsupported type {type(x).__name__}", FIX_TYPE)


def as_series(x):
    """Check ``x`` and return it as a :class:`Series`."""
    values, univariate, labels = _unwrap(x)
    if not isinstance(values, (list, tuple)) or len(values) == 0:
        raise InvalidDataError(ErrorCode.DATA_SHAPE, "x", "empty or scalar input", "pass at least two observations")
    values = [item.tolist() if hasattr(item, "tolist") else item for item in values]  # rows as arrays
    if labels is not None and len(set(labels)) != len(labels):
        raise InvalidDataError(
            ErrorCode.DATA_SHAPE, "x", f"duplicate column labels {list(labels)}", "give every column a distinct label"
        )
    nested = [isinstance(item, (list, tuple)) for item in values]
    if any(nested) and not all(nested):
        raise InvalidDataError(
            ErrorCode.DATA_SHAPE, "x", "mixes numbers and rows", "pass either one series or a list of equal-length rows"
        )
    if not nested[0]:
        columns = ([_number(v, f"position {i}") for i, v in enumerate(values)],)
        univariate = True
    else:
        width = len(values[0])
        if width == 0:
            raise InvalidDataError(ErrorCode.DATA_SHAPE, "x", "rows have no columns", "pass at least one variable")
        for i, row in enumerate(values):
            if len(row) != width:
                raise InvalidDataError(
                    ErrorCode.DATA_SHAPE,
                    "x",
                    f"ragged rows: row 0 has {width} values, row {i} has {len(row)}",
                    "pass equal-length rows, or, for many series of different lengths, a Panel (Panel.from_series)",
                )
            if any(isinstance(v, (list, tuple)) for v in row):
                raise InvalidDataError(
                    ErrorCode.DATA_SHAPE, "x", "3-D input", "pass one series (1-D) or n rows of d variables (2-D)"
                )

        def name(j):
            return repr(labels[j]) if labels else str(j)

        columns = tuple(
            [_number(row[j], f"row {i}, column {name(j)}") for i, row in enumerate(values)] for j in range(width)
        )
        univariate = False
    series = Series(tuple(columns), bool(univariate), labels)
    for j, column in enumerate(series.columns):
        for i, value in enumerate(column):
            if abs(value) > MAX_MAGNITUDE:
                name = repr(labels[j]) if labels else str(j)
                raise range_error(value, f"position {i}" if series.univariate else f"row {i}, column {name}")
    if series.n < 2:
        raise InvalidDataError(
            ErrorCode.DATA_TOO_SHORT, "x", f"{series.n} observation(s)", "pass at least two observations"
        )
    if series.n > MAX_OBSERVATIONS:
        raise InvalidDataError(
            ErrorCode.DATA_TOO_LONG,
            "x",
            f"{series.n} observations overflow int32 positions",
            f"split the series into pieces of at most {MAX_OBSERVATIONS} observations",
        )
    return series
