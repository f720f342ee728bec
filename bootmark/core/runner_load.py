"""How busy the machine is with work that is not ours: the CPUs that other processes (and,
on a virtual machine, the hypervisor's other guests) took while we measured.

Why: a hosted CI runner shares its cores. Wall time measured beside a neighbour that burns
a core moves by tens of percent in stretches, and two fresh pairs of workers can both be
caught by it; the gate then lets a second measure, one that contention does not move
(instructions retired, :mod:`bootmark.gate.instructions`), settle the cells wall time flagged.
This module tells when that is: the machine's busy time from ``/proc/stat`` (user, nice,
system, interrupts and the time the hypervisor stole) minus the CPU time of this process and
every process under it, over the same stretch of wall time.

Linux only; elsewhere :meth:`OtherLoad.other_cpus` is None (unknown, never "busy").

May import: the standard library only.
"""

from __future__ import annotations

import os
import time

__all__ = ["BUSY_CPUS", "OtherLoad"]

# Other processes' CPUs, averaged over a measurement, from which the runner counts as busy:
# a quarter of a core is far above a quiet machine's background (a few hundredths) and far
# below one neighbour burning a core (about 1.0).
BUSY_CPUS = 0.25

# /proc/stat's cpu line: user nice system idle iowait irq softirq steal guest guest_nice.
# Busy is every field but idle and iowait; guest time is already inside user.
_BUSY_FIELDS = (0, 1, 2, 5, 6, 7)


def _machine_ticks() -> int:
    with open("/proc/stat", encoding="ascii") as stat:
        fields = [int(value) for value in stat.readline().split()[1:]]
    return sum(fields[index] for index in _BUSY_FIELDS if index < len(fields))


def _process_table() -> dict[int, tuple[int, int]]:
    """Every process's (parent, CPU ticks of its own and of its reaped children)."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stream:
                text = stream.read()
        except OSError:  # gone between the listing and the read
            continue
        # after the command name in parentheses (which may hold spaces): state ppid ...;
        # utime stime cutime cstime are fields 14 to 17 of the whole line
        after = text.rsplit(")", 1)[1].split()
        table[int(entry)] = (int(after[1]), sum(int(value) for value in after[11:15]))
    return table


def _own_ticks(root: int) -> int:
    """CPU ticks of ``root`` and every live process under it, each with its reaped children
    (so a worker that ended between two readings still counts, through its parent)."""
    table = _process_table()
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in table.items():
        children.setdefault(parent, []).append(pid)
    total, pending = 0, [root]
    while pending:
        pid = pending.pop()
        if pid in table:
            total += table[pid][1]
        pending.extend(children.get(pid, ()))
    return total


class OtherLoad:
    """The CPUs other processes used from the moment this object was made.

    Examples
    --------
    >>> load = OtherLoad()
    >>> used = load.other_cpus()
    >>> used is None or used >= 0.0
    True
    """

    def __init__(self):
        self.tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        self.available = os.path.exists("/proc/stat") and os.path.exists(f"/proc/{os.getpid()}/stat")
        self.started = time.monotonic()
        self.machine = _machine_ticks() if self.available else 0
        self.own = _own_ticks(os.getpid()) if self.available else 0

    def other_cpus(self) -> float | None:
        """Other processes' CPU time since this object was made, per second of wall time.

        Returns
        -------
        float or None
            In CPUs (1.0: one core kept busy the whole time); None where ``/proc`` is
            missing or no time has passed.
        """
        elapsed = time.monotonic() - self.started
        if not self.available or elapsed <= 0:
            return None
        machine = _machine_ticks() - self.machine
        own = _own_ticks(os.getpid()) - self.own
        return max(machine - own, 0) / self.tick / elapsed
