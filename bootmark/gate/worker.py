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
  (peak resident memory of a fresh process) and ``track_*`` (the value returned);
* ``params`` and ``param_names`` (one cell per combination), ``setup`` / ``teardown``
  (of the function, class or module), ``setup_cache`` (called once per worker, its value
  passed first), ``number`` (calls per sample) and ``timeout``, looked up on the
  function, then its class, then its module;
* ``NotImplementedError`` raised by ``setup`` skips the cell, as in asv.

Features bootmark does not run are reported by name (``unsupported``), never dropped in
silence: ``timeraw_*`` and ``mem_*`` benchmarks, and a custom ``timer``.
"""

from __future__ import annotations

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

__all__ = ["CONTROL_SIZE", "PREFIXES", "UNSUPPORTED_PREFIXES", "discover", "main"]

PREFIXES = ("time_", "peakmem_", "track_")
UNSUPPORTED_PREFIXES = {
    "timeraw_": "timeraw_* benchmarks (a fresh interpreter per sample) are not run by bootmark gate",
    "mem_": "mem_* benchmarks (object sizes via pympler) are not run by bootmark gate",
}
UNSUPPORTED_ATTRIBUTES = {
    "timer": "a custom timer is not used: bootmark gate times with time.perf_counter",
}
CONTROL_SIZE = 40_000  # the drift control sorts this many numbers: about a millisecond
DEFAULT_TIMEOUT_S = 60.0  # asv's default per-benchmark timeout


def _attribute(name, *owners, default=None):
    for owner in owners:
        if owner is not None and hasattr(owner, name):
            return getattr(owner, name)
    return default


def _normalized_params(params, param_names):
    """asv's rule: a flat list is one parameter; a list of lists is several."""
    if not params:
        return [], []
    if not all(isinstance(values, (list, tuple)) for values in params):
        params = [params]
    params = [list(values) for values in params]
    names = list(param_names or [f"param{index + 1}" for index in range(len(params))])
    return params, names


def _modules(folder):
    """Import every module under ``folder`` as a package named after it; yield (dotted
    name relative to the folder, module) and record the ones that fail to import."""
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
    failures = {}
    found = []
    for directory, subdirectories, files in os.walk(folder):
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith((".", "_")))
        relative = os.path.relpath(directory, folder)
        prefix = "" if relative == "." else relative.replace(os.sep, ".") + "."
        for file in sorted(files):
            if not file.endswith(".py") or file.startswith("_"):
                continue
            dotted = prefix + file[:-3]
            try:
                found.append((dotted, importlib.import_module(f"{package_name}.{dotted}")))
            except Exception:  # a broken module is reported by name, with its traceback
                failures[dotted] = traceback.format_exc(limit=-8)
    return found, failures


def discover(folder: str) -> tuple[list[dict], dict]:
    """The benchmarks under ``folder``, found by asv's conventions (module docstring).

    Parameters
    ----------
    folder : str
        The benchmark folder; imported as a package named after it.

    Returns
    -------
    (list of dict, dict)
        One dict per benchmark (``name``, ``kind``, ``param_names``, ``params`` as reprs,
        ``number``, ``timeout``, ``unit``, and the live objects under keys starting with
        ``_``, which :func:`main` strips before replying), sorted by name; and the
        problems: ``import_errors`` (module to traceback) and ``unsupported`` (one
        ``{"benchmark", "feature", "why"}`` per feature not run).
    """
    modules, import_errors = _modules(folder)
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
            full = f"{dotted}.{cls.__name__ + '.' if cls else ''}{name}"
            for prefix, why in UNSUPPORTED_PREFIXES.items():
                if name.startswith(prefix):
                    unsupported.append({"benchmark": full, "feature": prefix + "*", "why": why})
            if not name.startswith(PREFIXES):
                continue
            for attribute, why in UNSUPPORTED_ATTRIBUTES.items():
                if _attribute(attribute, function, cls) is not None:
                    unsupported.append({"benchmark": full, "feature": attribute, "why": why})
            params, names = _normalized_params(
                _attribute("params", function, cls, default=[]), _attribute("param_names", function, cls)
            )
            benchmarks.append(
                {
                    "name": full,
                    "kind": name.split("_", 1)[0],
                    "param_names": names,
                    "params": [[repr(value) for value in values] for values in params],
                    "number": _attribute("number", function, cls),
                    "timeout": float(_attribute("timeout", function, cls, module, default=DEFAULT_TIMEOUT_S)),
                    "unit": _attribute("unit", function, cls),
                    "_cls": cls,
                    "_function": function,
                    "_module": module,
                    "_values": params,
                }
            )
    benchmarks.sort(key=lambda benchmark: benchmark["name"])
    return benchmarks, {"import_errors": import_errors, "unsupported": unsupported}


def _public(benchmark):
    return {key: value for key, value in benchmark.items() if not key.startswith("_")}


class _Prepared:
    """One cell, set up: its bound call and its teardown."""

    def __init__(self, benchmark, index, caches):
        cls, module = benchmark["_cls"], benchmark["_module"]
        combinations = list(itertools.product(*benchmark["_values"])) if benchmark["_values"] else [()]
        arguments = list(combinations[index])
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
        return self.function(*self.arguments)

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


def _timed(call, number):
    collecting = gc.isenabled()
    gc.disable()  # as timeit does: a collection triggered by earlier code must not land here
    try:
        start = time.perf_counter()
        for _ in range(number):
            call()
        return (time.perf_counter() - start) / number
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


def _handle(request, benchmarks, state):
    operation = request["op"]
    if operation == "prepare":
        if state.get("prepared") is not None:
            state.pop("prepared").close()
        benchmark = benchmarks[request["name"]]
        try:
            state["prepared"] = _Prepared(benchmark, request["index"], state["caches"])
        except NotImplementedError:
            return {"skip": "setup raised NotImplementedError (asv's way to skip a cell)"}
        return {"ok": True}
    if operation == "time":
        return {"seconds": _timed(state["prepared"].call, int(request["number"]))}
    if operation == "track":
        return {"value": float(state["prepared"].call())}
    if operation == "control":
        return {"seconds": _timed(state["control"], 1)}
    if operation == "peakmem":
        state["prepared"].call()
        return {"bytes": _peak_resident_bytes()}
    raise ValueError(f"unknown request {operation!r}")


def main(argv: list[str]) -> None:
    """Serve requests on stdin for the suite configured by the JSON in ``argv[0]``.

    Parameters
    ----------
    argv : list of str
        ``[config]``: JSON with ``paths`` (import roots put first), ``benchmark_dir`` and
        ``package`` (whose origin is reported).
    """
    config = json.loads(argv[0])
    here = os.path.dirname(os.path.abspath(__file__))
    # Run by path, this file's folder would be first on the import path, and bootmark's own
    # modules would shadow a project's; the project's paths go first instead.
    sys.path[:] = [*config["paths"], *(entry for entry in sys.path if entry not in ("", here))]
    replies, sys.stdout = sys.stdout, sys.stderr  # stdout carries the protocol and nothing else

    def reply(message):
        replies.write(json.dumps(message) + "\n")
        replies.flush()

    found, problems = discover(config["benchmark_dir"])
    package_file = None
    if config.get("package"):
        try:
            package_file = getattr(importlib.import_module(config["package"]), "__file__", None)
        except Exception as error:  # reported to the parent, which decides
            problems["package_error"] = f"{type(error).__name__}: {error}"
    reply(
        {
            "benchmarks": [_public(benchmark) for benchmark in found],
            "problems": problems,
            "package_file": package_file,
            "python": sys.version.split()[0],
            "executable": sys.executable,
        }
    )
    benchmarks = {benchmark["name"]: benchmark for benchmark in found}
    state = {"caches": {}, "prepared": None, "control": _control_workload()}
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "stop":
            break
        try:
            reply(_handle(request, benchmarks, state))
        except Exception:  # the benchmark's own failure, sent back whole
            reply({"error": traceback.format_exc(limit=-10)})
    if state.get("prepared") is not None:
        state["prepared"].close()


if __name__ == "__main__":
    main(sys.argv[1:])
