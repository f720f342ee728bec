"""Side-by-side measurement of regression gates on a throwaway git repository.

The demo repository holds a small pure-Python package, ``demo_pkg``, and an asv suite of six
benchmarks whose per-call times span about 50 µs to 200 ms. It has three commits on ``main``:

``A``
    everything;
``A-prime``
    a README edit, so no code effect (a null comparison: any flag is a false alarm);
``B``
    three workloads do 1.10x, 1.25x and 1.50x the work (their size constants change), the
    other three are untouched.

This module builds that repository and runs ``asv continuous --factor 1.1`` on it the way a
maintainer would in CI, then records which benchmarks asv flags as slower. asv runs with
``HOME`` pointed into the repository's ``.asv/`` folder, so its machine file, pip's cache and
virtualenv's app data stay inside the throwaway repository.

    .venv/bin/python scripts/gate_vs_asv.py --asv-only --runs-a 2 --runs-b 2 --out /tmp/x.json

Only the standard library is imported; asv is run as a subprocess (``python -m asv``).

asv's behaviour this relies on (asv 0.6): ``asv continuous`` prints a GitHub-markdown table of
the changed benchmarks only, marked ``+`` (slower), ``-`` (faster) or ``!`` (newly failing),
named ``file.function``, ``file.Class.method`` or ``file.function('param')``; it flags a
benchmark when after/before exceeds the factor strictly *and* its statistics differ, so a
true 1.10x change at ``--factor 1.1`` sits on the threshold. It exits 1 when something is
slower, 0 otherwise (an improvement alone exits 0), and 2 without printing any table when a
benchmark fails. ``asv machine --yes --machine NAME`` records only the name (no os/cpu/ram)
when a name is given.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, is_dataclass, replace
from io import BytesIO
from pathlib import Path
from string import Template
from types import MappingProxyType

__all__ = [
    "ASV_MACHINE",
    "WORKLOADS",
    "AsvOutcome",
    "AsvRow",
    "AsvRun",
    "AsvSideSummary",
    "BenchTiming",
    "DemoRepo",
    "StudySummary",
    "Workload",
    "asv_command",
    "asv_config",
    "asv_environment",
    "build_demo_repo",
    "compare_asv_results",
    "demo_sources",
    "main",
    "parse_asv_table",
    "prepare_asv_machine",
    "run_asv_continuous",
    "run_asv_study",
    "summarize",
    "summarize_side",
    "time_benchmarks",
    "to_json",
]

ASV_MACHINE = "gatebox"
"""The machine name asv's results are filed under (``asv machine --machine gatebox --yes``)."""


@dataclass(frozen=True)
class Workload:
    """One benchmark of the demo suite and the size constant that sets its work.

    Parameters
    ----------
    asv_name : str
        The benchmark's name as asv prints it, parameter suffix included.
    constant : str
        The placeholder of the size constant in ``demo_pkg``'s source templates.
    size_a : int
        The constant's value in commits ``A`` and ``A-prime``.
    size_b : int
        Its value in commit ``B``; equal to `size_a` for an untouched workload.
    """

    asv_name: str
    constant: str
    size_a: int
    size_b: int

    @property
    def factor(self) -> float:
        """The work ratio B/A the code change makes."""
        return self.size_b / self.size_a


WORKLOADS: tuple[Workload, ...] = (
    Workload("bench_demo.time_checksum", "CHECKSUM_SIZE", 750, 750),
    Workload("bench_demo.time_collatz", "COLLATZ_ROUNDS", 20, 22),
    Workload("bench_demo.TimeText.time_word_freq", "WORD_FREQ_ROUNDS", 10, 10),
    Workload("bench_demo.TimeText.time_edit_distance", "EDIT_ROUNDS", 20, 25),
    Workload("bench_demo.time_simulate('pair')", "PAIR_STEPS", 30000, 45000),
    Workload("bench_demo.time_simulate('cluster')", "CLUSTER_STEPS", 30000, 30000),
)
"""The six benchmarks, fastest first (about 50 µs, 500 µs, 2 ms, 10 ms, 50 ms and 200 ms a call)."""


@dataclass(frozen=True)
class DemoRepo:
    """A built demo repository.

    Parameters
    ----------
    path : str
        The repository's root (it holds ``asv.conf.json``).
    a_sha, a_prime_sha, b_sha : str
        The commits tagged ``A``, ``A-prime`` and ``B``.
    slowed : Mapping[str, float]
        asv name of each benchmark commit ``B`` slows, to its work factor.
    """

    path: str
    a_sha: str
    a_prime_sha: str
    b_sha: str
    slowed: Mapping[str, float]


@dataclass(frozen=True)
class AsvRow:
    """One row of an asv comparison table.

    Parameters
    ----------
    name : str
        The benchmark, as asv prints it.
    mark : str
        asv's change mark: ``+`` slower, ``-`` faster, ``!`` newly failing, ``x`` not comparable,
        ``*`` fixed, ``""`` unchanged.
    ratio : float
        After/before ratio of asv's medians (NaN when asv prints ``n/a``).
    insignificant : bool
        asv printed the ratio with a ``~``: beyond the factor but not statistically significant.
    """

    name: str
    mark: str
    ratio: float
    insignificant: bool


@dataclass(frozen=True)
class AsvOutcome:
    """What one ``asv continuous`` run reported.

    Parameters
    ----------
    exit_code : int
        asv's exit status: 0 nothing slower, 1 something slower (or a usage error), 2 a
        benchmark failed (then asv prints no comparison at all).
    flagged : tuple of str
        The benchmarks asv marks ``+`` (slower beyond the factor, and significant).
    wall_seconds : float
        Wall time of the asv subprocess.
    output_tail : str
        The last lines of asv's combined output.
    improved : tuple of str
        The benchmarks asv marks ``-`` (faster).
    broken : tuple of str
        The benchmarks asv marks ``!`` (failing in the head commit only).
    built : tuple of str
        Commits asv built a wheel for in this run (new entries in its build cache,
        ``.asv/env/*/asv-build-cache``): empty when the cache served both sides.
    created_env : bool
        asv created its virtualenv in this run (a new ``.asv/env/*/pyvenv.cfg``).
    ratios : tuple of AsvRow
        Every benchmark's row from ``asv compare`` of the same two commits (filled by
        `compare_asv_results`; empty from `run_asv_continuous` alone).
    decided_by_instructions : tuple of str
        The gate only: the cells whose verdict instructions retired decided.
    other_cpus : float or None
        The gate only: the CPUs other processes used while it first measured the cells.
    """

    exit_code: int
    flagged: tuple[str, ...]
    wall_seconds: float
    output_tail: str
    improved: tuple[str, ...] = ()
    broken: tuple[str, ...] = ()
    built: tuple[str, ...] = ()
    created_env: bool = False
    ratios: tuple[AsvRow, ...] = ()
    decided_by_instructions: tuple[str, ...] = ()
    other_cpus: float | None = None


@dataclass(frozen=True)
class BenchTiming:
    """A direct timing of one benchmark body at two commits, outside asv.

    Parameters
    ----------
    name : str
        The benchmark's asv name.
    base_seconds, head_seconds : float
        Per-call time at each commit: the median over processes of each process's median
        sample.
    ratio : float
        head/base: the median over processes of each process's median paired ratio (the two
        commits' samples alternate within a process, so a slow drift of the machine's speed
        cancels in each pair).
    intended : float
        The work factor the code change makes (1.0 for an untouched workload, and for every
        workload when the two commits' ``demo_pkg`` is the same).
    """

    name: str
    base_seconds: float
    head_seconds: float
    ratio: float
    intended: float


# ----------------------------------------------------------------------------------------------
# The demo repository's files. demo_pkg's modules are templates: ``$NAME`` is a size constant
# (WORKLOADS), filled with the A or the B value.

PYPROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "demo-pkg"
version = "0.1.0"
description = "Pure-Python workloads for a regression-gate comparison."
requires-python = ">=3.9"
dependencies = []

[tool.setuptools]
packages = ["demo_pkg"]
"""

README = """\
# demo-pkg

Six pure-Python workloads and an asv suite timing them (`asv continuous A B`).
"""

README_EDIT = """
The workloads are deterministic and CPU-bound: fixed inputs, no I/O.
"""

INIT_PY = '''\
"""Pure-Python workloads: arithmetic, text and a small n-body simulation."""

from demo_pkg.arith import checksum, collatz_total
from demo_pkg.physics import simulate
from demo_pkg.text import edit_distance_total, levenshtein, make_corpus, word_frequencies

__all__ = [
    "checksum",
    "collatz_total",
    "edit_distance_total",
    "levenshtein",
    "make_corpus",
    "simulate",
    "word_frequencies",
]
'''

ARITH_PY = '''\
"""Integer loops."""

CHECKSUM_SIZE = $CHECKSUM_SIZE
COLLATZ_LIMIT = 30
COLLATZ_ROUNDS = $COLLATZ_ROUNDS


def checksum():
    """A rolling checksum of 0 .. CHECKSUM_SIZE - 1."""
    total = 0
    for i in range(CHECKSUM_SIZE):
        total = (total * 31 + i) % 1_000_003
    return total


def collatz_steps(limit):
    """Total Collatz steps of the starts 1 .. limit."""
    steps = 0
    for start in range(1, limit + 1):
        n = start
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
    return steps


def collatz_total():
    """COLLATZ_ROUNDS rounds of collatz_steps(COLLATZ_LIMIT)."""
    return sum(collatz_steps(COLLATZ_LIMIT) for _ in range(COLLATZ_ROUNDS))
'''

TEXT_PY = '''\
"""Word counting and edit distances on a fixed synthetic corpus."""

SYLLABLES = ("ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ze", "po")
WORD_FREQ_ROUNDS = $WORD_FREQ_ROUNDS
EDIT_PAIRS = 56
EDIT_ROUNDS = $EDIT_ROUNDS


def make_corpus(n_words, seed=12345):
    """n_words pseudo-words from a fixed linear congruential generator."""
    state = seed
    words = []
    for _ in range(n_words):
        parts = []
        for _ in range(2 + state % 3):
            state = (1103515245 * state + 12345) % 2**31
            parts.append(SYLLABLES[state % len(SYLLABLES)])
        words.append("".join(parts))
    return words


def word_frequencies(words, top=10):
    """The top most frequent words, counted WORD_FREQ_ROUNDS times over."""
    counts = {}
    for _ in range(WORD_FREQ_ROUNDS):
        for word in words:
            counts[word] = counts.get(word, 0) + 1
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:top]


def levenshtein(a, b):
    """Edit distance of two strings (dynamic programming, two rows)."""
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i]
        for j, char_b in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b)))
        previous = current
    return previous[-1]


def edit_distance_total(words):
    """EDIT_ROUNDS rounds of the edit distances of the first EDIT_PAIRS neighbouring words."""
    total = 0
    for _ in range(EDIT_ROUNDS):
        for k in range(EDIT_PAIRS):
            total += levenshtein(words[k], words[k + 1])
    return total
'''

PHYSICS_PY = '''\
"""A small softened n-body integrator (explicit Euler)."""

SYSTEMS = {
    "pair": ((0.0, 0.0, 1.0), (1.0, 0.0, 0.001), (0.0, 1.0, 0.002)),
    "cluster": tuple((float(i % 3), float(i // 3), 1.0 / (i + 1)) for i in range(6)),
}
STEPS = {"pair": $PAIR_STEPS, "cluster": $CLUSTER_STEPS}


def simulate(system, dt=0.001):
    """Integrate a fixed system for STEPS[system] steps; the bodies' summed x position."""
    bodies = [[x, y, 0.0, 0.0, m] for x, y, m in SYSTEMS[system]]
    for _ in range(STEPS[system]):
        for i, a in enumerate(bodies):
            for b in bodies[i + 1 :]:
                dx = b[0] - a[0]
                dy = b[1] - a[1]
                inv = (dx * dx + dy * dy + 0.01) ** -1.5
                a[2] += dx * inv * b[4] * dt
                a[3] += dy * inv * b[4] * dt
                b[2] -= dx * inv * a[4] * dt
                b[3] -= dy * inv * a[4] * dt
        for body in bodies:
            body[0] += body[2] * dt
            body[1] += body[3] * dt
    return sum(body[0] for body in bodies)
'''

BENCH_DEMO_PY = '''\
"""asv benchmarks of demo_pkg: six timings from about 50 us to 200 ms a call."""

import demo_pkg


def time_checksum():
    demo_pkg.checksum()


def time_collatz():
    demo_pkg.collatz_total()


class TimeText:
    def setup(self):
        self.words = demo_pkg.make_corpus(3000)

    def time_word_freq(self):
        demo_pkg.word_frequencies(self.words)

    def time_edit_distance(self):
        demo_pkg.edit_distance_total(self.words)


def time_simulate(system):
    demo_pkg.simulate(system)


time_simulate.params = ["pair", "cluster"]
time_simulate.param_names = ["system"]
'''

PYTEST_DEMO_PY = '''\
"""The same six workloads as a pytest-benchmark suite."""

import pytest

import demo_pkg


def test_checksum(benchmark):
    benchmark(demo_pkg.checksum)


def test_collatz(benchmark):
    benchmark(demo_pkg.collatz_total)


class TestText:
    @pytest.fixture
    def words(self):
        return demo_pkg.make_corpus(3000)

    def test_word_freq(self, benchmark, words):
        benchmark(demo_pkg.word_frequencies, words)

    def test_edit_distance(self, benchmark, words):
        benchmark(demo_pkg.edit_distance_total, words)


@pytest.mark.parametrize("system", ["pair", "cluster"])
def test_simulate(benchmark, system):
    benchmark(demo_pkg.simulate, system)
'''

# pytest-benchmark's names (as its comparison prints them) of the asv benchmarks
PYTEST_NAMES = MappingProxyType(
    {
        "test_checksum": "bench_demo.time_checksum",
        "test_collatz": "bench_demo.time_collatz",
        "test_word_freq": "bench_demo.TimeText.time_word_freq",
        "test_edit_distance": "bench_demo.TimeText.time_edit_distance",
        "test_simulate[pair]": "bench_demo.time_simulate('pair')",
        "test_simulate[cluster]": "bench_demo.time_simulate('cluster')",
    }
)

GITIGNORE = ".asv/\n.pytest-benchmark/\n__pycache__/\n*.egg-info/\nbuild/\n"


def asv_config() -> str:
    """The demo repository's ``asv.conf.json``.

    Returns
    -------
    str
        JSON text: a virtualenv environment on the running interpreter's Python version, the
        project built as a wheel by pip, results/env/html under ``.asv/``, and a build cache
        large enough to keep the wheels of all three commits.
    """
    config = {
        "version": 1,
        "project": "demo-pkg",
        "project_url": "https://example.invalid/demo-pkg",
        "repo": ".",
        "dvcs": "git",
        "branches": ["main"],
        "environment_type": "virtualenv",
        "pythons": [f"{sys.version_info.major}.{sys.version_info.minor}"],
        "matrix": {},
        "build_command": ["python -m pip wheel --no-deps -w {build_cache_dir} {build_dir}"],
        "build_cache_size": 8,
        "benchmark_dir": "benchmarks",
        "env_dir": ".asv/env",
        "results_dir": ".asv/results",
        "html_dir": ".asv/html",
    }
    return json.dumps(config, indent=4) + "\n"


def demo_sources(sizes: Mapping[str, int]) -> dict[str, str]:
    """The demo repository's files, relative path to text, for one set of size constants.

    Parameters
    ----------
    sizes : Mapping[str, int]
        Value of every ``Workload.constant``.

    Returns
    -------
    dict of str to str
        Relative path to file text.
    """
    values = {name: str(value) for name, value in sizes.items()}
    return {
        ".gitignore": GITIGNORE,
        "README.md": README,
        "pyproject.toml": PYPROJECT,
        "asv.conf.json": asv_config(),
        "demo_pkg/__init__.py": INIT_PY,
        "demo_pkg/arith.py": Template(ARITH_PY).substitute(values),
        "demo_pkg/text.py": Template(TEXT_PY).substitute(values),
        "demo_pkg/physics.py": Template(PHYSICS_PY).substitute(values),
        "benchmarks/__init__.py": "",
        "benchmarks/bench_demo.py": BENCH_DEMO_PY,
        "tests/benchmarks/test_demo.py": PYTEST_DEMO_PY,
    }


def _write_files(root: Path, files: Mapping[str, str]) -> None:
    for relative, text in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def _git(root: Path, *args: str, when: str | None = None) -> str:
    """Run git in `root`; `when` fixes author and committer dates, so commit hashes repeat."""
    environment = dict(os.environ)
    if when is not None:
        environment.update(GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when)
    completed = subprocess.run(["git", *args], cwd=root, env=environment, capture_output=True, text=True, check=True)
    return completed.stdout.strip()


def _commit(root: Path, message: str, tag: str, when: str) -> str:
    _git(root, "add", "--all")
    _git(root, "commit", "--quiet", "--no-verify", "-m", message, when=when)
    _git(root, "tag", tag)
    return _git(root, "rev-parse", "HEAD")


def build_demo_repo(path: str) -> DemoRepo:
    """Create the demo git repository at `path` with commits tagged ``A``, ``A-prime`` and ``B``.

    Parameters
    ----------
    path : str
        A directory to create (or an empty one).

    Returns
    -------
    DemoRepo
        The repository, its three commits and the benchmarks ``B`` slows with their factors.
    """
    root = Path(path).resolve()
    root.mkdir(parents=True, exist_ok=True)
    _git(root, "init", "--quiet", "-b", "main")
    for key, value in (("user.name", "Gate Demo"), ("user.email", "gate-demo@example.invalid")):
        _git(root, "config", key, value)
    _git(root, "config", "commit.gpgsign", "false")
    _write_files(root, demo_sources({w.constant: w.size_a for w in WORKLOADS}))
    a_sha = _commit(root, "A: demo_pkg and its asv suite", "A", "2024-01-01T00:00:00+00:00")
    with open(root / "README.md", "a", encoding="utf-8") as readme:
        readme.write(README_EDIT)
    a_prime_sha = _commit(root, "A': README edit, no code effect", "A-prime", "2024-01-02T00:00:00+00:00")
    sources_b = demo_sources({w.constant: w.size_b for w in WORKLOADS})
    _write_files(root, {name: text for name, text in sources_b.items() if name.startswith("demo_pkg/")})
    b_sha = _commit(root, "B: three workloads do 1.10x, 1.25x and 1.50x the work", "B", "2024-01-03T00:00:00+00:00")
    slowed = {w.asv_name: w.factor for w in WORKLOADS if w.size_b != w.size_a}
    return DemoRepo(str(root), a_sha, a_prime_sha, b_sha, MappingProxyType(slowed))


# ----------------------------------------------------------------------------------------------
# Direct timing of the benchmark bodies, outside asv: checks the per-call times and the factors.

TIMING_PROGRAM = """
import importlib, json, sys, time

base_dir, head_dir, pairs = sys.argv[1], sys.argv[2], int(sys.argv[3])
specs = json.loads(sys.argv[4])


def load(checkout):
    # Each checkout's benchmarks bind their own demo_pkg; drop the names before the next import.
    sys.path.insert(0, checkout)
    module = importlib.import_module("benchmarks.bench_demo")
    sys.path.remove(checkout)
    for name in [n for n in sys.modules if n.split(".")[0] in ("benchmarks", "demo_pkg")]:
        del sys.modules[name]
    return module


def bind(module, owner, function, params):
    if not owner:
        return lambda: getattr(module, function)(*params)
    instance = getattr(module, owner)()
    if hasattr(instance, "setup"):
        instance.setup(*params)
    method = getattr(instance, function)
    return lambda: method(*params)


def sample(call, number):
    start = time.perf_counter()
    for _ in range(number):
        call()
    return (time.perf_counter() - start) / number


modules = (load(base_dir), load(head_dir))
out = {}
for name, owner, function, params in specs:
    calls = [bind(module, owner, function, params) for module in modules]
    for call in calls:
        call()
    number = max(1, int(0.02 / max(sample(calls[0], 1), 1e-9)))
    base, head = [], []
    for _ in range(pairs):
        base.append(sample(calls[0], number))
        head.append(sample(calls[1], number))
    out[name] = [base, head]
print(json.dumps(out))
"""

_NAME = re.compile(r"^bench_demo\.(?:(?P<owner>\w+)\.)?(?P<function>\w+)(?:\((?P<params>.*)\))?$")


def _timing_spec(asv_name: str) -> tuple[str, str, str, list[str]]:
    """An asv name as the timing program's (name, class, function, parameters) record."""
    match = _NAME.match(asv_name)
    if match is None:
        raise ValueError(f"not a bench_demo benchmark name: {asv_name!r}")
    params = [p.strip().strip("'") for p in match["params"].split(",")] if match["params"] else []
    return asv_name, match["owner"] or "", match["function"], params


def _checkout(repo: DemoRepo, rev: str, into: Path) -> None:
    archive = subprocess.run(["git", "archive", "--format=tar", rev], cwd=repo.path, capture_output=True, check=True)
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        if hasattr(tarfile, "data_filter"):  # Python 3.10.12+, 3.11.4+
            tar.extractall(into, filter="data")
        else:
            tar.extractall(into)


def _time_pairs(base: Path, head: Path, names: Sequence[str], pairs: int) -> dict[str, list[list[float]]]:
    """One process's alternating samples: benchmark name to [base samples, head samples]."""
    specs = json.dumps([_timing_spec(name) for name in names])
    completed = subprocess.run(
        [sys.executable, "-c", TIMING_PROGRAM, str(base), str(head), str(pairs), specs],
        env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(completed.stdout)


def time_benchmarks(
    repo: DemoRepo, base: str = "A", head: str = "B", processes: int = 3, pairs: int = 11
) -> tuple[BenchTiming, ...]:
    """Time every benchmark body at two commits, the commits' samples alternating in one process.

    Parameters
    ----------
    repo : DemoRepo
        The demo repository.
    base, head : str
        The two commits (any git revision).
    processes : int
        Fresh processes (each with its own string-hash seed); each loads both commits' code.
    pairs : int
        Base/head sample pairs per benchmark and process; a sample takes at least 20 ms.

    Returns
    -------
    tuple of BenchTiming
        One per benchmark, in `WORKLOADS` order.
    """
    names = [w.asv_name for w in WORKLOADS]
    with tempfile.TemporaryDirectory() as scratch:
        base_dir, head_dir = Path(scratch, "base"), Path(scratch, "head")
        _checkout(repo, base, base_dir)
        _checkout(repo, head, head_dir)
        runs = [_time_pairs(base_dir, head_dir, names, pairs) for _ in range(processes)]
    code_changed = _git(Path(repo.path), "diff", "--name-only", base, head, "--", "demo_pkg") != ""
    timings = []
    for workload in WORKLOADS:
        per_process = [run[workload.asv_name] for run in runs]
        base_seconds = statistics.median(statistics.median(b) for b, _ in per_process)
        head_seconds = statistics.median(statistics.median(h) for _, h in per_process)
        ratio = statistics.median(statistics.median(y / x for x, y in zip(b, h, strict=True)) for b, h in per_process)
        intended = workload.factor if code_changed else 1.0
        timings.append(BenchTiming(workload.asv_name, base_seconds, head_seconds, ratio, intended))
    return tuple(timings)


# ----------------------------------------------------------------------------------------------
# asv.


def _repo_path(repo: DemoRepo | str) -> Path:
    return Path(repo.path if isinstance(repo, DemoRepo) else repo).resolve()


def asv_environment(repo: DemoRepo | str) -> dict[str, str]:
    """The environment asv runs in: ``HOME`` and the XDG data/cache folders inside ``.asv/``.

    asv keeps its machine file at ``~/.asv-machine.json`` (no option moves it); pip's cache
    and virtualenv's app data live under ``~`` as well. Pointing ``HOME`` at
    ``<repo>/.asv/home`` keeps all of them in the throwaway repository. pip's site-wide
    configuration (``/etc/xdg/pip``) and the ``PIP_*`` variables still apply.

    Parameters
    ----------
    repo : DemoRepo or str
        The demo repository.

    Returns
    -------
    dict of str to str
        A copy of ``os.environ`` with the redirections.
    """
    home = _repo_path(repo) / ".asv" / "home"
    home.mkdir(parents=True, exist_ok=True)
    return dict(
        os.environ,
        HOME=str(home),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
    )


def asv_command(*args: str) -> list[str]:
    """``python -m asv ARGS`` with the interpreter running this module (the one asv is installed in)."""
    return [sys.executable, "-m", "asv", *args]


def prepare_asv_machine(repo: DemoRepo | str, machine: str = ASV_MACHINE) -> None:
    """Record the machine in asv's machine file non-interactively (``asv machine --yes``).

    Parameters
    ----------
    repo : DemoRepo or str
        The demo repository (its ``.asv/home`` holds the machine file).
    machine : str
        The machine name results are filed under.
    """
    root = _repo_path(repo)
    machine_file = root / ".asv" / "home" / ".asv-machine.json"
    if machine_file.exists() and machine in json.loads(machine_file.read_text(encoding="utf-8")):
        return
    subprocess.run(
        asv_command("machine", "--yes", "--machine", machine, "--config", str(root / "asv.conf.json")),
        cwd=root,
        env=asv_environment(root),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=True,
    )


_ROW = re.compile(r"^\|\s*(?P<mark>[-+!x*]?)\s*\|[^|]*\|[^|]*\|(?P<ratio>[^|]*)\|(?P<name>[^|]*)\|$")


def parse_asv_table(output: str) -> tuple[AsvRow, ...]:
    """The rows of the comparison tables asv prints (``asv continuous`` or ``asv compare``).

    asv prints each table in GitHub markdown: ``| Change | Before | After | Ratio | Benchmark |``
    with one row per benchmark. ``asv continuous`` prints only the changed rows.

    Parameters
    ----------
    output : str
        asv's standard output.

    Returns
    -------
    tuple of AsvRow
        The rows, in printed order (header and rule lines skipped).
    """
    rows = []
    for line in output.splitlines():
        match = _ROW.match(line.strip())
        if match is None or match["name"].strip() in ("Benchmark (Parameter)", "") or set(line) <= set("|-: "):
            continue
        text = match["ratio"].strip()
        try:
            ratio = float(text.lstrip("~"))
        except ValueError:
            ratio = math.nan
        rows.append(AsvRow(match["name"].strip(), match["mark"], ratio, text.startswith("~")))
    return tuple(rows)


def _asv_state(root: Path) -> tuple[frozenset[str], frozenset[str]]:
    """asv's virtualenvs and the commits in their build caches, under ``.asv/env``."""
    envs = frozenset(str(cfg.parent) for cfg in root.glob(".asv/env/*/pyvenv.cfg"))
    cached = frozenset(p.name for p in root.glob(".asv/env/*/asv-build-cache/*") if p.is_dir())
    return envs, cached


def _tail(text: str, lines: int = 60) -> str:
    return "\n".join(text.splitlines()[-lines:])


def run_asv_continuous(
    repo: DemoRepo | str, base: str, head: str, factor: float = 1.1, machine: str = ASV_MACHINE
) -> AsvOutcome:
    """Run ``asv continuous --factor FACTOR BASE HEAD`` in the demo repository, as CI would.

    asv's default sampling is kept; the only options are the factor, the machine name,
    ``--show-stderr`` (so a failing benchmark explains itself in the log) and the config path.
    The first run creates the virtualenv and builds a wheel per commit; later runs reuse both
    (the build cache keeps every commit's wheel) and reinstall each side's wheel.

    Parameters
    ----------
    repo : DemoRepo or str
        The demo repository.
    base, head : str
        The commits to compare (tags ``A``, ``A-prime``, ``B`` or hashes).
    factor : float
        asv's ``--factor``: a ratio beyond it (and statistically significant) is flagged.
    machine : str
        The machine name (recorded by `prepare_asv_machine` first if missing).

    Returns
    -------
    AsvOutcome
        The exit code, the benchmarks marked slower (and faster, and newly failing), the wall
        time and the tail of asv's output.
    """
    root = _repo_path(repo)
    prepare_asv_machine(root, machine)
    command = asv_command(
        "continuous",
        "--config",
        str(root / "asv.conf.json"),
        "--machine",
        machine,
        "--factor",
        str(factor),
        "--show-stderr",
        base,
        head,
    )
    environment = asv_environment(root)
    envs_before, cached_before = _asv_state(root)
    start = time.perf_counter()
    completed = subprocess.run(
        command, cwd=root, env=environment, stdin=subprocess.DEVNULL, capture_output=True, text=True
    )
    wall = time.perf_counter() - start
    envs_after, cached_after = _asv_state(root)
    rows = parse_asv_table(completed.stdout)
    output = completed.stdout + completed.stderr
    return AsvOutcome(
        exit_code=completed.returncode,
        flagged=tuple(row.name for row in rows if row.mark == "+"),
        wall_seconds=wall,
        output_tail=_tail(output),
        improved=tuple(row.name for row in rows if row.mark == "-"),
        broken=tuple(row.name for row in rows if row.mark == "!"),
        built=tuple(sorted(cached_after - cached_before)),
        created_env=bool(envs_after - envs_before),
    )


def compare_asv_results(
    repo: DemoRepo | str, base: str, head: str, factor: float = 1.1, machine: str = ASV_MACHINE
) -> tuple[AsvRow, ...]:
    """Every benchmark's row of ``asv compare`` for the results the last run saved.

    Parameters
    ----------
    repo : DemoRepo or str
        The demo repository.
    base, head : str
        The commits, as given to `run_asv_continuous`.
    factor : float
        asv's ``--factor``.
    machine : str
        The machine name.

    Returns
    -------
    tuple of AsvRow
        One row per benchmark (unchanged ones too), with asv's ratio and mark.
    """
    root = _repo_path(repo)
    command = asv_command(
        "compare", "--config", str(root / "asv.conf.json"), "--machine", machine, "--factor", str(factor), base, head
    )
    completed = subprocess.run(
        command, cwd=root, env=asv_environment(root), stdin=subprocess.DEVNULL, capture_output=True, text=True
    )
    return parse_asv_table(completed.stdout)


# ----------------------------------------------------------------------------------------------
# The study driver.


@dataclass(frozen=True)
class AsvRun:
    """One ``asv continuous`` run of the study.

    Parameters
    ----------
    comparison : str
        ``"null"`` (A vs A-prime: any flag is a false alarm) or ``"slowed"`` (A vs B).
    base, head : str
        The commits compared.
    outcome : AsvOutcome
        What asv reported (with the ``asv compare`` rows).
    """

    comparison: str
    base: str
    head: str
    outcome: AsvOutcome


@dataclass(frozen=True)
class AsvSideSummary:
    """The asv runs of one comparison, summarized.

    Parameters
    ----------
    runs : int
        Number of runs.
    runs_flagging_any : int
        Runs in which asv flagged at least one benchmark as slower.
    flag_counts : Mapping[str, int]
        Benchmark name to the number of runs that flagged it.
    exit_codes : tuple of int
        asv's exit status per run.
    wall_seconds : tuple of float
        Wall time per run.
    wall_seconds_median : float or None
        Their median (None without runs).
    """

    runs: int
    runs_flagging_any: int
    flag_counts: Mapping[str, int]
    exit_codes: tuple[int, ...]
    wall_seconds: tuple[float, ...]
    wall_seconds_median: float | None


@dataclass(frozen=True)
class StudySummary:
    """The study's result, as written to ``--out``.

    Parameters
    ----------
    factor : float
        asv's ``--factor``.
    repo : DemoRepo
        The demo repository (its path no longer exists once the study ends).
    direct_timing : tuple of BenchTiming
        Paired timings of A and B outside asv (empty when skipped).
    false_alarms : int
        Null runs in which asv flagged anything.
    detections : Mapping[str, int]
        Each slowed benchmark to the number of A-vs-B runs that flagged it.
    null, slowed : AsvSideSummary
        The A-vs-A-prime and A-vs-B runs.
    wall_seconds_first : float or None
        The first run's wall time (it creates the virtualenv and builds two wheels).
    wall_seconds_median_warm : float or None
        Median wall time of the runs that neither created an environment nor built a wheel.
    runs : tuple of AsvRun
        Every run, in the order run.
    """

    factor: float
    repo: DemoRepo
    direct_timing: tuple[BenchTiming, ...]
    false_alarms: int
    detections: Mapping[str, int]
    null: AsvSideSummary
    slowed: AsvSideSummary
    wall_seconds_first: float | None
    wall_seconds_median_warm: float | None
    runs: tuple[AsvRun, ...]


def to_json(value: object) -> object:
    """A JSON-ready copy of a record: dataclasses and mappings become objects, tuples lists."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, Mapping):
        return {str(key): to_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _log(message: str) -> None:
    print(f"[gate_vs_asv {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _schedule(runs_a: int, runs_b: int) -> list[tuple[str, str, str]]:
    """Null (A vs A-prime) and slowed (A vs B) comparisons, interleaved as evenly as possible."""
    slots = [((i + 0.5) / runs_a, 0) for i in range(runs_a)] + [((i + 0.5) / runs_b, 1) for i in range(runs_b)]
    labels = (("null", "A", "A-prime"), ("slowed", "A", "B"))
    return [labels[kind] for _, kind in sorted(slots)]


def summarize_side(runs: Sequence[AsvRun]) -> AsvSideSummary:
    """Flag counts, exit codes and wall times of some runs."""
    walls = tuple(run.outcome.wall_seconds for run in runs)
    return AsvSideSummary(
        runs=len(runs),
        runs_flagging_any=sum(bool(run.outcome.flagged) for run in runs),
        flag_counts=MappingProxyType(
            {w.asv_name: sum(w.asv_name in run.outcome.flagged for run in runs) for w in WORKLOADS}
        ),
        exit_codes=tuple(run.outcome.exit_code for run in runs),
        wall_seconds=walls,
        wall_seconds_median=statistics.median(walls) if walls else None,
    )


def summarize(repo: DemoRepo, runs: Sequence[AsvRun], timings: Sequence[BenchTiming], factor: float) -> StudySummary:
    """The study's summary: false alarms, detections per slowed benchmark, wall times."""
    null = summarize_side([run for run in runs if run.comparison == "null"])
    slowed = summarize_side([run for run in runs if run.comparison == "slowed"])
    warm = [run.outcome.wall_seconds for run in runs if not run.outcome.built and not run.outcome.created_env]
    return StudySummary(
        factor=factor,
        repo=repo,
        direct_timing=tuple(timings),
        false_alarms=null.runs_flagging_any,
        detections=MappingProxyType({name: slowed.flag_counts[name] for name in repo.slowed}),
        null=null,
        slowed=slowed,
        wall_seconds_first=runs[0].outcome.wall_seconds if runs else None,
        wall_seconds_median_warm=statistics.median(warm) if warm else None,
        runs=tuple(runs),
    )


def run_asv_study(repo: DemoRepo, runs_a: int, runs_b: int, factor: float = 1.1) -> tuple[AsvRun, ...]:
    """Run the interleaved asv comparisons, logging each outcome to stderr.

    Parameters
    ----------
    repo : DemoRepo
        The demo repository.
    runs_a, runs_b : int
        Runs of A vs A-prime and of A vs B.
    factor : float
        asv's ``--factor``.

    Returns
    -------
    tuple of AsvRun
        The runs in the order run, each outcome with its ``asv compare`` rows.
    """
    runs = []
    for index, (comparison, base, head) in enumerate(_schedule(runs_a, runs_b), 1):
        outcome = run_asv_continuous(repo, base, head, factor)
        outcome = replace(outcome, ratios=compare_asv_results(repo, base, head, factor))
        runs.append(AsvRun(comparison, base, head, outcome))
        _log(
            f"asv {index}: {base} vs {head}: exit {outcome.exit_code}, flagged {list(outcome.flagged)}, "
            f"improved {list(outcome.improved)}, {outcome.wall_seconds:.1f} s "
            f"(new env {outcome.created_env}, built {[sha[:8] for sha in outcome.built]})"
        )
        if outcome.exit_code not in (0, 1) or outcome.broken:
            _log("asv output tail:\n" + outcome.output_tail)
    return tuple(runs)


def run_bootmark_gate(repo: DemoRepo, base: str, head: str, tolerance: float = 1.1) -> AsvOutcome:
    """``bootmark gate --baseline base`` with ``head`` checked out, as a maintainer runs it in CI.

    Parameters
    ----------
    repo : DemoRepo
        The demo repository.
    base, head : str
        The baseline revision and the revision checked out as the current side.
    tolerance : float
        The gate's ``--tolerance`` (asv's ``--factor`` for a like-for-like question).

    Returns
    -------
    AsvOutcome
        The exit code, the cells the gate called a regression (seen twice), the wall time.
    """
    subprocess.run(["git", "checkout", "-q", "--detach", head], cwd=repo.path, check=True)
    bootmark = os.path.join(os.path.dirname(sys.executable), "bootmark")
    command = [bootmark, "gate", "--baseline", base, "--tolerance", str(tolerance), "--format", "json"]
    start = time.perf_counter()
    completed = subprocess.run(
        [*command, "--no-receipt", "--no-progress"], cwd=repo.path, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - start
    subprocess.run(["git", "checkout", "-q", "main"], cwd=repo.path, check=True)
    try:
        body = json.loads(completed.stdout)
        cells, runner = body["cells"], body.get("runner") or {}
    except (json.JSONDecodeError, KeyError):
        cells, runner = [], {}
    for cell in cells:  # the why of each verdict that is not "same", for the log
        if cell["status"] != "same" and cell["ratio"]:
            again, third = cell["confirmation"], cell.get("decider")
            _log(
                f"  {cell['label']}: {cell['status']}, {cell['ratio']['median']:.3f} "
                f"({cell['ratio']['low']:.3f}-{cell['ratio']['high']:.3f})"
                + (f"; again {again['median']:.3f} ({again['low']:.3f}-{again['high']:.3f})" if again else "")
                + (f"; third {third['median']:.3f} ({third['low']:.3f}-{third['high']:.3f})" if third else "")
                + (f"; instructions {cell['instructions']['ratio']:.3f}" if cell.get("instructions") else "")
            )
    flagged = tuple(cell["label"] for cell in cells if cell["status"] == "regression")
    improved = tuple(cell["label"] for cell in cells if cell["status"] == "improvement")
    return AsvOutcome(
        completed.returncode,
        flagged,
        wall,
        completed.stderr[-2000:],
        improved=improved,
        decided_by_instructions=tuple(cell["label"] for cell in cells if cell.get("decided_by") == "instructions"),
        other_cpus=runner.get("other_cpus"),
    )


def run_gate_study(repo: DemoRepo, runs_a: int, runs_b: int, tolerance: float = 1.1) -> tuple[AsvRun, ...]:
    """The same interleaved schedule as :func:`run_asv_study`, with ``bootmark gate``.

    Parameters
    ----------
    repo : DemoRepo
    runs_a, runs_b : int
        Runs of A vs A-prime and of A vs B.
    tolerance : float
        The gate's ``--tolerance``.

    Returns
    -------
    tuple of AsvRun
    """
    return _interleaved("gate", lambda base, head: run_bootmark_gate(repo, base, head, tolerance), runs_a, runs_b)


def run_pytest_benchmark(repo: DemoRepo, base: str, head: str, factor: float = 1.1) -> AsvOutcome:
    """pytest-benchmark's comparison of ``head`` against ``base``, as a maintainer runs it:
    the suite at ``base`` saved (``--benchmark-save``), then at ``head`` compared with
    ``--benchmark-compare-fail=median:P%``, P = (factor - 1) * 100.

    Parameters
    ----------
    repo : DemoRepo
    base, head : str
        The two revisions.
    factor : float
        The allowed slow-down factor.

    Returns
    -------
    AsvOutcome
        pytest's exit code of the comparing run, the benchmarks it reports as regressed
        (as asv names), the wall time of both runs.
    """
    storage = Path(repo.path) / ".pytest-benchmark"
    subprocess.run(["rm", "-rf", str(storage)], check=True)
    percent = f"{(factor - 1) * 100:.6g}"
    common = [sys.executable, "-m", "pytest", "tests/benchmarks", "-q", "-p", "no:cacheprovider"]
    common += [f"--benchmark-storage=file://{storage}"]
    start = time.perf_counter()
    subprocess.run(["git", "checkout", "-q", "--detach", base], cwd=repo.path, check=True)
    saved = subprocess.run([*common, "--benchmark-save=base"], cwd=repo.path, capture_output=True, text=True)
    subprocess.run(["git", "checkout", "-q", "--detach", head], cwd=repo.path, check=True)
    compared = subprocess.run(
        [*common, "--benchmark-compare", f"--benchmark-compare-fail=median:{percent}%"],
        cwd=repo.path,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - start
    subprocess.run(["git", "checkout", "-q", "main"], cwd=repo.path, check=True)
    output = compared.stdout + compared.stderr
    flagged = tuple(
        PYTEST_NAMES[name]
        for name in PYTEST_NAMES
        if re.search(rf"^\s*{re.escape(name)} \(\d+_base\) - Field 'median' has failed", output, re.MULTILINE)
    )
    code = compared.returncode if saved.returncode == 0 else 2
    if saved.returncode != 0 or (compared.returncode != 0 and not flagged):
        code = 2  # pytest itself failed: no comparison
    return AsvOutcome(code, flagged, wall, _tail(saved.stdout + saved.stderr + output))


def run_pytest_benchmark_study(repo: DemoRepo, runs_a: int, runs_b: int, factor: float = 1.1) -> tuple[AsvRun, ...]:
    """The same interleaved schedule as :func:`run_asv_study`, with pytest-benchmark."""
    return _interleaved(
        "pytest-benchmark", lambda base, head: run_pytest_benchmark(repo, base, head, factor), runs_a, runs_b
    )


def _interleaved(tool: str, run, runs_a: int, runs_b: int) -> tuple[AsvRun, ...]:
    """``run(base, head)`` on :func:`_schedule`'s interleaved null and slowed comparisons,
    each outcome logged (with the output's tail when the tool could not judge)."""
    runs = []
    for index, (comparison, base, head) in enumerate(_schedule(runs_a, runs_b), 1):
        outcome = run(base, head)
        runs.append(AsvRun(comparison, base, head, outcome))
        _log(
            f"{tool} {index}: {base} vs {head}: exit {outcome.exit_code}, flagged {list(outcome.flagged)}, "
            f"{outcome.wall_seconds:.1f} s"
        )
        if outcome.exit_code not in (0, 1):
            _log(f"{tool} output tail:\n" + outcome.output_tail)
    return tuple(runs)


def _tool_versions() -> dict[str, str | None]:
    from importlib import metadata

    def version(name):
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return None

    return {name: version(name) for name in ("bootmark", "asv", "pytest", "pytest-benchmark")}


def _seal_and_render(summary_path: str | None) -> int:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from bootmark.gate import asv_study as gatecheck

    if summary_path:
        path = gatecheck.seal_study(json.loads(Path(summary_path).read_text(encoding="utf-8")))
        _log(f"receipt {path}")
    gatecheck.update_readme()
    _log(f"rendered from {gatecheck.newest(False)} (quiet) and {gatecheck.newest(True)} (busy)")
    return 0


NEIGHBOUR_DESCRIPTION = "a Python process in a busy loop, started before the study and stopped after it"


@contextlib.contextmanager
def _neighbours(count: int):
    """``count`` processes that each keep one core busy until the block ends: the noisy
    neighbour of a shared CI runner."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True:\n    pass"]) for _ in range(count)]
    if burners:
        _log(f"{count} neighbour process(es) burning a core each: {[burner.pid for burner in burners]}")
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: build the demo repository, time it, run asv; write a JSON summary."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--asv-only", action="store_true", help="run asv only (the bootmark gate side comes later)")
    parser.add_argument("--runs-a", type=int, default=20, help="asv continuous runs of A vs A-prime (null)")
    parser.add_argument("--runs-b", type=int, default=10, help="asv continuous runs of A vs B (slowed)")
    parser.add_argument(
        "--factor",
        type=float,
        default=1.1,
        help="the allowed slow-down: asv's --factor, the gate's --tolerance, pytest-benchmark's median:P%%",
    )
    parser.add_argument("--peer-runs-a", type=int, help="null runs of asv and pytest-benchmark (default: --runs-a)")
    parser.add_argument(
        "--tools", default="gate,asv", help="comma-separated: gate, asv, pytest (pytest-benchmark); default gate,asv"
    )
    parser.add_argument("--timing-processes", type=int, default=3, help="direct-timing processes (0: skip)")
    parser.add_argument(
        "--neighbour",
        type=int,
        default=0,
        metavar="N",
        help="run the study beside N processes that each burn one core for the whole run (a busy CI runner)",
    )
    parser.add_argument("--out", help="JSON summary path")
    parser.add_argument("--seal", metavar="JSON", help="seal a finished summary as a gatecheck receipt and render it")
    parser.add_argument("--render", action="store_true", help="render the newest gatecheck receipt into README.md")
    args = parser.parse_args(argv)
    if args.seal or args.render:
        return _seal_and_render(args.seal)
    if not args.out:
        parser.error("--out is required to run the study")
    with tempfile.TemporaryDirectory(prefix="gate_vs_asv-") as scratch, _neighbours(args.neighbour):
        repo = build_demo_repo(os.path.join(scratch, "demo"))
        _log(f"demo repository at {repo.path}: A {repo.a_sha[:8]}, A-prime {repo.a_prime_sha[:8]}, B {repo.b_sha[:8]}")
        timings: tuple[BenchTiming, ...] = ()
        if args.timing_processes > 0:
            timings = time_benchmarks(repo, "A", "B", args.timing_processes)
            for t in timings:
                _log(
                    f"{t.name}: A {t.base_seconds * 1e3:.3f} ms, B {t.head_seconds * 1e3:.3f} ms, "
                    f"B/A {t.ratio:.3f} (intended {t.intended:.2f})"
                )
        result = {"tools": _tool_versions()}
        if args.neighbour:
            result["neighbour"] = {"processes": args.neighbour, "description": NEIGHBOUR_DESCRIPTION}
        tools = ["asv"] if args.asv_only else [tool.strip() for tool in args.tools.split(",")]
        peer_runs = args.peer_runs_a or args.runs_a
        studies = {  # the gate first: its runs are shorter; each tool's half is written as it ends
            "gate": ("bootmark_gate", lambda: run_gate_study(repo, args.runs_a, args.runs_b, args.factor)),
            "pytest": (
                "pytest_benchmark",
                lambda: run_pytest_benchmark_study(repo, peer_runs, args.runs_b, args.factor),
            ),
            "asv": ("asv", lambda: run_asv_study(repo, peer_runs, args.runs_b, args.factor)),
        }
        for tool in ("gate", "pytest", "asv"):
            if tool not in tools:
                continue
            key, study = studies[tool]
            summary = summarize(repo, study(), timings, args.factor)
            result[key] = to_json(summary)
            Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
            _log(
                f"{key}: false alarms {summary.false_alarms}/{summary.null.runs}, detections "
                f"{dict(summary.detections)} of {summary.slowed.runs}; summary written to {args.out}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
