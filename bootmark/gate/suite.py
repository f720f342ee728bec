"""A project's asv-style benchmark suite, as ``bootmark gate`` sees it: its benchmarks and
cells, and the worker process that runs them (its configuration: :mod:`bootmark.gate.config`).

The benchmark code always comes from the current tree, for both sides, as in asv: the
suite measures two revisions of the package with the same yardstick.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bootmark.core.processes import LineProcess
from bootmark.gate.config import GateConfig, SuiteError

__all__ = [
    "Benchmark",
    "Cell",
    "Suite",
    "SuiteWorker",
    "WorkerFailure",
    "select_cells",
]

WORKER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")
START_TIMEOUT_S = 600.0  # importing a suite can compile (Numba) for minutes; a hang must still end


class WorkerFailure(RuntimeError):
    """A worker stopped or gave no reply in time; the message carries its stderr's tail."""


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
        ``time``, ``peakmem`` or ``track``.
    param_names : tuple of str
    params : tuple of tuple of str
        The parameter values' reprs, per parameter.
    number : int or None
        Calls per sample when the benchmark fixes it (asv's ``number``).
    timeout : float
        Seconds one call may take before the worker is stopped.
    unit : str or None
        A track's unit.
    """

    name: str
    kind: str
    param_names: tuple[str, ...]
    params: tuple[tuple[str, ...], ...]
    number: int | None
    timeout: float
    unit: str | None = None
    module: str = ""

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
        )

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
    ):
        config = {
            "pytest_args": list(pytest_args),
            "paths": list(paths),
            "benchmark_dir": benchmark_dir,
            "package": package,
            "framework": framework,
            "select": list(select) if select is not None else None,
            "root": root or os.path.dirname(benchmark_dir),
        }
        self.label = label
        self.log = tempfile.TemporaryFile("w+")
        self.scratch = tempfile.TemporaryDirectory(prefix="bootmark-gate-worker-")
        environment = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")
        environment["PYTHONPYCACHEPREFIX"] = pycache or os.path.join(self.scratch.name, "pycache")
        if hash_seed is not None and "PYTHONHASHSEED" not in os.environ:
            environment["PYTHONHASHSEED"] = str(hash_seed)
        self.child = LineProcess(
            [python, WORKER_SCRIPT, json.dumps(config)],
            f"the {label} worker",
            self.log,
            WorkerFailure,
            environment,
            cwd=self.scratch.name,  # the benchmarks' stray files land in a folder that is deleted
        )
        self.suite = Suite.from_json(json.loads(self.child.read(START_TIMEOUT_S)))

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
