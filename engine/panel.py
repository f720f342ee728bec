"""Panels in the engine: many univariate series of any lengths in one fused pass.

``reference/panel.py`` defines the semantics (seeds, methods, errors); this module gives
them numpy types and speed. A :class:`Panel` packs S series end to end in one float64
array with a row-offset table, never padded. ``bootstrap_reduce``, ``conf_int`` and
``bootstrap`` take one (``engine/api.py`` hands it here):

* named statistics (mean, var, std, median, quantiles) of the resampling methods
  (IID, MovingBlock, CircularBlock, NonOverlappingBlock, StationaryBlock) run in one
  fused kernel (``reduce.panel_reduce``): (series, replicate range) work items shared
  by the thread team, each series' per-call work (argument checks, centring, prefix
  sums, planning) done once for the panel, not once per series;
* anything else (model-based methods, TaperedBlock, callables) calls the single-series
  path series by series, with the same seeds;
* either way series s's results are bit for bit its single-series call's.

A panel too large for one machine is split by series over a dask.distributed cluster
(``scheduler=``), with the same bits: a series' replicates depend only on its seed, its
series id and its data.

This module imports numpy, pandas (only to build panels from or return pandas objects)
and the engine's kernels; the single-series entry points arrive as arguments (from
``engine/api.py``), so imports point one way.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from bootmark.reference.errors import BootmarkError, DataTypeError, ErrorCode, ParameterTypeError
from bootmark.reference.panel import (
    PANEL_FIX,
    ByIds,
    check_ids,
    check_offsets,
    check_panel_seed_type,
    is_series_error,
    panel_error,
    panel_methods,
    panel_seeds,
    position_of,
    renamed,
    series_argument,
)
from bootmark.reference.specs import (
    IID,
    TaperedBlock,
    check_method,
    check_statistic,
    check_statistic_for_method,
    is_model_method,
)

from . import reduce as kernels
from .blocklength import resolve_method
from .data import MAX_MAGNITUDE, MAX_OBSERVATIONS, Series, as_array
from .indices import STREAM_VERSION, row_plan
from .intervals import bootstrap_standard_error
from .keys import stream_root

if TYPE_CHECKING:  # annotations only
    import pandas as pd

PANEL_ITEMS = 16  # work items a panel of few series is cut into at least: enough for 2 threads x 8 chunks


@dataclass(frozen=True, eq=False)  # eq on array fields would be ambiguous
class Panel:
    """S univariate series of any lengths, packed end to end (no padding).

    Series s is ``values[offsets[s]:offsets[s + 1]]``, named ``ids[s]``. Every series is
    checked as a single series is (finite numbers within range, at least two), and an
    error names it as ``panel[<id>]``. ``values`` is a private read-only float64 copy.

    A 2-D array or a list of equal rows stays one multivariate series to every entry
    point: a panel is always named as one.

    Parameters
    ----------
    values : array_like
        Every observation, series after series (1-D, numbers).
    offsets : array_like of int
        S + 1 row offsets: 0, the end of series 0, ..., ``len(values)``.
    ids : sequence of hashable, optional
        One distinct id per series (default 0 .. S - 1).

    Attributes
    ----------
    values : numpy.ndarray
        float64, (total,).
    offsets : numpy.ndarray
        int64, (S + 1,).
    ids : tuple
        The series' ids in panel order.
    pandas : bool
        Whether it was built from pandas objects; results then come back as pandas
        objects indexed by the ids.

    Raises
    ------
    InvalidParameterError, ParameterTypeError
        Code PANEL: no series, offsets that do not start at 0, end at ``len(values)`` or
        that decrease, ids of the wrong count, duplicate or unhashable.
    InvalidDataError, DataTypeError
        A series that is empty (DATA_SHAPE), shorter than 2 (DATA_TOO_SHORT), not finite
        (DATA_NOT_FINITE), too large (DATA_RANGE) or not numeric (DATA_TYPE), named
        ``panel[<id>]``.

    See Also
    --------
    Panel.from_series : from a list or dict of series.
    Panel.from_frame : from a long DataFrame with an id column.
    bootmark.reference.Panel : the reference's (lists), the same semantics.

    Examples
    --------
    >>> import numpy as np
    >>> from bootmark import engine
    >>> panel = engine.Panel([0.5, 1.5, -0.5, 2.0, 1.0], offsets=[0, 3, 5], ids=["a", "b"])
    >>> len(panel), panel.lengths.tolist(), panel.series("b").tolist()
    (2, [3, 2], [2.0, 1.0])
    """

    values: np.ndarray
    offsets: np.ndarray
    ids: tuple[Hashable, ...] | None = None
    pandas: bool = field(default=False, repr=False)

    def __post_init__(self):
        try:
            values = np.asarray(self.values)
        except (ValueError, TypeError):  # ragged nesting: numpy refuses to make an array
            values = np.empty((0, 0), dtype=object)
        if values.dtype.kind not in "iuf" or values.ndim != 1:
            what = f"{values.ndim}-D" if values.ndim != 1 else f"dtype {values.dtype}"
            raise DataTypeError(
                ErrorCode.DATA_TYPE, "values", f"expected a 1-D array of numbers, got {what}", PANEL_FIX
            )
        values = np.array(values, dtype=np.float64)  # a private copy
        values.flags.writeable = False
        raw = self.offsets.tolist() if hasattr(self.offsets, "tolist") else self.offsets
        offsets = np.array(check_offsets(raw, values.shape[0]), dtype=np.int64)
        ids = check_ids(self.ids, offsets.shape[0] - 1)
        _check_series(values, offsets, ids)
        offsets.flags.writeable = False
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "offsets", offsets)
        object.__setattr__(self, "ids", ids)

    @classmethod
    def from_series(cls, series: Sequence[Any] | Mapping[Hashable, Any]) -> Panel:
        """A panel of a list of 1-D series (ids 0 .. S - 1) or a mapping id -> series.

        Each series is anything 1-D with numbers: a list, a numpy array, a pandas Series
        (read by position; its index is not used). Results come back as pandas objects
        when any series is a pandas Series.

        Parameters
        ----------
        series : list or tuple of array_like, or mapping of hashable to array_like
            Each series' values, 1-D.

        Returns
        -------
        Panel
            The series packed end to end (a private float64 copy).

        Raises
        ------
        ParameterTypeError
            Code PANEL: ``series`` is neither a list, a tuple nor a mapping.
        InvalidDataError, DataTypeError
            A bad series, named ``panel[<id>]``; a series with several columns (PANEL).

        Examples
        --------
        >>> from bootmark import engine
        >>> panel = engine.Panel.from_series({"north": [1.0, 2.0, 4.0], "south": [3.0, 1.0]})
        >>> panel.ids, panel.offsets.tolist()
        (('north', 'south'), [0, 3, 5])
        """
        if isinstance(series, Mapping):
            ids, items = tuple(series), list(series.values())
        elif isinstance(series, (list, tuple)):
            ids, items = None, list(series)
        else:
            raise ParameterTypeError(
                ErrorCode.PANEL, "series", f"expected a list or dict of series, got {type(series).__name__}", PANEL_FIX
            )
        pandas = any(hasattr(item, "to_numpy") and hasattr(item, "index") for item in items)
        arrays = []
        for position, item in enumerate(items):
            name = ids[position] if ids is not None else position
            try:
                array = as_array(item)
            except BootmarkError as error:
                if error.code in (ErrorCode.DATA_SHAPE, ErrorCode.DATA_TOO_SHORT) and np.ndim(item) == 1:
                    array = None  # empty or length 1: refused below with the panel's wording
                else:
                    raise renamed(error, name) from None
            if array is not None and not array.univariate:
                raise panel_error(series_argument(name), f"has {array.d} columns", "a panel's series are 1-D")
            arrays.append(np.asarray(item, dtype=np.float64).ravel() if array is None else array.values[:, 0])
        lengths = [a.shape[0] for a in arrays]
        values = np.concatenate(arrays) if arrays else np.zeros(0)
        return cls(values, np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]), ids, pandas)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, id: Hashable, value: Hashable, time: Hashable | None = None) -> Panel:
        """A panel of a long DataFrame: one row per observation, ``id`` naming its series.

        Series come in the order their ids first appear. Within a series, rows keep their
        order, or are sorted by the ``time`` column when one is named (a time repeated
        within a series is refused). Results come back as pandas objects indexed by the ids.

        Parameters
        ----------
        frame : pandas.DataFrame
            The observations.
        id : hashable
            The column naming each row's series (no missing ids).
        value : hashable
            The column of numbers.
        time : hashable, optional
            A column to order each series by.

        Raises
        ------
        InvalidParameterError, ParameterTypeError
            Code PANEL: not a DataFrame, a missing column, a missing id, a repeated time.
        InvalidDataError, DataTypeError
            A bad series, named, as for :class:`Panel`.

        Examples
        --------
        >>> import pandas as pd
        >>> from bootmark import engine
        >>> sales = pd.DataFrame({"store": ["b", "a", "b", "a", "a"], "day": [2, 1, 1, 2, 3],
        ...                       "units": [5.0, 1.0, 4.0, 2.0, 3.0]})
        >>> panel = engine.Panel.from_frame(sales, id="store", value="units", time="day")
        >>> panel.ids, panel.series("b").tolist(), panel.series("a").tolist()
        (('b', 'a'), [4.0, 5.0], [1.0, 2.0, 3.0])
        """
        import pandas as pd  # optional at import time: pandas loads only when a frame is given

        if not isinstance(frame, pd.DataFrame):
            raise ParameterTypeError(
                ErrorCode.PANEL, "frame", f"expected a DataFrame, got {type(frame).__name__}", PANEL_FIX
            )
        for argument, column in (("id", id), ("value", value), ("time", time)):
            if column is not None and column not in frame.columns:
                hint = "; it names an index level: frame.reset_index() first" if column in frame.index.names else ""
                raise panel_error(
                    argument, f"no column {column!r} in the frame{hint}", f"name one of {list(frame.columns)}"
                )
        codes, uniques = pd.factorize(frame[id], sort=False)
        if (codes < 0).any():
            row = frame.index[int(np.argmax(codes < 0))]
            raise panel_error("id", f"missing id at row {row!r}", "give every row a series id, or drop the row")
        if time is not None:
            missing = frame[time].isna().to_numpy()
            if missing.any():
                row = frame.index[int(np.argmax(missing))]
                raise panel_error("time", f"missing time at row {row!r}", "give every row a time, or drop the row")
            order = np.lexsort((frame[time].to_numpy(), codes))
            times = frame[time].to_numpy()[order]
            same = (codes[order][1:] == codes[order][:-1]) & (times[1:] == times[:-1])
            if same.any():
                k = int(np.argmax(same))
                raise panel_error(
                    "time",
                    f"time {_plain(times[k])!r} repeats in series {_plain(uniques[codes[order][k]])!r}",
                    "aggregate the repeated observations first",
                )
        else:
            order = np.argsort(codes, kind="stable")
        column = frame[value]
        if column.dtype.kind not in "iuf":
            raise DataTypeError(
                ErrorCode.DATA_TYPE, "value", f"column {value!r} has dtype {column.dtype}", "pass a numeric column"
            )
        counts = np.bincount(codes, minlength=len(uniques))
        offsets = np.concatenate([[0], np.cumsum(counts)])
        return cls(column.to_numpy(dtype=np.float64, na_value=np.nan)[order], offsets, tuple(uniques.tolist()), True)

    def __len__(self) -> int:
        return self.offsets.shape[0] - 1

    def __repr__(self) -> str:
        lengths = self.lengths
        names = [repr(name) for name in self.ids]
        if len(names) > 4:  # a panel of thousands of series: its first ids and its last
            names = [*names[:3], "...", names[-1]]
        shown = ", ".join(names)
        return f"Panel({len(self)} series, n = {lengths.min()} .. {lengths.max()}, ids ({shown}))"

    @property
    def lengths(self) -> np.ndarray:
        """The series' lengths (int64, panel order)."""
        return np.diff(self.offsets)

    def position(self, name: Hashable) -> int:
        """The position of the series named ``name`` (KeyError if none)."""
        return position_of(self.ids, name)

    def series(self, name: Hashable) -> np.ndarray:
        """The values of the series named ``name`` (a read-only view)."""
        s = self.position(name)
        return self.values[self.offsets[s] : self.offsets[s + 1]]

    def take(self, first: int, last: int) -> Panel:
        """Series [first, last) as a panel of their own (ids kept)."""
        low, high = int(self.offsets[first]), int(self.offsets[last])
        return Panel(self.values[low:high], self.offsets[first : last + 1] - low, self.ids[first:last], self.pandas)


def _plain(value):
    """A numpy scalar as its Python value, for messages (``1940.0``, not ``np.float64(1940.0)``)."""
    return value.item() if isinstance(value, np.generic) else value


def _check_series(values, offsets, ids):
    """Raise the single-series error, naming the series, for the first bad one: too
    short, too long, not finite or beyond the largest magnitude (vectorised: a panel of
    thousands of series is checked in one pass)."""
    lengths = np.diff(offsets)
    bad = (lengths < 2) | (lengths > MAX_OBSERVATIONS)
    wrong = ~np.isfinite(values) | (np.abs(values) > MAX_MAGNITUDE)
    if wrong.any():
        bad[np.searchsorted(offsets, np.flatnonzero(wrong), side="right") - 1] = True
    if not bad.any():
        return
    s = int(np.argmax(bad))
    try:
        as_array(values[offsets[s] : offsets[s + 1]])
    except BootmarkError as error:
        raise renamed(error, ids[s]) from None
    raise AssertionError("unreachable: a refused series passed the single-series checks")  # pragma: no cover


def _series(panel, s):
    """Series s as the engine's checked :class:`~data.Series` (a view; never written)."""
    return Series(panel.values[panel.offsets[s] : panel.offsets[s + 1], None], True)


def _checked_methods(panel, specs, statistic):
    """Each series' method spec, checked (once per distinct spec) and against
    ``statistic``, in the single call's order; an error names the first series given
    that spec."""
    checked = {}
    for s, spec in enumerate(specs):
        if id(spec) not in checked:
            checked[id(spec)] = _named(lambda spec=spec: _checked_spec(spec, statistic), panel.ids[s])
    return tuple(checked[id(spec)] for spec in specs)


def _checked_spec(spec, statistic):
    spec = check_method(spec)
    check_statistic_for_method(statistic, spec)
    return spec


def _resolved_methods(panel, specs):
    """Each series' resolved method ("auto" chosen from its data), as its single call
    resolves it; an error names the series. A spec without "auto" resolves alike at
    equal n, so its resolution is reused across the series of one length, unless it
    warned: then each series resolves (and warns) on its own, as its single call would."""
    resolved, reusable = [], {}
    for s, spec in enumerate(specs):
        n = int(panel.offsets[s + 1] - panel.offsets[s])
        automatic = "auto" in (getattr(spec, "block_length", None), getattr(spec, "mean_block_length", None))
        key = None if automatic else (id(spec), n)
        if key in reusable:
            resolved.append(reusable[key])
            continue
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            method = _named(lambda s=s, spec=spec: resolve_method(spec, _series(panel, s)), panel.ids[s])
        for warning in caught:  # passed on where they were raised, to the caller's filters
            warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
        if key is not None and not caught:
            reusable[key] = method
        resolved.append(method)
    return tuple(resolved)


def _fusable(methods, statistic):
    return statistic.kind in kernels.KIND_CODES and not any(
        is_model_method(m) or isinstance(m, TaperedBlock) for m in methods
    )


def _work_items(count, n_bootstraps):
    """(series, first, last) replicate ranges: whole series, or each cut in pieces when
    the panel has fewer than PANEL_ITEMS series, so that a few long series still fill
    every thread. The cut never changes a replicate (it depends on (seed, series, b))."""
    pieces = max(1, min(n_bootstraps, -(-PANEL_ITEMS // count)))
    bounds = [n_bootstraps * k // pieces for k in range(pieces + 1)]
    items = np.empty((count * pieces, 3), dtype=np.int64)
    items[:, 0] = np.repeat(np.arange(count), pieces)
    items[:, 1] = np.tile(bounds[:-1], count)
    items[:, 2] = np.tile(bounds[1:], count)
    return items


@dataclass(frozen=True)
class FusedReplicates:
    """What the fused pass returns: ``statistics`` (S, B, width) and ``points`` (S, width)."""

    statistics: np.ndarray
    points: np.ndarray


def fused_replicates(panel, methods, statistic, n_bootstraps, seeds):
    """Every series' B statistics and point by ``reduce.panel_reduce`` (a named statistic,
    resampling methods only)."""
    kind = kernels.KIND_CODES[statistic.kind]
    levels = np.asarray(statistic.levels, dtype=float)
    width = max(1, levels.shape[0]) if kind == kernels.QUANTILES else 1
    count = len(panel)
    plans, cache = [], {}
    for s, method in enumerate(methods):
        key = (method, int(panel.offsets[s + 1] - panel.offsets[s]))
        if key not in cache:
            cache[key] = row_plan(*key)
        plans.append(cache[key])
    roots = [np.empty(count, dtype=np.uint64) for _ in range(3)]
    root_of = {}
    for s in range(count):
        key = (seeds.seeds[s], seeds.series_ids[s])
        if key not in root_of:
            root_of[key] = stream_root(*key)
        for part in range(3):
            roots[part][s] = root_of[key][part]
    algebra = np.array(
        [kind in (kernels.MEAN, kernels.VAR, kernels.STD) and not isinstance(m, IID) for m in methods], dtype=np.bool_
    )
    values = panel.values
    out = np.empty((count, n_bootstraps, width))
    kernels.panel_reduce(
        plans, _work_items(count, n_bootstraps), panel.offsets, roots, algebra, values, kind, levels, out
    )
    points = np.empty((count, width))
    kernels.panel_points(kind, levels, values, panel.offsets, points)
    return FusedReplicates(out, points)


def _indexed(values, panel, columns=None):
    """``values`` (S,) or (S, k) as pandas indexed by the ids when the panel came from
    pandas; else as is."""
    if not panel.pandas:
        return values
    import pandas as pd  # the panel came from pandas, so it is loaded

    index = pd.Index(panel.ids, name="series", tupleize_cols=False)
    if values.ndim == 1:
        return pd.Series(values, index=index)
    return pd.DataFrame(values, index=index, columns=columns)


@dataclass(frozen=True)
class PanelReduceResult(ByIds):
    """The bootstrap distributions of a statistic for every series of a panel.

    ``result[id]`` is series ``id``'s :class:`ReduceResult`, bit for bit what its
    single-series call returns (with its seed and series id). Returned by
    :func:`bootstrap_reduce` for a :class:`Panel`; not constructed by hand.

    Attributes
    ----------
    ids : tuple
        The series' ids, in panel order (iteration gives them).
    methods : tuple of method spec
        Each series' resolved method ("auto" resolved series by series).
    n_bootstraps : int
        B, the replicates of every series.
    seed : int or tuple of int
        The panel's seed, or one seed per series.
    stream_version : int
        The version of the random streams.
    statistics : numpy.ndarray
        float64, (S, B) for a scalar statistic, (S, B, k) for k components.
    point : numpy.ndarray, pandas.Series or pandas.DataFrame
        The statistic of every series: (S,) or (S, k); indexed by the ids for pandas input.
    labels : tuple or None
        Names of the components (quantile levels), as for one series.
    fused : bool
        Whether the panel ran in one fused pass (else series by series).

    Examples
    --------
    >>> import numpy as np
    >>> from bootmark import engine
    >>> rng = np.random.default_rng(0)
    >>> panel = engine.Panel.from_series([rng.normal(size=40), rng.normal(size=25)])
    >>> result = engine.bootstrap_reduce(panel, engine.MovingBlock(5), "mean", n_bootstraps=100, seed=7)
    >>> result.statistics.shape, result.fused
    ((2, 100), True)
    >>> one = engine.bootstrap_reduce(panel.series(1), engine.MovingBlock(5), "mean", 100, seed=7, series_id=1)
    >>> bool(np.array_equal(result[1].statistics, one.statistics))
    True
    """

    ids: tuple[Hashable, ...]
    methods: tuple[Any, ...]
    n_bootstraps: int
    seed: int | tuple[int, ...]
    stream_version: int
    statistics: np.ndarray = field(repr=False)
    point: Any = field(repr=False)
    labels: tuple[Hashable, ...] | None = None
    fused: bool = True
    series_result: Callable[[int], Any] = field(default=None, repr=False, compare=False)

    def _series(self, s: int) -> Any:
        return self.series_result(s)

    def standard_error(self) -> Any:
        """The bootstrap standard error of every series (divisor B), (S,) or (S, k):
        :func:`~engine.intervals.bootstrap_standard_error` of each series' replicates."""
        table = self.statistics.reshape(len(self.ids), self.statistics.shape[1], -1)
        errors = np.array(
            [[bootstrap_standard_error(table[s, :, k]) for k in range(table.shape[2])] for s in range(len(self.ids))]
        )
        return errors[:, 0] if self.statistics.ndim == 2 else errors

    def to_frame(self) -> pd.DataFrame:
        """One row per series, indexed by the ids: ``n_bootstraps``, the point and the
        bootstrap standard error (columns ``point``/``standard_error`` for a scalar
        statistic, else one pair per component label)."""
        import pandas as pd  # loaded only when a table is asked for

        point = np.asarray(self.point, dtype=float)
        errors = self.standard_error()
        index = pd.Index(self.ids, name="series", tupleize_cols=False)
        if point.ndim == 1:
            columns = {"point": point, "standard_error": errors}
        else:
            labels = self.labels or tuple(range(point.shape[1]))
            columns = {}
            for k, label in enumerate(labels):
                columns[f"point[{label}]"] = point[:, k]
                columns[f"standard_error[{label}]"] = errors[:, k]
        return pd.DataFrame(columns, index=index)


@dataclass(frozen=True)
class PanelInterval(ByIds):
    """A confidence interval for every series of a panel; unpacks as (lower, upper, point).

    ``result[id]`` is series ``id``'s :class:`ConfidenceInterval`, bit for bit its
    single-series call's. Returned by :func:`conf_int` for a :class:`Panel`.

    Attributes
    ----------
    ids : tuple
        The series' ids, in panel order.
    lower, upper, point : numpy.ndarray, pandas.Series or pandas.DataFrame
        (S,) or (S, k); indexed by the ids for pandas input.
    kind : str
        The interval kind.
    alpha : float
        The total tail probability.
    intervals : tuple of ConfidenceInterval
        Every series' interval, in panel order.

    Examples
    --------
    >>> import numpy as np
    >>> from bootmark import engine
    >>> rng = np.random.default_rng(0)
    >>> panel = engine.Panel.from_series({"a": rng.normal(size=40), "b": rng.normal(size=25)})
    >>> lower, upper, point = engine.conf_int(panel, "mean", engine.IID(), n_bootstraps=200, seed=7)
    >>> lower.shape, bool((lower < upper).all())
    ((2,), True)
    """

    ids: tuple[Hashable, ...]
    lower: Any
    upper: Any
    point: Any
    kind: str
    alpha: float
    intervals: tuple[Any, ...] = field(repr=False)

    def __iter__(self) -> Iterator[Any]:
        return iter((self.lower, self.upper, self.point))

    def _series(self, s: int) -> Any:
        return self.intervals[s]

    def to_frame(self) -> pd.DataFrame:
        """One row per series, indexed by the ids: ``lower``, ``upper``, ``point`` (one
        triple per component for a multi-component statistic)."""
        import pandas as pd  # loaded only when a table is asked for

        index = pd.Index(self.ids, name="series", tupleize_cols=False)
        lower, upper, point = (np.asarray(v, dtype=float) for v in (self.lower, self.upper, self.point))
        if lower.ndim == 1:
            return pd.DataFrame({"lower": lower, "upper": upper, "point": point}, index=index)
        columns = {}
        for k in range(lower.shape[1]):
            columns[f"lower[{k}]"], columns[f"upper[{k}]"], columns[f"point[{k}]"] = (
                lower[:, k],
                upper[:, k],
                point[:, k],
            )
        return pd.DataFrame(columns, index=index)


@dataclass(frozen=True)
class PanelBootstraps(ByIds):
    """Every series' :class:`BootstrapResult`, keyed by the ids (``result[id]``);
    returned by :func:`bootstrap` for a :class:`Panel`. Rows are drawn on demand."""

    ids: tuple[Hashable, ...]
    results: tuple[Any, ...] = field(repr=False)
    seed: int | tuple[int, ...] = 0

    def _series(self, s: int) -> Any:
        return self.results[s]


@dataclass(frozen=True)
class SingleCalls:
    """The engine's single-series entry points and result maker, handed over by
    ``engine/api.py`` (which imports this module, so this one cannot import it)."""

    bootstrap: Callable
    reduce: Callable
    interval: Callable  # (values, result, kind, alpha, inner_bootstraps) -> ConfidenceInterval
    result: Callable  # (series, statistic, method, B, seed, (B, width) statistics, point, series_id) -> ReduceResult


def _named(call, name):
    try:
        return call()
    except BootmarkError as error:
        if is_series_error(error):
            raise renamed(error, name) from None
        raise


def _check_panel(panel):
    if not isinstance(panel, Panel):
        raise ParameterTypeError(
            ErrorCode.PANEL, "x", f"expected an engine Panel, got {type(panel).__name__}", "build it with engine.Panel"
        )


@dataclass(frozen=True)
class _FusedSeries:
    """Series s's :class:`ReduceResult` from a fused pass, built on demand (picklable,
    so a result computed on a dask worker travels)."""

    panel: Panel
    statistic: Any
    methods: tuple[Any, ...]
    n_bootstraps: int
    seeds: Any
    fused: FusedReplicates
    calls: SingleCalls

    def __call__(self, s: int) -> Any:
        return self.calls.result(
            _series(self.panel, s),
            self.statistic,
            self.methods[s],
            self.n_bootstraps,
            self.seeds.seeds[s],
            self.fused.statistics[s],
            tuple(self.fused.points[s].tolist()),
            self.seeds.series_ids[s],
        )


@dataclass(frozen=True)
class _Pieces:
    """Series s's result from the panel piece holding it (a split panel's results)."""

    starts: tuple[int, ...]
    pieces: tuple[PanelReduceResult, ...]

    def __call__(self, s: int) -> Any:
        k = int(np.searchsorted(self.starts, s, side="right")) - 1
        return self.pieces[k].series_result(s - self.starts[k])


def _stacked(items):
    """Per-series arrays stacked (S, ...), or an object array when their shapes differ
    (a callable statistic returning a different width per series)."""
    if len({np.shape(item) for item in items}) == 1:
        return np.stack(items)
    table = np.empty(len(items), dtype=object)
    table[:] = list(items)
    return table


def reduce_panel(
    panel: Panel,
    method: Any,
    statistic: Any,
    n_bootstraps: int,
    seed: Any,
    calls: SingleCalls,
    fresh: int,
    first: int = 0,
) -> PanelReduceResult:
    """``bootstrap_reduce`` of every series of ``panel`` (module docstring): ``statistic``
    checked, ``fresh`` replaces a None seed, ``first`` is the panel's first series id (a
    slice of a larger panel, as the dask split sends)."""
    _check_panel(panel)
    specs = panel_methods(method, panel.ids)
    check_panel_seed_type(seed)
    seeds = panel_seeds(seed, panel.ids, fresh, first)
    statistic = check_statistic(statistic)
    specs = _checked_methods(panel, specs, statistic)
    if _fusable(specs, statistic):
        methods = _resolved_methods(panel, specs)  # the non-fused path's single calls resolve their own
        fused = fused_replicates(panel, methods, statistic, n_bootstraps, seeds)
        scalar = fused.statistics.shape[2] == 1  # a univariate series' statistic is scalar unless several levels
        statistics = fused.statistics[:, :, 0] if scalar else fused.statistics
        points = fused.points[:, 0] if scalar else fused.points
        labels = None if scalar else tuple(statistic.levels)
        series_result = _FusedSeries(panel, statistic, methods, n_bootstraps, seeds, fused, calls)
        return PanelReduceResult(
            panel.ids,
            methods,
            n_bootstraps,
            seeds.seed,
            STREAM_VERSION,
            statistics,
            _indexed(points, panel, labels),
            labels,
            True,
            series_result,
        )
    results = tuple(
        _named(
            lambda s=s: calls.reduce(
                _series(panel, s).values[:, 0],
                specs[s],
                statistic,
                n_bootstraps,
                seeds.seeds[s],
                series_id=seeds.series_ids[s],
            ),
            panel.ids[s],
        )
        for s in range(len(panel))
    )
    statistics = _stacked([r.statistics for r in results])
    points = _stacked([np.asarray(r.point_components, dtype=float) for r in results])
    if points.dtype != object and points.shape[1] == 1 and statistics.ndim <= 2:
        points = points[:, 0]
    return PanelReduceResult(
        panel.ids,
        tuple(r.method for r in results),
        n_bootstraps,
        seeds.seed,
        STREAM_VERSION,
        statistics,
        _indexed(points, panel, results[0].labels),
        results[0].labels,
        False,
        results.__getitem__,
    )


def bootstrap_panel(
    panel: Panel, method: Any, n_bootstraps: int, seed: Any, calls: SingleCalls, fresh: int, memory_budget: int
) -> PanelBootstraps:
    """``bootstrap`` of every series: each series' lazy :class:`BootstrapResult`."""
    _check_panel(panel)
    methods = panel_methods(method, panel.ids)
    check_panel_seed_type(seed)
    seeds = panel_seeds(seed, panel.ids, fresh)
    results = tuple(
        _named(
            lambda s=s: calls.bootstrap(
                _series(panel, s).values[:, 0],
                methods[s],
                n_bootstraps,
                seeds.seeds[s],
                memory_budget=memory_budget,
                series_id=seeds.series_ids[s],
            ),
            panel.ids[s],
        )
        for s in range(len(panel))
    )
    return PanelBootstraps(panel.ids, results, seeds.seed)


def check_interval_panel(panel, methods, check, statistic, alpha, kind, n_bootstraps, inner_bootstraps):
    """conf_int's argument checks (``check``: ``reference.api.interval_arguments``) once
    per distinct method of the panel, before any replicate is drawn; an error of a
    series' own method names the series. Returns the checked (kind, alpha, C)."""
    checked = None
    seen = set()
    for s, spec in enumerate(methods):
        if id(spec) in seen:
            continue
        seen.add(id(spec))
        checked = _named(
            lambda spec=spec: check(statistic, spec, alpha, kind, n_bootstraps, inner_bootstraps), panel.ids[s]
        )
    return checked


def interval_panel(
    panel: Panel, reduced: PanelReduceResult, calls: SingleCalls, kind: str, alpha: float, inner_bootstraps: Any
) -> PanelInterval:
    """``conf_int`` of every series from the panel's ``reduced`` replicates: each series'
    interval is its single call's (the same replicates and arithmetic)."""
    intervals = tuple(
        _named(
            lambda s=s: calls.interval(
                _series(panel, s).values[:, 0], reduced.series_result(s), kind, alpha, inner_bootstraps
            ),
            panel.ids[s],
        )
        for s in range(len(panel))
    )
    labels = reduced.labels
    bounds = [
        _stacked([np.asarray(getattr(ci, part), dtype=float) for ci in intervals])
        for part in ("lower", "upper", "point")
    ]
    lower, upper, point = (_indexed(b, panel, labels) if b.dtype != object else b for b in bounds)
    return PanelInterval(panel.ids, lower, upper, point, kind, alpha, intervals)


def _client(scheduler):
    """A dask.distributed Client for ``scheduler`` (a Client, or an address to connect
    to), and whether this call opened it (and so closes it)."""
    if hasattr(scheduler, "submit") and hasattr(scheduler, "gather"):
        return scheduler, False
    if not isinstance(scheduler, str):
        raise ParameterTypeError(
            ErrorCode.PANEL,
            "scheduler",
            f"expected a dask.distributed Client or an address, got {scheduler!r}",
            "pass distributed.Client(...) or 'tcp://host:8786'",
        )
    try:
        from distributed import Client  # optional: pip install 'bootmark[cluster]'
    except ImportError:
        raise panel_error("scheduler", "dask.distributed is not installed", "pip install 'bootmark[cluster]'") from None
    try:
        return Client(scheduler, set_as_default=False, timeout=30), True
    except (OSError, TimeoutError) as error:
        raise panel_error(
            "scheduler", f"cannot reach {scheduler!r} ({error})", "check the address and that the scheduler runs"
        ) from None


def split_pieces(count: int, pieces: int) -> list[tuple[int, int]]:
    """[first, last) series ranges cutting ``count`` series into ``pieces`` near-equal parts."""
    pieces = max(1, min(count, pieces))
    bounds = [count * k // pieces for k in range(pieces + 1)]
    return list(zip(bounds[:-1], bounds[1:], strict=True))


def reduce_panel_distributed(
    panel: Panel,
    method: Any,
    statistic: Any,
    n_bootstraps: int,
    seed: Any,
    calls: SingleCalls,
    fresh: int,
    scheduler: Any,
    pieces: int | None = None,
) -> PanelReduceResult:
    """:func:`reduce_panel` split by series over a dask.distributed cluster: each piece
    is reduced on a worker with its series' seeds, series ids and methods, so the result
    is the local run's bit for bit. ``pieces`` defaults to 4 per worker."""
    _check_panel(panel)
    methods = panel_methods(method, panel.ids)
    check_panel_seed_type(seed)
    seeds = panel_seeds(seed, panel.ids, fresh)
    statistic = check_statistic(statistic)
    _checked_methods(panel, methods, statistic)  # bad specs are refused here, before any work is sent
    client, opened = _client(scheduler)
    try:
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        ranges = split_pieces(len(panel), pieces or 4 * workers)
        futures = []
        for first, last in ranges:
            piece_seed = seeds.seed if isinstance(seeds.seed, int) else list(seeds.seeds[first:last])
            futures.append(
                client.submit(
                    reduce_panel,
                    panel.take(first, last),
                    list(methods[first:last]),
                    statistic,
                    n_bootstraps,
                    piece_seed,
                    calls,
                    fresh,
                    first if isinstance(seeds.seed, int) else 0,
                    pure=False,
                )
            )
        parts = client.gather(futures)
    finally:
        if opened:
            client.close()
    statistics = _stacked([row for part in parts for row in part.statistics]) if parts else None
    point = np.concatenate([np.asarray(part.point, dtype=float) for part in parts])
    return PanelReduceResult(
        panel.ids,
        tuple(m for part in parts for m in part.methods),
        n_bootstraps,
        seeds.seed,
        STREAM_VERSION,
        statistics,
        _indexed(point, panel, parts[0].labels),
        parts[0].labels,
        all(part.fused for part in parts),
        _Pieces(tuple(first for first, _ in ranges), tuple(parts)),
    )
