"""``bootmark gate``, installed from the wheel, on suites written the way their frameworks'
own documentation writes them: asv's benchmark attributes and kinds beyond ``time_*``, and
every calling form of pytest-benchmark's fixture its documentation shows.

Known answers come from construction, as in tests/test_gate.py: the slow-down commit makes
``demo.work`` do 1.5x the work (and ``demo.WORK`` items 1.5x as many), so every cell that
runs it, or sizes a list of that length, must be a regression and be named; every other cell
must not be. The gate runs from the wheel's console script, its workers on this test
environment's interpreter (``--python``), which holds pytest and pympler as a project's
would.
"""

import json
import sys

from test_gate import PACKAGE, commit
from wheel_fixture import git_repository, run_in

# What the gate owes a cell whose code did not change: no alarm. A first measurement that
# flags it and a confirmation in fresh workers that clears it ("unconfirmed") is that promise
# kept, and happens now and then on a loaded runner for microsecond cells; "improvement" or
# "regression" would break it.
NO_ALARM = frozenset({"same", "unconfirmed"})

ASV_SUITE = """
from asv_runner.benchmarks.mark import skip_benchmark, skip_for_params

import demo


def time_work():
    demo.work()


time_work.pretty_name = "the whole loop"


def mem_items():
    return list(range(demo.WORK))


def time_other():
    demo.other()


time_other.benchmark_name = "renamed.time_other_by_its_author"


@skip_benchmark
def time_never():
    raise RuntimeError("asv's skip_benchmark keeps this function out of the suite")


class Sizes:
    params = [1, 2, 3]
    param_names = ["k"]

    @skip_for_params([(2,)])
    def time_k(self, k):
        demo.other()
"""

# asv looks params up on the function, its class, then its module: one list for the module.
MODULE_PARAMS_SUITE = """
params = [100, 200]
param_names = ["n"]


def time_sum(n):
    sum(range(n))
"""

# The examples of pytest-benchmark's usage documentation, on demo's functions.
PYTEST_SUITE = """
import time

import pytest

import demo


class Foo:
    def internal(self, n=None):
        return demo.work(n)

    def run(self):
        return self.internal()


def test_my_stuff(benchmark):
    result = benchmark(demo.work)
    assert result > 0


def test_my_stuff_with_arguments(benchmark):
    benchmark(demo.work, None)


def test_as_a_decorator(benchmark):
    @benchmark
    def result():
        return demo.work()

    assert result > 0


@pytest.mark.benchmark(
    group="group-name", min_time=0.1, max_time=0.5, min_rounds=5, timer=time.time, disable_gc=True, warmup=False
)
def test_marker_options(benchmark):
    benchmark(demo.work)


def test_extra_info_and_group(benchmark):
    benchmark.extra_info["foo"] = "bar"
    benchmark.group = "extras"
    benchmark(demo.work)


def test_pedantic_arguments(benchmark):
    benchmark.pedantic(demo.work, args=(None,), kwargs={}, iterations=10, rounds=100)


def test_pedantic_setup(benchmark):
    def setup():
        return (None,), {}

    benchmark.pedantic(demo.work, setup=setup, rounds=100, warmup_rounds=3)


def test_weave_a_method(benchmark):
    benchmark.weave(Foo.internal, lazy=True)
    assert Foo().run() > 0


def test_benchmark_weave_fixture(benchmark_weave):
    benchmark_weave(demo.work, lazy=True)
    assert Foo().run() > 0


def test_patch_by_name(benchmark):
    benchmark.patch("demo.work")
    assert Foo().run() > 0


def test_unchanged_code(benchmark):
    benchmark(demo.other)
"""


def _project(root, suite_files):
    (root / "demo").mkdir(parents=True)
    (root / "demo" / "__init__.py").write_text(PACKAGE)
    (root / "benchmarks").mkdir()
    for name, text in suite_files.items():
        (root / "benchmarks" / name).write_text(text)
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0.1"\n')
    git_repository(root, "A")
    package = root / "demo" / "__init__.py"
    package.write_text(package.read_text().replace("WORK = 6000", "WORK = 9000"))
    commit(root, "B: work() does 1.5x the work")
    return root


def _gate(site_wheel, root, *arguments):
    """The gate's JSON verdict on ``root``'s last commit against the one before."""
    script, environment = site_wheel
    completed = run_in(
        [str(script), "gate", "--no-progress", "--no-receipt", "--format", "json", "--baseline", "HEAD~1"]
        + ["--python", sys.executable, *arguments],
        environment,
        root,
    )
    assert completed.returncode in (0, 1, 2), completed.stderr
    return completed, json.loads(completed.stdout) if completed.stdout.strip() else None


def test_asv_kinds_and_attributes_are_read_as_asv_reads_them(tmp_path, site_wheel):
    root = _project(
        tmp_path / "project",
        {"__init__.py": "", "bench_asv.py": ASV_SUITE, "bench_module_params.py": MODULE_PARAMS_SUITE},
    )
    completed, body = _gate(site_wheel, root)
    assert completed.returncode == 1, completed.stdout + completed.stderr
    cells = {cell["label"]: cell for cell in body["cells"]}
    assert {label: cell["status"] for label, cell in cells.items() if cell["status"] == "regression"} == {
        "bench_asv.time_work": "regression",
        "bench_asv.mem_items": "regression",
    }
    # mem_*: pympler's size of the list, as asv measures it: 1.5x the items, 1.5x the bytes
    mem = cells["bench_asv.mem_items"]
    assert (mem["kind"], mem["unit"]) == ("mem", "bytes")
    assert 1.45 < mem["ratio"]["median"] < 1.55, mem["ratio"]
    assert cells["bench_asv.time_work"]["pretty_name"] == "the whole loop"
    assert cells["renamed.time_other_by_its_author"]["status"] in NO_ALARM
    assert cells["bench_asv.Sizes.time_k(2)"]["status"] == "skipped"
    assert "skip_params" in cells["bench_asv.Sizes.time_k(2)"]["note"]
    assert {cells[f"bench_asv.Sizes.time_k({k})"]["status"] for k in (1, 3)} <= NO_ALARM
    assert not [label for label in cells if "time_never" in label]
    assert {cells[f"bench_module_params.time_sum({n})"]["status"] for n in (100, 200)} <= NO_ALARM


def test_every_form_of_pytest_benchmarks_documentation_gates(tmp_path, site_wheel):
    root = _project(tmp_path / "project", {"test_documented.py": PYTEST_SUITE})
    completed, body = _gate(site_wheel, root)
    assert completed.returncode == 1, completed.stdout + completed.stderr
    statuses = {cell["label"].rsplit("::", 1)[1]: cell["status"] for cell in body["cells"]}
    ratios = {cell["label"]: (cell["ratio"], cell["confirmation"], cell["number"]) for cell in body["cells"]}
    assert statuses.pop("test_unchanged_code") in NO_ALARM, ratios
    assert statuses == dict.fromkeys(statuses, "regression"), (statuses, ratios, completed.stderr[-3000:])
    assert sorted(statuses) == [
        "test_as_a_decorator",
        "test_benchmark_weave_fixture",
        "test_extra_info_and_group",
        "test_marker_options",
        "test_my_stuff",
        "test_my_stuff_with_arguments",
        "test_patch_by_name",
        "test_pedantic_arguments",
        "test_pedantic_setup",
        "test_weave_a_method",
    ]


def test_asvs_warmup_time_is_a_least_warm_up_on_each_side(tmp_path):
    from bootmark.gate import asv_worker
    from bootmark.gate.suite import MAX_WARMUP_SAMPLES, Benchmark

    folder = tmp_path / "bench"
    folder.mkdir()
    (folder / "bench_warm.py").write_text(
        "warmup_time = 0.25\n\n\ndef time_a():\n    pass\n\n\ndef time_b():\n    pass\n\n\n"
        "time_b.warmup_time = -1  # asv's 'the default'\n\n\nclass Slow:\n    warmup_time = 60\n\n"
        "    def time_c(self):\n        pass\n"
    )
    found, problems = asv_worker.discover(str(folder))
    assert not problems["import_errors"]
    benchmarks = {entry["name"]: Benchmark.from_json(asv_worker._public(entry)) for entry in found}
    # module 0.25 s over samples of 0.02 s: 13; -1 on the function wins and means none; a
    # class's 60 s is capped
    assert benchmarks["bench_warm.time_a"].warmup_samples(2, 0.02) == 13
    assert benchmarks["bench_warm.time_b"].warmup_samples(2, 0.02) == 2
    assert benchmarks["bench_warm.Slow.time_c"].warmup_samples(2, 0.02) == MAX_WARMUP_SAMPLES


def _asv_project(root, modules):
    (root / "demo").mkdir(parents=True)
    (root / "demo" / "__init__.py").write_text(PACKAGE + "\n\ndef helper():\n    return 1\n")
    (root / "benchmarks").mkdir()
    (root / "benchmarks" / "__init__.py").write_text("")
    for name, text in modules.items():
        (root / "benchmarks" / f"{name}.py").write_text(text)
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0.1"\n')
    git_repository(root, "A")
    return root


def test_a_module_broken_before_this_change_warns_and_one_it_broke_stops_the_gate(tmp_path, site_wheel):
    root = _asv_project(
        tmp_path / "project",
        {
            "bench_ok": "import demo\n\n\ndef time_work():\n    demo.work()\n",
            "bench_old": "import a_module_no_one_installed\n\n\ndef time_x():\n    pass\n",
            "bench_helper": "from demo import helper\n\n\ndef time_helper():\n    helper()\n",
        },
    )
    (root / "README.md").write_text("# demo\n")
    commit(root, "B: README only")
    completed, body = _gate(site_wheel, root)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert [line.split(":", 1)[0] for line in body["warnings"]] == [
        "benchmark module bench_old fails to import on both sides, so it was broken before this change and is not gated"
    ]
    assert body["problems"] == []
    package = root / "demo" / "__init__.py"
    package.write_text(package.read_text().replace("def helper():", "def renamed_helper():"))
    commit(root, "C: helper renamed, which breaks bench_helper")
    completed, body = _gate(site_wheel, root)
    assert completed.returncode == 2, completed.stdout + completed.stderr
    assert [line.split(":", 1)[0] for line in body["problems"]] == [
        "benchmark module bench_helper fails to import on the current side"
    ]
    assert "ImportError" in body["problems"][0]
    assert "bench_old fails to import on both sides" in body["warnings"][0]


def test_listing_imports_only_the_modules_an_anchored_pattern_names(tmp_path, site_wheel):
    record = (  # each module, when imported, adds its name to imported.txt at the project's root
        "import pathlib\n\n"
        "pathlib.Path(__file__).parent.parent.joinpath('imported.txt').open('a').write(__name__ + '\\n')\n"
    )
    root = _asv_project(
        tmp_path / "project",
        {
            name: record + "\nimport demo\n\n\ndef time_work():\n    demo.work()\n"
            for name in ("bench_a", "bench_b", "bench_c")
        },
    )
    (root / ".gitignore").write_text("imported.txt\n")
    (root / "README.md").write_text("# demo\n")
    commit(root, "B: README only")
    completed, body = _gate(site_wheel, root, "--bench", r"^bench_b\.time_")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "listing: imported 1 of the suite's 3 modules" in completed.stderr
    assert set((root / "imported.txt").read_text().split()) == {"benchmarks.bench_b"}
    assert [cell["label"] for cell in body["cells"]] == ["bench_b.time_work"]


def test_the_listing_is_narrowed_only_where_a_pattern_says_where_its_matches_begin(tmp_path):
    from bootmark.gate.config import load_config
    from bootmark.gate.suite import listing_selection

    for name in ("bench_a", "bench_b", "named"):
        (tmp_path / "benchmarks").mkdir(exist_ok=True)
        (tmp_path / "benchmarks" / f"{name}.py").write_text("def time_x():\n    pass\n")
    (tmp_path / "benchmarks" / "named.py").write_text("def f():\n    pass\n\n\nf.benchmark_name = 'bench_a.time_y'\n")
    (tmp_path / "tests" / "perf").mkdir(parents=True)
    (tmp_path / "tests" / "perf" / "test_speed.py").write_text("def test_x(benchmark):\n    benchmark(int)\n")
    asv = load_config(str(tmp_path), benchmarks="benchmarks", framework="asv")
    # a module that names its own benchmarks is always listed: its names can be anything
    assert listing_selection(asv, [r"^bench_a\."])[0] == ["bench_a", "named"]
    assert listing_selection(asv, ["bench_a"])[0] is None  # searched anywhere: every module
    assert listing_selection(asv, [r"^bench_(a|b)\."])[0] is None  # no literal start beyond bench_: all three
    pytest_suite = load_config(str(tmp_path), benchmarks="tests", framework="pytest")
    assert listing_selection(pytest_suite, [r"^tests/perf/test_speed\.py::test_x"])[0] == ["tests/perf/test_speed.py"]
    assert listing_selection(pytest_suite, [r"^tests/perf/test_"])[0] == ["tests/perf"]
    assert listing_selection(pytest_suite, [r"^tests/test_"])[0] is None  # the suite's own folder: all of it


PYPERF_SCRIPT = """
import asyncio
import sys

import pyperf

import demo


def work_loops(loops):
    start = pyperf.perf_counter()
    for _ in range(loops):
        demo.work()
    return pyperf.perf_counter() - start


async def work_async():
    await asyncio.sleep(0)
    return demo.work()


if __name__ == "__main__":
    runner = pyperf.Runner()
    runner.argparser.add_argument("--repeat-work", type=int, default=1)
    options = runner.parse_args()
    runner.metadata["description"] = "demo's loops"
    runner.bench_func("work", demo.work)
    runner.bench_time_func("work_loops", work_loops)
    runner.bench_async_func("work_async", work_async)
    runner.timeit("other", stmt="demo.other()", setup="import demo")
    runner.bench_func("other_twice", demo.other, inner_loops=1)
    runner.bench_command("startup", [sys.executable, "-c", "pass"])
"""


def test_a_pyperf_suite_gates_each_declared_benchmark(tmp_path, site_wheel):
    root = _project(tmp_path / "project", {"bm_demo.py": PYPERF_SCRIPT, "README.txt": "pyperf scripts\n"})
    # bench_command is named as not run, and the gate cannot judge the suite until it is
    # excluded (a confirmed regression still wins: exit 1)
    completed, body = _gate(site_wheel, root)
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert [problem.split(" (", 1)[0] for problem in body["problems"]] == [
        "benchmarks/bm_demo.py::startup uses a pyperf feature bootmark gate does not run"
    ]
    with open(root / "pyproject.toml", "a") as stream:
        stream.write('\n[tool.bootmark.gate]\nexclude = ["benchmarks/bm_demo.py::startup"]\n')
    commit(root, "C: the command benchmark excluded")
    completed, body = _gate(site_wheel, root, "--baseline", "HEAD~2")
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert body["project"]["framework"] == "pyperf" and body["problems"] == []
    statuses = {cell["label"]: cell["status"] for cell in body["cells"]}
    assert {
        statuses.pop(label) for label in ("benchmarks/bm_demo.py::other", "benchmarks/bm_demo.py::other_twice")
    } <= NO_ALARM
    assert statuses == {
        "benchmarks/bm_demo.py::work": "regression",
        "benchmarks/bm_demo.py::work_async": "regression",
        "benchmarks/bm_demo.py::work_loops": "regression",
    }


def test_an_invalid_bench_pattern_is_one_line_and_exit_2_from_the_wheel(tmp_path, site_wheel):
    root = _asv_project(tmp_path / "project", {"bench_ok": "def time_x():\n    pass\n"})
    for verb in ("gate", "record"):
        script, environment = site_wheel
        completed = run_in([script, verb, "--bench", "(", "--no-progress"], environment, root)
        assert completed.returncode == 2, completed.stderr
        assert completed.stderr.strip().splitlines() == [
            f"bootmark {verb}: --bench '(' is not a regular expression (missing ), unterminated subpattern at "
            "position 0); escape ( [ * + ? with a backslash to match them as text"
        ]


def test_a_setup_py_project_whose_tests_package_puts_the_checkout_first_is_still_two_sides(tmp_path, site_wheel):
    """No [project] table, the suite in a ``tests`` package (pytest inserts the rootdir, the
    current checkout, first on the import path) and ``pythonpath = .``: the package must
    still come from each side's own tree, or the slow-down is measured on both sides."""
    root = tmp_path / "project"
    (root / "demo").mkdir(parents=True)
    (root / "demo" / "__init__.py").write_text(PACKAGE)
    (root / "tests" / "perf").mkdir(parents=True)
    (root / "tests" / "__init__.py").write_text("")
    (root / "tests" / "perf" / "__init__.py").write_text("")
    (root / "tests" / "perf" / "test_speed.py").write_text(
        "import demo\n\n\ndef test_work(benchmark):\n    benchmark(demo.work)\n"
    )
    (root / "setup.py").write_text("from setuptools import setup\n\nsetup(name='demo', packages=['demo'])\n")
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
    git_repository(root, "A")
    package = root / "demo" / "__init__.py"
    package.write_text(package.read_text().replace("WORK = 6000", "WORK = 9000"))
    commit(root, "B: work() does 1.5x the work")
    completed, body = _gate(site_wheel, root, "--benchmarks", "tests/perf")
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert [cell["status"] for cell in body["cells"]] == ["regression"]


def test_the_package_is_told_by_the_import_roots_when_its_distribution_name_is_not_importable(tmp_path):
    from bootmark.gate.config import load_config

    for name in ("graphql", "tests", "docs"):  # graphql-core's layout: one package, and folders that are not it
        (tmp_path / "src" / name).mkdir(parents=True)
        (tmp_path / "src" / name / "__init__.py").write_text("")
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "graphql-core"\n')
    assert load_config(str(tmp_path)).package == "graphql"
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "GraphQL"\n')  # pint's "Pint": any case
    assert load_config(str(tmp_path)).package == "graphql"
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "setup.py").write_text("setup(name='graphql', version='1')\n")
    (tmp_path / "src" / "other").mkdir()
    (tmp_path / "src" / "other" / "__init__.py").write_text("")  # two packages: setup.py's name decides
    assert load_config(str(tmp_path)).package == "graphql"
