"""README's speed table is rendered from the newest receipt, never typed."""

import pytest

from bootmark.bench import scoreboard
from bootmark.core import workspace


def test_readme_scoreboard_is_what_the_newest_receipts_render():
    paths = scoreboard.newest_receipts()  # fails if either receipt is missing
    with open(workspace.find().readme) as stream:
        text = stream.read()
    assert scoreboard.is_current(text, paths), "README.md's scoreboard is stale: run `bootmark scoreboard --readme`"


def test_negative_control_a_typed_figure_is_caught():
    paths = scoreboard.newest_receipts()
    with open(workspace.find().readme) as stream:
        text = stream.read()
    section = scoreboard.current_section(text)
    first_ratio = section.index(" | win |")
    typed = text.replace(section, section[:first_ratio] + " | LOSS |" + section[first_ratio + len(" | win |") :])
    assert typed != text and not scoreboard.is_current(typed, paths)


def test_the_section_markers_are_required_exactly_once():
    with pytest.raises(ValueError, match="exactly one scoreboard section"):
        scoreboard.replace_section("no markers here", "x")
