"""The engine's bench verbs: ``bootmark bench`` (the timing grid; ``--panel``: many series
in one call), ``bootmark memory`` (the peak-memory sweep) and ``bootmark scoreboard``
(their tables).
"""

import argparse
import os

from bootmark.cli.common import bench_cells, check_receipt_folder, module_docstring, write_receipt
from bootmark.core import extras
from bootmark.core.errors import OK, UsageError

__all__ = ["add_bench", "add_memory", "add_scoreboard"]


def _check_rounds(args):
    if args.samples < 3 or args.warmups < 0:
        raise UsageError(
            f"--samples must be at least 3 (got {args.samples}) and --warmups at least 0 (got {args.warmups})"
        )


def _panel_bench(args):
    """``bootmark bench --panel``: the panel cells (bootmark.bench.panel), a ``panel`` receipt."""
    extras.require(
        "tsbootstrap", purpose="bootmark bench --panel (tsbootstrap's panel is the peer every cell is timed against)"
    )
    _check_rounds(args)
    if args.intervals:
        raise UsageError("pass at most one of --panel and --intervals")
    # late: loads the engine (numba), which `--version`, `--help` and `init` must not
    from bootmark.bench import grid, panel

    profile = "quick" if args.quick else "full"
    try:
        chosen = panel.select(panel.cells(profile), grid.parse_filters(args.cells))
    except ValueError as error:
        raise UsageError(str(error)) from None
    if not chosen:
        raise UsageError(
            f"no panel cell of the {profile} profile matches {args.cells!r}; its panels are "
            f"{', '.join(spec.name for spec in panel.PANELS[profile])}, its methods {', '.join(panel.METHODS)}"
        )
    check_receipt_folder(args.output_dir, "panel", args.no_write)
    receipt = panel.run_panel(
        chosen, args.warmups, args.samples, "custom" if args.cells else profile, show_progress=not args.no_progress
    )
    print(panel.render_table(receipt))
    print(panel.render_summary(receipt))
    write_receipt(receipt, args.output_dir, "panel", args.no_write)
    return OK


def _bench(args):
    if args.panel:
        return _panel_bench(args)
    extras.require("arch", purpose="the bench (arch is the peer every cell is timed against)")
    # late: loads the engine (numba), which `--version`, `--help` and `init` must not
    from bootmark.bench import grid as bench

    _check_rounds(args)
    if args.quick and args.intervals:
        raise UsageError("pass at most one of --quick and --intervals")
    profile = "quick" if args.quick else "intervals" if args.intervals else "full"
    cells = bench_cells(profile, args.cells)
    check_receipt_folder(args.output_dir, "bench", args.no_write)
    receipt = bench.run_grid(
        cells, args.warmups, args.samples, "custom" if args.cells else profile, show_progress=not args.no_progress
    )
    print(bench.render_interval_costs(receipt) if profile == "intervals" else bench.render_table(receipt))
    write_receipt(receipt, args.output_dir, "bench", args.no_write)
    return OK


def _memory(args):
    extras.require("arch", purpose="the memory sweep (arch is the peer every point is measured against)")
    # late: loads the engine (numba), which `--version`, `--help` and `init` must not
    from bootmark.bench import memory

    check_receipt_folder(args.output_dir, "memory", args.no_write)
    receipt = memory.run_sweep(show_progress=not args.no_progress)
    print(memory.render_table(receipt))
    write_receipt(receipt, args.output_dir, "memory", args.no_write)
    return OK


def _scoreboard(args):
    # late: loads the engine (numba), which `--version`, `--help` and `init` must not
    from bootmark.bench import scoreboard

    if args.receipt:
        if args.readme:
            raise UsageError("--readme renders the workspace's newest receipts; drop RECEIPT to use it")
        if not os.path.isfile(args.receipt):
            raise UsageError(f"no receipt file {args.receipt!r}; name a bench receipt, e.g. from receipts/bench/")
        print(scoreboard.render_section(args.receipt, args.memory))
        return OK
    try:
        if args.readme:
            print(f"README.md scoreboard rendered from {scoreboard.update_readme()}")
        else:
            print(scoreboard.render_section(*scoreboard.newest_receipts()))
    except (FileNotFoundError, ValueError) as error:
        raise UsageError(str(error)) from None
    return OK


def add_bench(commands):
    """The ``bench`` verb: its arguments and handler."""
    timed = commands.add_parser(
        "bench",
        help="time the engine against arch and tsbootstrap; write a receipt",
        description=module_docstring("bootmark.bench.grid"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    timed.add_argument("--quick", action="store_true", help="the small CI profile (n = 2000, B = 999, + sentinels)")
    timed.add_argument(
        "--intervals",
        action="store_true",
        help="what the studentized and calibrated intervals cost against the percentile interval "
        "(MovingBlock('auto'), B = 999, S1-length's n)",
    )
    timed.add_argument(
        "--panel",
        action="store_true",
        help="panels instead of the grid: 2,000 series of n = 200 and 400 ragged ones (n 55 to 1,983), B = 999, "
        "the engine's panel call against a loop of single-series calls, tsbootstrap's bootstrap_reduce_panel "
        "and the engine's floor; a `panel` receipt in receipts/panel (see bootmark/bench/panel.py); with "
        "--quick: 20 series, B = 49; --cells takes panel= and method=",
    )
    timed.add_argument("--cells", default="", help="filter such as method=iid,n=2000,B=999 or sentinel=false")
    timed.add_argument("--warmups", type=int, default=3, help="untimed runs per path before timing (default 3)")
    timed.add_argument("--samples", type=int, default=15, help="interleaved timed rounds per cell (default 15)")
    timed.add_argument(
        "--output-dir",
        help="where the receipt goes (default: the workspace's receipts/bench; receipts/panel with --panel)",
    )
    timed.add_argument("--no-write", action="store_true", help="print the table but write no receipt")
    timed.add_argument("--no-progress", action="store_true", help="no progress bar")
    timed.set_defaults(handler=_bench)


def add_memory(commands):
    """The ``memory`` verb: its arguments and handler."""
    swept = commands.add_parser(
        "memory",
        help="peak-memory sweep over B in fresh processes; write a receipt",
        description=module_docstring("bootmark.bench.memory"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    swept.add_argument("--output-dir", help="where the receipt goes (default: the workspace's receipts/memory)")
    swept.add_argument("--no-write", action="store_true", help="print the table but write no receipt")
    swept.add_argument("--no-progress", action="store_true", help="no progress bar")
    swept.set_defaults(handler=_memory)


def add_scoreboard(commands):
    """The ``scoreboard`` verb: its arguments and handler."""
    board = commands.add_parser(
        "scoreboard",
        help="render the speed table of a bench receipt (default: the "
        "workspace's newest full receipt, with the newest memory receipt)",
    )
    board.add_argument("receipt", nargs="?", help="a bench receipt to render instead of the newest full one")
    board.add_argument("--memory", help="with RECEIPT: a memory receipt to render beside it")
    board.add_argument("--readme", action="store_true", help="rewrite the workspace README's marked scoreboard section")
    board.set_defaults(handler=_scoreboard)
