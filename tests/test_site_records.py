"""``bootmark record`` builds a project's history, and ``bootmark site`` draws it.

Everything runs from the wheel, as a user installs it (``bootmark[site]`` in a fresh
virtual environment: the ``site_wheel`` fixture of tests/conftest.py), in the project's
folder, which is then the workspace. A throwaway git repository of 12 commits, whose one
function does 80% more work from commit 7 on, is recorded at every commit, as CI would on
each merge (80%, not 30%: on the shared 2-core CI box a 30% step was once placed a commit
early, and records of unchanged code have read up to 35% apart in control units); a gate
run of the last commit is added. The sites of it and of a head-to-head suite are moved
away from their projects and loaded in Chromium (tests/test_site_browser.py's checks). The
known answer is placed by the test:
the step must be found at commit 7, and only there, on the suite page and the overview,
and the record of the gated commit must link its gate run. The records' cells and
settings are checked against the receipt schema by the receipt loader.
"""

import json
import os
import pathlib
import shutil
import subprocess

import pytest
from test_site_browser import check_page
from wheel_fixture import console, git_repository

from bootmark.core import receipts
from bootmark.site import records as record_pages
from bootmark.site.history import receipt_history

SIZE = 20_000  # about a millisecond of pure Python per call
LABEL = "bench_work.time_work"

pytestmark = pytest.mark.slow


def _git(root, *arguments):
    return subprocess.run(["git", *arguments], cwd=root, check=True, capture_output=True, text=True).stdout.strip()


def _bootmark(site_wheel, root, *arguments, expect=0):
    """The wheel's console script in ``root``, whose workspace is ``root`` (as in the
    project's CI)."""
    script, environment = site_wheel
    return console(script, environment, root, *arguments, expect=(expect,))


def _write_project(root: pathlib.Path, size: int) -> None:
    (root / "mypkg").mkdir(exist_ok=True)
    (root / "benchmarks").mkdir(exist_ok=True)
    (root / "mypkg" / "__init__.py").write_text(
        f"SIZE = {size}\n\n\ndef work():\n    return sum(i * i for i in range(SIZE))\n"
    )
    (root / "benchmarks" / "bench_work.py").write_text("import mypkg\n\n\ndef time_work():\n    mypkg.work()\n")
    (root / "pyproject.toml").write_text('[project]\nname = "mypkg"\nversion = "0.1"\n')


@pytest.fixture(scope="module")
def recorded(site_wheel, tmp_path_factory):
    """(project root, the 12 commits oldest first): each commit recorded once."""
    root = tmp_path_factory.mktemp("records") / "mypkg"
    root.mkdir()
    git_repository(root)
    commits = []
    for number in range(1, 13):
        _write_project(root, int(SIZE * (1.8 if number >= 7 else 1.0)))
        (root / "README.md").write_text(f"revision {number}\n")
        _git(root, "add", "-A")
        _git(root, "commit", "-q", "-m", f"commit {number}")
        commits.append(_git(root, "rev-parse", "HEAD"))
        # 20 samples a cell, not the default 10: the full suite's run placed a second,
        # false step in this history at commits 8 and 10 (twice in three CI runs of
        # 2026-12-06), a median of 10 samples reading that far off on a busy box
        _bootmark(site_wheel, root, "record", "--no-progress", "--min-rounds", "20")
    _bootmark(site_wheel, root, "gate", "--baseline", "HEAD~1", "--no-progress", "--min-rounds", "5", expect=0)
    return root, commits


def test_every_commit_has_one_valid_record_in_commit_order(recorded):
    root, commits = recorded
    history = receipt_history(str(root), os.path.join("receipts", "records"), "record")
    assert [point.commit for point in history] == commits
    for point in history:
        assert receipts.load_receipt(point.path)["kind"] == "record"  # validated against record.schema.json
        (cell,) = point.receipt["body"]["cells"]
        assert cell["label"] == LABEL and cell["status"] in ("measured", "unsettled") and len(cell["samples"]) >= 10
    assert _git(root, "status", "--porcelain") == ""  # the records never make the checkout dirty


def test_the_step_is_found_at_commit_seven_and_only_there(recorded, site_wheel):
    root, commits = recorded
    history = receipt_history(str(root), os.path.join("receipts", "records"), "record")
    steps = record_pages.record_steps(history, LABEL)
    assert list(steps.values()) == [[6]], steps  # one machine; commit 7 is position 6
    _bootmark(site_wheel, root, "site", "--out", str(root / "site-out"))
    page = (root / "site-out" / "suite.html").read_text()
    section = page.split('id="suite-bench-work-time-work"', 1)[1]
    marked = [row for row in section.split("<tr")[2:] if "a new level starts here" in row]
    assert len(marked) == 1 and commits[6][:10] in marked[0]
    assert f"a step at commit {commits[6][:10]}" in section
    assert f"steps at commit {commits[6][:10]}" in (root / "site-out" / "index.html").read_text()


def test_the_record_of_a_gated_commit_links_its_gate_run(recorded, site_wheel):
    root, commits = recorded
    _bootmark(site_wheel, root, "site", "--out", str(root / "site-gate"))
    page = (root / "site-gate" / "suite.html").read_text()
    rows = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0].split("<tr")[1:]
    assert len(rows) == 12
    assert 'href="gate.html#run-' in rows[-1] and "PASS against " + commits[-2][:10] in rows[-1]
    assert all("gate.html" not in row for row in rows[:-1])


def test_record_json_is_the_receipt_body_and_bad_input_is_one_line(recorded, site_wheel):
    root, _ = recorded
    body = json.loads(_bootmark(site_wheel, root, "record", "--no-progress", "--no-receipt", "--format", "json").stdout)
    assert body["project"]["name"] == "mypkg" and body["control"]["median_s"] > 0
    for arguments, words in (
        (("--min-rounds", "3"), "--min-rounds must be at least 5"),
        (("--settle", "2"), "--settle must be a fraction"),
        (("--bench", "nothing-matches"), "no benchmark to record"),
    ):
        completed = _bootmark(site_wheel, root, "record", "--no-progress", "--no-receipt", *arguments, expect=2)
        assert words in completed.stderr.strip().splitlines()[-1], completed.stderr  # one line says what is wrong


HEAD_TO_HEAD = """\
import mypkg


class TimeLibraries:
    params = [["mine", "slow", "fast", "twin"]]
    param_names = ["library"]

    def time_sum(self, library):
        mypkg.LIBRARIES[library]()
"""
LIBRARIES = """\
SIZE = 20_000


def _work(size):
    return sum(i * i for i in range(size))


LIBRARIES = {
    "mine": lambda: _work(SIZE),
    "slow": lambda: _work(int(SIZE * 1.5)),
    "fast": lambda: _work(int(SIZE * 0.6)),
    "twin": lambda: _work(SIZE),
}
"""


@pytest.fixture(scope="module")
def versus(site_wheel, tmp_path_factory):
    """(project root, the record's body): a suite of four implementations, recorded once."""
    root = tmp_path_factory.mktemp("versus") / "mypkg"
    (root / "mypkg").mkdir(parents=True)
    (root / "benchmarks").mkdir()
    (root / "mypkg" / "__init__.py").write_text(LIBRARIES)
    (root / "benchmarks" / "bench_versus.py").write_text(HEAD_TO_HEAD)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "mypkg"\nversion = "0.1"\n\n'
        '[tool.bootmark.gate]\nimplementation = "library"\nreference = "mine"\n'
    )
    git_repository(root, "four libraries")
    body = json.loads(_bootmark(site_wheel, root, "record", "--no-progress", "--format", "json").stdout)
    return root, body


def test_a_head_to_head_suite_gives_wins_ties_and_losses_on_its_scoreboard(versus, site_wheel, tmp_path):
    root, body = versus
    (group,) = body["headtohead"]
    verdicts = {row["implementation"]: row["verdict"] for row in group["rows"]}
    assert verdicts == {"mine": None, "slow": "win", "fast": "LOSS", "twin": "tie"}, group["rows"]
    ratios = {row["implementation"]: row["ratio"]["median"] for row in group["rows"] if row["ratio"]}
    assert 1.3 < ratios["slow"] < 1.7 and 0.45 < ratios["fast"] < 0.75  # the work ratios, 1.5 and 0.6
    assert len(body["cells"]) == 4 and all(cell["status"] == "measured" for cell in body["cells"])
    _bootmark(site_wheel, root, "site", "--out", str(tmp_path / "site"))
    page = (tmp_path / "site" / "versus.html").read_text()
    assert page.count('<tr class="loss">') == 2  # the fast row, in the tally and in the group's table
    overview = (tmp_path / "site" / "index.html").read_text()
    assert "Head to head" in overview and "verdict-loss" in overview


def test_a_reference_missing_from_the_suite_is_a_warning_not_a_scoreboard(site_wheel, tmp_path):
    root = tmp_path / "noref"
    (root / "mypkg").mkdir(parents=True)
    (root / "benchmarks").mkdir()
    (root / "mypkg" / "__init__.py").write_text(LIBRARIES)
    (root / "benchmarks" / "bench_versus.py").write_text(HEAD_TO_HEAD)
    (root / "pyproject.toml").write_text('[tool.bootmark.gate]\nimplementation = "library"\nreference = "theirs"\n')
    git_repository(root, "four libraries")
    body = json.loads(_bootmark(site_wheel, root, "record", "--no-progress", "--no-receipt", "--format", "json").stdout)
    assert body["headtohead"] == [] and len(body["cells"]) == 4
    assert any("the reference 'theirs' is not one of its implementations" in warning for warning in body["warnings"])
    (root / "pyproject.toml").write_text('[tool.bootmark.gate]\nimplementation = "library"\n')
    completed = _bootmark(site_wheel, root, "record", "--no-progress", "--no-receipt", expect=2)
    assert "go together" in completed.stderr and len(completed.stderr.strip().splitlines()) == 1, completed.stderr


def test_the_recorded_sites_load_cleanly_in_a_browser_once_moved(recorded, versus, site_wheel, browser, tmp_path):
    # The sites of the two projects recorded above (12 commits and a gate run; the
    # head-to-head suite), built by the wheel, moved away from their projects, every page
    # loaded in Chromium.
    expected = {
        "history": (recorded[0], {"index.html", "suite.html", "gate.html"}),
        "versus": (versus[0], {"index.html", "suite.html", "versus.html"}),
    }
    for name, (root, pages) in expected.items():
        built, moved = tmp_path / "built" / name, tmp_path / "moved" / name / "public"
        _bootmark(site_wheel, root, "site", "--out", str(built))
        moved.parent.mkdir(parents=True)
        shutil.move(built, moved)
        assert {page.name for page in moved.glob("*.html")} == pages
        for page in sorted(pages):
            check_page(browser, moved, page)
