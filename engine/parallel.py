"""Run a nogil Numba task function over replicate ranges on Python threads.

Numba's ``parallel=True`` costs seconds of compilation on first use, even around a
one-line loop body; plain threads running ``nogil`` kernels cost nothing to compile.
The replicates are cut into chunks that the threads take in turn from a shared counter,
so a thread that starts late (a busy virtual machine can delay it by milliseconds)
leaves its share to the others instead of holding up the call. Each thread allocates
its scratch once; a replicate's result depends only on (seed, replicate), never on the
thread count, the chunking or which thread ran it.

The thread count is ``numba.get_num_threads()`` (set it with ``numba.set_num_threads``).
Callers pass a rough estimate of the single-thread time; requests estimated below
``PARALLEL_MIN_NANOSECONDS`` run on the calling thread alone, because starting and
joining a Python thread costs 0.1 to 0.5 ms on the virtual 2-core machines measured
here. The estimate only picks the schedule.
"""

import itertools
import threading

import numba

PARALLEL_MIN_NANOSECONDS = 1_500_000  # estimated single-thread work below which one thread is faster
CHUNK_NANOSECONDS = 250_000  # estimated work per chunk: dispatch costs ~10 us, so chunks stay far larger
CHUNKS_PER_THREAD = 8  # at most; enough for a late thread's share to be taken over


def chunk_bounds(replicates, nanoseconds, threads):
    """Boundaries [0, ..., replicates] of the chunks the threads take in turn."""
    count = max(1, min(threads * CHUNKS_PER_THREAD, int(nanoseconds // CHUNK_NANOSECONDS), replicates))
    return [replicates * k // count for k in range(count + 1)]


def run_replicates(task, replicates, nanoseconds, workspace, *arguments):
    """Call ``task(begin, end, scratch, *arguments)`` over chunks of [0, replicates),
    on up to ``numba.get_num_threads()`` threads, each with its own ``workspace()``;
    ``nanoseconds`` is the caller's estimate of the whole request on one thread."""
    threads = min(numba.get_num_threads(), replicates) if nanoseconds >= PARALLEL_MIN_NANOSECONDS else 1
    if threads <= 1:
        task(0, replicates, workspace(), *arguments)
        return
    bounds = chunk_bounds(replicates, nanoseconds, threads)
    next_chunk = itertools.count()  # next() on it is atomic under the GIL
    failures = []

    def run():
        try:
            scratch = workspace()
            for k in iter(lambda: next(next_chunk), None):
                if k >= len(bounds) - 1 or failures:
                    return
                task(bounds[k], bounds[k + 1], scratch, *arguments)
        except BaseException as error:  # re-raised in the caller below
            failures.append(error)

    workers = [threading.Thread(target=run) for _ in range(1, min(threads, len(bounds) - 1))]
    for worker in workers:
        worker.start()
    run()
    for worker in workers:
        worker.join()
    if failures:
        raise failures[0]
