"""Marked sections of a rendered Markdown file: the part between a begin and an end marker
line that code rewrites from receipts, leaving the rest of the file as written.
"""

import os

__all__ = ["replace_section", "rewrite_section"]


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
    ValueError: the file must hold exactly one table section between its markers
    """
    if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        name = begin.removeprefix("<!-- ").split(":")[0]
        raise ValueError(f"the file must hold exactly one {name} section between its markers")
    return text[: text.index(begin)] + section + text[text.index(end) + len(end) :]


def rewrite_section(path: str, section: str, begin: str, end: str) -> None:
    """Replace the marked section of the Markdown file at ``path`` with ``section``, in
    place and atomically (a temporary file beside it, then a rename).

    Parameters
    ----------
    path : str
        The Markdown file (a workspace's ``readme``).
    section : str
        The new section, its markers included.
    begin, end : str
        The marker lines.

    Raises
    ------
    ValueError
        The file does not hold exactly one marked section; the message names the file.
    OSError
        The file cannot be read or written.

    Examples
    --------
    >>> import os, tempfile
    >>> from bootmark.core.sections import rewrite_section
    >>> begin, end = "<!-- table:begin -->", "<!-- table:end -->"
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "RESULTS.md")
    ...     with open(path, "w") as stream:
    ...         _ = stream.write(f"# Results\\n{begin}\\nold\\n{end}\\n")
    ...     rewrite_section(path, f"{begin}\\nnew\\n{end}", begin, end)
    ...     print(open(path).read())
    # Results
    <!-- table:begin -->
    new
    <!-- table:end -->
    <BLANKLINE>
    """
    with open(path, encoding="utf-8") as stream:
        text = stream.read()
    try:
        updated = replace_section(text, section, begin, end)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    temporary = f"{path}.partial"
    with open(temporary, "w", encoding="utf-8") as stream:
        stream.write(updated)
    os.replace(temporary, path)
