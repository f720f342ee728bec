"""A project's gate configuration: where its benchmark suite is and how ``bootmark gate``
runs it, read from ``pyproject.toml`` (every key optional)::

    [tool.bootmark.gate]
    benchmarks = "benchmarks"          # default: asv.conf.json's benchmark_dir, else benchmarks/
    package = "mypkg"                  # checked to come from each side's tree (default: [project] name)
    paths = ["src"]                    # import roots inside a tree (default: src/ if present, else the root)
    install = "python -m pip install --no-deps --no-build-isolation ."   # build each side instead
    tolerance = 1.10                   # allowed slow-down factor (--tolerance overrides)
    exclude = ["bench_io.*"]           # benchmarks not gated (fnmatch patterns on asv names)

    [tool.bootmark.gate.tolerances]
    "bench_solver.*" = 1.5             # per benchmark, fnmatch patterns, the first match wins
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shlex
import sys
from dataclasses import dataclass

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["DEFAULT_TOLERANCE", "GateConfig", "SuiteError", "load_config"]

DEFAULT_TOLERANCE = 1.10  # asv continuous's default factor, so the two gates ask the same question


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
    >>> from bootmark.gate.config import load_config
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
