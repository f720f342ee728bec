"""Run a nogil Numba task function over replicate ranges on a thread team started once.

Numba's ``parallel=True`` costs seconds of compilation on first use, even around a
one-line loop body; plain threads running ``nogil`` kernels cost nothing to compile.
The replicates are cut into chunks that the threads take in turn from a shared counter,
so a thread that starts late (a busy virtual machine can delay it by milliseconds)
leaves its share to the others instead of holding up the call. Each thread allocates
its scratch once per call; a replicate's result depends only on (seed, replicate), never
on the thread count, the chunking or which thread ran it.

The team
--------
The worker threads are the engine's one piece of process state, and this module is the
one place that holds it (``_TEAM``). They are started lazily, by the first request that
runs on more than one thread, and then wait on their own queue for work: handing a
request to a waiting thread costs tens of microseconds where starting and joining a
thread cost 0.1 to 0.5 ms on the virtual 2-core machines measured here. The threads are
daemons (they never hold up the interpreter's exit). After ``os.fork`` the child has
none of its parent's threads, so the child forgets the team and starts its own on its
first parallel request. Concurrent callers share the team; each request carries its own
chunk counter and completion queue, so requests never mix.

The thread count of a request is ``numba.get_num_threads()`` at call time (set it with
``numba.set_num_threads``); the team grows to the largest count asked for. Callers pass
a rough estimate of the single-thread time; requests estimated below
``PARALLEL_MIN_NANOSECONDS`` run on the calling thread alone, because even a waiting
thread's wake-up costs more than they do. The estimate only picks the schedule. Where
the line lies was measured side by side with ``bootmark versus``: the moving block at
n = 200, B = 999 (estimated 0.18 ms) ran 1.34x slower on two threads than on one, the
i.i.d. cell of that size (estimated 0.40 ms) 0.73x, hence 0.25 ms.
"""

import itertools
import os
import queue
import threading

import numba

PARALLEL_MIN_NANOSECONDS = 250_000  # estimated single-thread work below which one thread is faster
CHUNK_NANOSECONDS = 100_000  # estimated work per chunk: taking a chunk costs ~5 us, so chunks stay far larger
CHUNKS_PER_THREAD = 8  # at most; enough for a late thread's share to be taken over


def chunk_bounds(replicates, nanoseconds, threads):
    """Boundaries [0, ..., replicates] of the chunks the threads take in turn."""
    count = max(1, min(threads * CHUNKS_PER_THREAD, int(nanoseconds // CHUNK_NANOSECONDS), replicates))
    return [replicates * k // count for k in range(count + 1)]


class _Team:
    """Worker threads, each waiting on its own queue for a callable to run."""

    def __init__(self):
        self._lock = threading.Lock()
        self._inboxes = []

    def inboxes(self, count):
        """The inboxes of ``count`` workers, starting the missing ones."""
        with self._lock:
            while len(self._inboxes) < count:
                inbox = queue.SimpleQueue()
                threading.Thread(
                    target=_serve, args=(inbox,), name=f"bootmark-engine-{len(self._inboxes)}", daemon=True
                ).start()
                self._inboxes.append(inbox)
            return self._inboxes[:count]


def _serve(inbox):
    while True:
        inbox.get()()


class _TeamHolder:
    """The process's team, created on first use and forgotten in a forked child."""

    def __init__(self):
        self._lock = threading.Lock()
        self._team = None
        self._pid = os.getpid()

    def get(self):
        with self._lock:
            if self._team is None or self._pid != os.getpid():
                self._team, self._pid = _Team(), os.getpid()
            return self._team

    def forget(self):
        # Runs in a forked child, where the parent's worker threads do not exist; a new
        # lock too, since the parent's may have been held by another thread at the fork.
        self._lock = threading.Lock()
        self._team, self._pid = None, os.getpid()


_TEAM = _TeamHolder()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_TEAM.forget)


def run_replicates(task, replicates, nanoseconds, workspace, *arguments):
    """Call ``task(begin, end, scratch, *arguments)`` over chunks of [0, replicates),
    on up to ``numba.get_num_threads()`` threads (the caller's and the team's), each with
    its own ``workspace()``; ``nanoseconds`` is the caller's estimate of the whole request
    on one thread."""
    threads = min(numba.get_num_threads(), replicates) if nanoseconds >= PARALLEL_MIN_NANOSECONDS else 1
    bounds = chunk_bounds(replicates, nanoseconds, threads) if threads > 1 else [0, replicates]
    helpers = min(threads, len(bounds) - 1) - 1
    if helpers <= 0:
        task(0, replicates, workspace(), *arguments)
        return
    next_chunk = itertools.count()  # next() on it is atomic under the GIL
    failures = []
    finished = queue.SimpleQueue()

    def run():
        try:
            scratch = None
            for k in iter(lambda: next(next_chunk), None):
                if k >= len(bounds) - 1 or failures:
                    return
                if scratch is None:
                    scratch = workspace()
                task(bounds[k], bounds[k + 1], scratch, *arguments)
        except BaseException as error:  # re-raised in the caller below
            failures.append(error)

    def run_and_report():
        try:
            run()
        finally:
            finished.put(None)

    for inbox in _TEAM.get().inboxes(helpers):
        inbox.put(run_and_report)
    run()
    for _ in range(helpers):
        finished.get()
    if failures:
        raise failures[0]
