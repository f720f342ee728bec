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
A regression must be seen twice: the cells that regress are measured again, in a fresh
round of warm-ups and samples, and only cells that regress again fail the gate. On a
virtual 2-core machine the host can take one core away for seconds, which slows the
two-thread engine and not the one-thread ``arch`` control; a real slow-down persists
through the second measurement, a stolen core rarely does.
"""

import sys

from . import bench, compare, receipts

THREADED_TOLERANCE = 2.0  # one core of two lost to the host can double a two-thread time


def baseline_path(directory=bench.RECEIPT_DIRECTORY):
    """Newest committed receipt of the quick profile, or None."""
    return receipts.newest_receipt(directory, "bench", lambda receipt: receipt["body"]["profile"] == "quick")


def run_gate(tolerance=1.25, directory=bench.RECEIPT_DIRECTORY, show_progress=True, out=sys.stdout):
    """Measure, compare, print; return the exit code."""
    if not tolerance > 1:  # checked before a minute of timing, not after
        raise compare.ComparisonError(f"--tolerance must be above 1 (an allowed slow-down factor), got {tolerance}")
    baseline = baseline_path(directory)
    if baseline is None:
        print(f"bootmark gate: no quick-profile receipt in {directory}; make one with "
              "`bootmark bench --quick` and commit it", file=sys.stderr)
        return compare.INCOMPARABLE
    reference = receipts.load_receipt(baseline)
    threaded = max(tolerance, THREADED_TOLERANCE)
    receipt = bench.run_grid(bench.grid("quick"), profile="quick", show_progress=show_progress)
    verdict = compare.compare(reference, receipt, tolerance, threaded)
    print(f"baseline: {baseline}", file=out)
    print(compare.render_markdown(verdict), file=out)
    if verdict["exit_code"] == compare.REGRESSION:
        suspects = [(row["method"], row["n"], row["n_bootstraps"], row["sentinel"])
                    for row in verdict["cells"] if row["regressed"]]
        print(f"\nconfirming {len(suspects)} regressed cell(s) with a second measurement:", file=out)
        confirmation = compare.compare(reference, bench.run_grid(suspects, show_progress=show_progress), tolerance,
                                       threaded)
        print(compare.render_markdown(confirmation), file=out)
        if confirmation["exit_code"] == compare.REGRESSION:
            return compare.REGRESSION
        print("bootmark gate: not confirmed; passing", file=out)
        return compare.PASS
    if verdict["judged_cells"] == 0:
        print("bootmark gate: no cell could be judged against the baseline (see the reasons above); failing",
              file=out)
        return compare.INCOMPARABLE
    if verdict["exit_code"] == compare.INCOMPARABLE:
        print("bootmark gate: WARNING: this box differs from the baseline's (arch drift above "
              f"{compare.BOX_DRIFT:.0%}); only within-run ratios were judged, and they show no regression", file=out)
    return compare.PASS
