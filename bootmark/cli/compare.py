"""The verbs that compare the engine across time: ``bootmark compare OLD NEW`` (two bench
receipts) and ``bootmark versus REVISION`` (two revisions, side by side on this box).
"""

import argparse
import json
import os
import sys

from bootmark.cli.common import bench_cells, module_docstring
from bootmark.core.errors import UsageError

__all__ = ["add_compare", "add_versus"]


def _compare(args):
    # late: loads jsonschema, which `--version`, `--help` and `init` need not
    from bootmark.bench import compare
    from bootmark.core import receipts

    for path in (args.old, args.new):
        if not os.path.isfile(path):
            raise UsageError(f"no receipt file {path!r}; name two bench receipts, e.g. from receipts/bench/")
    try:
        verdict = compare.compare_paths(args.old, args.new, args.tolerance, args.threaded_tolerance)
    except (compare.ComparisonError, receipts.ReceiptError) as error:
        print(f"bootmark compare: {error}", file=sys.stderr)
        return compare.INCOMPARABLE
    print(compare.render_markdown(verdict))
    if args.json:
        with open(args.json, "w") as stream:
            json.dump(verdict.to_json(), stream, indent=1, sort_keys=True)
    return verdict.exit_code


def _versus(args):
    # late: loads the engine (numba), which `--version`, `--help` and `init` must not
    from bootmark.bench import versus as head_to_head

    cells = bench_cells("quick", args.cells)
    verdict = head_to_head.compare_revisions(
        args.revision, cells, args.tolerance, args.threaded_tolerance, args.rounds, show_progress=not args.no_progress
    )
    print(head_to_head.render_markdown(verdict))
    return verdict.exit_code


def add_compare(commands):
    """The ``compare`` verb: its arguments and handler."""
    compared = commands.add_parser(
        "compare", help="compare two bench receipts (exit 0 pass, 1 regression, 2 incomparable)"
    )
    compared.add_argument("old")
    compared.add_argument("new")
    compared.add_argument("--tolerance", type=float, default=1.25, help="allowed slow-down factor (default 1.25)")
    compared.add_argument(
        "--threaded-tolerance",
        type=float,
        default=None,
        help="allowed slow-down for cells timed on several threads (default: --tolerance; `bootmark gate` uses 2)",
    )
    compared.add_argument("--json", help="also write the machine-readable summary to this path")
    compared.set_defaults(handler=_compare)


def add_versus(commands):
    """The ``versus`` verb: its arguments and handler."""
    versus = commands.add_parser(
        "versus",
        help="time a committed revision's engine against this checkout's, side "
        "by side on this box (exit 0 pass, 1 regression, 2 cannot be timed)",
        description=module_docstring("bootmark.bench.versus"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    versus.add_argument("revision", help="a git commit, tag or branch of bootmark's checkout, e.g. HEAD~3")
    versus.add_argument("--cells", default="", help="filter of the quick grid, e.g. method=iid or sentinel=true")
    versus.add_argument("--rounds", type=int, default=15, help="interleaved timed rounds per cell (default 15)")
    versus.add_argument("--tolerance", type=float, default=1.25, help="allowed slow-down factor (default 1.25)")
    versus.add_argument(
        "--threaded-tolerance",
        type=float,
        default=None,
        help="allowed slow-down for cells on several threads (default: --tolerance)",
    )
    versus.add_argument("--no-progress", action="store_true", help="no progress bar")
    versus.set_defaults(handler=_versus)
