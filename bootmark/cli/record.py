"""``bootmark record``: a project's benchmark suite measured on the current commit, as a
record receipt; records taken on every merge are the project's history (``bootmark site``).
"""

import argparse
import json
import os
import sys

from bootmark.cli.common import module_docstring
from bootmark.cli.gate import keep_out_of_git, project_root
from bootmark.core import workspace
from bootmark.core.errors import UsageError

__all__ = ["add_record"]


def _record(args):
    # late: the record's modules load tqdm and the gate's worker machinery
    from bootmark.gate import config as gate_config
    from bootmark.gate import record as suite_record
    from bootmark.gate import suite as gate_suite

    try:
        settings = suite_record.RecordSettings(
            min_rounds=args.min_rounds, max_rounds=max(args.max_rounds, args.min_rounds), settle=args.settle
        )
    except ValueError as error:
        raise UsageError(str(error).replace("RecordSettings: ", "--").replace("_", "-", 1)) from None
    gate_suite.compile_patterns(args.bench)  # a bad pattern is one line, before any git or build work
    project = project_root(args.project, "bootmark record")
    python = os.path.abspath(args.python) if args.python and os.sep in args.python else args.python  # as typed
    config = gate_config.load_config(project, args.benchmarks, None, args.framework, python, args.pytest_args)
    folder = None if args.no_receipt else workspace.writable_directory("record", args.output_dir)
    own_files = keep_out_of_git(folder, project) if folder is not None else None
    try:
        record = suite_record.run_record(
            config, args.bench, settings, show_progress=not args.no_progress, own_files=own_files
        )
    except suite_record.RecordError as error:
        raise UsageError(str(error)) from None
    for cell in record.cells:  # the whole traceback of a broken cell
        if cell.status == "broken" and cell.note:
            print(f"bootmark record: {cell.label} fails:\n{cell.note.rstrip()}", file=sys.stderr)
    if args.format == "json":
        print(json.dumps(suite_record.record_body(record), indent=1, sort_keys=True))
    else:
        print(_table(record))
    if folder is not None:
        path = suite_record.write_record(record, folder)
        print(f"bootmark record: receipt {path}", file=sys.stderr)
    return record.exit_code


def _table(record) -> str:
    # late: the gate's wording of a value in its unit
    from bootmark.gate.report import value_text

    commit = (record.side.revision or "no commit")[:10] + (" (dirty)" if record.side.dirty else "")
    lines = [
        f"{record.project.name} at {commit}: {len(record.cells)} cells in {record.wall_seconds:.0f} s",
        "",
        "| benchmark | median | samples | status |",
        "|---|---:|---:|---|",
    ]
    for cell in record.cells:
        median = value_text(cell.median, cell.unit) if cell.median is not None else ""
        lines.append(f"| `{cell.label}` | {median} | {len(cell.samples)} | {cell.status} |")
    lines.extend(f"- problem: {problem}" for problem in record.problems)
    lines.extend(f"- warning: {warning}" for warning in record.warnings)
    return "\n".join(lines)


def add_record(commands):
    """The ``record`` verb: its arguments and handler."""
    from bootmark.gate.config import FRAMEWORKS  # late: a light module, read only to build the parser

    recorded = commands.add_parser(
        "record",
        help="measure a project's asv or pytest-benchmark suite on the current commit, as a record receipt (run "
        "on every merge, the records are the history bootmark site draws)",
        description=module_docstring("bootmark.gate.record"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    recorded.add_argument(
        "--benchmarks",
        help="the benchmark folder, found as bootmark gate finds it (default: [tool.bootmark.gate] benchmarks, "
        "else asv.conf.json's benchmark_dir, else benchmarks/, bench/, benchmark/, tests/benchmarks/)",
    )
    recorded.add_argument(
        "--pytest-args",
        metavar="ARGS",
        help="options for pytest, as the project runs its suite, in one string after an equals sign: "
        "--pytest-args='-c /dev/null -p no:xdist' (default: [tool.bootmark.gate] pytest-args)",
    )
    recorded.add_argument("--framework", choices=FRAMEWORKS, help="how the suite is written (default: told)")
    recorded.add_argument(
        "--python", metavar="INTERPRETER", help="the interpreter the benchmarks run on (the project's environment)"
    )
    recorded.add_argument("--project", help="the project's git checkout (default: the one holding this folder)")
    recorded.add_argument(
        "--bench", action="append", default=[], metavar="REGEX", help="only cells whose name matches (repeatable)"
    )
    recorded.add_argument("--min-rounds", type=int, default=10, help="samples per time cell at least (default 10)")
    recorded.add_argument("--max-rounds", type=int, default=40, help="samples a time cell may reach (default 40)")
    recorded.add_argument(
        "--settle",
        type=float,
        default=0.01,
        help="the median has settled when one more batch of samples moves it by less than this fraction (default 0.01)",
    )
    recorded.add_argument("--format", choices=("text", "json"), default="text", help="json: the receipt's body")
    recorded.add_argument("--output-dir", help="where the receipt goes (default: the workspace's receipts/records)")
    recorded.add_argument("--no-receipt", action="store_true", help="write no receipt")
    recorded.add_argument("--no-progress", action="store_true", help="no progress bar")
    recorded.set_defaults(handler=_record)
