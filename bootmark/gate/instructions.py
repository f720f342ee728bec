"""Instructions retired by a cell's calls, counted under valgrind's cachegrind: the gate's
second measure, the one a busy runner's contention does not move.

Why: beside a neighbour that burns one of two cores, wall time moves by tens of percent in
stretches, and now and then two fresh pairs of workers are both caught by it (1 null run in
30 raised a false alarm that way, ``receipts/gatecheck``). The instructions a deterministic
loop retires are the same however busy the machine is.

How: a cell's instructions per call come from three runs of a fresh worker under
cachegrind. Each loads the suite, sets the cell up and warms it with one call, then takes
one, two or three samples of ``number`` calls. Everything else is the same in the three
runs (the interpreter, the hash seed, thread pools held to one thread, the path through the
suite's import and the cell's set-up), so successive differences are one sample's
instructions; the two must agree within :data:`REPEATABLE`, or the counts decide nothing.
Both sides are counted so, with the same seed.

When the gate uses it (``--instructions``): with ``auto`` (the default), a time cell that
wall time left undecided, and on a busy runner (other processes took
:data:`bootmark.core.runner_load.BUSY_CPUS` or more while the cells were first measured)
also every cell wall time flagged at least once, slower or faster, whether its
confirmation kept the flag or cleared it; with ``always``, every such cell, quiet or busy;
with ``never``, none. Where it is used, the instruction ratio decides
the cell against the same tolerance, and the receipt says so (``decided_by``).

What it cannot see: a change that costs time without retiring more instructions (more
cache misses, a sleep, waiting on I/O or a lock). That is why, on a quiet runner, wall time
keeps the last word on the cells it decided. Counting with the CPU's own counter
(``perf_event_open``) would avoid valgrind's slowdown; it is not built, because the machine
bootmark is developed on exposes no performance counters to its guests, so such code could
not be tested here.

May import: bootmark.core, bootmark.gate.verdicts, bootmark.gate.suite.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from bootmark.gate.suite import Cell, SuiteWorker, WorkerFailure
from bootmark.gate.verdicts import CellVerdict

__all__ = ["SLOWDOWN", "Count", "counter", "count_cell", "decide", "wanted"]

SLOWDOWN = 80  # how many times slower a worker runs under cachegrind, for its time limits
# Wall time's verdicts a busy runner puts in doubt: every cell it flagged at least once,
# whether the confirmation kept the flag or cleared it (a cleared 1.10x slow-down was a miss).
CONTESTED = ("regression", "improvement", "unconfirmed", "unconfirmed-improvement")
# A thread pool that spins while it waits (OpenBLAS's, numpy's, Numba's) retires a different
# number of instructions every run: tens of millions, more than a sample's calls. One thread.
QUIET_THREADS = ("OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1", "MKL_NUM_THREADS=1", "NUMBA_NUM_THREADS=1")
# Two successive samples' instructions must agree this closely, or the counts are not
# repeatable (a thread of the benchmark's own spinning, say) and do not decide the cell.
REPEATABLE = 0.005


def counter() -> str | None:
    """The instruction counter this machine has: valgrind's version, or None without it.

    Returns
    -------
    str or None
        ``valgrind-3.19.0``, say.
    """
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    try:
        found = subprocess.run([valgrind, "--version"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return found.stdout.strip() or None if found.returncode == 0 else None


@dataclass(frozen=True)
class Count:
    """Both sides' instructions per call of one cell.

    Attributes
    ----------
    baseline, current : float
        Instructions retired per call (every thread, the interpreter and C code alike).
    calls : int
        Calls in the difference the counts come from.
    tool : str
        What counted them (``valgrind-3.19.0 cachegrind``).
    """

    baseline: float
    current: float
    calls: int
    tool: str

    @property
    def ratio(self) -> float:
        """current / baseline."""
        return self.current / self.baseline

    def to_json(self) -> dict:
        """The receipt's form (``cells[i].instructions``)."""
        return {
            "baseline": self.baseline,
            "current": self.current,
            "ratio": self.ratio,
            "calls": self.calls,
            "tool": self.tool,
        }


def wanted(verdict: CellVerdict, mode: str, busy: bool) -> bool:
    """Whether instructions should settle ``verdict`` (see the module's docstring).

    Parameters
    ----------
    verdict : CellVerdict
        Wall time's verdict, after its confirmation.
    mode : str
        One of :data:`bootmark.gate.verdicts.INSTRUCTION_MODES`.
    busy : bool
        Whether the runner was busy while the cells were first measured.

    Returns
    -------
    bool

    Examples
    --------
    >>> from bootmark.gate.verdicts import CellVerdict
    >>> regression = CellVerdict("b", "time", "regression", 1.05, "s", number=10)
    >>> wanted(regression, "auto", busy=False), wanted(regression, "auto", busy=True)
    (False, True)
    >>> wanted(replace(regression, status="undecided"), "auto", busy=False)
    True
    """
    if mode == "never" or verdict.kind != "time" or not verdict.number:
        return False
    if verdict.status == "undecided":
        return True
    return verdict.status in CONTESTED and (busy or mode == "always")


def _summary(path: str) -> int:
    """The ``summary:`` line of a cachegrind output file: its instructions (Ir)."""
    with open(path, encoding="utf-8", errors="replace") as stream:
        for line in stream:
            if line.startswith("summary:"):
                return int(line.split()[1])
    raise WorkerFailure(f"cachegrind wrote no summary into {path}")


def _usable(reply: Mapping) -> None:
    if "error" in reply or "skip" in reply:
        said = (reply.get("error") or reply.get("skip") or "").strip().splitlines()
        raise WorkerFailure(f"under valgrind the cell {'failed' if 'error' in reply else 'was skipped'}: {said[-1:]}")


def _instructions(start: Callable[[list[str]], SuiteWorker], cell: Cell, number: int, samples: int) -> int:
    """Instructions of one worker run under cachegrind: load, prepare ``cell``, one warm
    call, then ``samples`` samples of ``number`` calls."""
    with tempfile.TemporaryDirectory(prefix="bootmark-cachegrind-") as scratch:
        out = os.path.join(scratch, "cachegrind.out")
        wrapper = [
            "env",
            *QUIET_THREADS,
            shutil.which("valgrind") or "valgrind",
            "--tool=cachegrind",
            "--cache-sim=no",
            f"--cachegrind-out-file={out}",
            f"--log-file={os.path.join(scratch, 'valgrind.log')}",
        ]
        limit = (cell.benchmark.timeout + 60) * SLOWDOWN
        with start(wrapper) as worker:
            _usable(worker.request("prepare", limit, name=cell.benchmark.name, index=cell.index))
            _usable(worker.request("time", limit, number=1))  # the warm call, as wall time's
            for _ in range(samples):
                _usable(worker.request("time", limit * number, number=number))
        return _summary(out)


def count_cell(start: Mapping[str, Callable[[list[str]], SuiteWorker]], cell: Cell, number: int, tool: str) -> Count:
    """Count both sides' instructions per call of ``cell``.

    Parameters
    ----------
    start : Mapping
        ``{"baseline": start, "current": start}``: each starts a fresh worker of its side
        under the wrapper command it is given, loading ``cell``'s module.
    cell : Cell
    number : int
        Calls per sample (wall time's, about 20 ms of them).
    tool : str
        :func:`counter`'s answer, for the record.

    Returns
    -------
    Count

    Raises
    ------
    WorkerFailure
        A worker died, the cell failed under valgrind, or the difference is not positive.
    """
    per_call = {}
    for label, starter in start.items():
        once, twice, thrice = (_instructions(starter, cell, number, samples) for samples in (1, 2, 3))
        second, third = twice - once, thrice - twice  # the second sample's instructions, the third's
        if min(second, third) <= 0 or abs(second - third) > REPEATABLE * max(second, third):
            raise WorkerFailure(
                f"the {label} side's counts are not repeatable (two samples of {number} calls retired {second} and "
                f"{third} instructions), as when a thread spins"
            )
        per_call[label] = (second + third) / 2 / number
    return Count(per_call["baseline"], per_call["current"], number, f"{tool} cachegrind")


def decide(verdict: CellVerdict, count: Count, why: str) -> CellVerdict:
    """``verdict`` settled by the instruction counts against its tolerance.

    Parameters
    ----------
    verdict : CellVerdict
        Wall time's verdict.
    count : Count
    why : str
        Why instructions were asked (the runner's load, or wall time undecided).

    Returns
    -------
    CellVerdict
        ``regression`` above the tolerance, ``improvement`` below its inverse, ``same``
        between; ``decided_by`` is ``instructions``, the note keeps wall time's word.

    Examples
    --------
    >>> from bootmark.gate.verdicts import CellVerdict, Interval
    >>> wall = CellVerdict("b", "time", "regression", 1.05, "s", ratio=Interval(1.08, 1.06, 1.1, "m"), number=5)
    >>> settled = decide(wall, Count(1000.0, 1001.0, 5, "valgrind"), "the runner was busy")
    >>> settled.status, settled.decided_by
    ('same', 'instructions')
    """
    ratio = count.ratio
    status = "regression" if ratio > verdict.tolerance else "improvement" if ratio < 1 / verdict.tolerance else "same"
    wall = f" (median {verdict.ratio.median:.3f})" if verdict.ratio is not None else ""
    note = f"decided by instructions retired, {ratio:.3f}x; wall time said {verdict.status}{wall}; {why}"
    return replace(verdict, status=status, instructions=count.to_json(), note=note)
