"""One side of ``bootmark gate``: a worker process that loads a project's benchmark suite
and runs its benchmarks on request.

Standard library only, and run by file path (``python worker.py CONFIG``), so any
interpreter can run it: the one bootmark is installed in, or a virtual environment that
holds one revision of the project (``bootmark.gate.sides``). The parent
(``bootmark.gate.suite``) speaks to it in JSON lines: one reply per request on stdout, which
carries nothing else (the benchmarks' own prints go to stderr).

One shape for every framework. The measuring loop, the verdicts, the confirmation and the
receipts are the parent's, one mechanism for every suite; what differs per framework is
how a suite is found and how a cell is set up, and that is an **adapter**: a module beside
this one, named in :data:`ADAPTERS`, loaded by path, with one function,
``serve(host, config)``. It finds the suite (discover), completes ``host.hello`` with its
benchmarks and ``host.problems`` with what does not load, then serves the parent's
requests: each ``prepare`` sets a cell up (prepare), and the cell's ``call`` and
``timed(number)`` answer the timing requests (time it), through :meth:`Host.serve_prepared`
(or, for a suite whose tests must run inside their own runner, through
:meth:`Channel.serve_cell` from inside that runner). The adapters:

* ``asv_worker``: asv suites (:mod:`bootmark.gate.asv_worker`);
* ``pytest_worker``: pytest-benchmark and pytest-codspeed suites;
* ``pyperf_worker``: pyperf scripts.

A fifth framework is one new module here, its name in :data:`ADAPTERS`, and the rule that
tells its suites by their files in :mod:`bootmark.gate.config`.
"""

from __future__ import annotations

import gc
import importlib.util
import json
import os
import sys
import time
import traceback

__all__ = ["ADAPTERS", "CONTROL_SIZE", "Channel", "Host", "main", "serve_prepared", "time_calls"]

ADAPTERS = {"asv": "asv_worker", "pytest": "pytest_worker", "pyperf": "pyperf_worker"}  # framework: module
CONTROL_SIZE = 40_000  # the drift control sorts this many numbers: about a millisecond
HERE = os.path.dirname(os.path.abspath(__file__))


def failure_text(frames: int = 12) -> str:
    """The exception being handled, as a traceback of the benchmark's own frames (the
    worker's frames, which say nothing about the benchmark, are left out).

    Parameters
    ----------
    frames : int, optional
        The most recent frames kept.

    Returns
    -------
    str
        ``Traceback (most recent call last):``, the frames, and the exception's line.
    """
    kind, error, trace = sys.exc_info()
    own = [frame for frame in traceback.extract_tb(trace) if os.path.dirname(os.path.abspath(frame.filename)) != HERE]
    return "".join(
        [
            "Traceback (most recent call last):\n",
            *traceback.format_list(own[-frames:]),
            *traceback.format_exception_only(kind, error),
        ]
    )


def _control_workload():
    """A fixed workload the same on both sides: a sort of fixed numbers (numpy when the
    environment has it, else Python's own)."""
    try:
        import numpy as np  # late: optional, a project's environment may not have numpy
    except ImportError:
        values = [((index * 2654435761) % 4294967296) / 4294967296 for index in range(CONTROL_SIZE)]
        return lambda: sorted(values)
    values = np.random.default_rng(20261204).random(CONTROL_SIZE)
    return lambda: np.sort(values, kind="quicksort")


def time_calls(call, number, setup=None, teardown=None):
    """Seconds per call of ``number`` calls of ``call``, with the garbage collector off (as
    timeit does: a collection triggered by earlier code must not land here).

    Parameters
    ----------
    call : callable
        The timed call; called with no arguments, or with what ``setup`` returns.
    number : int
        Calls in the sample.
    setup : callable, optional
        Runs before each call, outside the timing, and returns the call's
        ``(args, kwargs)`` (pytest-benchmark's ``pedantic(setup=...)``).
    teardown : callable, optional
        Runs after each call, outside the timing, with the call's arguments
        (``pedantic(teardown=...)``); only with ``setup``.

    Returns
    -------
    float
        Seconds per call.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        if setup is None:
            start = time.perf_counter()
            for _ in range(number):
                call()
            return (time.perf_counter() - start) / number
        spent = 0.0
        for _ in range(number):
            args, kwargs = setup()
            start = time.perf_counter()
            call(*args, **kwargs)
            spent += time.perf_counter() - start
            if teardown is not None:
                teardown(*args, **kwargs)
        return spent / number
    finally:
        if collecting:
            gc.enable()


def _peak_resident_bytes():
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource  # late: only where /proc is missing (not Linux)

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


class Channel:
    """The worker's side of the line protocol: requests from the parent, replies to it,
    and the answers to the requests on a prepared cell (``time``, ``track``, ``control``,
    ``peakmem``), the same for an asv cell and a pytest-benchmark one.

    Parameters
    ----------
    requests, replies : file
        The protocol's own copies of stdin and stdout (file descriptors 0 and 1 are
        pointed elsewhere, so nothing a benchmark or pytest's capture does reaches them).
    """

    CELL_OPERATIONS = ("time", "track", "control", "peakmem")

    def __init__(self, requests, replies):
        self.requests, self.replies = requests, replies
        self.workload = None  # the drift control, made at its first request (numpy's import is slow)
        self.pending = None

    @property
    def control(self):
        """The drift control's workload (:func:`_control_workload`)."""
        if self.workload is None:
            self.workload = _control_workload()
        return self.workload

    def reply(self, message: dict) -> None:
        """Send one reply line."""
        self.replies.write(json.dumps(message) + "\n")
        self.replies.flush()

    def next_request(self) -> dict:
        """The next request (one put back by :meth:`put_back` first); ``stop`` at end of input."""
        if self.pending is not None:
            request, self.pending = self.pending, None
            return request
        line = self.requests.readline()
        return json.loads(line) if line.strip() else {"op": "stop"}

    def put_back(self, request: dict) -> None:
        """Keep ``request`` for the next :meth:`next_request`."""
        self.pending = request

    def answer(self, request: dict, prepared) -> dict:
        """The reply to a cell request on ``prepared`` (which has ``call`` and ``timed``)."""
        operation = request["op"]
        if operation == "control":
            workload = self.control  # made before the clock starts
            return {"seconds": time_calls(workload, 1)}
        if prepared is None:
            raise RuntimeError(f"request {operation!r} before any cell was prepared")
        if operation == "time":
            # The process's CPU time over the wall time tells the parent whether the sample
            # ran on one thread (then it may pin both sides to one CPU: bootmark.core.cpus).
            cpu, wall = time.process_time(), time.perf_counter()
            seconds = prepared.timed(int(request["number"]))
            return {
                "seconds": seconds,
                "cpu_seconds": time.process_time() - cpu,
                "wall_seconds": time.perf_counter() - wall,
            }
        if operation == "track":
            return {"value": float(prepared.call())}
        if operation == "peakmem":
            prepared.call()
            return {"bytes": _peak_resident_bytes()}
        raise ValueError(f"unknown request {operation!r}")

    def serve_cell(self, prepared) -> None:
        """Answer cell requests on ``prepared`` until another request comes, which is put
        back for the caller."""
        while True:
            request = self.next_request()
            if request["op"] not in self.CELL_OPERATIONS:
                self.put_back(request)
                return
            try:
                self.reply(self.answer(request, prepared))
            except Exception:  # the benchmark's own failure, sent back whole
                self.reply({"error": failure_text()})


def serve_prepared(channel: Channel, hello: dict, prepare) -> None:
    """Reply ``hello`` (the suite found), then serve the parent's requests until ``stop``:
    ``prepare`` sets a cell up, the cell requests are answered on it, the next ``prepare``
    (or the stop) closes it. The request loop of every adapter whose cells can be set up
    outside a test runner (asv's, pyperf's).

    Parameters
    ----------
    channel : Channel
    hello : dict
        The first reply, with ``benchmarks``.
    prepare : callable
        ``prepare(name, index)``: the cell, with ``call``, ``timed`` and ``close``. A
        ``NotImplementedError`` skips it (asv's way; its message, when it has one, says
        why), any other exception is its failure.
    """
    channel.reply(hello)
    prepared = None
    while True:
        request = channel.next_request()
        if request["op"] == "stop":
            break
        if request["op"] in Channel.CELL_OPERATIONS:
            channel.put_back(request)
            channel.serve_cell(prepared)
            continue
        if prepared is not None:
            prepared, closing = None, prepared
            closing.close()
        try:
            if request["op"] != "prepare":
                raise ValueError(f"unknown request {request['op']!r}")
            prepared = prepare(request["name"], request["index"])
            channel.reply({"ok": True})
        except NotImplementedError as error:
            channel.reply({"skip": f"{str(error) or 'setup raised NotImplementedError'} (asv's way to skip a cell)"})
        except Exception:  # the benchmark's own failure, sent back whole
            channel.reply({"error": failure_text()})
    if prepared is not None:
        prepared.close()


class Host:
    """What the worker gives an adapter's ``serve(host, config)``: the channel to the
    parent, the first reply to complete (``hello``, with ``benchmarks``) and its
    ``problems``, and the tools every adapter shares."""

    def __init__(self, channel: Channel, problems: dict, hello: dict, versions_wanted: bool = True):
        self.channel, self.problems, self.hello = channel, problems, hello
        self.versions_wanted = versions_wanted

    time_calls = staticmethod(time_calls)
    failure_text = staticmethod(failure_text)

    @staticmethod
    def time_cell(name: str, module: str, timeout: float) -> dict:
        """The description of a benchmark with one cell, timed (no parameters, no fixed
        ``number``), as ``hello["benchmarks"]`` lists it: a pytest test, a pyperf benchmark.

        Parameters
        ----------
        name : str
            The cell's name.
        module : str
            What a worker loads for it (a pytest node id, a pyperf script's path).
        timeout : float
            Seconds one call may take.
        """
        return {
            "name": name,
            "module": module,
            "kind": "time",
            "param_names": [],
            "params": [],
            "number": None,
            "timeout": timeout,
            "unit": None,
        }

    def versions(self) -> dict:
        """The versions of the distributions loaded now, for the receipt; none for a worker
        that only counts instructions (reading every distribution's metadata would be most
        of its start under valgrind)."""
        return _distribution_versions() if self.versions_wanted else {}

    def serve_prepared(self, prepare) -> None:
        """Reply ``hello`` and serve the parent's requests on the cells ``prepare`` sets
        up (:func:`serve_prepared`)."""
        serve_prepared(self.channel, self.hello, prepare)


def _load_sibling(name):
    """A module beside this file, loaded by path (this folder is not on the import path,
    so bootmark's modules never shadow a project's)."""
    path = os.path.join(HERE, f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"_bootmark_gate_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _distribution_versions():
    """The versions of the distributions whose top-level modules are loaded now: what the
    suite and the project imported, for the receipt."""
    import importlib.metadata  # late: only once the suite is loaded

    owners = importlib.metadata.packages_distributions()
    loaded = {name.partition(".")[0] for name in list(sys.modules)}
    versions = {}
    for module in sorted(loaded & set(owners)):
        for distribution in owners[module]:
            try:
                versions[distribution] = importlib.metadata.version(distribution)
            except importlib.metadata.PackageNotFoundError:
                continue
    return versions


def main(argv: list[str]) -> None:
    """Serve requests on stdin for the suite configured by the JSON in ``argv[0]``.

    Parameters
    ----------
    argv : list of str
        ``[config]``: JSON with ``paths`` (import roots put first), ``benchmark_dir``,
        ``framework`` (a key of :data:`ADAPTERS`), ``select`` (the asv modules,
        pytest node ids or pyperf script paths to load; null loads every one), ``root``
        (the project's checkout, pytest's rootdir), ``package`` (imported first, from
        the side's own code, and its origin reported) and ``versions`` (false: leave the
        distributions' versions out of the first reply).
    """
    config = json.loads(argv[0])
    # Run by path, this file's folder would be first on the import path, and bootmark's own
    # modules would shadow a project's; the project's paths go first instead.
    sys.path[:] = [*config["paths"], *(entry for entry in sys.path if entry not in ("", HERE))]
    # The protocol keeps private copies of stdin and stdout; descriptors 0 and 1 are pointed
    # at /dev/null and stderr, so a C extension's printf or pytest's capture of the
    # descriptors can neither corrupt nor swallow a reply.
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    with open(os.devnull, "rb") as null:
        os.dup2(null.fileno(), 0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    channel = Channel(requests, replies)
    problems = {"import_errors": {}, "unsupported": []}
    package_file = None
    if config.get("package"):  # first: then the suite cannot load the package from elsewhere
        try:
            package_file = getattr(importlib.import_module(config["package"]), "__file__", None)
        except Exception as error:  # reported to the parent, which decides
            problems["package_error"] = f"{type(error).__name__}: {error}"
    hello = {
        "problems": problems,
        "package_file": package_file,
        "python": sys.version.split()[0],
        "executable": sys.executable,
        "distributions": {},
    }
    host = Host(channel, problems, hello, versions_wanted=config.get("versions", True))
    _load_sibling(ADAPTERS[config.get("framework", "asv")]).serve(host, config)


if __name__ == "__main__":
    main(sys.argv[1:])
