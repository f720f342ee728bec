"""``bootmark compare OLD NEW``: did the engine get slower?

Exit codes: 0 pass, 1 regression, 2 incomparable.

Rules, for cells present in both receipts (matched on method, n, B and sentinel):

1. **Box state.** ``arch`` is pinned external code, so its time measures the machine.
   The drift is the median over matched cells of |NEW arch / OLD arch - 1|. Above
   ``BOX_DRIFT`` (10%) the boxes are incomparable and absolute milliseconds are not
   compared.
2. **Within-run ratios** are compared across any boxes. The engine's relative cost is
   engine_reduce / arch per round (the inverse of the receipt's arch ratio). A cell
   regresses when the whole of NEW's confidence interval for that cost lies above
   OLD's point value times ``tolerance``.
3. **Absolute time**, only on comparable boxes: a sentinel cell (one thread) regresses
   when NEW's median engine_reduce exceeds OLD's times ``tolerance``.

Cells timed on several threads may get a looser ``threaded_tolerance``: their ratio to
the one-thread control also moves when the host of a virtual machine takes a core away
(2 is the most one lost core of two can cost).

The verdict is 1 if any cell regresses; otherwise 2 if the boxes are incomparable (the
ratios alone could not show a slow-down common to every path) or if no cell could be
judged at all; otherwise 0. Nothing is judged across different arch, numpy or stream
versions or block lengths, and a cell is not judged across different thread counts.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from bootmark.core import records
from bootmark.core.errors import INCOMPARABLE, PASS, REGRESSION  # exit codes of `bootmark compare` (and gate, versus)

__all__ = [
    "BOX_DRIFT",
    "INCOMPARABLE",
    "PASS",
    "REGRESSION",
    "ComparisonError",
    "ComparisonRow",
    "ComparisonVerdict",
    "box_drift",
    "compare",
    "compare_paths",
    "render_markdown",
    "setup_differences",
]

BOX_DRIFT = 0.10  # the largest arch drift (a fraction) at which boxes are comparable
CONTROL_PATH = "arch"
ENGINE_PATH = "engine_reduce"


class ComparisonError(ValueError):
    """The two receipts cannot be compared (different kinds, nothing in common).

    A ``ValueError``, raised by :func:`compare` (and so by :func:`compare_paths`) for a
    receipt that is not a bench receipt, receipts with no cell in common, or a tolerance
    not above 1.
    """


@dataclass(frozen=True)
class ComparisonRow:
    """The verdict on one matched cell (method, n, B, sentinel).

    ``old_ms`` and ``new_ms`` are the engine path's median milliseconds; ``old_cost``,
    ``new_cost`` and ``new_cost_ci`` (engine/arch time per round, NEW's 95% interval)
    are None when the control was not timed in both receipts. ``reasons`` say why the
    cell regressed or was not judged.

    Attributes
    ----------
    method, n, n_bootstraps, sentinel
        The cell (:class:`bootmark.core.records.CellSpec`).
    threads : int
        Numba threads of the cell in NEW.
    tolerance : float
        The allowed slow-down factor applied to the cell.
    regressed, judged : bool
        The verdict, and whether any rule could judge the cell.
    reasons : tuple of str
        Why it regressed or was not judged.
    old_ms, new_ms : float
        The engine path's median, in milliseconds.
    old_cost, new_cost : float or None
        engine/arch time per round, OLD's and NEW's point values.
    new_cost_ci : tuple of float or None
        NEW's 95% interval of that cost.
    """

    method: str
    n: int
    n_bootstraps: int
    sentinel: bool
    threads: int
    tolerance: float
    regressed: bool
    judged: bool
    reasons: tuple[str, ...]
    old_ms: float
    new_ms: float
    old_cost: float | None = None
    new_cost: float | None = None
    new_cost_ci: tuple[float, float] | None = None

    def to_json(self) -> dict:
        """The row as ``bootmark compare --json`` writes it (cost keys only when known).

        Returns
        -------
        dict
            The fields, ``reasons`` and ``new_cost_ci`` as lists.
        """
        row = {
            "method": self.method,
            "n": self.n,
            "n_bootstraps": self.n_bootstraps,
            "sentinel": self.sentinel,
            "threads": self.threads,
            "tolerance": self.tolerance,
            "regressed": self.regressed,
            "judged": self.judged,
            "reasons": list(self.reasons),
        }
        if self.new_cost is not None:
            row.update(old_cost=self.old_cost, new_cost=self.new_cost, new_cost_ci=list(self.new_cost_ci))
        row.update(old_ms=self.old_ms, new_ms=self.new_ms)
        return row


@dataclass(frozen=True)
class ComparisonVerdict:
    """What :func:`compare` found: the exit code (PASS, REGRESSION, INCOMPARABLE) and its
    word, the box drift (None when arch was not timed in both) against its limit, the
    tolerances, how many cells were judged, the setup differences that stopped judging,
    both commits, the cells only one receipt has, and one row per matched cell.

    Attributes
    ----------
    exit_code : int
        :data:`PASS`, :data:`REGRESSION` or :data:`INCOMPARABLE`.
    verdict : str
        ``"pass"``, ``"regression"`` or ``"incomparable"``.
    box_drift : float or None
        The median arch drift (a fraction), None when arch was not timed in both.
    box_drift_limit : float
        :data:`BOX_DRIFT`.
    comparable_boxes : bool
        Whether absolute times were compared (rule 3).
    tolerance, threaded_tolerance : float
        The allowed slow-down factors for one-thread and multi-thread cells.
    judged_cells : int
        How many matched cells were judged.
    setup_differences : tuple of str
        Why the engine/arch costs could not be compared, if so.
    old_sha, new_sha : str or None
        Each receipt's commit.
    unmatched_cells : tuple of tuple
        (method, n, B, sentinel) of the cells only one receipt has.
    cells : tuple of ComparisonRow
        One row per matched cell.

    Examples
    --------
    >>> import os
    >>> from bootmark.bench import compare
    >>> from bootmark.core import workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "bench")
    >>> quick = os.path.join(folder, "bench-amd-epyc-20261203T181926Z-f0d3e52745.json")
    >>> verdict = compare.compare_paths(quick, quick)
    >>> verdict.verdict, verdict.exit_code, verdict.box_drift, verdict.judged_cells
    ('pass', 0, 0.0, 9)
    >>> verdict.to_json()["cells"][0]["reasons"]
    []
    """

    exit_code: int
    box_drift: float | None
    box_drift_limit: float
    comparable_boxes: bool
    tolerance: float
    threaded_tolerance: float
    judged_cells: int
    setup_differences: tuple[str, ...]
    old_sha: str | None
    new_sha: str | None
    unmatched_cells: tuple[tuple, ...]
    cells: tuple[ComparisonRow, ...]

    @property
    def verdict(self) -> str:
        """The exit code's word: "pass", "regression" or "incomparable"."""
        return {PASS: "pass", REGRESSION: "regression", INCOMPARABLE: "incomparable"}[self.exit_code]

    def to_json(self) -> dict:
        """The verdict as ``bootmark compare --json`` writes it.

        Returns
        -------
        dict
            The fields, tuples as lists and rows by :meth:`ComparisonRow.to_json`.
        """
        return {
            "exit_code": self.exit_code,
            "verdict": self.verdict,
            "box_drift": self.box_drift,
            "box_drift_limit": self.box_drift_limit,
            "comparable_boxes": self.comparable_boxes,
            "tolerance": self.tolerance,
            "threaded_tolerance": self.threaded_tolerance,
            "judged_cells": self.judged_cells,
            "setup_differences": list(self.setup_differences),
            "old_sha": self.old_sha,
            "new_sha": self.new_sha,
            "unmatched_cells": [list(cell) for cell in self.unmatched_cells],
            "cells": [row.to_json() for row in self.cells],
        }


def _typed(receipt):
    """A bench receipt as a :class:`~bootmark.core.records.Receipt` (dicts are read once here)."""
    kind = receipt.kind if isinstance(receipt, records.Receipt) else receipt.get("kind")
    if kind != "bench":
        raise ComparisonError(f"only bench receipts can be compared; got a {kind!r} receipt")
    return receipt if isinstance(receipt, records.Receipt) else records.Receipt.from_json(receipt)


def _cells(receipt):
    return {(c.method, c.n, c.n_bootstraps, c.sentinel): c for c in receipt.body.cells}


def box_drift(old: dict | records.Receipt, new: dict | records.Receipt) -> float | None:
    """Median |NEW arch / OLD arch - 1| over matched cells that timed arch, or None.

    Parameters
    ----------
    old, new : dict or bootmark.core.records.Receipt
        Bench receipts.

    Returns
    -------
    float or None
        The drift as a fraction (0.1 is 10%), None when no matched cell timed arch in both.

    Raises
    ------
    ComparisonError
        A receipt dict is not a bench receipt.

    Examples
    --------
    >>> import os
    >>> from bootmark.bench import compare
    >>> from bootmark.core import workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "bench")
    >>> quick = os.path.join(folder, "bench-amd-epyc-20261203T181926Z-f0d3e52745.json")
    >>> from bootmark.core import records
    >>> receipt = records.load(quick)
    >>> compare.box_drift(receipt, receipt)
    0.0
    """
    old_cells, new_cells = _cells(_typed(old)), _cells(_typed(new))
    drifts = [
        abs(new_cells[k].paths[CONTROL_PATH].median_s / old_cells[k].paths[CONTROL_PATH].median_s - 1.0)
        for k in sorted(set(old_cells) & set(new_cells))
        if CONTROL_PATH in old_cells[k].paths and CONTROL_PATH in new_cells[k].paths
    ]
    return statistics.median(drifts) if drifts else None


SETUP_VERSIONS = ("arch", "numpy", "stream_version")


def setup_differences(old: dict | records.Receipt, new: dict | records.Receipt) -> list[str]:
    """Reasons the two receipts' engine/arch costs cannot be compared: a different
    control (arch), numpy or stream version, or a different block length.

    Parameters
    ----------
    old, new : dict or bootmark.core.records.Receipt
        Bench receipts.

    Returns
    -------
    list of str
        One reason per difference; empty when the setups agree.

    Raises
    ------
    ComparisonError
        A receipt dict is not a bench receipt.
    """
    old, new = _typed(old), _typed(new)
    reasons = []
    for name in SETUP_VERSIONS:
        before, after = old.provenance.versions.get(name), new.provenance.versions.get(name)
        if before != after:
            reasons.append(f"{name} {before} before, {after} now")
    if old.body.block_length != new.body.block_length:
        reasons.append(f"block length {old.body.block_length} before, {new.body.block_length} now")
    return reasons


def _judge_cell(key, before, after, allowed, setup_changes, comparable):
    """The :class:`ComparisonRow` of one matched cell (module docstring, rules 2 and 3)."""
    reasons, judged, regressed = [], False, False
    old_cost = new_cost = new_cost_ci = None
    if setup_changes:
        reasons.append("not judged: " + "; ".join(setup_changes))
    elif before.threads != after.threads:
        reasons.append(f"not judged: {before.threads} threads before, {after.threads} now")
    elif CONTROL_PATH in before.ratios and CONTROL_PATH in after.ratios:
        judged = True
        old_cost = 1.0 / before.ratios[CONTROL_PATH].median
        new_ratio = after.ratios[CONTROL_PATH]
        new_low, new_high = 1.0 / new_ratio.ci_high, 1.0 / new_ratio.ci_low
        new_cost, new_cost_ci = 1.0 / new_ratio.median, (new_low, new_high)
        if new_low > old_cost * allowed:
            regressed = True
            reasons.append(f"engine/arch cost CI [{new_low:.3g}, {new_high:.3g}] lies above {old_cost:.3g} x {allowed}")
    else:
        reasons.append(f"not judged: {CONTROL_PATH} was not timed in both receipts")
    old_ms = before.paths[ENGINE_PATH].median_s * 1e3
    new_ms = after.paths[ENGINE_PATH].median_s * 1e3
    if key[3] and comparable and before.threads == after.threads:
        judged = True
        if new_ms > old_ms * allowed:
            regressed = True
            reasons.append(f"sentinel median {new_ms:.3g} ms > {old_ms:.3g} ms x {allowed}")
    return ComparisonRow(
        *key, after.threads, allowed, regressed, judged, tuple(reasons), old_ms, new_ms, old_cost, new_cost, new_cost_ci
    )


def compare(
    old: dict | records.Receipt,
    new: dict | records.Receipt,
    tolerance: float = 1.25,
    threaded_tolerance: float | None = None,
) -> ComparisonVerdict:
    """The :class:`ComparisonVerdict` of bench receipt ``new`` against ``old`` (receipt
    dicts or :class:`~bootmark.core.records.Receipt` records).

    ``threaded_tolerance`` (default: ``tolerance``) applies to cells timed on more than
    one thread, whose ratio to the one-thread ``arch`` control also moves when the host
    takes a core away.

    Parameters
    ----------
    old, new : dict or bootmark.core.records.Receipt
        The baseline and the bench receipt judged against it.
    tolerance : float, optional
        The allowed slow-down factor (> 1) of one-thread cells (default 1.25).
    threaded_tolerance : float, optional
        The allowed slow-down factor (> 1) of multi-thread cells (default ``tolerance``).

    Returns
    -------
    ComparisonVerdict
        The verdict, by the rules of the module docstring.

    Raises
    ------
    ComparisonError
        A receipt is not a bench receipt, a tolerance is not above 1, or the receipts
        have no cell in common.

    See Also
    --------
    compare_paths : the same on receipt files.
    render_markdown : the verdict as a table.

    Examples
    --------
    >>> import os
    >>> from bootmark.bench import compare
    >>> from bootmark.core import workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "bench")
    >>> quick = os.path.join(folder, "bench-amd-epyc-20261203T181926Z-f0d3e52745.json")
    >>> from bootmark.core import records
    >>> receipt = records.load(quick)
    >>> compare.compare(receipt, receipt).verdict
    'pass'
    >>> compare.compare(receipt, receipt, tolerance=0.9)
    Traceback (most recent call last):
        ...
    bootmark.bench.compare.ComparisonError: tolerances must be above 1 (allowed slow-down factors), got 0.9 and 0.9
    """
    threaded_tolerance = tolerance if threaded_tolerance is None else threaded_tolerance
    old, new = _typed(old), _typed(new)
    if not (tolerance > 1 and threaded_tolerance > 1):
        raise ComparisonError(
            f"tolerances must be above 1 (allowed slow-down factors), got {tolerance} and {threaded_tolerance}"
        )
    old_cells, new_cells = _cells(old), _cells(new)
    matched = sorted(set(old_cells) & set(new_cells))
    if not matched:
        raise ComparisonError("the receipts have no cell in common; compare receipts of the same profile")
    setup_changes = setup_differences(old, new)
    drift = box_drift(old, new)
    comparable = drift is not None and drift <= BOX_DRIFT and not setup_changes
    rows = tuple(
        _judge_cell(
            key,
            old_cells[key],
            new_cells[key],
            tolerance if new_cells[key].threads == 1 else threaded_tolerance,
            setup_changes,
            comparable,
        )
        for key in matched
    )
    regressed = any(row.regressed for row in rows)
    judged = sum(row.judged for row in rows)
    # Nothing judged is never a pass: a missing control must not wave a slower engine through.
    exit_code = REGRESSION if regressed else PASS if comparable and judged else INCOMPARABLE
    return ComparisonVerdict(
        exit_code,
        drift,
        BOX_DRIFT,
        comparable,
        tolerance,
        threaded_tolerance,
        judged,
        tuple(setup_changes),
        old.provenance.source.git_sha,
        new.provenance.source.git_sha,
        tuple(sorted(set(old_cells) ^ set(new_cells))),
        rows,
    )


def compare_paths(
    old_path: str, new_path: str, tolerance: float = 1.25, threaded_tolerance: float | None = None
) -> ComparisonVerdict:
    """:func:`compare` on two receipt files (each loaded with its schema and hash checked).

    Parameters
    ----------
    old_path, new_path : str
        The baseline's and the judged receipt's files.
    tolerance, threaded_tolerance : float, optional
        As for :func:`compare`.

    Returns
    -------
    ComparisonVerdict
        The verdict.

    Raises
    ------
    bootmark.core.receipts.ReceiptError
        A file cannot be loaded or fails its schema or hash.
    ComparisonError
        As for :func:`compare`.

    Examples
    --------
    >>> import os
    >>> from bootmark.bench import compare
    >>> from bootmark.core import workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "bench")
    >>> quick = os.path.join(folder, "bench-amd-epyc-20261203T181926Z-f0d3e52745.json")
    >>> compare.compare_paths(quick, quick).exit_code == compare.PASS
    True
    """
    return compare(records.load(old_path), records.load(new_path), tolerance, threaded_tolerance)


def render_markdown(verdict: ComparisonVerdict) -> str:
    """The :class:`ComparisonVerdict` as a markdown table with a one-line summary.

    Parameters
    ----------
    verdict : ComparisonVerdict
        What :func:`compare` found.

    Returns
    -------
    str
        The summary line, a blank line, and one table row per matched cell (times in
        milliseconds).

    Examples
    --------
    >>> import os
    >>> from bootmark.bench import compare
    >>> from bootmark.core import workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "bench")
    >>> quick = os.path.join(folder, "bench-amd-epyc-20261203T181926Z-f0d3e52745.json")
    >>> print(compare.render_markdown(compare.compare_paths(quick, quick)).splitlines()[0])
    **PASS** (exit 0); arch drift 0.0% (limit 10%), tolerance x1.25 (x1.25 for multi-thread cells); 9 of 9 cells judged
    """
    drift = "n/a" if verdict.box_drift is None else f"{verdict.box_drift:.1%}"
    lines = [
        f"**{verdict.verdict.upper()}** (exit {verdict.exit_code}); arch drift {drift} "
        f"(limit {verdict.box_drift_limit:.0%}), tolerance x{verdict.tolerance} "
        f"(x{verdict.threaded_tolerance} for multi-thread cells); {verdict.judged_cells} of "
        f"{len(verdict.cells)} cells judged" + "".join(f"; {reason}" for reason in verdict.setup_differences),
        "",
        "| method | n | B | threads | old ms | new ms | old engine/arch | new engine/arch (95% CI) | regressed |",
        "|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for row in verdict.cells:
        cost = (
            f"{row.new_cost:.3f} ({row.new_cost_ci[0]:.3f}-{row.new_cost_ci[1]:.3f})"
            if row.new_cost is not None
            else "n/a"
        )
        old_cost = f"{row.old_cost:.3f}" if row.old_cost is not None else "n/a"
        lines.append(
            f"| {row.method}{' (sentinel)' if row.sentinel else ''} | {row.n} | "
            f"{row.n_bootstraps} | {row.threads} | "
            f"{row.old_ms:.2f} | {row.new_ms:.2f} | {old_cost} | {cost} | "
            f"{'YES: ' + '; '.join(row.reasons) if row.regressed else 'no'}"
            f"{'' if row.judged else ' (not judged)'} |"
        )
    return "\n".join(lines)
