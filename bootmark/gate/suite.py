"""A project's asv-style benchmark suite, as ``bootmark gate`` sees it: its benchmarks and
cells, and the worker process that runs them (its configuration: :mod:`bootmark.gate.config`).

The benchmark code always comes from the current tree, for both sides, as in asv: the
suite measures two revisions of the package with the same yardstick.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bootmark.core.processes import LineProcess
from bootmark.gate.asv_worker import module_names
from bootmark.gate.config import GateConfig, SuiteError

__all__ = [
    "Benchmark",
    "Cell",
    "Suite",
    "SuiteWorker",
    "WorkerFailure",
    "list_suite",
    "listing_selection",
    "literal_start",
    "modules_to_list",
    "select_cells",
]

WORKER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")
START_TIMEOUT_S = 600.0  # importing a suite can compile (Numba) for minutes; a hang must still end


class WorkerFailure(RuntimeError):
    """A worker stopped or gave no reply in time; the message carries its stderr's tail."""


MAX_WARMUP_SAMPLES = 200  # a warmup_time hint costs at most this many samples per side
VALUE_KINDS = frozenset({"track", "mem"})  # a call returns the value compared (asv's track_*, mem_*)


@dataclass(frozen=True)
class Benchmark:
    """One benchmark as the worker found it.

    Attributes
    ----------
    name : str
        Its asv name (``module.Class.method``) or pytest node id.
    module : str
        What a worker loads for it: the asv module (dotted, relative to the benchmark
        folder) or the pytest node id.
    kind : str
        ``time``, ``peakmem``, ``track`` or ``mem`` (:data:`VALUE_KINDS` compare what a
        call returns: a track's value, or a ``mem_*`` object's size in bytes).
    param_names : tuple of str
    params : tuple of tuple of str
        The parameter values' reprs, per parameter.
    number : int or None
        Calls per sample when the benchmark fixes it (asv's ``number``).
    timeout : float
        Seconds one call may take before the worker is stopped.
    unit : str or None
        A track's unit (``bytes`` for a ``mem_*`` benchmark).
    pretty_name : str or None
        asv's ``pretty_name``, shown beside the name in the report.
    warmup_s : float or None
        asv's ``warmup_time``: seconds of calls to discard before timing, on each side (the
        gate's own warm-up samples count towards it).
    """

    name: str
    kind: str
    param_names: tuple[str, ...]
    params: tuple[tuple[str, ...], ...]
    number: int | None
    timeout: float
    unit: str | None = None
    module: str = ""
    pretty_name: str | None = None
    warmup_s: float | None = None

    @classmethod
    def from_json(cls, data: Mapping) -> Benchmark:
        """The record of the worker's reply ``data``."""
        number = data.get("number")
        return cls(
            name=data["name"],
            kind=data["kind"],
            param_names=tuple(data["param_names"]),
            params=tuple(tuple(values) for values in data["params"]),
            number=int(number) if isinstance(number, (int, float)) and number >= 1 else None,
            timeout=float(data["timeout"]),
            unit=data.get("unit") if isinstance(data.get("unit"), str) else None,
            module=data.get("module") or data["name"],
            pretty_name=data.get("pretty_name") if isinstance(data.get("pretty_name"), str) else None,
            warmup_s=float(data["warmup_time"]) if isinstance(data.get("warmup_time"), (int, float)) else None,
        )

    def warmup_samples(self, least: int, sample_s: float) -> int:
        """Warm-up samples to discard before timing: ``least``, or as many samples of about
        ``sample_s`` seconds as cover ``warmup_s`` (at most :data:`MAX_WARMUP_SAMPLES`)."""
        if not self.warmup_s:
            return least
        return max(least, min(math.ceil(self.warmup_s / max(sample_s, 1e-9)), MAX_WARMUP_SAMPLES))

    def cells(self) -> list[Cell]:
        """One cell per parameter combination, in asv's order."""
        if not self.params:
            return [Cell(self, 0, self.name)]
        combinations = itertools.product(*self.params)
        return [Cell(self, index, f"{self.name}({', '.join(values)})") for index, values in enumerate(combinations)]


@dataclass(frozen=True)
class Cell:
    """One parameter combination of a benchmark: what a verdict is given for.

    Attributes
    ----------
    benchmark : Benchmark
    index : int
        The combination's position in asv's order.
    label : str
        ``name(value, ...)``, as asv prints it.
    """

    benchmark: Benchmark
    index: int
    label: str


@dataclass(frozen=True)
class Suite:
    """What one worker found in the suite.

    Attributes
    ----------
    benchmarks : tuple of Benchmark
    import_errors : Mapping[str, str]
        Module name to traceback, for modules that failed to import.
    unsupported : tuple of Mapping
        ``{"benchmark", "feature", "why"}`` per asv feature bootmark does not run.
    package_file : str or None
        Where the worker imported the checked package from.
    package_error : str or None
        Why the package could not be imported, if it could not.
    python : str
        The worker's Python version.
    distributions : Mapping[str, str]
        Distribution to version, for what the project and its suite loaded.
    ignored : tuple of Mapping
        ``{"benchmark", "why"}`` per test that looks like a benchmark but is not run.
    """

    benchmarks: tuple[Benchmark, ...]
    import_errors: Mapping[str, str]
    unsupported: tuple[Mapping[str, str], ...]
    package_file: str | None
    package_error: str | None
    python: str
    distributions: Mapping[str, str] = None
    ignored: tuple[Mapping[str, str], ...] = ()

    @classmethod
    def from_json(cls, data: Mapping) -> Suite:
        """The record of the worker's first reply."""
        problems = data["problems"]
        return cls(
            benchmarks=tuple(Benchmark.from_json(item) for item in data["benchmarks"]),
            import_errors=dict(problems["import_errors"]),
            unsupported=tuple(problems["unsupported"]),
            package_file=data.get("package_file"),
            package_error=problems.get("package_error"),
            python=data["python"],
            distributions=dict(data.get("distributions") or {}),
            ignored=tuple(problems.get("ignored", ())),
        )


class SuiteWorker:
    """A worker process (``worker.py``) for one side, spoken to in JSON lines.

    Parameters
    ----------
    python : str
        The interpreter that runs it (the side's environment).
    paths : sequence of str
        Absolute import roots put first on its path.
    benchmark_dir : str
        The absolute benchmark folder (or a pytest suite's one test file).
    package : str or None
        The package whose origin it reports.
    label : str
        How errors name it (``baseline`` or ``current``).
    framework : str, optional
        ``asv`` or ``pytest``.
    select : sequence of str, optional
        The modules (asv) or node ids (pytest) it loads; None loads the whole suite.
    root : str, optional
        The project's checkout (pytest's rootdir).
    pycache : str, optional
        Where its bytecode caches go (``PYTHONPYCACHEPREFIX``), so importing the
        project's code writes nothing into the checkout.
    hash_seed : int, optional
        Its ``PYTHONHASHSEED`` (unless the environment sets one): the two workers of a
        pair share one, so string hashing lays out dicts and sets alike on both sides.
    pytest_args : sequence of str, optional
        Options for pytest, after bootmark's own (a pytest suite only).
    wrapper : sequence of str, optional
        A command the worker runs under (valgrind's, to count its instructions:
        :mod:`bootmark.gate.instructions`).
    start_timeout : float, optional
        Seconds the worker may take to load the suite.
    """

    def __init__(
        self,
        python,
        paths,
        benchmark_dir,
        package,
        label,
        framework="asv",
        select=None,
        root=None,
        pycache=None,
        hash_seed=None,
        pytest_args=(),
        wrapper=(),
        start_timeout=START_TIMEOUT_S,
    ):
        config = {
            "pytest_args": list(pytest_args),
            "paths": list(paths),
            "benchmark_dir": benchmark_dir,
            "package": package,
            "framework": framework,
            "select": list(select) if select is not None else None,
            "root": root or os.path.dirname(benchmark_dir),
            "versions": not wrapper,  # a worker under valgrind only counts instructions
        }
        self.label = label
        self.log = tempfile.TemporaryFile("w+")
        self.scratch = tempfile.TemporaryDirectory(prefix="bootmark-gate-worker-")
        environment = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")
        environment["PYTHONPYCACHEPREFIX"] = pycache or os.path.join(self.scratch.name, "pycache")
        if hash_seed is not None and "PYTHONHASHSEED" not in os.environ:
            environment["PYTHONHASHSEED"] = str(hash_seed)
        self.child = LineProcess(
            [*wrapper, python, WORKER_SCRIPT, json.dumps(config)],
            f"the {label} worker",
            self.log,
            WorkerFailure,
            environment,
            cwd=self.scratch.name,  # the benchmarks' stray files land in a folder that is deleted
        )
        self.suite = Suite.from_json(json.loads(self.child.read(start_timeout)))

    @property
    def pid(self) -> int:
        """The worker process's id (to pin it to a CPU: bootmark.core.cpus)."""
        return self.child.process.pid

    def request(self, operation: str, timeout: float, **fields) -> dict:
        """Send one request; return the reply (a dict with ``error`` on a benchmark failure).

        Raises
        ------
        WorkerFailure
            The worker died or did not reply within ``timeout`` seconds (it is killed).
        """
        self.child.send(json.dumps({"op": operation, **fields}))
        return json.loads(self.child.read(timeout))

    def close(self) -> None:
        """Stop the worker (teardown of the prepared cell), killing it if it hangs."""
        self.child.stop('{"op": "stop"}')
        self.log.close()
        self.scratch.cleanup()

    def __enter__(self) -> SuiteWorker:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def compile_patterns(patterns: Sequence[str]) -> list[re.Pattern]:
    """The ``--bench`` regular expressions, compiled.

    Raises
    ------
    SuiteError
        A pattern that is not a regular expression, named with the reason, in one line
        (before any git or build work when the CLI calls this first).

    Examples
    --------
    >>> from bootmark.gate.suite import compile_patterns
    >>> [pattern.pattern for pattern in compile_patterns(["time_sort", "1000[)]$"])]
    ['time_sort', '1000[)]$']
    >>> try:
    ...     compile_patterns(["("])
    ... except Exception as error:
    ...     print(str(error).split(";")[0])
    --bench '(' is not a regular expression (missing ), unterminated subpattern at position 0)
    """
    compiled = []
    for pattern in patterns:
        try:
            compiled.append(re.compile(pattern))
        except re.error as error:
            raise SuiteError(
                f"--bench {pattern!r} is not a regular expression ({error}); escape ( [ * + ? with a backslash to "
                "match them as text"
            ) from None
    return compiled


def select_cells(benchmarks: Sequence[Benchmark], patterns: Sequence[str], config: GateConfig) -> list[Cell]:
    r"""The cells gated: every benchmark's cells, minus ``exclude``, kept to those whose
    label matches one of the regular expressions ``patterns`` when any are given (as
    asv's ``--bench``).

    Parameters
    ----------
    benchmarks : sequence of Benchmark
        What the current side's worker found.
    patterns : sequence of str
        Regular expressions searched in each cell's label; none keeps every cell.
    config : GateConfig
        Its ``exclude`` patterns drop whole benchmarks.

    Returns
    -------
    list of Cell

    Examples
    --------
    >>> from bootmark.gate.config import GateConfig
    >>> from bootmark.gate.suite import Benchmark, select_cells
    >>> sized = Benchmark("bench.time_sum", "time", ("n",), (("10", "1000"),), None, 60.0)
    >>> config = GateConfig("/project", "benchmarks", None, ("",), None, 1.1, exclude=("bench.time_io",))
    >>> [cell.label for cell in select_cells([sized], ["1000"], config)]
    ['bench.time_sum(1000)']
    """
    compiled = compile_patterns(patterns)
    cells = []
    for benchmark in benchmarks:
        if config.excluded(benchmark.name):
            continue
        cells.extend(cell for cell in benchmark.cells() if not compiled or any(p.search(cell.label) for p in compiled))
    return cells


_REGEX_SYNTAX = frozenset(".^$*+?{}[]|()")
_MAY_BE_ABSENT = frozenset("*?{+")  # after a character: it may be missing, or repeat


def _alternates(pattern: str) -> bool:
    """Whether ``pattern`` has a ``|`` outside every group and character set."""
    depth, in_set, index = 0, False, 0
    while index < len(pattern):
        character = pattern[index]
        if character == "\\":
            index += 2
            continue
        if in_set:
            in_set = character != "]"
        elif character == "[":
            in_set = True
        elif character in "()":
            depth += 1 if character == "(" else -1
        elif character == "|" and depth == 0:
            return True
        index += 1
    return False


def literal_start(pattern: str) -> str | None:
    r"""The text every match of ``pattern`` starts with, when the pattern is anchored at the
    start of a name (``^``) and has no alternation; None otherwise (a pattern searched
    anywhere in a name can match in any module).

    Parameters
    ----------
    pattern : str
        A ``--bench`` regular expression.

    Returns
    -------
    str or None

    Examples
    --------
    >>> from bootmark.gate.suite import literal_start
    >>> literal_start(r"^bench_io\.Read\.time_(csv|json)")
    'bench_io.Read.time_'
    >>> literal_start(r"^benchmarks/test_io\.py::") , literal_start("time_sort"), literal_start("^a|b")
    ('benchmarks/test_io.py::', None, None)
    >>> literal_start(r"^solvers?\.lu")
    'solver'
    """
    if _alternates(pattern) or not pattern.startswith("^"):
        return None
    rest, start, index = pattern[1:], [], 0
    while index < len(rest):
        character, step = rest[index], 1
        if character == "\\":
            if index + 1 >= len(rest) or rest[index + 1].isalnum():
                break  # \d, \w, \b ...: a class or an assertion, not a character
            character, step = rest[index + 1], 2
        elif character in _REGEX_SYNTAX:
            break
        if index + step < len(rest) and rest[index + step] in _MAY_BE_ABSENT:
            break
        start.append(character)
        index += step
    return "".join(start)


def modules_to_list(
    modules: Sequence[str], patterns: Sequence[str], separator: str, always: Sequence[str] = ()
) -> list[str] | None:
    r"""The modules a listing must import to find every cell ``patterns`` select: those
    whose cells' names (``module`` + ``separator`` + the rest) can begin as every match of
    some pattern begins (:func:`literal_start`), and ``always``. None, meaning every module,
    when there is no pattern or one does not say how its matches begin.

    Parameters
    ----------
    modules : sequence of str
        Every module of the suite: asv's dotted names, or pytest files relative to the root.
    patterns : sequence of str
        The ``--bench`` regular expressions.
    separator : str
        What follows the module in a cell's name: ``.`` for asv, ``::`` for pytest.
    always : sequence of str, optional
        Modules imported whatever the patterns (an asv module that names its benchmarks
        itself, with ``benchmark_name``).

    Returns
    -------
    list of str or None

    Examples
    --------
    >>> from bootmark.gate.suite import modules_to_list
    >>> modules = ["bench_io", "bench_sort", "solvers.lu", "solvers.qr"]
    >>> modules_to_list(modules, [r"^bench_io\.time_read", r"^solvers\."], ".")
    ['bench_io', 'solvers.lu', 'solvers.qr']
    >>> modules_to_list(modules, [r"^bench_io\.", "time_read"], ".") is None
    True
    """
    starts = [literal_start(pattern) for pattern in patterns]
    if not starts or not all(starts):
        return None
    return [
        module
        for module in modules
        if module in always
        or any((module + separator).startswith(start) or start.startswith(module + separator) for start in starts)
    ]


def listing_selection(config: GateConfig, patterns: Sequence[str]) -> tuple[list[str] | None, str]:
    """What the listing worker loads so as to find every cell ``patterns`` can select, and
    a phrase that says so: for asv, the modules :func:`modules_to_list` keeps (a module
    that sets ``benchmark_name`` is always kept); for pytest, the test file or the folder
    that every anchored pattern's start names. ``(None, "")``, the whole suite, when a
    pattern does not say where its matches begin.

    Parameters
    ----------
    config : GateConfig
    patterns : sequence of str
        The ``--bench`` regular expressions.

    Returns
    -------
    (list of str or None, str)
    """
    folder = os.path.join(config.root, config.benchmark_dir)
    if not patterns or not os.path.isdir(folder):
        return None, ""
    if config.framework == "asv":
        modules = module_names(folder)
        always = [module for module in modules if "benchmark_name" in _module_text(folder, module)]
        chosen = modules_to_list(modules, patterns, ".", always)
        if chosen is None or len(chosen) == len(modules):
            return None, ""
        return chosen, f"imported {len(chosen)} of the suite's {len(modules)} modules, those --bench can select from"
    targets = []
    for start in map(literal_start, patterns):
        if not start:
            return None, ""
        path = start.split("::", 1)[0] if "::" in start else start.rsplit("/", 1)[0] if "/" in start else ""
        if not path or not os.path.exists(os.path.join(config.root, path)):
            return None, ""
        targets.append(path)
    targets = sorted(set(targets))
    inside = os.path.normpath(config.benchmark_dir)
    if any(os.path.normpath(target) == inside or not _within(target, inside) for target in targets):
        return None, ""
    return targets, f"collected {', '.join(targets)} only, where --bench can select from"


def _within(path, folder):
    return folder == "." or os.path.normpath(path).startswith(folder.rstrip("/") + "/")


def _module_text(folder, dotted):
    try:
        with open(os.path.join(folder, *dotted.split(".")) + ".py", encoding="utf-8", errors="replace") as stream:
            return stream.read()
    except OSError:
        return "benchmark_name"  # unreadable: kept, to be safe


def list_suite(make_worker, config: GateConfig, patterns: Sequence[str], say) -> Suite:
    """The suite as a listing worker finds it, loading only what ``patterns`` can select
    from (:func:`listing_selection`), else the whole suite; the whole suite too when the
    narrow listing holds no selected cell, so a narrowing can cost time but never a cell.

    Parameters
    ----------
    make_worker : callable
        ``make_worker(select)`` gives a :class:`SuiteWorker` loading ``select`` (None:
        the whole suite).
    config : GateConfig
    patterns : sequence of str
    say : callable
        Prints one progress message.

    Returns
    -------
    Suite
    """
    selection, phrase = listing_selection(config, patterns)
    if selection is not None:
        with make_worker(selection) as listing:
            found = listing.suite
        if select_cells(found.benchmarks, patterns, config):
            say(f"listing: {phrase}")
            return found
        say("listing: the narrowed listing holds no selected cell; listing the whole suite")
    with make_worker(None) as listing:
        return listing.suite
