"""The site's gate page: every ``bootmark gate`` receipt of the workspace, newest first,
with its verdict, then each run's cells (ratio, interval, confirmation and status), and
the overview's lines on the gate.

May import: bootmark.core, bootmark.gate (its records and wording), bootmark.site.model.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from bootmark.core import receipts
from bootmark.core.errors import INCOMPARABLE, PASS, REGRESSION
from bootmark.gate.report import ratio_text, value_text
from bootmark.gate.verdicts import CellVerdict
from bootmark.site.history import machine_name
from bootmark.site.model import Bullets, Cell, Heading, Page, Publisher, Table, slug, text

__all__ = ["GateRun", "gate_page", "gate_runs", "overview_blocks", "verdict_word"]

# The order a reader needs the cells of one run in: what failed first.
STATUS_ORDER = (
    "regression",
    "incomparable",
    "broken",
    "undecided",
    "unconfirmed",
    "improvement",
    "unconfirmed-improvement",
    "new",
    "skipped",
    "same",
)


@dataclass(frozen=True)
class GateRun:
    """One gate receipt as the site shows it.

    Attributes
    ----------
    path : str
        The receipt file.
    receipt : dict
        The loaded receipt.
    cells : tuple of CellVerdict
        Its cells, read back into the gate's own records.
    """

    path: str
    receipt: dict
    cells: tuple[CellVerdict, ...]

    @property
    def body(self) -> dict:
        return self.receipt["body"]

    @property
    def when(self) -> str:
        """When the run finished, or started if the receipt records no finish (UTC, ISO 8601)."""
        provenance = self.receipt["provenance"]
        return provenance.get("finished_utc") or provenance["started_utc"]

    @property
    def anchor(self) -> str:
        """The id of its section on the gate page."""
        return "run-" + slug(os.path.basename(self.path).removesuffix(".json"))

    @property
    def project(self) -> str:
        """``name version`` of the gated project, or ``project not recorded`` (receipts older than the record)."""
        project = self.body.get("project") or {}
        name = project.get("name") or "project not recorded"
        return f"{name} {project['version']}" if project.get("version") else name

    def side(self, which: str) -> str:
        """``baseline`` or ``current`` as ten hex digits, marked when the tree was dirty."""
        side = self.body[which]
        revision = (side.get("revision") or "")[:10] or "?"
        return revision + (" (uncommitted changes)" if side.get("dirty") else "")


def gate_runs(directory: str) -> list[GateRun]:
    """Every gate receipt in ``directory``, newest first.

    Parameters
    ----------
    directory : str
        The gate receipt folder (``receipts/gate``); a missing folder holds none.

    Returns
    -------
    list of GateRun
    """
    if not os.path.isdir(directory):
        return []
    found = [
        GateRun(path, receipt, tuple(CellVerdict.from_json(cell) for cell in receipt["body"]["cells"]))
        for _key, path, receipt in receipts.scan(directory, ("gate",))
    ]
    return sorted(found, key=lambda run: (run.when, run.path), reverse=True)


def verdict_word(exit_code: int) -> str:
    """The gate's verdict from its exit code: ``PASS``, ``FAIL`` or ``cannot judge``.

    Parameters
    ----------
    exit_code : int
        A gate receipt's ``body.exit_code``.

    Returns
    -------
    str

    Examples
    --------
    >>> [verdict_word(code) for code in (0, 1, 2)]
    ['PASS', 'FAIL', 'cannot judge']
    """
    return {PASS: "PASS", REGRESSION: "FAIL"}.get(exit_code, "cannot judge" if exit_code == INCOMPARABLE else "?")


def _labels(run: GateRun, status: str) -> str:
    return ", ".join(cell.label for cell in run.cells if cell.status == status)


def overview_blocks(runs: Sequence[GateRun]) -> list:
    """The overview's section on the gate: the newest run's verdict and what it found, and
    how many runs passed and failed.

    Parameters
    ----------
    runs : sequence of GateRun
        From :func:`gate_runs`, newest first (at least one).

    Returns
    -------
    list
        Page blocks.
    """
    newest = runs[0]
    verdicts = [verdict_word(run.body["exit_code"]) for run in runs]
    regressions = _labels(newest, "regression")
    return [
        Heading(2, "Speed gate", "gate"),
        Bullets(
            (
                text(
                    "Newest run: ",
                    (
                        f"{newest.project}, {newest.side('current')} against {newest.side('baseline')}",
                        f"gate.html#{newest.anchor}",
                    ),
                    f" ({newest.when}): {verdict_word(newest.body['exit_code'])}, "
                    f"{len(newest.cells)} cells at tolerance x{newest.body['tolerance']:g}"
                    + (f"; regressions: {regressions}" if regressions else "; no regression")
                    + ".",
                ),
                text(
                    f"{len(runs)} gate run{'' if len(runs) == 1 else 's'} on record: {verdicts.count('PASS')} PASS, "
                    f"{verdicts.count('FAIL')} FAIL, {verdicts.count('cannot judge')} could not judge. "
                    "Every run is on the ",
                    ("gate page", "gate.html"),
                    ".",
                ),
            )
        ),
    ]


def gate_page(publish: Publisher, runs: Sequence[GateRun]) -> Page:
    """The gate page: a table of every run, then each run's cells.

    Parameters
    ----------
    publish : Publisher
        Copies the receipts linked into the site.
    runs : sequence of GateRun
        From :func:`gate_runs`, newest first.

    Returns
    -------
    Page
    """
    page = Page("gate.html", "Speed gate")
    page.blocks.append(
        text(
            f"Every bootmark gate receipt of the workspace ({len(runs)}), newest first. A ratio is the current "
            "side's time over the baseline's, measured interleaved in one run, with its 95% interval; a slower or "
            "faster cell is measured a second time before it is called a regression or an improvement."
        )
    )
    page.blocks.append(
        Table(
            "Gate runs, newest first",
            (
                "finished (UTC)",
                "project",
                "current",
                "baseline",
                "verdict",
                "regressions",
                "cells",
                "wall s",
                "receipt",
            ),
            tuple(
                (
                    (
                        Cell(run.when, href=f"#{run.anchor}"),
                        Cell(run.project),
                        Cell(run.side("current")),
                        Cell(run.side("baseline")),
                        Cell(
                            verdict_word(run.body["exit_code"]),
                            css="verdict-loss" if run.body["exit_code"] == REGRESSION else "",
                        ),
                        Cell(_labels(run, "regression")),
                        Cell(str(len(run.cells)), len(run.cells)),
                        Cell(f"{run.body['wall_seconds']:.0f}", run.body["wall_seconds"]),
                        Cell(os.path.basename(run.path), href=publish.link(run.path)),
                    ),
                    "loss" if run.body["exit_code"] == REGRESSION else "",
                )
                for run in runs
            ),
            frozenset({6, 7}),
        )
    )
    for run in runs:
        page.blocks.extend(_run_blocks(run))
    return page


def _run_blocks(run: GateRun) -> list:
    body = run.body
    blocks = [
        Heading(
            2,
            f"{run.project}: {run.side('current')} against {run.side('baseline')}, {verdict_word(body['exit_code'])}",
            run.anchor,
        ),
        text(
            f"{run.when} on {machine_name(run.receipt['provenance'])}; suite "
            f"{body['benchmark_dir']}; tolerance x{body['tolerance']:g}; {body['wall_seconds']:.0f} s"
            + ("; the budget ran out" if body["budget_spent"] else "")
            + "."
        ),
    ]
    notes = [*body["problems"], *body["warnings"]]
    if notes:
        blocks.append(Bullets(tuple(text(note) for note in notes)))
    ordered = sorted(
        run.cells,
        key=lambda cell: (
            STATUS_ORDER.index(cell.status) if cell.status in STATUS_ORDER else len(STATUS_ORDER),
            cell.label,
        ),
    )
    rows = []
    for cell in ordered:
        pair = cell.median_round()
        before, after = (value_text(amount, cell.unit) for amount in pair) if pair else ("", "")
        rows.append(
            (
                (
                    Cell(cell.label),
                    Cell(cell.kind),
                    Cell(before),
                    Cell(after),
                    Cell(ratio_text(cell), cell.ratio.median if cell.ratio else None),
                    Cell(cell.status, css="verdict-loss" if cell.status == "regression" else ""),
                ),
                "loss" if cell.status == "regression" else "",
            )
        )
    blocks.append(
        Table(
            "Cells of the run, failures first (baseline and current from the round at the median ratio)",
            ("benchmark", "kind", "baseline", "current", "current / baseline (95%)", "status"),
            tuple(rows),
            frozenset({2, 3, 4}),
        )
    )
    return blocks
