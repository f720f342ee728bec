"""Check a study receipt: schema and hash, protocol, summaries, and a bit-for-bit replay of series.

A truth receipt (``receipts/studies/truth/``) is recomputed whole instead (steps 1 and 4).

1. The receipt loads (schema, content hash).
2. Its protocol text hashes to the recorded SHA-256, and the registered file of that
   name still has this hash (an edited protocol is reported).
3. Summaries, verdicts and published comparisons recomputed from the stored per-series
   outcomes equal the stored ones, and so does ``results_sha256``.
4. A sample of series (or all) is recomputed from (root seed, n, series) and compared
   bit for bit with the stored outcomes.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from bootmark.core import provenance
from bootmark.core.receipts import ReceiptError, load_receipt

from . import multipliers
from . import protocol as protocols
from .dgp import PROCESSES
from .oracle import FORECAST_TARGET
from .plugins import PluginError, PluginProcess, is_import_path, load_object, origin_of
from .runner import results_hash, results_of, run_chunk, truth_settings
from .truth import ensure_truths, simulate_slope_truth, simulate_statistic_truth

DEFAULT_SAMPLE = 20
# What decides a replay's bits. Receipts from before the kernel was recorded ran Haswell.
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["VerifyReport", "verify"]

REPLAY_VERSIONS = ("numpy", "numba", "arch", "tsbootstrap", "stream_version", "openblas_coretype")


@dataclass
class VerifyReport:
    """What was checked and what failed; ``passed`` is True when nothing failed.

    Attributes
    ----------
    path : str
        The receipt checked.
    checks : list of str
        What was checked and held.
    failures : list of str
        What was checked and failed.
    notes : list of str
        What the reader should know (versions that differ, the replay's sample seed).

    Examples
    --------
    >>> report = VerifyReport("receipt.json")
    >>> report.check(True, "schema and content hash", "bad hash")
    >>> report.notes.append("a note")
    >>> report.passed
    True
    >>> print(report.render())
    verify receipt.json
      ok    schema and content hash
      note  a note
    PASSED
    >>> report.check(False, "results_sha256", "results_sha256 does not match the results")
    >>> report.passed, report.render().splitlines()[-1]
    (False, 'FAILED (1 problems)')
    """

    path: str
    checks: list = field(default_factory=list)
    failures: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """True when no check failed."""
        return not self.failures

    def check(self, ok: bool, what: str, failure: str) -> None:
        """Record ``what`` as a check if ``ok``, else ``failure`` as a failure."""
        (self.checks if ok else self.failures).append(what if ok else failure)

    def render(self) -> str:
        """The report as text: one line per check, note and failure, then PASSED or FAILED."""
        lines = [f"verify {self.path}"]
        lines += [f"  ok    {line}" for line in self.checks]
        lines += [f"  note  {line}" for line in self.notes]
        lines += [f"  FAIL  {line}" for line in self.failures]
        lines.append("PASSED" if self.passed else f"FAILED ({len(self.failures)} problems)")
        return "\n".join(lines)


def _series_values(columns, index):
    """Everything stored for one series of one cell, as a comparable structure."""
    return {
        name: (
            column["point"][index],
            column["standard_error"][index],
            column["block_length"][index],
            {kind: (bounds["lower"][index], bounds["upper"][index]) for kind, bounds in column["intervals"].items()},
        )
        for name, column in columns.items()
    }


def _forecast_values(cell, columns, index):
    """Everything a forecast receipt stores for one series: the realised future, the last
    observed value, each resampler's bounds and points."""
    answers = {
        name: tuple(column[key][index] for key in ("lower", "upper", "point")) for name, column in columns.items()
    }
    return cell["future"][index], cell["origin"][index], answers


def verify(
    path: str,
    sample: int = DEFAULT_SAMPLE,
    replay_all: bool = False,
    sample_seed: int | None = None,
    protocol_directory: str | None = None,
    progress: Callable[[], object] | None = None,
) -> VerifyReport:
    """Return a :class:`VerifyReport` for the receipt at ``path``.

    ``sample`` series are replayed, chosen with ``random.Random(sample_seed)`` (a fresh
    seed when None, reported in the notes), or every series with ``replay_all``.

    Parameters
    ----------
    path : str
        A study, process-study or truth receipt.
    sample : int, default DEFAULT_SAMPLE (20)
        Series to replay (coverage studies).
    replay_all : bool, default False
        Replay every series instead of a sample.
    sample_seed : int, optional
        Seed of the sample's choice; default a fresh one, reported in the notes.
    protocol_directory : str, optional
        Where the registered protocols are looked up (as
        :func:`bootmark.studies.protocol.protocol_paths`).
    progress : callable, optional
        Called with no argument after each series replayed (or, for a process study,
        its truthiness turns the progress bar on).

    Returns
    -------
    VerifyReport
        What was checked, what failed and notes; a failed check is reported, not raised.

    Raises
    ------
    bootmark.core.receipts.ReceiptError
        The receipt does not load (schema or content hash).
    bootmark.studies.protocol.ProtocolError
        The embedded protocol does not parse.
    bootmark.studies.runner.StudyError
        A replay refused (e.g. an OpenBLAS kernel that is not the pinned one).

    See Also
    --------
    bootmark.studies.runner.run_study : Makes the receipts this checks.
    """
    report = VerifyReport(path)
    receipt = load_receipt(path)
    report.checks.append("schema and content hash")
    body = receipt["body"]
    if receipt["kind"] == "truth":
        return _verify_truth(report, body)
    if receipt["kind"] not in ("study", "process"):
        raise ReceiptError(
            f"{path} is a {receipt['kind']} receipt; study verify checks study, process and truth receipts "
            "(a bench receipt is compared with `bootmark compare`)"
        )
    study = body["study"]
    protocol = protocols.parse(study["protocol_text"], study["file"])
    report.check(
        protocol.sha256 == study["protocol_sha256"],
        "protocol text matches its recorded SHA-256",
        "the embedded protocol text does not hash to protocol_sha256",
    )
    _check_registered(report, protocol, study["file"], protocol_directory)
    _note_version_changes(report, receipt["provenance"]["versions"])
    if receipt["kind"] == "process":
        return _verify_process(report, protocol, body, progress)
    if not _plugins_present(report, body.get("plugins", ())):
        return report
    profile = protocol.profile(body["profile"]["name"])
    cells = {cell["n"]: cell for cell in body["results"]["cells"]}
    forecasts = protocol.target == FORECAST_TARGET
    done = {}
    for n, cell in cells.items():
        done[(n, 0)] = {"n": n, "first": 0, "last": profile.series, "columns": cell["resamplers"]}
        if forecasts:  # what the process realised after each history, as the run stored it
            done[(n, 0)].update(future=cell["future"], origin=cell["origin"])
    if not forecasts:
        # the explicit truth step, as the run had it: a missing Monte Carlo truth is computed first
        ensure_truths(
            protocol.process(), profile.n, protocol.statistic, report=report.notes.append, **truth_settings(protocol)
        )
    recomputed = results_of(protocol, profile, done)
    if "performance" not in body["results"]:
        # made before the performance measures were recorded: the rest must still agree
        del recomputed["performance"]
        report.notes.append("this receipt predates the performance measures; `study show` computes them")
    report.check(
        recomputed == body["results"],
        "summaries, verdicts and published comparisons recompute exactly",
        "the stored summaries differ from those recomputed from the stored outcomes",
    )
    report.check(
        results_hash(body["results"]) == body["results_sha256"],
        "results_sha256",
        "results_sha256 does not match the results",
    )
    pairs = _replayed_series(report, profile, sample, replay_all, sample_seed)
    mismatched = []
    for n, i in pairs:
        chunk = run_chunk(protocol.text, protocol.file_name, profile.name, n, i, i + 1)
        if forecasts:
            same = _forecast_values(chunk, chunk["columns"], 0) == _forecast_values(cells[n], cells[n]["resamplers"], i)
        else:
            same = _series_values(chunk["columns"], 0) == _series_values(cells[n]["resamplers"], i)
        if not same:
            mismatched.append((n, i))
        if progress:
            progress()
    report.check(
        not mismatched,
        f"{len(pairs)} series replayed bit for bit",
        f"{len(mismatched)} of {len(pairs)} replayed series differ, e.g. n={mismatched[0][0]} series {mismatched[0][1]}"
        if mismatched
        else "",
    )
    return report


def _check_registered(report, protocol, file_name, protocol_directory):
    """Check that the registered protocol of that file name, if any, is the receipt's."""
    registered = {os.path.basename(path): path for path in protocols.protocol_paths(protocol_directory).values()}
    registered = registered.get(file_name, "")
    if registered:
        report.check(
            protocols.load(registered).sha256 == protocol.sha256,
            f"registered protocol {file_name} is unchanged",
            f"registered protocol {file_name} was edited after this receipt was made; register a new version instead",
        )
    else:
        report.notes.append(f"{file_name} is not in the registered protocols (a test or ad-hoc protocol)")


def _plugins_present(report, recorded):
    """Check the user's code a receipt names is here: say "this receipt needs mypkg 1.2"
    when its distribution is missing (a failure: nothing can replay) or at another version,
    or when a workspace module's source differs (notes: a replay may then differ)."""
    present = True
    for origin in recorded:
        wanted = f"{origin['distribution']} {origin['version']}" if origin["distribution"] else None
        try:
            load_object(origin["path"], origin["entry"])
        except PluginError as error:
            needs = f"this receipt needs {wanted}" if wanted else f"this receipt needs the module {origin['path']}"
            report.failures.append(f"{needs}: {error}")
            present = False
            continue
        now = origin_of(origin["entry"], origin["path"])
        for name, version in origin.get("requires", {}).items():
            if now.requires.get(name) != version:
                report.notes.append(
                    f"this receipt needs {name} {version}; installed: {now.requires.get(name) or 'none'} "
                    "(a replay may differ)"
                )
        if wanted and now.version != origin["version"]:
            report.notes.append(
                f"this receipt needs {wanted}; installed: {now.version or 'none'} (a replay may differ)"
            )
        elif not wanted and now.file_sha256 != origin["file_sha256"]:
            report.notes.append(f"{origin['path']}: the module's source differs from the run's (a replay may differ)")
    return present


def _note_version_changes(report, recorded):
    """Note the versions that decide a replay's bits and differ from the installed ones."""
    installed = provenance.versions()
    changed = [
        f"{key} {recorded.get(key)} -> {installed.get(key)}"
        for key in REPLAY_VERSIONS
        if recorded.get(key) != installed.get(key)
    ]
    if changed:
        report.notes.append(
            "installed versions differ from the receipt's (a replay may then differ): " + ", ".join(changed)
        )


def _replayed_series(report, profile, sample, replay_all, sample_seed):
    """The (n, series) pairs to replay: all, or a sample drawn from ``sample_seed`` (fresh
    when None, and noted so the same sample can be replayed)."""
    pairs = [(n, i) for n in profile.n for i in range(profile.series)]
    if replay_all:
        return pairs
    if sample_seed is None:
        sample_seed = random.SystemRandom().randrange(2**32)
    pairs = sorted(random.Random(sample_seed).sample(pairs, min(sample, len(pairs))))
    report.notes.append(
        f"replayed {len(pairs)} of {profile.series * len(profile.n)} series (--sample-seed {sample_seed})"
    )
    return pairs


def _verify_process(report, protocol, body, progress):
    """A process study is cheap: every replicate is drawn again and the results compared whole."""
    results = multipliers.results_of(protocol, multipliers.estimate(protocol, show_progress=bool(progress)))
    report.check(
        results == body["results"],
        f"all {protocol.replicates} replicates redrawn; results equal bit for bit",
        "the redrawn results differ from the stored ones",
    )
    report.check(
        body["results_sha256"] == multipliers.results_hash(body["results"]),
        "results_sha256",
        "results_sha256 does not match the results",
    )
    return report


def _verify_truth(report, body):
    """A Monte Carlo truth is recomputed whole from its recorded process, n, draws and seed."""
    kinds = {kind.__name__: kind for kind in PROCESSES.values()}
    if is_import_path(body["process"]):  # a user's process: loaded by import path, as the run did
        try:
            cls = load_object(body["process"], "truth receipt process")
            process = PluginProcess(body["process"], body["parameters"], cls(**body["parameters"]))
        except Exception as error:  # noqa: BLE001 - the user's code is missing or refuses: say so, do not crash
            report.failures.append(f"this truth needs the process {body['process']}: {error}")
            return report
        simulate = partial(simulate_statistic_truth, statistic=body["statistic"])
    elif body["process"] in kinds:
        process, simulate = kinds[body["process"]](**body["parameters"]), simulate_slope_truth
    else:
        report.failures.append(f"unknown process {body['process']!r}: this checkout cannot recompute the truth")
        return report
    report.notes.append(f"recomputing all {body['draws']:,} draws (a truth has no per-series sample)")
    mean, sd = simulate(process, body["n"], draws=body["draws"], seed=body["seed"])
    report.check(
        (mean, sd) == (body["mean"], body["standard_deviation"]),
        f"mean and standard deviation of {body['draws']:,} draws recomputed bit for bit",
        f"recomputed mean {mean!r} and sd {sd!r} differ from the stored {body['mean']!r} and "
        f"{body['standard_deviation']!r}",
    )
    return report
