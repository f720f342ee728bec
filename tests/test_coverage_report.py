"""README's coverage section and charts are rendered from the committed study receipts."""

import os

import pytest

from bootmark.core import workspace
from bootmark.studies import report


@pytest.fixture(scope="module")
def rendered():
    return report.render_section(draw=False)


def test_readme_coverage_section_is_what_the_receipts_render(rendered):
    section, paths = rendered
    with open(workspace.find().readme, encoding="utf-8") as stream:
        text = stream.read()
    assert report.current_section(text) == section, (
        "README.md's coverage section is stale: run `bootmark study render --readme`"
    )
    assert {"S1", "S1-kinds", "S1-length", "S2", "S3", "S4"} <= {
        report.receipts.load_receipt(p)["body"]["study"]["id"] for p in paths
    }


def test_negative_control_a_typed_coverage_is_caught(rendered):
    section, _ = rendered
    first = section.index("| percentile | ") + len("| percentile | ")
    typed = section[:first] + ("0.901" if section[first : first + 5] != "0.901" else "0.902") + section[first + 5 :]
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


def test_miss_split_counts_each_side_of_the_truth():
    from bootmark.studies.summary import miss_split

    cells = [
        {
            "n": 50,
            "truth": {"value": 1.0},
            "resamplers": {
                "r": {
                    "intervals": {
                        "percentile": {"lower": [0.0, 1.2, 0.5, 1.0, -3.0], "upper": [0.9, 2.0, 1.5, 1.1, 0.99]}
                    }
                }
            },
        }
    ]
    # wholly below: [0, 0.9] and [-3, 0.99]; wholly above: [1.2, 2]; a bound on the truth covers it
    assert miss_split(cells) == {(50, "r", "percentile"): (0.4, 0.2)}
