"""``bootmark gate`` on projects laid out as their maintainers lay them out: asv suites in the
three places asv's users keep them, a pytest-benchmark suite, and the behaviour CI relies on
(a same-commit baseline, only the selected code imported, a clean checkout afterwards, a
project environment without bootmark in it).

Known answers come from construction, as in tests/test_gate.py: a commit that makes one
workload do 1.5x the work must fail and be named, a README-only commit must pass.

Every gate here runs as a new user runs it: the console script of bootmark's wheel,
installed in a fresh environment of its own, its workers on this test environment's
interpreter (``--python``), which stands for the project's environment (pytest and
pytest-benchmark installed, as a project that has such a suite has them).
"""

import json
import os
import subprocess
import sys

import pytest
from test_gate import PACKAGE, commit, git
from wheel_fixture import run_in

from asv import util as asv_util
from bootmark.gate.config import SuiteError, load_config

INSTALLED = {}  # the wheel's console script and its user's environment, set for each test below


@pytest.fixture(autouse=True)
def gate_from_the_wheel(site_wheel, monkeypatch):
    """:func:`gate` runs the wheel's ``bootmark gate`` in every test of this module."""
    monkeypatch.setitem(INSTALLED, "bootmark", site_wheel)


def gate(root, *arguments, environment=None):
    """The wheel's ``bootmark gate`` run in ``root``, its workers on this environment's
    interpreter unless ``--python`` is among ``arguments``."""
    script, user = INSTALLED["bootmark"]
    python = () if any(argument.startswith("--python") for argument in arguments) else ("--python", sys.executable)
    return run_in([script, "gate", "--no-progress", *arguments, *python], user | (environment or {}), root)


UTILS = "def size():\n    return 300\n"

ASV_SUITE = """
from {package}.utils import size

import demo


def time_work():
    demo.work()


def time_other():
    demo.other(size())
"""

OTHER_PACKAGE = PACKAGE.replace(
    "def other():\n    return sum(index % 3 for index in range(3000))",
    "def other(n=3000):\n    return sum(index % 3 for index in range(n * 10))",
)


# An asv.conf.json as real ones are written, which asv reads (JSON5): comments on their own
# lines and at line ends, a block comment, a trailing comma. Plain JSON refuses it.
ASV_CONFIG = """{
    // The version of the config file format.  Do not change, unless
    // you know what you are doing.
    "version": 1,
    "project": "demo",
    "branches": ["main"], // for git
    "benchmark_dir": "BENCHMARK_DIR", /* relative to this file */
    "environment_type": "virtualenv",
}
"""


def _repository(root):
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "gate@example.invalid")
    git(root, "config", "user.name", "gate test")
    commit(root, "A")


def _asv_project(root, conf_folder, benchmark_dir):
    """A project whose asv.conf.json is in ``conf_folder`` and names ``benchmark_dir``
    relative to itself; its suite imports a helper through the package asv makes of the
    benchmark folder (``from benchmarks.utils import size``, as networkx's does)."""
    (root / "demo").mkdir(parents=True)
    (root / "demo" / "__init__.py").write_text(OTHER_PACKAGE)
    suite = root / conf_folder / benchmark_dir
    suite.mkdir(parents=True)
    (suite / "__init__.py").write_text("")
    (suite / "utils.py").write_text(UTILS)
    (suite / "bench_demo.py").write_text(ASV_SUITE.format(package=os.path.basename(benchmark_dir)))
    (root / conf_folder / "asv.conf.json").write_text(ASV_CONFIG.replace("BENCHMARK_DIR", benchmark_dir))
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0.1"\n')
    _repository(root)
    return root


def _slow_down(root):
    package = root / "demo" / "__init__.py"
    package.write_text(package.read_text().replace("WORK = 6000", "WORK = 9000"))
    commit(root, "B: work() does 1.5x the work")


def _readme_only(root):
    (root / "README.md").write_text("# demo\n\nNo code changed.\n")
    commit(root, "B: README only")


@pytest.mark.parametrize(
    ("conf_folder", "benchmark_dir", "expected"),
    [
        ("", "benchmarks", "benchmarks"),  # asv.conf.json at the root
        ("benchmarks", "benchmarks", "benchmarks/benchmarks"),  # networkx's layout
        ("asv_bench", "benchmarks", "asv_bench/benchmarks"),  # pandas' and xarray's layout
    ],
)
def test_an_asv_suite_is_found_where_its_maintainers_keep_it(tmp_path, conf_folder, benchmark_dir, expected):
    root = _asv_project(tmp_path / "project", conf_folder, benchmark_dir)
    config = load_config(str(root))
    assert (config.benchmark_dir, config.framework) == (expected, "asv")
    assert config.found_by == f"benchmark_dir of {os.path.join(conf_folder, 'asv.conf.json')}"
    _slow_down(root)
    completed = gate(root, "--baseline", "HEAD~1", "--no-receipt")
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert f"benchmarks: {expected} (asv suite; benchmark_dir of" in completed.stderr  # the folder chosen, printed
    regressions = completed.stdout.split("### Regressions", 1)[1].split("\n### ", 1)[0]
    # asv's names: module.function relative to the benchmark folder, no folder prefix
    assert "`bench_demo.time_work`" in regressions and "time_other" not in regressions


def test_the_asv_config_is_read_as_asv_reads_it_and_only_when_it_is_needed(tmp_path):
    root = tmp_path / "project"
    (root / "benchmarks").mkdir(parents=True)
    config_file = root / "asv.conf.json"
    config_file.write_text(ASV_CONFIG.replace("BENCHMARK_DIR", "benchmarks"))
    # Not plain JSON, even with its whole-line comments dropped (what the gate once read).
    with pytest.raises(json.JSONDecodeError):
        json.loads("\n".join(line for line in ASV_CONFIG.splitlines() if not line.lstrip().startswith("//")))
    assert asv_util.load_json(str(config_file), js_comments=True)["benchmark_dir"] == "benchmarks"  # asv's own loader
    config = load_config(str(root))
    assert (config.benchmark_dir, config.framework, config.found_by) == (
        "benchmarks",
        "asv",
        "benchmark_dir of asv.conf.json",
    )
    # A config that does not parse stops the gate only when it is the way to the suite.
    config_file.write_text('{"benchmark_dir": "benchmarks",,}')
    with pytest.raises(SuiteError, match=r"asv.conf.json cannot be read as asv reads it .*--benchmarks DIR"):
        load_config(str(root))
    assert load_config(str(root), benchmarks="benchmarks").benchmark_dir == "benchmarks"
    (root / "pyproject.toml").write_text('[tool.bootmark.gate]\nbenchmarks = "benchmarks"\n')
    assert load_config(str(root)).found_by == "[tool.bootmark.gate] benchmarks"


PYTEST_SUITE = """
import pytest

import demo


def test_work(benchmark):
    assert benchmark(demo.work) > 0


@pytest.mark.parametrize("n", [2000, 4000])
def test_other(benchmark, n):
    benchmark(demo.other, n)


class TestWork:
    def test_work_in_a_class(self, benchmark):
        benchmark.pedantic(demo.work, kwargs={"n": None})


@pytest.fixture
def workload():
    return demo.work


def test_work_from_a_fixture(benchmark, workload):
    benchmark(workload)


def test_pedantic_setup(benchmark):
    benchmark.pedantic(demo.work, setup=lambda: ((None,), {}))


OPEN = []  # what setup opened and teardown has not closed yet


def _open():
    assert not OPEN, "teardown did not run after the last call"
    OPEN.append("resource")
    return (None,), {}


def _close(n):
    OPEN.remove("resource")


def test_pedantic_setup_and_teardown(benchmark):
    benchmark.pedantic(demo.work, setup=_open, teardown=_close, rounds=50, warmup_rounds=2, iterations=1)


@pytest.fixture
def numbers():
    return list(range(2000, 0, -1))


def test_sorted_with_fixture(benchmark, numbers):
    benchmark(sorted, numbers)


def test_not_a_benchmark():
    assert demo.other(10) >= 0
"""


@pytest.fixture
def pytest_project(tmp_path):
    """A project with package ``demo`` and a pytest-benchmark suite in ``benchmarks/``."""
    root = tmp_path / "project"
    (root / "demo").mkdir(parents=True)
    (root / "demo" / "__init__.py").write_text(OTHER_PACKAGE)
    (root / "benchmarks").mkdir()
    (root / "benchmarks" / "test_speed.py").write_text(PYTEST_SUITE)
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0.1"\n')
    _repository(root)
    return root


def test_a_pytest_benchmark_suite_catches_a_slow_down_and_names_the_test(pytest_project):
    config = load_config(str(pytest_project))
    assert (config.benchmark_dir, config.framework) == ("benchmarks", "pytest")
    _slow_down(pytest_project)
    completed = gate(pytest_project, "--baseline", "HEAD~1", "--no-receipt", "--format", "json")
    assert completed.returncode == 1, completed.stdout + completed.stderr
    import json

    body = json.loads(completed.stdout)
    statuses = {cell["label"]: cell["status"] for cell in body["cells"]}
    for slowed in (
        "test_work",
        "TestWork::test_work_in_a_class",
        "test_work_from_a_fixture",
        "test_pedantic_setup",
        "test_pedantic_setup_and_teardown",
    ):
        assert statuses.pop(f"benchmarks/test_speed.py::{slowed}") == "regression", slowed
    # the cells whose code did not change: every parametrization, a fixture-fed sort
    assert sorted(statuses) == [
        "benchmarks/test_speed.py::test_other[2000]",
        "benchmarks/test_speed.py::test_other[4000]",
        "benchmarks/test_speed.py::test_sorted_with_fixture",
    ]
    assert "regression" not in statuses.values()
    assert body["project"]["framework"] == "pytest" and body["project"]["name"] == "demo"
    assert "pytest" in body["project"]["distributions"]


def test_a_pytest_benchmark_suite_passes_a_readme_only_commit(pytest_project):
    _readme_only(pytest_project)
    completed = gate(pytest_project, "--baseline", "HEAD~1", "--no-receipt", "--bench", "test_work$|test_other")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "benchmarks/test_speed.py::test_other[4000]" in completed.stdout
    assert "test_sorted_with_fixture" not in completed.stdout  # --bench matches node ids


def test_a_broken_pytest_benchmark_prints_its_traceback(pytest_project):
    with open(pytest_project / "benchmarks" / "test_speed.py", "a") as stream:
        stream.write("\n\ndef test_broken(benchmark):\n    benchmark(lambda: 1 / 0)\n")
    commit(pytest_project, "a benchmark that raises")
    completed = gate(pytest_project, "--baseline", "HEAD~1", "--no-receipt", "--bench", "broken|test_work$")
    assert completed.returncode == 2, completed.stdout + completed.stderr
    traceback = completed.stderr.split("test_broken fails on the current side:", 1)[1]
    assert "ZeroDivisionError" in traceback and "test_speed.py" in traceback


def test_only_the_selected_modules_are_imported(tmp_path):
    root = _asv_project(tmp_path / "project", "", "benchmarks")
    log = tmp_path / "imports.log"
    (root / "benchmarks" / "bench_heavy.py").write_text(
        f"with open({str(log)!r}, 'a') as stream:\n    stream.write('imported\\n')\n\n\ndef time_heavy():\n    pass\n"
    )
    # a module this change breaks: it imports on the baseline, which has the attribute it needs
    (root / "benchmarks" / "bench_broken.py").write_text(
        "import demo\n\nif not hasattr(demo, 'KEPT'):\n    raise RuntimeError('this module cannot be imported')\n"
    )
    package = root / "demo" / "__init__.py"
    package.write_text(package.read_text() + "\nKEPT = 1\n")
    commit(root, "more modules")
    package.write_text(package.read_text().replace("\nKEPT = 1\n", ""))
    commit(root, "B: KEPT removed")
    completed = gate(root, "--baseline", "HEAD~1", "--no-receipt", "--bench", "bench_demo.time_other")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert log.read_text() == "imported\n"  # by the discovery alone, not by the four workers
    # the unselected module that fails to import is a warning that names the fix, not a stop
    warnings = completed.stdout.split("### Warnings", 1)[1]
    assert "bench_broken fails to import on the current side: RuntimeError" in warnings
    assert "--benchmarks DIR" in warnings
    # the negative control: gating the whole suite, the broken module stops the gate
    everything = gate(root, "--baseline", "HEAD~1", "--no-receipt")
    assert everything.returncode == 2, everything.stdout + everything.stderr
    assert "bench_broken fails to import" in everything.stdout.split("### Cannot judge", 1)[1]


def test_a_baseline_that_is_the_current_commit_exits_2(tmp_path):
    root = _asv_project(tmp_path / "project", "", "benchmarks")
    completed = gate(root, "--baseline", "HEAD", "--no-receipt")
    assert completed.returncode == 2
    assert "is the current commit" in completed.stderr and "nothing to compare" in completed.stderr
    assert "Traceback" not in completed.stderr
    # the same baseline with uncommitted changes is a comparison: the working tree against HEAD
    (root / "README.md").write_text("# demo\n")
    changed = gate(root, "--baseline", "HEAD", "--no-receipt", "--bench", "time_other")
    assert changed.returncode == 0, changed.stdout + changed.stderr


def test_a_shallow_clone_is_told_how_to_fetch_history(tmp_path):
    root = _asv_project(tmp_path / "project", "", "benchmarks")
    _readme_only(root)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{root}", str(clone)], check=True)
    completed = gate(clone, "--baseline", "HEAD", "--no-receipt")
    assert completed.returncode == 2 and "git fetch --unshallow" in completed.stderr


def test_two_gate_runs_leave_the_checkout_clean(tmp_path):
    root = _asv_project(tmp_path / "project", "", "benchmarks")  # no .gitignore at all
    _readme_only(root)
    for _ in range(2):
        completed = gate(root, "--baseline", "HEAD~1", "--bench", "time_other")
        assert completed.returncode == 0, completed.stdout + completed.stderr
        assert "uncommitted changes" not in completed.stdout  # the first run's files did not count
        status = subprocess.run(
            ["git", "status", "--porcelain", "--ignored=no"], cwd=root, capture_output=True, text=True
        )
        assert status.stdout == ""
    receipts = [name for name in os.listdir(root / "receipts" / "gate") if name.endswith(".json")]
    assert len(receipts) == 2  # both kept, neither seen by git


def test_a_gate_receipt_validates_with_plain_jsonschema(tmp_path):
    import json

    import jsonschema

    from bootmark.core import receipts

    root = _asv_project(tmp_path / "project", "", "benchmarks")
    _readme_only(root)
    completed = gate(root, "--baseline", "HEAD~1", "--bench", "time_other")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    (name,) = [name for name in os.listdir(root / "receipts" / "gate") if name.endswith(".json")]
    with open(root / "receipts" / "gate" / name) as stream:
        receipt = json.load(stream)
    schema = json.loads(receipts._schema_text("gate"))
    jsonschema.validate(receipt, schema)  # no registry: the schema needs no other file
    project = receipt["body"]["project"]
    assert (project["name"], project["version"], project["framework"]) == ("demo", "0.1", "asv")
    assert project["commit"] == receipt["provenance"]["source"]["git_sha"]
    assert "arch" not in receipt["provenance"]["versions"]  # bootmark's peers are not the project's
    receipt["body"]["project"]["framework"] = "nose"
    with pytest.raises(jsonschema.ValidationError):  # the negative control
        jsonschema.validate(receipt, schema)


def test_a_project_environment_without_bootmark(tmp_path):
    environment = tmp_path / "project-env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(environment)], check=True)
    python = environment / "bin" / "python"
    missing = subprocess.run([str(python), "-c", "import bootmark"], capture_output=True, text=True, cwd=tmp_path)
    assert missing.returncode != 0  # the project's environment has no bootmark (nor numpy)
    root = _asv_project(tmp_path / "project", "", "benchmarks")
    _slow_down(root)
    completed = gate(root, "--baseline", "HEAD~1", "--no-receipt", "--python", str(python), "--format", "json")
    assert completed.returncode == 1, completed.stdout + completed.stderr
    import json

    body = json.loads(completed.stdout)
    assert {cell["label"]: cell["status"] for cell in body["cells"]}["bench_demo.time_work"] == "regression"
    assert "numpy" not in body["project"]["distributions"]  # the workers ran on the project's interpreter


def test_a_missing_interpreter_is_one_clean_line(tmp_path):
    root = _asv_project(tmp_path / "project", "", "benchmarks")
    completed = gate(root, "--baseline", "HEAD~1", "--python", "no/such/python")
    assert completed.returncode == 2 and "no interpreter" in completed.stderr
    assert "no/such/python" in completed.stderr and ".venv/bin/python" in completed.stderr  # the value and the fix
    assert "Traceback" not in completed.stderr


def test_an_unconfirmed_improvement_stays_out_of_the_sections():
    from bootmark.gate.report import render_markdown
    from bootmark.gate.sides import Side
    from bootmark.gate.verdicts import CellVerdict, GateSettings, GateVerdict, Interval

    side = Side("baseline", "0" * 40, False, "/tree", sys.executable, (), "/tree", "import path")
    once = CellVerdict(
        "bench.time_x",
        "time",
        "unconfirmed-improvement",
        1.05,
        "s",
        (2.0,) * 5,
        (1.6,) * 5,
        Interval(0.8, 0.78, 0.83, "m"),
    )
    twice = CellVerdict(
        "bench.time_y", "time", "improvement", 1.05, "s", (2.0,) * 5, (1.0,) * 5, Interval(0.5, 0.48, 0.52, "m")
    )
    text = render_markdown(GateVerdict(side, side, (once, twice), None, (), (), GateSettings(), 1.0))
    sections = text.split("<details>", 1)[0]
    assert "### Improvements (faster beyond tolerance, seen twice): 1" in sections
    assert "bench.time_y" in sections and "`bench.time_x`" not in sections
    assert "1 cell(s) looked faster once but not when measured again" in sections
    assert "`bench.time_x`" in text.split("<details>", 1)[1]  # still in the table of every cell


def test_the_table_values_come_from_the_round_of_the_median_ratio():
    from bootmark.gate.report import render_markdown
    from bootmark.gate.sides import Side
    from bootmark.gate.verdicts import CellVerdict, GateSettings, GateVerdict, Interval

    # rounds whose two sides move together: per-column medians (3.72 and 2.36) would contradict the ratio
    baseline = (3.72, 3.70, 2.36, 2.35, 2.30)
    current = (3.73, 3.72, 2.37, 2.36, 2.31)
    ratios = sorted(after / before for before, after in zip(baseline, current, strict=True))
    cell = CellVerdict(
        "bench.time_z", "time", "same", 1.05, "s", baseline, current, Interval(ratios[2], 1.0, 1.01, "m")
    )
    side = Side("baseline", "0" * 40, False, "/tree", sys.executable, (), "/tree", "import path")
    text = render_markdown(GateVerdict(side, side, (cell,), None, (), (), GateSettings(), 1.0))
    row = next(line for line in text.splitlines() if "`bench.time_z`" in line)
    before, after = (float(value.split()[0]) for value in row.split("|")[3:5])
    assert (before, after) == (2.35, 2.36)  # one round's values: its ratio, 1.00426, is the middle one of five
    assert after / before == pytest.approx(ratios[2], rel=0.005)


CODSPEED_SUITE = """
import pytest

import demo

TORN_DOWN = []


@pytest.fixture
def size():
    yield 2000
    TORN_DOWN.append("size")


@pytest.mark.benchmark
def test_work_whole():
    assert demo.work() > 0


@pytest.mark.benchmark
def test_other_whole(size):
    demo.other(size)


@pytest.mark.benchmark
def test_work_with_the_fixture(benchmark):
    benchmark(demo.work)


def test_not_a_benchmark():
    assert demo.other(10) >= 0
"""


def test_a_pytest_codspeed_suite_under_strict_markers_gates_its_marked_tests_whole(tmp_path):
    """pytest-codspeed's form: tests that only carry ``@pytest.mark.benchmark`` are cells
    whose timed call is the test body, under the project's ``--strict-markers``."""
    root = tmp_path / "project"
    (root / "demo").mkdir(parents=True)
    (root / "demo" / "__init__.py").write_text(OTHER_PACKAGE)
    (root / "tests" / "benchmarks").mkdir(parents=True)
    (root / "tests" / "benchmarks" / "test_codspeed.py").write_text(CODSPEED_SUITE)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "0.1"\n\n[tool.pytest.ini_options]\naddopts = "--strict-markers"\n'
    )
    _repository(root)
    _slow_down(root)
    completed = gate(root, "--baseline", "HEAD~1", "--no-receipt", "--format", "json")
    assert completed.returncode == 1, completed.stdout + completed.stderr
    statuses = {cell["label"]: cell["status"] for cell in json.loads(completed.stdout)["cells"]}
    prefix = "tests/benchmarks/test_codspeed.py::"
    assert statuses.pop(prefix + "test_work_whole") == "regression"
    assert statuses.pop(prefix + "test_work_with_the_fixture") == "regression"
    assert statuses.pop(prefix + "test_other_whole") != "regression"
    assert statuses == {}  # the unmarked test is not a cell


def test_a_pytest_that_stops_before_any_test_has_its_output_printed(pytest_project):
    """The project's addopts name an option no installed plugin declares: pytest stops with
    a usage error (exit 4), which the gate prints whole and names in its one line."""
    pyproject = pytest_project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + '\n[tool.pytest.ini_options]\naddopts = "--no-such-option"\n')
    commit(pytest_project, "addopts")
    _readme_only(pytest_project)
    completed = gate(pytest_project, "--baseline", "HEAD~1", "--no-receipt")
    assert completed.returncode == 2, completed.stdout + completed.stderr
    output = completed.stderr.split("bootmark gate: pytest's output:\n", 1)[1]
    assert "unrecognized arguments: --no-such-option" in output.split("\nbootmark gate: ", 1)[0]
    last = completed.stderr.strip().splitlines()[-1]
    assert "pytest stopped before running any test (exit code 4)" in last
    assert "unrecognized arguments: --no-such-option" in last and "Traceback" not in completed.stderr


MICROBENCHMARKS = """
import demo


def test_work(benchmark):
    benchmark(demo.work)


def test_other(benchmark):
    benchmark.pedantic(demo.other, args=(2000,), rounds=10)
"""


def test_a_root_level_suite_file_runs_with_the_projects_own_pytest_options(tmp_path):
    """A project that runs ``pytest -c /dev/null microbenchmarks.py``: its addopts would stop
    pytest, so it passes its own options, and its suite is one file at the root."""
    root = tmp_path / "project"
    (root / "demo").mkdir(parents=True)
    (root / "demo" / "__init__.py").write_text(OTHER_PACKAGE)
    (root / "microbenchmarks.py").write_text(MICROBENCHMARKS)
    (root / "README.md").write_text("# demo\n")
    (root / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "0.1"\n\n[tool.pytest.ini_options]\naddopts = "--no-such-option"\n\n'
        '[tool.bootmark.gate]\npytest-args = "-c /dev/null"\n'
    )
    _repository(root)
    config = load_config(str(root), benchmarks="microbenchmarks.py")
    assert (config.benchmark_dir, config.framework, config.pytest_args) == (
        "microbenchmarks.py",
        "pytest",
        ("-c", "/dev/null"),
    )
    assert load_config(str(root), benchmarks="microbenchmarks.py", pytest_args="-p no:xdist").pytest_args == (
        "-p",
        "no:xdist",
    )
    assert load_config(str(root), benchmarks=".").benchmark_dir == "."  # the root is inside the checkout
    with pytest.raises(SuiteError, match="is not a Python file"):
        load_config(str(root), benchmarks="README.md")
    with pytest.raises(SuiteError, match="an asv suite is a folder"):
        load_config(str(root), benchmarks="microbenchmarks.py", framework="asv")
    _slow_down(root)
    completed = gate(
        root, "--baseline", "HEAD~1", "--no-receipt", "--benchmarks", "microbenchmarks.py", "--format", "json"
    )
    assert completed.returncode == 1, completed.stdout + completed.stderr
    body = json.loads(completed.stdout)
    assert body["pytest_args"] == ["-c", "/dev/null"]  # the receipt says how pytest was run
    statuses = {cell["label"]: cell["status"] for cell in body["cells"]}
    assert statuses["microbenchmarks.py::test_work"] == "regression"
    assert statuses["microbenchmarks.py::test_other"] != "regression"
