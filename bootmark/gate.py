"""``bootmark gate``: the CI speed check.

Runs the quick bench profile in-process and compares it (``bootmark.compare``) with the
newest committed quick receipt in ``receipts/bench/``. Exit 1 only on a regression that
the comparator can show; an incomparable box (the ``arch`` control drifted more than
10%) passes with a warning, because CI machines differ from the one that made the
baseline and within-run ratios alone showed no slow-down. Exit 2 when there is no
baseline to compare with, or when no cell could be judged (a missing ``arch``, other
thread counts, other arch / numpy / stream versions).

The one-thread sentinel cells carry the fine check (``tolerance``, 1.25 by default); the
two-thread quick cells are held to ``THREADED_TOLERANCE`` (2), since on a 2-core virtual
machine a core taken by the host slows them and not the one-thread ``arch`` control.

A regression must be seen twice. The receipt comparison is a screen: the baseline may
come from another host, and hosts sold under one CPU name can agree on ``arch`` and
still differ by a quarter in the engine's cost relative to it. So the cells it flags are
measured again **head to head** (``bootmark.head_to_head``): the baseline receipt's own
commit against this checkout, on this box, interleaved in one run. Only cells slower
there beyond the same tolerances fail the gate. When that commit cannot be exported (no
git, a shallow clone, a receipt from a dirty tree) the flagged cells are re-measured
against the receipt instead, as the printed reason says.
"""

from __future__ import annotations

import sys
from typing import TextIO

from . import bench, compare, head_to_head, receipts, records, workspace

__all__ = ["THREADED_TOLERANCE", "baseline_path", "run_gate"]

THREADED_TOLERANCE = 2.0  # one core of two lost to the host can double a two-thread time


def baseline_path(directory: str | None = None) -> str | None:
    """Newest committed receipt of the quick profile in ``directory`` (default: the
    workspace's bench receipts), or None.

    Parameters
    ----------
    directory : str, optional
        The folder of bench receipts (default: the workspace's,
        :func:`bootmark.workspace.directory_for`).

    Returns
    -------
    str or None
        The newest quick-profile receipt's path, None when there is none.

    Raises
    ------
    bootmark.receipts.ReceiptError
        A bench receipt in the folder cannot be loaded.
    bootmark.workspace.WorkspaceError
        No folder was given and the workspace cannot be found.

    Examples
    --------
    >>> import os, tempfile
    >>> from bootmark import gate, workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "bench")
    >>> os.path.basename(gate.baseline_path(folder)).startswith("bench-")
    True
    >>> with tempfile.TemporaryDirectory() as scratch:
    ...     print(gate.baseline_path(scratch))
    None
    """
    return receipts.newest_receipt(
        workspace.directory_for("bench", directory), "bench", lambda receipt: receipt["body"]["profile"] == "quick"
    )


def run_gate(
    tolerance: float = 1.25,
    directory: str | None = None,
    show_progress: bool = True,
    out: TextIO = sys.stdout,
    tree: str | None = None,
) -> int:
    """Measure, compare, print; return the exit code. ``directory`` holds the baseline
    receipts (default: the workspace's bench receipts).

    ``tree`` (default: this checkout) is a source tree, a folder with ``engine/`` and
    ``reference/``, whose engine is gated instead: the screen times the engine this
    process imported, so import the tree's first, with
    ``bootmark.head_to_head.import_engine(tree)`` before importing this module; it is
    also the current side of the head-to-head confirmation. A patch under review can be
    gated this way, and the gate's negative control gates a deliberately slowed copy.

    Parameters
    ----------
    tolerance : float, optional
        The allowed slow-down factor (> 1) of the one-thread cells (default 1.25); the
        multi-thread cells get ``max(tolerance, THREADED_TOLERANCE)``.
    directory : str, optional
        The folder of baseline receipts (default: the workspace's bench receipts).
    show_progress : bool, optional
        Show progress bars on stderr.
    out : file, optional
        Where the tables and verdict are printed (default: stdout).
    tree : str, optional
        A source tree whose engine is gated (default: this checkout's).

    Returns
    -------
    int
        ``compare.PASS`` (0), ``compare.REGRESSION`` (1, confirmed) or
        ``compare.INCOMPARABLE`` (2: no baseline, or no cell judged).

    Raises
    ------
    bootmark.compare.ComparisonError
        ``tolerance`` is not above 1 (checked before any timing).
    bootmark.head_to_head.HeadToHeadError
        ``tree`` is given but this process's engine did not come from it.
    bootmark.receipts.ReceiptError
        The baseline receipt cannot be loaded.
    bootmark.bench.TripwireError
        The screen's run tripped a bench tripwire.

    See Also
    --------
    bootmark.compare.compare : the screen.
    bootmark.head_to_head.compare_revisions : the confirmation.
    """
    if tree is not None:
        head_to_head.require_engine_from(tree)
    directory = workspace.directory_for("bench", directory)
    if not tolerance > 1:  # checked before a minute of timing, not after
        raise compare.ComparisonError(f"--tolerance must be above 1 (an allowed slow-down factor), got {tolerance}")
    baseline = baseline_path(directory)
    if baseline is None:
        print(
            f"bootmark gate: no quick-profile receipt in {directory}; make one with "
            "`bootmark bench --quick` and commit it",
            file=sys.stderr,
        )
        return compare.INCOMPARABLE
    reference = records.load(baseline)
    threaded = max(tolerance, THREADED_TOLERANCE)
    receipt = bench.run_grid(bench.grid("quick"), profile="quick", show_progress=show_progress)
    verdict = compare.compare(reference, receipt, tolerance, threaded)
    # The compare table heads itself with its own verdict; a screened REGRESSION is only a
    # suspect until confirmed below, and the reader should know that before reading it.
    print(f"baseline: {baseline}\nscreen (a flagged cell is confirmed head to head before the gate fails):", file=out)
    print(compare.render_markdown(verdict), file=out)
    if verdict.exit_code == compare.REGRESSION:
        suspects = [
            bench.CellSpec(row.method, row.n, row.n_bootstraps, row.sentinel) for row in verdict.cells if row.regressed
        ]
        return _confirm(reference, suspects, tolerance, threaded, show_progress, out, tree)
    if verdict.judged_cells == 0:
        print("bootmark gate: no cell could be judged against the baseline (see the reasons above); failing", file=out)
        return compare.INCOMPARABLE
    if verdict.exit_code == compare.INCOMPARABLE:
        print(
            "bootmark gate: WARNING: this box differs from the baseline's (arch drift above "
            f"{compare.BOX_DRIFT:.0%}); only within-run ratios were judged, and they show no regression",
            file=out,
        )
    return compare.PASS


def _confirm(reference, suspects, tolerance, threaded, show_progress, out, tree=None):
    """Second measurement of the cells the receipt screen flagged: head to head against the
    baseline's commit when it can be exported, else against the receipt again."""
    source = reference.provenance.source
    print(f"\nconfirming {len(suspects)} regressed cell(s) with a second measurement:", file=out)
    try:
        if not source.git_sha or source.dirty is not False:
            raise head_to_head.HeadToHeadError("the baseline receipt names no clean commit")
        confirmation = head_to_head.compare_revisions(
            source.git_sha, suspects, tolerance, threaded, show_progress=show_progress, current_tree=tree
        )
        print(head_to_head.render_markdown(confirmation), file=out)
    except head_to_head.HeadToHeadError as error:
        print(f"the baseline's code cannot be timed here ({error}); re-measuring against the receipt", file=out)
        confirmation = compare.compare(
            reference, bench.run_grid(suspects, show_progress=show_progress), tolerance, threaded
        )
        print(compare.render_markdown(confirmation), file=out)
    if confirmation.exit_code == compare.REGRESSION:
        return compare.REGRESSION
    print("bootmark gate: not confirmed; passing", file=out)
    return compare.PASS
