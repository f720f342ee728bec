"""One side of ``bootmark gate``: a worker process that imports a project's asv-style
benchmark suite and runs its benchmarks on request.

Standard library only, and run by file path (``python worker.py CONFIG``), so any
interpreter can run it: the one bootmark is installed in, or a virtual environment that
holds one revision of the project (``bootmark.gate.sides``). The parent
(``bootmark.gate.suite``) speaks to it in JSON lines: one reply per request on stdout, which
carries nothing else (the benchmarks' own prints go to stderr).

Discovery follows asv's conventions, so a suite written for asv runs unchanged:

* every module under the benchmark folder, imported as a package named after the folder;
* module functions and class methods named ``time_*`` (seconds per call), ``peakmem_*``
  (peak resident memory of a fresh process), ``track_*`` (the value returned) and
  ``mem_*`` (the size of the object returned, measured as asv measures it, with
  ``pympler.asizeof``, which must then be importable in the project's environment);
* ``params`` and ``param_names`` (one cell per combination), ``setup`` / ``teardown``
  (of the function, class or module), ``setup_cache`` (called once per worker, its value
  passed first), ``number`` (calls per sample), ``timeout``, ``warmup_time`` (the least
  warm-up before timing) and ``skip_params``, looked up on the function, then its class,
  then its module, as asv looks them up;
* ``benchmark_name`` (a custom name), ``pretty_name`` (a display name) and
  ``skip_benchmark`` (asv's decorator: not a benchmark), read off the function;
* ``NotImplementedError`` raised by ``setup`` skips the cell, as in asv, and so does a
  combination listed in ``skip_params``.

Features bootmark does not run are reported by name (``unsupported``), never dropped in
silence: ``timeraw_*`` benchmarks, ``mem_*`` ones where pympler is missing, and a custom
``timer``.
"""

from __future__ import annotations

import copy
import gc
import importlib
import importlib.util
import itertools
import json
import os
import sys
import time
import traceback
import types

__all__ = [
    "CONTROL_SIZE",
    "PREFIXES",
    "UNSUPPORTED_PREFIXES",
    "Channel",
    "discover",
    "main",
    "module_names",
    "time_calls",
]

PREFIXES = ("time_", "peakmem_", "track_", "mem_")
UNSUPPORTED_PREFIXES = {
    "timeraw_": "timeraw_* benchmarks (a fresh interpreter per sample) are not run by bootmark gate",
}
NO_PYMPLER = (
    "mem_* benchmarks measure the returned object with pympler.asizeof, as asv does, and pympler is not "
    "importable in the project's environment: install it there (asv skips these benchmarks without it)"
)
UNSUPPORTED_ATTRIBUTES = {
    "timer": "a custom timer is not used: bootmark gate times with time.perf_counter",
}
CONTROL_SIZE = 40_000  # the drift control sorts this many numbers: about a millisecond
DEFAULT_TIMEOUT_S = 60.0  # asv's default per-benchmark timeout
HERE = os.path.dirname(os.path.abspath(__file__))


def _attribute(name, *owners, default=None):
    for owner in owners:
        if owner is not None and hasattr(owner, name):
            return getattr(owner, name)
    return default


def _positive(value):
    """``value`` as a float when it is a positive number (asv's ``-1`` means "the default")."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else None


def _asizeof():
    """pympler's ``asizeof``, with which asv sizes a ``mem_*`` benchmark's object, or None
    when the project's environment lacks it."""
    try:
        from pympler.asizeof import asizeof
    except Exception:  # not installed, or broken: the mem_* benchmarks are named unsupported
        return None
    return asizeof


def object_bytes(value) -> int:
    """The memory ``value`` holds of its own, as asv's ``mem_*`` measures it: the size of
    ``[value, copy(value)]`` less that of ``[value, value]`` (so memory shared with other
    objects, such as interned constants, is not counted).

    Parameters
    ----------
    value : object
        What a ``mem_*`` benchmark returned.

    Returns
    -------
    int
        Bytes, by ``pympler.asizeof``.
    """
    asizeof = _asizeof()
    return int(asizeof([value, copy.copy(value)]) - asizeof([value, value]))


def _normalized_params(params, param_names):
    """asv's rule: a flat list is one parameter; a list of lists is several."""
    if not params:
        return [], []
    if not all(isinstance(values, (list, tuple)) for values in params):
        params = [params]
    params = [list(values) for values in params]
    names = list(param_names or [f"param{index + 1}" for index in range(len(params))])
    return params, names


def _package(folder):
    """The benchmark folder as a package named after it (its ``__init__`` run if it has
    one), as asv imports it, so ``from benchmarks.utils import x`` works in a suite."""
    package_name = os.path.basename(os.path.normpath(folder))
    init = os.path.join(folder, "__init__.py")
    if os.path.exists(init):
        spec = importlib.util.spec_from_file_location(package_name, init, submodule_search_locations=[folder])
        package = importlib.util.module_from_spec(spec)
        sys.modules[package_name] = package
        spec.loader.exec_module(package)
    else:
        package = types.ModuleType(package_name)
        package.__path__ = [folder]
        sys.modules[package_name] = package
    return package_name


def module_names(folder: str) -> list[str]:
    """Every benchmark module under ``folder``, dotted relative to it, in asv's order
    (files and folders starting with ``_`` or ``.`` are not benchmarks).

    Parameters
    ----------
    folder : str
        The benchmark folder.

    Returns
    -------
    list of str
        Dotted module names, e.g. ``["bench_io", "solvers.bench_lu"]``.
    """
    names = []
    for directory, subdirectories, files in os.walk(folder):
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith((".", "_")))
        relative = os.path.relpath(directory, folder)
        prefix = "" if relative == "." else relative.replace(os.sep, ".") + "."
        names.extend(prefix + file[:-3] for file in sorted(files) if file.endswith(".py") and not file.startswith("_"))
    return names


def _modules(folder, only=None):
    """Import the benchmark modules under ``folder`` (only those named in ``only`` when
    given); return (dotted name, module) pairs and the tracebacks of those that fail."""
    package_name = _package(folder)
    failures, found = {}, []
    for dotted in module_names(folder) if only is None else only:
        try:
            found.append((dotted, importlib.import_module(f"{package_name}.{dotted}")))
        except Exception:  # a broken module is reported by name, with its traceback
            failures[dotted] = failure_text()
    return found, failures


def discover(folder: str, only: list[str] | None = None) -> tuple[list[dict], dict]:
    """The benchmarks under ``folder``, found by asv's conventions (module docstring).

    Parameters
    ----------
    folder : str
        The benchmark folder; imported as a package named after it.
    only : list of str, optional
        The modules to import (dotted, relative to ``folder``); default every module.

    Returns
    -------
    (list of dict, dict)
        One dict per benchmark (``name``, ``module``, ``kind``, ``param_names``,
        ``params`` as reprs, ``number``, ``timeout``, ``unit``, ``pretty_name``,
        ``warmup_time`` (seconds, or None), and the live objects under keys starting with
        ``_``, which :func:`main` strips before replying), sorted by name; and the
        problems: ``import_errors`` (module to traceback) and ``unsupported`` (one
        ``{"benchmark", "feature", "why"}`` per feature not run).
    """
    modules, import_errors = _modules(folder, only)
    benchmarks, unsupported = [], []
    for dotted, module in modules:
        owners = [(None, name, value) for name, value in vars(module).items() if callable(value)]
        for cls in list(vars(module).values()):
            if isinstance(cls, type) and cls.__module__ == module.__name__:
                owners.extend(
                    (cls, name, getattr(cls, name)) for name in sorted(dir(cls)) if callable(getattr(cls, name))
                )
        for cls, name, function in owners:
            if cls is None and getattr(function, "__module__", None) != module.__name__:
                continue  # imported into the module, not defined there
            if getattr(function, "skip_benchmark", False):
                continue  # asv's @skip_benchmark: not a benchmark
            custom = getattr(function, "benchmark_name", None)
            full = custom if isinstance(custom, str) else f"{dotted}.{cls.__name__ + '.' if cls else ''}{name}"
            kind_name = full.rsplit(".", 1)[-1] if isinstance(custom, str) else name
            for prefix, why in UNSUPPORTED_PREFIXES.items():
                if kind_name.startswith(prefix):
                    unsupported.append({"benchmark": full, "feature": prefix + "*", "why": why})
            if not kind_name.startswith(PREFIXES):
                continue
            for attribute, why in UNSUPPORTED_ATTRIBUTES.items():
                if _attribute(attribute, function, cls) is not None:
                    unsupported.append({"benchmark": full, "feature": attribute, "why": why})
            kind = kind_name.split("_", 1)[0]
            if kind == "mem" and _asizeof() is None:
                unsupported.append({"benchmark": full, "feature": "mem_*", "why": NO_PYMPLER})
            params, names = _normalized_params(
                _attribute("params", function, cls, module, default=[]),
                _attribute("param_names", function, cls, module),
            )
            pretty = getattr(function, "pretty_name", None)  # asv reads it off the function only
            benchmarks.append(
                {
                    "name": full,
                    "module": dotted,
                    "kind": kind,
                    "param_names": names,
                    "params": [[repr(value) for value in values] for values in params],
                    "number": _attribute("number", function, cls),
                    "timeout": float(_attribute("timeout", function, cls, module, default=DEFAULT_TIMEOUT_S)),
                    "unit": "bytes" if kind == "mem" else _attribute("unit", function, cls),
                    "pretty_name": pretty if isinstance(pretty, str) else None,
                    "warmup_time": _positive(_attribute("warmup_time", function, cls, module)),
                    "_cls": cls,
                    "_function": function,
                    "_module": module,
                    "_values": params,
                    "_skip": [tuple(values) for values in _attribute("skip_params", function, cls, module, default=[])],
                }
            )
    benchmarks.sort(key=lambda benchmark: benchmark["name"])
    return benchmarks, {"import_errors": import_errors, "unsupported": unsupported}


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


def _public(benchmark):
    return {key: value for key, value in benchmark.items() if not key.startswith("_")}


class _SkippedCombination(NotImplementedError):
    """A parameter combination the benchmark's ``skip_params`` lists."""


class _Prepared:
    """One asv cell, set up: its bound call and its teardown."""

    def __init__(self, benchmark, index, caches):
        cls, module = benchmark["_cls"], benchmark["_module"]
        combinations = list(itertools.product(*benchmark["_values"])) if benchmark["_values"] else [()]
        arguments = list(combinations[index])
        if tuple(arguments) in benchmark["_skip"]:
            raise _SkippedCombination("skip_params lists this combination")
        self.measure = object_bytes if benchmark["kind"] == "mem" else None
        instance = cls() if cls is not None else None
        setup_cache = _attribute("setup_cache", instance if cls is not None else benchmark["_function"], module)
        if setup_cache is not None:
            key = benchmark["name"].rsplit(".", 1)[0]  # one cache per class, or per module
            if key not in caches:
                caches[key] = setup_cache()
            arguments = [caches[key], *arguments]
        owner = instance if instance is not None else module
        function = (
            getattr(instance, benchmark["_function"].__name__) if instance is not None else benchmark["_function"]
        )
        setup = _attribute("setup", function if cls is None else None, owner)
        self.teardown = _attribute("teardown", function if cls is None else None, owner)
        self.arguments = arguments
        if setup is not None:
            setup(*arguments)
        self.function = function

    def call(self):
        value = self.function(*self.arguments)
        return self.measure(value) if self.measure is not None else value

    def timed(self, number):
        return time_calls(self.call, number)

    def close(self):
        if self.teardown is not None:
            self.teardown(*self.arguments)


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
        self.control = _control_workload()
        self.pending = None

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
            return {"seconds": time_calls(self.control, 1)}
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
        ``NotImplementedError`` skips it (asv's way), any other exception is its failure.
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
            why = str(error) if isinstance(error, _SkippedCombination) else "setup raised NotImplementedError"
            channel.reply({"skip": f"{why} (asv's way to skip a cell)"})
        except Exception:  # the benchmark's own failure, sent back whole
            channel.reply({"error": failure_text()})
    if prepared is not None:
        prepared.close()


def _serve_asv(config, channel, problems, hello):
    found, found_problems = discover(config["benchmark_dir"], config.get("select"))
    problems.update(found_problems)
    hello["benchmarks"] = [_public(benchmark) for benchmark in found]
    hello["distributions"] = _distribution_versions()
    benchmarks = {benchmark["name"]: benchmark for benchmark in found}
    caches = {}
    serve_prepared(channel, hello, lambda name, index: _Prepared(benchmarks[name], index, caches))


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
        ``framework`` (``asv``, ``pytest`` or ``pyperf``), ``select`` (the asv modules,
        pytest node ids or pyperf script paths to load; null loads every one), ``root``
        (the project's checkout, pytest's rootdir) and ``package`` (imported first, from
        the side's own code, and its origin reported).
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
    framework = config.get("framework", "asv")
    if framework == "pytest":
        _load_sibling("pytest_worker").serve(config, channel, problems, hello, _distribution_versions, time_calls)
    elif framework == "pyperf":
        adapter = _load_sibling("pyperf_worker")
        adapter.serve(config, channel, problems, hello, _distribution_versions, time_calls, serve_prepared)
    else:
        _serve_asv(config, channel, problems, hello)


if __name__ == "__main__":
    main(sys.argv[1:])
