"""The CPU a pair of measuring processes runs on: one CPU for both sides of a comparison.

Why: on a shared machine one virtual CPU can run a fixed loop tens of percent slower than
another for seconds at a time, and the CPUs' slow stretches do not coincide. A process that
sleeps between requests wakes on the CPU it last ran on, so the baseline worker and the
current worker of ``bootmark gate`` (or of ``bootmark versus``) each keep their own CPU, and
a single-threaded benchmark reads as slower or faster whatever the code did: interleaving
the rounds in time cannot cancel a bias that is in place rather than in time. Pinning both
workers to one CPU puts whatever that CPU is doing on both sides alike.

A multi-threaded sample already spreads over every CPU on both sides, and pinned to one it
would measure something else (its threads taking turns), so a sample is pinned only when
its process used about one CPU while it ran (:func:`single_threaded`). Pinning is Linux's
``sched_setaffinity``, applied to every thread of the process; elsewhere it is a no-op
and :func:`allowed_cpus` is empty.

May import: the standard library only.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

__all__ = ["SINGLE_THREAD_SHARE", "SharedCpu", "allowed_cpus", "single_threaded"]

# CPU seconds per wall second below which a sample ran on one thread: one busy thread reads
# 1.0 (a little less while it waits on memory), two busy threads read 2.0.
SINGLE_THREAD_SHARE = 1.3


def allowed_cpus() -> tuple[int, ...]:
    """The CPUs this process may run on.

    Returns
    -------
    tuple of int
        Sorted CPU numbers; ``()`` where affinity cannot be set (not Linux).

    Examples
    --------
    >>> cpus = allowed_cpus()
    >>> all(isinstance(cpu, int) for cpu in cpus) and list(cpus) == sorted(cpus)
    True
    """
    if not hasattr(os, "sched_getaffinity") or not hasattr(os, "sched_setaffinity"):
        return ()
    return tuple(sorted(os.sched_getaffinity(0)))


def single_threaded(cpu_seconds: float, wall_seconds: float) -> bool:
    """Whether a sample that took ``wall_seconds`` and ``cpu_seconds`` of its process's CPU
    time ran on one thread (``cpu / wall < SINGLE_THREAD_SHARE``).

    Parameters
    ----------
    cpu_seconds : float
        The process's CPU time (user + system, every thread) spent during the sample.
    wall_seconds : float
        The sample's elapsed time; not positive reads as single-threaded (nothing to share).

    Returns
    -------
    bool

    Examples
    --------
    >>> single_threaded(0.010, 0.010), single_threaded(0.019, 0.010)
    (True, False)
    """
    return wall_seconds <= 0 or cpu_seconds / wall_seconds < SINGLE_THREAD_SHARE


def _threads(pid: int) -> list[int]:
    try:
        return [int(task) for task in os.listdir(f"/proc/{pid}/task")]
    except OSError:  # no /proc, or the process is gone: its main thread is all there is
        return [pid]


def _set(pids: Sequence[int], cpus: set[int]) -> None:
    for pid in pids:
        for thread in _threads(pid):
            try:
                os.sched_setaffinity(thread, cpus)
            except (ProcessLookupError, PermissionError):
                # A thread that ended, or a process that died: a dead worker is reported by
                # its next reply, with its stderr, not here.
                continue


class SharedCpu:
    """Pins the processes ``pids`` (every thread of each) to one CPU, and lets them go.

    Parameters
    ----------
    pids : sequence of int
        The measuring processes (both sides of a comparison).
    turn : int
        Chooses the CPU: ``allowed_cpus()[turn % len(allowed_cpus())]``, so a fresh pair
        of workers given the next turn runs on the next CPU.

    Attributes
    ----------
    cpu : int or None
        The CPU chosen; None where affinity cannot be set (then both methods do nothing).

    Examples
    --------
    >>> import os
    >>> shared = SharedCpu([os.getpid()], turn=0)
    >>> shared.pin()
    >>> shared.cpu is None or os.sched_getaffinity(0) == {shared.cpu}
    True
    >>> shared.release()
    >>> shared.cpu is None or os.sched_getaffinity(0) == set(allowed_cpus())
    True
    """

    def __init__(self, pids: Sequence[int], turn: int):
        self.pids = list(pids)
        self.allowed = allowed_cpus()
        self.cpu = self.allowed[turn % len(self.allowed)] if self.allowed else None
        self.pinned = False

    def pin(self) -> None:
        """Put every thread of every process on :attr:`cpu`."""
        if self.cpu is not None:
            _set(self.pids, {self.cpu})
            self.pinned = True

    def pin_if_single_threaded(self, samples: Sequence[tuple[float, float]]) -> bool:
        """:meth:`pin` when every ``(cpu_seconds, wall_seconds)`` sample ran on one thread
        (:func:`single_threaded`); return whether it pinned. No samples: nothing is known,
        nothing is pinned."""
        if samples and all(single_threaded(cpu, wall) for cpu, wall in samples):
            self.pin()
        return self.pinned

    def release(self) -> None:
        """Give every thread (including any started while pinned) all the allowed CPUs back."""
        if self.pinned:
            _set(self.pids, set(self.allowed))
            self.pinned = False
