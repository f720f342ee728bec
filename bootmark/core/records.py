"""Typed records of what receipts carry, for code that reads them.

A receipt on disk is JSON (docs/receipts.md; the JSON Schemas in ``bootmark/core/schemas``).
Code that reads one should not have to know its string keys: :func:`load` returns a
:class:`Receipt` whose provenance is a :class:`Provenance` and whose body is a
:class:`BenchBody` or a :class:`StudyBody` (bench and study receipts), or a read-only
mapping (memory, process and truth receipts, whose shapes their own modules own).

Every record is a frozen dataclass with one ``from_json`` / ``to_json`` pair, and the
pair is exact: ``Record.from_json(d).to_json() == d`` for every committed receipt,
numbers, nulls, absent optional keys and all (``tests/test_records.py`` checks each
one, and that the receipt still validates against its schema and hash). So records
never change a receipt's bytes: they are a reading of it, and writing goes through the
same dicts as before.

Conventions: JSON arrays become tuples, JSON objects keyed by names (paths, resamplers,
interval kinds) become read-only mappings, and a key that some receipts omit is a field
that defaults to None and is left out of ``to_json`` when None (listed in each class's
``_OMITTED_WHEN_NONE``). Times are in seconds, as the keys ending ``_s`` say.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import NamedTuple

from bootmark.core import receipts

__all__ = [
    "BenchBody",
    "BenchCell",
    "CellSpec",
    "CellTruth",
    "CoverageRow",
    "CriterionVerdict",
    "ForecastCell",
    "ForecastColumn",
    "ForecastResults",
    "Machine",
    "PathTiming",
    "Provenance",
    "PublishedComparison",
    "Ratio",
    "Receipt",
    "ResamplerColumn",
    "SourceState",
    "PerformanceRow",
    "StandardErrorRow",
    "StudyBody",
    "StudyCell",
    "StudyResults",
    "ThreadState",
    "load",
]


def _frozen(mapping):
    return MappingProxyType(dict(mapping))


@functools.cache
def _hints(record_type):
    """{field name: resolved annotation} of a record class, resolved once per class: a
    study receipt holds thousands of records, and resolving string annotations is slow."""
    resolved = typing.get_type_hints(record_type)
    return {field.name: resolved[field.name] for field in dataclasses.fields(record_type)}


class _Record:
    """``from_json`` / ``to_json`` by field, from the field annotations: a field typed as
    a record converts through it, ``tuple[X, ...]`` from a list, ``Mapping[str, X]`` from
    an object; anything else is taken as is (numbers, strings, booleans, None)."""

    _OMITTED_WHEN_NONE: typing.ClassVar[frozenset] = frozenset()

    @classmethod
    def from_json(cls, data):
        """The record of the JSON object ``data`` (a dict as ``json.load`` gives it)."""
        hints = _hints(cls)
        unknown = set(data) - set(hints)
        if unknown:
            raise ValueError(f"{cls.__name__}: unexpected keys {sorted(unknown)}")
        return cls(**{name: _convert(hints[name], value, True) for name, value in data.items()})

    def to_json(self):
        """The JSON object this record was read from (keys in field order)."""
        hints = _hints(type(self))
        out = {}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value is None and field.name in self._OMITTED_WHEN_NONE:
                continue
            out[field.name] = _convert(hints[field.name], value, False)
        return out


def _convert(hint, value, reading):
    """``value`` read from JSON (``reading``) or written to it, by the annotation ``hint``:
    records through their pair, ``tuple[X, ...]`` to and from lists, ``Mapping[str, X]``
    to and from objects, ``X | None`` as X; anything else as is."""
    if value is None:
        return None
    origin, arguments = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in arguments if a is not type(None)]
        if len(inner) == 1:
            return _convert(inner[0], value, reading)
        # several records: the owner chooses on reading (StudyBody.from_json); each writes itself
        return value.to_json() if not reading and isinstance(value, _Record) else value
    if isinstance(hint, type) and issubclass(hint, _Record):
        return hint.from_json(value) if reading else value.to_json()
    if origin is tuple:
        items = [_convert(arguments[0], item, reading) for item in value]
        return tuple(items) if reading else items
    if origin in (Mapping, dict, typing.Mapping):
        items = {key: _convert(arguments[1], item, reading) for key, item in value.items()}
        return _frozen(items) if reading else items
    return value


# ---------------------------------------------------------------------------------------
# provenance (bootmark/core/schemas/provenance.schema.json)


@dataclass(frozen=True)
class Machine(_Record):
    """The machine a receipt was made on; ``load_average`` is the 1, 5 and 15 minute loads.

    Attributes
    ----------
    cpu_model : str
        The CPU model name (``/proc/cpuinfo``, else ``platform``).
    cores : int
        Logical cores.
    load_average : tuple of float
        The 1, 5 and 15 minute load averages at the start.
    governor : str or None
        The CPU frequency governor, None where not exposed.
    platform : str
        ``platform.platform()``.

    Examples
    --------
    >>> import os
    >>> from bootmark.core import records, workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "bench")
    >>> receipt = records.load(os.path.join(folder, "bench-amd-epyc-20261203T181926Z-f0d3e52745.json"))
    >>> receipt.provenance.machine.cores, len(receipt.provenance.machine.load_average)
    (2, 3)
    """

    cpu_model: str
    cores: int
    load_average: tuple[float, ...]
    governor: str | None
    platform: str


@dataclass(frozen=True)
class ThreadState(_Record):
    """Numba's thread count and threading layer when the receipt was made.

    Attributes
    ----------
    numba_threads : int
        Numba's thread count.
    threading_layer : str
        The threading layer, ``"unknown"`` before a parallel region ran.
    """

    numba_threads: int
    threading_layer: str


@dataclass(frozen=True)
class SourceState(_Record):
    """The bootmark checkout's commit (None outside git) and whether it was dirty.

    Attributes
    ----------
    git_sha : str or None
        The full commit SHA; None outside a git checkout.
    dirty : bool or None
        Whether tracked files (or new files in code folders) differed from it.
    """

    git_sha: str | None
    dirty: bool | None


@dataclass(frozen=True)
class Provenance(_Record):
    """Where, when, by what command and with which versions a receipt was made.

    ``versions`` maps package names (and ``stream_version``, ``openblas_coretype``) to
    their values; its keys grew over time, so it stays a mapping. Times are UTC,
    ``YYYY-MM-DDTHH:MM:SSZ``.

    Attributes
    ----------
    machine : Machine
        The machine.
    versions : mapping of str to object
        Package and stream versions by name.
    threads : ThreadState or None
        Numba's threads; None for receipts about another project's checkout (gate
        verdicts and suite records), whose workers' threads are not bootmark's.
    source : SourceState
        The checkout's commit and dirtiness.
    started_utc : str
        When the run started (UTC).
    command_line : tuple of str
        The command that made the receipt.
    finished_utc : str or None
        When the run finished, for kinds that record it.

    See Also
    --------
    bootmark.core.provenance.collect : the dict this record reads.

    Examples
    --------
    >>> import os
    >>> from bootmark.core import records, workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "bench")
    >>> receipt = records.load(os.path.join(folder, "bench-amd-epyc-20261203T181926Z-f0d3e52745.json"))
    >>> receipt.provenance.source.git_sha[:10], receipt.provenance.started_utc
    ('f0d3e52745', '2026-12-03T18:19:26Z')
    """

    machine: Machine
    versions: Mapping[str, object]
    source: SourceState
    started_utc: str
    command_line: tuple[str, ...]
    threads: ThreadState | None = None
    finished_utc: str | None = None

    _OMITTED_WHEN_NONE = frozenset({"finished_utc", "threads"})


# ---------------------------------------------------------------------------------------
# bench receipts (bootmark/core/schemas/bench.schema.json)


class CellSpec(NamedTuple):
    """One bench cell to time: a method at series length ``n`` with ``n_bootstraps``
    replicates; a ``sentinel`` cell runs on one thread with many replicates.

    A named tuple, not a dataclass, on purpose: cells travel to `bootmark versus` workers
    as JSON arrays and sort as the (method, n, B, sentinel) tuples receipts match on.

    Attributes
    ----------
    method : str
        The resampler name (``"iid"``, ``"moving"``, ...; :func:`bootmark.bench.grid`).
    n : int
        The series length.
    n_bootstraps : int
        The replicates B.
    sentinel : bool
        A one-thread sentinel cell.

    Examples
    --------
    >>> from bootmark.core.records import CellSpec
    >>> cell = CellSpec(*["iid", 2000, 999, False])
    >>> cell.n, list(cell)
    (2000, ['iid', 2000, 999, False])
    """

    method: str
    n: int
    n_bootstraps: int
    sentinel: bool


@dataclass(frozen=True)
class PathTiming(_Record):
    """One timed path of a bench cell: every round's seconds, their median and minimum.

    Attributes
    ----------
    samples_s : tuple of float
        Seconds of each timed round.
    median_s : float
        Their median, in seconds.
    min_s : float
        Their minimum, in seconds.

    See Also
    --------
    bootmark.core.timing.summary : the dict this record reads.

    Examples
    --------
    >>> from bootmark.core import timing
    >>> from bootmark.core.records import PathTiming
    >>> timed = PathTiming.from_json(timing.summary([0.003, 0.001, 0.002]))
    >>> timed.median_s, timed.samples_s
    (0.002, (0.003, 0.001, 0.002))
    >>> timed.to_json() == timing.summary([0.003, 0.001, 0.002])
    True
    """

    samples_s: tuple[float, ...]
    median_s: float
    min_s: float


@dataclass(frozen=True)
class Ratio(_Record):
    """The median of per-round time ratios (other path / this path; > 1: this one is
    faster), with its moving-block bootstrap interval at ``confidence``.

    Attributes
    ----------
    median : float
        The median per-round ratio.
    ci_low, ci_high : float
        The bootstrap interval's bounds.
    confidence : float
        The interval's level, e.g. 0.95.
    block_length : int
        The moving-block bootstrap's block length.

    See Also
    --------
    bootmark.core.timing.median_ratio : the dict this record reads.

    Examples
    --------
    >>> from bootmark.core.records import Ratio
    >>> ratio = Ratio.from_json({"median": 2.0, "ci_low": 1.9, "ci_high": 2.2, "confidence": 0.95, "block_length": 2})
    >>> ratio.ci_low > 1
    True
    >>> Ratio.from_json({"median": 2.0, "spread": 0.1})
    Traceback (most recent call last):
        ...
    ValueError: Ratio: unexpected keys ['spread']
    """

    median: float
    ci_low: float
    ci_high: float
    confidence: float
    block_length: int


@dataclass(frozen=True)
class BenchCell(_Record):
    """One cell of a bench grid: a method at series length ``n`` with ``n_bootstraps``
    replicates on ``threads`` threads (``sentinel``: one thread, large B), the timings of
    each path and the ratios of every path against the anchor path (and, where timed,
    against the materializing path and the floors).

    Attributes
    ----------
    method, n, n_bootstraps, sentinel
        The cell (:class:`CellSpec`).
    threads : int
        Numba threads it ran on.
    paths : mapping of str to PathTiming
        Each timed path's seconds.
    ratios : mapping of str to Ratio
        Each path's time over the anchor path's.
    materialize_ratios : mapping of str to Ratio or None
        Peer paths over the materializing path, where timed.
    floor_ratios : mapping of str to Ratio or None
        Engine paths over their floors, where timed.

    Examples
    --------
    >>> import os
    >>> from bootmark.core import records, workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "bench")
    >>> receipt = records.load(os.path.join(folder, "bench-amd-epyc-20261203T181926Z-f0d3e52745.json"))
    >>> cell = receipt.body.cells[0]
    >>> cell.method, cell.n, cell.n_bootstraps, sorted(cell.paths)[:2]
    ('iid', 2000, 999, ['arch', 'engine_materialize'])
    """

    method: str
    n: int
    n_bootstraps: int
    threads: int
    sentinel: bool
    paths: Mapping[str, PathTiming]
    ratios: Mapping[str, Ratio]
    materialize_ratios: Mapping[str, Ratio] | None = None
    floor_ratios: Mapping[str, Ratio] | None = None

    _OMITTED_WHEN_NONE = frozenset({"materialize_ratios", "floor_ratios"})


@dataclass(frozen=True)
class BenchBody(_Record):
    """A bench receipt's body. ``reference_path`` is the anchor path (every ratio's
    denominator); the key keeps its first name so receipts stay byte-compatible.

    Attributes
    ----------
    profile : str
        ``"full"``, ``"quick"``, ``"intervals"`` or ``"custom"``.
    warmups, samples : int
        Untimed warm-ups and timed rounds per cell.
    block_length : int
        The block methods' block length.
    reference_path : str
        The anchor path.
    skipped_paths : mapping of str to str
        Paths not timed, with the reason.
    cells : tuple of BenchCell
        The timed cells.
    philox_words_per_ns : mapping of str to float or None
        Words per nanosecond of the floors' Philox generator, by thread count (receipts
        from issue 31 on).

    Examples
    --------
    >>> import os
    >>> from bootmark.core import records, workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "bench")
    >>> receipt = records.load(os.path.join(folder, "bench-amd-epyc-20261203T181926Z-f0d3e52745.json"))
    >>> receipt.body.profile, receipt.body.reference_path, len(receipt.body.cells)
    ('quick', 'engine_reduce', 9)
    """

    profile: str
    warmups: int
    samples: int
    block_length: int
    reference_path: str
    skipped_paths: Mapping[str, str]
    cells: tuple[BenchCell, ...]
    philox_words_per_ns: Mapping[str, float] | None = None

    _OMITTED_WHEN_NONE = frozenset({"philox_words_per_ns"})


# ---------------------------------------------------------------------------------------
# study receipts (bootmark/core/schemas/study.schema.json)


@dataclass(frozen=True)
class CellTruth(_Record):
    """The truth a study cell is judged against, its true SE and where both come from.

    Attributes
    ----------
    value : float
        The true value of the statistic.
    standard_error : float or None
        Its true standard error (None: a user's process that gives none).
    source : str
        Where both come from.
    monte_carlo_error : float
        The Monte Carlo error of ``value``.
    """

    value: float
    standard_error: float | None
    source: str
    monte_carlo_error: float


@dataclass(frozen=True)
class ResamplerColumn(_Record):
    """One resampler's per-series outcomes in a study cell: the point estimate, bootstrap
    SE and resolved block length of each series, and each interval kind's bounds.

    Attributes
    ----------
    point, standard_error, block_length : tuple of float
        Per series: the estimate, bootstrap SE and resolved block length (SE and block
        length None where a contender gives none).
    intervals : mapping
        Interval kind -> bound name -> per-series bounds.
    """

    point: tuple[float, ...]
    standard_error: tuple[float | None, ...]
    block_length: tuple[float | None, ...]
    intervals: Mapping[str, Mapping[str, tuple[float, ...]]]


@dataclass(frozen=True)
class StudyCell(_Record):
    """Every series' outcomes at one series length ``n``.

    Attributes
    ----------
    n : int
        The series length.
    truth : CellTruth
        What the cell is judged against.
    resamplers : mapping of str to ResamplerColumn
        Each resampler's outcomes.
    """

    n: int
    truth: CellTruth
    resamplers: Mapping[str, ResamplerColumn]


@dataclass(frozen=True)
class CoverageRow(_Record):
    """Coverage of one (n, resampler, kind): hits of ``trials`` series, its Monte Carlo SE
    and Wilson 95% interval, and the intervals' mean and median width (data units).

    Attributes
    ----------
    n, resampler, kind
        The row's cell, resampler and interval kind.
    hits, trials : int
        Intervals that covered the truth, of all series.
    coverage, mc_se : float
        hits / trials and its Monte Carlo SE.
    wilson_low, wilson_high : float
        The Wilson 95% interval of the coverage.
    mean_width, median_width : float
        The intervals' widths, in data units.
    """

    n: int
    resampler: str
    kind: str
    hits: int
    trials: int
    coverage: float
    mc_se: float
    wilson_low: float
    wilson_high: float
    mean_width: float
    median_width: float


@dataclass(frozen=True)
class StandardErrorRow(_Record):
    """Mean bootstrap SE over true SE, and mean resolved block length, of one (n, resampler).

    Attributes
    ----------
    n, resampler
        The cell and resampler.
    mean_se_ratio : float or None
        Mean bootstrap SE over true SE (None when either is unknown).
    mean_block_length : float or None
        Mean resolved block length (None when a contender does not say).
    """

    n: int
    resampler: str
    mean_se_ratio: float | None
    mean_block_length: float | None


@dataclass(frozen=True)
class PerformanceRow(_Record):
    """One ADEMP performance measure of one (n, resampler, kind), with its Monte Carlo SE
    (studies/measures.py; kind ``"point"`` for the measures of the point estimate).

    Attributes
    ----------
    n, resampler, kind, measure
        The cell, resampler, interval kind and measure.
    estimate, mc_se : float or None
        The estimate and its Monte Carlo SE (None where undefined).
    """

    n: int
    resampler: str
    kind: str
    measure: str
    estimate: float | None
    mc_se: float | None


@dataclass(frozen=True)
class CriterionVerdict(_Record):
    """A registered criterion's verdict: ``judged`` False when its cells were not run.

    Attributes
    ----------
    id, statement, rationale : str
        The registered criterion.
    passed : bool
        Its verdict.
    judged : bool
        False when its cells were not run.
    detail : str
        The figures behind the verdict.
    """

    id: str
    statement: str
    rationale: str
    passed: bool
    judged: bool
    detail: str


@dataclass(frozen=True)
class PublishedComparison(_Record):
    """Our figure beside a published one, with z combining both Monte Carlo errors.

    Attributes
    ----------
    resampler, kind : str
        What is compared.
    n : int
        The series length.
    ours : float or None
        Our figure (None when not run).
    published : float
        The published figure.
    published_series : int or None
        How many series the published figure used.
    source : str
        The publication.
    z : float or None
        The difference over both Monte Carlo errors combined.
    measure : str or None
        What is measured, when not coverage.
    """

    resampler: str
    kind: str
    n: int
    ours: float | None
    published: float
    published_series: int | None
    source: str
    z: float | None
    measure: str | None = None

    _OMITTED_WHEN_NONE = frozenset({"measure"})


@dataclass(frozen=True)
class StudyResults(_Record):
    """The deterministic part of a study receipt (what ``results_sha256`` hashes).

    Attributes
    ----------
    cells : tuple of StudyCell
        Per-series outcomes by n.
    coverage : tuple of CoverageRow
        Coverage rows.
    standard_errors : tuple of StandardErrorRow
        SE rows.
    criteria : tuple of CriterionVerdict
        Criterion verdicts.
    published : tuple of PublishedComparison
        Comparisons with published figures.
    performance : tuple of PerformanceRow or None
        The ADEMP performance measures (None in receipts made before they were recorded).
    """

    cells: tuple[StudyCell, ...]
    coverage: tuple[CoverageRow, ...]
    standard_errors: tuple[StandardErrorRow, ...]
    criteria: tuple[CriterionVerdict, ...]
    published: tuple[PublishedComparison, ...]
    performance: tuple[PerformanceRow, ...] | None = None  # receipts made before the measures lack it

    _OMITTED_WHEN_NONE = frozenset({"performance"})


@dataclass(frozen=True)
class ForecastColumn(_Record):
    """One forecaster's answers in a forecast study cell: per series, the ``horizon``
    lower and upper bounds and point forecasts (data units).

    Attributes
    ----------
    lower, upper : tuple of tuple of float
        Per series, one bound per step ahead.
    point : tuple of (tuple of float or None)
        Per series, the point forecasts, None where the forecaster gives none.
    """

    lower: tuple[tuple[float, ...], ...]
    upper: tuple[tuple[float, ...], ...]
    point: tuple[tuple[float, ...] | None, ...]


@dataclass(frozen=True)
class ForecastCell(_Record):
    """Every series' forecasts at one history length ``n``, beside what the process drew.

    Attributes
    ----------
    n : int
        The history length.
    future : tuple of tuple of float
        Per series, the ``horizon`` values the process drew after the history.
    origin : tuple of float
        Per series, the last observed value.
    resamplers : mapping of str to ForecastColumn
        Each forecaster's answers.
    """

    n: int
    future: tuple[tuple[float, ...], ...]
    origin: tuple[float, ...]
    resamplers: Mapping[str, ForecastColumn]


@dataclass(frozen=True)
class ForecastResults(_Record):
    """The deterministic part of a forecast study receipt (``[design] target =
    "forecast"``; what ``results_sha256`` hashes): cells, coverage rows per horizon
    (``kind`` ``"h1"``, ...), the forecast measures, verdicts and (no) published figures.

    Attributes
    ----------
    cells : tuple of ForecastCell
    coverage : tuple of CoverageRow
    performance : tuple of PerformanceRow
    criteria : tuple of CriterionVerdict
    published : tuple of PublishedComparison
        Empty.
    """

    cells: tuple[ForecastCell, ...]
    coverage: tuple[CoverageRow, ...]
    performance: tuple[PerformanceRow, ...]
    criteria: tuple[CriterionVerdict, ...]
    published: tuple[PublishedComparison, ...]


@dataclass(frozen=True)
class StudyBody(_Record):
    """A study receipt's body; the protocol, profile, design, peers and execution stay
    mappings (their keys are the protocol's, documented in docs/protocols.md).

    Attributes
    ----------
    study, profile, design, peers, execution : mapping
        The protocol's blocks, as read.
    results_sha256 : str
        SHA-256 of the canonical JSON of ``results``.
    results : StudyResults or ForecastResults
        The deterministic results (a :class:`ForecastResults` when ``design`` says
        ``target = "forecast"``).
    """

    study: Mapping[str, object]
    profile: Mapping[str, object]
    design: Mapping[str, object]
    peers: Mapping[str, object]
    execution: Mapping[str, object]
    results_sha256: str
    results: StudyResults | ForecastResults
    plugins: tuple[Mapping[str, object], ...] | None = None  # the user's code a study named

    _OMITTED_WHEN_NONE = frozenset({"plugins"})

    @classmethod
    def from_json(cls, data):
        """The record of a study body: its results read as the design's target says."""
        record = super().from_json(data)  # results left as read: a union has no one reading
        forecast = data.get("design", {}).get("target") == "forecast"
        return dataclasses.replace(
            record, results=(ForecastResults if forecast else StudyResults).from_json(data["results"])
        )


# ---------------------------------------------------------------------------------------
# the envelope

_BODIES = {"bench": BenchBody, "study": StudyBody}


@dataclass(frozen=True)
class Receipt:
    """A loaded receipt: its ``kind``, schema version, provenance, body and content hash.

    ``body`` is a :class:`BenchBody` or :class:`StudyBody` for those kinds, else a
    read-only mapping of the JSON body.

    Attributes
    ----------
    kind : str
        The receipt kind (:data:`bootmark.core.receipts.KINDS`).
    schema_version : int
        The schema version it was written under.
    provenance : Provenance
        Where and with what it was made.
    body : BenchBody, StudyBody or mapping
        The body.
    content_sha256 : str
        The content hash (:func:`bootmark.core.receipts.content_hash`).

    See Also
    --------
    load : load and type a receipt file.

    Examples
    --------
    >>> import os
    >>> from bootmark.core import records, workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "bench")
    >>> receipt = records.load(os.path.join(folder, "bench-amd-epyc-20261203T181926Z-f0d3e52745.json"))
    >>> receipt.kind, type(receipt.body).__name__
    ('bench', 'BenchBody')
    >>> records.Receipt.from_json(receipt.to_json()) == receipt
    True
    """

    kind: str
    schema_version: int
    provenance: Provenance
    body: object
    content_sha256: str

    @classmethod
    def from_json(cls, data):
        """The record of a receipt dict (as :func:`bootmark.core.receipts.load_receipt` gives it)."""
        body_type = _BODIES.get(data["kind"])
        body = body_type.from_json(data["body"]) if body_type else _deep_frozen(data["body"])
        return cls(
            data["kind"], data["schema_version"], Provenance.from_json(data["provenance"]), body, data["content_sha256"]
        )

    def to_json(self):
        """The receipt dict this record was read from."""
        body = self.body.to_json() if isinstance(self.body, _Record) else _thawed(self.body)
        return {
            "kind": self.kind,
            "schema_version": self.schema_version,
            "provenance": self.provenance.to_json(),
            "body": body,
            "content_sha256": self.content_sha256,
        }


def _deep_frozen(value):
    if isinstance(value, dict):
        return _frozen({key: _deep_frozen(item) for key, item in value.items()})
    if isinstance(value, list):
        return tuple(_deep_frozen(item) for item in value)
    return value


def _thawed(value):
    if isinstance(value, Mapping):
        return {key: _thawed(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return [_thawed(item) for item in value]
    return value


def load(path: str) -> Receipt:
    """Load, validate (schema and hash: :func:`bootmark.core.receipts.load_receipt`) and type
    the receipt at ``path``; a :class:`Receipt`.

    Parameters
    ----------
    path : str
        A receipt file.

    Returns
    -------
    Receipt
        The typed receipt; ``to_json()`` gives back the dict read.

    Raises
    ------
    bootmark.core.receipts.ReceiptError
        The file cannot be read or fails its schema, its hash or its schema version.
        Also when the receipt holds a key its record does not know (the schema leaves some
        objects open; a receipt from a newer bootmark may use that room).

    See Also
    --------
    bootmark.core.receipts.load_receipt : the same, as a dict.

    Examples
    --------
    >>> import os
    >>> from bootmark.core import records, workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "bench")
    >>> receipt = records.load(os.path.join(folder, "bench-amd-epyc-20261203T181926Z-f0d3e52745.json"))
    >>> receipt.body.cells[0].ratios["arch"].confidence
    0.95
    >>> records.load(os.path.join(folder, "README.md"))
    Traceback (most recent call last):
        ...
    bootmark.core.receipts.ReceiptError: ...README.md: not a JSON receipt (...)
    """
    raw = receipts.load_receipt(path)
    try:
        return Receipt.from_json(raw)
    except (ValueError, KeyError, TypeError) as error:
        raise receipts.ReceiptError(
            f"{path}: valid for its schema, but this bootmark's records cannot read it ({error}); "
            "upgrade bootmark, or read it as a dict with bootmark.core.receipts.load_receipt"
        ) from None
