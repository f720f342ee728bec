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


def test_the_gate_vs_asv_table_is_rendered_from_the_newest_receipt():
    assert rendered_section(gatecheck.BEGIN, gatecheck.END) == gatecheck.render_table(
        newest("gatecheck", "scripts/gate_vs_asv.py")
    ), "RESULTS.md's gate-vs-asv table is stale: run `python scripts/gate_vs_asv.py --render`"


def test_a_changed_figure_changes_the_gate_vs_asv_table():
    doctored = copy.deepcopy(newest("gatecheck", "scripts/gate_vs_asv.py"))
    doctored["body"]["bootmark_gate"]["false_alarms"] += 1
    assert gatecheck.render_table(doctored) != rendered_section(gatecheck.BEGIN, gatecheck.END)


def test_the_real_suites_table_is_rendered_from_the_newest_receipt():
    assert rendered_section(gate_real_suites.BEGIN, gate_real_suites.END) == gate_real_suites.render(
        newest("gatesuites", "scripts/gate_real_suites.py")
    ), "RESULTS.md's real-suites table is stale: run `python scripts/gate_real_suites.py --render`"


def test_a_changed_figure_changes_the_real_suites_table():
    doctored = copy.deepcopy(newest("gatesuites", "scripts/gate_real_suites.py"))
    doctored["body"]["projects"][0]["results"]["bootmark_gate"]["readme"][0]["flagged"].append("a false alarm")
    assert gate_real_suites.render(doctored) != rendered_section(gate_real_suites.BEGIN, gate_real_suites.END)
