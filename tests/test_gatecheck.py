"""The README's table of ``bootmark gate`` against ``asv continuous`` is what the newest
committed ``gatecheck`` receipt renders, and a changed figure would show."""

import copy

from bootmark.core import receipts, workspace
from bootmark.gate import asv_study as gatecheck


def newest():
    path = receipts.newest_receipt(workspace.directory_for("gatecheck"), "gatecheck")
    assert path is not None, "no committed gatecheck receipt: run scripts/gate_vs_asv.py"
    return receipts.load_receipt(path)


def readme_section():
    with open(workspace.find().readme, encoding="utf-8") as stream:
        text = stream.read()
    return text[text.index(gatecheck.BEGIN) : text.index(gatecheck.END) + len(gatecheck.END)]


def test_the_readme_table_is_rendered_from_the_newest_receipt():
    assert readme_section() == gatecheck.render_table(newest()), (
        "README.md's gate-vs-asv table is stale: run `python scripts/gate_vs_asv.py --render`"
    )


def test_a_changed_figure_changes_the_table():
    doctored = copy.deepcopy(newest())
    doctored["body"]["bootmark_gate"]["false_alarms"] += 1
    assert gatecheck.render_table(doctored) != readme_section()
