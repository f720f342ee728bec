"""``bootmark study list | new NAME | run ID | verify RECEIPT | show RECEIPT | truth ID | render``.

A study is named by its id (newest version), ``ID-vN``, or the path of a protocol file.
The registered protocols S1 to S4 (coverage) and F1 (forecast intervals) ship with
bootmark; a workspace's ``protocols/`` folder adds its own (docs/protocols.md describes
the format).

Exit codes of ``run``: 0 every registered criterion passed, 1 the run finished and some
criterion failed (the receipt records it), 2 bad usage or protocol, 3 the run stopped
(tripwire, non-finite outcome, run-directory conflict); its chunks stay for ``--resume``.
``verify`` exits 0 when every check holds, 1 when one fails, 2 when the receipt cannot be
read or its peers are not installed.
"""

import argparse
import contextlib
import os
import sys
import tempfile

# Light modules only: building the parser (every `bootmark` command, `--version` too) must
# not load the engine, numpy or numba. The actions import the rest when they run.
from bootmark.core import blas, receipts, workspace
from bootmark.core.errors import FINDING as CRITERION_FAILED  # a registered criterion failed
from bootmark.core.errors import OK, UsageError
from bootmark.core.receipts import ReceiptError, load_receipt
from bootmark.studies import results, summary

# The parser's default profile: bootmark.studies.protocol.REGISTERED_PROFILE, named here
# because that module loads the engine; tests/test_cli_startup.py checks the two agree.
REGISTERED_PROFILE = "registered"
VERBOSE_HELP = "say when the command re-runs itself with the OpenBLAS kernel pinned (bootmark.core.blas)"


def add_parser(commands):
    study = commands.add_parser(
        "study",
        help="registered coverage studies: list, run, verify, show, render",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = study.add_subparsers(dest="study_command", required=True)
    listed = actions.add_parser(
        "list", help="the registered protocols (shipped and the workspace's) and their newest receipts"
    )
    listed.set_defaults(study_handler=_list)
    run = actions.add_parser("run", help="run a registered study and write its receipt")
    run.add_argument("study", help="study id (newest version), ID-vN, or a protocol .toml path")
    run.add_argument(
        "--profile", default=REGISTERED_PROFILE, help="run size declared in the protocol (default: the registered one)"
    )
    run.add_argument("--workers", type=int, default=1, help="local worker processes (default 1: this process)")
    run.add_argument("--scheduler", help="dask.distributed scheduler address (e.g. tcp://host:8786)")
    run.add_argument("--resume", action="store_true", help="continue an interrupted run from its checkpoints")
    run.add_argument(
        "--run-dir", help="checkpoint directory (default: the workspace's runs/<id>-v<version>-<profile>-<sha>)"
    )
    run.add_argument(
        "--output-dir", default=None, help="where the receipt goes (default: the workspace's receipts/studies)"
    )
    run.add_argument(
        "--no-write",
        action="store_true",
        help="print the table but write nothing: no receipt, no checkpoints (a Monte Carlo truth is still cached)",
    )
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.add_argument("--verbose", action="store_true", help=VERBOSE_HELP)
    run.set_defaults(study_handler=_run)
    verify = actions.add_parser("verify", help="check a receipt's schema, hash, protocol and replay series bitwise")
    verify.add_argument("receipt")
    verify.add_argument("--all", action="store_true", help="replay every series, not a sample")
    verify.add_argument("--sample", type=int, default=20, help="series to replay (default 20)")
    verify.add_argument("--sample-seed", type=int, help="seed of the sample choice (default: fresh, printed)")
    verify.add_argument("--verbose", action="store_true", help=VERBOSE_HELP)
    verify.set_defaults(study_handler=_verify)
    show = actions.add_parser(
        "show", help="print a receipt's coverage table, verdicts and published figures, or its measures as data"
    )
    show.add_argument("receipt")
    show.add_argument(
        "--format",
        choices=results.FORMATS,
        default="text",
        help="text (default: tables and verdicts); markdown (the same: coverage with its Wilson interval, the "
        "criteria's verdicts, then every measure); or the performance measures as data, csv or json (one row per "
        "n, resampler, kind and measure, with its Monte Carlo SE)",
    )
    show.set_defaults(study_handler=_show)
    new = actions.add_parser(
        "new", help="scaffold a protocol and a contender module of your own in the workspace, runnable at once"
    )
    new.add_argument("name", help="the study id (a letter, then letters, digits, '_' or '-')")
    new.add_argument(
        "--forecast", action="store_true", help="a forecast study: prediction intervals 1 to 5 steps ahead"
    )
    new.set_defaults(study_handler=_new)
    truth = actions.add_parser(
        "truth", help="compute and cache a study's Monte Carlo truths (run and verify do it first when missing)"
    )
    truth.add_argument("study", help="study id (newest version), ID-vN, or a protocol .toml path")
    truth.add_argument(
        "--profile", default=REGISTERED_PROFILE, help="the profile whose n need a truth (default: the registered one)"
    )
    truth.set_defaults(study_handler=_truth)
    render = actions.add_parser("render", help="coverage tables and charts from the newest receipts")
    render.add_argument("--readme", action="store_true", help="rewrite the workspace README's marked coverage section")
    render.set_defaults(study_handler=_render)
    return study


def _list(args):
    # late: loads the engine (numba), which building the parser must not
    from bootmark.studies import protocol, report

    newest = report.newest_study_receipts()
    for found in protocol.registered():
        where = (
            found.source_path
            if found.source_path and not found.source_path.startswith(protocol.PROTOCOL_DIRECTORY)
            else None
        )
        path = newest.get((found.id, found.version), (None,))[0]
        receipt = os.path.basename(path) if path else "no receipt yet"
        profiles = (
            ", ".join(f"{p.name} ({p.series} series)" for p in found.profiles.values() if p)
            or f"registered ({found.replicates} replicates)"
        )
        print(
            f"{found.id}-v{found.version}  {found.title}"
            + (f"\n    file: {where}" if where else "")
            + f"\n    profiles: {profiles}\n    newest (registered profile): {receipt}"
        )
    return OK


def _run(args):
    # late: loads the engine (numba), which building the parser must not
    from bootmark.core import provenance

    # late: as above
    from bootmark.studies import peers, protocol, runner

    found = protocol.find(args.study)
    if found.kind == "coverage":
        found.profile(args.profile)
        peers.require_installed(resampler.contender for resampler in found.resamplers)
    if args.workers < 1:
        raise protocol.ProtocolError(f"--workers must be at least 1, got {args.workers}")
    if args.no_write and (args.resume or args.run_dir):
        raise UsageError(
            "--no-write keeps no checkpoints, so it cannot --resume or take --run-dir; drop --no-write to keep them"
        )
    if not args.no_write:  # checked before the run, not after it
        workspace.writable_directory("study", args.output_dir)
    started = provenance.collect()
    if found.kind != "coverage":
        return _run_process(found, started, args)
    # --no-write writes nothing to the workspace: the checkpoints go to a folder removed
    # when the run ends, however it ends
    with (
        tempfile.TemporaryDirectory(prefix="bootmark-study-") if args.no_write else contextlib.nullcontext() as scratch
    ):
        try:
            body = runner.run_study(
                found,
                args.profile,
                workers=args.workers,
                scheduler=args.scheduler,
                run_directory=os.path.join(scratch, "run") if scratch else args.run_dir,
                resume=args.resume,
                show_progress=not args.no_progress,
            )
        except runner.StudyError as error:
            folder = getattr(error, "run_directory", None)
            if folder is None or args.no_write:
                raise
            # the next step, named: what the stop left behind and how to go on from it
            raise type(error)(
                f"{error}; the chunks done stay in {folder}: run the same command with --resume to go on "
                "from them, or delete that folder first if you changed the protocol's code"
            ) from None
    started["finished_utc"] = provenance.utc_now()
    # the user's code's distributions join the versions a receipt records (bootmark's own are there)
    versions = started["versions"]
    versions.update({name: v for name, v in runner.plugin_versions(body["plugins"]).items() if name not in versions})
    print(_results_table(body))
    return _record(args, "study", started, body, f"{found.id}-v{found.version}-{args.profile}")


def _results_table(body):
    """The plain-text table of a coverage or a forecast study's results."""
    if body["design"].get("target") == "forecast":
        # late: loads numpy and the processes, which building the parser must not
        from bootmark.studies import forecast

        return forecast.render_table(body["results"], 1.0 - body["design"]["alpha"])
    return summary.render_table(body["results"], 1.0 - body["design"]["alpha"])


def _record(args, kind, started, body, tag):
    """Write the receipt (unless --no-write); the exit code from the criteria judged."""
    if args.no_write:
        print("(receipt not written: --no-write)")
    else:
        path = receipts.write_receipt(
            receipts.seal(kind, started, body), workspace.directory_for(kind, args.output_dir), tag=tag
        )
        print(f"receipt: {path}")
    judged = [verdict for verdict in body["results"]["criteria"] if verdict["judged"]]
    return OK if all(verdict["passed"] for verdict in judged) else CRITERION_FAILED


def _run_process(found, started, args):
    """A process study (S3): one pass over the replicates in this process; a ``process`` receipt."""
    # late: loads the engine (numba), which building the parser must not
    from bootmark.core import provenance

    # late: as above
    from bootmark.studies import multipliers, protocol

    if args.profile != REGISTERED_PROFILE or args.workers != 1 or args.scheduler or args.resume:
        raise protocol.ProtocolError(
            f"{found.id} is a process study: it runs whole, in this process, in seconds "
            "(no --profile, --workers, --scheduler or --resume)"
        )
    body = multipliers.run(found, show_progress=not args.no_progress)
    started["finished_utc"] = provenance.utc_now()
    print(multipliers.render_table(body["results"]))
    return _record(args, "process", started, body, f"{found.id}-v{found.version}")


def _verify(args):
    # late: loads the engine (numba), which building the parser must not
    from bootmark.studies.runner import StudyError

    # late: as above
    from bootmark.studies.verify import verify

    if not os.path.isfile(args.receipt):
        raise ReceiptError(f"no receipt file {args.receipt!r}; name a study receipt, e.g. from receipts/studies/")
    if args.sample < 1:
        raise ReceiptError(f"--sample must be at least 1, got {args.sample}")
    try:
        _require_peers_of(load_receipt(args.receipt))
        result = verify(args.receipt, args.sample, args.all, args.sample_seed)
    except (ReceiptError, StudyError) as error:
        print(f"bootmark study verify: {error}", file=sys.stderr)
        return CRITERION_FAILED
    print(result.render())
    return OK if result.passed else CRITERION_FAILED


def _require_peers_of(receipt):
    """A study receipt whose resamplers need a peer that is not installed cannot replay:
    say so in one line (PeerNotInstalledError) before any work."""
    # late: loads the engine (numba), which building the parser must not
    from bootmark.studies import peers, protocol

    if receipt["kind"] != "study":
        return
    study = receipt["body"]["study"]
    found = protocol.parse(study["protocol_text"], study["file"])
    peers.require_installed(resampler.contender for resampler in found.resamplers)


def _show(args):
    # late: loads the engine (numba), which building the parser must not
    from bootmark.studies.multipliers import render_table

    if not os.path.isfile(args.receipt):
        raise ReceiptError(f"no receipt file {args.receipt!r}; name a study receipt, e.g. from receipts/studies/")
    body = load_receipt(args.receipt)["body"]
    if "study" not in body:
        raise ReceiptError(f"{args.receipt} is a {load_receipt(args.receipt)['kind']} receipt, not a study receipt")
    study = body["study"]
    if args.format == "markdown" and study.get("kind") != "multiplier_autocorrelation":
        # late: loads the protocol module (the engine), which building the parser must not
        from bootmark.studies import report

        # as `study render` shows a study (coverage with its Wilson interval, the criteria's
        # verdicts), then every performance measure
        print(report.render_study(body, args.receipt))
        print("\nPerformance measures (Monte Carlo SE beside each; docs/measures.md):\n")
        print(results.load(args.receipt).render("markdown"))
        return OK
    if args.format != "text":
        print(results.load(args.receipt).render(args.format))
        return OK
    if study.get("kind") == "multiplier_autocorrelation":
        print(f"{study['id']} v{study['version']}: {study['title']} ({body['design']['replicates']} replicates)")
        print(render_table(body["results"]))
        return OK
    print(
        f"{study['id']} v{study['version']}: {study['title']} (profile {body['profile']['name']}, "
        f"{body['profile']['series']} series per n)"
    )
    print(_results_table(body))
    print()
    print(summary.render_measures(results.load(args.receipt).rows))
    return OK


def _new(args):
    """Scaffold a study of the user's own (studies.scaffold)."""
    # late: loads the engine (numba), which building the parser must not
    from bootmark.studies import scaffold

    made = scaffold.create(args.name, workspace.find(), forecast=args.forecast)
    for path in made:
        print(f"wrote {path}")
    print(f"try it: bootmark study run {args.name} --profile tiny --no-write")
    return OK


def _truth(args):
    """The explicit truth step of a study (studies.truth.ensure_truths), on its own."""
    # late: loads the engine (numba), which building the parser must not
    from bootmark.studies import protocol, runner, truth

    found = protocol.find(args.study)
    if found.kind != "coverage":
        raise protocol.ProtocolError(f"{found.id} is a process study: it has no truth to compute")
    profile = found.profile(args.profile)
    paths = truth.ensure_truths(
        found.process(), profile.n, found.statistic, show_progress=True, **runner.truth_settings(found)
    )
    if not paths:
        print(f"{found.id}-v{found.version}: every truth is a closed form; nothing to compute")
        return OK
    for n, path in zip(profile.n, paths, strict=True):
        print(f"n = {n}: {path}")
    return OK


def _render(args):
    # late: loads the engine (numba), which building the parser must not
    from bootmark.studies import report

    try:
        if args.readme:
            paths = report.update_readme()
            print("README.md coverage section rendered from:\n  " + "\n  ".join(paths))
        else:
            print(report.render_section()[0])
    except (FileNotFoundError, ValueError) as error:
        raise UsageError(str(error)) from None
    return OK


def _pin_blas_kernel(command_line, verbose=False):
    """Re-execute this command with the OpenBLAS kernel pinned (:mod:`bootmark.core.blas`),
    when it is not and the command came from a shell (``command_line``, not None); say so
    on stderr only when ``verbose`` (the receipt records the kernel either way)."""

    if command_line is None or os.environ.get(blas.CORETYPE_VARIABLE) == blas.PINNED_CORETYPE:
        return
    if blas.kernel_problem() is None or not os.path.isfile(sys.argv[0]):
        return
    if verbose:
        print(
            f"bootmark study: re-running with {blas.CORETYPE_VARIABLE}={blas.PINNED_CORETYPE} so the peers' "
            "results replay bit for bit on any x86-64 machine",
            file=sys.stderr,
        )
        sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, sys.argv[0], *command_line], blas.pinned_environment())


def dispatch(args, command_line=None):
    """Run ``bootmark study ...``; ``command_line`` is sys.argv[1:] when invoked from a
    shell, which lets run and verify re-execute with the BLAS kernel pinned."""
    if args.study_command in ("run", "verify"):
        _pin_blas_kernel(command_line, args.verbose)
    return args.study_handler(args)


def _study(args):
    return dispatch(args, sys.argv[1:] if args.from_shell else None)


def add_study(commands):
    """The ``study`` verb group: its parser and handler."""
    add_parser(commands).set_defaults(handler=_study)
