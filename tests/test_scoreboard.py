"""README's speed table is rendered from the newest receipt, never typed."""

import pytest

from bootmark import scoreboard


def test_readme_scoreboard_is_what_the_newest_receipt_renders():
    path = scoreboard.newest_full_receipt()
    with open(scoreboard.README) as stream:
        text = stream.read()
    if path is None:
        pytest.fail("no full-profile bench receipt is committed; run `bootmark bench` and commit it")
    assert scoreboard.current_section(text) == scoreboard.render_section(path), (
        "README.md's scoreboard differs from the receipt; run `bootmark scoreboard --readme`")


def test_negative_control_a_typed_figure_is_caught():
    path = scoreboard.newest_full_receipt()
    if path is None:
        pytest.skip("no receipt yet (the test above fails in that case)")
    section = scoreboard.render_section(path)
    edited = section.replace(" | win |", " | LOSS |", 1) if " | win |" in section else section + " "
    assert edited != section
    text = scoreboard.replace_section(f"intro\n{scoreboard.BEGIN}\nold\n{scoreboard.END}\noutro\n", edited)
    assert scoreboard.current_section(text) != section


def test_the_section_markers_are_required_exactly_once():
    with pytest.raises(ValueError, match="exactly one scoreboard section"):
        scoreboard.replace_section("no markers here", "x")
