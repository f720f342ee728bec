"""The rendered tables of the gate's studies are what their newest committed receipts
render, and a changed figure would show: ``bootmark gate`` against ``asv continuous``
(``gatecheck``, scripts/gate_vs_asv.py) and on real projects' suites (``gatesuites``,
scripts/gate_real_suites.py)."""

import copy
import os
import sys

from bootmark.core import receipts, workspace
from bootmark.gate import asv_study as gatecheck

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
import gate_real_suites  # noqa: E402  (a script, not a module of the package)


def newest(kind, script):
    path = receipts.newest_receipt(workspace.directory_for(kind), kind)
    assert path is not None, f"no committed {kind} receipt: run {script}"
    return receipts.load_receipt(path)


def rendered_section(begin, end):
    with open(workspace.find().readme, encoding="utf-8") as stream:
        text = stream.read()
    return text[text.index(begin) : text.index(end) + len(end)]


def newest_gatecheck(busy):
    path = gatecheck.newest(busy)
    assert path is not None, f"no committed {'busy' if busy else 'quiet'} gatecheck receipt: run scripts/gate_vs_asv.py"
    return receipts.load_receipt(path)


def test_the_gate_vs_asv_table_is_rendered_from_the_newest_receipt():
    assert rendered_section(gatecheck.BEGIN, gatecheck.END) == gatecheck.render_table(newest_gatecheck(False)), (
        "RESULTS.md's gate-vs-asv table is stale: run `python scripts/gate_vs_asv.py --render`"
    )


def test_a_changed_figure_changes_the_gate_vs_asv_table():
    doctored = copy.deepcopy(newest_gatecheck(False))
    doctored["body"]["bootmark_gate"]["false_alarms"] += 1
    assert gatecheck.render_table(doctored) != rendered_section(gatecheck.BEGIN, gatecheck.END)


def test_the_busy_runner_table_is_rendered_from_the_newest_quiet_and_busy_receipts():
    quiet, busy = newest_gatecheck(False), newest_gatecheck(True)
    assert busy["body"]["neighbour"]["processes"] >= 1 and "neighbour" not in quiet["body"]
    assert rendered_section(gatecheck.BUSY_BEGIN, gatecheck.BUSY_END) == gatecheck.render_busy(quiet, busy), (
        "RESULTS.md's busy-runner table is stale: run `python scripts/gate_vs_asv.py --render`"
    )
    doctored = copy.deepcopy(busy)
    doctored["body"]["bootmark_gate"]["detections"] = dict.fromkeys(doctored["body"]["bootmark_gate"]["detections"], 0)
    assert gatecheck.render_busy(quiet, doctored) != rendered_section(gatecheck.BUSY_BEGIN, gatecheck.BUSY_END)


def test_the_real_suites_table_is_rendered_from_the_newest_receipt():
    assert rendered_section(gate_real_suites.BEGIN, gate_real_suites.END) == gate_real_suites.render_any(
        newest("gatesuites", "scripts/gate_real_suites.py")
    ), "RESULTS.md's real-suites table is stale: run `python scripts/gate_real_suites.py --render`"


def test_a_changed_figure_changes_the_real_suites_table():
    doctored = copy.deepcopy(newest("gatesuites", "scripts/gate_real_suites.py"))
    readme = doctored["body"]["projects"][0]["results"]["bootmark_gate"]["readme"][0]
    readme["flagged"].append("a false alarm")
    readme["exit_code"] = 1
    assert gate_real_suites.render_any(doctored) != rendered_section(gate_real_suites.BEGIN, gate_real_suites.END)


def test_the_corpus_receipt_holds_what_issue_45_asks_of_it():
    """Twelve projects, every framework, each gated once on both commits; the rendered
    count of projects as expected is the receipt's own."""
    body = newest("gatesuites", "scripts/gate_real_suites.py --corpus")["body"]
    assert body.get("corpus") is True and len(body["projects"]) >= 12
    suites = [project["suite"] for project in body["projects"]]
    for suite, least in (("asv", 4), ("pytest-benchmark", 4), ("pytest-codspeed", 2), ("pyperf", 1)):
        assert suites.count(suite) >= least, suite
    expected = sum(gate_real_suites.corpus_outcome(project) == "as expected" for project in body["projects"])
    assert f"{expected} of {len(body['projects'])} projects as expected" in rendered_section(
        gate_real_suites.BEGIN, gate_real_suites.END
    )
