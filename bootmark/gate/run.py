"""``bootmark gate --baseline REF``: a project's own asv-style benchmarks, its working tree
against a baseline commit, head to head on this box.

How a verdict is reached, per cell (a benchmark's parameter combination):

1. Both sides' workers (``bootmark.gate.suite``) set the cell up; one call each warms it and
   sets ``number``, the calls per sample (about ``sample_target_s`` a sample, or the
   benchmark's own ``number``); ``warmups`` samples each are discarded.
2. Rounds alternate the order baseline-current, current-baseline, ..., so a drift of the
   machine within a round falls on both sides alike. Each round also times the drift
   control (a fixed sort, the same code on both sides).
3. The median of per-round ratios current / baseline gets the moving-block bootstrap
   interval of ``bootmark.core.timing``: the same method as ``bootmark versus``. The cell is
   *decided* once the interval lies wholly above the tolerance (slower) or wholly below
   it; undecided cells get more rounds, in batches, up to ``max_rounds`` or until the
   ``budget`` is spent.
4. A slower cell is measured again by fresh workers, and fails the gate only when the
   second measurement is slower beyond the tolerance too. When the second measurement is
   inconclusive (its interval straddles the tolerance even after ``max_rounds``) or
   contradicts the first (faster beyond the tolerance), a third pair of fresh workers
   decides; a second measurement within the tolerance clears the cell at once. A cell
   still undecided after ``max_rounds`` whose median ratio lies beyond the tolerance is
   measured again too, and fails only if that fresh pair finds it slower on its own. Fresh
   workers matter because a pair of processes can carry a bias of its own (tens of
   percent, seen on shared virtual machines for sub-millisecond loops) that more rounds of
   the same pair do not average away.
5. Instructions retired (``bootmark.gate.instructions``, counted under valgrind) settle
   the time cells wall time cannot be trusted with: those it left undecided, and on a busy
   runner (``bootmark.core.runner_load``) those it flagged. The receipt says which measure
   decided each cell (``decided_by``) and how busy the runner was (``runner``).

``peakmem_*`` cells compare the peak resident memory of fresh processes (``peakmem_pairs``
interleaved pairs); ``track_*`` cells compare the values returned (higher is worse, as in
asv). Their interval is the range of the per-pair ratios.

When the drift control's interval lies wholly outside ``1 / control_tolerance ..
control_tolerance``, the two workers did not run on comparable terms, and no cell is
called a regression: the verdict is "incomparable" (exit 2).

Exit codes: 0 pass; 1 a confirmed regression; 2 cannot judge (no baseline, a broken
benchmark, an unsupported asv feature not excluded, a moved control, nothing to gate).
"""

from __future__ import annotations

import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Collection, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace

from tqdm import tqdm

from bootmark.core import cpus, receipts, timing, workspace
from bootmark.core.processes import last_line
from bootmark.core.runner_load import BUSY_CPUS, OtherLoad
from bootmark.gate import instructions
from bootmark.gate.config import GateConfig, SuiteError
from bootmark.gate.sides import BASELINE, CURRENT, Side, SideError, prepare_sides
from bootmark.gate.suite import (
    START_TIMEOUT_S,
    VALUE_KINDS,
    Cell,
    Suite,
    SuiteWorker,
    WorkerFailure,
    list_suite,
    select_cells,
)
from bootmark.gate.verdicts import CellVerdict, GateError, GateSettings, GateVerdict, Interval, ProjectRecord

__all__ = [
    "default_baseline",
    "discovery_problems",
    "error_line",
    "folder_hint",
    "no_cells_message",
    "run_gate",
    "say_pytest_output",
]

SIDES = (BASELINE, CURRENT)
# A flagged cell whose second measurement finds it beyond the tolerance the other way: two
# fresh pairs that disagree on the sign say the machine moved, not the code; a third decides.
CONTRADICTED = (("slower", "improvement"), ("improvement", "slower"))
MIN_ROUNDS = 5  # fewer paired rounds give no interval worth a verdict


def _status_of(interval: Interval, tolerance: float) -> str:
    if interval.low > tolerance:
        return "slower"
    if interval.high < 1 / tolerance:
        return "improvement"
    if interval.high < tolerance:
        return "same"
    return "undecided"


class _Pair:
    """The two sides' long-lived workers, loading only the ``select``ed modules (asv) or
    node ids (pytest); restarted after one fails.

    Per-process effects (where the allocator and the string hash put things) can bias one
    pair of processes by tens of percent on microsecond cells. The two workers of a pair
    share a hash seed, so that effect of it falls on both sides alike, and each new pair
    (the confirmation's, the decider's) gets a new seed, so a pair's own bias is not met
    twice."""

    def __init__(self, sides: dict[str, Side], config: GateConfig, select: Sequence[str] | None, pycache: str):
        self.sides, self.config, self.select, self.pycache = sides, config, select, pycache
        self.benchmark_dir = f"{config.root}/{config.benchmark_dir}"
        self.workers: dict[str, SuiteWorker] = {}
        self.hash_seed = 0

    def worker(self, label: str, select: Sequence[str] | None = None, wrapper: Sequence[str] = ()) -> SuiteWorker:
        """A new worker for side ``label`` (loading ``select``, default the pair's; run
        under ``wrapper``, given ``wrapper``'s slowness to start)."""
        side = self.sides[label]
        return SuiteWorker(
            side.python,
            side.paths,
            self.benchmark_dir,
            self.config.package,
            label,
            framework=self.config.framework,
            select=self.select if select is None else select,
            root=self.config.root,
            pycache=os.path.join(self.pycache, label),
            hash_seed=self.hash_seed,
            pytest_args=self.config.pytest_args,
            wrapper=wrapper,
            start_timeout=START_TIMEOUT_S * (instructions.SLOWDOWN if wrapper else 1),
        )

    def start(self) -> dict[str, Suite]:
        self.close()
        self.hash_seed += 1  # a new pair, a new seed, the same on both sides
        for label in SIDES:
            self.workers[label] = self.worker(label)
        return {label: worker.suite for label, worker in self.workers.items()}

    def shared_cpu(self) -> cpus.SharedCpu:
        """One CPU for both workers of this pair; each new pair takes the next CPU, so a
        confirmation is not measured where the first measurement was."""
        return cpus.SharedCpu([worker.pid for worker in self.workers.values()], turn=self.hash_seed)

    def close(self) -> None:
        for worker in self.workers.values():
            worker.close()
        self.workers = {}


@dataclass
class _Samples:
    """A time cell's samples so far (mutable while it is measured; frozen into a verdict)."""

    number: int = 0
    baseline: list[float] = field(default_factory=list)
    current: list[float] = field(default_factory=list)


class _Measurement:
    """Runs the cells of one measurement (the first, or the confirmation) on one pair."""

    def __init__(
        self,
        pair: _Pair,
        settings: GateSettings,
        control: dict[str, list[float]],
        tick: Callable,
        deadline: float | None = None,
    ):
        self.pair, self.settings, self.control, self.tick = pair, settings, control, tick
        self.deadline = deadline
        self.failed: dict[str, tuple[str, str]] = {}  # label -> (status, note)

    def out_of_time(self) -> bool:
        """Whether the budget's deadline has passed."""
        return self.deadline is not None and time.monotonic() > self.deadline

    def _prepare(self, cell: Cell) -> bool:
        """Set ``cell`` up on both sides; False (with the reason recorded) if it cannot run."""
        replies = {}
        for label in SIDES:
            replies[label] = self.pair.workers[label].request(
                "prepare", cell.benchmark.timeout + 60, name=cell.benchmark.name, index=cell.index
            )
        return self._usable(cell, replies)

    def _usable(self, cell, replies) -> bool:
        if "error" in replies[CURRENT]:
            self.failed[cell.label] = ("broken", replies[CURRENT]["error"])
        elif "error" in replies[BASELINE]:
            self.failed[cell.label] = ("new", "fails on the baseline: " + last_line(replies[BASELINE]["error"]))
        elif "skip" in replies[CURRENT] or "skip" in replies[BASELINE]:
            self.failed[cell.label] = ("skipped", replies[CURRENT].get("skip") or replies[BASELINE]["skip"])
        return cell.label not in self.failed

    def _sample(self, label, cell, operation, number=1, shares=None):
        """One sample from side ``label``; a time sample's CPU and wall seconds go into
        ``shares`` when given."""
        timeout = (cell.benchmark.timeout + 1) * number + 60
        reply = self.pair.workers[label].request(operation, timeout, number=number)
        if "error" in reply:
            raise _BenchmarkFailed(label, reply["error"])
        if shares is not None and "cpu_seconds" in reply:
            shares.append((reply["cpu_seconds"], reply["wall_seconds"]))
        return reply.get("seconds", reply.get("value"))

    def _probe(self, cell, operation):
        """One call on each side; a failure on the current side wins over the baseline's, so
        a benchmark that fails on both is broken, not new."""
        replies = {}
        for label in SIDES:
            replies[label] = self.pair.workers[label].request(operation, cell.benchmark.timeout + 60, number=1)
        for label in (CURRENT, BASELINE):
            if "error" in replies[label]:
                raise _BenchmarkFailed(label, replies[label]["error"])
        return {label: reply.get("seconds", reply.get("value")) for label, reply in replies.items()}

    def _round(self, cell, index, samples):
        order = SIDES if index % 2 == 0 else SIDES[::-1]
        for label in order:
            getattr(samples, label).append(self._sample(label, cell, "time", samples.number))
        for label in order[::-1]:
            self.control[label].append(self._sample(label, cell, "control"))
        self.tick()

    def time_rounds(self, cell: Cell, samples: _Samples, rounds: int) -> None:
        """Add ``rounds`` interleaved rounds to ``samples`` (setting it up first).

        The warm-ups run where the scheduler puts them; when every one ran on one thread,
        the rounds run with both workers on one CPU (``bootmark.core.cpus``: otherwise each
        worker keeps its own CPU, and on a shared machine the two can differ by half)."""
        if not self._prepare(cell):
            return
        if not samples.number:
            first = self._probe(cell, "time")
            wanted = math.ceil(self.settings.sample_target_s / max(min(first.values()), 1e-9))
            samples.number = cell.benchmark.number or min(max(wanted, 1), 1_000_000)
        shares = []
        # one at least: the pinning decision reads it; more when asv's warmup_time asks
        warmups = cell.benchmark.warmup_samples(max(self.settings.warmups, 1), self.settings.sample_target_s)
        for _ in range(warmups):
            for label in SIDES:
                self._sample(label, cell, "time", samples.number, shares)
        shared = self.pair.shared_cpu()
        shared.pin_if_single_threaded(shares)
        try:
            start = len(samples.current)
            for index in range(start, start + rounds):
                if self.out_of_time():
                    return
                self._round(cell, index, samples)
        finally:
            shared.release()

    def values(self, cell: Cell, pairs: int) -> tuple[list[float], list[float]]:
        """``pairs`` interleaved samples of a track cell (the value) or a peakmem cell (bytes,
        each from a fresh process, as asv measures it)."""
        values = {BASELINE: [], CURRENT: []}
        if cell.benchmark.kind in VALUE_KINDS:
            if not self._prepare(cell):
                return [], []
            self._probe(cell, "track")
        for index in range(pairs):
            if self.out_of_time():
                break
            for label in SIDES if index % 2 == 0 else SIDES[::-1]:
                sample = (
                    self._peakmem(label, cell)
                    if cell.benchmark.kind == "peakmem"
                    else self._sample(label, cell, "track")
                )
                values[label].append(sample)
            self.tick()
        return values[BASELINE], values[CURRENT]

    def _peakmem(self, label, cell):
        with self.pair.worker(label, [cell.benchmark.module]) as worker:
            reply = worker.request("prepare", cell.benchmark.timeout + 60, name=cell.benchmark.name, index=cell.index)
            if "skip" in reply:
                raise _BenchmarkFailed(label, reply["skip"], skipped=True)
            if "ok" in reply:
                reply = worker.request("peakmem", cell.benchmark.timeout + 60)
            if "error" in reply:
                raise _BenchmarkFailed(label, reply["error"])
            return float(reply["bytes"])


class _BenchmarkFailed(Exception):
    """A benchmark raised on one side (``skipped``: its setup raised NotImplementedError)."""

    def __init__(self, label, error, skipped=False):
        super().__init__(error)
        self.label, self.error, self.skipped = label, error, skipped


def _range_interval(baseline: Sequence[float], current: Sequence[float]) -> Interval | None:
    if not baseline or min(baseline) <= 0:
        return None
    ratios = [after / before for before, after in zip(baseline, current, strict=True)]
    return Interval(
        statistics.median(current) / statistics.median(baseline), min(ratios), max(ratios), "range of pairs"
    )


BUDGET_NOTE = "the time budget ran out before it was decided"
BUDGET_COUNT = "the time budget ran out before its instructions were counted"


def _leaning(verdict: CellVerdict, settings: GateSettings) -> str | None:
    """``slower`` or ``improvement`` for a time cell still undecided after ``max_rounds``
    whose median ratio lies beyond the tolerance (its interval reaching back across it),
    else None. Such a cell is more likely changed than not, but one noisy stretch of the
    machine can leave a real slow-down undecided this way; a fresh pair settles it."""
    if verdict.kind != "time" or verdict.status != "undecided" or verdict.note or verdict.ratio is None:
        return None
    if len(verdict.current) < settings.max_rounds:
        return None
    if verdict.ratio.median > verdict.tolerance:
        return "slower"
    if verdict.ratio.median < 1 / verdict.tolerance:
        return "improvement"
    return None


def _confirm(cells, verdicts, pair, config, settings, control, deadline, progress, say) -> None:
    """Measure the ``slower`` and ``improvement`` cells of ``verdicts`` again with fresh
    workers, in place, and the cells left undecided after ``max_rounds`` whose median lies
    beyond the tolerance (``_leaning``).

    A slower cell becomes a ``regression`` when the second measurement is slower too, or
    when it is undecided or faster (a contradiction) and a third one is slower;
    ``unconfirmed`` otherwise. An improvement stays one only when the second measurement
    is faster too; one the second finds slower (a contradiction) is a ``regression`` when a
    third is slower too; otherwise it is an ``unconfirmed-improvement``, kept out of the
    summary's sections. A leaning cell gets
    no third measurement: it becomes a ``regression`` (an ``improvement``) only when the
    second measurement is decisive on its own, and stays ``undecided`` otherwise, with
    both medians in its note. Cells the budget leaves unconfirmed become ``undecided``,
    named as such."""
    leaning = {cell.label: _leaning(verdicts[cell.label], settings) for cell in cells}
    slower = [cell for cell in cells if verdicts[cell.label].status in ("slower", "improvement") or leaning[cell.label]]
    for attempt in (2, 3):
        if not slower:
            return
        if deadline is not None and time.monotonic() > deadline:
            for cell in slower:
                first = verdicts[cell.label]
                verdicts[cell.label] = replace(
                    first,
                    status="undecided",
                    note=f"{leaning[cell.label] or first.status} once; {BUDGET_NOTE} by a second measurement",
                )
            return
        say(
            f"{len(slower)} cell(s) {'beyond the tolerance' if attempt == 2 else 'inconclusive the second time'}; "
            f"measuring them again with fresh workers"
        )
        pair.start()
        progress.total += settings.min_rounds * len(slower)
        again, _ = _measure(slower, pair, config, settings, control, deadline, progress)
        undecided = []
        for cell in slower:
            first, second = verdicts[cell.label], again[cell.label]  # second: the second measurement, or the third
            measured = {"confirmation": second.ratio} if attempt == 2 else {"decider": second.ratio}
            leaned = leaning[cell.label]
            if second.note == BUDGET_NOTE:
                status = "undecided"
                note = f"{leaned or first.status} once; {BUDGET_NOTE} by a second measurement"
            elif leaned:
                status = {"slower": "regression", "improvement": "improvement"}[leaned]
                if second.status != leaned:
                    status = "undecided"
                note = (
                    f"leaned {leaned} after {len(first.current)} rounds (median ratio {first.ratio.median:.3f}); "
                    f"a fresh pair found it {second.status}"
                    + (f" ({second.ratio.median:.3f})" if second.ratio is not None else "")
                )
            elif attempt == 2 and (first.status, second.status) in CONTRADICTED:
                undecided.append(cell)
                status, note = first.status, ""
            elif first.status == "improvement":
                if attempt == 3 and second.status == "slower":  # the third sided with the second: slower
                    status, note = "regression", ""
                else:
                    status, note = ("improvement" if second.status == "improvement" else "unconfirmed-improvement"), ""
            elif attempt == 2 and second.status == "undecided":
                undecided.append(cell)
                status, note = first.status, ""
            else:
                status, note = ("regression" if second.status == "slower" else "unconfirmed"), ""
            verdicts[cell.label] = replace(first, status=status, note=note, **measured)
        slower = undecided


def _settle_by_instructions(cells, verdicts, pair, settings, other_cpus, deadline, say) -> dict:
    """Let instructions retired settle, in place, the cells wall time cannot be trusted
    with (:func:`bootmark.gate.instructions.wanted`); return the receipt's ``runner``.
    The budget caps the counting too: a cell the budget left undecided is not counted, and
    none is once the budget is spent."""
    busy = other_cpus is not None and other_cpus >= BUSY_CPUS
    asked = [
        cell
        for cell in cells
        if instructions.wanted(verdicts[cell.label], settings.instructions, busy)
        and BUDGET_NOTE not in verdicts[cell.label].note
    ]
    tool = instructions.counter() if asked else None
    runner = {"other_cpus": other_cpus, "busy": busy, "instructions": settings.instructions, "counter": tool}
    if not asked:
        return runner
    load = f"other processes used {other_cpus:.2f} CPUs while the cells were measured" if busy else "a quiet runner"
    if tool is None:
        say(f"{len(asked)} cell(s) wall time cannot settle ({load}); install valgrind to let instructions decide")
        return runner
    say(f"{len(asked)} cell(s) wall time cannot settle ({load}): counting their instructions under valgrind")
    pair.close()  # no timing runs beside the counting, and none is disturbed by it
    for cell in asked:
        verdict = verdicts[cell.label]
        if deadline is not None and time.monotonic() > deadline:
            verdicts[cell.label] = replace(verdict, note=(verdict.note + "; " if verdict.note else "") + BUDGET_COUNT)
            continue
        starters = {
            label: (lambda wrapper, label=label, module=cell.benchmark.module: pair.worker(label, [module], wrapper))
            for label in SIDES
        }
        why = load if verdict.status != "undecided" else f"wall time left it undecided; {load}"
        try:
            count = instructions.count_cell(starters, cell, verdict.number, tool)
        except WorkerFailure as failure:
            verdicts[cell.label] = replace(
                verdict, note=(verdict.note + "; " if verdict.note else "") + f"instructions not counted: {failure}"
            )
            continue
        verdicts[cell.label] = instructions.decide(verdict, count, why)
    return runner


def _block_interval(samples: _Samples) -> Interval:
    ratio = timing.median_ratio(samples.current, samples.baseline)
    return Interval(ratio["median"], ratio["ci_low"], ratio["ci_high"], "block bootstrap 95%")


def _measure(
    cells: Sequence[Cell],
    pair: _Pair,
    config: GateConfig,
    settings: GateSettings,
    control: dict[str, list[float]],
    deadline: float | None,
    progress,
) -> tuple[dict[str, CellVerdict], bool]:
    """One measurement of ``cells``: a verdict per cell (status ``slower`` not yet
    confirmed) and whether the budget stopped rounds from being added."""
    measurement = _Measurement(pair, settings, control, lambda: progress.update(1), deadline)
    samples: dict[str, _Samples] = {}
    values: dict[str, tuple[list[float], list[float]]] = {}
    budget_spent = False

    def guarded(cell, action):
        try:
            action()
        except _BenchmarkFailed as failure:
            if failure.skipped:
                measurement.failed[cell.label] = ("skipped", failure.error)
            elif failure.label == CURRENT:
                measurement.failed[cell.label] = ("broken", failure.error)
            else:
                measurement.failed[cell.label] = ("new", "fails on the baseline: " + last_line(failure.error))
        except WorkerFailure as failure:  # a crash or a hang: the worker is gone, start afresh
            measurement.failed[cell.label] = ("broken", str(failure))
            pair.start()

    for cell in cells:
        progress.set_postfix_str(cell.label[-40:], refresh=False)
        if measurement.out_of_time():
            budget_spent = True
            break
        if cell.benchmark.kind == "time":
            samples[cell.label] = _Samples()
            guarded(cell, lambda cell=cell: measurement.time_rounds(cell, samples[cell.label], settings.min_rounds))
        else:
            pairs = settings.peakmem_pairs if cell.benchmark.kind == "peakmem" else settings.track_pairs

            def sample_values(cell=cell, pairs=pairs):
                values[cell.label] = measurement.values(cell, pairs)

            guarded(cell, sample_values)

    def undecided():
        return [
            cell
            for cell in cells
            if cell.benchmark.kind == "time"
            and cell.label not in measurement.failed
            and len(samples.get(cell.label, _Samples()).current) >= MIN_ROUNDS
            and len(samples[cell.label].current) < settings.max_rounds
            and _status_of(_block_interval(samples[cell.label]), config.tolerance_for(cell.benchmark.name))
            == "undecided"
        ]

    pending = [] if budget_spent else undecided()
    while pending:
        if measurement.out_of_time():
            budget_spent = True
            break
        progress.total += len(pending) * settings.batch
        for cell in pending:
            rounds = min(settings.batch, settings.max_rounds - len(samples[cell.label].current))
            guarded(cell, lambda cell=cell, rounds=rounds: measurement.time_rounds(cell, samples[cell.label], rounds))
        pending = undecided()

    verdicts = {}
    for cell in cells:
        tolerance = config.tolerance_for(cell.benchmark.name)
        unit = {"time": "s", "peakmem": "bytes"}.get(cell.benchmark.kind, cell.benchmark.unit or "value")
        common = {
            "label": cell.label,
            "kind": cell.benchmark.kind,
            "tolerance": tolerance,
            "unit": unit,
            "pretty_name": cell.benchmark.pretty_name,
        }
        if cell.label in measurement.failed:
            status, note = measurement.failed[cell.label]
            verdicts[cell.label] = CellVerdict(status=status, note=note, **common)
        elif len((samples.get(cell.label) or _Samples()).current or values.get(cell.label, ((), ()))[1]) < (
            MIN_ROUNDS if cell.benchmark.kind == "time" else 1
        ):
            budget_spent = True
            verdicts[cell.label] = CellVerdict(status="undecided", note=BUDGET_NOTE, **common)
        elif cell.benchmark.kind == "time":
            taken = samples[cell.label]
            interval = _block_interval(taken)
            verdicts[cell.label] = CellVerdict(
                status=_status_of(interval, tolerance),
                baseline=tuple(taken.baseline),
                current=tuple(taken.current),
                ratio=interval,
                number=taken.number,
                **common,
            )
        else:
            before, after = values[cell.label]
            interval = _range_interval(before, after)
            verdicts[cell.label] = CellVerdict(
                status=_status_of(interval, tolerance) if interval else "incomparable",
                baseline=tuple(before),
                current=tuple(after),
                ratio=interval,
                note="" if interval else "the baseline's value is not positive, so no ratio can be formed",
                **common,
            )
    return verdicts, budget_spent


def no_cells_message(suite: Suite, config: GateConfig, patterns: Sequence[str], verb: str) -> str:
    """Why no cell is selected: the folder, the patterns, what counts as a benchmark, the
    modules that failed to import, and how to name another folder.

    Parameters
    ----------
    suite : Suite
        What the discovery worker found.
    config : GateConfig
    patterns : sequence of str
        The ``--bench`` patterns.
    verb : str
        ``gate`` or ``record``, as the message says it.

    Returns
    -------
    str
    """
    failed = suite.import_errors.items()
    imports = "".join(f"; {module} fails to import: {error_line(error)}" for module, error in failed)
    return (
        f"no benchmark to {verb} in {config.benchmark_dir}"
        + (f" matching {', '.join(patterns)}" if patterns else "")
        + {
            "asv": " (asv names: time_*, peakmem_*, track_*, mem_* functions and methods",
            "pyperf": " (pyperf scripts: the bench_func, bench_time_func, bench_async_func and timeit calls of their "
            "pyperf.Runner",
        }.get(config.framework, " (pytest tests that use the benchmark fixture or carry @pytest.mark.benchmark")
        + f"){imports} {folder_hint(config)}"
    )


def folder_hint(config: GateConfig) -> str:
    """Where the suite was read from and how to name another folder, for an error message.

    Parameters
    ----------
    config : GateConfig

    Returns
    -------
    str
        A parenthesised sentence.
    """
    return (
        f"(the suite was read from {config.benchmark_dir}, chosen by {config.found_by}; if that is not the benchmark "
        "folder, name it with --benchmarks DIR or [tool.bootmark.gate] benchmarks)"
    )


def say_pytest_output(suite: Suite, say: Callable[[str], None]) -> None:
    """Say, whole, what pytest printed when it stopped before running any test (the
    one-line error keeps only its last line).

    Parameters
    ----------
    suite : Suite
        What the discovery worker found.
    say : callable
        Prints one message on stderr.
    """
    stopped = suite.import_errors.get("(pytest)", "")
    if "pytest stopped before running any test" in stopped:
        output = stopped.rsplit("\npytest stopped before running any test", 1)[0].strip()
        say(f"pytest's output:\n{output}" if output else "pytest printed nothing")


def error_line(error: str) -> str:
    """An error's own line, without pytest's ``E`` margin.

    Parameters
    ----------
    error : str
        A traceback, or pytest's failure report.

    Returns
    -------
    str
        Its last line.

    Examples
    --------
    >>> error_line("Traceback ...\\nE   ValueError: no")
    'ValueError: no'
    """
    return re.sub(r"^E\s+", "", last_line(error))


def discovery_problems(
    suite: Suite, config: GateConfig, patterns: Sequence[str], broken_before: Collection[str] = ()
) -> tuple[list, list]:
    """What the discovery worker found wrong: a module that fails to import stops the gate
    only when the whole suite is gated and the baseline imports it (with ``--bench``, it
    only warns: its benchmarks cannot have been selected); one that fails on the baseline
    too was broken before this change, and only warns.

    Parameters
    ----------
    suite : Suite
        What the discovery worker found.
    config : GateConfig
    patterns : sequence of str
        The ``--bench`` patterns (empty: the whole suite).
    broken_before : collection of str, optional
        The modules of ``suite.import_errors`` that fail to import on the baseline too.

    Returns
    -------
    (list of str, list of str)
        Problems (the run cannot be trusted) and warnings.
    """
    problems, warnings = [], []
    for module, error in suite.import_errors.items():
        if module in broken_before:
            warnings.append(
                f"benchmark module {module} fails to import on both sides, so it was broken before this change "
                f"and is not gated: {error_line(error)}"
            )
            continue
        message = f"benchmark module {module} fails to import on the current side: {error_line(error)} "
        (warnings if patterns else problems).append(message + folder_hint(config))
    for item in suite.ignored:
        warnings.append(f"{item['benchmark']} is not gated: {item['why']}")
    return problems, warnings


def _broken_before(discovery: _Pair, found: Suite) -> set[str]:
    """The modules that fail to import on the current side and on the baseline too (a
    baseline worker loads only them): broken before this change, not by it."""
    failing = [module for module in found.import_errors if not module.startswith("(")]  # "(pytest)": no module
    if not failing:
        return set()
    try:
        with discovery.worker(BASELINE, failing) as baseline:
            return set(failing) & set(baseline.suite.import_errors)
    except WorkerFailure:  # the baseline cannot even list them: nothing is cleared
        return set()


def _side_problems(suites, sides, config, cells, patterns) -> tuple[list, list]:
    """What the pair's workers found wrong: a selected module that fails to import on the
    current side, an unsupported feature in a benchmark not excluded (when the whole suite
    is gated, or in a gated benchmark), a package imported from elsewhere (refused)."""
    problems, warnings = [], []
    gated = {cell.benchmark.name for cell in cells}
    for module, error in suites[CURRENT].import_errors.items():
        problems.append(f"benchmark module {module} fails to import on the current side: {error_line(error)}")
    for item in suites[CURRENT].unsupported:
        if not config.excluded(item["benchmark"]) and (not patterns or item["benchmark"] in gated):
            problems.append(
                f"{item['benchmark']} uses {'an' if config.framework == 'asv' else 'a'} {config.framework} feature "
                f"bootmark gate does not run ({item['feature']}: "
                f'{item["why"]}); exclude it with [tool.bootmark.gate] exclude = ["{item["benchmark"]}"]'
            )
    for label in SIDES:
        suite, side = suites[label], sides[label]
        if suite.package_file is not None:
            where = suite.package_file
            if not where.startswith(side.origin.rstrip("/") + "/"):
                raise GateError(
                    f"the {label} side imported {config.package} from {where}, not from its own code in "
                    f'{side.origin}; set [tool.bootmark.gate] paths (import roots such as "src") or an '
                    "install command"
                )
        elif config.package:
            warnings.append(
                f"the {label} side could not import {config.package!r} ({suite.package_error}), so where its "
                "code came from is unchecked; set [tool.bootmark.gate] package to the import name"
            )
    return problems, warnings


def default_baseline(root: str) -> tuple[str, str]:
    """The baseline ``--baseline auto`` means, and why: the commit of the workspace's
    newest committed quick bench receipt when it is an ancestor of HEAD, else ``HEAD~1``.

    Parameters
    ----------
    root : str
        The project's git checkout.

    Returns
    -------
    (str, str)
        The revision and a phrase saying why it was chosen.
    """

    def git(*arguments):
        return subprocess.run(["git", *arguments], cwd=root, capture_output=True, text=True, check=False)

    try:
        path = receipts.newest_receipt(
            workspace.directory_for("bench"), "bench", lambda receipt: receipt["body"]["profile"] == "quick"
        )
    except (workspace.WorkspaceError, receipts.ReceiptError, OSError):
        path = None
    if path is not None and git("ls-files", "--error-unmatch", path).returncode == 0:
        source = receipts.load_receipt(path)["provenance"]["source"]
        sha = source.get("git_sha")
        if sha and source.get("dirty") is False and git("merge-base", "--is-ancestor", sha, "HEAD").returncode == 0:
            return sha, f"the commit of the newest committed quick receipt, {os.path.basename(path)}"
    if path is not None:
        return "HEAD~1", "the parent commit: no committed quick bench receipt names an ancestor of HEAD"
    return "HEAD~1", "the parent commit (--baseline auto); in a pull request, pass --baseline origin/main"


def run_gate(
    config: GateConfig,
    baseline: str,
    patterns: Sequence[str] = (),
    settings: GateSettings | None = None,
    say: Callable[[str], None] | None = None,
    show_progress: bool = True,
    own_files: str | None = None,
) -> GateVerdict:
    """Gate the working tree of ``config.root`` against commit ``baseline``.

    Parameters
    ----------
    config : GateConfig
        The project's gate configuration (:func:`bootmark.gate.config.load_config`).
    baseline : str
        A git revision: the commit to compare against.
    patterns : sequence of str, optional
        Regular expressions; only cells whose label matches one are gated (asv's
        ``--bench``).
    settings : GateSettings, optional
        Rounds, budget and control settings.
    say : callable, optional
        Where one-line progress messages go (default: stderr).
    show_progress : bool, optional
        Show a progress bar on stderr.
    own_files : str, optional
        The folder of the checkout (relative) where the gate's receipts go; new files
        there do not make the working tree count as changed.

    Returns
    -------
    GateVerdict
        ``exit_code`` is the CLI's.

    Raises
    ------
    GateError
        Nothing can be judged: no baseline (or the unchanged current commit), a suite that
        does not import, no cells.
    """
    settings = settings or GateSettings()
    say = say or (lambda message: print(f"bootmark gate: {message}", file=sys.stderr))
    started = time.monotonic()
    deadline = started + settings.budget_s if settings.budget_s is not None else None
    with ExitStack() as stack:
        try:
            baseline_side, current_side = prepare_sides(config, baseline, stack, say, own_files)
        except (SideError, SuiteError) as error:
            raise GateError(str(error)) from None
        sides = {BASELINE: baseline_side, CURRENT: current_side}
        pycache = stack.enter_context(tempfile.TemporaryDirectory(prefix="bootmark-gate-pycache-"))
        say(f"benchmarks: {config.benchmark_dir} ({config.framework} suite; {config.found_by})")
        discovery = _Pair(sides, config, None, pycache)
        try:  # the suite, once: what --bench can select from, else the whole of it
            found = list_suite(lambda select: discovery.worker(CURRENT, select), config, patterns, say)
        except WorkerFailure as error:
            raise GateError(f"the benchmark suite cannot be loaded: {error}") from None
        problems, warnings = discovery_problems(found, config, patterns, _broken_before(discovery, found))
        cells = select_cells(found.benchmarks, patterns, config)
        if not cells:
            say_pytest_output(found, say)
            raise GateError(no_cells_message(found, config, patterns, "gate"))
        pair = _Pair(sides, config, sorted({cell.benchmark.module for cell in cells}), pycache)
        stack.callback(pair.close)
        try:
            suites = pair.start()
        except WorkerFailure as error:
            raise GateError(f"the benchmark suite cannot be loaded: {error}") from None
        more_problems, more_warnings = _side_problems(suites, sides, config, cells, patterns)
        problems += more_problems
        warnings += more_warnings
        if current_side.dirty:
            warnings.append("the working tree has uncommitted changes: the current side is the tree as it is")
        say(
            f"{len(cells)} cells; baseline {baseline_side.revision[:10]} ({baseline_side.how}), current "
            f"{(current_side.revision or 'working tree')[:10]}{' (dirty)' if current_side.dirty else ''}"
        )
        control = {BASELINE: [], CURRENT: []}
        steps = sum(
            settings.min_rounds
            if cell.benchmark.kind == "time"
            else settings.peakmem_pairs
            if cell.benchmark.kind == "peakmem"
            else settings.track_pairs
            for cell in cells
        )
        load = OtherLoad()
        with tqdm(total=steps, desc="gate", unit="round", file=sys.stderr, disable=not show_progress) as progress:
            verdicts, budget_spent = _measure(cells, pair, config, settings, control, deadline, progress)
            other_cpus = load.other_cpus()
            _confirm(cells, verdicts, pair, config, settings, control, deadline, progress, say)
        runner = _settle_by_instructions(cells, verdicts, pair, settings, other_cpus, deadline, say)
        budget_spent = budget_spent or any(BUDGET_NOTE in verdicts[cell.label].note for cell in cells)
        control_interval = None
        if len(control[CURRENT]) >= 3:
            ratio = timing.median_ratio(control[CURRENT], control[BASELINE])
            control_interval = Interval(ratio["median"], ratio["ci_low"], ratio["ci_high"], "block bootstrap 95%")
        verdict = GateVerdict(
            baseline=baseline_side,
            current=current_side,
            cells=tuple(verdicts[cell.label] for cell in cells),
            control=control_interval,
            problems=tuple(problems),
            warnings=tuple(warnings),
            settings=settings,
            wall_seconds=time.monotonic() - started,
            budget_spent=budget_spent,
            project=ProjectRecord.of(config, current_side, suites[CURRENT]),
            runner=runner,
        )
        if verdict.control_moved:
            cells_now = tuple(
                replace(cell, status="incomparable") if cell.status == "regression" else cell for cell in verdict.cells
            )
            verdict = replace(verdict, cells=cells_now)
        broken = [cell.label for cell in verdict.cells if cell.status == "broken"]
        if broken:
            verdict = replace(
                verdict,
                problems=(
                    *verdict.problems,
                    f"{len(broken)} benchmark cell(s) fail on the current side: {', '.join(broken)}",
                ),
            )
        return verdict
