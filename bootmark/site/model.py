"""The site's page model: what a page holds (headings, paragraphs, tables, figures),
rendered to HTML in one place (:func:`render`), and the receipts a page links, copied into
the site (:class:`Publisher`) so that the folder links nothing outside itself.

May import: the standard library only.
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = [
    "Bullets",
    "Cell",
    "Figure",
    "Heading",
    "Page",
    "Publisher",
    "Table",
    "Text",
    "commit_text",
    "interval_text",
    "ms",
    "ratio_cell",
    "render",
    "slug",
    "text",
]


@dataclass(frozen=True)
class Cell:
    """One table cell: its text, a sort key (``value``) and a CSS class."""

    text: str
    value: float | str | None = None
    css: str = ""
    href: str | None = None


@dataclass(frozen=True)
class Table:
    """A sortable table with a caption; ``numeric`` columns are right-aligned."""

    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple[tuple[Cell, ...], str], ...]  # (cells, row class)
    numeric: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Figure:
    """A chart file and its description; the table beside it is its text equivalent."""

    src: str
    alt: str
    caption: str


@dataclass(frozen=True)
class Heading:
    """A heading; ``anchor`` is its id (links such as ``studies.html#s1-v1`` land on it)."""

    level: int
    text: str
    anchor: str = ""


@dataclass(frozen=True)
class Text:
    """A paragraph: (text, href or None, code?) runs."""

    runs: tuple[tuple[str, str | None, bool], ...]
    css: str = ""


@dataclass(frozen=True)
class Bullets:
    """A bulleted list of paragraphs."""

    items: tuple[Text, ...]


@dataclass
class Page:
    """One HTML file: its name, its title, and its blocks in order."""

    filename: str
    title: str
    blocks: list = field(default_factory=list)


def text(*runs) -> Text:
    """A paragraph from plain strings and (words, href) / (words, None, True) tuples.

    Parameters
    ----------
    *runs : str or tuple
        Plain words; ``(words, href)`` for a link; ``(words, href or None, True)`` for code.

    Returns
    -------
    Text

    Examples
    --------
    >>> text("see ", ("the page", "a.html"), ("x = 1", None, True)).runs
    (('see ', None, False), ('the page', 'a.html', False), ('x = 1', None, True))
    """
    return Text(tuple((run, None, False) if isinstance(run, str) else (run + (False,))[:3] for run in runs))


def _runs(text: Text) -> str:
    parts = []
    for words, href, code in text.runs:
        inner = f"<code>{html.escape(words)}</code>" if code else html.escape(words)
        parts.append(f'<a href="{html.escape(href)}">{inner}</a>' if href else inner)
    return "".join(parts)


def _render_block(block) -> str:
    if isinstance(block, Heading):
        anchor = f' id="{html.escape(block.anchor)}"' if block.anchor else ""
        return f"<h{block.level}{anchor}>{html.escape(block.text)}</h{block.level}>"
    if isinstance(block, Text):
        css = f' class="{block.css}"' if block.css else ""
        return f"<p{css}>{_runs(block)}</p>"
    if isinstance(block, Bullets):
        return '<ul class="headlines">' + "".join(f"<li>{_runs(item)}</li>" for item in block.items) + "</ul>"
    if isinstance(block, Figure):
        return (
            f'<figure><img src="{html.escape(block.src)}" alt="{html.escape(block.alt)}">'
            f"<figcaption>{html.escape(block.caption)}</figcaption></figure>"
        )
    if isinstance(block, Table):
        numeric = ' class="num"'
        head = "".join(
            f'<th scope="col"{numeric if index in block.numeric else ""}>{html.escape(title)}</th>'
            for index, title in enumerate(block.columns)
        )
        body = []
        for cells, css in block.rows:
            tds = []
            for index, cell in enumerate(cells):
                classes = " ".join(part for part in ("num" if index in block.numeric else "", cell.css) if part)
                attributes = f' class="{classes}"' if classes else ""
                if cell.value is not None:
                    attributes += f' data-value="{html.escape(str(cell.value))}"'
                inner = html.escape(cell.text)
                if cell.href:
                    inner = f'<a href="{html.escape(cell.href)}">{inner}</a>'
                tds.append(f"<td{attributes}>{inner}</td>")
            row_class = f' class="{css}"' if css else ""
            body.append(f"<tr{row_class}>{''.join(tds)}</tr>")
        return (
            f'<div class="scroll"><table class="sortable"><caption>{html.escape(block.caption)}</caption>'
            f"<thead><tr>{head}</tr></thead><tbody>\n" + "\n".join(body) + "\n</tbody></table></div>"
        )
    raise TypeError(f"not a page block: {block!r}")


def render(page: Page, pages: Sequence[tuple[str, str]], site_name: str) -> str:
    """``page`` as an HTML document.

    Parameters
    ----------
    page : Page
    pages : sequence of (str, str)
        The navigation bar: (file, title) of each page this site has (a page the workspace
        has no receipt for is not linked).
    site_name : str
        The project the workspace serves, named in the header and the title.

    Returns
    -------
    str
    """
    current = ' aria-current="page"'
    nav = "".join(
        f'<li><a href="{name}"{current if name == page.filename else ""}>{title}</a></li>' for name, title in pages
    )
    blocks = "\n".join(_render_block(block) for block in page.blocks)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(page.title)} · {html.escape(site_name)}</title>\n"
        '<link rel="stylesheet" href="site.css">\n</head>\n<body>\n<header>\n'
        f'<p><a href="index.html">{html.escape(site_name)}</a>: receipts published by bootmark</p>\n'
        f'<nav aria-label="Pages"><ul>{nav}</ul></nav>\n</header>\n<main>\n'
        f"<h1>{html.escape(page.title)}</h1>\n{blocks}\n</main>\n<footer>\n"
        "<p>Built by <code>bootmark site</code> from the workspace's receipts: every number and every "
        "chart here is a receipt's, and each table names its receipt.</p>\n</footer>\n"
        '<script src="sort.js"></script>\n</body>\n</html>\n'
    )


# ---- the figures a page shows, worded once ----


def ms(seconds: float) -> str:
    """Seconds as milliseconds with three significant figures (one decimal from 10 ms).

    Parameters
    ----------
    seconds : float

    Returns
    -------
    str

    Examples
    --------
    >>> ms(0.0012345), ms(0.0234)
    ('1.23', '23.4')
    """
    return f"{seconds * 1e3:.3g}" if seconds * 1e3 < 10 else f"{seconds * 1e3:.1f}"


def interval_text(ratio: dict) -> str:
    """A receipt's ratio with its interval, as a table shows it.

    Parameters
    ----------
    ratio : dict
        ``{"median", "ci_low", "ci_high"}``, as a bench receipt holds it.

    Returns
    -------
    str

    Examples
    --------
    >>> interval_text({"median": 1.234, "ci_low": 1.1, "ci_high": 1.4})
    '1.23 (1.10–1.40)'
    """
    return f"{ratio['median']:.2f} ({ratio['ci_low']:.2f}–{ratio['ci_high']:.2f})"


def ratio_cell(ratio: dict | None) -> Cell:
    """A table cell for a ratio with its interval, sorted by the median.

    Parameters
    ----------
    ratio : dict or None
        As :func:`interval_text` takes it; None for a path without a ratio.

    Returns
    -------
    Cell
        Empty for None.
    """
    if ratio is None:  # the engine's own path, or a path the receipt has no ratio for
        return Cell("")
    return Cell(interval_text(ratio), ratio["median"])


def slug(words: str) -> str:
    """``words`` as an id and file-name part: lower-case letters, digits and single dashes.

    Parameters
    ----------
    words : str

    Returns
    -------
    str

    Examples
    --------
    >>> slug("S1 v1 (AMD EPYC, 2 cores)")
    's1-v1-amd-epyc-2-cores'
    """
    return "-".join("".join(character if character.isalnum() else " " for character in words.lower()).split())


def commit_text(provenance: dict) -> str:
    """The commit a receipt measured, as a page names it: ten hex digits, marked when the
    tree had uncommitted changes; ``no git commit`` for a receipt written without git (a
    wheel install records none).

    Parameters
    ----------
    provenance : dict
        A receipt's provenance (its ``source`` holds ``git_sha`` and ``dirty``).

    Returns
    -------
    str

    Examples
    --------
    >>> commit_text({"source": {"git_sha": "0123456789abcdef", "dirty": True}})
    '0123456789 (uncommitted changes)'
    >>> commit_text({"source": {"git_sha": None, "dirty": None}})
    'no git commit'
    """
    source = provenance.get("source") or {}
    sha = source.get("git_sha")
    if not sha:
        return "no git commit"
    return sha[:10] + (" (uncommitted changes)" if source.get("dirty") else "")


@dataclass
class Publisher:
    """The receipts the pages link, copied into the site under ``receipts/``: a link never
    leaves the folder, so the site works wherever it is moved or uploaded.

    Parameters
    ----------
    root : str
        The workspace root. A receipt at ``root/receipts/bench/x.json`` is published as
        ``receipts/bench/x.json`` in the site; one outside the workspace as
        ``receipts/elsewhere/x.json``.

    Attributes
    ----------
    copies : dict of str to str
        {path in the site: the file it copies}, filled as pages link receipts.
    """

    root: str
    copies: dict[str, str] = field(default_factory=dict)

    def link(self, path: str) -> str:
        """The site-relative link to the receipt file ``path``, which is copied into the site.

        Parameters
        ----------
        path : str
            A receipt file.

        Returns
        -------
        str
            A relative URL from a page at the site's top level (``receipts/...``).
        """
        relative = os.path.relpath(os.path.abspath(path), os.path.abspath(self.root))
        if relative.startswith(os.pardir):  # not the workspace's: kept by its name alone
            relative = os.path.join("receipts", "elsewhere", os.path.basename(path))
        relative = relative.replace(os.sep, "/")
        self.copies[relative] = path
        return relative
