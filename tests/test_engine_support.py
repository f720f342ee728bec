"""Engine support modules (data, blocklength, taper, intervals) against their reference twins.

Bounds checked here (u = 2**-53):

* data: every accepted input gives the same n, d, univariate flag and labels, and values
  equal bit for bit (so -0.0 stays -0.0); every refused input raises the same error class,
  ErrorCode, argument and message (the message names the same first bad position).
* blocklength: raw estimates within 1e-10 relative (observed: at most 4e-13 over 150
  AR(1) series with n up to 1500),
  resolved lengths, warnings and errors identical. The bound needs a spread well above
  ulp(mean): the twins may centre a column an ulp apart (the engine's mean is two numpy
  passes, the reference's fsum(x) / n), which is harmless unless the deviations are
  themselves a few ulps. The strategies keep offsets within 100 spreads.
* taper: weights within 4 ulps elementwise (observed: equal bit for bit on this machine,
  where numpy's cos is libm's; the slack is for numpy builds with their own SIMD cos).
* intervals: percentile and basic bounds equal bit for bit (both twins follow numpy's
  linear rule on the same sorted values); the bootstrap se and the normal bounds equal
  bit for bit wherever the reference's se is finite (the engine scales by a power of
  two, exactly, then takes the same two fsums).

The negative controls at the end plant a bug in each engine module and check that the
same agreement checks catch it.
"""

import enum
import fractions
import math
import warnings
from decimal import Decimal
from itertools import pairwise

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.signal import lfilter

import bootmark.engine.blocklength as eb
import bootmark.engine.data as ed
import bootmark.engine.intervals as ei
import bootmark.engine.taper as et
import bootmark.reference.blocklength as rb
import bootmark.reference.data as rd
import bootmark.reference.intervals as ri
import bootmark.reference.taper as rt
from bootmark.reference.errors import (
    BlockLengthWarning,
    BootmarkError,
    ErrorCode,
    InvalidDataError,
    InvalidParameterError,
)
from bootmark.reference.specs import IID, CircularBlock, MovingBlock, NonOverlappingBlock, StationaryBlock, TaperedBlock

SETTINGS = settings(deadline=None, max_examples=60)
BLOCK_LENGTH_REL = 1e-10
TAPER_ULPS = 4

# ---------------------------------------------------------------------------------------
# data


def _outcome(function, x):
    try:
        return function(x), None
    except BootmarkError as exc:
        return None, exc


def _assert_same_series(eng, ref):
    values = eng.values
    assert type(values) is np.ndarray and values.dtype == np.float64 and values.flags.c_contiguous
    assert values.shape == (ref.n, ref.d)
    assert (eng.n, eng.d, eng.univariate, eng.labels) == (ref.n, ref.d, ref.univariate, ref.labels)
    expected = np.array(ref.columns, dtype=np.float64).T
    assert np.array_equal(values.view(np.uint64), expected.view(np.uint64)), "values differ (bitwise)"


def _assert_same_outcome(x):
    """The engine accepts x iff the reference does, with equal values or an equal error.
    Returns the reference's error (None if x was accepted)."""
    ref, ref_error = _outcome(rd.as_series, x)
    eng, eng_error = _outcome(ed.as_array, x)
    if ref_error is None:
        assert eng_error is None, f"engine refused what the reference accepts: {eng_error!r}"
        _assert_same_series(eng, ref)
        return None
    assert eng_error is not None, f"engine accepted what the reference refuses: {ref_error!r}"
    assert type(eng_error) is type(ref_error)
    assert (eng_error.code, eng_error.argument) == (ref_error.code, ref_error.argument)
    assert str(eng_error) == str(ref_error)
    return ref_error


# Valid data stay within the magnitude both twins accept (reference.data.MAX_MAGNITUDE).
FINITE = st.floats(min_value=-rd.MAX_MAGNITUDE, max_value=rd.MAX_MAGNITUDE, allow_nan=False, allow_infinity=False)
NUMBER = st.one_of(FINITE, st.integers(-(2**80), 2**80))
LABEL = st.one_of(st.text(max_size=3), st.integers(-5, 5))


def _first(rows):
    return [row[0] for row in rows]


def _labelled(rows, labels):
    return pd.DataFrame(rows, columns=labels)


# (name, element strategy, builder(rows, labels)) - each builder gives a valid input
VALID_FORMS = [
    ("list", NUMBER, lambda rows, labels: _first(rows)),
    ("tuple", NUMBER, lambda rows, labels: tuple(_first(rows))),
    ("rows", NUMBER, lambda rows, labels: rows),
    ("tuple-rows", NUMBER, lambda rows, labels: tuple(map(tuple, rows))),
    ("float64-1d", FINITE, lambda rows, labels: np.array(_first(rows), dtype=np.float64)),
    ("float64-2d", FINITE, lambda rows, labels: np.array(rows, dtype=np.float64)),
    ("float64-fortran", FINITE, lambda rows, labels: np.asfortranarray(np.array(rows, dtype=np.float64))),
    ("float64-reversed-view", FINITE, lambda rows, labels: np.array(rows, dtype=np.float64)[::-1]),
    (
        "float32",
        st.floats(width=32, allow_nan=False, allow_infinity=False),
        lambda rows, labels: np.array(rows, dtype=np.float32),
    ),
    (
        "float16",
        st.floats(width=16, allow_nan=False, allow_infinity=False),
        lambda rows, labels: np.array(_first(rows), dtype=np.float16),
    ),
    ("int64", st.integers(-(2**63), 2**63 - 1), lambda rows, labels: np.array(rows, dtype=np.int64)),
    ("uint64", st.integers(0, 2**64 - 1), lambda rows, labels: np.array(_first(rows), dtype=np.uint64)),
    ("int8", st.integers(-128, 127), lambda rows, labels: np.array(rows, dtype=np.int8)),
    ("object-array", NUMBER, lambda rows, labels: np.array(_first(rows), dtype=object)),
    ("series", FINITE, lambda rows, labels: pd.Series(_first(rows), index=np.arange(len(rows))[::-1])),
    ("series-int", st.integers(-(2**62), 2**62), lambda rows, labels: pd.Series(_first(rows))),
    ("dataframe", FINITE, _labelled),
    ("dataframe-int", st.integers(-(2**62), 2**62), _labelled),
    ("rows-as-arrays", FINITE, lambda rows, labels: [np.array(row) for row in rows]),
    ("rows-as-series", FINITE, lambda rows, labels: [pd.Series(row) for row in rows]),
    (
        "numpy-scalars",
        st.floats(width=32, allow_nan=False, allow_infinity=False),
        lambda rows, labels: [np.float64(v) if i % 2 else np.float32(v) for i, v in enumerate(_first(rows))],
    ),
]


@st.composite
def valid_inputs(draw):
    name, element, build = draw(st.sampled_from(VALID_FORMS))
    n, d = draw(st.integers(2, 30)), draw(st.integers(1, 4))
    rows = draw(st.lists(st.lists(element, min_size=d, max_size=d), min_size=n, max_size=n))
    labels = draw(st.lists(LABEL, min_size=d, max_size=d, unique=True))
    return name, build(rows, labels)


@SETTINGS
@given(valid_inputs())
def test_valid_inputs_give_the_reference_values(case):
    name, x = case
    assert _assert_same_outcome(x) is None, f"{name}: the reference refused a valid input"


class _Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class _Float(float):
    pass


def _zero_d_object_holding_a_list():
    holder = np.empty((), dtype=object)
    holder[()] = [1.0, 2.0, 3.0]
    return holder


# Accepted inputs off the beaten track: each must read exactly as the reference reads it.
ODD_VALID = [
    pytest.param([0.0, -0.0, 5e-324, -2.2250738585072014e-308], id="signed-zero-and-subnormals"),
    pytest.param([2**63 + 1, 2**64 - 1, -(2**63) - 1, 2**53 + 1], id="ints-beyond-int64"),
    pytest.param(np.array([2**53 + 1, 2**63 - 1], dtype=np.int64), id="int64-rounding"),
    pytest.param([fractions.Fraction(1, 3), 2, 3.5], id="fractions"),
    pytest.param([_Level.LOW, _Level.HIGH, 3], id="int-enum"),
    pytest.param([_Float(1.5), 2.5], id="float-subclass"),
    pytest.param([[1, 2.5], (3, 4.5)], id="list-and-tuple-rows"),
    pytest.param(np.array([1.0, 2.0, 3.0], dtype=np.longdouble), id="longdouble"),
    pytest.param(np.ma.array([1.0, 2.0, 3.0]), id="masked-array-no-mask"),
    pytest.param(np.matrix([[1.0, 2.0], [3.0, 4.0]]), id="matrix"),
    pytest.param(_zero_d_object_holding_a_list(), id="0d-object-array-holding-a-list"),
    pytest.param(pd.Series([[1.0, 2.0], [3.0, 4.0]]), id="series-of-rows"),
    pytest.param(pd.Series([1, 2, 3], dtype="Int64"), id="nullable-int-without-na"),
    pytest.param(pd.Series([1.0, 2.0, 1.0], dtype="category"), id="categorical"),
    pytest.param(pd.DataFrame({"a": [1, 2, 3], "b": [0.5, 1.5, 2.5]}), id="dataframe-mixed-dtypes"),
    pytest.param(pd.DataFrame([[1.0], [2.0]], columns=["only"]), id="dataframe-one-column"),
    pytest.param(
        pd.DataFrame([[1.0, 2.0], [3.0, 4.0]], columns=pd.MultiIndex.from_tuples([("a", 1), ("a", 2)])),
        id="dataframe-multiindex-columns",
    ),
    pytest.param(np.arange(12.0).reshape(3, 4)[:, ::2], id="strided-column-view"),
    pytest.param(np.array([[1.0, 2.0, 3.0]]).T, id="one-column-2d"),
]


@pytest.mark.parametrize("x", ODD_VALID)
def test_odd_valid_inputs_give_the_reference_values(x):
    assert _assert_same_outcome(x) is None


NAN, INF = float("nan"), float("inf")
HUGE = 10**400
BAD_INPUTS = [
    # not a container of numbers
    pytest.param("1.0 2.0", id="str"),
    pytest.param(b"12", id="bytes"),
    pytest.param(None, id="none"),
    pytest.param(3.0, id="float-scalar"),
    pytest.param({"a": 1.0, "b": 2.0}, id="dict"),
    pytest.param({1.0, 2.0}, id="set"),
    pytest.param(iter([1.0, 2.0]), id="iterator"),
    pytest.param(range(5), id="range"),
    pytest.param(np.float64(3.0), id="numpy-scalar"),
    pytest.param(np.array(3.0), id="0d-array"),
    # non-numeric content
    pytest.param([1.0, "2.0", 3.0], id="list-with-str"),
    pytest.param([1.0, None, 3.0], id="list-with-none"),
    pytest.param([1.0, 2.0j], id="list-with-complex"),
    pytest.param([True, False, True], id="list-of-bools"),
    pytest.param([1.0, np.bool_(True)], id="list-with-numpy-bool"),
    pytest.param([Decimal(1), 2.0], id="list-with-decimal"),
    pytest.param([1.0, {}], id="list-with-dict"),
    pytest.param(np.array(["1.0", "2.0"]), id="numpy-str"),
    pytest.param(np.array([b"1", b"2"]), id="numpy-bytes"),
    pytest.param(np.array([True, False, True]), id="numpy-bool"),
    pytest.param(np.array([1 + 2j, 3.0]), id="numpy-complex"),
    pytest.param(np.array([1.0, None], dtype=object), id="numpy-object-none"),
    pytest.param(np.array(["2024-01-01", "2024-01-02"], dtype="datetime64[D]"), id="datetime64-days"),
    pytest.param(np.array(["2024-01-01", "2024-01-02"], dtype="datetime64[ns]"), id="datetime64-ns"),
    pytest.param(np.array([1, 2], dtype="timedelta64[s]"), id="timedelta64"),
    pytest.param(pd.Series(pd.to_datetime(["2024-01-01", "2024-01-02"])), id="series-datetime"),
    pytest.param(
        pd.DataFrame({"t": pd.to_datetime(["2024-01-01", "2024-01-02"]), "v": [1.0, 2.0]}),
        id="frame-with-datetime-column",
    ),
    pytest.param(np.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0]), id="masked-array-with-mask"),
    pytest.param(pd.Series(["1.0", "2.0"], dtype=object), id="series-object-str"),
    pytest.param(pd.Series([True, False]), id="series-bool"),
    pytest.param(pd.Series([1, None], dtype="Int64"), id="nullable-int-with-na"),
    pytest.param(pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": ["x", "y", "z"]}), id="dataframe-str-column"),
    pytest.param(pd.DataFrame({"a": [1.0, 2.0], "b": [True, False]}), id="dataframe-bool-column"),
    pytest.param([[1.0, "a"], [2.0, 3.0]], id="row-with-str"),
    pytest.param([[1.0, NAN], ["a", 2.0]], id="str-in-column-0-before-nan-in-column-1"),
    pytest.param([[NAN, 1.0], [2.0, "a"]], id="nan-in-column-0-before-str-in-column-1"),
    pytest.param(["a", NAN], id="str-before-nan"),
    pytest.param([NAN, "a"], id="nan-before-str"),
    # not finite, or too large for a float
    pytest.param([1.0, NAN, 2.0], id="nan"),
    pytest.param([1.0, INF], id="inf"),
    pytest.param([-INF, 1.0], id="minus-inf"),
    pytest.param([HUGE, 1.0, 2.0], id="huge-int"),
    pytest.param([1.0, 2.0, -HUGE], id="huge-negative-int"),
    pytest.param([[1.0, 2.0], [HUGE, 3.0]], id="huge-int-in-a-row"),
    pytest.param(np.array([1.0, HUGE], dtype=object), id="huge-int-object-array"),
    pytest.param([fractions.Fraction(HUGE), 1.0], id="huge-fraction"),
    pytest.param(np.array([1.0, 2.0, NAN]), id="numpy-nan"),
    pytest.param(np.array([[1.0, 2.0], [3.0, -INF], [NAN, 4.0]]), id="numpy-2d-column-major-first-bad"),
    pytest.param(np.array([1.0, INF], dtype=np.float32), id="float32-inf"),
    pytest.param(np.array([1.0, np.inf], dtype=np.float16), id="float16-inf"),
    pytest.param(np.array([np.longdouble("1e400"), 1.0]), id="longdouble-beyond-float64"),
    pytest.param(pd.Series([1.0, NAN, 2.0]), id="series-nan"),
    pytest.param(pd.Series([1.0, None, 3.0], dtype="Float64"), id="nullable-float-with-na"),
    pytest.param(pd.DataFrame({"x": [1.0, 2.0], "y": [3.0, INF]}), id="dataframe-inf-named-column"),
    pytest.param([np.array([1.0, 2.0]), np.array([NAN, 3.0])], id="rows-as-arrays-with-nan"),
    pytest.param([NAN], id="nan-before-too-short"),
    pytest.param([[NAN, 1.0]], id="nan-in-the-only-row"),
    # shape
    pytest.param([], id="empty-list"),
    pytest.param((), id="empty-tuple"),
    pytest.param(np.array([]), id="empty-array"),
    pytest.param(np.zeros((0, 3)), id="zero-rows"),
    pytest.param(np.zeros((3, 0)), id="zero-columns"),
    pytest.param(pd.DataFrame(), id="empty-dataframe"),
    pytest.param(pd.DataFrame(np.zeros((3, 0))), id="dataframe-zero-columns"),
    pytest.param(pd.DataFrame(np.zeros((0, 2)), columns=["a", "a"]), id="dataframe-empty-duplicate-labels"),
    pytest.param(pd.DataFrame([[1.0, NAN], [2.0, 3.0]], columns=["a", "a"]), id="duplicate-labels-before-nan"),
    pytest.param(pd.Series([], dtype=float), id="empty-series"),
    pytest.param([[]], id="one-empty-row"),
    pytest.param([[], []], id="empty-rows"),
    pytest.param([[1.0, 2.0], [3.0]], id="ragged"),
    pytest.param([[1.0, 2.0], [3.0, 4.0, 5.0]], id="ragged-longer"),
    pytest.param([[1.0, 2.0], [3.0, [4.0]]], id="3d-in-a-row"),
    pytest.param([[1.0, 2.0], [3.0, [4.0]], [5.0]], id="3d-before-ragged"),
    pytest.param([[1.0, 2.0], [3.0], [5.0, [6.0]]], id="ragged-before-3d"),
    pytest.param([[[1.0], [2.0]], [[3.0], [4.0]]], id="3d-lists"),
    pytest.param(np.zeros((2, 2, 2)), id="3d-array"),
    pytest.param(np.zeros((2, 1, 1, 2)), id="4d-array"),
    pytest.param([np.zeros((2, 2)), np.zeros((2, 2))], id="rows-as-2d-arrays"),
    pytest.param([1.0, [2.0, 3.0]], id="numbers-then-rows"),
    pytest.param([[2.0, 3.0], 1.0], id="rows-then-numbers"),
    pytest.param([1.0, np.array([2.0])], id="number-and-array-row"),
    # too short
    pytest.param([1.0], id="one-value"),
    pytest.param(np.array([1.0]), id="one-value-array"),
    pytest.param([[1.0, 2.0]], id="one-row"),
    pytest.param(pd.Series([1.0]), id="one-value-series"),
    pytest.param(pd.DataFrame({"a": [1.0], "b": [2.0]}), id="one-row-dataframe"),
]


@pytest.mark.parametrize("x", BAD_INPUTS)
def test_bad_inputs_raise_the_reference_error(x):
    assert _assert_same_outcome(x) is not None, "the reference accepted a case listed as bad"


def test_bad_input_list_covers_every_data_error_code():
    codes = set()
    for case in BAD_INPUTS:
        codes.add(_outcome(rd.as_series, case.values[0])[1].code)
    assert codes == {ErrorCode.DATA_TYPE, ErrorCode.DATA_SHAPE, ErrorCode.DATA_NOT_FINITE, ErrorCode.DATA_TOO_SHORT}


BAD_VALUES = [NAN, INF, -INF, "1", None, True, np.bool_(False), HUGE, -HUGE, 1j, Decimal(1), b"x", [1.0], (2.0, 3.0)]


@st.composite
def spoiled_inputs(draw):
    """A valid series or rows with a few elements replaced by bad values, rows possibly
    cut short, wrapped in one of several containers."""
    n, d = draw(st.integers(1, 12)), draw(st.integers(0, 3))
    rows = [[draw(NUMBER) for _ in range(max(d, 1))] for _ in range(n)]
    for _ in range(draw(st.integers(0, 3))):
        i, j = draw(st.integers(0, n - 1)), draw(st.integers(0, max(d, 1) - 1))
        rows[i][j] = draw(st.sampled_from(BAD_VALUES))
    if d and draw(st.booleans()):
        i = draw(st.integers(0, n - 1))
        rows[i] = rows[i][: draw(st.integers(0, d))]
    x = _first(rows) if d == 0 else rows
    wrap = draw(st.sampled_from(["list", "tuple", "object-array", "series", "dataframe"]))
    try:
        if wrap == "tuple":
            return tuple(x)
        if wrap == "object-array":
            holder = np.empty(len(x), dtype=object)
            holder[:] = x if d == 0 else [list(row) for row in x]
            return holder
        if wrap == "series":
            return pd.Series(x, dtype=object) if d == 0 else pd.Series([list(row) for row in x], dtype=object)
        if wrap == "dataframe":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # pandas pads ragged rows with NaN, deprecated
                return pd.DataFrame(x if d else [[v] for v in x])
    except (ValueError, TypeError):
        assume(False)
    return x


@settings(deadline=None, max_examples=300)
@given(spoiled_inputs())
def test_spoiled_inputs_fail_like_the_reference(x):
    # Checks class, code, argument and message: the same first bad element is named.
    _assert_same_outcome(x)


def test_values_are_a_private_copy():
    x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    series = ed.as_array(x)
    x[:] = 0.0
    assert series.values.tolist() == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]


def test_univariate_values_are_one_column():
    series = ed.as_array(np.arange(5.0))
    assert series.values.shape == (5, 1) and series.univariate and series.labels is None


def test_too_long_data_is_refused_like_the_reference(monkeypatch):
    # A real 2**31-row input needs 16 GiB; lower both limits instead (read at call time).
    monkeypatch.setattr(rd, "MAX_OBSERVATIONS", 5)
    monkeypatch.setattr(ed, "MAX_OBSERVATIONS", 5)
    error = _assert_same_outcome(np.arange(6.0))
    assert error.code is ErrorCode.DATA_TOO_LONG
    assert _assert_same_outcome(np.arange(5.0)) is None
    assert _assert_same_outcome([[1.0, 2.0]] * 6).code is ErrorCode.DATA_TOO_LONG


# ---------------------------------------------------------------------------------------
# blocklength


def _ar1(rng, n, phi, offset, scale):
    shocks = rng.standard_normal(n + 200)
    return offset + scale * lfilter([1.0], [1.0, -phi], shocks)[200:]


def _close(eng, ref, rel):
    return abs(eng - ref) <= rel * abs(ref)


def _assert_block_lengths_agree(x, rel=BLOCK_LENGTH_REL):
    """Raw estimates within ``rel``, resolved lengths and labels identical (or the same
    error). The reference reads x as plain lists, the engine as numpy."""
    as_lists = x.tolist() if isinstance(x, np.ndarray) else x
    ref, ref_error = _outcome(rb.optimal_block_length, as_lists)
    eng, eng_error = _outcome(eb.optimal_block_length, x)
    if ref_error is not None or eng_error is not None:
        assert ref_error is not None and eng_error is not None, (ref_error, eng_error)
        assert (type(eng_error), eng_error.code, str(eng_error)) == (type(ref_error), ref_error.code, str(ref_error))
        return
    for name in ("stationary", "circular"):
        ours, theirs = getattr(eng, name), getattr(ref, name)
        if isinstance(theirs, tuple):
            assert isinstance(ours, tuple) and len(ours) == len(theirs)
            assert all(type(v) is float and _close(v, w, rel) for v, w in zip(ours, theirs, strict=True)), (
                name,
                ours,
                theirs,
            )
        else:
            assert type(ours) is float and _close(ours, theirs, rel), (name, ours, theirs)
    assert (eng.stationary_length, eng.circular_length) == (ref.stationary_length, ref.circular_length)
    assert eng.labels == ref.labels


SERIES_SHAPE = dict(
    n=st.integers(10, 1200),
    phi=st.floats(-0.9, 0.97),
    seed=st.integers(0, 2**32 - 1),
    scale=st.floats(1e-3, 1e3),
    offset=st.floats(-100.0, 100.0),
)


@settings(deadline=None, max_examples=80)
@given(**SERIES_SHAPE)
def test_block_lengths_agree_on_ar1(n, phi, seed, scale, offset):
    _assert_block_lengths_agree(_ar1(np.random.default_rng(seed), n, phi, offset * scale, scale))


@settings(deadline=None, max_examples=40)
@given(n=st.integers(10, 1200), seed=st.integers(0, 2**32 - 1))
def test_block_lengths_agree_on_white_noise(n, seed):
    _assert_block_lengths_agree(np.random.default_rng(seed).standard_normal(n))


@settings(deadline=None, max_examples=40)
@given(
    n=st.integers(10, 600),
    phis=st.lists(st.floats(-0.9, 0.97), min_size=2, max_size=3),
    seed=st.integers(0, 2**32 - 1),
    labelled=st.booleans(),
)
def test_block_lengths_agree_on_multivariate_data(n, phis, seed, labelled):
    rng = np.random.default_rng(seed)
    columns = np.column_stack([_ar1(rng, n, phi, 0.0, 1.0) for phi in phis])
    if labelled:
        frame = pd.DataFrame(columns, columns=[f"v{j}" for j in range(len(phis))])
        ref = rb.optimal_block_length(frame)
        assert ref.labels == tuple(frame.columns)
        _assert_block_lengths_agree(frame)
    else:
        _assert_block_lengths_agree(columns)


@settings(deadline=None, max_examples=60)
@given(st.lists(st.integers(-1000, 1000), min_size=6, max_size=40))
def test_block_lengths_agree_on_short_integer_series(values):
    # n below m_max: the lags run past the end of the series.
    _assert_block_lengths_agree(np.array(values, dtype=np.float64))


@settings(deadline=None, max_examples=40)
@given(st.lists(st.integers(-1000, 1000), min_size=2, max_size=5))
def test_block_lengths_of_five_or_fewer_values_are_refused_by_both_twins(values):
    # For n <= 5 the flat top covers every lag with weight 1, so sigma2 = (sum e_t)**2 / n
    # = 0 exactly: any estimate would be rounding noise, and both twins refuse it.
    for module, x in ((rb, values), (eb, np.array(values, dtype=np.float64))):
        estimate, error = _outcome(module.optimal_block_length, x)
        assert error is not None and error.code is ErrorCode.BLOCK_LENGTH_ESTIMATE, (module.__name__, estimate)


CONSTANT = [
    pytest.param([3.0] * 50, id="constant"),
    pytest.param([1 / 3] * 50, id="constant-with-inexact-mean"),
    pytest.param([[1.0, 3.0]] * 20 + [[2.0, 3.0]] * 20, id="one-constant-column"),
    pytest.param(pd.DataFrame({"a": np.arange(30.0), "b": np.full(30, 2.5)}), id="dataframe-constant-column"),
    pytest.param([1.0, 1.0], id="two-equal-values"),
]


@pytest.mark.parametrize("x", CONSTANT)
def test_constant_columns_raise_the_reference_error(x):
    with pytest.raises(InvalidDataError) as info:
        eb.optimal_block_length(x)
    assert info.value.code is ErrorCode.BLOCK_LENGTH_ESTIMATE and info.value.argument == "x"
    _assert_block_lengths_agree(x)


def test_bad_data_raises_the_data_error():
    with pytest.raises(InvalidDataError) as info:
        eb.optimal_block_length([1.0, float("nan"), 2.0])
    assert info.value.code is ErrorCode.DATA_NOT_FINITE


@settings(deadline=None, max_examples=15)
@given(n=st.integers(10, 500), phi=st.floats(-0.9, 0.97), seed=st.integers(0, 2**32 - 1), power=st.integers(-900, 900))
def test_engine_estimate_is_exactly_scale_free_in_powers_of_two(n, phi, seed, power):
    # Power-of-two scaling is exact, and the engine normalises each column by one, so the
    # estimate at 2**power (including near the float limits) is the estimate at scale 1.
    x = _ar1(np.random.default_rng(seed), n, phi, 0.0, 1.0)
    assume(np.all(np.abs(np.ldexp(x, power)) <= rd.MAX_MAGNITUDE))  # beyond it both twins refuse the data
    assert eb.optimal_block_length(np.ldexp(x, power)) == eb.optimal_block_length(x)


def test_huge_data_block_lengths_agree():
    # Both twins scale each column by a power of two first (the reference once leaked a
    # bare ValueError from an overflowing fsum here); 1e140 is within MAX_MAGNITUDE.
    _assert_block_lengths_agree(_ar1(np.random.default_rng(3), 200, 0.5, 0.0, 1e140))


def _resolve_with_warnings(module, method, series):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            resolved = module.resolve_method(method, series)
        except BootmarkError as exc:
            resolved = (type(exc), exc.code, exc.argument, str(exc))
    return resolved, [(w.category, str(w.message)) for w in caught]


SPEC_TYPES = [MovingBlock, CircularBlock, NonOverlappingBlock, StationaryBlock, TaperedBlock]
N_RESOLVE = 60


@pytest.mark.parametrize("spec_type", SPEC_TYPES, ids=lambda t: t.__name__)
@pytest.mark.parametrize(
    "length",
    ["auto", 1, 7, N_RESOLVE // 2, N_RESOLVE // 2 + 1, N_RESOLVE - 1, N_RESOLVE, N_RESOLVE + 1, 10 * N_RESOLVE],
)
@pytest.mark.parametrize("phi", [0.0, 0.9])
def test_resolve_method_agrees(spec_type, length, phi):
    x = _ar1(np.random.default_rng(11), N_RESOLVE, phi, 0.0, 1.0)
    method = spec_type(length)
    ours = _resolve_with_warnings(eb, method, ed.as_array(x))
    theirs = _resolve_with_warnings(rb, method, rd.as_series(x.tolist()))
    assert ours == theirs
    if length == N_RESOLVE or (spec_type is NonOverlappingBlock and length == N_RESOLVE // 2 + 1):
        assert [category for category, _ in ours[1]] == [BlockLengthWarning]
    if isinstance(length, int) and length > N_RESOLVE:
        assert ours[0][:2] == (InvalidParameterError, ErrorCode.BLOCK_LENGTH)


def test_resolve_method_leaves_iid_alone_and_resolves_rows():
    rows = np.column_stack([_ar1(np.random.default_rng(5), 80, phi, 0.0, 1.0) for phi in (0.2, 0.9)])
    assert eb.resolve_method(IID(), ed.as_array(rows)) == IID()
    for spec_type in SPEC_TYPES:
        assert _resolve_with_warnings(eb, spec_type("auto"), ed.as_array(rows)) == _resolve_with_warnings(
            rb, spec_type("auto"), rd.as_series(rows.tolist())
        )


# ---------------------------------------------------------------------------------------
# taper


def _assert_taper_agrees(method, ulps=TAPER_ULPS):
    ours = et.taper_weights(method)
    theirs = np.array(rt.taper_weights(method))
    assert type(ours) is np.ndarray and ours.dtype == np.float64 and ours.shape == theirs.shape
    assert np.all(np.abs(ours - theirs) <= ulps * np.spacing(np.abs(theirs))), (
        f"max ulps {np.max(np.abs(ours - theirs) / np.spacing(np.abs(theirs)))}"
    )


@settings(deadline=None, max_examples=150)
@given(
    b=st.integers(1, 3000),
    window=st.sampled_from(["tukey", "bartlett", "hann"]),
    fraction=st.one_of(st.none(), st.floats(1e-6, 1.0), st.sampled_from([1.0, 0.5, 0.1])),
)
def test_taper_weights_agree_within_4_ulps(b, window, fraction):
    method = TaperedBlock(b, window=window, taper_fraction=fraction if window == "tukey" else None)
    _assert_taper_agrees(method)


# ---------------------------------------------------------------------------------------
# intervals


@st.composite
def replicate_sets(draw):
    """(replicates, point, alpha): continuous, heavy-tailed or tied replicates."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    b = draw(st.one_of(st.integers(1, 12), st.integers(13, 3000)))
    shape = draw(st.sampled_from(["normal", "cauchy", "ties", "listed"]))
    if shape == "listed":
        # Magnitudes >= 1e-100 (or 0): the reference's squares of deviations below ~1e-154
        # underflow to 0, where the engine's power-of-two scaling keeps them.
        moderate = st.floats(-1e100, 1e100).filter(lambda v: v == 0.0 or abs(v) >= 1e-100)
        values = np.array(draw(st.lists(moderate, min_size=1, max_size=40)), dtype=np.float64)
    else:
        loc, scale = draw(st.floats(-1e6, 1e6)), draw(st.floats(1e-6, 1e6))
        raw = {
            "normal": rng.standard_normal,
            "cauchy": rng.standard_cauchy,
            "ties": lambda size: rng.integers(0, 5, size).astype(np.float64),
        }[shape](b)
        values = loc + scale * raw
    point = float(values[draw(st.integers(0, len(values) - 1))])
    alpha = draw(st.one_of(st.sampled_from([0.05, 0.1, 0.32, 0.5]), st.floats(1e-12, 1.0 - 1e-12)))
    return values, point, alpha


def _assert_intervals_agree(replicates, point, alpha):
    as_list = replicates.tolist()
    for kind in ("percentile", "basic"):
        ours = ei.interval(kind, replicates, point, alpha)
        theirs = ri.interval(kind, as_list, point, alpha)
        assert all(type(v) is float for v in ours)
        assert ours == theirs, (kind, ours, theirs)  # bit for bit: the same linear rule
    ours_se, theirs_se = ei.bootstrap_standard_error(replicates), ri.bootstrap_standard_error(as_list)
    if math.isfinite(theirs_se):  # the reference's squares overflow for |s| near 1e154; the engine's do not
        assert ours_se == theirs_se, (ours_se, theirs_se)  # bit for bit, as README promises
    ours = ei.interval("normal", replicates, point, alpha)
    theirs = ri.interval("normal", as_list, point, alpha)
    if math.isfinite(theirs_se):
        assert ours == theirs, (ours, theirs)  # the same se, then the same two roundings


@settings(deadline=None, max_examples=150)
@given(replicate_sets())
def test_intervals_agree(case):
    _assert_intervals_agree(*case)


def test_interval_refuses_an_unknown_kind():
    # The reference's interval() treats any other kind as "basic" (its callers check the
    # kind first); the engine checks it itself.
    with pytest.raises(InvalidParameterError) as info:
        ei.interval("bca", np.arange(5.0), 1.0, 0.1)
    assert info.value.code is ErrorCode.INTERVAL_KIND and info.value.argument == "kind"
    assert ei.INTERVAL_KINDS is ri.INTERVAL_KINDS and ei.check_kind is ri.check_kind


def test_normal_interval_survives_huge_replicates():
    replicates = np.array([1e300, -1e300, 5e299])
    lower, upper = ei.interval("normal", replicates, 0.0, 0.1)
    assert math.isfinite(lower) and math.isfinite(upper) and lower < 0.0 < upper


# ---------------------------------------------------------------------------------------
# negative controls: a planted bug in each module must fail the agreement checks above


def test_negative_control_block_length_bandwidth_off_by_one(monkeypatch):
    x = _ar1(np.random.default_rng(1), 500, 0.5, 0.0, 1.0)
    _assert_block_lengths_agree(x)
    monkeypatch.setattr(
        eb, "flat_top_bandwidth", lambda m_hat, m_max: m_max if m_hat is None else min(2 * max(m_hat, 1) + 1, m_max)
    )
    with pytest.raises(AssertionError):
        _assert_block_lengths_agree(x)


def test_negative_control_an_se_one_rounding_off_fails_the_bitwise_check(monkeypatch):
    """np.std (pairwise sums) is within 7e-15 of the twins' fsum se on this case, which the
    old 1e-12 tolerance accepted; the bit-for-bit promise does not."""
    case = (1e6 + np.random.default_rng(10).standard_normal(2999) * 1e-3, 1e6, 0.1)
    _assert_intervals_agree(*case)
    monkeypatch.setattr(ei, "bootstrap_standard_error", lambda r: float(np.std(r)))
    with pytest.raises(AssertionError):
        _assert_intervals_agree(*case)


def test_negative_control_interval_with_divisor_b_minus_one(monkeypatch):
    case = (np.random.default_rng(2).standard_normal(999), 0.0, 0.1)
    _assert_intervals_agree(*case)
    monkeypatch.setattr(ei, "bootstrap_standard_error", lambda r: float(np.std(r, ddof=1)))
    with pytest.raises(AssertionError):
        _assert_intervals_agree(*case)


def test_negative_control_data_fast_path_that_lets_bools_through(monkeypatch):
    x = [1.0, True, 2.0]
    _assert_same_outcome(x)
    monkeypatch.setattr(ed, "_PLAIN_NUMBERS", frozenset({float, int, bool}))
    with pytest.raises(AssertionError):
        _assert_same_outcome(x)


def test_negative_control_taper_with_a_one_ulp_scale_error(monkeypatch):
    method = TaperedBlock(40, window="hann")
    _assert_taper_agrees(method)
    real = et.taper_weights
    monkeypatch.setattr(et, "taper_weights", lambda m: real(m) * (1.0 + 8 * np.finfo(float).eps))
    with pytest.raises(AssertionError):
        _assert_taper_agrees(method)


def test_chunks_cover_every_replicate_once_in_order():
    from bootmark.engine.parallel import chunk_bounds

    for replicates, nanoseconds, threads in [(1, 10**9, 2), (999, 4_000_000, 2), (10_000, 10**9, 2), (5, 10**9, 4)]:
        bounds = chunk_bounds(replicates, nanoseconds, threads)
        assert bounds[0] == 0 and bounds[-1] == replicates
        assert all(a < b for a, b in pairwise(bounds))  # no empty chunk, no overlap
        assert len(bounds) - 1 <= 8 * threads


def _team_threads():
    import threading

    return [t for t in threading.enumerate() if t.name.startswith("bootmark-engine-")]


def _threaded_means(monkeypatch):
    # A small request, forced onto every thread in many chunks.
    from bootmark import engine
    from bootmark.engine import parallel

    monkeypatch.setattr(parallel, "PARALLEL_MIN_NANOSECONDS", 0)
    monkeypatch.setattr(parallel, "CHUNK_NANOSECONDS", 1)
    x = np.random.default_rng(5).standard_normal(300)
    return engine.bootstrap_reduce(x, engine.StationaryBlock(7), "mean", n_bootstraps=64, seed=3).statistics


def test_the_thread_team_starts_once_and_follows_set_num_threads(monkeypatch):
    import numba

    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs 2 Numba threads to start a helper")
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(2)
        first = _threaded_means(monkeypatch)
        team = _team_threads()
        assert len(team) >= 1  # the caller plus at least one helper ran the request
        for _ in range(5):
            assert np.array_equal(_threaded_means(monkeypatch), first)
        assert _team_threads() == team  # no thread started per call
        numba.set_num_threads(1)
        assert np.array_equal(_threaded_means(monkeypatch), first)  # same bits on one thread
    finally:
        numba.set_num_threads(before)


def _means_in_child(results):
    import pytest as child_pytest

    results.put(_threaded_means(child_pytest.MonkeyPatch()))


def test_the_thread_team_works_in_a_forked_child(monkeypatch):
    # The parent's helpers do not exist after fork: a child that kept the parent's team
    # would queue work for them and wait forever (what removing both the fork hook and
    # the pid check in engine/parallel.py gives; the timeout turns it into a failure).
    import multiprocessing

    parent = _threaded_means(monkeypatch)  # the team exists before the fork
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    child = context.Process(target=_means_in_child, args=(results,))
    child.start()
    child.join(60)
    if child.is_alive():
        child.kill()
        pytest.fail("the forked child's parallel request did not finish in 60 s")
    assert np.array_equal(results.get(timeout=5), parent)


def test_a_failure_on_a_helper_thread_is_raised_in_the_caller(monkeypatch):
    from bootmark.engine import parallel

    monkeypatch.setattr(parallel, "PARALLEL_MIN_NANOSECONDS", 0)
    seen = []

    def task(begin, end, scratch):
        seen.append(begin)
        if begin > 0:
            raise ZeroDivisionError("planted")

    with pytest.raises(ZeroDivisionError, match="planted"):
        parallel.run_replicates(task, 8, 10**9, lambda: None)
