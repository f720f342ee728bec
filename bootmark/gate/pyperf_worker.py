"""The pyperf side of a ``bootmark gate`` worker: a project's pyperf scripts (CPython's
pyperformance, jsonschema's and multidict's ``benchmarks/``), run in the worker, each
benchmark they declare a cell timed on request.

An adapter of :mod:`bootmark.gate.worker`, loaded by path, in the gated project's environment, which
must have pyperf (the scripts import it); standard library otherwise.

How a script becomes cells. A pyperf script builds a ``pyperf.Runner`` and calls its
``bench_func``, ``bench_time_func``, ``bench_async_func`` or ``timeit``; pyperf then spawns
worker processes of its own and calibrates, for one revision at a time. The gate cannot use
that machinery (it times two revisions side by side, in its own two processes, and chooses
the same rounds for both), so while a script runs, ``pyperf.Runner`` is a recorder with the
same methods: each call declares a cell and times nothing. The script runs whole, as
``__main__`` (as ``python script.py`` would run it), with its command line empty, so
``runner.argparser`` options take their defaults. A cell's timed call is then:

* ``bench_func(name, func, *args)``: ``func(*args)``;
* ``bench_async_func(name, func, *args)``: ``func(*args)`` run to completion on an event
  loop made once per cell (outside the timing);
* ``bench_time_func(name, time_func, *args)``: ``time_func(loops, *args)``, the seconds it
  returns for ``loops`` iterations being the sample (pyperf's own contract);
* ``timeit(name, stmt, setup, globals=...)``: ``stmt`` after ``setup``, with timeit.

``inner_loops`` divides the time, as pyperf divides it. Not run, and named:
``bench_command`` (a subprocess per sample) and ``timeit``'s ``teardown``.

A cell is named ``<script path relative to the project>::<benchmark name>``, so
``--bench '^benchmarks/bm_json\\.py::'`` selects one script's benchmarks.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import runpy
import sys
import timeit as timeit_module

__all__ = ["script_paths", "serve"]

DEFAULT_TIMEOUT_S = 300.0  # seconds one timed call may take before the worker is stopped
COMMAND = "bench_command runs a command in a new process per sample, which bootmark gate does not time"
TEARDOWN = "timeit's teardown is not run by bootmark gate (its statement's namespace is timeit's own)"


def script_paths(folder: str) -> list[str]:
    """The pyperf scripts in ``folder`` (or ``folder`` itself, when it is one): Python files
    that import pyperf, in sorted order, skipping folders that start with ``.`` or ``_``.

    Parameters
    ----------
    folder : str
        A folder, or one script.

    Returns
    -------
    list of str
        Absolute paths.
    """
    if os.path.isfile(folder):
        return [os.path.abspath(folder)] if _imports_pyperf(folder) else []
    found = []
    for directory, subdirectories, files in os.walk(folder):
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith((".", "_")))
        for name in sorted(files):
            path = os.path.join(directory, name)
            if name.endswith(".py") and _imports_pyperf(path):
                found.append(os.path.abspath(path))
    return found


def _imports_pyperf(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as stream:
            text = stream.read()
    except OSError:
        return False
    return "import pyperf" in text or "from pyperf" in text


class _Cell:
    """One declared benchmark: its call, and how a sample of ``number`` calls is timed."""

    def __init__(self, name, kind, function, args, inner_loops, time_calls):
        self.name, self.kind, self.function, self.args = name, kind, function, args
        self.inner_loops, self.time_calls = inner_loops or 1, time_calls
        self.loop = None

    def call(self):
        if self.kind == "async":
            return self._event_loop().run_until_complete(self.function(*self.args))
        if self.kind == "time":
            return self.function(1, *self.args)
        return self.function(*self.args)

    def timed(self, number):
        if self.kind == "time":  # the function times its own loops, as pyperf asks of it
            return self.function(number, *self.args) / (number * self.inner_loops)
        return self.time_calls(self.call, number) / self.inner_loops

    def close(self):
        if self.loop is not None:
            self.loop.close()
            self.loop = None

    def _event_loop(self):
        if self.loop is None:
            self.loop = asyncio.new_event_loop()
        return self.loop


class _Recorder:
    """What a script gets as ``pyperf.Runner``: pyperf's methods, each declaring a cell."""

    def __init__(self, script, declared, unsupported, time_calls):
        self._script, self._declared, self._unsupported = script, declared, unsupported
        self._time_calls = time_calls
        self.argparser = argparse.ArgumentParser(prog=os.path.basename(script))
        self.metadata = {}
        self.args = None

    def parse_args(self, args=None):
        """The script's own options at their defaults (the gate gives it no command line)."""
        self.args = self.argparser.parse_args([] if args is None else args)
        return self.args

    def _declare(self, name, kind, function, args, inner_loops):
        full = f"{self._script}::{name}"
        self._declared[full] = _Cell(full, kind, function, args, inner_loops, self._time_calls)

    def bench_func(self, name, func, *args, inner_loops=None, metadata=None):
        self._declare(name, "func", func, args, inner_loops)

    def bench_async_func(self, name, func, *args, inner_loops=None, metadata=None, loop_factory=None):
        self._declare(name, "async", func, args, inner_loops)

    def bench_time_func(self, name, time_func, *args, inner_loops=None, metadata=None):
        self._declare(name, "time", time_func, args, inner_loops)

    def timeit(self, name, stmt=None, setup="pass", teardown="pass", inner_loops=None, duplicate=None, **options):
        """pyperf's ``timeit``: ``stmt`` after ``setup``, in ``globals`` when given."""
        if teardown not in (None, "pass"):
            self._unsupported.append({"benchmark": f"{self._script}::{name}", "feature": "teardown", "why": TEARDOWN})
            return
        timer = timeit_module.Timer(stmt if stmt is not None else "pass", setup, globals=options.get("globals"))
        self._declare(name, "time", lambda loops: timer.timeit(loops), (), (inner_loops or 1) * (duplicate or 1))

    def bench_command(self, name, command):
        self._unsupported.append({"benchmark": f"{self._script}::{name}", "feature": "bench_command", "why": COMMAND})


def discover(config, problems, time_calls, failure_text):
    """Run the selected scripts with ``pyperf.Runner`` recording; the declared cells by
    name."""
    import pyperf  # the scripts import it; a missing pyperf is reported by the caller

    root = config["root"]
    chosen = [os.path.join(root, path) for path in config["select"]] if config.get("select") else None
    paths = [path for target in chosen or [config["benchmark_dir"]] for path in script_paths(target)]
    declared = {}
    original, arguments = pyperf.Runner, sys.argv
    try:
        for path in paths:
            script = os.path.relpath(path, root)
            pyperf.Runner = lambda *a, _script=script, **k: _Recorder(
                _script, declared, problems["unsupported"], time_calls
            )
            sys.argv = [path]
            try:
                runpy.run_path(path, run_name="__main__")
            except SystemExit as stop:
                if stop.code not in (None, 0):
                    problems["import_errors"][script] = f"SystemExit: {stop.code}"
            except Exception:  # a broken script is reported by name, with its traceback
                problems["import_errors"][script] = failure_text()
    finally:
        pyperf.Runner, sys.argv = original, arguments
    return declared


def serve(host, config):
    """Run the pyperf scripts ``config`` names, reply with their benchmarks, then serve the
    parent's requests until ``stop`` (the adapter interface of :mod:`bootmark.gate.worker`).

    Parameters
    ----------
    host : bootmark.gate.worker.Host
        The channel, the first reply to complete, and the worker's shared tools.
    config : dict
        The worker's configuration (``benchmark_dir``, ``root``, ``select``: script paths
        relative to the root).
    """
    try:
        declared = discover(config, host.problems, host.time_calls, host.failure_text)
    except ImportError as error:
        host.problems["import_errors"]["(pyperf)"] = (
            f"{type(error).__name__}: {error}: pyperf is not installed in the environment the gate's workers run "
            "in; install it there (the suite's scripts import it)"
        )
        declared = {}
    benchmarks = [host.time_cell(name, name.split("::", 1)[0], DEFAULT_TIMEOUT_S) for name in sorted(declared)]
    host.hello.update(benchmarks=benchmarks, distributions=host.versions())
    host.serve_prepared(lambda name, index: declared[name])
