"""pandas in, sensible types out (reference twin).

* a Series is one series: statistics, bounds and quantiles come back as plain floats;
* a DataFrame is n rows of d variables, resampled together: per-column results come
  back as dicts keyed by the column labels;
* an unlabelled 2-D array gives lists in column order;
* the container never changes the numbers: a Series, a list and a numpy array of the
  same values give identical results for the same seed.
"""

import math

import numpy as np
import pandas as pd
import pytest

from bootmark import reference as twin

# An AR(1)-like series with some persistence, written out so the test does not depend on
# any random generator. Its index is deliberately not 0..n-1.
A = [
    0.3,
    0.9,
    1.4,
    0.7,
    -0.2,
    -0.8,
    -0.1,
    0.6,
    1.1,
    1.9,
    1.2,
    0.4,
    -0.5,
    -1.3,
    -0.9,
    0.2,
    0.8,
    0.5,
    -0.4,
    0.1,
    0.9,
    1.6,
    2.2,
    1.5,
    0.6,
    -0.3,
    -1.1,
    -0.6,
    0.0,
    0.7,
]
N = len(A)
B_COL = [10.0 + 3.0 * i - (i % 4) * 1.5 for i in range(N)]  # a second, distinct variable
SEED = 20260117
REPS = 60


def _series():
    return pd.Series(A, index=pd.date_range("2024-01-01", periods=N, freq="D"), name="y")


def _frame():
    return pd.DataFrame({"a": A, "b": B_COL}, index=pd.RangeIndex(100, 100 + N))


def _is_float(value):
    return type(value) is float and math.isfinite(value)


@pytest.mark.parametrize("kind", ["percentile", "basic", "normal"])
@pytest.mark.parametrize("statistic", ["mean", "std", "median", ("quantile", 0.25)])
def test_series_interval_is_three_floats(kind, statistic):
    ci = twin.conf_int(_series(), statistic, twin.MovingBlock(4), alpha=0.1, kind=kind, n_bootstraps=REPS, seed=SEED)
    lower, upper, point = ci
    assert _is_float(lower) and _is_float(upper) and _is_float(point)
    assert lower <= upper
    assert (ci.lower, ci.upper, ci.point) == (lower, upper, point)


def test_series_reduce_gives_floats():
    result = twin.bootstrap_reduce(_series(), twin.CircularBlock(3), "mean", n_bootstraps=REPS, seed=SEED)
    assert _is_float(result.point)
    assert len(result.statistics) == REPS and all(_is_float(s) for s in result.statistics)
    assert _is_float(result.quantile(0.5))
    assert result.point == pytest.approx(sum(A) / N, rel=1e-15)
    median = result.quantile(0.5)
    assert min(result.statistics) <= median <= max(result.statistics)
    assert all(_is_float(q) for q in result.quantile([0.1, 0.9]))


def test_series_values_are_lists_of_floats():
    values = twin.bootstrap(_series(), twin.StationaryBlock(3), n_bootstraps=4, seed=SEED).values()
    assert len(values) == 4
    for replicate in values:
        assert isinstance(replicate, list) and len(replicate) == N
        assert all(type(v) is float for v in replicate)
        assert set(replicate) <= set(A)


def test_dataframe_gives_dicts_keyed_by_column_labels():
    frame = _frame()
    lower, upper, point = twin.conf_int(frame, "mean", twin.MovingBlock(4), alpha=0.1, n_bootstraps=REPS, seed=SEED)
    for part in (lower, upper, point):
        assert isinstance(part, dict) and list(part) == ["a", "b"]
        assert all(_is_float(v) for v in part.values())
    assert all(lower[k] <= upper[k] for k in ("a", "b"))
    assert point["a"] == pytest.approx(sum(A) / N, rel=1e-15)
    assert point["b"] == pytest.approx(sum(B_COL) / N, rel=1e-15)

    result = twin.bootstrap_reduce(frame, twin.MovingBlock(4), "median", n_bootstraps=REPS, seed=SEED)
    median = result.quantile(0.5)
    assert isinstance(median, dict) and list(median) == ["a", "b"]
    assert all(_is_float(v) for v in median.values())
    assert isinstance(result.point, dict) and list(result.point) == ["a", "b"]
    assert result.labels == ("a", "b")


def test_dataframe_columns_equal_series_results():
    # Rows are resampled together, so each column's interval equals the interval of that
    # column alone under the same method, seed and (explicit) block length.
    frame = _frame()
    joint = twin.conf_int(frame, "std", twin.CircularBlock(5), n_bootstraps=REPS, seed=SEED)
    for label in ("a", "b"):
        alone = twin.conf_int(frame[label], "std", twin.CircularBlock(5), n_bootstraps=REPS, seed=SEED)
        assert (joint.lower[label], joint.upper[label], joint.point[label]) == tuple(alone)


def test_dataframe_with_integer_labels_keeps_them():
    frame = pd.DataFrame({0: A, 7: B_COL})
    lower, upper, point = twin.conf_int(frame, "mean", twin.IID(), n_bootstraps=REPS, seed=SEED)
    assert list(lower) == [0, 7] and list(point) == [0, 7]


def test_numpy_2d_gives_lists():
    array = np.column_stack([A, B_COL])
    lower, upper, point = twin.conf_int(array, "mean", twin.MovingBlock(4), n_bootstraps=REPS, seed=SEED)
    for part in (lower, upper, point):
        assert isinstance(part, list) and len(part) == 2 and all(_is_float(v) for v in part)
    result = twin.bootstrap_reduce(array, twin.MovingBlock(4), "var", n_bootstraps=REPS, seed=SEED)
    quantile = result.quantile(0.5)
    assert isinstance(quantile, list) and len(quantile) == 2 and all(_is_float(v) for v in quantile)
    assert all(isinstance(s, tuple) and len(s) == 2 for s in result.statistics)
    # same numbers as the labelled DataFrame, in column order
    labelled = twin.conf_int(_frame(), "mean", twin.MovingBlock(4), n_bootstraps=REPS, seed=SEED)
    assert lower == [labelled.lower["a"], labelled.lower["b"]]
    assert upper == [labelled.upper["a"], labelled.upper["b"]]


def test_single_column_frame_is_still_a_dict():
    frame = pd.DataFrame({"only": A})
    lower, upper, point = twin.conf_int(frame, "mean", twin.IID(), n_bootstraps=REPS, seed=SEED)
    assert isinstance(point, dict) and list(point) == ["only"]
    assert (lower["only"], upper["only"], point["only"]) == tuple(
        twin.conf_int(A, "mean", twin.IID(), n_bootstraps=REPS, seed=SEED)
    )


@pytest.mark.parametrize(
    "method",
    [
        twin.IID(),
        twin.MovingBlock(4),
        twin.CircularBlock(4),
        twin.NonOverlappingBlock(4),
        twin.StationaryBlock(4),
        twin.TaperedBlock(4),
        twin.MovingBlock("auto"),
        twin.StationaryBlock("auto"),
    ],
    ids=repr,
)
def test_series_list_and_array_agree_exactly(method):
    containers = {"series": _series(), "list": list(A), "tuple": tuple(A), "array": np.array(A)}
    results = {
        name: twin.bootstrap_reduce(x, method, ("quantile", 0.3), n_bootstraps=REPS, seed=SEED)
        for name, x in containers.items()
    }
    intervals = {
        name: tuple(twin.conf_int(x, "mean", method, kind="basic", n_bootstraps=REPS, seed=SEED))
        for name, x in containers.items()
    }
    values = {name: twin.bootstrap(x, method, n_bootstraps=5, seed=SEED).values() for name, x in containers.items()}
    reference_name = "list"
    for name in containers:
        assert results[name].statistics == results[reference_name].statistics, name
        assert results[name].point == results[reference_name].point, name
        assert results[name].method == results[reference_name].method, name
        assert intervals[name] == intervals[reference_name], name
        assert values[name] == values[reference_name], name
    # and the common answer is not degenerate
    assert len(set(results[reference_name].statistics)) > 1


def test_float32_series_is_read_as_its_float32_values():
    x32 = pd.Series(np.array(A, dtype=np.float32))
    widened = [float(v) for v in np.array(A, dtype=np.float32)]
    assert (
        twin.bootstrap_reduce(x32, twin.IID(), "mean", n_bootstraps=10, seed=SEED).statistics
        == twin.bootstrap_reduce(widened, twin.IID(), "mean", n_bootstraps=10, seed=SEED).statistics
    )


def test_integer_series_equals_float_series():
    ints = pd.Series([int(round(10 * v)) for v in A])
    floats = [float(v) for v in ints]
    assert tuple(twin.conf_int(ints, "median", twin.MovingBlock(3), n_bootstraps=REPS, seed=SEED)) == tuple(
        twin.conf_int(floats, "median", twin.MovingBlock(3), n_bootstraps=REPS, seed=SEED)
    )


@pytest.mark.parametrize(
    "method",
    [twin.MovingBlock(3), twin.CircularBlock(3), twin.NonOverlappingBlock(3), twin.StationaryBlock(3), twin.IID()],
    ids=repr,
)
def test_dataframe_resamples_rows_together(method):
    frame = _frame()
    rows = [list(r) for r in frame.to_numpy().tolist()]
    result = twin.bootstrap(frame, method, n_bootstraps=5, seed=1)
    values, indices = result.values(), result.indices()
    assert len(values) == 5
    original = {tuple(r) for r in rows}
    assert len(original) == N  # rows are distinct, so a mixed-up row would be caught
    for replicate, row_indices in zip(values, indices, strict=True):
        assert len(replicate) == N
        for resampled_row, i in zip(replicate, row_indices, strict=True):
            assert tuple(resampled_row) in original
            assert list(resampled_row) == rows[i]
    assert any(replicate != rows for replicate in values)  # not just the original back


def test_dataframe_rows_together_is_detectable():
    # negative control: resampling the columns independently breaks the row check above
    frame = _frame()
    original = {tuple(r) for r in frame.to_numpy().tolist()}
    a = twin.bootstrap(frame["a"], twin.MovingBlock(3), n_bootstraps=1, seed=1).values()[0]
    b = twin.bootstrap(frame["b"], twin.MovingBlock(3), n_bootstraps=1, seed=2).values()[0]
    assert any((u, v) not in original for u, v in zip(a, b, strict=True))


def test_series_several_quantile_levels_give_dict_keyed_by_level():
    levels = (0.1, 0.9)
    lower, upper, point = twin.conf_int(
        _series(), ("quantile", levels), twin.MovingBlock(4), n_bootstraps=REPS, seed=SEED
    )
    for part in (lower, upper, point):
        assert isinstance(part, dict) and list(part) == list(levels)
        assert all(_is_float(v) for v in part.values())
    assert point[0.1] < point[0.9]
    result = twin.bootstrap_reduce(_series(), twin.MovingBlock(4), ("quantile", levels), n_bootstraps=REPS, seed=SEED)
    assert list(result.point) == list(levels)
    assert list(result.quantile(0.5)) == list(levels)
    # each level matches the single-level statistic
    for level in levels:
        alone = twin.conf_int(_series(), ("quantile", level), twin.MovingBlock(4), n_bootstraps=REPS, seed=SEED)
        assert (lower[level], upper[level], point[level]) == tuple(alone)


def test_dataframe_several_quantile_levels_key_by_label_and_level():
    levels = [0.25, 0.75]
    point = twin.conf_int(_frame(), ("quantile", levels), twin.IID(), n_bootstraps=REPS, seed=SEED).point
    assert list(point) == [("a", 0.25), ("a", 0.75), ("b", 0.25), ("b", 0.75)]
    assert point[("a", 0.25)] == float(np.quantile(A, 0.25))
    assert point[("b", 0.75)] == float(np.quantile(B_COL, 0.75))


def test_optimal_block_length_of_dataframe_is_per_column():
    estimate = twin.optimal_block_length(_frame())
    assert estimate.labels == ("a", "b")
    for raw in (estimate.stationary, estimate.circular):
        assert isinstance(raw, tuple) and len(raw) == 2
        assert all(isinstance(v, (int, float)) and math.isfinite(v) and v > 0 for v in raw)
    for j, label in enumerate(("a", "b")):
        alone = twin.optimal_block_length(_frame()[label])
        assert alone.labels is None
        assert estimate.stationary[j] == alone.stationary
        assert estimate.circular[j] == alone.circular
    # "auto" on a frame resolves to the longest per-column length
    assert estimate.stationary_length == max(min(max(1, math.ceil(v)), N) for v in estimate.stationary)
    assert estimate.circular_length == max(min(max(1, math.ceil(v)), N) for v in estimate.circular)
    assert type(estimate.stationary_length) is int and type(estimate.circular_length) is int


def test_optimal_block_length_of_series_is_a_number():
    from_series = twin.optimal_block_length(_series())
    from_list = twin.optimal_block_length(A)
    from_array = twin.optimal_block_length(np.array(A))
    assert from_series == from_list == from_array
    assert isinstance(from_series.stationary, (int, float)) and not isinstance(from_series.stationary, bool)
    assert from_series.labels is None
    # the persistent series needs blocks longer than one observation
    assert from_series.stationary > 1.0


def test_auto_on_dataframe_uses_the_frame_estimate():
    frame = _frame()
    estimate = twin.optimal_block_length(frame)
    resolved = twin.bootstrap(frame, twin.CircularBlock("auto"), n_bootstraps=2, seed=SEED).method
    assert resolved == twin.CircularBlock(estimate.circular_length)
    resolved = twin.bootstrap(frame, twin.StationaryBlock("auto"), n_bootstraps=2, seed=SEED).method
    assert resolved == twin.StationaryBlock(estimate.stationary_length)


def test_rows_given_as_numpy_arrays_equal_rows_given_as_lists():
    rows = [np.array([1.0, 2.0]), np.array([3.0, -1.0]), np.array([0.5, 0.25]), np.array([2.0, 2.0])]
    as_arrays = twin.bootstrap_reduce(rows, twin.IID(), "mean", n_bootstraps=10, seed=3)
    as_lists = twin.bootstrap_reduce([r.tolist() for r in rows], twin.IID(), "mean", n_bootstraps=10, seed=3)
    assert as_arrays.statistics == as_lists.statistics


def test_capped_block_length_estimate_is_a_float():
    estimate = twin.optimal_block_length(np.cumsum(np.random.default_rng(0).standard_normal(30)).tolist())
    assert type(estimate.stationary) is float and type(estimate.circular) is float
