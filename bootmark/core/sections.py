"""Marked sections of a rendered Markdown file: the part between a begin and an end marker
line that code rewrites from receipts, leaving the rest of the file as written.
"""

__all__ = ["replace_section"]


def replace_section(text: str, section: str, begin: str, end: str) -> str:
    """``text`` with its marked section replaced by ``section``.

    Parameters
    ----------
    text : str
        A Markdown file's text holding one section between ``begin`` and ``end``.
    section : str
        The new section, its markers included.
    begin, end : str
        The marker lines, e.g. ``<!-- scoreboard:begin ... -->`` and ``<!-- scoreboard:end -->``.

    Returns
    -------
    str
        ``text`` with the section replaced; the rest unchanged.

    Raises
    ------
    ValueError
        ``text`` does not hold exactly one marked section.

    Examples
    --------
    >>> from bootmark.core.sections import replace_section
    >>> begin, end = "<!-- table:begin -->", "<!-- table:end -->"
    >>> text = f"# README\\n{begin}\\nold\\n{end}\\nmore\\n"
    >>> replace_section(text, f"{begin}\\nnew\\n{end}", begin, end) == f"# README\\n{begin}\\nnew\\n{end}\\nmore\\n"
    True
    >>> replace_section("no markers", "", begin, end)
    Traceback (most recent call last):
        ...
    ValueError: README.md must hold exactly one table section between its markers
    """
    if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        name = begin.removeprefix("<!-- ").split(":")[0]
        raise ValueError(f"README.md must hold exactly one {name} section between its markers")
    return text[: text.index(begin)] + section + text[text.index(end) + len(end) :]
