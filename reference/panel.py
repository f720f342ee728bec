"""Panels: many univariate series of any lengths, named as one (docs/panels.md).

A panel is S series packed end to end: ``values`` holds every observation, series s is
``values[offsets[s]:offsets[s + 1]]`` and ``ids[s]`` names it. A 2-D array or a list of
equal rows stays one multivariate series to every entry point; only a :class:`Panel`
means many series.

Semantics, shared by both twins (the engine imports the checks below):

* **Seeds.** One seed for the panel: series s (its position) is the single-series call
  with that seed and ``series_id=s``, so it draws from (seed, s) through the counter's
  series word. One seed per series (a sequence in panel order, or a mapping keyed by
  the ids): series s is the single-series call with its own seed and ``series_id=0``,
  exactly what a loop of single calls draws.
* **Methods.** One method spec for every series, or one per series (a sequence or a
  mapping keyed by the ids); ``"auto"`` block lengths are resolved series by series.
* **Results.** Series s's replicates, point, interval and warnings are those of its
  single-series call. A bad series raises that call's typed error with the argument
  renamed ``panel[<id>]``, so the message names the series.

This module imports only the standard library and the reference's own modules.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .data import as_series
from .errors import BootmarkError, ErrorCode, InvalidParameterError, ParameterTypeError
from .specs import check_method
from .validation import as_integer, check_n_bootstraps, check_seed

PANEL_FIX = "build it with Panel.from_series([...]), Panel.from_series({id: series}) or Panel(values, offsets, ids)"


def series_argument(name: Hashable) -> str:
    """How errors name series ``name`` of a panel: ``panel[<repr of the id>]``."""
    return f"panel[{name!r}]"


# Arguments that are the same for every series: their errors are not renamed.
SHARED_ARGUMENTS = frozenset(
    {"n_bootstraps", "statistic", "alpha", "kind", "inner_bootstraps", "memory_budget", "q", "dtype", "series_id"}
)


def renamed(error: BootmarkError, name: Hashable) -> BootmarkError:
    """``error`` raised for one series, as the same typed error naming that series:
    ``panel[<id>]`` for its data, ``panel[<id>].<argument>`` for anything else of its
    own (a block length above its n, an AR order too high for it, its seed)."""
    argument = series_argument(name) if error.argument == "x" else f"{series_argument(name)}.{error.argument}"
    again = type(error)(error.code, argument, error.problem, error.fix)
    again.__cause__ = error.__cause__
    return again


def is_series_error(error: BootmarkError) -> bool:
    """Whether ``error`` concerns one series (and so is renamed to name it)."""
    return error.argument not in SHARED_ARGUMENTS


def panel_error(argument: str, problem: str, fix: str = PANEL_FIX) -> InvalidParameterError:
    """A malformed panel (code PANEL)."""
    return InvalidParameterError(ErrorCode.PANEL, argument, problem, fix)


def check_offsets(offsets: Sequence[Any], total: int) -> tuple[int, ...]:
    """``offsets`` as a tuple of ints: 0 first, ``total`` last, never decreasing, with at
    least one series (PANEL errors name the first offending entry)."""
    try:
        items = list(offsets)
    except TypeError:
        raise ParameterTypeError(
            ErrorCode.PANEL, "offsets", f"expected a sequence of ints, got {offsets!r}", PANEL_FIX
        ) from None
    checked = [as_integer(v, "offsets", ErrorCode.PANEL, "pass integer row offsets") for v in items]
    if len(checked) < 2:
        raise panel_error("offsets", "no series: a panel of S >= 1 series has S + 1 offsets, starting at 0")
    if checked[0] != 0 or checked[-1] != total:
        raise panel_error(
            "offsets", f"must start at 0 and end at len(values) = {total}, got {checked[0]} ... {checked[-1]}"
        )
    for s in range(len(checked) - 1):
        if checked[s + 1] < checked[s]:
            raise panel_error("offsets", f"decrease at series {s}: {checked[s]} then {checked[s + 1]}")
    return tuple(checked)


def check_ids(ids: Sequence[Hashable] | None, count: int) -> tuple[Hashable, ...]:
    """The series' ids: 0 .. count - 1 for None, else ``count`` distinct hashables."""
    if ids is None:
        return tuple(range(count))
    if isinstance(ids, (str, bytes)):
        raise panel_error("ids", f"expected one id per series, got the string {ids!r}")
    ids = tuple(ids)
    if len(ids) != count:
        raise panel_error("ids", f"{len(ids)} id(s) for {count} series", "pass one id per series")
    seen = set()
    for position, name in enumerate(ids):
        try:
            duplicate = name in seen
        except TypeError:
            raise panel_error(
                "ids", f"id {name!r} of series {position} is not hashable", "use str or int ids"
            ) from None
        if duplicate:
            raise panel_error("ids", f"duplicate id {name!r} (series {position})", "give every series its own id")
        seen.add(name)
    return ids


def per_series(value: Any, ids: tuple[Hashable, ...], argument: str) -> tuple[Any, ...] | None:
    """``value`` spread over the series when it is given per series: a mapping keyed by
    every id, or a list / tuple (or array) of one item per series; None otherwise."""
    if isinstance(value, Mapping):
        missing = [name for name in ids if name not in value]
        extra = [name for name in value if name not in set(ids)]
        if missing or extra:
            problem = f"missing id(s) {missing[:3]!r}" if missing else f"unknown id(s) {extra[:3]!r}"
            raise panel_error(argument, f"{problem} in the mapping", f"key {argument} by every id of the panel")
        return tuple(value[name] for name in ids)
    if isinstance(value, (list, tuple)) or (hasattr(value, "tolist") and getattr(value, "ndim", 0) == 1):
        items = tuple(value.tolist() if hasattr(value, "tolist") else value)
        if len(items) != len(ids):
            raise panel_error(
                argument, f"{len(items)} item(s) for {len(ids)} series", f"pass one {argument} per series"
            )
        return items
    return None


def position_of(ids: tuple[Hashable, ...], name: Hashable) -> int:
    """The position of the series named ``name`` among ``ids`` (KeyError if none)."""
    try:
        return ids.index(name)
    except ValueError:
        raise KeyError(name) from None


class ByIds:
    """Per-series results looked up by id, for every panel record of both twins:
    ``len``, iteration over ``ids`` in panel order, and ``record[id]`` (KeyError for an
    id the panel does not have), which is ``_series(position)``."""

    ids: tuple[Hashable, ...]

    def __len__(self) -> int:
        return len(self.ids)

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self.ids)

    def __getitem__(self, name: Hashable) -> Any:
        return self._series(position_of(self.ids, name))

    def _series(self, s: int) -> Any:
        raise NotImplementedError  # each record says where series s's result is


@dataclass(frozen=True)
class PanelSeeds:
    """How a panel's series are seeded: ``seeds[s]`` and ``series_ids[s]`` are series s's
    seed and series word; ``seed`` is what results record (an int, or a tuple)."""

    seeds: tuple[int, ...]
    series_ids: tuple[int, ...]
    seed: int | tuple[int, ...]


def panel_seeds(seed: Any, ids: tuple[Hashable, ...], fresh: int | None = None, first: int = 0) -> PanelSeeds:
    """The seeds of a panel's series (module docstring, "Seeds"). ``fresh`` replaces a
    None seed (the caller draws it); ``first`` is the position of the first series in the
    whole panel, for a slice of one (its series ids continue from there)."""
    spread = per_series(seed, ids, "seed")
    if spread is not None:
        seeds = []
        for name, value in zip(ids, spread, strict=True):
            if value is None:  # fresh entropy per series would be unrecorded: refused
                raise ParameterTypeError(
                    ErrorCode.SEED,
                    f"{series_argument(name)}.seed",
                    "expected an integer, got None (a panel's per-series seeds are all given)",
                    "pass an int for every series, or seed=None once for the whole panel",
                )
            try:
                seeds.append(check_seed(value))
            except BootmarkError as error:
                raise renamed(error, name) from None
        return PanelSeeds(tuple(seeds), (0,) * len(ids), tuple(seeds))
    seed = fresh if seed is None else check_seed(seed)
    return PanelSeeds((seed,) * len(ids), tuple(range(first, first + len(ids))), seed)


def panel_methods(method: Any, ids: tuple[Hashable, ...]) -> tuple[Any, ...]:
    """One method spec per series (module docstring, "Methods"). One spec shared by every
    series is checked here, so its error names ``method``, not a series; specs given per
    series are checked by each series' call, whose errors name the series."""
    spread = per_series(method, ids, "method")
    return spread if spread is not None else (check_method(method),) * len(ids)


def _univariate(values, name):
    series = as_series(values)
    if not series.univariate:
        raise panel_error(series_argument(name), f"has {series.d} columns", "a panel's series are one-dimensional")
    return series.columns[0]


@dataclass(frozen=True)
class Panel:
    """S univariate series of any lengths, packed end to end (no padding).

    Series s is ``values[offsets[s]:offsets[s + 1]]``, named ``ids[s]``. Every series
    is checked as a single series is (finite numbers, at least two), with errors naming
    it as ``panel[<id>]``.

    Parameters
    ----------
    values : sequence of float
        Every observation, series after series.
    offsets : sequence of int
        S + 1 row offsets: 0, the end of series 0, ..., ``len(values)``.
    ids : sequence of hashable, optional
        One distinct id per series (default 0 .. S - 1).

    Raises
    ------
    InvalidParameterError, ParameterTypeError
        Code PANEL: no series, offsets that do not start at 0, end at ``len(values)``
        or that decrease, ids of the wrong count, duplicate or unhashable.
    InvalidDataError, DataTypeError
        A series that is empty, shorter than 2, not finite or not numeric (the codes of
        a single series), naming it.

    Examples
    --------
    >>> from bootmark import reference
    >>> panel = reference.Panel.from_series({"a": [0.5, 1.5, -0.5], "b": [2.0, 1.0]})
    >>> panel.ids, panel.offsets, len(panel)
    (('a', 'b'), (0, 3, 5), 2)
    >>> panel.series("b")
    [2.0, 1.0]
    """

    values: tuple[float, ...]
    offsets: tuple[int, ...]
    ids: tuple[Hashable, ...] | None = None

    def __post_init__(self):
        values = self.values.tolist() if hasattr(self.values, "tolist") else list(self.values)
        offsets = check_offsets(self.offsets.tolist() if hasattr(self.offsets, "tolist") else self.offsets, len(values))
        ids = check_ids(self.ids, len(offsets) - 1)
        checked = []
        for s, name in enumerate(ids):
            try:
                checked.extend(_univariate(values[offsets[s] : offsets[s + 1]], name))
            except BootmarkError as error:
                raise renamed(error, name) from None
        object.__setattr__(self, "values", tuple(checked))
        object.__setattr__(self, "offsets", offsets)
        object.__setattr__(self, "ids", ids)

    @classmethod
    def from_series(cls, series: Sequence[Sequence[float]] | Mapping[Hashable, Sequence[float]]) -> Panel:
        """A panel of a list of series (ids 0 .. S - 1) or a mapping id -> series.

        Parameters
        ----------
        series : list or tuple of sequences, or mapping of hashable to sequence
            Each series' values (numbers; a numpy array or pandas Series is read by
            position).

        Returns
        -------
        Panel
            The series packed end to end, checked as :class:`Panel` checks them.

        Raises
        ------
        ParameterTypeError
            Code PANEL: ``series`` is neither a list, a tuple nor a mapping.
        InvalidDataError, DataTypeError
            A bad series, named ``panel[<id>]``.
        """
        if isinstance(series, Mapping):
            ids, items = tuple(series), list(series.values())
        elif isinstance(series, (list, tuple)):
            ids, items = None, list(series)
        else:
            raise ParameterTypeError(
                ErrorCode.PANEL, "series", f"expected a list or dict of series, got {type(series).__name__}", PANEL_FIX
            )
        values, offsets = [], [0]
        for item in items:
            item = item.tolist() if hasattr(item, "tolist") else item
            values.extend(item if isinstance(item, (list, tuple)) else [item])
            offsets.append(len(values))
        return cls(values, offsets, ids)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def lengths(self) -> tuple[int, ...]:
        """The series' lengths, in panel order."""
        return tuple(self.offsets[s + 1] - self.offsets[s] for s in range(len(self)))

    def position(self, name: Hashable) -> int:
        """The position of the series named ``name``."""
        return position_of(self.ids, name)

    def series(self, name: Hashable) -> list[float]:
        """The values of the series named ``name`` (a new list)."""
        s = self.position(name)
        return list(self.values[self.offsets[s] : self.offsets[s + 1]])


def check_panel_seed_type(seed: Any) -> None:
    """Refuse a seed that is neither an int-like, None, nor one seed per series early,
    with the panel's wording (a bool or a float is refused by ``check_seed``)."""
    if isinstance(seed, (str, bytes)):
        raise ParameterTypeError(
            ErrorCode.SEED,
            "seed",
            f"expected an int, None, or one seed per series, got {seed!r}",
            "pass one int for the panel, or a list / dict of ints, one per series",
        )


@dataclass(frozen=True)
class PanelResults(ByIds):
    """Per-series results of a panel call, keyed by the panel's ids (the reference's
    results: each is exactly the single-series call's).

    ``results[name]`` is series ``name``'s :class:`ReduceResult`, :class:`BootstrapResult`
    or :class:`ConfidenceInterval`; iteration gives the ids, in panel order.
    """

    ids: tuple[Hashable, ...]
    results: tuple[Any, ...]
    seed: int | tuple[int, ...]

    def _series(self, s: int) -> Any:
        return self.results[s]

    def items(self) -> Iterator[tuple[Hashable, Any]]:
        """(id, result) pairs in panel order."""
        return zip(self.ids, self.results, strict=True)


def run_panel(call, panel: Panel, method: Any, n_bootstraps: Any, seed: Any, fresh: int) -> PanelResults:
    """``call(values, method, seed, series_id)`` on every series, in panel order, with the
    panel's seeds and methods; a typed error of one series names it. The arguments are
    checked in the single call's order: a shared method, B, the seeds, then each series'
    own (its method, the statistic)."""
    methods = panel_methods(method, panel.ids)
    check_n_bootstraps(n_bootstraps)
    check_panel_seed_type(seed)
    seeds = panel_seeds(seed, panel.ids, fresh)
    results = []
    for s, name in enumerate(panel.ids):
        values = list(panel.values[panel.offsets[s] : panel.offsets[s + 1]])
        try:
            results.append(call(values, methods[s], seeds.seeds[s], seeds.series_ids[s]))
        except BootmarkError as error:
            if is_series_error(error):
                raise renamed(error, name) from None
            raise
    return PanelResults(panel.ids, tuple(results), seeds.seed)


def no_series_id(seed: Any, series_id: Any) -> Any:
    """``seed``, after refusing a ``series_id`` given with a panel (whose series are
    numbered by their positions)."""
    if series_id != 0:
        raise InvalidParameterError(
            ErrorCode.SERIES_ID,
            "series_id",
            "a panel numbers its series by position (series s uses series_id = s)",
            "drop series_id, or call the series on its own with it",
        )
    return seed


def is_panel(x: Any) -> bool:
    """Whether ``x`` is a panel of either twin (duck-typed: values, offsets and ids)."""
    return all(hasattr(x, attribute) for attribute in ("values", "offsets", "ids", "lengths")) and not isinstance(
        x, (list, tuple, numbers.Number)
    )
