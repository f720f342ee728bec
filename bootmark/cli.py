"""The ``bootmark`` command line: ``example``, ``bench``, ``compare``, ``versus``, ``gate``, ``memory``,
``scoreboard`` and ``study``."""

import argparse
import json
import sys

from .example import render_s1


def _bench(args):
    from . import bench, receipts
    profile = "quick" if args.quick else "full"
    try:
        cells = bench.select(bench.grid(profile), bench.parse_filters(args.cells))
        if not cells:
            raise ValueError(f"no cell of the {profile} grid matches {args.cells!r}; methods are "
                             f"{', '.join(bench.METHODS)}, n is one of {bench.SIZES} (sentinels {bench.SENTINEL_SIZE}), "
                             f"B one of {bench.REPLICATES} (sentinels {bench.SENTINEL_REPLICATES}), sentinel true/false")
    except ValueError as error:
        print(f"bootmark bench: {error}", file=sys.stderr)
        return 2
    if args.cells:
        profile = "custom"
    try:
        receipt = bench.run_grid(cells, args.warmups, args.samples, profile, show_progress=not args.no_progress)
    except bench.TripwireError as error:
        print(f"bootmark bench: TRIPWIRE: {error}", file=sys.stderr)
        return 3
    print(bench.render_table(receipt))
    if args.no_write:
        print("(receipt not written: --no-write)")
    else:
        print(f"receipt: {receipts.write_receipt(receipt, args.output_dir)}")
    return 0


def _compare(args):
    from . import compare, receipts
    try:
        verdict = compare.compare_paths(args.old, args.new, args.tolerance, args.threaded_tolerance)
    except (receipts.ReceiptError, compare.ComparisonError) as error:
        print(f"bootmark compare: {error}", file=sys.stderr)
        return compare.INCOMPARABLE
    print(compare.render_markdown(verdict))
    if args.json:
        with open(args.json, "w") as stream:
            json.dump(verdict, stream, indent=1, sort_keys=True)
    return verdict["exit_code"]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="bootmark", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    example = commands.add_parser("example", help="the S1 single-series example (DESIGN.md section 6)")
    example.add_argument("--n-bootstraps", type=int, default=999, help="replicates per method (default 999)")
    example.add_argument("--seed", type=int, default=2026, help="bootstrap seed (default 2026)")
    example.add_argument("--alpha", type=float, default=0.10, help="two-sided tail probability (default 0.10)")

    from . import bench
    timed = commands.add_parser("bench", help="time the engine against arch and tsbootstrap; write a receipt",
                                description=bench.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    timed.add_argument("--quick", action="store_true", help="the small CI profile (n = 2000, B = 999, + sentinels)")
    timed.add_argument("--cells", default="", help="filter such as method=iid,n=2000,B=999 or sentinel=false")
    timed.add_argument("--warmups", type=int, default=3, help="untimed runs per path before timing (default 3)")
    timed.add_argument("--samples", type=int, default=15, help="interleaved timed rounds per cell (default 15)")
    timed.add_argument("--output-dir", default=bench.RECEIPT_DIRECTORY, help="where the receipt goes")
    timed.add_argument("--no-write", action="store_true", help="print the table but write no receipt")
    timed.add_argument("--no-progress", action="store_true", help="no progress bar")

    compared = commands.add_parser("compare", help="compare two bench receipts (exit 0 pass, 1 regression, "
                                   "2 incomparable)")
    compared.add_argument("old")
    compared.add_argument("new")
    compared.add_argument("--tolerance", type=float, default=1.25, help="allowed slow-down factor (default 1.25)")
    compared.add_argument("--threaded-tolerance", type=float, default=None,
                          help="allowed slow-down for cells timed on several threads (default: --tolerance; "
                          "`bootmark gate` uses 2)")
    compared.add_argument("--json", help="also write the machine-readable summary to this path")

    from . import head_to_head
    versus = commands.add_parser("versus", help="time a committed revision's engine against this checkout's, side "
                                 "by side on this box (exit 0 pass, 1 regression, 2 cannot be timed)",
                                 description=head_to_head.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    versus.add_argument("revision", help="a git commit, tag or branch of this checkout, e.g. HEAD~3")
    versus.add_argument("--cells", default="", help="filter of the quick grid, e.g. method=iid or sentinel=true")
    versus.add_argument("--rounds", type=int, default=15, help="interleaved timed rounds per cell (default 15)")
    versus.add_argument("--tolerance", type=float, default=1.25, help="allowed slow-down factor (default 1.25)")
    versus.add_argument("--threaded-tolerance", type=float, default=None,
                        help="allowed slow-down for cells on several threads (default: --tolerance)")
    versus.add_argument("--no-progress", action="store_true", help="no progress bar")

    gated = commands.add_parser("gate", help="CI speed check: quick bench vs the newest committed quick receipt")
    gated.add_argument("--tolerance", type=float, default=1.25, help="allowed slow-down factor (default 1.25)")
    gated.add_argument("--no-progress", action="store_true", help="no progress bar")

    from . import memory
    swept = commands.add_parser("memory", help="peak-memory sweep over B in fresh processes; write a receipt",
                                description=memory.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    swept.add_argument("--output-dir", default=memory.RECEIPT_DIRECTORY, help="where the receipt goes")
    swept.add_argument("--no-write", action="store_true", help="print the table but write no receipt")
    swept.add_argument("--no-progress", action="store_true", help="no progress bar")

    board = commands.add_parser("scoreboard", help="render the speed table from the newest full bench receipt")
    board.add_argument("--readme", action="store_true", help="rewrite README.md's marked scoreboard section")

    from studies import cli as study_cli
    study_cli.add_parser(commands)

    args = parser.parse_args(argv)
    if args.command == "study":
        return study_cli.dispatch(args, sys.argv[1:] if argv is None else None)
    if args.command == "example":
        print(render_s1(args.n_bootstraps, args.seed, args.alpha))
        return 0
    if args.command == "bench":
        if args.samples < 3 or args.warmups < 0:
            parser.error("--samples must be at least 3 and --warmups at least 0")
        return _bench(args)
    if args.command == "versus":
        from . import compare
        try:
            cells = bench.select(bench.grid("quick"), bench.parse_filters(args.cells))
            if not cells:
                raise ValueError(f"no cell of the quick grid matches {args.cells!r}")
            verdict = head_to_head.compare_revisions(args.revision, cells, args.tolerance, args.threaded_tolerance,
                                                     args.rounds, show_progress=not args.no_progress)
        except (ValueError, head_to_head.HeadToHeadError) as error:
            print(f"bootmark versus: {error}", file=sys.stderr)
            return compare.INCOMPARABLE
        print(head_to_head.render_markdown(verdict))
        return verdict["exit_code"]
    if args.command == "gate":
        from .gate import run_gate
        from . import compare, receipts
        try:
            return run_gate(args.tolerance, show_progress=not args.no_progress)
        except bench.TripwireError as error:
            print(f"bootmark gate: TRIPWIRE: {error}", file=sys.stderr)
            return 3
        except (compare.ComparisonError, receipts.ReceiptError) as error:
            print(f"bootmark gate: {error}", file=sys.stderr)
            return compare.INCOMPARABLE
    if args.command == "memory":
        from . import receipts
        try:
            receipt = memory.run_sweep(show_progress=not args.no_progress)
        except memory.MemoryRunError as error:
            print(f"bootmark memory: {error}", file=sys.stderr)
            return 3
        print(memory.render_table(receipt))
        if not args.no_write:
            print(f"receipt: {receipts.write_receipt(receipt, args.output_dir)}")
        return 0
    if args.command == "scoreboard":
        from . import scoreboard
        if args.readme:
            try:
                print(f"README.md scoreboard rendered from {scoreboard.update_readme()}")
            except (FileNotFoundError, ValueError) as error:
                print(f"bootmark scoreboard: {error}", file=sys.stderr)
                return 2
        else:
            try:
                print(scoreboard.render_section(*scoreboard.newest_receipts()))
            except FileNotFoundError as error:
                print(f"bootmark scoreboard: {error}", file=sys.stderr)
                return 2
        return 0
    return _compare(args)


if __name__ == "__main__":
    sys.exit(main())
