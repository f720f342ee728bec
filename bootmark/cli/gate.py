"""``bootmark gate``: a project's benchmark suite, its working tree against a baseline
commit, head to head.
"""

import argparse
import json
import os
import subprocess
import sys

from bootmark.cli.common import module_docstring
from bootmark.core import workspace
from bootmark.core.errors import UsageError

__all__ = ["add_gate", "keep_out_of_git", "project_root"]


def _gate(args):
    # late: the gate's modules load tqdm and, for the verdict's intervals, the engine
    from bootmark.gate import config as gate_config
    from bootmark.gate import report as gate_report
    from bootmark.gate import run as gate
    from bootmark.gate import suite as gate_suite
    from bootmark.gate import verdicts

    if args.tolerance is not None and not args.tolerance > 1:  # before any git or build work
        raise UsageError(f"--tolerance must be above 1 (an allowed slow-down factor), got {args.tolerance}")
    if args.budget is not None and not args.budget > 0:
        raise UsageError(f"--budget must be a positive number of seconds, got {args.budget}")
    if args.min_rounds < 5:
        raise UsageError(f"--min-rounds must be at least 5 (an interval needs paired rounds), got {args.min_rounds}")
    gate_suite.compile_patterns(args.bench)  # a bad pattern is one line, before any git or build work
    project = project_root(args.project)
    python = os.path.abspath(args.python) if args.python and os.sep in args.python else args.python  # as typed
    config = gate_config.load_config(project, args.benchmarks, args.tolerance, args.framework, python, args.pytest_args)
    baseline, why = gate.default_baseline(project) if args.baseline == "auto" else (args.baseline, "--baseline")
    print(f"bootmark gate: baseline {baseline} ({why})", file=sys.stderr)
    settings = verdicts.GateSettings(
        min_rounds=args.min_rounds,
        max_rounds=max(args.max_rounds, args.min_rounds),
        budget_s=args.budget,
        instructions=args.instructions,
    )
    folder = None if args.no_receipt else workspace.writable_directory("gate", args.output_dir)
    own_files = keep_out_of_git(folder, project) if folder is not None else None
    verdict = gate.run_gate(
        config, baseline, args.bench, settings, show_progress=not args.no_progress, own_files=own_files
    )
    for cell in verdict.cells:  # the whole traceback, which the summary cuts to its last line
        if cell.status == "broken" and cell.note:
            print(f"bootmark gate: {cell.label} fails on the current side:\n{cell.note.rstrip()}", file=sys.stderr)
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


def keep_out_of_git(folder, project):
    """The receipt folder relative to the gated checkout, when it lies inside it (None
    otherwise). A folder that holds no tracked file gets a ``.gitignore`` of ``*`` (which
    ignores itself too), so the gate's receipts never make the checkout dirty; a folder
    whose receipts the project commits is left as it is."""
    absolute = os.path.realpath(folder)
    if not absolute.startswith(project + os.sep):
        return None
    relative = os.path.relpath(absolute, project)
    tracked = subprocess.run(
        ["git", "ls-files", "--", relative], cwd=project, capture_output=True, text=True, check=False
    ).stdout.strip()
    ignore = os.path.join(absolute, ".gitignore")
    if not tracked and not os.path.exists(ignore):
        with open(ignore, "w", encoding="utf-8") as stream:
            stream.write("# bootmark's receipts, kept out of git (delete this file to commit them)\n*\n")
    return relative


def project_root(given, verb="bootmark gate"):
    """The git checkout ``verb`` works in: ``--project``, else the one holding the current
    directory; a usage error names ``verb`` when there is none."""
    start = os.path.abspath(given or os.getcwd())
    if not os.path.isdir(start):
        raise UsageError(f"--project {given!r} is not a folder")
    try:
        top = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"], cwd=start, capture_output=True, text=True, check=False
        )
    except FileNotFoundError:
        raise UsageError(f"git is not installed; {verb} works in a git checkout") from None
    if top.returncode != 0:
        raise UsageError(f"{start} is not inside a git checkout; run {verb} in your project's repository")
    return top.stdout.strip()


def add_gate(commands):
    """The ``gate`` verb: its arguments and handler."""
    from bootmark.gate.config import FRAMEWORKS  # late: a light module, read only to build the parser

    gated = commands.add_parser(
        "gate",
        help="CI speed gate: a project's asv or pytest-benchmark suite, working tree vs a baseline commit, head to "
        "head (exit 0 pass, 1 regression, 2 cannot judge)",
        description=module_docstring("bootmark.gate.run"),
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
        help="the benchmark folder (the root . too), an asv suite or pytest-benchmark tests, or one pytest test file "
        "(default: [tool.bootmark.gate] "
        "benchmarks, else benchmark_dir of asv.conf.json at the root, in benchmarks/ or asv_bench/, else the first of "
        "benchmarks/, bench/, benchmark/, tests/benchmarks/)",
    )
    gated.add_argument(
        "--pytest-args",
        metavar="ARGS",
        help="options for pytest, as the project runs its suite, in one string after an equals sign: "
        "--pytest-args='-c /dev/null -p no:xdist' (default: [tool.bootmark.gate] pytest-args)",
    )
    gated.add_argument(
        "--framework",
        choices=FRAMEWORKS,
        help="how the suite is written (default: [tool.bootmark.gate] framework, else told by the folder: pytest "
        "test files make a pytest-benchmark suite, scripts that import pyperf a pyperf suite)",
    )
    gated.add_argument(
        "--python",
        metavar="INTERPRETER",
        help="the interpreter the benchmarks run on, e.g. .venv/bin/python: the project's environment, which "
        "needs only the standard library besides the project (default: [tool.bootmark.gate] python, else "
        "bootmark's own)",
    )
    gated.add_argument("--project", help="the project's git checkout (default: the one holding the current directory)")
    gated.add_argument(
        "--bench",
        action="append",
        default=[],
        metavar="REGEX",
        help="gate only cells whose name matches (repeatable; as asv's --bench; pytest node ids for a "
        "pytest-benchmark suite)",
    )
    gated.add_argument(
        "--tolerance", type=float, help="allowed slow-down factor (default: [tool.bootmark.gate] tolerance, else 1.10)"
    )
    gated.add_argument(
        "--budget",
        type=float,
        metavar="SECONDS",
        help="cap on the whole run's wall time, confirmations included (the cells left undecided are named)",
    )
    gated.add_argument("--min-rounds", type=int, default=10, help="interleaved rounds per time cell (default 10)")
    gated.add_argument("--max-rounds", type=int, default=40, help="rounds an undecided cell may reach (default 40)")
    gated.add_argument(
        "--instructions",
        choices=("auto", "always", "never"),  # bootmark.gate.verdicts.INSTRUCTION_MODES, not imported to parse
        default="auto",
        help="when instructions retired (counted under valgrind) settle a time cell: auto (the cells wall time "
        "left undecided, and on a busy runner the cells it flagged), always (every flagged or undecided cell), "
        "never (default auto)",
    )
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
