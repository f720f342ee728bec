"""The site's head-to-head scoreboard of a project's own suite: from the newest record of
each machine that measured head-to-head groups (``bootmark.gate.headtohead``), every
implementation's time over the reference's with its 95% interval, and the reference's
wins, ties and LOSSES against each other implementation, losses printed beside wins.

May import: bootmark.gate (its records), bootmark.site.model, bootmark.site.history.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from bootmark.gate.report import value_text
from bootmark.site.history import HistoryReceipt
from bootmark.site.model import Cell, Heading, Page, Publisher, Table, slug, text

__all__ = ["newest_scoreboards", "overview_blocks", "versus_page"]

VERDICTS = ("win", "tie", "LOSS")


def newest_scoreboards(history: Sequence[HistoryReceipt]) -> list[HistoryReceipt]:
    """The newest record of each machine that holds head-to-head groups.

    Parameters
    ----------
    history : sequence of HistoryReceipt
        Record receipts in commit order.

    Returns
    -------
    list of HistoryReceipt
        One per machine, by machine name.
    """
    newest = {}
    for point in history:
        if point.receipt["body"].get("headtohead"):
            newest[point.host] = point
    return [newest[host] for host in sorted(newest)]


def _tally(point: HistoryReceipt) -> dict[str, dict[str, int]]:
    """{other implementation: {verdict: count}} over the record's groups."""
    tally: dict[str, dict[str, int]] = {}
    for group in point.receipt["body"]["headtohead"]:
        for row in group["rows"]:
            if row["verdict"] is not None:
                counts = tally.setdefault(row["implementation"], dict.fromkeys(VERDICTS, 0))
                counts[row["verdict"]] += 1
    return tally


def overview_blocks(boards: Sequence[HistoryReceipt]) -> list:
    """The overview's section on the head-to-head scoreboard: per machine, the reference's
    wins, ties and LOSSES against each other implementation.

    Parameters
    ----------
    boards : sequence of HistoryReceipt
        From :func:`newest_scoreboards` (at least one).

    Returns
    -------
    list
        Page blocks.
    """
    blocks = [Heading(2, "Head to head", "head-to-head")]
    for point in boards:
        groups = point.receipt["body"]["headtohead"]
        reference = groups[0]["reference"]
        blocks.append(
            text(
                f"{reference} against each other implementation in {len(groups)} benchmark"
                f"{'' if len(groups) == 1 else 's'} of the newest record on {point.host} (commit "
                f"{point.commit[:10] or 'outside git'}). Every benchmark is on the ",
                ("head-to-head page", "versus.html"),
                ".",
            )
        )
        blocks.append(_tally_table(point, reference))
    return blocks


def _tally_table(point: HistoryReceipt, reference: str) -> Table:
    rows = []
    for other, counts in sorted(_tally(point).items()):
        rows.append(
            (
                (
                    Cell(other),
                    Cell(str(counts["win"]), counts["win"]),
                    Cell(str(counts["tie"]), counts["tie"]),
                    Cell(str(counts["LOSS"]), counts["LOSS"], css="verdict-loss" if counts["LOSS"] else ""),
                ),
                "loss" if counts["LOSS"] else "",
            )
        )
    return Table(
        f"{reference}'s verdicts against each implementation on {point.host}",
        ("against", "wins", "ties", "LOSSES"),
        tuple(rows),
        frozenset({1, 2, 3}),
    )


def _verdict_cell(verdict: str | None) -> Cell:
    """The reference's verdict, styled as the engine grid styles its own (LOSS in bold)."""
    return Cell(verdict or "", verdict or "", css=f"verdict-{verdict.lower()}" if verdict else "")


def versus_page(publish: Publisher, boards: Sequence[HistoryReceipt]) -> Page:
    """The head-to-head page: per machine's newest record, each group's implementations.

    Parameters
    ----------
    publish : Publisher
        Copies the receipts linked into the site.
    boards : sequence of HistoryReceipt
        From :func:`newest_scoreboards`.

    Returns
    -------
    Page
    """
    page = Page("versus.html", "Head to head")
    page.blocks.append(
        text(
            "Benchmarks of the project's own suite whose parameter names the implementation, every implementation "
            "measured interleaved round by round in one process. A ratio is the implementation's time over the "
            "reference's, with its 95% moving-block bootstrap interval: above 1, the reference is faster. The "
            "verdict is the reference's: win when the whole interval lies above the tolerance, LOSS when it lies "
            "wholly below its inverse, tie otherwise."
        )
    )
    for point in boards:
        groups = point.receipt["body"]["headtohead"]
        page.blocks.append(Heading(2, f"{point.host}, commit {point.commit[:10] or 'outside git'}", slug(point.host)))
        page.blocks.append(
            text(
                "From ",
                (os.path.basename(point.path), publish.link(point.path))
                if point.path
                else os.path.basename(point.name),
                f" ({point.finished_utc}).",
            )
        )
        page.blocks.append(_tally_table(point, groups[0]["reference"]))
        for group in groups:
            page.blocks.append(Heading(3, group["label"], slug(f"{point.host}-{group['label']}")))
            page.blocks.append(
                Table(
                    f"{group['label']}: {group['rounds']} interleaved rounds of {group['number']} calls; tolerance "
                    f"x{group['tolerance']:g}",
                    ("implementation", "median per call", f"time / {group['reference']} (95%)", "verdict"),
                    tuple(
                        (
                            (
                                Cell(row["implementation"] + (" (reference)" if row["ratio"] is None else "")),
                                Cell(value_text(row["median_s"], "s"), row["median_s"]),
                                Cell(
                                    f"{row['ratio']['median']:.2f} ({row['ratio']['ci_low']:.2f}–"
                                    f"{row['ratio']['ci_high']:.2f})"
                                    if row["ratio"]
                                    else "",
                                    row["ratio"]["median"] if row["ratio"] else None,
                                ),
                                _verdict_cell(row["verdict"]),
                            ),
                            "loss" if row["verdict"] == "LOSS" else "",
                        )
                        for row in group["rows"]
                    ),
                    frozenset({1, 2}),
                )
            )
    return page
