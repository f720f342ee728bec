"""The ``bootmark`` command line.

Verbs: ``init``, ``doctor``, ``example``, ``bench``, ``compare``, ``versus``, ``gate``,
``record``, ``memory``, ``scoreboard``, ``site`` and ``study``. Every verb reads and writes in the workspace
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
import os
import sys
import traceback

# Light modules only: `bootmark --version`, `--help` and `init` must work, fast, without
# loading numpy, numba or the engine (nor fail when one of them is broken). Each verb's
# handler imports what it needs when it runs.
from bootmark import __version__
from bootmark.cli import bench, compare, gate, record, site, start, study
from bootmark.cli.common import use_workspace
from bootmark.core import extras
from bootmark.core.errors import BUG, FINDING, INTERRUPTED, OK, STOPPED, USAGE, UsageError
from bootmark.reference.indices import STREAM_VERSION

__all__ = ["main", "UsageError", "OK", "FINDING", "USAGE", "STOPPED", "BUG", "INTERRUPTED"]

# Exception types that are the user's to fix, reported in one line (exit 2), as (module,
# class name) pairs: a class is looked up only when its module is loaded already (an
# instance of it cannot exist before), so sorting an error imports nothing.
USER_ERRORS = (
    ("bootmark.core.errors", "UsageError"),
    ("bootmark.core.extras", "MissingExtraError"),
    ("bootmark.studies.truth", "TruthMissingError"),
    ("bootmark.core.workspace", "WorkspaceError"),
    ("bootmark.core.receipts", "ReceiptError"),
    ("bootmark.studies.protocol", "ProtocolError"),
    ("bootmark.studies.peers", "PeerNotInstalledError"),
    ("bootmark.studies.plugins", "PluginError"),
    ("bootmark.reference.errors", "BootmarkError"),
    ("bootmark.bench.compare", "ComparisonError"),
    ("bootmark.bench.versus", "HeadToHeadError"),
    ("bootmark.gate.verdicts", "GateError"),
    ("bootmark.gate.config", "SuiteError"),
    ("builtins", "OSError"),
)
# Exception types that mean a run was stopped on purpose (exit 3), likewise.
STOPPED_ERRORS = (
    ("bootmark.bench.grid", "TripwireError"),
    ("bootmark.bench.memory", "MemoryRunError"),
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


# Each verb adds its own parser and handler, in its group's module: a new verb is one
# function there and one entry here (the order is the order of `bootmark --help`).
VERBS = (
    start.add_init,
    start.add_doctor,
    start.add_example,
    bench.add_bench,
    compare.add_compare,
    compare.add_versus,
    gate.add_gate,
    record.add_record,
    bench.add_memory,
    bench.add_scoreboard,
    site.add_site,
    study.add_study,
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


def _version_line():
    return f"bootmark {__version__} (stream version {STREAM_VERSION})"


def main(argv=None):
    """Run the command line; return the exit code (module docstring)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.from_shell = argv is None
    verb = args.command + (f" {args.study_command}" if args.command == "study" else "")
    try:
        if getattr(args, "needs_workspace", True):
            use_workspace(args.workspace)
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
        if isinstance(error, ModuleNotFoundError) and extras.extra_for(dependency or ""):
            print(f"bootmark {verb}: {extras.missing_message(dependency)}", file=sys.stderr)
            return USAGE
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
