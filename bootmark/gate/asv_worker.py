"""The asv side of a ``bootmark gate`` worker: a project's asv suite, discovered by asv's
conventions and its cells set up on request.

Loaded by path by :mod:`bootmark.gate.worker` (one of its sibling adapters), in the gated
project's environment; standard library only (pympler where the suite has ``mem_*``
benchmarks, as asv needs it). The parent imports it too, for :func:`module_names`.

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
import importlib
import importlib.util
import itertools
import os
import sys
import traceback
import types

__all__ = ["PREFIXES", "UNSUPPORTED_PREFIXES", "discover", "module_names", "object_bytes", "serve"]

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
DEFAULT_TIMEOUT_S = 60.0  # asv's default per-benchmark timeout


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


def _traceback():
    return traceback.format_exc(limit=-12)


def _modules(folder, only=None, failure_text=_traceback):
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


def discover(folder: str, only: list[str] | None = None, failure_text=_traceback) -> tuple[list[dict], dict]:
    """The benchmarks under ``folder``, found by asv's conventions (module docstring).

    Parameters
    ----------
    folder : str
        The benchmark folder; imported as a package named after it.
    only : list of str, optional
        The modules to import (dotted, relative to ``folder``); default every module.
    failure_text : callable, optional
        Formats the exception being handled (the worker's keeps the benchmark's frames).

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
    modules, import_errors = _modules(folder, only, failure_text)
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


def _public(benchmark):
    return {key: value for key, value in benchmark.items() if not key.startswith("_")}


class _Prepared:
    """One asv cell, set up: its bound call and its teardown."""

    def __init__(self, benchmark, index, caches, time_calls):
        cls, module = benchmark["_cls"], benchmark["_module"]
        combinations = list(itertools.product(*benchmark["_values"])) if benchmark["_values"] else [()]
        arguments = list(combinations[index])
        if tuple(arguments) in benchmark["_skip"]:
            raise NotImplementedError("skip_params lists this combination")
        self.measure = object_bytes if benchmark["kind"] == "mem" else None
        self.time_calls = time_calls
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
        return self.time_calls(self.call, number)

    def close(self):
        if self.teardown is not None:
            self.teardown(*self.arguments)


def serve(host, config: dict) -> None:
    """List the asv suite ``config`` names, reply with its benchmarks, then serve the
    parent's requests until ``stop`` (the adapter interface of :mod:`bootmark.gate.worker`).

    Parameters
    ----------
    host : bootmark.gate.worker.Host
        The channel, the first reply to complete, and the worker's shared tools.
    config : dict
        The worker's configuration (``benchmark_dir``; ``select``: dotted modules).
    """
    found, found_problems = discover(config["benchmark_dir"], config.get("select"), host.failure_text)
    host.problems.update(found_problems)
    host.hello["benchmarks"] = [_public(benchmark) for benchmark in found]
    host.hello["distributions"] = host.versions()
    benchmarks = {benchmark["name"]: benchmark for benchmark in found}
    caches = {}
    host.serve_prepared(lambda name, index: _Prepared(benchmarks[name], index, caches, host.time_calls))
