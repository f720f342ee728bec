"""Run a nogil Numba task function over replicate ranges on Python threads.

Numba's ``parallel=True`` costs seconds of compilation on first use, even around a
one-line loop body; plain threads running ``nogil`` kernels cost nothing to compile.
Each thread gets one contiguous range of replicates and allocates its own scratch once,
so results depend only on (seed, replicate), never on the thread count or split.
The thread count is ``numba.get_num_threads()`` (set it with ``numba.set_num_threads``).
Callers pass a rough estimate of the single-thread time; requests estimated below
``PARALLEL_MIN_NANOSECONDS`` run on the calling thread alone, because starting and
joining a Python thread costs 0.1 to 0.5 ms on the virtual 2-core machines measured
here. The estimate only picks the schedule, and no result depends on the schedule.
"""

import os
import threading
import time

import numba

PARALLEL_MIN_NANOSECONDS = 1_500_000  # estimated single-thread work below which one thread is faster
# Seconds of sleep added to every kernel dispatch. Only the speed gate's negative control
# (tests/test_gate.py) sets it, to show that a slower engine fails `bootmark gate`.
NEGATIVE_CONTROL_SLEEP = "BOOTMARK_NEGATIVE_CONTROL_SLEEP"


def run_replicates(task, replicates, nanoseconds, workspace, *arguments):
    """Call ``task(begin, end, workspace(), *arguments)`` over [0, replicates) split
    across threads, each with its own work space; ``nanoseconds`` is the caller's
    estimate of the whole request on one thread."""
    if NEGATIVE_CONTROL_SLEEP in os.environ:
        time.sleep(float(os.environ[NEGATIVE_CONTROL_SLEEP]))
    threads = min(numba.get_num_threads(), replicates) if nanoseconds >= PARALLEL_MIN_NANOSECONDS else 1
    if threads <= 1:
        task(0, replicates, workspace(), *arguments)
        return
    bounds = [replicates * k // threads for k in range(threads + 1)]
    failures = []

    def run(begin, end):
        try:
            task(begin, end, workspace(), *arguments)
        except BaseException as error:  # re-raised in the caller below
            failures.append(error)

    workers = [threading.Thread(target=run, args=(bounds[k], bounds[k + 1])) for k in range(1, threads)]
    for worker in workers:
        worker.start()
    run(bounds[0], bounds[1])
    for worker in workers:
        worker.join()
    if failures:
        raise failures[0]
