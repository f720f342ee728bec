"""Run a nogil Numba task function over replicate ranges on Python threads.

Numba's ``parallel=True`` costs seconds of compilation on first use, even around a
one-line loop body; plain threads running ``nogil`` kernels cost nothing to compile.
Each thread gets one contiguous range of replicates and allocates its own scratch once,
so results depend only on (seed, replicate), never on the thread count or split.
The thread count is ``numba.get_num_threads()`` (set it with ``numba.set_num_threads``);
requests smaller than ``PARALLEL_MIN_WORK`` run on the calling thread alone, where
starting threads would cost more than it saves.
"""

import threading

import numba

PARALLEL_MIN_WORK = 100_000  # replicates x observations below which one thread is faster


def run_replicates(task, replicates, work, *arguments):
    """Call ``task(begin, end, *arguments)`` over [0, replicates) split across threads."""
    threads = min(numba.get_num_threads(), replicates) if work >= PARALLEL_MIN_WORK else 1
    if threads <= 1:
        task(0, replicates, *arguments)
        return
    bounds = [replicates * k // threads for k in range(threads + 1)]
    failures = []

    def run(begin, end):
        try:
            task(begin, end, *arguments)
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
