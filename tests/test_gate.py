"""The speed gate's negative control: a deliberately slowed engine must fail it.

The slowed engine is a copy of this checkout's source tree with a sleep written into
every kernel dispatch (engine/parallel.py's ``run_replicates``); the production engine
carries no test switch. ``gate.run_gate(tree=...)`` gates that tree: the receipt screen
must flag it, and the head-to-head confirmation against the baseline receipt's commit
(the committed code, unslowed) must confirm it. The gate's pass on an unchanged tree is
exercised by .ci/run itself.
"""

import copy
import io
import pathlib
import shutil
import subprocess
import sys

import pytest

from bootmark import compare, gate, head_to_head, receipts

ROOT = pathlib.Path(__file__).resolve().parent.parent
DISPATCH = "    threads = min(numba.get_num_threads(), replicates)"


def slowed_tree(destination):
    """A copy of this checkout's engine/ and reference/ whose every kernel dispatch first
    sleeps 20 ms: the same bits, only slower."""
    for folder in ("engine", "reference"):
        shutil.copytree(ROOT / folder, destination / folder, ignore=shutil.ignore_patterns("__pycache__"))
    parallel = destination / "engine" / "parallel.py"
    source = parallel.read_text()
    assert source.count(DISPATCH) == 1, "run_replicates changed: update the slowed tree's patch"
    parallel.write_text(
        source.replace(DISPATCH, '    __import__("time").sleep(0.02)  # the negative control\n' + DISPATCH)
    )
    return destination


def baseline_commit_is_here(tmp_path):
    sha = receipts.load_receipt(gate.baseline_path())["provenance"]["source"]["git_sha"]
    try:
        head_to_head.export_revision(sha, str(tmp_path))
    except head_to_head.HeadToHeadError:
        return False
    return True


@pytest.mark.skipif(gate.baseline_path() is None, reason="no committed quick-profile bench receipt")
def test_a_slowed_engine_fails_the_gate(tmp_path):
    slowed = slowed_tree(tmp_path / "slowed")
    # the slowed tree's engine is imported first, then the gate (which imports the bench)
    script = (
        f"import sys\nfrom bootmark import head_to_head\nhead_to_head.import_engine({str(slowed)!r})\n"
        f"from bootmark import gate\nsys.exit(gate.run_gate(show_progress=False, tree={str(slowed)!r}))"
    )
    completed = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert "Traceback" not in completed.stderr, completed.stderr
    assert completed.returncode == compare.REGRESSION, completed.stdout + completed.stderr
    assert "REGRESSION" in completed.stdout
    if baseline_commit_is_here(tmp_path):  # else the fallback (a re-measure against the receipt) confirms
        assert "this checkout against" in completed.stdout, completed.stdout


@pytest.mark.skipif(gate.baseline_path() is None, reason="no committed quick-profile bench receipt")
def test_a_baseline_from_a_kinder_host_is_cleared_head_to_head(tmp_path):
    # A baseline at this checkout's HEAD, doctored as if made on a host where the i.i.d.
    # sentinel's arch control ran 3x slower: the screen flags that cell, and timing HEAD's
    # own engine against this checkout must clear it.
    original = receipts.load_receipt(gate.baseline_path())
    sha = head_to_head.provenance.source_state(head_to_head.provenance.source_checkout())["git_sha"]
    if sha is None or not baseline_commit_is_here(tmp_path / "export"):
        pytest.skip("no git history to time the baseline's commit from")
    body = copy.deepcopy(original["body"])
    for cell in body["cells"]:
        if cell["method"] == "iid" and cell["sentinel"]:
            cell["ratios"]["arch"] = {
                key: (value * 3 if key in ("median", "ci_low", "ci_high") else value)
                for key, value in cell["ratios"]["arch"].items()
            }
    started = dict(original["provenance"], source={"git_sha": sha, "dirty": False})
    receipts.write_receipt(receipts.seal("bench", started, body), str(tmp_path))
    printed = io.StringIO()
    assert gate.run_gate(directory=str(tmp_path), show_progress=False, out=printed) == compare.PASS, printed.getvalue()
    _, confirmed = printed.getvalue().split("confirming ", 1)
    # The doctored cell is among those timed head to head; on a host unlike the baseline's
    # the screen flags others too (4 of 8 on an Intel Xeon against this AMD-made baseline).
    assert "| iid (sentinel) |" in confirmed
    assert f"this checkout against {sha[:10]}" in printed.getvalue()
    assert "not confirmed; passing" in printed.getvalue()


# The last commit whose i.i.d. kernel redid a row word by word after a rejected word (the
# cost cliff past n = 65,536): its engine stands in for a regression that brings it back.
CLIFF_COMMIT = "55d7289"


def test_the_quick_profile_would_catch_the_iid_cliff_coming_back(tmp_path):
    from bootmark import bench

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
