"""Marked sections of a rendered Markdown file (bootmark.core.sections): replaced in place
and atomically, and a file without its markers is refused by name and left as it was."""

import pytest

from bootmark.core.sections import rewrite_section

BEGIN, END = "<!-- table:begin (rendered) -->", "<!-- table:end -->"


def test_a_section_is_replaced_and_the_rest_kept(tmp_path):
    path = tmp_path / "RESULTS.md"
    path.write_text(f"# Results\n\nprose\n{BEGIN}\nold\n{END}\nmore prose\n", encoding="utf-8")
    rewrite_section(str(path), f"{BEGIN}\nnew\n{END}", BEGIN, END)
    assert path.read_text(encoding="utf-8") == f"# Results\n\nprose\n{BEGIN}\nnew\n{END}\nmore prose\n"
    assert sorted(item.name for item in tmp_path.iterdir()) == ["RESULTS.md"]


@pytest.mark.parametrize("body", ["no markers\n", f"{BEGIN}\na\n{END}\n{BEGIN}\nb\n{END}\n", f"{END}\n{BEGIN}\n"])
def test_a_file_without_exactly_one_section_is_named_and_untouched(tmp_path, body):
    path = tmp_path / "RESULTS.md"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(ValueError, match=r"RESULTS\.md: the file must hold exactly one table section"):
        rewrite_section(str(path), f"{BEGIN}\nnew\n{END}", BEGIN, END)
    assert path.read_text(encoding="utf-8") == body
    assert sorted(item.name for item in tmp_path.iterdir()) == ["RESULTS.md"]
