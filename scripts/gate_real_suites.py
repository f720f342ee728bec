"""``bootmark gate`` on real projects' own suites, beside the tool each project uses.

Two public pure-Python projects, their repositories fetched as they are:

* **networkx**: its asv suite (``benchmarks/asv.conf.json``, the suite in
  ``benchmarks/benchmarks``), a chosen subset of cells, beside ``asv continuous``;
* **cattrs**: its pytest-benchmark suite (``bench/``), a chosen subset, beside
  pytest-benchmark's ``--benchmark-compare-fail=median:P%``.

For each, the study commits two changes of its own on top of the fetched commit: a
README-only commit (any flag is a false alarm) and a slow-down commit (one function does
redundant work). Every tool runs ``--runs`` times on each, on the same machine, the
project's own interpreter and environment (``--python``): the gate from wherever bootmark
is installed, the peers from the project's environment (pytest-benchmark) or their own
(asv). Verdicts, the cells flagged and the wall times go into a ``gatesuites`` receipt
(``--seal``) rendered into the workspace's RESULTS file (``--render``).

    python scripts/gate_real_suites.py --source networkx=/path/to/networkx \\
        --source cattrs=/path/to/cattrs --out suites.json
    python scripts/gate_real_suites.py --seal suites.json

Needs git, Python 3.12 (networkx requires it) and the package registry (each project's
environment is built with pip).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gate_vs_asv  # noqa: E402  (the sibling study: asv's table parser and home redirection)

BEGIN = "<!-- gate-real-suites:begin (rendered by `python scripts/gate_real_suites.py --render`; do not edit) -->"
END = "<!-- gate-real-suites:end -->"


@dataclass(frozen=True)
class Project:
    """A real project, what of its suite is gated, and the slow-down commit made on it.

    Attributes
    ----------
    name : str
    repository : str
        Its public repository (``owner/name`` on GitHub).
    framework : str
        ``asv`` or ``pytest``.
    benchmarks : str
        The suite's folder (for asv: the folder of ``asv.conf.json``, which names the suite).
    bench : tuple of str
        The gate's ``--bench`` regular expressions (cells gated).
    peer_selection : tuple of str
        The peer's own selection of the same cells (asv ``-b`` or pytest arguments).
    packages : tuple of str
        What the project's environment needs besides the project (pip requirements).
    readme : str
        The file the README-only commit edits.
    slow_file, slow_old, slow_new : str
        The slow-down: ``slow_old`` replaced by ``slow_new`` in ``slow_file``.
    slow_why : str
        What the slow-down does, for the report.
    suite : str
        The suite's kind as its maintainers write it (``asv``, ``pytest-benchmark``,
        ``pytest-codspeed``, ``pyperf``); corpus projects only.
    python : str
        The Python version the project's environment is made with (default ``--python``).
    install : tuple of str
        pip arguments that install the project with what it needs (``.`` is the clone);
        the project itself (``distribution``) is then uninstalled, so each side's own tree
        is what the gate imports.
    distribution : str
        The project's distribution name.
    gate_args : tuple of str
        Options the gate needs for this layout (``--benchmarks``), as a maintainer gives
        them: the suite itself is never edited.
    slowed_cell : str
        The label of the cell the slow-down slows (the REGRESSION the gate must name).
    """

    name: str
    repository: str
    framework: str
    benchmarks: str
    bench: tuple[str, ...]
    peer_selection: tuple[str, ...]
    packages: tuple[str, ...]
    readme: str
    slow_file: str
    slow_old: str
    slow_new: str
    slow_why: str
    suite: str = ""
    python: str = ""
    install: tuple[str, ...] = ()
    distribution: str = ""
    gate_args: tuple[str, ...] = ()
    slowed_cell: str = ""


PROJECTS = (
    Project(
        name="networkx",
        repository="networkx/networkx",
        framework="asv",
        benchmarks="benchmarks",
        bench=(r"NonNeighbors\.time_path", r"CommonNeighbors\.time_complete"),
        peer_selection=(r"NonNeighbors\.time_path", r"CommonNeighbors\.time_complete"),
        packages=("numpy", "scipy", "pandas"),
        readme="README.rst",
        slow_file="networkx/classes/function.py",
        slow_old="    return graph._adj.keys() - graph._adj[node].keys() - {node}\n",
        slow_new=(
            "    result = graph._adj.keys() - graph._adj[node].keys() - {node}\n"
            "    graph._adj.keys() - {node}  # redundant work: the study's slow-down\n"
            "    return result\n"
        ),
        slow_why="nx.non_neighbors computes a second, unused set difference",
    ),
    Project(
        name="cattrs",
        repository="python-attrs/cattrs",
        framework="pytest",
        benchmarks="bench",
        bench=(r"bench/test_primitives\.py",),
        peer_selection=("bench/test_primitives.py",),
        packages=("attrs>=25.4.0", "typing-extensions>=4.14.0", "pytest", "pytest-benchmark==5.3.1"),
        readme="README.md",
        slow_file="src/cattrs/converters.py",
        slow_old=(
            "    def unstructure(self, obj: Any, unstructure_as: Any = None) -> Any:\n"
            "        return self._unstructure_func.dispatch(\n"
        ),
        slow_new=(
            "    def unstructure(self, obj: Any, unstructure_as: Any = None) -> Any:\n"
            "        self._unstructure_func.dispatch(obj.__class__)  # redundant: the study's slow-down\n"
            "        return self._unstructure_func.dispatch(\n"
        ),
        slow_why="Converter.unstructure dispatches twice",
    ),
)


# The corpus (issue 45, item 9): twelve public projects' own suites, every layout and framework
# the gate reads, gated unmodified (only the gate's own options, as a maintainer gives them).
# Each slow-down makes one selected cell about 25% slower and leaves the others alone
# (calibrated once with timeit; the gate's own ratio is in the receipt).
CORPUS = (
    Project(
        name="networkx",
        repository="networkx/networkx",
        framework="asv",
        benchmarks="benchmarks",
        bench=(
            "^benchmark_(chordal\\.ChordalBenchmarks\\.time_is_chordal_cycle_graph\\(100\\)|neighbors\\.NonNeighbors\\.time_complete\\(1000\\)|neighbors\\.CommonNeighbors\\.time_complete\\(1000\\))$",
        ),
        peer_selection=(),
        packages=(),
        readme="README.rst",
        slow_file="networkx/algorithms/chordal.py",
        slow_old="        clique_wanna_be = set(G[v]) & numbered\n",
        slow_new="        clique_wanna_be = set(G[v]) & numbered\n        if len(numbered) % 3 == 0:\n            max(unnumbered, key=lambda n: len(G._adj[n].keys() & numbered), default=None)\n",  # noqa: E501 (a selection or an edit, kept whole)
        slow_why="is_chordal's search for a chordality breaker redoes a max-cardinality pick on every third vertex",
        suite="asv",
        python="3.12",
        install=("./", "numpy", "scipy", "pandas"),
        distribution="networkx",
        gate_args=(),
        slowed_cell="benchmark_chordal.ChordalBenchmarks.time_is_chordal_cycle_graph(100)",
    ),
    Project(
        name="rich",
        repository="Textualize/rich",
        framework="asv",
        benchmarks=".",
        bench=("^benchmarks\\.TextSuite\\.time_(indent_guides|fit|divide)$",),
        peer_selection=(),
        packages=(),
        readme="README.md",
        slow_file="rich/text.py",
        slow_old="        _indent_size = self.detect_indentation() if indent_size is None else indent_size\n",
        slow_new="        _indent_size = self.detect_indentation() if indent_size is None else indent_size\n        for _ in range(5):\n            self.detect_indentation()\n",  # noqa: E501 (a selection or an edit, kept whole)
        slow_why="Text.with_indent_guides detects the indentation five more times",
        suite="asv",
        python="3.12",
        install=("./",),
        distribution="rich",
        gate_args=(),
        slowed_cell="benchmarks.TextSuite.time_indent_guides",
    ),
    Project(
        name="xdsl",
        repository="xdslproject/xdsl",
        framework="asv",
        benchmarks=".",
        bench=(
            "^(lexer\\.Lexer\\.time_constant_100|microbenchmarks\\.OpCreation\\.time_operation_create|microbenchmarks\\.IRTraversal\\.time_iterate_ops)$",
        ),
        peer_selection=(),
        packages=(),
        readme="README.md",
        slow_file="xdsl/utils/mlir_lexer.py",
        slow_old="        start_pos = self.pos\n        current_char = self._get_chars()\n",
        slow_new="        start_pos = self.pos\n        self._peek_chars()\n        self._peek_chars(2)\n        current_char = self._get_chars()\n",  # noqa: E501 (a selection or an edit, kept whole)
        slow_why="the MLIR lexer peeks twice more per token",
        suite="asv",
        python="3.13",
        install=("./[llvm]",),
        distribution="xdsl",
        gate_args=(),
        slowed_cell="lexer.Lexer.time_constant_100",
    ),
    Project(
        name="xarray",
        repository="pydata/xarray",
        framework="asv",
        benchmarks="asv_bench",
        bench=("^(repr\\.Repr\\.time_repr|datatree\\.Datatree\\.time_from_dict_(few|many))$",),
        peer_selection=(),
        packages=(),
        readme="README.md",
        slow_file="xarray/core/formatting.py",
        slow_old="    dims = tuple(coords._data.dims)\n    dim_ordered_coords = sorted(\n",
        slow_new="    dims = tuple(coords._data.dims)\n    for _ in zip(range(len(coords) // 3), coords.items(), strict=False):\n        pass\n    dim_ordered_coords = sorted(\n",  # noqa: E501 (a selection or an edit, kept whole)
        slow_why="coords_repr walks a third of the coordinates first",
        suite="asv",
        python="3.12",
        install=("numpy", "packaging", "pandas", "scipy", "cftime", "flox"),
        distribution="xarray",
        gate_args=(),
        slowed_cell="repr.Repr.time_repr",
    ),
    Project(
        name="cattrs",
        repository="python-attrs/cattrs",
        framework="pytest",
        benchmarks="bench",
        bench=(
            "^bench/test_(attrs_primitives\\.py::test_unstructure_attrs_primitives\\[UnstructureStrategy\\.AS_(DICT|TUPLE)-BaseConverter\\]|primitives\\.py::test_unstructure_int\\[BaseConverter\\])$",
        ),
        peer_selection=(
            "bench/test_attrs_primitives.py::test_unstructure_attrs_primitives[UnstructureStrategy.AS_DICT-BaseConverter]",
            "bench/test_attrs_primitives.py::test_unstructure_attrs_primitives[UnstructureStrategy.AS_TUPLE-BaseConverter]",
            "bench/test_primitives.py::test_unstructure_int[BaseConverter]",
        ),
        packages=(),
        readme="README.md",
        slow_file="src/cattrs/converters.py",
        slow_old="            res.append(dispatch(a.type or v.__class__)(v))\n        return tuple(res)\n",
        slow_new="            res.append(dispatch(a.type or v.__class__)(v))\n        for a in attrs[: len(attrs) // 5]:\n            v = getattr(obj, a.name)\n            dispatch(a.type or v.__class__)(v)\n        return tuple(res)\n",  # noqa: E501 (a selection or an edit, kept whole)
        slow_why="BaseConverter.unstructure_attrs_astuple dispatches a fifth of its fields twice",
        suite="pytest-benchmark",
        python="3.12",
        install=("./[msgspec,orjson]", "pytest", "pytest-benchmark==5.3.1", "hypothesis", "immutables"),
        distribution="cattrs",
        gate_args=(),
        slowed_cell="bench/test_attrs_primitives.py::test_unstructure_attrs_primitives[UnstructureStrategy.AS_TUPLE-BaseConverter]",
    ),
    Project(
        name="dacite",
        repository="konradhalas/dacite",
        framework="pytest",
        benchmarks="tests/performance",
        bench=("^tests/performance/test_from_dict\\.py::test_(basic_scenario|union_matching|casting)$",),
        peer_selection=(
            "tests/performance/test_from_dict.py::test_basic_scenario",
            "tests/performance/test_from_dict.py::test_union_matching",
            "tests/performance/test_from_dict.py::test_casting",
        ),
        packages=(),
        readme="README.md",
        slow_file="dacite/core.py",
        slow_old="            if is_instance(value, inner_type):\n",
        slow_new="            if is_instance(value, inner_type):\n                if isinstance(data, Mapping):\n                    _build_value(type_=inner_type, data=data, config=config)\n",  # noqa: E501 (a selection or an edit, kept whole)
        slow_why="a matched union member that is a mapping is built twice",
        suite="pytest-benchmark",
        python="3.12",
        install=("./", "pytest", "pytest-benchmark==5.3.1"),
        distribution="dacite",
        gate_args=("--benchmarks", "tests/performance"),
        slowed_cell="tests/performance/test_from_dict.py::test_union_matching",
    ),
    Project(
        name="construct",
        repository="construct/construct",
        framework="pytest",
        benchmarks="tests/test_benchmarks.py",
        bench=("^tests/test_benchmarks\\.py::test_class_(varint_parse|struct_parse|array_parse)$",),
        peer_selection=(
            "tests/test_benchmarks.py::test_class_varint_parse",
            "tests/test_benchmarks.py::test_class_struct_parse",
            "tests/test_benchmarks.py::test_class_array_parse",
        ),
        packages=(),
        readme="README.rst",
        slow_file="construct/core.py",
        slow_old="        num = 0\n        for b in reversed(acc):\n            num = (num << 7) | b\n        return num\n",  # noqa: E501 (a selection or an edit, kept whole)
        slow_new="        num = 0\n        for b in reversed(acc):\n            num = (num << 7) | b\n        num2 = 0\n        for b in reversed(acc):\n            num2 = (num2 << 7) | (b & 0b01111111)\n        return num\n",  # noqa: E501 (a selection or an edit, kept whole)
        slow_why="VarInt._parse redoes its accumulation loop",
        suite="pytest-benchmark",
        python="3.12",
        install=(
            "./",
            "pytest",
            "pytest-benchmark==5.3.1",
            "numpy",
            "arrow",
            "ruamel.yaml",
            "cloudpickle",
            "lz4",
            "cryptography",
        ),
        distribution="construct",
        gate_args=("--benchmarks", "tests/test_benchmarks.py"),
        slowed_cell="tests/test_benchmarks.py::test_class_varint_parse",
    ),
    Project(
        name="graphql-core",
        repository="graphql-python/graphql-core",
        framework="pytest",
        benchmarks="tests/benchmarks",
        bench=(
            "^tests/benchmarks/test_(parser\\.py::test_parse_kitchen_sink|print\\.py::test_print_kitchen_sink|execution_sync\\.py::test_execute_basic_sync)$",
        ),
        peer_selection=(
            "tests/benchmarks/test_parser.py::test_parse_kitchen_sink",
            "tests/benchmarks/test_print.py::test_print_kitchen_sink",
            "tests/benchmarks/test_execution_sync.py::test_execute_basic_sync",
        ),
        packages=(),
        readme="README.md",
        slow_file="src/graphql/language/printer.py",
        slow_old="    return visit(ast, PrintAstVisitor())\n",
        slow_new='    definitions = getattr(ast, "definitions", None)\n    if definitions:\n        for definition in definitions[len(definitions) // 2 :]:\n            visit(definition, PrintAstVisitor())\n    return visit(ast, PrintAstVisitor())\n',  # noqa: E501 (a selection or an edit, kept whole)
        slow_why="print_ast prints the second half of the document's definitions once more",
        suite="pytest-benchmark",
        python="3.12",
        install=("pytest>=9,<10", "pytest-benchmark==5.3.1", "pytest-describe", "pytest-timeout", "anyio"),
        distribution="graphql-core",
        gate_args=("--benchmarks", "tests/benchmarks"),
        slowed_cell="tests/benchmarks/test_print.py::test_print_kitchen_sink",
    ),
    Project(
        name="pint",
        repository="hgrecco/pint",
        framework="pytest",
        benchmarks="pint/testsuite/benchmarks",
        bench=(
            "^pint/testsuite/benchmarks/test_(01_eval\\.py::test_pint_eval\\[10 metros \\* \\(5 segundos\\)-(plain|uncertainty)_tokenizer\\]|10_registry\\.py::test_parse_unit_name\\[False-kilometer\\])$",  # noqa: E501 (a selection or an edit, kept whole)
        ),
        peer_selection=(),
        packages=(),
        readme="README.rst",
        slow_file="pint/pint_eval.py",
        slow_old='    input_string = input_string.replace("±", "+/-")\n',
        slow_new='    input_string = input_string.replace("±", "+/-")\n    for _ in plain_tokenizer(input_string[: len(input_string) // 3]):\n        pass\n',  # noqa: E501 (a selection or an edit, kept whole)
        slow_why="uncertainty_tokenizer tokenizes the first third of its input twice",
        suite="pytest-codspeed",
        python="3.12",
        install=("./", "pytest", "pytest-codspeed", "pytest-benchmark==5.3.1", "pytest-subtests"),
        distribution="pint",
        gate_args=("--benchmarks", "pint/testsuite/benchmarks"),
        slowed_cell="pint/testsuite/benchmarks/test_01_eval.py::test_pint_eval[10 metros * (5 segundos)-uncertainty_tokenizer]",  # noqa: E501 (a selection or an edit, kept whole)
    ),
    Project(
        name="attrs",
        repository="python-attrs/attrs",
        framework="pytest",
        benchmarks="bench/test_benchmarks.py",
        bench=("^bench/test_benchmarks\\.py::test_(asdict_complicated|astuple_complicated|eq_equal)$",),
        peer_selection=(),
        packages=(),
        readme="README.md",
        slow_file="src/attr/_funcs.py",
        slow_old="    attrs = fields(inst.__class__)\n    rv = []\n    retain = retain_collection_types  # Very long. :/\n",  # noqa: E501 (a selection or an edit, kept whole)
        slow_new="    attrs = fields(inst.__class__)\n    rv = []\n    retain = retain_collection_types  # Very long. :/\n    for a in attrs:\n        has(type(getattr(inst, a.name)))\n",  # noqa: E501 (a selection or an edit, kept whole)
        slow_why="astuple makes an extra has() pass over the fields",
        suite="pytest-codspeed",
        python="3.12",
        install=("./", "pytest>9", "pytest-codspeed"),
        distribution="attrs",
        gate_args=(),
        slowed_cell="bench/test_benchmarks.py::test_astuple_complicated",
    ),
    Project(
        name="pydantic",
        repository="pydantic/pydantic",
        framework="pytest",
        benchmarks="tests/benchmarks",
        bench=(
            "^tests/benchmarks/test_(model_eq\\.py::test_model_eq_extra_forbid|attribute_access\\.py::test_getattr|model_schema_generation\\.py::test_simple_model_schema_generation)$",
        ),
        peer_selection=(),
        packages=(),
        readme="README.md",
        slow_file="pydantic/main.py",
        slow_old="                if self.__dict__ == other.__dict__:\n",
        slow_new="                if self.__dict__ == other.__dict__ and self.__dict__ == other.__dict__:\n",
        slow_why="BaseModel.__eq__ compares the fields' dicts twice",
        suite="pytest-codspeed",
        python="3.12",
        install=("./", "--group", "dev"),
        distribution="pydantic",
        gate_args=("--benchmarks", "tests/benchmarks"),
        slowed_cell="tests/benchmarks/test_model_eq.py::test_model_eq_extra_forbid",
    ),
    Project(
        name="jsonschema",
        repository="python-jsonschema/jsonschema",
        framework="pyperf",
        benchmarks="jsonschema/benchmarks",
        bench=("^jsonschema/benchmarks/(const_vs_enum\\.py::(const|enum) valid|contains\\.py::middle)$",),
        peer_selection=(),
        packages=(),
        readme="README.rst",
        slow_file="jsonschema/_keywords.py",
        slow_old="def enum(validator, enums, instance, schema):\n",
        slow_new="def enum(validator, enums, instance, schema):\n    if isinstance(instance, list):\n        equal(instance[: len(instance) // 5], instance[: len(instance) // 5])\n",  # noqa: E501 (a selection or an edit, kept whole)
        slow_why="the enum keyword pre-compares a fifth of a list instance",
        suite="pyperf",
        python="3.12",
        install=("./", "pyperf"),
        distribution="jsonschema",
        gate_args=("--benchmarks", "jsonschema/benchmarks"),
        slowed_cell="jsonschema/benchmarks/const_vs_enum.py::enum valid",
    ),
)


def _log(message: str) -> None:
    print(f"[gate_real_suites {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _git(root: Path, *arguments: str) -> str:
    return subprocess.run(["git", *arguments], cwd=root, capture_output=True, text=True, check=True).stdout.strip()


def prepare(project: Project, source: str, scratch: Path, python: str) -> tuple[Path, Path, dict]:
    """Clone ``source``, commit the README-only and slow-down changes (tags ``base``,
    ``readme``, ``slow``), and build the project's environment; returns the clone, the
    environment's interpreter and the commits."""
    clone = scratch / project.name
    subprocess.run(["git", "clone", "-q", source, str(clone)], check=True)
    for key, value in (("user.name", "gate study"), ("user.email", "gate-study@example.invalid")):
        _git(clone, "config", key, value)
    _git(clone, "tag", "base")
    with open(clone / project.readme, "a", encoding="utf-8") as stream:
        stream.write("\n\n.. A README-only change: no code effect.\n")
    _git(clone, "commit", "-qam", "README only")
    _git(clone, "tag", "readme")
    path = clone / project.slow_file
    text = path.read_text(encoding="utf-8")
    if text.count(project.slow_old) != 1:
        raise SystemExit(f"{project.name}: the slow-down's anchor is not found once in {project.slow_file}")
    path.write_text(text.replace(project.slow_old, project.slow_new), encoding="utf-8")
    _git(clone, "commit", "-qam", f"slow-down: {project.slow_why}")
    _git(clone, "tag", "slow")
    environment = scratch / f"{project.name}-env"
    subprocess.run([python, "-m", "venv", str(environment)], check=True)
    interpreter = environment / "bin" / "python"
    pip = [str(interpreter), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    if project.install:  # the project with its dependencies, then the project itself out again
        subprocess.run([*pip, "--upgrade", "pip>=25.1"], check=True)  # 25.1 reads dependency groups (--group)
        subprocess.run([*pip, *project.install], cwd=clone, check=True)
        subprocess.run([str(interpreter), "-m", "pip", "uninstall", "-q", "-y", project.distribution], check=True)
    else:
        subprocess.run([*pip, *project.packages], check=True)
    commits = {tag: _git(clone, "rev-parse", tag) for tag in ("base", "readme", "slow")}
    return clone, interpreter, commits


def run_gate(project: Project, clone: Path, interpreter: Path, head: str, factor: float, bootmark: str) -> dict:
    """``bootmark gate --baseline base`` with ``head`` checked out, on the project's interpreter."""
    _git(clone, "checkout", "-q", head)
    command = [bootmark, "gate", "--baseline", "base", "--python", str(interpreter), "--tolerance", str(factor)]
    command += [argument for pattern in project.bench for argument in ("--bench", pattern)] + list(project.gate_args)
    start = time.perf_counter()
    completed = subprocess.run(
        [*command, "--format", "json", "--no-receipt", "--no-progress"], cwd=clone, capture_output=True, text=True
    )
    wall = time.perf_counter() - start
    try:
        verdict = json.loads(completed.stdout)
        cells = verdict["cells"]
    except (json.JSONDecodeError, KeyError):
        verdict, cells = {}, []
        _log(f"gate output tail:\n{completed.stderr[-3000:]}")
    return {
        "exit_code": completed.returncode,
        "problems": list(verdict.get("problems", [])) + ([] if verdict else [completed.stderr.strip()[-500:]]),
        "cells": len(cells),
        "flagged": sorted(cell["label"] for cell in cells if cell["status"] == "regression"),
        "statuses": {cell["label"]: cell["status"] for cell in cells},
        "ratios": {cell["label"]: cell["ratio"]["median"] for cell in cells if cell["ratio"]},
        "wall_seconds": wall,
    }


def _asv_environment(home: Path, python: str) -> dict:
    """asv's environment: its home inside the study's folder, and the projects' Python first
    on PATH (asv's virtualenv finds ``python3.12`` there)."""
    path = os.path.dirname(python) + os.pathsep + os.environ.get("PATH", "")
    return dict(os.environ, HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), PATH=path)


def _asv_config(project: Project, clone: Path, scratch: Path, python: str) -> Path:
    """An asv configuration beside (not in) the clone: the project's own, with a virtualenv
    environment on the machine's Python 3.12 and the project's requirements, so asv can
    build each commit (networkx's own names conda-forge, which this machine cannot reach)."""
    with open(clone / project.benchmarks / "asv.conf.json", encoding="utf-8") as stream:
        own = json.loads("\n".join(line for line in stream if not line.lstrip().startswith("//")))
    folder = scratch / f"{project.name}-asv"
    folder.mkdir(exist_ok=True)
    config = {
        "version": 1,
        "project": own.get("project", project.name),
        "repo": str(clone),
        "branches": ["main"],
        "environment_type": "virtualenv",
        "pythons": ["3.12"],
        "matrix": {"req": {package: [""] for package in project.packages}},
        "benchmark_dir": str(clone / project.benchmarks / own.get("benchmark_dir", "benchmarks")),
        "env_dir": str(folder / "env"),
        "results_dir": str(folder / "results"),
        "html_dir": str(folder / "html"),
        "build_command": ["python -m pip wheel --no-deps -w {build_cache_dir} {build_dir}"],
        "build_cache_size": 8,
    }
    path = folder / "asv.conf.json"
    path.write_text(json.dumps(config, indent=1), encoding="utf-8")
    home = folder / "home"
    home.mkdir(exist_ok=True)
    environment = _asv_environment(home, python)
    subprocess.run(
        gate_vs_asv.asv_command("machine", "--yes", "--machine", "gatebox", "--config", str(path)),
        env=environment,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=True,
    )
    return path


def run_asv(project: Project, config: Path, head: str, factor: float, python: str) -> dict:
    """``asv continuous --factor F -b REGEX base HEAD``, asv's default sampling."""
    environment = _asv_environment(config.parent / "home", python)
    command = gate_vs_asv.asv_command("continuous", "--config", str(config), "--machine", "gatebox")
    command += ["--factor", str(factor), "-b", "|".join(project.peer_selection), "base", head]
    start = time.perf_counter()
    completed = subprocess.run(command, env=environment, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    wall = time.perf_counter() - start
    rows = gate_vs_asv.parse_asv_table(completed.stdout)
    if completed.returncode not in (0, 1) or (completed.returncode == 1 and not rows):
        _log(f"asv output tail:\n{gate_vs_asv._tail(completed.stdout + completed.stderr)}")
    return {
        "exit_code": 2 if completed.returncode == 1 and not rows else completed.returncode,  # 1 and no table: an error
        "flagged": sorted(row.name for row in rows if row.mark == "+"),
        "wall_seconds": wall,
    }


def run_pytest_benchmark(project: Project, clone: Path, interpreter: Path, head: str, factor: float) -> dict:
    """pytest-benchmark as its users compare: save at ``base``, compare at ``head`` with
    ``--benchmark-compare-fail=median:P%`` (the project's own pytest configuration on)."""
    storage = clone.parent / f"{project.name}-pytest-benchmark"
    shutil.rmtree(storage, ignore_errors=True)
    environment = dict(os.environ, PYTHONPATH=str(clone / "src" if (clone / "src").is_dir() else clone))
    common = [str(interpreter), "-m", "pytest", *project.peer_selection, "-q", "-p", "no:cacheprovider"]
    common += [f"--benchmark-storage=file://{storage}"]
    percent = f"{(factor - 1) * 100:.6g}"
    start = time.perf_counter()
    _git(clone, "checkout", "-q", "base")
    saved = subprocess.run(
        [*common, "--benchmark-save=base"], cwd=clone, env=environment, capture_output=True, text=True
    )
    _git(clone, "checkout", "-q", head)
    compared = subprocess.run(
        [*common, "--benchmark-compare", f"--benchmark-compare-fail=median:{percent}%"],
        cwd=clone,
        env=environment,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - start
    output = compared.stdout + compared.stderr
    flagged = sorted(
        line.split(" (")[0].strip() for line in output.splitlines() if "has failed PercentageRegressionCheck" in line
    )
    code = compared.returncode
    if saved.returncode != 0 or (code != 0 and not flagged):
        code = 2
        _log(f"pytest-benchmark output tail:\n{gate_vs_asv._tail(saved.stdout + output)}")
    return {"exit_code": code, "flagged": flagged, "wall_seconds": wall}


def _interpreter(version: str) -> str:
    """An interpreter of Python ``version``: pyenv's own (its shims refuse a version that is
    not active), else ``pythonX.Y`` on the path."""
    found = sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}.*/bin/python{version}")))
    return found[-1] if found else shutil.which(f"python{version}") or f"python{version}"


def study(project: Project, source: str, runs: int, factor: float, python: str, scratch: Path, bootmark: str) -> dict:
    """Every tool ``runs`` times on the README-only and on the slow-down commit, alternating."""
    python = _interpreter(project.python) if project.python else python
    clone, interpreter, commits = prepare(project, source, scratch, python)
    peer = None if not project.peer_selection else "asv" if project.framework == "asv" else "pytest_benchmark"
    config = _asv_config(project, clone, scratch, python) if peer == "asv" else None
    results = {"bootmark_gate": {"readme": [], "slow": []}, **({peer: {"readme": [], "slow": []}} if peer else {})}
    for index in range(runs):
        for head in ("readme", "slow"):
            gate = run_gate(project, clone, interpreter, head, factor, bootmark)
            results["bootmark_gate"][head].append(gate)
            _log(
                f"{project.name} gate {index + 1} {head}: exit {gate['exit_code']}, {gate['flagged']}, "
                f"{gate['wall_seconds']:.0f} s"
            )
            if peer is None:
                continue
            if peer == "asv":
                other = run_asv(project, config, head, factor, python)
            else:
                other = run_pytest_benchmark(project, clone, interpreter, head, factor)
            results[peer][head].append(other)
            _log(
                f"{project.name} {peer} {index + 1} {head}: exit {other['exit_code']}, {other['flagged']}, "
                f"{other['wall_seconds']:.0f} s"
            )
    _git(clone, "checkout", "-q", "slow")
    python_version = subprocess.run(
        [str(interpreter), "-c", "import platform; print(platform.python_version())"], capture_output=True, text=True
    ).stdout.strip()
    return {
        "name": project.name,
        "repository": project.repository,
        "framework": project.framework,
        "upstream_commit": commits["base"],
        "bench": list(project.bench),
        "slowdown": {"file": project.slow_file, "what": project.slow_why},
        "python": python_version,
        "factor": factor,
        "runs": runs,
        "results": results,
        **(
            {"suite": project.suite, "slowed_cell": project.slowed_cell, "gate_args": list(project.gate_args)}
            if project.suite
            else {}
        ),
    }


def render(receipt: dict) -> str:
    """The table of a ``gatesuites`` receipt, between :data:`BEGIN` and :data:`END`."""
    names = {"bootmark_gate": "`bootmark gate`", "asv": "`asv continuous`", "pytest_benchmark": "pytest-benchmark"}
    lines = [
        BEGIN,
        "| project (suite) | tool | cells | README-only commit: runs that flag | slow-down commit: runs that flag "
        "| cells flagged on the slow-down (per run) | exit codes | wall time per run, median |",
        "|---|---|---:|---:|---:|---|---|---:|",
    ]
    for project in receipt["body"]["projects"]:
        for tool, result in project["results"].items():
            readme, slow = result["readme"], result["slow"]
            cells = next((run["cells"] for run in readme + slow if run.get("cells")), None)
            flagged = "; ".join(str(len(run["flagged"])) for run in slow)
            codes = ", ".join(str(run["exit_code"]) for run in readme + slow)
            walls = [run["wall_seconds"] for run in readme + slow]
            false_alarms = sum(bool(run["flagged"]) for run in readme)
            lines.append(
                f"| {project['name']} ({project['framework']}, {project['upstream_commit'][:10]}) | {names[tool]} | "
                f"{cells if cells is not None else ''} | {false_alarms} of {len(readme)} | "
                f"{sum(bool(run['flagged']) for run in slow)} of {len(slow)} | {flagged} | {codes} | "
                f"{statistics.median(walls):.0f} s |"
            )
    lines.append("")
    for project in receipt["body"]["projects"]:
        lines.append(
            f"- {project['name']}: `--bench {' --bench '.join(project['bench'])}`, Python {project['python']}, "
            f"tolerance {project['factor']:g}; slow-down: {project['slowdown']['what']} "
            f"(`{project['slowdown']['file']}`)."
        )
    provenance = receipt["provenance"]
    lines += [
        "",
        f"From one run on {provenance['machine']['cpu_model']} ({provenance['started_utc']}); tools: "
        + ", ".join(f"{name} {version}" for name, version in sorted(receipt["body"]["tools"].items()) if version)
        + ".",
        END,
    ]
    return "\n".join(lines)


def render_any(receipt: dict) -> str:
    """:func:`render_corpus` for a corpus receipt, :func:`render` for the runs-per-tool study."""
    return render_corpus(receipt) if receipt["body"].get("corpus") else render(receipt)


def corpus_outcome(project: dict) -> str:
    """``as expected`` when the gate passed the README-only commit and named the slowed cell
    as the only regression of the slow-down commit; else what went otherwise."""
    if project.get("exception"):
        return f"exception: {project['exception']}"
    gate = project["results"]["bootmark_gate"]
    readme, slow = gate["readme"][-1], gate["slow"][-1]
    wrong = []
    if readme["exit_code"] != 0:
        wrong.append(f"README-only commit exit {readme['exit_code']}, not PASS")
    if slow["exit_code"] != 1 or slow["flagged"] != [project["slowed_cell"]]:
        wrong.append(f"slow-down commit exit {slow['exit_code']}, flagged {slow['flagged'] or 'nothing'}")
    return "as expected" if not wrong else "; ".join(wrong)


VERDICTS = {0: "PASS", 1: "REGRESSION", 2: "CANNOT JUDGE"}


def render_corpus(receipt: dict) -> str:
    """The table of a corpus ``gatesuites`` receipt (``body.corpus``), between :data:`BEGIN`
    and :data:`END`: per project, the gate's verdicts on its two commits, the slowed cell's
    ratio, whether that is what the corpus expects, and pytest-benchmark's verdicts where
    it ran on the same pair."""
    lines = [
        BEGIN,
        "| project (suite, commit) | cells | README-only commit | slow-down commit: cells flagged (ratio) "
        "| as expected | pytest-benchmark on the same pair | gate wall time (README / slow-down) |",
        "|---|---:|---|---|---|---|---:|",
    ]
    for project in receipt["body"]["projects"]:
        title = f"{project['name']} ({project.get('suite', project['framework'])}, {project['upstream_commit'][:10]})"
        gate = project["results"]["bootmark_gate"]
        if not gate["readme"] or not gate["slow"]:
            lines.append(f"| {title} | | | | {corpus_outcome(project)} | | |")
            continue
        readme, slow = gate["readme"][-1], gate["slow"][-1]
        flagged = ", ".join(
            f"`{label}` ({slow['ratios'][label]:.2f})" if label in slow.get("ratios", {}) else f"`{label}`"
            for label in slow["flagged"]
        )
        peer = project["results"].get("pytest_benchmark")
        peer_text = (
            f"{VERDICTS.get(peer['readme'][-1]['exit_code'], peer['readme'][-1]['exit_code'])} / "
            f"{len(peer['slow'][-1]['flagged'])} flagged"
            if peer and peer["readme"] and peer["slow"]
            else ""
        )
        lines.append(
            f"| {title} | {readme.get('cells', '')} | {VERDICTS.get(readme['exit_code'], readme['exit_code'])} | "
            f"{VERDICTS.get(slow['exit_code'], slow['exit_code'])}: {flagged or 'none'} | {corpus_outcome(project)} | "
            f"{peer_text} | {readme['wall_seconds']:.0f} s / {slow['wall_seconds']:.0f} s |"
        )
    lines.append("")
    for project in receipt["body"]["projects"]:
        options = " ".join(project.get("gate_args", []))
        lines.append(
            f"- {project['name']}: `--bench '{' '.join(project['bench'])}'`{f' `{options}`' if options else ''}, "
            f"Python {project['python']}; slow-down: {project['slowdown']['what']} (`{project['slowdown']['file']}`), "
            f"which should flag `{project.get('slowed_cell', '')}`."
        )
    provenance = receipt["provenance"]
    expected = sum(corpus_outcome(project) == "as expected" for project in receipt["body"]["projects"])
    lines += [
        "",
        f"{expected} of {len(receipt['body']['projects'])} projects as expected. From one run on "
        f"{provenance['machine']['cpu_model']} ({provenance['started_utc']}); tolerance "
        f"{receipt['body']['projects'][0]['factor']:g}; tools: "
        + ", ".join(f"{name} {version}" for name, version in sorted(receipt["body"]["tools"].items()) if version)
        + ".",
        END,
    ]
    return "\n".join(lines)


def _seal_and_render(summary: str | None) -> int:
    sys.path.insert(0, str(HERE.parent))
    from bootmark.core import provenance, receipts, workspace
    from bootmark.core.sections import rewrite_section

    if summary:
        body = json.loads(Path(summary).read_text(encoding="utf-8"))
        sealed = receipts.seal("gatesuites", provenance.collect(), body)
        _log(f"receipt {receipts.write_receipt(sealed, workspace.directory_for('gatesuites'))}")
    newest = receipts.newest_receipt(workspace.directory_for("gatesuites"), "gatesuites")
    readme = workspace.find().readme
    rewrite_section(readme, render_any(receipts.load_receipt(newest)), BEGIN, END)
    _log(f"{readme} rendered from {newest}")
    return 0


def _failed(project: Project, source: str, error: BaseException, factor: float, runs: int) -> dict:
    """The record of a project that could not be studied: why, with no runs."""
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=source, capture_output=True, text=True).stdout.strip()
    return {
        "name": project.name,
        "repository": project.repository,
        "framework": project.framework,
        "upstream_commit": commit,
        "bench": list(project.bench),
        "slowdown": {"file": project.slow_file, "what": project.slow_why},
        "python": project.python,
        "factor": factor,
        "runs": runs,
        "results": {"bootmark_gate": {"readme": [], "slow": []}},
        "suite": project.suite,
        "slowed_cell": project.slowed_cell,
        "gate_args": list(project.gate_args),
        "exception": f"the study could not set it up: {error}",
    }


def main(argv: list[str] | None = None) -> int:
    """Command line (module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", action="append", default=[], metavar="NAME=PATH", help="a project's git repository")
    parser.add_argument("--runs", type=int, default=3, help="runs of each tool on each commit")
    parser.add_argument("--factor", type=float, default=1.10, help="the tolerance (asv's --factor, median:P%%)")
    parser.add_argument("--python", default="python3.12", help="the projects' interpreter (networkx needs 3.12)")
    parser.add_argument(
        "--bootmark",
        default=os.path.join(os.path.dirname(sys.executable), "bootmark"),
        help="the bootmark command (default: beside this interpreter); e.g. one installed from the wheel in an "
        "environment of its own, as a newcomer installs it",
    )
    parser.add_argument(
        "--corpus",
        action="store_true",
        help="the corpus study: every CORPUS project's README-only and slow-down commit, gated once each",
    )
    parser.add_argument(
        "--mirrors",
        metavar="DIR",
        help="a folder of fetched repositories laid out as OWNER+NAME/repo, for projects without --source",
    )
    parser.add_argument("--only", action="append", default=[], metavar="NAME", help="run only these projects")
    parser.add_argument("--out", help="JSON summary path")
    parser.add_argument("--seal", metavar="JSON", help="seal a finished summary as a gatesuites receipt and render it")
    parser.add_argument("--render", action="store_true", help="render the newest gatesuites receipt")
    args = parser.parse_args(argv)
    if args.seal or args.render:
        return _seal_and_render(args.seal)
    projects = CORPUS if args.corpus else PROJECTS
    sources = dict(item.split("=", 1) for item in args.source)
    for project in projects:
        mirror = os.path.join(args.mirrors or "", project.repository.replace("/", "+"), "repo")
        if project.name not in sources and args.mirrors and os.path.isdir(mirror):
            sources[project.name] = mirror
    if args.only:
        sources = {name: path for name, path in sources.items() if name in args.only}
    if not args.out or not sources:
        parser.error("--out and at least one --source NAME=PATH (or --mirrors DIR) are needed to run the study")
    unknown = set(sources) - {project.name for project in projects}
    if unknown:
        parser.error(f"unknown project(s) {sorted(unknown)}; known: {[project.name for project in projects]}")
    python = shutil.which(args.python) or args.python
    body = {"tools": gate_vs_asv._tool_versions(), "projects": [], **({"corpus": True} if args.corpus else {})}
    body["tools"]["bootmark"] = subprocess.run(
        [args.bootmark, "--version"], capture_output=True, text=True, check=True
    ).stdout.split()[1]
    runs = 1 if args.corpus else args.runs
    with tempfile.TemporaryDirectory(prefix="gate_real_suites-") as scratch:
        for project in projects:
            if project.name not in sources:
                continue
            try:
                found = study(project, sources[project.name], runs, args.factor, python, Path(scratch), args.bootmark)
            except (subprocess.CalledProcessError, SystemExit, OSError) as error:  # one project, not the study
                _log(f"{project.name}: {error}")
                found = _failed(project, sources[project.name], error, args.factor, runs)
            body["projects"].append(found)
            Path(args.out).write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
    _log(f"summary written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
