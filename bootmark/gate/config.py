"""A project's gate configuration: where its benchmark suite is and how ``bootmark gate``
runs it, read from ``pyproject.toml`` (every key optional)::

    [tool.bootmark.gate]
    benchmarks = "benchmarks"          # default: asv.conf.json's benchmark_dir, else benchmarks/
    framework = "asv"                  # or "pytest" (pytest-benchmark, -codspeed), "pyperf"; default: told
    python = ".venv/bin/python"        # the interpreter the workers run on (default: bootmark's)
    package = "mypkg"                  # checked to come from each side's tree (default: [project] name)
    paths = ["src"]                    # import roots inside a tree (default: src/ if present, else the root)
    install = "python -m pip install --no-deps --no-build-isolation ."   # build each side instead
    tolerance = 1.10                   # allowed slow-down factor (--tolerance overrides)
    exclude = ["bench_io.*"]           # benchmarks not gated (fnmatch patterns on their names)
    pytest-args = "-c /dev/null"       # options for pytest, as the project runs its suite (--pytest-args)

    [tool.bootmark.gate.tolerances]
    "bench_solver.*" = 1.5             # per benchmark, fnmatch patterns, the first match wins

Where the suite is, when neither ``--benchmarks`` nor ``benchmarks`` names it: the
``benchmark_dir`` of the first ``asv.conf.json`` found at the root, in ``benchmarks/`` or in
``asv_bench/`` (the layouts asv's users keep), read relative to that file as asv reads it;
else the first of ``benchmarks/``, ``bench/``, ``benchmark/`` and ``tests/benchmarks/``
that exists. A folder holding pytest test files (``test_*.py``, ``*_test.py``,
``conftest.py``) and named by no asv configuration is a pytest-benchmark suite; benchmarks
are then named by their pytest node ids. One that holds no pytest test file but scripts that
import pyperf is a pyperf suite (:mod:`bootmark.gate.pyperf_worker`).
"""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass

import json5

from bootmark.gate.pyperf_worker import script_paths
from bootmark.gate.worker import ADAPTERS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["DEFAULT_TOLERANCE", "GateConfig", "SuiteError", "load_config"]

DEFAULT_TOLERANCE = 1.10  # asv continuous's default factor, so the two gates ask the same question
ASV_CONFIG_FOLDERS = ("", "benchmarks", "asv_bench")  # where asv's users keep asv.conf.json
# where suites are kept when no configuration names one (pytest-benchmark's users vary most)
DEFAULT_FOLDERS = ("benchmarks", "bench", "benchmark", "tests/benchmarks")
FRAMEWORKS = tuple(ADAPTERS)  # asv, pytest, pyperf: one worker adapter each


class SuiteError(RuntimeError):
    """The suite or its configuration cannot be used; the message names the cause and fix."""


@dataclass(frozen=True)
class GateConfig:
    """Where a project's suite is and how ``bootmark gate`` runs it (module docstring).

    Attributes
    ----------
    root : str
        The project's git checkout (absolute).
    benchmark_dir : str
        The benchmark folder, relative to ``root`` (``.`` for the root itself), or, for a
        pytest suite, one test file.
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
    framework : str
        ``asv``, ``pytest`` (a pytest-benchmark or pytest-codspeed suite) or ``pyperf``.
    python : str or None
        The interpreter the workers run on (absolute), or None for bootmark's own.
    found_by : str
        How the benchmark folder was chosen, for the message that names it.
    implementation : str or None
        The parameter that names the implementation in head-to-head benchmarks
        (``bootmark.gate.headtohead``), or None.
    reference : str or None
        The implementation the others are set against (with ``implementation``).
    pytest_args : tuple of str
        Options given to pytest after bootmark's own, as the project runs its suite
        (``-c /dev/null``, ``-o addopts=``, ``-p no:xdist``).
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
    framework: str = "asv"
    python: str | None = None
    found_by: str = "--benchmarks"
    implementation: str | None = None
    reference: str | None = None
    pytest_args: tuple[str, ...] = ()

    def tolerance_for(self, benchmark: str) -> float:
        """The allowed slow-down factor of ``benchmark`` (an asv name): the first matching
        ``tolerances`` pattern's, else ``tolerance``."""
        return next(
            (factor for pattern, factor in self.tolerances if fnmatch.fnmatchcase(benchmark, pattern)), self.tolerance
        )

    def excluded(self, benchmark: str) -> bool:
        """Whether ``benchmark`` matches an ``exclude`` pattern."""
        return any(fnmatch.fnmatchcase(benchmark, pattern) for pattern in self.exclude)


def _asv_benchmark_dir(root, required=True):
    """The benchmark folder named by the first asv.conf.json in :data:`ASV_CONFIG_FOLDERS`
    (``benchmark_dir``, default ``benchmarks``, relative to that file, as asv reads it),
    relative to ``root``, and the file's path relative to ``root``; (None, None) when there
    is none.

    The file is parsed as asv parses it: as JSON5 (the ``json5`` package asv itself uses),
    so ``//`` and ``/* */`` comments anywhere in a line, trailing commas and unquoted keys
    are read. A file that does not parse raises when ``required`` (the config is the only
    way to the suite), and is passed over otherwise (``--benchmarks`` or
    ``[tool.bootmark.gate] benchmarks`` named the folder)."""
    for folder in ASV_CONFIG_FOLDERS:
        path = os.path.join(root, folder, "asv.conf.json")
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as stream:
            text = stream.read()
        try:
            data = json5.loads(text)
            benchmark_dir = data.get("benchmark_dir", "benchmarks") if isinstance(data, dict) else None
            if not isinstance(benchmark_dir, str):
                raise ValueError(f"benchmark_dir must be a string, got {benchmark_dir!r}")
        except ValueError as error:
            if not required:
                return None, None
            raise SuiteError(
                f"{path} cannot be read as asv reads it ({error}); fix it, or name the suite with --benchmarks DIR "
                "or [tool.bootmark.gate] benchmarks"
            ) from None
        return os.path.normpath(os.path.join(folder, benchmark_dir)), os.path.relpath(path, root)
    return None, None


NOT_THE_PACKAGE = frozenset(
    {"tests", "test", "testing", "benchmarks", "benchmark", "bench", "asv_bench", "docs", "doc", "examples", "scripts"}
)


def _import_name(root, paths, project_name):
    """The import name of the project's package, which each worker imports first from its
    side's tree (and whose origin it reports): the distribution name made importable when a
    package of that name (in any case) is in the import roots, else the one package there
    (not a tests, docs or benchmark folder), else the distribution name. Checked, because
    without it a test runner that puts the checkout first on the import path (pytest's
    ``pythonpath = .``, or its rootdir inserted for a ``tests`` package) would give both
    sides the current code."""
    wanted = re.sub(r"[-.]+", "_", project_name) if project_name else None
    found = []
    for path in paths:
        folder = os.path.join(root, path)
        names = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
        found += [
            name
            for name in names
            if name.isidentifier()
            and name not in NOT_THE_PACKAGE
            and os.path.isfile(os.path.join(folder, name, "__init__.py"))
        ]
    same = [name for name in found if wanted is not None and name.lower() == wanted.lower()]
    return same[0] if same else found[0] if len(found) == 1 else wanted


def _setup_name(root):
    """The ``name=`` a setup.py or setup.cfg gives, for a project with no ``[project]`` table."""
    for file, pattern in (
        ("setup.cfg", r"(?m)^name\s*=\s*([\w.-]+)"),
        ("setup.py", r"\bname\s*=\s*['\"]([\w.-]+)['\"]"),
    ):
        try:
            with open(os.path.join(root, file), encoding="utf-8", errors="replace") as stream:
                found = re.search(pattern, stream.read())
        except OSError:
            continue
        if found:
            return found.group(1)
    return None


def _is_pytest_folder(folder):
    """Whether ``folder`` holds pytest test files (then it is a pytest-benchmark suite)."""
    for _, _, files in os.walk(folder):
        if any(
            f == "conftest.py" or (f.endswith(".py") and (f.startswith("test_") or f.endswith("_test.py")))
            for f in files
        ):
            return True
    return False


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


def load_config(
    root: str,
    benchmarks: str | None = None,
    tolerance: float | None = None,
    framework: str | None = None,
    python: str | None = None,
    pytest_args: str | None = None,
) -> GateConfig:
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
    framework : str, optional
        ``asv``, ``pytest`` or ``pyperf`` (``--framework``); overrides the configuration and the
        folder's own evidence.
    python : str, optional
        The workers' interpreter (``--python``), a path or a command on ``PATH``.
    pytest_args : str, optional
        Options for pytest (``--pytest-args``), split as a shell splits them; overrides
        ``[tool.bootmark.gate] pytest-args``.

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
    >>> from bootmark.gate.config import load_config
    >>> with tempfile.TemporaryDirectory() as root:
    ...     os.mkdir(os.path.join(root, "benchmarks"))
    ...     with open(os.path.join(root, "pyproject.toml"), "w") as stream:
    ...         for line in ('[project]', 'name = "my-pkg"', '[tool.bootmark.gate.tolerances]', '"bench_io.*" = 1.5'):
    ...             print(line, file=stream)
    ...     config = load_config(root)
    >>> config.package, config.benchmark_dir, config.paths, config.install, config.framework
    ('my_pkg', 'benchmarks', ('',), None, 'asv')
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
    known = {
        "benchmarks",
        "framework",
        "python",
        "package",
        "paths",
        "install",
        "tolerance",
        "tolerances",
        "exclude",
        "implementation",
        "reference",
        "pytest-args",
    }
    unknown = sorted(set(table) - known)
    if unknown:
        raise SuiteError(
            f"{pyproject}: unknown [tool.bootmark.gate] key(s) {', '.join(unknown)}; known: {sorted(known)}"
        )
    asv_folder, asv_file = _asv_benchmark_dir(root, required=not (benchmarks or table.get("benchmarks")))
    if benchmarks:
        folder, found_by = benchmarks, "--benchmarks"
    elif table.get("benchmarks"):
        folder, found_by = table["benchmarks"], "[tool.bootmark.gate] benchmarks"
    elif asv_folder is not None:
        folder, found_by = asv_folder, f"benchmark_dir of {asv_file}"
    else:
        folder = next((name for name in DEFAULT_FOLDERS if os.path.isdir(os.path.join(root, name))), "benchmarks")
        found_by = f"the first of {', '.join(f + '/' for f in DEFAULT_FOLDERS)} that exists"
    absolute = os.path.realpath(os.path.join(root, folder))
    if absolute != root and not absolute.startswith(root + os.sep):
        raise SuiteError(f"the benchmark folder {folder} lies outside the checkout {root}")
    one_file = os.path.isfile(absolute)
    if one_file and not absolute.endswith(".py"):
        raise SuiteError(f"the benchmark file {folder} is not a Python file; name a folder or a pytest test file")
    if not one_file and not os.path.isdir(absolute):
        raise SuiteError(
            f"no benchmark folder {os.path.relpath(absolute, root)} ({found_by}) in {root}; pass --benchmarks DIR "
            "(an asv suite or a folder of pytest-benchmark tests), or set [tool.bootmark.gate] benchmarks (or "
            "benchmark_dir in asv.conf.json)"
        )
    framework = framework or table.get("framework")
    if framework is None:
        named_by_asv = asv_folder is not None and os.path.realpath(os.path.join(root, asv_folder)) == absolute
        if named_by_asv:
            framework = "asv"
        elif script_paths(absolute) and (one_file or not _is_pytest_folder(absolute)):
            framework = "pyperf"  # scripts that import pyperf, and no pytest test file beside them
        else:
            framework = "pytest" if one_file or _is_pytest_folder(absolute) else "asv"
    if framework not in FRAMEWORKS:
        raise SuiteError(f"framework must be one of {', '.join(FRAMEWORKS)}, got {framework!r}")
    if one_file and framework == "asv":
        raise SuiteError(
            f"an asv suite is a folder, and {folder} is a file; name its folder, or --framework pytest or pyperf"
        )
    if pytest_args is None:
        pytest_args = table.get("pytest-args", [])
    pytest_args = (
        tuple(shlex.split(pytest_args)) if isinstance(pytest_args, str) else _strings(pytest_args, "pytest-args")
    )
    python = python or table.get("python")
    if python is not None:
        python = _interpreter(root, python)
    paths = _strings(table["paths"], "[tool.bootmark.gate] paths") if "paths" in table else None
    if paths is None:
        paths = ("src",) if os.path.isdir(os.path.join(root, "src")) else ("",)
    package = table.get("package") or _import_name(root, paths, project_name or _setup_name(root))
    install = table.get("install")
    if install is not None:
        install = tuple(shlex.split(install)) if isinstance(install, str) else _strings(install, "install")
    implementation, reference = table.get("implementation"), table.get("reference")
    if (implementation is None) != (reference is None) or not all(
        value is None or (isinstance(value, str) and value) for value in (implementation, reference)
    ):
        raise SuiteError(
            f"{pyproject}: [tool.bootmark.gate] implementation (the parameter naming the implementation) and "
            "reference (the implementation the others are set against) go together, as two non-empty strings"
        )
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
        framework=framework,
        python=python,
        found_by=found_by,
        implementation=implementation,
        reference=reference,
        pytest_args=pytest_args,
    )


def _interpreter(root, python):
    """``python`` (a path, relative to ``root`` when not absolute, or a command on
    ``PATH``) as an absolute executable."""
    if not isinstance(python, str) or not python:
        raise SuiteError(f"python must be an interpreter's path or command, got {python!r}")
    candidate = os.path.join(root, python) if os.sep in python and not os.path.isabs(python) else python
    found = candidate if os.sep in candidate else shutil.which(candidate)
    if not found or not (os.path.isfile(found) and os.access(found, os.X_OK)):
        raise SuiteError(
            f"no interpreter {python!r} (python: a path, relative to the checkout, or a command on PATH); "
            "point it at the project's environment, e.g. .venv/bin/python"
        )
    return os.path.abspath(found)
