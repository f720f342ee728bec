"""A project's asv-style benchmark suite, as ``bootmark gate`` sees it: where it is, how
it is configured, its cells, and the worker process that runs them.

Configuration, in ``pyproject.toml`` (every key optional)::

    [tool.bootmark.gate]
    benchmarks = "benchmarks"          # default: asv.conf.json's benchmark_dir, else benchmarks/
    package = "mypkg"                  # checked to come from each side's tree (default: [project] name)
    paths = ["src"]                    # import roots inside a tree (default: src/ if present, else the root)
    install = "python -m pip install --no-deps --no-build-isolation ."   # build each side instead
    tolerance = 1.10                   # allowed slow-down factor (--tolerance overrides)
    exclude = ["bench_io.*"]           # benchmarks not gated (fnmatch patterns on asv names)

    [tool.bootmark.gate.tolerances]
    "bench_solver.*" = 1.5             # per benchmark, fnmatch patterns, the first match wins

The benchmark code always comes from the current tree, for both sides, as in asv: the
suite measures two revisions of the package with the same yardstick.
"""

from __future__ import annotations

import fnmatch
import itertools
import json
import os
import re
import shlex
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from bootmark.core.processes import LineProcess

__all__ = [
    "DEFAULT_TOLERANCE",
    "Benchmark",
    "Cell",
    "GateConfig",
    "Suite",
    "SuiteError",
    "SuiteWorker",
    "WorkerFailure",
    "load_config",
    "select_cells",
]

DEFAULT_TOLERANCE = 1.10  # asv continuous's default factor, so the two gates ask the same question
WORKER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")
START_TIMEOUT_S = 600.0  # importing a suite can compile (Numba) for minutes; a hang must still end


class SuiteError(RuntimeError):
    """The suite or its configuration cannot be used; the message names the cause and fix."""


class WorkerFailure(RuntimeError):
    """A worker stopped or gave no reply in time; the message carries its stderr's tail."""


@dataclass(frozen=True)
class GateConfig:
    """Where a project's suite is and how ``bootmark gate`` runs it (module docstring).

    Attributes
    ----------
    root : str
        The project's git checkout (absolute).
    benchmark_dir : str
        The benchmark folder, relative to ``root``.
    package : str or None
        The import name checked to come from each side's tree.
    paths : tuple of str
        Import roots relative to a tree (``""`` is the tree itself).
    install : tuple of str or None
        The command that builds a tree into a virtual environment, or None to import
        each tree from ``paths``.
    tolerance : float
        The default allowed slow-down factor (> 1).
    tolerances : tuple of (str, float)
        Per-benchmark factors: fnmatch patterns on asv names, the first match wins.
    exclude : tuple of str
        fnmatch patterns of benchmarks not gated.
    config_file : str or None
        The pyproject.toml read, if any.
    """

    root: str
    benchmark_dir: str
    package: str | None
    paths: tuple[str, ...]
    install: tuple[str, ...] | None
    tolerance: float
    tolerances: tuple[tuple[str, float], ...] = ()
    exclude: tuple[str, ...] = ()
    config_file: str | None = None

    def tolerance_for(self, benchmark: str) -> float:
        """The allowed slow-down factor of ``benchmark`` (an asv name): the first matching
        ``tolerances`` pattern's, else ``tolerance``."""
        return next(
            (factor for pattern, factor in self.tolerances if fnmatch.fnmatchcase(benchmark, pattern)), self.tolerance
        )

    def excluded(self, benchmark: str) -> bool:
        """Whether ``benchmark`` matches an ``exclude`` pattern."""
        return any(fnmatch.fnmatchcase(benchmark, pattern) for pattern in self.exclude)


def _asv_benchmark_dir(root):
    """asv.conf.json's benchmark_dir (relative to root), or None. asv's file allows //
    comments, which JSON does not."""
    path = os.path.join(root, "asv.conf.json")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as stream:
        text = "\n".join(line for line in stream if not line.lstrip().startswith("//"))
    try:
        folder = json.loads(text).get("benchmark_dir", "benchmarks")
    except json.JSONDecodeError as error:
        raise SuiteError(f"{path} is not valid JSON ({error}); fix it or set [tool.bootmark.gate] benchmarks") from None
    return os.path.normpath(folder)


def _factor(value, where):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 1:
        raise SuiteError(f"{where} must be a number above 1 (an allowed slow-down factor), got {value!r}")
    return float(value)


def _strings(value, where):
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise SuiteError(f"{where} must be a string or a list of strings, got {value!r}")
    return tuple(value)


def load_config(root: str, benchmarks: str | None = None, tolerance: float | None = None) -> GateConfig:
    """The gate configuration of the project at ``root``.

    Parameters
    ----------
    root : str
        The project's git checkout.
    benchmarks : str, optional
        The benchmark folder (``--benchmarks``), relative to ``root`` or absolute inside
        it; overrides the configuration.
    tolerance : float, optional
        The default allowed slow-down factor (``--tolerance``); overrides the
        configuration's ``tolerance``.

    Returns
    -------
    GateConfig

    Raises
    ------
    SuiteError
        A configuration value of the wrong type, a tolerance not above 1, or no
        benchmark folder.

    Examples
    --------
    >>> import os, tempfile
    >>> from bootmark.gate.suite import load_config
    >>> with tempfile.TemporaryDirectory() as root:
    ...     os.mkdir(os.path.join(root, "benchmarks"))
    ...     with open(os.path.join(root, "pyproject.toml"), "w") as stream:
    ...         for line in ('[project]', 'name = "my-pkg"', '[tool.bootmark.gate.tolerances]', '"bench_io.*" = 1.5'):
    ...             print(line, file=stream)
    ...     config = load_config(root)
    >>> config.package, config.benchmark_dir, config.paths, config.install
    ('my_pkg', 'benchmarks', ('',), None)
    >>> config.tolerance_for("bench_io.time_read"), config.tolerance_for("bench_math.time_add")
    (1.5, 1.1)
    """
    root = os.path.realpath(root)
    pyproject = os.path.join(root, "pyproject.toml")
    table, project_name, config_file = {}, None, None
    if os.path.exists(pyproject):
        try:
            with open(pyproject, "rb") as stream:
                data = tomllib.load(stream)
        except tomllib.TOMLDecodeError as error:
            raise SuiteError(f"{pyproject} is not valid TOML ({error})") from None
        table = data.get("tool", {}).get("bootmark", {}).get("gate", {})
        if not isinstance(table, dict):
            raise SuiteError(f"{pyproject}: [tool.bootmark.gate] must be a table")
        project_name = data.get("project", {}).get("name")
        config_file = pyproject
    known = {"benchmarks", "package", "paths", "install", "tolerance", "tolerances", "exclude"}
    unknown = sorted(set(table) - known)
    if unknown:
        raise SuiteError(
            f"{pyproject}: unknown [tool.bootmark.gate] key(s) {', '.join(unknown)}; known: {sorted(known)}"
        )
    folder = benchmarks or table.get("benchmarks") or _asv_benchmark_dir(root) or "benchmarks"
    absolute = os.path.realpath(os.path.join(root, folder))
    if not absolute.startswith(root + os.sep):
        raise SuiteError(f"the benchmark folder {folder} lies outside the checkout {root}")
    if not os.path.isdir(absolute):
        raise SuiteError(
            f"no benchmark folder {os.path.relpath(absolute, root)} in {root}; pass --benchmarks DIR, or set "
            "[tool.bootmark.gate] benchmarks (or benchmark_dir in asv.conf.json)"
        )
    package = table.get("package") or (re.sub(r"[-.]+", "_", project_name) if project_name else None)
    paths = _strings(table["paths"], "[tool.bootmark.gate] paths") if "paths" in table else None
    if paths is None:
        paths = ("src",) if os.path.isdir(os.path.join(root, "src")) else ("",)
    install = table.get("install")
    if install is not None:
        install = tuple(shlex.split(install)) if isinstance(install, str) else _strings(install, "install")
    tolerances = table.get("tolerances", {})
    if not isinstance(tolerances, dict):
        raise SuiteError(f"{pyproject}: [tool.bootmark.gate.tolerances] must be a table of pattern = factor")
    return GateConfig(
        root=root,
        benchmark_dir=os.path.relpath(absolute, root),
        package=package,
        paths=paths,
        install=install,
        tolerance=_factor(
            tolerance if tolerance is not None else table.get("tolerance", DEFAULT_TOLERANCE), "tolerance"
        ),
        tolerances=tuple((str(p), _factor(f, f"tolerance of {p!r}")) for p, f in tolerances.items()),
        exclude=_strings(table.get("exclude", []), "[tool.bootmark.gate] exclude"),
        config_file=config_file,
    )


@dataclass(frozen=True)
class Benchmark:
    """One benchmark as the worker found it.

    Attributes
    ----------
    name : str
        Its asv name (``module.Class.method``).
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
    """

    benchmarks: tuple[Benchmark, ...]
    import_errors: Mapping[str, str]
    unsupported: tuple[Mapping[str, str], ...]
    package_file: str | None
    package_error: str | None
    python: str

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
        The absolute benchmark folder.
    package : str or None
        The package whose origin it reports.
    label : str
        How errors name it (``baseline`` or ``current``).
    environment : Mapping, optional
        Its environment variables (default: this process's).
    """

    def __init__(self, python, paths, benchmark_dir, package, label, environment=None):
        config = {"paths": list(paths), "benchmark_dir": benchmark_dir, "package": package}
        self.label = label
        self.log = tempfile.TemporaryFile("w+")
        self.scratch = tempfile.TemporaryDirectory(prefix="bootmark-gate-worker-")
        self.child = LineProcess(
            [python, WORKER_SCRIPT, json.dumps(config)],
            f"the {label} worker",
            self.log,
            WorkerFailure,
            dict(environment if environment is not None else os.environ, OMP_WAIT_POLICY="PASSIVE"),
            cwd=self.scratch.name,  # the benchmarks' stray files land in a folder that is deleted
        )
        self.suite = Suite.from_json(json.loads(self.child.read(START_TIMEOUT_S)))

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
    >>> from bootmark.gate.suite import Benchmark, GateConfig, select_cells
    >>> sized = Benchmark("bench.time_sum", "time", ("n",), (("10", "1000"),), None, 60.0)
    >>> config = GateConfig("/project", "benchmarks", None, ("",), None, 1.1, exclude=("bench.time_io",))
    >>> [cell.label for cell in select_cells([sized], ["1000"], config)]
    ['bench.time_sum(1000)']
    """
    compiled = [re.compile(pattern) for pattern in patterns]
    cells = []
    for benchmark in benchmarks:
        if config.excluded(benchmark.name):
            continue
        cells.extend(cell for cell in benchmark.cells() if not compiled or any(p.search(cell.label) for p in compiled))
    return cells
