"""README's speed table is rendered from the newest receipt, never typed."""

import pytest

from bootmark import scoreboard


def test_readme_scoreboard_is_what_the_newest_receipts_render():
    paths = scoreboard.newest_receipts()  # fails if either receipt is missing
    with open(scoreboard.README) as stream:
        text = stream.read()
    assert scoreboard.current_section(text) == scoreboard.render_section(*paths), (
        "README.md's scoreboard differs from the receipt; run `bootmark scoreboard --readme`")


def test_negative_control_a_typed_figure_is_caught():
    section = scoreboard.render_section(*scoreboard.newest_receipts())
    edited = section.replace(" | win |", " | LOSS |", 1) if " | win |" in section else section + " "
    assert edited != section
    text = scoreboard.replace_section(f"intro\n{scoreboard.BEGIN}\nold\n{scoreboard.END}\noutro\n", edited)
    assert scoreboard.current_section(text) != section


def test_the_section_markers_are_required_exactly_once():
    with pytest.raises(ValueError, match="exactly one scoreboard section"):
        scoreboard.replace_section("no markers here", "x")
