"""The ``bootmark`` command line.

Verbs: ``init``, ``doctor``, ``example``, ``bench``, ``compare``, ``versus``, ``gate``,
``memory``, ``scoreboard`` and ``study``. Every verb reads and writes in the workspace
(``--workspace DIR``, else ``BOOTMARK_WORKSPACE``, else the nearest folder upward with a
``bootmark.toml`` or ``[tool.bootmark]``, else the current directory).

Exit codes, the same for every verb:

* 0: done, and every check passed;
* 1: a finding: a speed regression, a failed study criterion, a receipt that does not
  verify;
* 2: a user error, printed as one line that says what is wrong and how to fix it (a bad
  argument, path or protocol, a missing peer or baseline, an unknown study), or
  receipts that cannot be compared;
* 3: a run stopped by a tripwire (its aggregates were implausible) or a failed worker;
* 70: a bug in bootmark: the traceback is printed, followed by a line saying it is a bug;
* 130: interrupted (Ctrl-C).
"""

import argparse
import ast
import importlib.util
import json
import os
import subprocess
import sys
import tokenize
import traceback

# Light modules only: `bootmark --version`, `--help` and `init` must work, fast, without
# loading numpy, numba or the engine (nor fail when one of them is broken). Each verb's
# handler imports what it needs when it runs.
from bootmark.reference.indices import STREAM_VERSION
from bootmark.studies import cli as study_cli

from . import __version__, workspace
from .usage import UsageError

__all__ = ["main", "UsageError", "OK", "FINDING", "USAGE", "STOPPED", "BUG", "INTERRUPTED"]

OK, FINDING, USAGE, STOPPED, BUG, INTERRUPTED = 0, 1, 2, 3, 70, 130


# Exception types that are the user's to fix, reported in one line (exit 2), as (module,
# class name) pairs: a class is looked up only when its module is loaded already (an
# instance of it cannot exist before), so sorting an error imports nothing.
USER_ERRORS = (
    ("bootmark.usage", "UsageError"),
    ("bootmark.studies.truth", "TruthMissingError"),
    ("bootmark.workspace", "WorkspaceError"),
    ("bootmark.receipts", "ReceiptError"),
    ("bootmark.studies.protocol", "ProtocolError"),
    ("bootmark.studies.peers", "PeerNotInstalledError"),
    ("bootmark.studies.plugins", "PluginError"),
    ("bootmark.reference.errors", "BootmarkError"),
    ("bootmark.compare", "ComparisonError"),
    ("bootmark.head_to_head", "HeadToHeadError"),
    ("bootmark.gate", "GateError"),
    ("bootmark.suite", "SuiteError"),
    ("builtins", "OSError"),
)
# Exception types that mean a run was stopped on purpose (exit 3), likewise.
STOPPED_ERRORS = (
    ("bootmark.bench", "TripwireError"),
    ("bootmark.memory", "MemoryRunError"),
    ("bootmark.studies.runner", "StudyError"),
    ("bootmark.studies.plugins", "PluginFailure"),
)


def _is_one_of(error, table):
    """Whether ``error`` is an instance of a class of ``table`` ((module, class name) pairs)."""
    classes = (getattr(sys.modules.get(module), name, None) for module, name in table)
    return isinstance(error, tuple(found for found in classes if isinstance(found, type)))


def _broken_dependency(error):
    """The package an ImportError says is missing or broken, when it is not bootmark (a
    dependency the user's environment lacks or cannot load: theirs to fix); else None (an
    import that fails in bootmark's own code is a bug)."""
    if not isinstance(error, ImportError):
        return None
    if isinstance(error, ModuleNotFoundError):
        package = (error.name or "").partition(".")[0]
        return package if package and package != "bootmark" else None
    # a broken package raises while it is imported: in frames of its own, after bootmark's last
    outside = []
    for frame, _ in traceback.walk_tb(error.__traceback__):
        package = frame.f_globals.get("__name__", "").partition(".")[0]
        if package in ("bootmark", "__main__"):
            outside = []
        elif package not in sys.stdlib_module_names:
            outside.append(package)
    return outside[0] if outside else None


# ------------------------------------------------------------------------------ verbs


def _init(args):
    written = workspace.init(args.directory)
    root = os.path.abspath(args.directory)
    print(f"workspace ready at {root}")
    for path in written:
        print(f"  wrote {os.path.relpath(path, root)}{'/' if path.endswith(os.sep) else ''}")
    print("next: `bootmark doctor` to check the set-up, `bootmark study list` for the studies")
    return OK


def _doctor(args):
    """The report, even when the workspace is unusable (then said last, exit 2)."""
    # late: loads numba and the engine, which `--version`, `--help` and `init` must not
    from .doctor import report

    try:
        found = _use_workspace(args.workspace)
    except workspace.WorkspaceError as error:
        print(report(problem=error))
        raise
    print(report(found))
    return OK


def _example(args):
    # late: loads the studies' processes (numpy), which `--version`, `--help` and `init` must not
    from .example import render_s1

    print(render_s1(args.n_bootstraps, args.seed, args.alpha))
    return OK


def _bench_cells(profile, filters_text):
    # late: loads the engine (numba), which `--version`, `--help` and `init` must not
    from . import bench

    try:
        cells = bench.select(bench.grid(profile), bench.parse_filters(filters_text))
    except ValueError as error:
        raise UsageError(str(error)) from None
    if not cells:
        # name what this profile's grid holds, so the hint is right for every profile
        grid = bench.grid(profile)
        methods = ", ".join(dict.fromkeys(cell.method for cell in grid))
        raise UsageError(
            f"no cell of the {profile} grid matches {filters_text!r}; its methods are {methods}, "
            f"n one of {sorted({cell.n for cell in grid})}, B one of {sorted({cell.n_bootstraps for cell in grid})}, "
            f"sentinel true/false"
        )
    return cells


def _writable_receipt_folder(directory, kind, no_write):
    """Check before a long run, not after it, that its receipt can be written."""
    if not no_write:
        workspace.writable_directory(kind, directory)


def _write(receipt, directory, kind, no_write):
    if no_write:
        print("(receipt not written: --no-write)")
    else:
        # late: loads jsonschema, which `--version`, `--help` and `init` need not
        from . import receipts

        print(f"receipt: {receipts.write_receipt(receipt, workspace.directory_for(kind, directory))}")


def _bench(args):
    # late: loads the engine (numba), which `--version`, `--help` and `init` must not
    from . import bench

    if args.samples < 3 or args.warmups < 0:
        raise UsageError(
            f"--samples must be at least 3 (got {args.samples}) and --warmups at least 0 (got {args.warmups})"
        )
    if args.quick and args.intervals:
        raise UsageError("pass at most one of --quick and --intervals")
    profile = "quick" if args.quick else "intervals" if args.intervals else "full"
    cells = _bench_cells(profile, args.cells)
    _writable_receipt_folder(args.output_dir, "bench", args.no_write)
    receipt = bench.run_grid(
        cells, args.warmups, args.samples, "custom" if args.cells else profile, show_progress=not args.no_progress
    )
    print(bench.render_interval_costs(receipt) if profile == "intervals" else bench.render_table(receipt))
    _write(receipt, args.output_dir, "bench", args.no_write)
    return OK


def _compare(args):
    # late: loads jsonschema, which `--version`, `--help` and `init` need not
    from . import compare, receipts

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
    from . import head_to_head

    cells = _bench_cells("quick", args.cells)
    verdict = head_to_head.compare_revisions(
        args.revision, cells, args.tolerance, args.threaded_tolerance, args.rounds, show_progress=not args.no_progress
    )
    print(head_to_head.render_markdown(verdict))
    return verdict.exit_code


def _gate(args):
    # late: the gate's modules load tqdm and, for the verdict's intervals, the engine
    from . import gate, gate_report, suite

    if args.tolerance is not None and not args.tolerance > 1:  # before any git or build work
        raise UsageError(f"--tolerance must be above 1 (an allowed slow-down factor), got {args.tolerance}")
    if args.budget is not None and not args.budget > 0:
        raise UsageError(f"--budget must be a positive number of seconds, got {args.budget}")
    if args.min_rounds < 5:
        raise UsageError(f"--min-rounds must be at least 5 (an interval needs paired rounds), got {args.min_rounds}")
    project = _project_root(args.project)
    config = suite.load_config(project, args.benchmarks, args.tolerance)
    baseline, why = gate.default_baseline(project) if args.baseline == "auto" else (args.baseline, "--baseline")
    print(f"bootmark gate: baseline {baseline} ({why})", file=sys.stderr)
    settings = gate.GateSettings(
        min_rounds=args.min_rounds, max_rounds=max(args.max_rounds, args.min_rounds), budget_s=args.budget
    )
    folder = None if args.no_receipt else workspace.writable_directory("gate", args.output_dir)
    verdict = gate.run_gate(config, baseline, args.bench, settings, show_progress=not args.no_progress)
    markdown = gate_report.render_markdown(verdict, details=args.format == "markdown")
    if args.format == "json":
        print(json.dumps(gate_report.receipt_body(verdict, config), indent=1, sort_keys=True))
    else:
        print(markdown)
    if folder is not None:
        path = gate_report.write_receipt(verdict, config, folder)
        print(f"bootmark gate: verdict receipt {path}", file=sys.stderr)
    summary = gate_report.write_step_summary(gate_report.render_markdown(verdict, details=True))
    if summary:
        print(f"bootmark gate: summary appended to {summary} (GITHUB_STEP_SUMMARY)", file=sys.stderr)
    return verdict.exit_code


def _project_root(given):
    """The git checkout the gate compares in: ``--project``, else the one holding the
    current directory."""
    start = os.path.abspath(given or os.getcwd())
    if not os.path.isdir(start):
        raise UsageError(f"--project {given!r} is not a folder")
    try:
        top = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"], cwd=start, capture_output=True, text=True, check=False
        )
    except FileNotFoundError:
        raise UsageError("git is not installed; bootmark gate compares two commits of a git checkout") from None
    if top.returncode != 0:
        raise UsageError(f"{start} is not inside a git checkout; run bootmark gate in your project's repository")
    return top.stdout.strip()


def _memory(args):
    # late: loads the engine (numba), which `--version`, `--help` and `init` must not
    from . import memory

    _writable_receipt_folder(args.output_dir, "memory", args.no_write)
    receipt = memory.run_sweep(show_progress=not args.no_progress)
    print(memory.render_table(receipt))
    _write(receipt, args.output_dir, "memory", args.no_write)
    return OK


def _scoreboard(args):
    # late: loads the engine (numba), which `--version`, `--help` and `init` must not
    from . import scoreboard

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


def _site(args):
    # late: the site loads matplotlib, ruptures and the bench module (numba)
    from . import website

    root = workspace.find().root
    out = args.out or os.path.join(root, "docs", "site")
    try:
        files = website.build_site(out, root, say=lambda message: print(f"bootmark site: {message}", file=sys.stderr))
    except website.SiteError as error:
        raise UsageError(str(error)) from None
    pages = [name for name in files if name.endswith(".html")]
    print(
        f"{len(pages)} pages and {len(files) - len(pages)} other files in {out}; open {os.path.join(out, 'index.html')}"
    )
    return OK


def _study(args):
    return study_cli.dispatch(args, sys.argv[1:] if args.from_shell else None)


# ----------------------------------------------------------------------------- parser


def _add_init(commands):
    """The ``init`` verb: its arguments and handler."""
    init = commands.add_parser("init", help="make a folder a workspace: config, protocols/, receipts/, README")
    init.add_argument("directory", nargs="?", default=".", help="the folder (default: the current one)")
    init.set_defaults(handler=_init, needs_workspace=False)


def _add_doctor(commands):
    """The ``doctor`` verb: its arguments and handler."""
    doctor = commands.add_parser("doctor", help="versions, threads, caches, workspace, peers and extras")
    doctor.set_defaults(handler=_doctor, needs_workspace=False)


def _add_example(commands):
    """The ``example`` verb: its arguments and handler."""
    example = commands.add_parser("example", help="the S1 single-series example (docs/published-figures.md)")
    example.add_argument("--n-bootstraps", type=int, default=999, help="replicates per method (default 999)")
    example.add_argument("--seed", type=int, default=2026, help="bootstrap seed (default 2026)")
    example.add_argument("--alpha", type=float, default=0.10, help="two-sided tail probability (default 0.10)")
    example.set_defaults(handler=_example, needs_workspace=False)


def _add_bench(commands):
    """The ``bench`` verb: its arguments and handler."""
    timed = commands.add_parser(
        "bench",
        help="time the engine against arch and tsbootstrap; write a receipt",
        description=_docstring("bootmark.bench"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    timed.add_argument("--quick", action="store_true", help="the small CI profile (n = 2000, B = 999, + sentinels)")
    timed.add_argument(
        "--intervals",
        action="store_true",
        help="what the studentized and calibrated intervals cost against the percentile interval "
        "(MovingBlock('auto'), B = 999, S1-length's n)",
    )
    timed.add_argument("--cells", default="", help="filter such as method=iid,n=2000,B=999 or sentinel=false")
    timed.add_argument("--warmups", type=int, default=3, help="untimed runs per path before timing (default 3)")
    timed.add_argument("--samples", type=int, default=15, help="interleaved timed rounds per cell (default 15)")
    timed.add_argument("--output-dir", help="where the receipt goes (default: the workspace's receipts/bench)")
    timed.add_argument("--no-write", action="store_true", help="print the table but write no receipt")
    timed.add_argument("--no-progress", action="store_true", help="no progress bar")
    timed.set_defaults(handler=_bench)


def _add_compare(commands):
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


def _add_versus(commands):
    """The ``versus`` verb: its arguments and handler."""
    versus = commands.add_parser(
        "versus",
        help="time a committed revision's engine against this checkout's, side "
        "by side on this box (exit 0 pass, 1 regression, 2 cannot be timed)",
        description=_docstring("bootmark.head_to_head"),
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


def _add_gate(commands):
    """The ``gate`` verb: its arguments and handler."""
    gated = commands.add_parser(
        "gate",
        help="CI speed gate: a project's asv benchmarks, working tree vs a baseline commit, head to head "
        "(exit 0 pass, 1 regression, 2 cannot judge)",
        description=_docstring("bootmark.gate"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    gated.add_argument(
        "--baseline",
        default="auto",
        help="the commit to compare against, e.g. origin/main or HEAD~1 (default auto: the commit of the "
        "workspace's newest committed quick bench receipt, else HEAD~1)",
    )
    gated.add_argument(
        "--benchmarks",
        help="the benchmark folder (default: [tool.bootmark.gate] benchmarks, asv.conf.json, benchmarks/)",
    )
    gated.add_argument("--project", help="the project's git checkout (default: the one holding the current directory)")
    gated.add_argument(
        "--bench",
        action="append",
        default=[],
        metavar="REGEX",
        help="gate only cells whose name matches (repeatable; as asv's --bench)",
    )
    gated.add_argument(
        "--tolerance", type=float, help="allowed slow-down factor (default: [tool.bootmark.gate] tolerance, else 1.10)"
    )
    gated.add_argument(
        "--budget", type=float, metavar="SECONDS", help="stop adding rounds after this long (undecided cells are named)"
    )
    gated.add_argument("--min-rounds", type=int, default=10, help="interleaved rounds per time cell (default 10)")
    gated.add_argument("--max-rounds", type=int, default=40, help="rounds an undecided cell may reach (default 40)")
    gated.add_argument(
        "--format",
        choices=("text", "markdown", "json"),
        default="text",
        help="markdown: a pull-request comment (full table collapsed); json: the verdict receipt's body",
    )
    gated.add_argument("--output-dir", help="where the verdict receipt goes (default: the workspace's receipts/gate)")
    gated.add_argument("--no-receipt", action="store_true", help="write no verdict receipt")
    gated.add_argument("--no-progress", action="store_true", help="no progress bar")
    gated.set_defaults(handler=_gate)


def _add_memory(commands):
    """The ``memory`` verb: its arguments and handler."""
    swept = commands.add_parser(
        "memory",
        help="peak-memory sweep over B in fresh processes; write a receipt",
        description=_docstring("bootmark.memory"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    swept.add_argument("--output-dir", help="where the receipt goes (default: the workspace's receipts/memory)")
    swept.add_argument("--no-write", action="store_true", help="print the table but write no receipt")
    swept.add_argument("--no-progress", action="store_true", help="no progress bar")
    swept.set_defaults(handler=_memory)


def _add_scoreboard(commands):
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


def _add_site(commands):
    """The ``site`` verb: its arguments and handler."""
    site = commands.add_parser(
        "site",
        help="build the static scoreboard site (speed grid, history, hosts, studies, memory) from the receipts",
        description=_docstring("bootmark.website"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    site.add_argument(
        "--out", help="output folder (default: docs/site in the workspace); replaced if bootmark built it"
    )
    site.set_defaults(handler=_site)


def _add_study(commands):
    """The ``study`` verb group (``bootmark.studies.cli``)."""
    study_cli.add_parser(commands).set_defaults(handler=_study)


# Each verb adds its own parser and handler: a new verb is one function and one entry here.
VERBS = (
    _add_init,
    _add_doctor,
    _add_example,
    _add_bench,
    _add_compare,
    _add_versus,
    _add_gate,
    _add_memory,
    _add_scoreboard,
    _add_site,
    _add_study,
)


def build_parser():
    """The argument parser of every verb in :data:`VERBS` (each sets ``handler``)."""
    parser = argparse.ArgumentParser(
        prog="bootmark", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=_version_line())
    parser.add_argument(
        "--workspace",
        metavar="DIR",
        help="the workspace folder (default: $BOOTMARK_WORKSPACE, else the nearest folder upward "
        "with bootmark.toml or [tool.bootmark], else the current directory)",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="VERB")
    for add_verb in VERBS:
        add_verb(commands)
    return parser


def _docstring(module):
    """The ``__doc__`` of ``module`` without importing it (its first statement, read from
    its source) unless it is loaded: bench, versus and memory show their module's docstring
    as their help, and those modules load the engine."""
    if module in sys.modules:
        return sys.modules[module].__doc__
    with open(importlib.util.find_spec(module).origin, encoding="utf-8") as source:
        lines = []

        def read_line():
            lines.append(source.readline())
            return lines[-1]

        for token in tokenize.generate_tokens(read_line):
            if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                break
    return ast.get_docstring(ast.parse("".join(lines)), clean=False)


def _version_line():
    return f"bootmark {__version__} (stream version {STREAM_VERSION})"


def _use_workspace(explicit):
    """Resolve the workspace once and export it, so library defaults, worker processes and
    re-executed commands all use the same folder."""

    found = workspace.find(explicit)
    os.environ[workspace.ENVIRONMENT_VARIABLE] = found.root
    return found


def main(argv=None):
    """Run the command line; return the exit code (module docstring)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.from_shell = argv is None
    verb = args.command + (f" {args.study_command}" if args.command == "study" else "")
    try:
        if getattr(args, "needs_workspace", True):
            _use_workspace(args.workspace)
        return args.handler(args)
    except KeyboardInterrupt:
        print(f"bootmark {verb}: interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:  # output piped into `head` and the like: stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return OK
    except Exception as error:  # noqa: BLE001 - sorted below into user errors, stops and bugs
        if _is_one_of(error, STOPPED_ERRORS):
            kind = "TRIPWIRE" if "Tripwire" in type(error).__name__ else "stopped"
            print(f"bootmark {verb}: {kind}: {error}", file=sys.stderr)
            return STOPPED
        if _is_one_of(error, USER_ERRORS):
            print(f"bootmark {verb}: {_one_line(error)}", file=sys.stderr)
            return USAGE
        dependency = _broken_dependency(error)
        if dependency:
            print(
                f"bootmark {verb}: cannot import {dependency}, which this verb needs: {_one_line(error)}; "
                f"it is missing or broken in this Python ({sys.executable}): reinstall it",
                file=sys.stderr,
            )
            return USAGE
        traceback.print_exc()
        print(
            f"bootmark {verb}: this is a bug in bootmark {__version__} ({type(error).__name__}), not a "
            "mistake of yours; please report it with the command line and the traceback above",
            file=sys.stderr,
        )
        return BUG


def _one_line(error):
    """The error's message; an OSError as "cannot <what>: <reason>" without errno noise."""
    if isinstance(error, OSError) and not type(error).__module__.startswith("bootmark") and error.strerror:
        target = f" {error.filename}" if error.filename else ""
        return f"cannot use{target}: {error.strerror}"
    return str(error)


if __name__ == "__main__":
    sys.exit(main())
