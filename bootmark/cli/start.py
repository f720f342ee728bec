"""The verbs a newcomer starts with: ``bootmark init`` (make a folder a workspace),
``bootmark doctor`` (what this installation is and needs) and ``bootmark example`` (the
S1 single-series example).
"""

import os

from bootmark.cli.common import use_workspace
from bootmark.core import workspace
from bootmark.core.errors import OK

__all__ = ["add_doctor", "add_example", "add_init"]


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
    from bootmark.cli.doctor import report

    try:
        found = use_workspace(args.workspace)
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


def add_init(commands):
    """The ``init`` verb: its arguments and handler."""
    init = commands.add_parser("init", help="make a folder a workspace: config, protocols/, receipts/, README")
    init.add_argument("directory", nargs="?", default=".", help="the folder (default: the current one)")
    init.set_defaults(handler=_init, needs_workspace=False)


def add_doctor(commands):
    """The ``doctor`` verb: its arguments and handler."""
    doctor = commands.add_parser("doctor", help="versions, threads, caches, workspace, peers and extras")
    doctor.set_defaults(handler=_doctor, needs_workspace=False)


def add_example(commands):
    """The ``example`` verb: its arguments and handler."""
    example = commands.add_parser("example", help="the S1 single-series example (docs/published-figures.md)")
    example.add_argument("--n-bootstraps", type=int, default=999, help="replicates per method (default 999)")
    example.add_argument("--seed", type=int, default=2026, help="bootstrap seed (default 2026)")
    example.add_argument("--alpha", type=float, default=0.10, help="two-sided tail probability (default 0.10)")
    example.set_defaults(handler=_example, needs_workspace=False)
