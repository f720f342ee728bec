"""``bootmark gate``: the CI speed check.

Runs the quick bench profile in-process and compares it (``bootmark.compare``) with the
newest committed quick receipt in ``receipts/bench/``. Exit 1 only on a regression that
the comparator can show; an incomparable box (the ``arch`` control drifted more than
10%) passes with a warning, because CI machines differ from the one that made the
baseline and within-run ratios alone showed no slow-down. Exit 2 when there is no
baseline to compare with.
"""

import sys

from . import bench, compare, receipts


def baseline_path(directory=bench.RECEIPT_DIRECTORY):
    """Newest committed receipt of the quick profile, or None."""
    return receipts.newest_receipt(directory, "bench", lambda receipt: receipt["body"]["profile"] == "quick")


def run_gate(tolerance=1.25, directory=bench.RECEIPT_DIRECTORY, show_progress=True, out=sys.stdout):
    """Measure, compare, print; return the exit code."""
    baseline = baseline_path(directory)
    if baseline is None:
        print(f"bootmark gate: no quick-profile receipt in {directory}; make one with "
              "`bootmark bench --quick` and commit it", file=sys.stderr)
        return compare.INCOMPARABLE
    receipt = bench.run_grid(bench.grid("quick"), profile="quick", show_progress=show_progress)
    verdict = compare.compare(receipts.load_receipt(baseline), receipt, tolerance)
    print(f"baseline: {baseline}", file=out)
    print(compare.render_markdown(verdict), file=out)
    if verdict["exit_code"] == compare.REGRESSION:
        return compare.REGRESSION
    if verdict["exit_code"] == compare.INCOMPARABLE:
        print("bootmark gate: WARNING: this box differs from the baseline's (arch drift above "
              f"{compare.BOX_DRIFT:.0%}); only within-run ratios were judged, and they show no regression", file=out)
    return compare.PASS
