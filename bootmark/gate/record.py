"""``bootmark record``: the project's benchmark suite measured on the current commit, once,
as a ``record`` receipt. Run on every merge, the records are the project's history (the
site's suite page), as ``asv run`` builds one.

The suite is found and run as ``bootmark gate`` finds and runs it (asv or
pytest-benchmark, the same worker, only the selected modules imported). A time cell gets
warm-ups, then rounds until its median settles: after ``min_rounds``, rounds are added in
batches until one more batch moves the median by less than ``settle`` (relative), or
``max_rounds`` is reached (the cell is then marked unsettled). Between time samples the
worker runs its fixed pure-Python control loop; the control's median is recorded, so a
history can divide each time by its run's control and so cancel most of the difference
between two CI machines of one kind (``time / control``), beside the absolute times per
machine.
"""

from __future__ import annotations

import math
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, replace

from tqdm.auto import tqdm

from bootmark.core import receipts
from bootmark.gate.config import GateConfig, SuiteError
from bootmark.gate.headtohead import Group, Matchup, groups_of, measure_group
from bootmark.gate.report import checkout_provenance
from bootmark.gate.run import discovery_problems, no_cells_message, say_pytest_output
from bootmark.gate.sides import CURRENT, Side, SideError, current_side
from bootmark.gate.suite import VALUE_KINDS, Cell, SuiteWorker, WorkerFailure, list_suite, select_cells
from bootmark.gate.verdicts import ProjectRecord

__all__ = ["CellRecord", "RecordError", "RecordSettings", "SuiteRecord", "record_body", "run_record", "write_record"]


class RecordError(RuntimeError):
    """Nothing can be recorded (exit 2): the message names the cause and the fix."""


@dataclass(frozen=True)
class RecordSettings:
    """How hard ``bootmark record`` measures.

    Attributes
    ----------
    min_rounds : int
        Samples every time cell gets (at least 5).
    max_rounds : int
        Samples after which a cell that has not settled stops getting more.
    batch : int
        Samples added per step while the median settles.
    settle : float
        The relative change of the median, from one batch to the next, below which it has
        settled (0.01: 1%).
    warmups : int
        Samples discarded before the first kept one.
    sample_target_s : float
        Seconds one sample should take; ``number`` (calls per sample) is chosen to reach it.
    memory_samples : int
        Samples of a peakmem cell (each a fresh process) and of a track cell.

    Examples
    --------
    >>> from bootmark.gate.record import RecordSettings
    >>> RecordSettings().min_rounds
    10
    >>> RecordSettings(settle=0)
    Traceback (most recent call last):
        ...
    ValueError: RecordSettings: settle must be a fraction above 0 and below 1 (e.g. 0.01), got 0
    """

    min_rounds: int = 10
    max_rounds: int = 40
    batch: int = 5
    settle: float = 0.01
    warmups: int = 2
    sample_target_s: float = 0.02
    memory_samples: int = 3

    def __post_init__(self):
        if self.min_rounds < 5:
            raise ValueError(f"RecordSettings: min_rounds must be at least 5, got {self.min_rounds}")
        if self.max_rounds < self.min_rounds:
            raise ValueError(
                f"RecordSettings: max_rounds ({self.max_rounds}) must be at least min_rounds ({self.min_rounds})"
            )
        if self.batch < 1 or self.warmups < 0 or self.memory_samples < 1:
            raise ValueError("RecordSettings: batch and memory_samples must be at least 1, warmups at least 0")
        if not 0 < self.settle < 1:
            raise ValueError(
                f"RecordSettings: settle must be a fraction above 0 and below 1 (e.g. 0.01), got {self.settle}"
            )
        if not self.sample_target_s > 0:
            raise ValueError(f"RecordSettings: sample_target_s must be positive, got {self.sample_target_s}")

    def to_json(self) -> dict:
        """The receipt's form."""
        return {
            "min_rounds": self.min_rounds,
            "max_rounds": self.max_rounds,
            "batch": self.batch,
            "settle": self.settle,
            "warmups": self.warmups,
            "sample_target_s": self.sample_target_s,
            "memory_samples": self.memory_samples,
        }


@dataclass(frozen=True)
class CellRecord:
    """One cell of the suite, measured on the current commit.

    Attributes
    ----------
    label : str
        ``benchmark(params)`` as asv prints it, or the pytest node id.
    kind : str
        ``time``, ``peakmem`` or ``track``.
    unit : str
        ``s`` (seconds per call), ``bytes`` or the track's unit.
    status : str
        ``measured``, ``unsettled`` (measured, but the median still moved by more than
        ``settle`` at ``max_rounds``), ``broken`` (it raised) or ``skipped`` (its setup
        raised NotImplementedError).
    samples : tuple of float
        Every kept sample, in ``unit`` (per call for time cells).
    median : float or None
        The samples' median.
    number : int or None
        Calls per time sample.
    note : str
        Why, for a broken or skipped cell (the failure's traceback).
    control : tuple of float
        For a time cell, the worker's control loop (seconds) timed right after each
        sample: ``samples[i] / control[i]`` is a time in control units, in which a
        machine's (or a busy moment's) speed largely cancels.
    """

    label: str
    kind: str
    unit: str
    status: str
    samples: tuple[float, ...] = ()
    median: float | None = None
    number: int | None = None
    note: str = ""
    control: tuple[float, ...] = ()

    @property
    def relative_median(self) -> float | None:
        """The median of ``samples[i] / control[i]`` (None without control samples).

        Examples
        --------
        >>> from bootmark.gate.record import CellRecord
        >>> CellRecord("b", "time", "s", "measured", (2.0, 3.0, 9.0), 3.0, 1, control=(1.0, 1.0, 3.0)).relative_median
        3.0
        """
        if not self.control or len(self.control) != len(self.samples):
            return None
        return statistics.median(sample / control for sample, control in zip(self.samples, self.control, strict=True))

    def to_json(self) -> dict:
        """The receipt's form."""
        return {
            "label": self.label,
            "kind": self.kind,
            "unit": self.unit,
            "status": self.status,
            "samples": list(self.samples),
            "median": self.median,
            "number": self.number,
            "note": self.note,
            "control": list(self.control),
        }

    @classmethod
    def from_json(cls, data: Mapping) -> CellRecord:
        """The record a receipt holds (``body.cells[i]``), the inverse of :meth:`to_json`.

        Examples
        --------
        >>> from bootmark.gate.record import CellRecord
        >>> cell = CellRecord("b", "time", "s", "measured", (1.0, 2.0), 1.5, 10)
        >>> CellRecord.from_json(cell.to_json()) == cell
        True
        """
        return cls(
            data["label"],
            data["kind"],
            data["unit"],
            data["status"],
            tuple(data["samples"]),
            data["median"],
            data["number"],
            data["note"],
            tuple(data.get("control", ())),
        )


@dataclass(frozen=True)
class SuiteRecord:
    """The whole suite on one commit: what ``bootmark record`` writes.

    Attributes
    ----------
    side : Side
        The current side (its commit and whether the tree was dirty).
    project : ProjectRecord
        The project, with the versions of what its suite imported.
    benchmark_dir : str
        The suite's folder, relative to the checkout.
    cells : tuple of CellRecord
    control : tuple of float
        The worker's control loop, in seconds, sampled between time samples.
    settings : RecordSettings
    problems, warnings : tuple of str
    wall_seconds : float
    matchups : tuple of Matchup
        The head-to-head groups (``bootmark.gate.headtohead``), when configured.
    """

    side: Side
    project: ProjectRecord
    benchmark_dir: str
    cells: tuple[CellRecord, ...]
    control: tuple[float, ...]
    settings: RecordSettings
    problems: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    wall_seconds: float = 0.0
    matchups: tuple[Matchup, ...] = ()

    @property
    def exit_code(self) -> int:
        """0 when every selected cell was measured (settled or not), 1 when one is broken."""
        return 1 if any(cell.status == "broken" for cell in self.cells) else 0


def _settled(samples: Sequence[float], batch: int, settle: float) -> bool:
    """Whether the median moved by less than ``settle`` with the last ``batch`` samples."""
    before, after = statistics.median(samples[:-batch]), statistics.median(samples)
    return before > 0 and abs(after / before - 1) < settle


class _Recorder:
    """Measures cells on one long-lived worker (restarted after a crash)."""

    def __init__(self, make_worker: Callable[[Sequence[str] | None], SuiteWorker], modules, settings, tick):
        self.make_worker, self.modules, self.settings, self.tick = make_worker, modules, settings, tick
        self.worker = make_worker(modules)
        self.control: list[float] = []

    def restart(self):
        self.worker.close()
        self.worker = self.make_worker(self.modules)

    def request(self, worker, operation, timeout, **fields):
        reply = worker.request(operation, timeout, **fields)
        if "error" in reply:
            raise _Failed("broken", reply["error"])
        if "skip" in reply:
            raise _Failed("skipped", reply["skip"])
        return reply

    def prepare(self, worker, cell):
        self.request(worker, "prepare", cell.benchmark.timeout + 60, name=cell.benchmark.name, index=cell.index)

    def number_for(self, cell: Cell) -> int:
        """Calls per sample for ``cell``: its own ``number``, else enough calls for
        ``sample_target_s`` (it is prepared, then called once to see)."""
        self.prepare(self.worker, cell)
        first = self.request(self.worker, "time", cell.benchmark.timeout + 60, number=1)["seconds"]
        wanted = math.ceil(self.settings.sample_target_s / max(first, 1e-9))
        return cell.benchmark.number or min(max(wanted, 1), 1_000_000)

    def time(self, cell: Cell) -> tuple[list[float], list[float], int, bool]:
        """The time samples of ``cell`` (seconds per call), the control sample taken after
        each, calls per sample, and whether the median settled."""
        number = self.number_for(cell)
        timeout = (cell.benchmark.timeout + 1) * number + 60
        for _ in range(cell.benchmark.warmup_samples(self.settings.warmups, self.settings.sample_target_s)):
            self.request(self.worker, "time", timeout, number=number)
        samples: list[float] = []
        controls: list[float] = []
        settled = False
        while len(samples) < self.settings.max_rounds:
            steps = self.settings.min_rounds if not samples else self.settings.batch
            for _ in range(min(steps, self.settings.max_rounds - len(samples))):
                samples.append(self.request(self.worker, "time", timeout, number=number)["seconds"])
                controls.append(self.request(self.worker, "control", 60, number=1)["seconds"])
                self.tick()
            if len(samples) > self.settings.min_rounds and _settled(samples, self.settings.batch, self.settings.settle):
                settled = True
                break
        self.control.extend(controls)
        return samples, controls, number, settled

    def values(self, cell: Cell) -> list[float]:
        """Samples of a track cell (its value) or a peakmem cell (bytes, a fresh process each)."""
        found = []
        if cell.benchmark.kind in VALUE_KINDS:
            self.prepare(self.worker, cell)
        for _ in range(self.settings.memory_samples):
            if cell.benchmark.kind in VALUE_KINDS:
                found.append(float(self.request(self.worker, "track", cell.benchmark.timeout + 60)["value"]))
            else:
                with self.make_worker([cell.benchmark.module]) as fresh:
                    self.prepare(fresh, cell)
                    found.append(float(self.request(fresh, "peakmem", cell.benchmark.timeout + 60)["bytes"]))
            self.tick()
        return found

    def close(self):
        self.worker.close()


class _Failed(Exception):
    def __init__(self, status, note):
        super().__init__(note)
        self.status, self.note = status, note


def run_record(
    config: GateConfig,
    patterns: Sequence[str] = (),
    settings: RecordSettings | None = None,
    say: Callable[[str], None] | None = None,
    show_progress: bool = True,
    own_files: str | None = None,
) -> SuiteRecord:
    """Measure the suite of ``config.root`` on its working tree as it is.

    Parameters
    ----------
    config : GateConfig
        The project's configuration (:func:`bootmark.gate.config.load_config`: the suite's
        folder, framework, interpreter, install command).
    patterns : sequence of str, optional
        Regular expressions; only cells whose label matches one are recorded.
    settings : RecordSettings, optional
    say : callable, optional
        Where one-line progress messages go (default: stderr).
    show_progress : bool, optional
        Show a progress bar on stderr.
    own_files : str, optional
        The folder of the checkout (relative) where receipts go; new files there do not
        make the tree count as changed.

    Returns
    -------
    SuiteRecord

    Raises
    ------
    RecordError
        The suite cannot be loaded, or no cell is selected.
    """
    settings = settings or RecordSettings()
    say = say or (lambda message: print(f"bootmark record: {message}", file=sys.stderr))
    started = time.monotonic()
    with ExitStack() as stack:
        try:
            side = current_side(config, stack, say, own_files)
        except (SideError, SuiteError) as error:
            raise RecordError(str(error)) from None
        pycache = stack.enter_context(tempfile.TemporaryDirectory(prefix="bootmark-record-pycache-"))
        say(f"benchmarks: {config.benchmark_dir} ({config.framework} suite; {config.found_by})")

        def make_worker(select):
            return SuiteWorker(
                side.python,
                side.paths,
                f"{config.root}/{config.benchmark_dir}",
                config.package,
                CURRENT,
                framework=config.framework,
                select=select,
                root=config.root,
                pycache=pycache,
                pytest_args=config.pytest_args,
            )

        try:
            found = list_suite(make_worker, config, patterns, say)  # what --bench can select from
        except WorkerFailure as error:
            raise RecordError(f"the benchmark suite cannot be loaded: {error}") from None
        problems, warnings = discovery_problems(found, config, patterns)
        cells = select_cells(found.benchmarks, patterns, config)
        if not cells:
            say_pytest_output(found, say)
            raise RecordError(no_cells_message(found, config, patterns, "record"))
        if side.dirty:
            warnings.append("the working tree has uncommitted changes: the record is of the tree as it is")
        say(f"{len(cells)} cells on {(side.revision or 'a tree outside git')[:10]}{' (dirty)' if side.dirty else ''}")
        modules = sorted({cell.benchmark.module for cell in cells})
        try:
            recorder = _Recorder(make_worker, modules, settings, lambda: None)
        except WorkerFailure as error:
            raise RecordError(f"the benchmark suite cannot be loaded: {error}") from None
        stack.callback(recorder.close)
        suite = recorder.worker.suite
        groups = _head_to_head_groups(config, cells, warnings)
        grouped = {cell.label for group in groups for cell in group.cells.values()}
        steps = sum(settings.min_rounds if cell.benchmark.kind == "time" else settings.memory_samples for cell in cells)
        records, matchups = {}, []
        with tqdm(total=steps, desc="record", unit="sample", file=sys.stderr, disable=not show_progress) as progress:
            recorder.tick = lambda: progress.update(1)
            for group in groups:
                progress.set_postfix_str(group.label[-40:], refresh=False)
                matchup, cell_records = _record_group(recorder, group, config)
                records.update(cell_records)
                if matchup is not None:
                    matchups.append(matchup)
            for cell in cells:
                if cell.label not in grouped:
                    progress.set_postfix_str(cell.label[-40:], refresh=False)
                    records[cell.label] = _record_cell(recorder, cell)
        records = [records[cell.label] for cell in cells]
        broken = [record.label for record in records if record.status == "broken"]
        if broken:
            problems.append(f"{len(broken)} benchmark cell(s) fail: {', '.join(broken)}")
        return SuiteRecord(
            side=side,
            project=ProjectRecord.of(config, side, suite),
            benchmark_dir=config.benchmark_dir,
            cells=tuple(records),
            control=tuple(recorder.control),
            settings=settings,
            problems=tuple(problems),
            warnings=tuple(warnings),
            wall_seconds=time.monotonic() - started,
            matchups=tuple(matchups),
        )


def _head_to_head_groups(config: GateConfig, cells: Sequence[Cell], warnings: list[str]) -> list[Group]:
    """The time-cell groups to measure head to head; a group that lacks the reference is
    named in a warning and measured cell by cell."""
    if config.implementation is None:
        return []
    chosen = []
    for group in groups_of([cell for cell in cells if cell.benchmark.kind == "time"], config.implementation):
        if config.reference in group.cells:
            chosen.append(group)
        else:
            warnings.append(
                f"{group.label}: the reference {config.reference!r} is not one of its implementations "
                f"({', '.join(sorted(group.cells))}); measured cell by cell, not head to head"
            )
    if not chosen:
        warnings.append(
            f"no benchmark has the parameter {config.implementation!r} with the reference {config.reference!r} among "
            "its values: no head-to-head scoreboard"
        )
    return chosen


def _record_group(recorder: _Recorder, group: Group, config: GateConfig) -> tuple[Matchup | None, dict]:
    """One group measured head to head: the matchup and a record per cell (from the same
    interleaved samples); a failing implementation leaves the group to no matchup."""
    rounds = 2 * recorder.settings.min_rounds
    try:
        matchup = measure_group(
            group,
            config.reference,
            config.tolerance_for(group.benchmark.name),
            rounds,
            prepare=lambda cell: recorder.prepare(recorder.worker, cell),
            sample=lambda number: recorder.request(
                recorder.worker, "time", (group.benchmark.timeout + 1) * number + 60, number=number
            )["seconds"],
            choose_number=recorder.number_for,
            tick=recorder.tick,
        )
    except _Failed as failure:
        return None, {
            cell.label: CellRecord(cell.label, "time", "s", failure.status, note=failure.note)
            for cell in group.cells.values()
        }
    except WorkerFailure as failure:
        recorder.restart()
        broken = CellRecord("", "time", "s", "broken", note=str(failure))
        return None, {cell.label: replace(broken, label=cell.label) for cell in group.cells.values()}
    cell_records = {
        cell.label: CellRecord(
            cell.label,
            "time",
            "s",
            "measured",
            matchup.samples[name],
            statistics.median(matchup.samples[name]),
            matchup.number,
        )
        for name, cell in group.cells.items()
    }
    return matchup, cell_records


def _record_cell(recorder: _Recorder, cell: Cell) -> CellRecord:
    kind = cell.benchmark.kind
    unit = {"time": "s", "peakmem": "bytes"}.get(kind, cell.benchmark.unit or "value")
    common = {"label": cell.label, "kind": kind, "unit": unit}
    try:
        controls = []
        if kind == "time":
            samples, controls, number, settled = recorder.time(cell)
            status = "measured" if settled else "unsettled"
        else:
            samples, number, status = recorder.values(cell), None, "measured"
    except _Failed as failure:
        return CellRecord(status=failure.status, note=failure.note, **common)
    except WorkerFailure as failure:  # a crash or a hang: the worker is gone, start afresh
        recorder.restart()
        return CellRecord(status="broken", note=str(failure), **common)
    return CellRecord(
        status=status,
        samples=tuple(samples),
        median=statistics.median(samples),
        number=number,
        control=tuple(controls),
        **common,
    )


def record_body(record: SuiteRecord) -> dict:
    """The body of a ``record`` receipt.

    Parameters
    ----------
    record : SuiteRecord

    Returns
    -------
    dict
        Plain JSON data: the project, the commit, the settings, the control, one entry per
        cell, problems.
    """
    return {
        "project": record.project.to_json(),
        "benchmark_dir": record.benchmark_dir,
        "commit": record.side.revision,
        "dirty": record.side.dirty,
        "how": record.side.how,
        "settings": record.settings.to_json(),
        "control": {
            "samples_s": list(record.control),
            "median_s": statistics.median(record.control) if record.control else None,
        },
        "cells": [cell.to_json() for cell in record.cells],
        "problems": list(record.problems),
        "warnings": list(record.warnings),
        "wall_seconds": record.wall_seconds,
        "headtohead": [matchup.to_json() for matchup in record.matchups],
    }


def write_record(record: SuiteRecord, directory: str) -> str:
    """Seal ``record`` as a ``record`` receipt and write it into ``directory`` (atomically,
    never overwriting).

    Parameters
    ----------
    record : SuiteRecord
    directory : str
        The receipt folder (created if missing).

    Returns
    -------
    str
        The receipt's path.
    """
    sealed = receipts.seal("record", checkout_provenance(record.side), record_body(record))
    return receipts.write_receipt(sealed, directory)
