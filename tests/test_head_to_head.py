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
from bootmark.core import cpus, provenance

# What a fake engine tree needs besides its bootstrap_reduce: the method classes the
# harness builds and a result carrying the statistics.
FAKE_API = """
import numpy as np

class IID:
    pass

MovingBlock = CircularBlock = StationaryBlock = lambda block_length: IID()

class Result:
    def __init__(self, statistics):
        self.statistics = statistics
"""

FAKE_ENGINE = (
    FAKE_API
    + """
import time

def bootstrap_reduce(x, method, statistic, n_bootstraps, seed):
    time.sleep({delay})
    return Result(np.full(n_bootstraps, {value}))
"""
)


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


# Records, on every call, how many CPUs the worker may use; a series of 2000 hashes on two
# threads at once (hashlib lets go of the GIL), a series of 200 loops on one.
AFFINITY_ENGINE = (
    FAKE_API
    + """
import hashlib, os, threading

DATA = b"x" * 8_000_000  # written, so that no first touch of its pages lands in a call


def _hash():
    hashlib.sha256(DATA).digest()

def bootstrap_reduce(x, method, statistic, n_bootstraps, seed):
    with open({log!r}, "a") as stream:
        stream.write(f"{{len(x)}} {{len(os.sched_getaffinity(0))}}\\n")
    if len(x) == 200:
        sum(index % 7 for index in range(200_000))
    else:
        threads = [threading.Thread(target=_hash) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    return Result(np.zeros(n_bootstraps))
"""
)


@pytest.mark.skipif(len(cpus.allowed_cpus()) < 2, reason="pinning is only observable with two CPUs or more (Linux)")
def test_one_thread_cells_are_timed_with_both_workers_on_one_cpu(tmp_path):
    # Unpinned, each worker keeps its own CPU, and on a shared box the two can run tens of
    # percent apart for seconds (bootmark.core.cpus); a parallel cell is left on every CPU.
    log = tmp_path / "affinity.log"
    for name in ("old", "new"):
        (tmp_path / name / "engine").mkdir(parents=True)
        (tmp_path / name / "engine" / "__init__.py").write_text(AFFINITY_ENGINE.format(log=str(log)))
    head_to_head.compare_trees(
        str(tmp_path / "old"),
        str(tmp_path / "new"),
        [("iid", 200, 10, True), ("iid", 2000, 10, False)],
        rounds=5,
        warmups=1,
        show_progress=False,
    )
    seen = {200: [], 2000: []}
    for line in log.read_text().splitlines():
        n, allowed = (int(field) for field in line.split())
        seen[n].append(allowed)
    everything = len(cpus.allowed_cpus())
    # per worker: the first call and the deciding warm calls free, then 5 rounds on one CPU
    free = 1 + head_to_head.DECIDING_CALLS
    assert sorted(seen[200]) == [1] * 10 + [everything] * 2 * free
    assert seen[2000] == [everything] * 2 * (free + 5)
