"""``bootmark versus``: this checkout's engine against a committed revision's, head to head.

Known answers come from fake engine trees whose cost is set by construction: a tree that
sleeps four times as long must be flagged (the negative control), two identical trees
must not. The real engine is timed against a git export of this checkout's HEAD when
the checkout has its history.
"""

import subprocess
import sys
import textwrap

import pytest

from bootmark.bench import compare
from bootmark.bench import versus as head_to_head
from bootmark.core import provenance

FAKE_ENGINE = """
import time
import numpy as np

class IID:
    pass

MovingBlock = CircularBlock = StationaryBlock = lambda block_length: IID()

class Result:
    def __init__(self, statistics):
        self.statistics = statistics

def bootstrap_reduce(x, method, statistic, n_bootstraps, seed):
    time.sleep({delay})
    return Result(np.full(n_bootstraps, {value}))
"""


def fake_tree(tmp_path, name, delay, value=0.0):
    package = tmp_path / name / "engine"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(FAKE_ENGINE.format(delay=delay, value=value))
    return str(tmp_path / name)


CELL = ("iid", 200, 50, True)


def test_a_four_times_slower_tree_is_flagged(tmp_path):
    verdict = head_to_head.compare_trees(
        fake_tree(tmp_path, "old", 0.004),
        fake_tree(tmp_path, "new", 0.016),
        [CELL],
        rounds=9,
        warmups=1,
        show_progress=False,
    )
    (row,) = verdict.cells
    assert verdict.exit_code == compare.REGRESSION and row.regressed
    assert 3.0 < row.ratio.ci_low <= row.ratio.median <= row.ratio.ci_high < 5.0
    assert row.threads == 1 and row.max_abs_difference == 0.0


def test_identical_trees_pass_and_a_changed_statistic_is_reported(tmp_path):
    verdict = head_to_head.compare_trees(
        fake_tree(tmp_path, "old", 0.004),
        fake_tree(tmp_path, "new", 0.004, 0.5),
        [CELL],
        rounds=9,
        warmups=1,
        show_progress=False,
    )
    (row,) = verdict.cells
    assert verdict.exit_code == compare.PASS and not row.regressed
    assert row.ratio.ci_low < 1.25 and row.max_abs_difference == 0.5
    assert "| iid (sentinel) | 200 | 50 | 1 |" in head_to_head.render_markdown(verdict)


def test_a_tree_without_an_engine_is_refused_not_timed_as_this_checkout(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(head_to_head.HeadToHeadError, match="not from the tree"):
        head_to_head.compare_trees(
            str(tmp_path / "empty"), fake_tree(tmp_path, "new", 0.0), [CELL], rounds=3, warmups=0, show_progress=False
        )


@pytest.mark.parametrize(
    "settings, message",
    [({"tolerance": 1.0}, "above 1"), ({"threaded_tolerance": 0.5}, "above 1"), ({"rounds": 2}, "at least 3")],
)
def test_bad_settings_are_refused_before_any_work(settings, message):
    with pytest.raises(head_to_head.HeadToHeadError, match=message):
        head_to_head.compare_revisions("no-such-revision", [CELL], **settings)


def test_an_unknown_revision_names_itself_and_the_fix():
    with pytest.raises(head_to_head.HeadToHeadError, match="'no-such-revision'.*git fetch --unshallow"):
        head_to_head.compare_revisions("no-such-revision", [CELL], show_progress=False)


HAS_HISTORY = provenance.source_state(provenance.source_checkout())["git_sha"] is not None


@pytest.mark.skipif(not HAS_HISTORY, reason="this checkout is not a git repository")
def test_the_real_engine_against_its_own_head_agrees_bit_for_bit(tmp_path):
    sha = head_to_head.export_revision("HEAD", str(tmp_path))
    assert len(sha) == 40 and (tmp_path / "engine" / "__init__.py").is_file()
    assert (tmp_path / "reference" / "__init__.py").is_file() and not (tmp_path / "bootmark").exists()
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "bootmark.cli.main",
            "versus",
            "HEAD",
            "--cells",
            "method=stationary,sentinel=false",
            "--rounds",
            "5",
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert completed.returncode in (compare.PASS, compare.REGRESSION), completed.stderr
    row = next(line for line in completed.stdout.splitlines() if line.startswith("| stationary |"))
    assert row.split("|")[9].strip() == "0", textwrap.shorten(completed.stdout, 2000)  # same bits both sides


# The last commit whose i.i.d. kernel redid a row word by word after a rejected word (the
# cost cliff past n = 65,536): its engine stands in for a regression that brings it back.
CLIFF_COMMIT = "55d7289"


def test_the_quick_profile_would_catch_the_iid_cliff_coming_back(tmp_path):
    from bootmark.bench import grid as bench

    cell = ("iid", 100_000, 1000, False)
    assert cell in bench.grid("quick"), "the quick profile (the CI gate's) must time an n = 1e5 i.i.d. cell"
    try:
        head_to_head.export_revision(CLIFF_COMMIT, str(tmp_path))
    except head_to_head.HeadToHeadError as error:
        pytest.fail(f"the commit with the cliff must be in this clone's history: {error}")
    checkout = head_to_head.provenance.source_checkout()
    verdict = head_to_head.compare_trees(checkout, str(tmp_path), [cell], rounds=5, warmups=1, show_progress=False)
    row = verdict.cells[0]
    assert verdict.exit_code == compare.REGRESSION and row.regressed, row
    assert row.max_abs_difference == 0.0  # the same bits, only slower
    assert row.ratio.ci_low > 2.0, row.ratio
