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
    subprocess.run([str(interpreter), "-m", "pip", "install", "-q", *project.packages], check=True)
    commits = {tag: _git(clone, "rev-parse", tag) for tag in ("base", "readme", "slow")}
    return clone, interpreter, commits


def run_gate(project: Project, clone: Path, interpreter: Path, head: str, factor: float, bootmark: str) -> dict:
    """``bootmark gate --baseline base`` with ``head`` checked out, on the project's interpreter."""
    _git(clone, "checkout", "-q", head)
    command = [bootmark, "gate", "--baseline", "base", "--python", str(interpreter), "--tolerance", str(factor)]
    command += [argument for pattern in project.bench for argument in ("--bench", pattern)]
    start = time.perf_counter()
    completed = subprocess.run(
        [*command, "--format", "json", "--no-receipt", "--no-progress"], cwd=clone, capture_output=True, text=True
    )
    wall = time.perf_counter() - start
    try:
        cells = json.loads(completed.stdout)["cells"]
    except (json.JSONDecodeError, KeyError):
        cells = []
        _log(f"gate output tail:\n{completed.stderr[-3000:]}")
    return {
        "exit_code": completed.returncode,
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
    environment = dict(os.environ, PYTHONPATH=str(clone / "src"))
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


def study(project: Project, source: str, runs: int, factor: float, python: str, scratch: Path, bootmark: str) -> dict:
    """Every tool ``runs`` times on the README-only and on the slow-down commit, alternating."""
    clone, interpreter, commits = prepare(project, source, scratch, python)
    peer = "asv" if project.framework == "asv" else "pytest_benchmark"
    config = _asv_config(project, clone, scratch, python) if peer == "asv" else None
    results = {"bootmark_gate": {"readme": [], "slow": []}, peer: {"readme": [], "slow": []}}
    for index in range(runs):
        for head in ("readme", "slow"):
            gate = run_gate(project, clone, interpreter, head, factor, bootmark)
            results["bootmark_gate"][head].append(gate)
            _log(
                f"{project.name} gate {index + 1} {head}: exit {gate['exit_code']}, {gate['flagged']}, "
                f"{gate['wall_seconds']:.0f} s"
            )
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
    rewrite_section(readme, render(receipts.load_receipt(newest)), BEGIN, END)
    _log(f"{readme} rendered from {newest}")
    return 0


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
    parser.add_argument("--out", help="JSON summary path")
    parser.add_argument("--seal", metavar="JSON", help="seal a finished summary as a gatesuites receipt and render it")
    parser.add_argument("--render", action="store_true", help="render the newest gatesuites receipt")
    args = parser.parse_args(argv)
    if args.seal or args.render:
        return _seal_and_render(args.seal)
    if not args.out or not args.source:
        parser.error("--out and at least one --source NAME=PATH are needed to run the study")
    sources = dict(item.split("=", 1) for item in args.source)
    unknown = set(sources) - {project.name for project in PROJECTS}
    if unknown:
        parser.error(f"unknown project(s) {sorted(unknown)}; known: {[project.name for project in PROJECTS]}")
    python = shutil.which(args.python) or args.python
    body = {"tools": gate_vs_asv._tool_versions(), "projects": []}
    body["tools"]["bootmark"] = subprocess.run(
        [args.bootmark, "--version"], capture_output=True, text=True, check=True
    ).stdout.split()[1]
    with tempfile.TemporaryDirectory(prefix="gate_real_suites-") as scratch:
        for project in PROJECTS:
            if project.name in sources:
                body["projects"].append(
                    study(project, sources[project.name], args.runs, args.factor, python, Path(scratch), args.bootmark)
                )
                Path(args.out).write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
    _log(f"summary written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
