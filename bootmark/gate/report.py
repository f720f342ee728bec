"""What ``bootmark gate`` prints and keeps: a Markdown summary fit for a pull-request
comment (regressions first, then improvements), the JSON verdict receipt, and the GitHub
Actions step summary."""

from __future__ import annotations

import os
import platform
import sys

from bootmark import __version__
from bootmark.core import provenance, receipts
from bootmark.core.errors import INCOMPARABLE, REGRESSION
from bootmark.core.processes import last_line
from bootmark.gate.config import GateConfig
from bootmark.gate.sides import Side
from bootmark.gate.verdicts import CellVerdict, GateVerdict

__all__ = [
    "HEADINGS",
    "checkout_provenance",
    "gate_provenance",
    "ratio_text",
    "receipt_body",
    "render_markdown",
    "value_text",
    "write_receipt",
    "write_step_summary",
]

# The sections of the summary, in the order a reviewer needs them. Unconfirmed improvements
# (faster once, not again) have none: they are in the collapsed table of every cell only.
HEADINGS = (
    ("regression", "Regressions (slower beyond tolerance, seen twice)"),
    ("incomparable", "Slower, but the drift control moved (not judged)"),
    ("broken", "Broken on the current side"),
    ("improvement", "Improvements (faster beyond tolerance, seen twice)"),
    ("unconfirmed", "Slower once, not confirmed by the second measurement"),
    ("undecided", "Undecided (the interval straddles the tolerance, or the budget ran out)"),
    ("new", "Not on the baseline (fail there; not compared)"),
    ("skipped", "Skipped by their setup"),
)


def value_text(amount: float, unit: str) -> str:
    """A measured value in its unit as a table shows it: ``1.23 ms``, ``160.2 MiB``, ``42 items``.

    Parameters
    ----------
    amount : float
        The value, in ``unit``.
    unit : str
        ``s`` (seconds), ``bytes``, or a track's own unit.

    Returns
    -------
    str

    Examples
    --------
    >>> value_text(0.00123, "s"), value_text(2**24, "bytes"), value_text(42, "items")
    ('1.23 ms', '16.0 MiB', '42 items')
    """
    if unit == "s":
        for scale, name in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
            if amount >= scale:
                return f"{amount / scale:.3g} {name}"
        return f"{amount * 1e9:.3g} ns"
    if unit == "bytes":
        return f"{amount / 2**20:.1f} MiB"
    return f"{amount:.4g} {unit}".strip()


def ratio_text(cell: CellVerdict) -> str:
    """A cell's current/baseline ratio with its interval, then its confirmation and decider.

    Parameters
    ----------
    cell : CellVerdict

    Returns
    -------
    str
        Empty for a cell without a ratio (broken, new, skipped).

    Examples
    --------
    >>> from bootmark.gate.verdicts import CellVerdict, Interval
    >>> cell = CellVerdict("b", "time", "regression", 1.05, "s", ratio=Interval(1.2, 1.1, 1.3, "block bootstrap 95%"),
    ...                    confirmation=Interval(1.21, 1.15, 1.25, "block bootstrap 95%"))
    >>> ratio_text(cell)
    '1.200 (1.100–1.300); again 1.210 (1.150–1.250)'
    """
    if cell.ratio is None:
        return ""
    words = f"{cell.ratio.median:.3f} ({cell.ratio.low:.3f}–{cell.ratio.high:.3f})"
    for word, again in (("again", cell.confirmation), ("third", cell.decider)):
        if again is not None:
            words += f"; {word} {again.median:.3f} ({again.low:.3f}–{again.high:.3f})"
    if cell.instructions:
        words += f"; decided by instructions {cell.instructions['ratio']:.3f}"
    return words


def _row(cell: CellVerdict) -> str:
    name = f"`{cell.label}`" + (f" ({cell.pretty_name})" if cell.pretty_name else "")
    if cell.ratio is None:
        why = f" ({cell.note})" if cell.status == "undecided" and cell.note else ""
        return f"| {name} | {cell.kind} | | | | x{cell.tolerance:g} | {cell.status}{why} |"
    # both values from one round, the round at the median ratio, so they agree with it
    before, after = (value_text(amount, cell.unit) for amount in cell.median_round())
    ratio = ratio_text(cell)
    return f"| {name} | {cell.kind} | {before} | {after} | {ratio} | x{cell.tolerance:g} | {cell.status} |"


TABLE_HEAD = (
    "| benchmark | kind | baseline (median round) | current (median round) | current/baseline (interval) "
    "| tolerance | status |\n"
    "|---|---|---:|---:|---|---:|---|"
)


def render_markdown(verdict: GateVerdict, details: bool = True) -> str:
    """The verdict as Markdown: a headline, each non-trivial section with its table, the
    problems, and (``details``) every cell in a collapsed table.

    Parameters
    ----------
    verdict : GateVerdict
    details : bool, optional
        Wrap the full table in ``<details>`` (for a pull-request comment); False prints it
        plainly (for a terminal).

    Returns
    -------
    str
    """
    outcome = {REGRESSION: "REGRESSION", INCOMPARABLE: "CANNOT JUDGE"}.get(verdict.exit_code, "PASS")
    base, current = verdict.baseline, verdict.current
    lines = [
        f"## bootmark gate: {outcome}",
        "",
        f"Current `{(current.revision or 'working tree')[:10]}`{' (uncommitted changes)' if current.dirty else ''} "
        f"against baseline `{base.revision[:10]}`, head to head on this machine; {len(verdict.cells)} cells, "
        f"{verdict.wall_seconds:.0f} s.",
    ]
    if verdict.control is not None:
        control = verdict.control
        moved = "; MOVED, so no regression can be called" if verdict.control_moved else ""
        lines.append(
            f"Drift control (the same fixed workload on both sides): {control.median:.3f} "
            f"({control.low:.3f}–{control.high:.3f}){moved}."
        )
    runner = verdict.runner or {}
    if runner.get("busy"):
        settled = [cell for cell in verdict.cells if cell.decided_by == "instructions"]
        lines.append(
            f"The runner was busy: other processes used {runner['other_cpus']:.2f} CPUs while the cells were "
            f"measured; {len(settled)} cell(s) decided by instructions retired"
            + (" (valgrind)." if runner.get("counter") else ", none: valgrind is not installed.")
        )
    if verdict.budget_spent:
        undecided = [cell.label for cell in verdict.with_status("undecided")]
        lines.append(
            f"The time budget ({verdict.settings.budget_s:g} s) ran out; left undecided: "
            + (", ".join(f"`{label}`" for label in undecided) or "none")
            + "."
        )
    faster_once = verdict.with_status("unconfirmed-improvement")
    if faster_once:
        lines.append(
            f"{len(faster_once)} cell(s) looked faster once but not when measured again; they are not counted as "
            "improvements (see all cells)."
        )
    for status, heading in HEADINGS:
        cells = verdict.with_status(status)
        if not cells:
            continue
        lines += ["", f"### {heading}: {len(cells)}", ""]
        if status in ("broken", "new", "skipped"):
            lines += [f"- `{cell.label}`: {last_line(cell.note)}" for cell in cells]
        elif status == "undecided" and all(cell.ratio is None for cell in cells):
            lines += [f"- `{cell.label}`: {cell.note}" for cell in cells]
        else:
            lines += [TABLE_HEAD, *(_row(cell) for cell in cells)]
    if verdict.problems:
        lines += ["", "### Cannot judge", "", *(f"- {problem}" for problem in verdict.problems)]
    if verdict.warnings:
        lines += ["", "### Warnings", "", *(f"- {warning}" for warning in verdict.warnings)]
    table = [TABLE_HEAD, *(_row(cell) for cell in verdict.cells)]
    if details:
        lines += ["", "<details><summary>All cells</summary>", "", *table, "", "</details>"]
    else:
        lines += ["", "### All cells", "", *table]
    return "\n".join(lines)


def _side(side) -> dict:
    return {
        "revision": side.revision,
        "dirty": side.dirty,
        "how": side.how,
    }


def receipt_body(verdict: GateVerdict, config: GateConfig) -> dict:
    """The body of the ``gate`` receipt (schema ``gate.schema.json``).

    Parameters
    ----------
    verdict : GateVerdict
    config : GateConfig
        The configuration the gate ran with.

    Returns
    -------
    dict
        Plain JSON data: sides, settings, control, one entry per cell, problems.
    """
    settings = verdict.settings
    body = {
        "exit_code": verdict.exit_code,
        "project": verdict.project.to_json() if verdict.project else None,
        "baseline": _side(verdict.baseline),
        "current": _side(verdict.current),
        "benchmark_dir": config.benchmark_dir,
        "tolerance": config.tolerance,
        "settings": {
            "min_rounds": settings.min_rounds,
            "max_rounds": settings.max_rounds,
            "batch": settings.batch,
            "warmups": settings.warmups,
            "sample_target_s": settings.sample_target_s,
            "budget_s": settings.budget_s,
            "control_tolerance": settings.control_tolerance,
        },
        "control": verdict.control.to_json() if verdict.control else None,
        "cells": [cell.to_json() for cell in verdict.cells],
        "problems": list(verdict.problems),
        "warnings": list(verdict.warnings),
        "wall_seconds": verdict.wall_seconds,
        "budget_spent": verdict.budget_spent,
    }
    if verdict.runner is not None:
        body["runner"] = dict(verdict.runner)
    if config.pytest_args:  # how pytest was run, when the project gave it options
        body["pytest_args"] = list(config.pytest_args)
    return body


def write_receipt(verdict: GateVerdict, config: GateConfig, directory: str) -> str:
    """Seal the verdict as a ``gate`` receipt and write it into ``directory`` (atomically,
    never overwriting).

    Parameters
    ----------
    verdict : GateVerdict
    config : GateConfig
    directory : str
        The receipt folder (created if missing).

    Returns
    -------
    str
        The receipt's path.
    """
    sealed = receipts.seal("gate", gate_provenance(verdict), receipt_body(verdict, config))
    return receipts.write_receipt(sealed, directory)


def gate_provenance(verdict: GateVerdict) -> dict:
    """The provenance of a gate receipt: the machine, the gated project's checkout, the
    time and command line, and the gate's own versions (bootmark and its Python); the
    project's own versions are in the body's ``project``, not bootmark's peers.

    Parameters
    ----------
    verdict : GateVerdict

    Returns
    -------
    dict
    """
    return checkout_provenance(verdict.current)


def checkout_provenance(side: Side) -> dict:
    """The provenance of a receipt about a project's checkout (a gate verdict, a suite
    record): the machine, the checkout's commit, the time and command line, and bootmark's
    own versions.

    Parameters
    ----------
    side : Side
        The current side (its commit and whether the tree was dirty).

    Returns
    -------
    dict
    """
    return {
        "machine": provenance.machine(),
        "versions": {"python": platform.python_version(), "bootmark": __version__},
        "source": {"git_sha": side.revision, "dirty": side.dirty},
        "started_utc": provenance.utc_now(),
        "command_line": [os.path.basename(sys.argv[0]), *sys.argv[1:]],
    }


def write_step_summary(markdown: str) -> str | None:
    """Append ``markdown`` to the GitHub Actions step summary when ``GITHUB_STEP_SUMMARY``
    names a file.

    Parameters
    ----------
    markdown : str
        The summary (:func:`render_markdown`).

    Returns
    -------
    str or None
        The file appended to, None outside GitHub Actions.

    Examples
    --------
    >>> import os, tempfile
    >>> from unittest import mock
    >>> from bootmark.gate.report import write_step_summary
    >>> with tempfile.TemporaryDirectory() as scratch:
    ...     path = os.path.join(scratch, "summary.md")
    ...     with mock.patch.dict(os.environ, {"GITHUB_STEP_SUMMARY": path}):
    ...         written = write_step_summary("## bootmark gate: PASS")
    ...     print(written == path, open(path).read().strip())
    True ## bootmark gate: PASS
    """
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return None
    with open(path, "a", encoding="utf-8") as stream:
        stream.write(markdown + "\n")
    return path
