"""README's coverage section and charts are rendered from the committed study receipts."""

import os

import pytest

from bootmark import workspace
from bootmark.studies import report


@pytest.fixture(scope="module")
def rendered():
    return report.render_section(draw=False)


def test_readme_coverage_section_is_what_the_receipts_render(rendered):
    section, paths = rendered
    with open(workspace.find().readme, encoding="utf-8") as stream:
        text = stream.read()
    assert report.current_section(text) == section, \
        "README.md's coverage section is stale: run `bootmark study render --readme`"
    assert {"S1", "S1-kinds", "S1-length", "S2", "S3", "S4"} <= {report.receipts.load_receipt(p)["body"]["study"]["id"]
                                                               for p in paths}


def test_negative_control_a_typed_coverage_is_caught(rendered):
    section, _ = rendered
    first = section.index("| percentile | ") + len("| percentile | ")
    typed = section[:first] + ("0.901" if section[first:first + 5] != "0.901" else "0.902") + section[first + 5:]
    readme = report.replace_section(f"x\n{report.BEGIN}\n{report.END}\n", typed)
    assert report.current_section(readme) != section


def test_every_study_has_its_chart(rendered):
    for path in rendered[1]:
        body = report.receipts.load_receipt(path)["body"]
        chart = report.chart_path(body)
        assert os.path.exists(chart), f"missing {chart}: run `bootmark study render --readme`"
        with open(chart, "rb") as stream:
            assert stream.read(8) == b"\x89PNG\r\n\x1a\n"


def test_the_markers_are_required():
    with pytest.raises(ValueError, match="coverage markers"):
        report.replace_section("no markers", "x")
