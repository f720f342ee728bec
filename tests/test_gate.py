"""``bootmark gate`` on another project's asv suite: a throwaway git repository with a
pure-Python package and an asv-style suite, gated as its maintainer would gate it.

The known answers come from the code's construction: a commit that makes one workload do
1.5x the work must fail the gate and be named (the negative control of the pass on an
unrelated commit), a commit that changes no code must pass, and a benchmark that raises,
a baseline that does not exist and an asv feature the gate does not run must each end in
a clean message and exit 2.
"""

import io
import json
import os
import subprocess
import sys
import textwrap
from dataclasses import replace

import pytest

from bootmark.core import receipts
from bootmark.gate import asv_worker
from bootmark.gate import worker as suite_worker

BOOTMARK = os.path.join(os.path.dirname(sys.executable), "bootmark")

PACKAGE = '''
WORK = 6000


def work(n=None):
    """A deterministic CPU-bound loop; its cost is linear in n."""
    total = 0
    for index in range(n or WORK):
        total += index * index % 7
    return total


def other():
    return sum(index % 3 for index in range(3000))
'''

BENCHMARKS = """
import demo


def time_work():
    demo.work()


def time_other():
    demo.other()


class Sizes:
    params = [500, 2000]
    param_names = ["n"]

    def setup(self, n):
        self.n = n

    def time_work_n(self, n):
        demo.work(self.n)

    def track_remainder(self, n):
        return demo.work(self.n) % 5 + 1

    def peakmem_list(self, n):
        [0] * (n * 100)
"""


def git(root, *arguments):
    subprocess.run(["git", *arguments], cwd=root, check=True, capture_output=True)


def commit(root, message):
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


@pytest.fixture
def project(tmp_path):
    """A git repository with package ``demo`` and an asv suite, one commit (A)."""
    root = tmp_path / "project"
    (root / "demo").mkdir(parents=True)
    (root / "benchmarks").mkdir()
    (root / "demo" / "__init__.py").write_text(PACKAGE)
    (root / "benchmarks" / "__init__.py").write_text("")
    (root / "benchmarks" / "bench_demo.py").write_text(BENCHMARKS)
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0.1"\n')
    (root / "asv.conf.json").write_text(
        '{\n  // asv allows comments\n  "version": 1,\n  "benchmark_dir": "benchmarks"\n}\n'
    )
    (root / ".gitignore").write_text("receipts/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "gate@example.invalid")
    git(root, "config", "user.name", "gate test")
    commit(root, "A")
    return root


def gate(root, *arguments, environment=None):
    env = {key: value for key, value in os.environ.items() if key not in ("BOOTMARK_WORKSPACE", "GITHUB_STEP_SUMMARY")}
    env.update(environment or {})
    return subprocess.run(
        [BOOTMARK, "gate", "--no-progress", *arguments],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def gate_receipts(project):
    """The verdict receipts the gate wrote into ``project`` (the folder also holds the
    ``.gitignore`` that keeps them out of git)."""
    return sorted(name for name in os.listdir(project / "receipts" / "gate") if name.endswith(".json"))


def section(text, heading):
    """The lines of ``text`` under the Markdown heading that starts with ``heading``."""
    after = text.split(f"### {heading}", 1)[1]
    return after.split("\n### ", 1)[0]


def test_a_one_and_a_half_times_slower_benchmark_fails_the_gate_by_name(project):
    package = project / "demo" / "__init__.py"
    package.write_text(package.read_text().replace("WORK = 6000", "WORK = 9000"))
    commit(project, "B: work() does 1.5x the work")
    completed = gate(project, "--baseline", "HEAD~1")
    assert completed.returncode == 1, completed.stdout + completed.stderr
    regressions = section(completed.stdout, "Regressions")
    assert "`bench_demo.time_work`" in regressions
    assert "bench_demo.time_other" not in regressions and "time_work_n" not in regressions
    assert "Traceback" not in completed.stderr
    assert "measuring them again with fresh workers" in completed.stderr  # seen twice before failing
    receipt = receipts.load_receipt(os.path.join(project, "receipts", "gate", gate_receipts(project)[0]))
    cells = {cell["label"]: cell for cell in receipt["body"]["cells"]}
    assert receipt["body"]["exit_code"] == 1
    assert cells["bench_demo.time_work"]["status"] == "regression"
    # the measurement that confirmed it: the second, or the third when the second contradicted
    # the first (seen here: a second pair on the other CPU reading 0.88, the third 1.49)
    confirmed_by = cells["bench_demo.time_work"]["decider"] or cells["bench_demo.time_work"]["confirmation"]
    assert confirmed_by["low"] > 1.10
    assert 1.3 < cells["bench_demo.time_work"]["ratio"]["median"] < 1.7


def test_an_unrelated_commit_passes(project):
    (project / "README.md").write_text("# demo\n")
    commit(project, "A': no code change")
    completed = gate(project, "--baseline", "HEAD~1", "--no-receipt")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "## bootmark gate: PASS" in completed.stdout
    # every kind ran: time, track (values) and peakmem (fresh processes)
    for label in (
        "bench_demo.time_work",
        "bench_demo.Sizes.track_remainder(500)",
        "bench_demo.Sizes.peakmem_list(2000)",
    ):
        assert f"`{label}`" in completed.stdout


def test_a_broken_benchmark_is_named_and_exits_2(project):
    with open(project / "benchmarks" / "bench_demo.py", "a") as stream:
        stream.write("\n\ndef time_broken():\n    return 1 / 0\n")
    commit(project, "a benchmark that raises")
    completed = gate(project, "--baseline", "HEAD~1", "--no-receipt")
    assert completed.returncode == 2, completed.stdout + completed.stderr
    broken = section(completed.stdout, "Broken on the current side")
    assert "`bench_demo.time_broken`: ZeroDivisionError: division by zero" in broken
    assert "fail on the current side: bench_demo.time_broken" in completed.stdout
    # the whole traceback on stderr, the benchmark's own frames only
    traceback = completed.stderr.split("bench_demo.time_broken fails on the current side:", 1)[1]
    assert "Traceback (most recent call last)" in traceback and "bench_demo.py" in traceback
    assert "return 1 / 0" in traceback and "ZeroDivisionError: division by zero" in traceback
    assert "worker.py" not in traceback


def test_a_benchmark_missing_on_the_baseline_is_new_not_broken(project):
    (project / "demo" / "extra.py").write_text("def twice(x):\n    return 2 * x\n")
    with open(project / "benchmarks" / "bench_demo.py", "a") as stream:
        stream.write("\n\ndef time_extra():\n    import demo.extra\n    demo.extra.twice(3)\n")
    commit(project, "a new function and its benchmark")
    completed = gate(project, "--baseline", "HEAD~1", "--no-receipt")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "`bench_demo.time_extra`: fails on the baseline: ModuleNotFoundError" in completed.stdout


def test_a_missing_baseline_is_one_clean_line(project):
    completed = gate(project, "--baseline", "no-such-branch", "--no-receipt")
    assert completed.returncode == 2
    assert completed.stderr.strip().splitlines()[-1] == (
        f"bootmark gate: the baseline 'no-such-branch' is not a commit of {os.path.realpath(project)}."
    )
    first = gate(project, "--baseline", "HEAD~1", "--no-receipt")  # a repository of one commit has no parent
    assert first.returncode == 2 and "the baseline 'HEAD~1' is not a commit" in first.stderr


def test_an_unsupported_asv_feature_is_named_and_exits_2_until_excluded(project):
    with open(project / "benchmarks" / "bench_demo.py", "a") as stream:
        stream.write("\n\ndef timeraw_import():\n    return 'import demo'\n")
    commit(project, "a timeraw benchmark")
    completed = gate(project, "--baseline", "HEAD~1", "--no-receipt")
    assert completed.returncode == 2, completed.stdout + completed.stderr
    problems = section(completed.stdout, "Cannot judge")
    assert "bench_demo.timeraw_import uses an asv feature bootmark gate does not run (timeraw_*" in problems
    assert 'exclude = ["bench_demo.timeraw_import"]' in problems
    with open(project / "pyproject.toml", "a") as stream:
        stream.write('\n[tool.bootmark.gate]\nexclude = ["bench_demo.timeraw_*"]\n')
    commit(project, "exclude it")
    assert gate(project, "--baseline", "HEAD~2", "--no-receipt").returncode == 0


def test_a_package_imported_from_elsewhere_is_refused(project, tmp_path):
    # an installed copy of the package, first on PYTHONPATH, would be timed on both sides
    # unless the worker checks where the package came from; paths = ["src"] misses the tree
    elsewhere = tmp_path / "site"
    (elsewhere / "demo").mkdir(parents=True)
    (elsewhere / "demo" / "__init__.py").write_text(PACKAGE)
    with open(project / "pyproject.toml", "a") as stream:
        stream.write('\n[tool.bootmark.gate]\npaths = ["src"]\n')
    commit(project, "import roots that miss the package")
    completed = gate(project, "--baseline", "HEAD~1", "--no-receipt", environment={"PYTHONPATH": str(elsewhere)})
    assert completed.returncode == 2
    assert "side imported demo from" in completed.stderr and "not from its own code" in completed.stderr


def test_markdown_receipt_and_step_summary(project, tmp_path):
    (project / "README.md").write_text("# demo\n")
    commit(project, "A'")
    summary = tmp_path / "summary.md"
    completed = gate(
        project,
        "--baseline",
        "HEAD~1",
        "--format",
        "markdown",
        "--bench",
        "time_other",
        environment={"GITHUB_STEP_SUMMARY": str(summary)},
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "<details><summary>All cells</summary>" in completed.stdout
    assert summary.read_text().strip() == completed.stdout.strip()
    (name,) = gate_receipts(project)
    receipt = receipts.load_receipt(str(project / "receipts" / "gate" / name))
    assert [cell["label"] for cell in receipt["body"]["cells"]] == ["bench_demo.time_other"]
    assert receipt["provenance"]["source"]["git_sha"] == receipt["body"]["current"]["revision"]


def test_an_install_command_builds_each_side_into_a_cached_environment(project, tmp_path):
    with open(project / "pyproject.toml", "a") as stream:
        stream.write(
            '\n[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
            '\n[tool.setuptools]\npackages = ["demo"]\n'
            '\n[tool.bootmark.gate]\ninstall = "pip install --quiet --no-deps --no-build-isolation ."\n'
        )
    commit(project, "built, not imported from the tree")
    (project / "README.md").write_text("# demo\n")
    commit(project, "A'")
    cache = {"BOOTMARK_CACHE": str(tmp_path / "cache")}
    first = gate(project, "--baseline", "HEAD~1", "--bench", "time_other", "--no-receipt", environment=cache)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "building the baseline side" in first.stderr and "installed into" in first.stderr
    again = gate(project, "--baseline", "HEAD~1", "--bench", "time_other", "--no-receipt", environment=cache)
    assert again.returncode == 0 and "reusing the baseline side's environment" in again.stderr
    assert "Traceback" not in first.stderr + again.stderr
    assert not (project / "build").exists()  # the build ran in a copy, not in the user's checkout


def test_a_cached_environment_is_not_shared_between_interpreters(tmp_path):
    # A baseline built against one checkout's virtual environment inherits that environment's
    # packages; reusing it from another checkout compared two different package sets (a CI
    # clone reused an environment built from a developer's .venv and saw a 1.33x peak-memory
    # "regression").
    from unittest import mock

    from bootmark.gate import sides as gate_sides
    from bootmark.gate.config import GateConfig

    def configured(*install):
        return GateConfig(str(tmp_path), str(tmp_path / "benchmarks"), "demo", (".",), install, 1.1)

    config = configured("pip", "install", ".")
    here = gate_sides._environment_key(config)
    with mock.patch.object(gate_sides.sys, "prefix", str(tmp_path / "another-venv")):
        elsewhere = gate_sides._environment_key(config)
    other_command = gate_sides._environment_key(configured("pip", "install", "-e", "."))
    site_packages = tmp_path / "site-packages"
    (site_packages / "numpy-2.4.6.dist-info").mkdir(parents=True)
    with mock.patch.object(gate_sides, "_inherited_site_packages", return_value=[str(site_packages)]):
        before = gate_sides._environment_key(config)
        (site_packages / "numpy-2.4.6.dist-info").rename(site_packages / "numpy-2.5.0.dist-info")
        upgraded = gate_sides._environment_key(config)
        (site_packages / "legacy-1.0.egg-info").mkdir()
        legacy = gate_sides._environment_key(config)
    assert len({here, elsewhere, other_command, before, upgraded, legacy}) == 6
    assert gate_sides._environment_key(config) == here  # and stable, so the cache is reused


def test_discovery_follows_asv_conventions(tmp_path):
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "bench_a.py").write_text(
        textwrap.dedent(
            """
            from os.path import join  # imported, not a benchmark

            def setup():
                pass

            def time_flat():
                pass
            time_flat.params = [1, 2, 3]          # a flat list is one parameter

            class Cached:
                params = ([1, 2], ["x"])
                param_names = ["n", "label"]
                def setup_cache(self):
                    return 41
                def setup(self, cache, n, label):
                    if n == 2:
                        raise NotImplementedError
                def track_it(self, cache, n, label):
                    return cache + n
                def mem_size(self, cache, n, label):
                    return []
                def timeraw_start(self, cache, n, label):
                    return "pass"
            """
        )
    )
    benchmarks, problems = asv_worker.discover(str(folder))
    by_name = {benchmark["name"]: benchmark for benchmark in benchmarks}
    assert sorted(by_name) == ["bench_a.Cached.mem_size", "bench_a.Cached.track_it", "bench_a.time_flat"]
    assert by_name["bench_a.time_flat"]["params"] == [["1", "2", "3"]]
    assert by_name["bench_a.time_flat"]["param_names"] == ["param1"]
    assert by_name["bench_a.Cached.track_it"]["param_names"] == ["n", "label"]
    assert by_name["bench_a.Cached.mem_size"]["kind"] == "mem" and by_name["bench_a.Cached.mem_size"]["unit"] == "bytes"
    assert problems["unsupported"] == [
        {
            "benchmark": "bench_a.Cached.timeraw_start",
            "feature": "timeraw_*",
            "why": asv_worker.UNSUPPORTED_PREFIXES["timeraw_"],
        }
    ]
    requests = [
        {"op": "prepare", "name": "bench_a.Cached.track_it", "index": 0},
        {"op": "track"},
        {"op": "prepare", "name": "bench_a.Cached.mem_size", "index": 0},
        {"op": "track"},
        {"op": "prepare", "name": "bench_a.Cached.track_it", "index": 1},
    ]
    replies = io.StringIO()
    channel = suite_worker.Channel(io.StringIO("".join(json.dumps(r) + "\n" for r in requests)), replies)
    asv_worker.serve(suite_worker.Host(channel, {}, {}), {"benchmark_dir": str(folder), "select": ["bench_a"]})
    hello, prepared, tracked, _, sized, skipped = (json.loads(line) for line in replies.getvalue().splitlines())
    assert [benchmark["module"] for benchmark in hello["benchmarks"]] == ["bench_a"] * 3
    assert prepared == {"ok": True}
    assert tracked == {"value": 42.0}  # setup_cache's value first
    assert sized == {"value": float(sys.getsizeof([]))}  # an empty list holds its header only
    assert "NotImplementedError" in skipped["skip"]


def _verdict(control, status="regression"):
    from bootmark.gate.sides import Side
    from bootmark.gate.verdicts import CellVerdict, GateSettings, GateVerdict, Interval

    side = Side("baseline", "0" * 40, False, "/tree", sys.executable, (), "/tree", "import path")
    cell = CellVerdict("bench.time_x", "time", status, 1.1, "s", (1.0,) * 5, (1.5,) * 5, Interval(1.5, 1.4, 1.6, "m"))
    return GateVerdict(side, side, (cell,), control, (), (), GateSettings(), 1.0)


def test_a_moved_drift_control_turns_a_regression_into_cannot_judge():
    from bootmark.gate.verdicts import Interval

    steady, moved = Interval(1.0, 0.97, 1.03, "m"), Interval(1.3, 1.2, 1.4, "m")
    assert _verdict(steady).exit_code == 1  # the negative control: the same cell, a steady control
    assert _verdict(moved).control_moved and _verdict(moved).exit_code == 2
    assert _verdict(Interval(0.8, 0.75, 0.85, "m")).exit_code == 2  # moved the other way
    assert _verdict(steady, status="undecided").exit_code == 0


@pytest.mark.parametrize(
    ("first", "second", "third", "status", "measurements"),
    [
        ("slower", "slower", None, "regression", 2),
        ("slower", "same", None, "unconfirmed", 2),  # cleared at once: no third pair
        ("slower", "undecided", "slower", "regression", 3),
        ("slower", "undecided", "undecided", "unconfirmed", 3),
        ("slower", "undecided", "same", "unconfirmed", 3),
        # the two fresh pairs disagree on the sign: the machine moved, a third pair decides
        ("slower", "improvement", "slower", "regression", 3),
        ("slower", "improvement", "same", "unconfirmed", 3),
        ("improvement", "improvement", None, "improvement", 2),  # improvements are seen twice too
        ("improvement", "same", None, "unconfirmed-improvement", 2),
        ("improvement", "undecided", None, "unconfirmed-improvement", 2),
        # the other contradiction: faster, then slower; a third slower pair makes it a regression
        ("improvement", "slower", "slower", "regression", 3),
        ("improvement", "slower", "improvement", "improvement", 3),
        ("improvement", "slower", "same", "unconfirmed-improvement", 3),
    ],
)
def test_a_slower_or_faster_cell_is_confirmed_by_fresh_workers(monkeypatch, first, second, third, status, measurements):
    from types import SimpleNamespace

    from bootmark.gate import run as gate
    from bootmark.gate.verdicts import CellVerdict, GateSettings, Interval

    scripted = iter([second, third])
    calls = []

    def measure(cells, pair, config, settings, control, deadline, progress):
        calls.append(cells)
        found = next(scripted)
        return {
            cell.label: CellVerdict(cell.label, "time", found, 1.1, "s", ratio=Interval(1.2, 1.0, 1.4, "m"))
            for cell in cells
        }, False

    monkeypatch.setattr(gate, "_measure", measure)
    cell = SimpleNamespace(label="bench.time_x")
    verdicts = {cell.label: CellVerdict(cell.label, "time", first, 1.1, "s", ratio=Interval(1.3, 1.2, 1.4, "m"))}
    starts = []
    pair = SimpleNamespace(start=lambda: starts.append(len(calls)))
    progress = SimpleNamespace(total=0)
    gate._confirm([cell], verdicts, pair, None, GateSettings(), {}, None, progress, lambda message: None)
    assert verdicts[cell.label].status == status
    assert len(calls) + 1 == measurements
    assert starts == list(range(len(calls)))  # fresh workers before every re-measurement
    assert verdicts[cell.label].confirmation is not None  # the second measurement is kept
    assert (verdicts[cell.label].decider is not None) == (measurements == 3)


@pytest.mark.parametrize(
    ("median", "second", "status", "measurements"),
    [
        (1.228, "slower", "regression", 2),  # a real slow-down that one noisy stretch left undecided
        (1.228, "undecided", "undecided", 2),  # no third pair: only a decisive second measurement fails it
        (1.228, "same", "undecided", 2),
        (0.80, "improvement", "improvement", 2),
        (0.80, "undecided", "undecided", 2),
        (1.03, None, "undecided", 1),  # median within the tolerance: nothing leans, no fresh pair
    ],
)
def test_an_undecided_cell_whose_median_lies_beyond_the_tolerance_is_measured_again(
    monkeypatch, median, second, status, measurements
):
    from types import SimpleNamespace

    from bootmark.gate import run as gate
    from bootmark.gate.verdicts import CellVerdict, GateSettings, Interval

    settings = GateSettings()
    calls = []

    def measure(cells, pair, config, settings, control, deadline, progress):
        calls.append(cells)
        return {
            cell.label: CellVerdict(cell.label, "time", second, 1.05, "s", ratio=Interval(1.2, 1.1, 1.3, "m"))
            for cell in cells
        }, False

    monkeypatch.setattr(gate, "_measure", measure)
    cell = SimpleNamespace(label="bench.time_x")
    rounds = tuple([1.0] * settings.max_rounds)
    first = CellVerdict(
        cell.label, "time", "undecided", 1.05, "s", rounds, rounds, ratio=Interval(median, 0.95, 1.3, "m")
    )
    verdicts = {cell.label: first}
    pair = SimpleNamespace(start=lambda: None)
    gate._confirm([cell], verdicts, pair, None, settings, {}, None, SimpleNamespace(total=0), lambda message: None)
    assert verdicts[cell.label].status == status
    assert len(calls) + 1 == measurements
    if measurements == 2:
        assert "leaned" in verdicts[cell.label].note and f"{median:.3f}" in verdicts[cell.label].note
    # The same interval before max_rounds is not settled by a fresh pair: more rounds come first.
    short = replace(first, baseline=rounds[:-1], current=rounds[:-1])
    assert gate._leaning(short, settings) is None


def test_a_cell_the_budget_leaves_unconfirmed_is_undecided_not_a_regression():
    from types import SimpleNamespace

    from bootmark.gate import run as gate
    from bootmark.gate.verdicts import CellVerdict, GateSettings, Interval

    cells = [SimpleNamespace(label="bench.time_x"), SimpleNamespace(label="bench.time_y")]
    verdicts = {
        cell.label: CellVerdict(cell.label, "time", status, 1.1, "s", ratio=Interval(1.3, 1.2, 1.4, "m"))
        for cell, status in zip(cells, ("slower", "improvement"), strict=True)
    }
    pair = SimpleNamespace(start=lambda: pytest.fail("no fresh workers once the budget is spent"))
    spent = gate.time.monotonic() - 1
    gate._confirm(cells, verdicts, pair, None, GateSettings(), {}, spent, SimpleNamespace(total=0), print)
    assert [verdicts[cell.label].status for cell in cells] == ["undecided", "undecided"]
    assert "slower once" in verdicts["bench.time_x"].note and "budget" in verdicts["bench.time_x"].note


def test_a_budget_stops_the_rounds_and_names_the_undecided_cell(project, monkeypatch):
    # Real workers on the throwaway project, with every interval called undecided (no real
    # benchmark stays undecided on demand): only the budget can stop the rounds, and the
    # report must say so and name the cell.
    from bootmark.gate import report as gate_report
    from bootmark.gate import run as gate
    from bootmark.gate import verdicts
    from bootmark.gate.config import load_config

    (project / "README.md").write_text("# demo\n")
    commit(project, "A': no code change")
    monkeypatch.setattr(gate, "_status_of", lambda interval, tolerance: "undecided")
    budget = 10.0  # the whole run's: the discovery and the workers' start take a second or two of it
    settings = verdicts.GateSettings(max_rounds=100_000, budget_s=budget)
    verdict = gate.run_gate(
        load_config(str(project)), "HEAD~1", ["time_other"], settings, say=lambda message: None, show_progress=False
    )
    (cell,) = verdict.cells
    assert cell.status == "undecided" and verdict.budget_spent
    assert 10 < len(cell.current) < 100_000  # rounds were added, then the budget stopped them
    assert budget < verdict.wall_seconds < budget + 5  # the whole run within a few seconds of the budget
    assert verdict.exit_code == 0  # undecided is not a regression
    report = gate_report.render_markdown(verdict)
    assert "The time budget (10 s) ran out; left undecided: `bench_demo.time_other`" in report
    assert "`bench_demo.time_other`" in report.split("### Undecided", 1)[1]
    monkeypatch.undo()  # the negative control: without a budget the same cell is decided within 40 rounds
    unbounded = gate.run_gate(
        load_config(str(project)),
        "HEAD~1",
        ["time_other"],
        verdicts.GateSettings(),
        say=lambda m: None,
        show_progress=False,
    )
    assert not unbounded.budget_spent and len(unbounded.cells[0].current) <= 40
