"""Turn the caller's ``x`` into one C-contiguous float64 array, or raise a typed error.

The acceptance rules, error classes, codes, arguments and messages are those of
``reference/data.py`` for every input; this module only makes them fast. Numeric numpy
arrays (and pandas objects whose ``to_numpy`` gives one) and plain lists of ints and
floats are checked with whole-array numpy operations; anything else (object, bool,
string, complex, datetime or long-double arrays, numpy scalars, rows given as arrays,
mixed content) goes element by element through the reference's own rules, so exotic
input is never judged differently from the spec. Where several values are bad, the
error names the one the reference meets first: position order for one series,
column-major order (every row of column 0, then column 1, ...) for rows.
"""

import numbers
from dataclasses import dataclass
from itertools import chain

import numpy as np

# The reference owns the limit and the wording of its errors; reuse them, not copies.
from bootmark.reference.data import FIX_TYPE, MAX_MAGNITUDE, MAX_OBSERVATIONS, range_error, reject_temporal
from bootmark.reference.errors import DataTypeError, ErrorCode, InvalidDataError
from bootmark.reference.validation import finite_float

_FIX_NOT_FINITE = "drop or impute NaN, infinite and overflowing values (at {}) before bootstrapping"
_FIX_DIMENSIONS = "pass one series (1-D) or n rows of d variables (2-D)"
# Exact types whose values numpy converts to float64 exactly as float() does.
_PLAIN_NUMBERS = frozenset({float, int})
# Exact types without a ``tolist``: the reference's per-item unwrapping leaves them alone.
_NO_TOLIST = _PLAIN_NUMBERS | {list, tuple}


@dataclass(frozen=True, eq=False)  # eq on an array field would be ambiguous: compare by identity
class Series:
    """Checked data: ``values`` is a private C-contiguous float64 array of shape (n, d),
    every entry finite, one row per observation (rows are resampled together). It is a
    copy of the caller's data; the engine reads it and never writes to it.

    ``univariate`` is True for 1-D input (a list, a 1-D array or a pandas Series), whose
    statistics come back as plain floats; its values still have shape (n, 1).
    ``labels`` holds a DataFrame's column labels (None for unlabelled input).
    """

    values: np.ndarray
    univariate: bool
    labels: tuple = None

    @property
    def n(self):
        """Number of observations (rows)."""
        return self.values.shape[0]

    @property
    def d(self):
        """Number of variables (columns)."""
        return self.values.shape[1]

    def columns_for_estimate(self):
        """Contiguous float64 columns, as block-length estimation reads them."""
        return [np.ascontiguousarray(self.values[:, j]) for j in range(self.d)]


def _checked_number(value, where):
    """``float(value)``, or the reference's error for an unusable element at ``where``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        shown = type(value).__name__ if not isinstance(value, (str, bytes)) else repr(value)
        raise DataTypeError(ErrorCode.DATA_TYPE, "x", f"non-numeric value {shown} at {where}", FIX_TYPE)
    return finite_float(value, "x", ErrorCode.DATA_NOT_FINITE, _FIX_NOT_FINITE.format(where), InvalidDataError)


def _shape_error(problem, fix):
    return InvalidDataError(ErrorCode.DATA_SHAPE, "x", problem, fix)


def _unwrap(x):
    """Return (what the reference reads: an array-like read via ``tolist`` or the caller's
    list/tuple; the column labels or None). Same duck typing as the reference."""
    if isinstance(x, (str, bytes)):
        raise DataTypeError(ErrorCode.DATA_TYPE, "x", f"got a {type(x).__name__}", FIX_TYPE)
    if hasattr(x, "columns") and hasattr(x, "to_numpy"):  # pandas DataFrame
        for dtype in getattr(x, "dtypes", ()):
            reject_temporal(dtype)
        return x.to_numpy(), tuple(x.columns)
    if hasattr(x, "to_numpy"):  # pandas Series
        reject_temporal(getattr(x, "dtype", None))
        return x.to_numpy(), None
    if hasattr(x, "tolist") and hasattr(x, "ndim"):  # numpy array
        reject_temporal(x.dtype)
        if x.ndim > 2:
            raise _shape_error(f"{x.ndim}-D input", _FIX_DIMENSIONS)
        return x, None
    if isinstance(x, (list, tuple)):
        return x, None
    raise DataTypeError(ErrorCode.DATA_TYPE, "x", f"unsupported type {type(x).__name__}", FIX_TYPE)


def _is_numeric_array(source):
    # Exactly ndarray: a subclass (a masked array, say) may read differently through tolist.
    # Long doubles stay out: their tolist keeps numpy scalars, which the slow path handles.
    if type(source) is not np.ndarray or source.ndim not in (1, 2):
        return False
    kind = source.dtype.kind
    return kind in "iu" or (kind == "f" and source.dtype.itemsize <= 8)


def _check_labels(labels):
    if labels is not None and len(set(labels)) != len(labels):
        raise _shape_error(f"duplicate column labels {list(labels)}", "give every column a distinct label")


def _where(i, j, univariate, labels):
    if univariate:
        return f"position {i}"
    return f"row {i}, column {repr(labels[j]) if labels else str(j)}"


def _check_finite(values, univariate, labels, original):
    """Raise the reference's error for the first non-finite entry of ``values`` (n, d),
    in column-major order; ``original(i, j)`` is the caller's element there."""
    finite = np.isfinite(values)
    if finite.all():
        return
    bad = ~finite
    j = int(np.argmax(bad.any(axis=0)))
    i = int(np.argmax(bad[:, j]))
    _checked_number(original(i, j), _where(i, j, univariate, labels))
    raise AssertionError("unreachable: a non-finite value passed the reference check")  # pragma: no cover


def _from_numeric_array(array, labels):
    """(values, univariate) of a 1-D or 2-D int/uint/float ndarray."""
    if array.shape[0] == 0:
        raise _shape_error("empty or scalar input", "pass at least two observations")
    _check_labels(labels)
    univariate = array.ndim == 1
    if not univariate and array.shape[1] == 0:
        raise _shape_error("rows have no columns", "pass at least one variable")
    values = np.array(array, dtype=np.float64, order="C", copy=True).reshape(array.shape[0], -1)
    _check_finite(values, univariate, labels, lambda i, j: values[i, j].item())
    return values, univariate


def _to_float_array(items):
    """``np.array(items, float64)`` for ints and floats, or None if an int overflows a float."""
    try:
        return np.array(items, dtype=np.float64)
    except OverflowError:
        return None


def _from_flat(items, kinds):
    """(n, 1) values of a sequence of scalars of exact types ``kinds``, checked in
    position order."""
    column = _to_float_array(items) if kinds <= _PLAIN_NUMBERS else None
    if column is None:  # anything unusual: the reference's element-by-element rules
        column = np.array([_checked_number(v, f"position {i}") for i, v in enumerate(items)], dtype=np.float64)
    values = column.reshape(-1, 1)
    _check_finite(values, True, None, lambda i, j: items[i])
    return values


def _from_rows(items, labels):
    """(n, d) values of a sequence of rows (lists or tuples), checked like the reference."""
    width = len(items[0])
    if width == 0:
        raise _shape_error("rows have no columns", "pass at least one variable")
    if len(set(map(len, items))) == 1 and set(map(type, chain.from_iterable(items))) <= _PLAIN_NUMBERS:
        values = _to_float_array(items)
        if values is not None:
            _check_finite(values, False, labels, lambda i, j: items[i][j])
            return values
    for i, row in enumerate(items):
        if len(row) != width:
            raise _shape_error(
                f"ragged rows: row 0 has {width} values, row {i} has {len(row)}",
                "pass equal-length rows, or, for many series of different lengths, a Panel (Panel.from_series)",
            )
        if any(isinstance(v, (list, tuple)) for v in row):
            raise _shape_error("3-D input", _FIX_DIMENSIONS)
    columns = [
        [_checked_number(row[j], _where(i, j, False, labels)) for i, row in enumerate(items)] for j in range(width)
    ]
    return np.ascontiguousarray(np.array(columns, dtype=np.float64).T)


def _from_sequence(items, labels):
    """(values, univariate) of what the reference reads as nested Python lists."""
    if not isinstance(items, (list, tuple)) or len(items) == 0:
        raise _shape_error("empty or scalar input", "pass at least two observations")
    kinds = set(map(type, items))  # one C-speed pass; most decisions need only the types
    if not kinds <= _NO_TOLIST:  # rows given as arrays, numpy scalars
        items = [item.tolist() if hasattr(item, "tolist") else item for item in items]
        kinds = set(map(type, items))
    _check_labels(labels)
    nested = [issubclass(kind, (list, tuple)) for kind in kinds]
    if any(nested) and not all(nested):
        raise _shape_error("mixes numbers and rows", "pass either one series or a list of equal-length rows")
    if nested[0]:
        return _from_rows(items, labels), False
    return _from_flat(items, kinds), True


def as_array(x):
    """Check ``x`` and return it as a :class:`Series` (values copied, never a view of ``x``).

    Raises DataTypeError (non-numeric content) or InvalidDataError (bad shape, NaN or
    infinite values, ints too large for a float, fewer than 2 or more than
    ``MAX_OBSERVATIONS`` observations), exactly as ``reference.data.as_series`` does.
    """
    source, labels = _unwrap(x)
    if _is_numeric_array(source):
        values, univariate = _from_numeric_array(source, labels)
    else:
        items = source if isinstance(source, (list, tuple)) else source.tolist()
        values, univariate = _from_sequence(items, labels)
    too_large = np.abs(values) > MAX_MAGNITUDE
    if too_large.any():
        j = int(np.argmax(too_large.any(axis=0)))  # column-major order, as the reference meets them
        i = int(np.argmax(too_large[:, j]))
        raise range_error(float(values[i, j]), _where(i, j, univariate, labels))
    n = values.shape[0]
    if n < 2:
        raise InvalidDataError(ErrorCode.DATA_TOO_SHORT, "x", f"{n} observation(s)", "pass at least two observations")
    if n > MAX_OBSERVATIONS:
        raise InvalidDataError(
            ErrorCode.DATA_TOO_LONG,
            "x",
            f"{n} observations overflow int32 positions",
            f"split the series into pieces of at most {MAX_OBSERVATIONS} observations",
        )
    return Series(values, univariate, labels)
