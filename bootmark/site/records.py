"""The site's suite history: every ``bootmark record`` receipt of the workspace and of its
git history, in commit order; per benchmark, its median over commits, one line per
machine, with the change points named by the commit where each step starts, and the gate
runs of those commits linked.

Two readings of a time, both shown. The **absolute** median is comparable only within one
machine, so each machine is its own series (and its own change-point search). The time
**in control units** (the median of each sample over the worker's fixed pure-Python loop,
timed right after it in the same process) cancels most of the speed difference between two
machines of one kind, as shared CI runners are, and a busy moment of one runner: change
points are searched on it, so a step is the code's, not the runner's.

May import: bootmark.core, bootmark.gate (its records), bootmark.site.model,
bootmark.site.charts, bootmark.site.history.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from bootmark.gate.record import CellRecord
from bootmark.gate.report import value_text
from bootmark.site.charts import history_svg
from bootmark.site.gates import GateRun, verdict_word
from bootmark.site.history import HistoryReceipt, change_points
from bootmark.site.model import Bullets, Cell, Figure, Heading, Page, Publisher, Table, slug, text

__all__ = ["FOLDER", "overview_blocks", "record_steps", "suite_page", "suite_steps"]

FOLDER = os.path.join("receipts", "records")
"""Where ``bootmark record`` writes, relative to the workspace."""


def _relative(point: HistoryReceipt, cell: CellRecord) -> float | None:
    """The cell's time in control units: the median of its paired ratios, else its median
    over the run's control median (None without a control)."""
    if cell.relative_median is not None:
        return cell.relative_median
    control = point.receipt["body"]["control"]["median_s"]
    return cell.median / control if control else None


def _time_cells(history: Sequence[HistoryReceipt]) -> list[str]:
    """The labels of every time cell measured in some record, sorted."""
    labels = set()
    for point in history:
        for cell in point.receipt["body"]["cells"]:
            if cell["kind"] == "time" and cell["median"]:
                labels.add(cell["label"])
    return sorted(labels)


def _series(history: Sequence[HistoryReceipt], label: str) -> list[tuple[int, HistoryReceipt, CellRecord]]:
    """(position in history, record, cell) of every record that measured ``label``."""
    found = []
    for index, point in enumerate(history):
        for cell in point.receipt["body"]["cells"]:
            if cell["label"] == label and cell["median"]:
                found.append((index, point, CellRecord.from_json(cell)))
    return found


def record_steps(history: Sequence[HistoryReceipt], label: str) -> dict[str, list[int]]:
    """Where the median of ``label`` steps, per machine: {machine: positions in the
    machine's own series where a new level starts}.

    Parameters
    ----------
    history : sequence of HistoryReceipt
        Record receipts in commit order (``bootmark.site.history.receipt_history``).
    label : str
        A time cell's label.

    Returns
    -------
    dict of str to list of int
        Positions index into ``history``.

    Notes
    -----
    The search runs on the time in control units when every record of the machine has
    one (a busy moment of a shared runner slows the control too, and cancels), else on
    the absolute median.
    """
    found = _series(history, label)
    steps = {}
    for host in sorted({point.host for _, point, _ in found}):
        mine = [(index, point, cell) for index, point, cell in found if point.host == host]
        relative = [_relative(point, cell) for _, point, cell in mine]
        values = relative if all(value is not None for value in relative) else [cell.median for _, _, cell in mine]
        steps[host] = [mine[step][0] for step in change_points(values)]
    return steps


def suite_steps(history: Sequence[HistoryReceipt]) -> dict[str, dict[str, list[int]]]:
    """:func:`record_steps` of every time cell, searched once for both the overview and the
    suite page.

    Parameters
    ----------
    history : sequence of HistoryReceipt
        Record receipts in commit order.

    Returns
    -------
    dict of str to dict of str to list of int
        {label: {machine: positions in ``history`` where a new level starts}}.
    """
    return {label: record_steps(history, label) for label in _time_cells(history)}


def _gate_links(runs: Sequence[GateRun]) -> dict[str, GateRun]:
    """{commit: the newest gate run whose current side was that commit (a clean tree)}."""
    linked = {}
    for run in reversed(runs):  # oldest first, so the newest wins
        current = run.body["current"]
        if current.get("revision") and not current.get("dirty"):
            linked[current["revision"]] = run
    return linked


def suite_page(
    publish: Publisher,
    charts: dict,
    history: Sequence[HistoryReceipt],
    steps: Mapping[str, Mapping[str, list[int]]],
    runs: Sequence[GateRun] = (),
) -> Page:
    """The suite history page.

    Parameters
    ----------
    publish : Publisher
        Copies the receipts linked into the site.
    charts : dict
        Gains the charts drawn ({file name: SVG}).
    history : sequence of HistoryReceipt
        Record receipts in commit order.
    steps : mapping
        :func:`suite_steps` of ``history``.
    runs : sequence of GateRun, optional
        The workspace's gate runs (``bootmark.site.gates.gate_runs``): a record's commit
        links the gate run of that commit.

    Returns
    -------
    Page
    """
    page = Page("suite.html", "Suite history")
    project = history[-1].receipt["body"]["project"]["name"] or "the project"
    gates = _gate_links(runs)
    page.blocks.append(
        text(
            f"{len(history)} records of {project}'s benchmark suite (bootmark record), from the workspace and its git "
            "history, in commit order. Per benchmark, the median time per call on each machine, and the time in "
            "control units (each sample over the worker's control loop, timed right after it), which cancels most "
            "of the difference between two machines of one kind and a busy moment of one. A change point "
            "(ruptures' PELT on the logarithm of the time in control units, steps of 10% or more clear of the "
            "records' scatter, each machine on "
            "its own) is named by the commit where the new level starts."
        )
    )
    labels = [f"{point.commit[:7] or '?'}·{index}" for index, point in enumerate(history)]
    page.blocks.append(
        Table(
            "The records, oldest commit first",
            ("#", "commit", "machine", "started (UTC)", "cells", "gate run of this commit", "receipt"),
            tuple(
                (
                    (
                        Cell(str(index), index),
                        Cell(point.commit[:10] or "no git commit"),
                        Cell(point.host),
                        Cell(point.finished_utc),
                        Cell(str(len(point.receipt["body"]["cells"])), len(point.receipt["body"]["cells"])),
                        _gate_cell(gates.get(point.commit)),
                        Cell(point.name, href=publish.link(point.path) if point.path else None),
                    ),
                    "",
                )
                for index, point in enumerate(history)
            ),
            frozenset({0, 4}),
        )
    )
    for label, found_steps in steps.items():
        page.blocks.extend(_benchmark_blocks(charts, history, label, found_steps, labels, gates))
    return page


def _gate_cell(run: GateRun | None) -> Cell:
    if run is None:
        return Cell("")
    return Cell(f"{verdict_word(run.body['exit_code'])} against {run.side('baseline')}", href=f"gate.html#{run.anchor}")


def _benchmark_blocks(charts, history, label, steps, labels, gates: Mapping[str, GateRun]) -> list:
    found = _series(history, label)
    position_of = {index: position for position, (index, _, _) in enumerate(found)}
    stepped = {index for positions in steps.values() for index in positions}
    series, marks = {}, {}
    for host in sorted(steps):
        mine = [(index, point, cell) for index, point, cell in found if point.host == host]
        absolute, relative = [None] * len(found), [None] * len(found)
        for index, point, cell in mine:
            position = position_of[index]
            absolute[position] = cell.median * 1e3
            relative[position] = _relative(point, cell)
        at_steps = [
            position for position, (index, _, _) in enumerate(found) if index in steps[host]
        ]  # chart positions of this machine's steps
        series[f"ms, {host}"], marks[f"ms, {host}"] = absolute, []
        if any(value is not None for value in relative):
            series[f"time / control, {host}"], marks[f"time / control, {host}"] = relative, at_steps
        else:
            marks[f"ms, {host}"] = at_steps
    anchor = "suite-" + slug(label)
    chart = f"{anchor}.svg"
    axis = [labels[index] for index, _, _ in found]
    charts[chart] = history_svg(axis, series, marks, "ms per call, or time / control")
    words = "; ".join(
        f"{host}: a step at commit {history[index].commit[:10]}"
        for host, positions in steps.items()
        for index in positions
    )
    blocks = [
        Heading(2, label, anchor),
        text(f"{len(found)} records" + (f". Change points: {words}." if words else "; no change point.")),
        Figure(
            f"charts/{chart}",
            f"The median time per call of {label} over commits, one line per machine, and its time in control "
            "units; values and change points in the table below.",
            "Records in commit order; dotted: a change point.",
        ),
    ]
    rows = []
    for index, point, cell in found:
        relative = _relative(point, cell)
        gate = gates.get(point.commit)
        rows.append(
            (
                (
                    Cell(str(index), index),
                    Cell(point.commit[:10] or "no git commit"),
                    Cell(point.host),
                    Cell(value_text(cell.median, cell.unit), cell.median),
                    Cell(f"{relative:.3f}" if relative is not None else "", relative),
                    Cell(
                        str(len(cell.samples)) + ("" if cell.status == "measured" else f" ({cell.status})"),
                        len(cell.samples),
                    ),
                    Cell("a new level starts here" if index in stepped else ""),
                    _gate_cell(gate),
                ),
                "",
            )
        )
    blocks.append(
        Table(
            f"{label} over commits",
            ("#", "commit", "machine", "median", "time / control", "samples", "change point", "gate run"),
            tuple(rows),
            frozenset({0, 3, 4, 5}),
        )
    )
    return blocks


def overview_blocks(history: Sequence[HistoryReceipt], steps: Mapping[str, Mapping[str, list[int]]]) -> list:
    """The overview's section on the suite history: how many records, on how many
    machines, and every step found, named by benchmark and commit.

    Parameters
    ----------
    history : sequence of HistoryReceipt
        Record receipts in commit order (at least one).
    steps : mapping
        :func:`suite_steps` of ``history``.

    Returns
    -------
    list
        Page blocks.
    """
    project = history[-1].receipt["body"]["project"]["name"] or "the project"
    machines = sorted({point.host for point in history})
    found = []
    for label, by_machine in steps.items():
        for host, positions in by_machine.items():
            for index in positions:
                found.append(
                    text(
                        (label, f"suite.html#suite-{slug(label)}"),
                        f" steps at commit {history[index].commit[:10]} on {host}.",
                    )
                )
    blocks = [
        Heading(2, "Suite history", "suite"),
        text(
            f"{len(history)} records of {project}'s suite on {len(machines)} machine"
            f"{'' if len(machines) == 1 else 's'}, newest at commit {history[-1].commit[:10] or 'outside git'}; "
            + (f"{len(found)} change point{'' if len(found) == 1 else 's'}:" if found else "no change point. ")
            + " Every benchmark over commits is on the ",
            ("suite history page", "suite.html"),
            ".",
        ),
    ]
    if found:
        blocks.append(Bullets(tuple(found)))
    return blocks
