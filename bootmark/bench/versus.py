"""``bootmark versus REVISION``: this checkout's engine against a committed revision's, on
this box, in one run.

Why: a committed bench receipt may have been made on another host. The ``arch`` control
catches a box that is slower or faster overall, but two hosts sold under the same CPU
name can give the same ``arch`` time and still differ in the engine's relative cost (its
Philox integer work against ``arch``'s numpy calls): that happened, as a 25% shift of
the i.i.d. sentinel's engine/arch cost on identical code. The only measurement that
isolates the code is the old code and the new code, timed on the same box, side by side.

How:

* ``git archive REVISION engine reference`` is unpacked into a temporary tree; the
  current side is this checkout. Only the engine and its reference twin come from the
  revision: the harness (``bench.engine_reduce_path``, this module) is this checkout's,
  so both sides make the same call on the same series.
* Each side runs in its own worker process whose import path starts at its tree (the
  worker checks where ``engine`` came from).
* Per cell, both workers compile and warm up, then ``rounds`` rounds each time one call
  per side, in the order baseline-current, current-baseline, ... so a drift of the
  machine within a round falls on both sides alike. A sentinel cell runs on one Numba
  thread, the others on the default. A cell whose warm calls (``DECIDING_CALLS`` per side)
  all ran on one thread is timed with both workers on one CPU (``bootmark.core.cpus``: on
  a shared box each worker would keep its own CPU, and two CPUs can run tens of percent
  apart for seconds).
* The verdict per cell is the median of per-round ratios current / baseline with the
  moving-block bootstrap interval of ``bootmark.core.timing``. A cell regresses when the whole
  interval lies above its tolerance. The largest |current - baseline| statistic is
  reported too (0 when the two revisions give the same bits).

Exit codes as ``bootmark compare``: 0 pass, 1 regression, 2 the revision cannot be timed
here (no git, a shallow clone without it, a method it does not have).
"""

from __future__ import annotations

import dataclasses
import importlib
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType

import numba
import numpy as np
from tqdm import tqdm

import bootmark
from bootmark.core import cpus, provenance, timing
from bootmark.core.errors import PASS, REGRESSION
from bootmark.core.processes import LineProcess
from bootmark.core.records import CellSpec, PathTiming, Ratio, SourceState

TREE_FOLDERS = ("engine", "reference")
# Warm calls per side read before the rounds, to decide whether the cell runs on one thread.
DECIDING_CALLS = 3
REPLY_TIMEOUT_S = 900.0  # a first call compiles the engine (about 10 s here); a hang must still end
BASELINE, CURRENT = "baseline", "current"


class HeadToHeadError(RuntimeError):
    """The revision cannot be timed here; the message names the cause and the fix.

    A ``RuntimeError``: no git checkout, no git, an unknown revision or a shallow clone,
    an engine imported from the wrong tree, a worker that stopped, or settings out of
    range.
    """


def _checkout(root):
    """``root``, or bootmark's own checkout; HeadToHeadError for an installed wheel."""
    root = root or provenance.source_checkout()
    if root is None:
        raise HeadToHeadError(
            "bootmark runs from an installed package, not from a git checkout of bootmark, so "
            "there is no committed revision of its engine to time; run this in a clone of "
            "bootmark's repository installed with `pip install -e .`"
        )
    return root


def export_revision(revision: str, destination: str, root: str | None = None) -> str:
    """Unpack ``engine/`` and ``reference/`` of git ``revision`` of bootmark's checkout
    (``root``, default: the one bootmark runs from) into ``destination``; return the
    revision's full SHA.

    Parameters
    ----------
    revision : str
        Any git revision naming a commit (a SHA, a branch, ``HEAD~1``).
    destination : str
        The folder to unpack into.
    root : str, optional
        The git checkout (default: :func:`bootmark.core.provenance.source_checkout`).

    Returns
    -------
    str
        The commit's full SHA.

    Raises
    ------
    HeadToHeadError
        bootmark runs from an installed wheel, git is missing, the revision is not a
        commit of the checkout, or ``git archive`` fails.
    """
    root = _checkout(root)
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "--verify", f"{revision}^{{commit}}"],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
        if sha.returncode != 0:
            raise HeadToHeadError(
                f"revision {revision!r} is not a commit of the checkout at {root} "
                f"({sha.stderr.strip() or 'git found nothing'}); a shallow clone lacks older "
                "commits: run `git fetch --unshallow`"
            )
        archive = subprocess.run(
            ["git", "archive", "--format=tar", sha.stdout.strip(), *TREE_FOLDERS],
            cwd=root,
            capture_output=True,
            check=False,
        )
    except FileNotFoundError as error:
        raise HeadToHeadError(f"git is not installed, so revision {revision!r} cannot be exported: {error}") from None
    if archive.returncode != 0:
        raise HeadToHeadError(f"git archive of {revision!r} failed: {archive.stderr.decode(errors='replace').strip()}")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(destination, filter="data")
    return sha.stdout.strip()


class _Worker:
    """One side: a process importing the engine from ``tree`` and timing one cell on request."""

    def __init__(self, tree, cell, warmups, environment, log):
        command = [
            sys.executable,
            "-c",
            "import sys; from bootmark.bench.versus import serve; serve(sys.argv[1:])",
            tree,
            json.dumps({"cell": list(cell), "warmups": warmups}),
        ]
        self.child = LineProcess(command, f"the worker on {tree}", log, HeadToHeadError, environment, tail_chars=2000)

    def reply(self):
        return json.loads(self.child.read(REPLY_TIMEOUT_S))

    def time_once(self):
        """One timed call: its seconds."""
        return self.sample()["seconds"]

    def sample(self):
        """One timed call: ``{"seconds", "cpu_seconds"}`` (the process's CPU time in it)."""
        self.child.send("time")
        return self.reply()

    def close(self):
        self.child.stop("stop")


def import_engine(tree: str) -> ModuleType:
    """Import the engine of source tree ``tree`` (its engine/ and reference/ folders) as
    ``bootmark.engine``, in this process (a versus worker, or a bench of another tree).

    Revisions since the ``bootmark`` namespace import ``bootmark.reference``: the tree goes
    first on ``bootmark``'s package path, so both twins come from it while the harness stays
    this installation's. Older revisions import a top-level ``reference``: the tree goes
    first on ``sys.path`` and its ``engine`` is registered under the new name.

    Parameters
    ----------
    tree : str
        A source tree: a folder holding ``engine/`` and ``reference/``.

    Returns
    -------
    module
        The imported engine, also ``sys.modules["bootmark.engine"]``.

    Raises
    ------
    HeadToHeadError
        A twin was imported already, the tree holds no ``engine/__init__.py``, or the
        engine came from elsewhere.
    """

    if "bootmark.engine" in sys.modules or "bootmark.reference" in sys.modules:
        raise HeadToHeadError("the engine was imported before the tree was chosen; the worker must import it first")
    try:
        with open(os.path.join(tree, "engine", "__init__.py"), encoding="utf-8") as stream:
            older_layout = "from reference." in stream.read()
    except OSError:
        raise HeadToHeadError(
            f"the tree {tree} holds no engine/__init__.py: an engine imported here would come "
            "from elsewhere, not from the tree"
        ) from None
    if older_layout:
        sys.path.insert(0, tree)
        engine = importlib.import_module("engine")
        sys.modules["bootmark.engine"] = engine
    else:
        bootmark.__path__.insert(0, tree)
        engine = importlib.import_module("bootmark.engine")
    where = os.path.realpath(engine.__file__)
    if not where.startswith(os.path.realpath(tree) + os.sep):
        raise HeadToHeadError(f"the engine was imported from {where}, not from the tree {tree}")
    return engine


def require_engine_from(tree: str) -> None:
    """Raise HeadToHeadError unless this process's ``bootmark.engine`` came from ``tree``.

    Parameters
    ----------
    tree : str
        A source tree (:func:`import_engine`).

    Raises
    ------
    HeadToHeadError
        The engine is not imported, or was imported from elsewhere.
    """
    engine = sys.modules.get("bootmark.engine")
    where = os.path.realpath(getattr(engine, "__file__", "") or "")
    if engine is None or not where.startswith(os.path.realpath(tree) + os.sep):
        raise HeadToHeadError(
            f"this process's engine is {where or 'not imported'}, not the tree {tree}'s; call "
            "bootmark.bench.versus.import_engine(tree) before importing bootmark.bench.grid"
        )


def serve(arguments: Sequence[str]) -> None:
    """Worker side (run by ``_Worker``): import the engine from the tree ``arguments[0]``,
    warm up the cell in ``arguments[1]`` and time one call per "time" line on stdin."""
    tree, request = arguments[0], json.loads(arguments[1])
    replies, sys.stdout = sys.stdout, sys.stderr  # stdout carries the protocol and nothing else
    import_engine(tree)

    # late on purpose: bench imports the engine, which must come from the tree import_engine chose
    from bootmark.bench import grid as bench

    method, n, n_bootstraps, sentinel = request["cell"]
    if sentinel:
        numba.set_num_threads(1)
    run = bench.engine_reduce_path(method, bench.cell_series(method, n), n_bootstraps)
    statistics = np.asarray(run(), dtype=float)
    for _ in range(max(request["warmups"] - 1, 0)):
        run()
    replies.write(json.dumps({"statistics": statistics.tolist(), "threads": numba.get_num_threads()}) + "\n")
    replies.flush()
    for command in sys.stdin:
        if command.strip() != "time":
            break
        # The process's CPU time over the wall time tells the parent whether the call ran
        # on one thread (then both sides may share a CPU: bootmark.core.cpus).
        cpu, start = time.process_time(), time.perf_counter()
        run()
        seconds = time.perf_counter() - start
        replies.write(json.dumps({"seconds": seconds, "cpu_seconds": time.process_time() - cpu}) + "\n")
        replies.flush()


def _time_cell(trees, cell, rounds, warmups, progress, turn=0):
    base = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")  # the idle side's OpenMP threads must not spin
    environments = {BASELINE: base, CURRENT: base}
    with tempfile.TemporaryFile("w+") as baseline_log, tempfile.TemporaryFile("w+") as current_log:
        workers = {
            BASELINE: _Worker(trees[BASELINE], cell, warmups, environments[BASELINE], baseline_log),
            CURRENT: _Worker(trees[CURRENT], cell, warmups, environments[CURRENT], current_log),
        }
        try:
            first = {side: worker.reply() for side, worker in workers.items()}
            times = {BASELINE: [], CURRENT: []}
            # More warm calls, one side at a time (the workers warmed up together, sharing
            # the CPUs): both share a CPU only if every one ran on one thread. One call is too
            # few: on a busy machine a two-thread call can get one CPU's worth for its length.
            shares = [workers[side].sample() for _ in range(DECIDING_CALLS) for side in (BASELINE, CURRENT)]
            pids = [worker.child.process.pid for worker in workers.values()]
            cpus.SharedCpu(pids, turn=turn).pin_if_single_threaded(
                [(share["cpu_seconds"], share["seconds"]) for share in shares]
            )
            for round_index in range(rounds):
                order = (BASELINE, CURRENT) if round_index % 2 == 0 else (CURRENT, BASELINE)
                for side in order:
                    times[side].append(workers[side].time_once())
                if progress is not None:
                    progress()
        finally:
            for worker in workers.values():
                worker.close()
    old, new = (np.asarray(first[side]["statistics"]) for side in (BASELINE, CURRENT))
    difference = float(np.max(np.abs(new - old))) if old.shape == new.shape else float("inf")
    return times, first[CURRENT]["threads"], difference


def compare_revisions(
    revision: str,
    cells: Sequence[CellSpec | tuple[str, int, int, bool]],
    tolerance: float = 1.25,
    threaded_tolerance: float | None = None,
    rounds: int = 15,
    warmups: int = 3,
    root: str | None = None,
    show_progress: bool = True,
    current_tree: str | None = None,
) -> HeadToHeadVerdict:
    """Time ``cells`` (:class:`~bootmark.core.records.CellSpec`, or (method, n, B, sentinel)
    tuples) under ``revision``'s engine and this checkout's, side by side; return the
    :class:`HeadToHeadVerdict` (see ``compare_trees``).

    ``current_tree`` (default: the checkout ``root``) is the source tree timed as the
    current side. Raises HeadToHeadError when the revision cannot be exported or a worker
    fails.

    Parameters
    ----------
    revision : str
        The baseline: a git revision of the checkout.
    cells : sequence of CellSpec or tuple
        The cells to time.
    tolerance : float, optional
        The allowed slow-down factor (> 1) of one-thread cells (default 1.25).
    threaded_tolerance : float, optional
        The same for multi-thread cells (default ``tolerance``).
    rounds : int, optional
        Interleaved timed rounds per cell, at least 3 (default 15).
    warmups : int, optional
        Untimed calls per side before the rounds (default 3).
    root : str, optional
        The git checkout (default: the one bootmark runs from).
    show_progress : bool, optional
        Show a progress bar on stderr.
    current_tree : str, optional
        The source tree of the current side (default: ``root``).

    Returns
    -------
    HeadToHeadVerdict
        With ``baseline_revision`` the full SHA and ``current`` the checkout's state.

    Raises
    ------
    HeadToHeadError
        Settings out of range, a revision that cannot be exported, or a worker failure.

    See Also
    --------
    compare_trees : the same on two source trees.
    render_markdown : the verdict as a table.
    """
    _check_settings(tolerance, threaded_tolerance, rounds)  # before the export, not after it
    root = _checkout(root)
    with tempfile.TemporaryDirectory(prefix="bootmark-versus-") as exported:
        sha = export_revision(revision, exported, root)
        verdict = compare_trees(
            exported,
            current_tree or root,
            cells,
            tolerance,
            threaded_tolerance,
            rounds,
            warmups,
            show_progress,
            label=sha[:10],
        )
    return dataclasses.replace(
        verdict, baseline_revision=sha, current=SourceState.from_json(provenance.source_state(root))
    )


def _check_settings(tolerance, threaded_tolerance, rounds):
    if not tolerance > 1 or (threaded_tolerance is not None and not threaded_tolerance > 1):
        raise HeadToHeadError(
            f"tolerances must be above 1 (allowed slow-down factors), got {tolerance} and {threaded_tolerance}"
        )
    if rounds < 3:
        raise HeadToHeadError(f"rounds must be at least 3 (paired samples for a median interval), got {rounds}")


@dataclass(frozen=True)
class HeadToHeadRow:
    """One cell timed under both trees: each side's seconds per round (``baseline``,
    ``current``), the current/baseline median ratio with its interval, the tolerance
    applied, the largest |current - baseline| statistic, and whether it regressed.

    Attributes
    ----------
    cell : CellSpec
        The cell.
    threads : int
        Numba threads the current side ran it on.
    baseline, current : PathTiming
        Each side's seconds per round.
    ratio : Ratio
        The median of per-round current / baseline ratios, with its interval.
    tolerance : float
        The allowed slow-down factor applied.
    max_abs_difference : float
        The largest |current - baseline| of the two sides' statistics (inf when their
        shapes differ).
    regressed : bool
        Whether the whole interval lies above ``tolerance``.
    """

    cell: CellSpec
    threads: int
    baseline: PathTiming
    current: PathTiming
    ratio: Ratio
    tolerance: float
    max_abs_difference: float
    regressed: bool


@dataclass(frozen=True)
class HeadToHeadVerdict:
    """What :func:`compare_trees` found: ``exit_code`` PASS or REGRESSION, the baseline's
    label (its commit, from :func:`compare_revisions`), the rounds per cell, one row per
    cell, and the current checkout's :class:`~bootmark.core.records.SourceState` when known.

    Attributes
    ----------
    baseline_revision : str
        The baseline's label (its full SHA from :func:`compare_revisions`).
    rounds : int
        Timed rounds per cell.
    cells : tuple of HeadToHeadRow
        One row per cell.
    exit_code : int
        ``bootmark.core.errors.PASS`` or ``bootmark.core.errors.REGRESSION``.
    current : SourceState or None
        The current checkout's commit and dirtiness, when known.
    """

    baseline_revision: str
    rounds: int
    cells: tuple[HeadToHeadRow, ...]
    current: SourceState | None = None

    @property
    def exit_code(self) -> int:
        """REGRESSION if any cell regressed, else PASS (derived from the rows)."""
        return REGRESSION if any(row.regressed for row in self.cells) else PASS


def compare_trees(
    baseline_tree: str,
    current_tree: str,
    cells: Sequence[CellSpec | tuple[str, int, int, bool]],
    tolerance: float = 1.25,
    threaded_tolerance: float | None = None,
    rounds: int = 15,
    warmups: int = 3,
    show_progress: bool = True,
    label: str = "baseline",
) -> HeadToHeadVerdict:
    """Time ``cells`` under the ``engine`` of two source trees, side by side.

    Returns a :class:`HeadToHeadVerdict`; ``threaded_tolerance`` (default ``tolerance``)
    applies to a cell that ran on several threads.

    Parameters
    ----------
    baseline_tree, current_tree : str
        Source trees (folders with ``engine/`` and ``reference/``).
    cells : sequence of CellSpec or tuple
        The cells to time.
    tolerance, threaded_tolerance : float, optional
        Allowed slow-down factors (> 1), as for :func:`compare_revisions`.
    rounds, warmups : int, optional
        Timed rounds (at least 3) and untimed warm-up calls per cell.
    show_progress : bool, optional
        Show a progress bar on stderr.
    label : str, optional
        The verdict's ``baseline_revision``.

    Returns
    -------
    HeadToHeadVerdict
        PASS unless a cell regressed.

    Raises
    ------
    HeadToHeadError
        Settings out of range, or a worker failed.
    """
    _check_settings(tolerance, threaded_tolerance, rounds)
    threaded_tolerance = tolerance if threaded_tolerance is None else threaded_tolerance

    rows = []
    trees = {BASELINE: baseline_tree, CURRENT: current_tree}
    with tqdm(
        total=len(cells) * rounds, desc=f"versus {label}", unit="round", file=sys.stderr, disable=not show_progress
    ) as bar:
        for position, cell in enumerate(cells):
            times, threads, difference = _time_cell(trees, cell, rounds, warmups, bar.update, turn=position)
            ratio = timing.median_ratio(times[CURRENT], times[BASELINE])
            allowed = tolerance if threads == 1 else threaded_tolerance
            rows.append(
                HeadToHeadRow(
                    CellSpec(*cell),
                    threads,
                    PathTiming.from_json(timing.summary(times[BASELINE])),
                    PathTiming.from_json(timing.summary(times[CURRENT])),
                    Ratio.from_json(ratio),
                    allowed,
                    difference,
                    ratio["ci_low"] > allowed,
                )
            )
    return HeadToHeadVerdict(label, rounds, tuple(rows))


def render_markdown(verdict: HeadToHeadVerdict) -> str:
    """The :class:`HeadToHeadVerdict` as a Markdown table with a one-line summary above it.

    Parameters
    ----------
    verdict : HeadToHeadVerdict
        What :func:`compare_trees` or :func:`compare_revisions` found.

    Returns
    -------
    str
        The summary, a blank line and one table row per cell (times in milliseconds).

    Examples
    --------
    >>> from bootmark.bench import versus as head_to_head
    >>> from bootmark.core import timing
    >>> from bootmark.core.records import CellSpec, PathTiming, Ratio
    >>> ratio = timing.median_ratio([1.0, 1.1, 1.0, 1.05], [1.0, 1.0, 1.0, 1.0])
    >>> row = head_to_head.HeadToHeadRow(
    ...     CellSpec("iid", 2000, 999, True), 1,
    ...     PathTiming.from_json(timing.summary([0.010, 0.011, 0.010, 0.010])),
    ...     PathTiming.from_json(timing.summary([0.010, 0.012, 0.010, 0.011])),
    ...     Ratio.from_json(ratio), 1.25, 0.0, ratio["ci_low"] > 1.25)
    >>> verdict = head_to_head.HeadToHeadVerdict("0123456789abcdef", 4, (row,), 0)
    >>> lines = head_to_head.render_markdown(verdict).splitlines()
    >>> print(lines[0].split("; ")[1])
    0 of 1 cells slower beyond tolerance
    >>> print(lines[-1])
    | iid (sentinel) | 2000 | 999 | 1 | 10.00 | 10.50 | 1.025 (1.025-1.050) | x1.25 | 0 | no |
    """
    regressed = sum(row.regressed for row in verdict.cells)
    head = (
        f"**{'REGRESSION' if regressed else 'PASS'}**: this checkout against {verdict.baseline_revision[:10]} "
        f"on this box, {verdict.rounds} interleaved rounds per cell; {regressed} of "
        f"{len(verdict.cells)} cells slower beyond tolerance"
    )
    lines = [
        head,
        "",
        "| method | n | B | threads | baseline ms | current ms | current/baseline (95% CI) | "
        "tolerance | max abs stat diff | regressed |",
        "|---|---:|---:|---:|---:|---:|---|---:|---:|---|",
    ]
    for row in verdict.cells:
        cell, ratio = row.cell, row.ratio
        lines.append(
            f"| {cell.method}{' (sentinel)' if cell.sentinel else ''} | {cell.n} | "
            f"{cell.n_bootstraps} | {row.threads} | {row.baseline.median_s * 1e3:.2f} | "
            f"{row.current.median_s * 1e3:.2f} | {ratio.median:.3f} ({ratio.ci_low:.3f}-"
            f"{ratio.ci_high:.3f}) | x{row.tolerance:g} | {row.max_abs_difference:.3g} | "
            f"{'YES' if row.regressed else 'no'} |"
        )
    return "\n".join(lines)


__all__ = [
    "HeadToHeadError",
    "HeadToHeadRow",
    "HeadToHeadVerdict",
    "compare_revisions",
    "compare_trees",
    "export_revision",
    "import_engine",
    "require_engine_from",
    "render_markdown",
]
