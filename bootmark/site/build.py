"""``bootmark site``: a static scoreboard site built from a workspace's receipts.

Six pages, each a plain HTML file beside its SVG charts, a style sheet and a small
table-sorting script, all shipped with bootmark (no network, no CDN), so the site opens
from ``file://`` and from any static host:

* **overview** (``index.html``): wins and losses against each peer, counted from the
  newest full bench receipt; the worst cell; the coverage headline of each study;
* **speed** (``speed.html``): every cell of that receipt, each path's median time, each
  ratio with its 95% interval and verdict (a loss marked in words and colour), and per
  cell a chart of every timed sample;
* **history** (``history.html``): every bench receipt of the workspace and of its git
  history, in commit order; per cell, the engine/arch ratio and the engine's time over
  commits, one line per machine, with change points (``bootmark.site.history``)
  marked; then every registered study receipt over commits and machines;
* **hosts** (``hosts.html``): per cell, the range of the ratio across the machines that
  measured it, with the machine list (a number from one box is never *the* number);
* **studies** (``studies.html``): per study, coverage with Wilson intervals, a forest
  plot, the registered criteria, the published figures with z, and the receipt with its
  hash and the ``bootmark study verify`` command that replays it;
* **memory** (``memory.html``): peak memory against B, per path.

Every chart is drawn from receipts only, and a table beside it holds the same numbers.
The same receipts (and the same git history) give the same bytes: the site can be
committed and diffed.
"""

from __future__ import annotations

import html
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from bootmark.bench import grid as bench
from bootmark.core import receipts, workspace
from bootmark.site.charts import forest_svg, history_svg, memory_svg, samples_svg, speed_svg
from bootmark.site.history import HistoryReceipt, bench_history, change_points, commit_positions, machine_name

__all__ = ["PAGES", "SiteError", "build_site"]

ASSETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "assets")
PAGES = (
    ("index.html", "Overview"),
    ("speed.html", "Speed grid"),
    ("history.html", "History"),
    ("hosts.html", "Hosts"),
    ("studies.html", "Studies"),
    ("memory.html", "Memory"),
)
PEERS = ("arch", "tsbootstrap")


class SiteError(RuntimeError):
    """The site cannot be built: no receipts to build it from, or an output folder that
    is not bootmark's to replace."""


# ---- the page model: what a page holds, rendered to HTML in one place (_render) ----


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
    items: tuple[Text, ...]


@dataclass
class Page:
    filename: str
    title: str
    blocks: list = field(default_factory=list)


def _text(*runs) -> Text:
    """A paragraph from plain strings and (text, href) / (text, None, True) tuples."""
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


def _render(page: Page) -> str:
    current = ' aria-current="page"'
    nav = "".join(
        f'<li><a href="{name}"{current if name == page.filename else ""}>{title}</a></li>' for name, title in PAGES
    )
    blocks = "\n".join(_render_block(block) for block in page.blocks)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(page.title)} · bootmark scoreboard</title>\n"
        '<link rel="stylesheet" href="site.css">\n</head>\n<body>\n<header>\n'
        '<p><a href="index.html">bootmark</a> scoreboard</p>\n'
        f'<nav aria-label="Pages"><ul>{nav}</ul></nav>\n</header>\n<main>\n'
        f"<h1>{html.escape(page.title)}</h1>\n{blocks}\n</main>\n<footer>\n"
        "<p>Built by <code>bootmark site</code> from the workspace's receipts: every number and every "
        "chart here is a receipt's, and each table names its receipt.</p>\n</footer>\n"
        '<script src="sort.js"></script>\n</body>\n</html>\n'
    )


# ---- reading the receipts ----


def _name(receipt_path: str) -> str:
    return os.path.basename(receipt_path)


def _link(out: str, path: str) -> str:
    """A relative link from the site folder to a receipt file."""
    return os.path.relpath(path, out).replace(os.sep, "/")


def _cell_label(cell: dict) -> str:
    return f"{cell['method']}{' (sentinel)' if cell['sentinel'] else ''} n={cell['n']} B={cell['n_bootstraps']}"


def _cell_id(cell: dict) -> str:
    return f"{cell['method']}-{cell['n']}-{cell['n_bootstraps']}{'-sentinel' if cell['sentinel'] else ''}"


def _peer_rows(receipt: dict) -> Iterable[tuple[dict, str, dict]]:
    """(cell, peer, ratio) for every peer comparison of a bench receipt."""
    for cell in receipt["body"]["cells"]:
        for peer in PEERS:
            if peer in cell.get("ratios", {}):
                yield cell, peer, cell["ratios"][peer]


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g}" if seconds * 1e3 < 10 else f"{seconds * 1e3:.1f}"


# ---- pages ----


def _speed_page(out, charts, newest_path, newest):
    page = Page("speed.html", "Speed grid")
    provenance = newest["provenance"]
    page.blocks.append(
        _text(
            f"From {_name(newest_path)} ({provenance['machine']['cpu_model']}, {provenance['machine']['cores']} cores, "
            f"commit {provenance['source']['git_sha'][:10]}, {provenance['finished_utc']}): ",
            ("the receipt", _link(out, newest_path)),
            ". A ratio is the compared path's time over the engine's (above 1: the engine is faster), with its "
            "95% block-bootstrap interval; LOSS means the whole interval lies below 1.",
        )
    )
    rows, chart_rows = [], []
    for cell, peer, ratio in _peer_rows(newest):
        verdict = bench.ratio_verdict(ratio)
        engine = cell["paths"][bench.ANCHOR_PATH]["median_s"]
        rows.append(
            (
                (
                    Cell(cell["method"] + (" (sentinel)" if cell["sentinel"] else ""), href=f"#cell-{_cell_id(cell)}"),
                    Cell(str(cell["n"]), cell["n"]),
                    Cell(str(cell["n_bootstraps"]), cell["n_bootstraps"]),
                    Cell(_ms(engine), engine * 1e3),
                    Cell(peer),
                    Cell(_ms(cell["paths"][peer]["median_s"]), cell["paths"][peer]["median_s"] * 1e3),
                    _ratio_cell(ratio),
                    Cell(verdict, verdict, css=f"verdict-{verdict.lower()}"),
                ),
                "loss" if verdict == "LOSS" else "",
            )
        )
        chart_rows.append((f"{_cell_label(cell)} vs {peer}", ratio["median"], ratio["ci_low"], ratio["ci_high"]))
    losses = sum(1 for cells, css in rows if css == "loss")
    page.blocks.append(
        _text(
            f"{len(rows)} comparisons against peers; {losses} LOSS{'' if losses == 1 else 'ES'} (marked in the table)."
        )
    )
    for peer in PEERS:
        mine = [row for row in chart_rows if row[0].endswith(f" vs {peer}")]
        if mine:
            charts[f"speed-{peer}.svg"] = speed_svg(
                [(label.removesuffix(f" vs {peer}"), *rest) for label, *rest in mine],
                f"{peer} time / engine time, newest full grid",
            )
            page.blocks.append(
                Figure(
                    f"charts/speed-{peer}.svg",
                    f"{peer} time over engine time with 95% intervals for every cell of the newest full bench "
                    "receipt; the numbers are in the table below.",
                    f"Against {peer}: each ratio with its interval; the dashed line is parity.",
                )
            )
    page.blocks.append(
        Table(
            "Every peer comparison of the newest full bench receipt (times in ms per call)",
            ("method", "n", "B", "engine ms", "peer", "peer ms", "peer / engine (95%)", "verdict"),
            tuple(rows),
            frozenset({1, 2, 3, 5, 6}),
        )
    )
    page.blocks.append(Heading(2, "Timed samples per cell"))
    page.blocks.append(
        _text("Every timed round of every path, not the median alone: the spread is how far a figure can be trusted.")
    )
    for cell in newest["body"]["cells"]:
        name = f"samples-{_cell_id(cell)}.svg"
        paths = {path: timing["samples_s"] for path, timing in cell["paths"].items()}
        charts[name] = samples_svg(paths, _cell_label(cell))
        page.blocks.append(Heading(3, _cell_label(cell), f"cell-{_cell_id(cell)}"))
        page.blocks.append(
            Figure(
                f"charts/{name}",
                f"Timed samples in ms of each path for {_cell_label(cell)}; medians in the table below.",
                "Dots: single timed rounds; bars: medians.",
            )
        )
        page.blocks.append(
            Table(
                f"Samples of {_cell_label(cell)} (ms per call; ratio: the path's time over the engine's)",
                ("path", "median", "min", "rounds", f"ratio to {bench.ANCHOR_PATH} (95%)"),
                tuple(
                    (
                        (
                            Cell(path),
                            Cell(_ms(timing["median_s"]), timing["median_s"] * 1e3),
                            Cell(_ms(timing["min_s"]), timing["min_s"] * 1e3),
                            Cell(str(len(timing["samples_s"])), len(timing["samples_s"])),
                            _ratio_cell(cell.get("ratios", {}).get(path)),
                        ),
                        "",
                    )
                    for path, timing in cell["paths"].items()
                ),
                frozenset({1, 2, 3, 4}),
            )
        )
    return page


def _interval_text(ratio: dict) -> str:
    return f"{ratio['median']:.2f} ({ratio['ci_low']:.2f}–{ratio['ci_high']:.2f})"


def _ratio_cell(ratio: dict | None) -> Cell:
    if ratio is None:  # the engine's own path, or a path the receipt has no ratio for
        return Cell("")
    return Cell(_interval_text(ratio), ratio["median"])


def _overview_page(out, newest_path, newest, study_entries):
    page = Page("index.html", "Overview")
    page.blocks.append(
        _text(
            "bootmark's engine against its peers, from the newest full bench receipt (",
            (_name(newest_path), _link(out, newest_path)),
            "), and the coverage audits of its registered studies. Losses are counted beside wins.",
        )
    )
    rows = []
    for peer in PEERS:
        found = [
            bench.ratio_verdict(ratio) for cell, name, ratio in _peer_rows(newest) if name == peer
        ]  # every comparison with this peer
        if found:
            rows.append(
                (
                    (
                        Cell(peer),
                        Cell(str(found.count("win")), found.count("win")),
                        Cell(str(found.count("tie")), found.count("tie")),
                        Cell(
                            str(found.count("LOSS")), found.count("LOSS"), css="verdict-loss" if "LOSS" in found else ""
                        ),
                    ),
                    "loss" if "LOSS" in found else "",
                )
            )
    page.blocks.append(Heading(2, "Wins and losses against each peer"))
    page.blocks.append(
        Table(
            "Cells of the newest full grid, by verdict",
            ("peer", "wins", "ties", "LOSSES"),
            tuple(rows),
            frozenset({1, 2, 3}),
        )
    )
    worst = min(_peer_rows(newest), key=lambda item: item[2]["median"], default=None)
    if worst is not None:
        cell, peer, ratio = worst
        page.blocks.append(
            _text(
                "Worst cell: ",
                (f"{_cell_label(cell)} against {peer}", f"speed.html#cell-{_cell_id(cell)}"),
                f", {peer} / engine = {_interval_text(ratio)}, {bench.ratio_verdict(ratio)}.",
            )
        )
    page.blocks.append(Heading(2, "Coverage audits"))
    if study_entries:
        items = []
        for study_id, version, title, nominal, rows_, anchor, machine in study_entries:
            if not rows_:
                continue
            low = min(rows_, key=lambda row: row["coverage"])
            items.append(
                _text(
                    (f"{study_id} v{version} on {machine}", f"studies.html#{anchor}"),
                    f": {title}. Nominal {nominal:.2f}; lowest delivered {low['coverage']:.3f} "
                    f"(Wilson {low['wilson_low']:.3f}–{low['wilson_high']:.3f}) by {low['resampler']} {low['kind']} "
                    f"at n = {low['n']}.",
                )
            )
        page.blocks.append(Bullets(tuple(items)))
    else:
        page.blocks.append(_text("No study receipts in this workspace yet."))
    return page


def _history_page(out, charts, history: Sequence[HistoryReceipt], workspace_root, study_history=()):
    page = Page("history.html", "History")
    page.blocks.append(
        _text(
            f"{len(history)} bench receipts from the workspace and its git history, in commit order. Per cell, "
            "the arch / engine ratio and the engine's median time; a dotted line marks a change point "
            "(ruptures' PELT on the logarithm, steps of 10% or more)."
        )
    )
    labels = [f"{point.commit[:7] or '?'}·{index}" for index, point in enumerate(history)]
    page.blocks.append(
        Table(
            "The receipts, oldest commit first",
            ("#", "receipt", "commit", "profile", "host", "finished (UTC)"),
            tuple(
                (
                    (
                        Cell(str(index), index),
                        Cell(point.name, href=_history_link(out, point)),
                        Cell(point.commit[:10]),
                        Cell(point.receipt["body"]["profile"]),
                        Cell(point.host),
                        Cell(point.finished_utc),
                    ),
                    "",
                )
                for index, point in enumerate(history)
            ),
            frozenset({0}),
        )
    )
    keys = []
    for point in history:
        for cell in point.receipt["body"]["cells"]:
            key = (cell["method"], cell["n"], cell["n_bootstraps"], cell["sentinel"])
            if key not in keys and "arch" in cell.get("ratios", {}):
                keys.append(key)
    for method, n, replicates, sentinel in sorted(keys):
        found = []
        for index, point in enumerate(history):
            for cell in point.receipt["body"]["cells"]:
                if (cell["method"], cell["n"], cell["n_bootstraps"], cell["sentinel"]) == (
                    method,
                    n,
                    replicates,
                    sentinel,
                ):
                    if "arch" in cell.get("ratios", {}):
                        found.append((index, point, cell))
        if len(found) < 2:
            continue
        title = f"{method}{' (sentinel)' if sentinel else ''} n={n} B={replicates}"
        times = [cell["paths"][bench.ANCHOR_PATH]["median_s"] * 1e3 for _, _, cell in found]
        # One series per machine: two machines' figures differ by their hardware, which a
        # change-point detector would otherwise report as a step at every change of host.
        series, marks, ratio_steps, time_steps = {}, {}, set(), set()
        for host in sorted({point.host for _, point, _ in found}):
            mine = [position for position, (_, point, _) in enumerate(found) if point.host == host]
            ratios = [found[position][2]["ratios"]["arch"]["median"] for position in mine]
            host_times = [times[position] for position in mine]
            found_ratio = [mine[step] for step in change_points(ratios)]
            found_time = [mine[step] for step in change_points(host_times)]
            ratio_steps.update(found_ratio)
            time_steps.update(found_time)
            for label, values, steps_here in (
                (f"arch / engine, {host}", ratios, found_ratio),
                (f"engine ms, {host}", host_times, found_time),
            ):
                spread = [None] * len(found)
                for position, value in zip(mine, values, strict=True):
                    spread[position] = value
                series[label], marks[label] = spread, steps_here
        name = f"history-{method}-{n}-{replicates}{'-sentinel' if sentinel else ''}.svg"
        charts[name] = history_svg([labels[index] for index, _, _ in found], series, marks, "ratio, or ms per call")
        page.blocks.append(Heading(2, title, f"history-{method}-{n}-{replicates}{'-sentinel' if sentinel else ''}"))
        page.blocks.append(
            Figure(
                f"charts/{name}",
                f"The arch / engine ratio and the engine's time for {title} across {len(found)} receipts, one "
                "line per machine; values and change points in the table below.",
                "Receipts in commit order; dotted: a change point.",
            )
        )
        steps = set(ratio_steps) | set(time_steps)
        page.blocks.append(
            Table(
                f"{title} over commits",
                ("#", "commit", "host", "arch / engine (95%)", "engine ms", "change point", "receipt"),
                tuple(
                    (
                        (
                            Cell(str(index), index),
                            Cell(point.commit[:10]),
                            Cell(point.host),
                            _ratio_cell(cell["ratios"]["arch"]),
                            Cell(_ms(cell["paths"][bench.ANCHOR_PATH]["median_s"]), times[position]),
                            Cell(_step_words(position, ratio_steps, time_steps) if position in steps else ""),
                            Cell(point.name, href=_history_link(out, point)),
                        ),
                        "",
                    )
                    for position, (index, point, cell) in enumerate(found)
                ),
                frozenset({0, 3, 4}),
            )
        )
    if study_history:
        page.blocks.extend(_study_history_blocks(out, study_history, commit_positions(workspace_root)))
    return page


def _study_history_blocks(out, study_history, positions):
    """The history page's last section: every registered study receipt, by study, in
    commit order, with its machine (so both machines' audits show over commits)."""
    placed = sorted(
        study_history,
        key=lambda item: (
            item[1]["body"]["study"]["id"],
            item[1]["body"]["study"]["version"],
            positions.get(item[1]["provenance"]["source"].get("git_sha") or "", len(positions)),
            item[1]["provenance"]["finished_utc"],
        ),
    )
    rows = []
    for path, receipt in placed:
        body = receipt["body"]
        if not body["results"]["coverage"]:
            continue
        low = min(body["results"]["coverage"], key=lambda row: row["coverage"])
        rows.append(
            (
                (
                    Cell(f"{body['study']['id']} v{body['study']['version']}"),
                    Cell((receipt["provenance"]["source"].get("git_sha") or "")[:10]),
                    Cell(machine_name(receipt["provenance"])),
                    Cell(receipt["provenance"]["finished_utc"]),
                    Cell(f"{low['coverage']:.3f} ({low['wilson_low']:.3f}–{low['wilson_high']:.3f})", low["coverage"]),
                    Cell(f"{low['resampler']} {low['kind']}, n = {low['n']}"),
                    Cell(_name(path), href=_link(out, path)),
                ),
                "",
            )
        )
    return [
        Heading(2, "Coverage audits over commits and machines", "studies-over-commits"),
        _text(
            "Every registered study receipt in the workspace, by study and in commit order, with the machine that "
            "ran it: its lowest delivered coverage (Wilson 95%) and where. The full tables are on the ",
            ("studies page", "studies.html"),
            ".",
        ),
        Table(
            "Registered study receipts over commits and machines",
            ("study", "commit", "machine", "finished (UTC)", "lowest coverage (Wilson 95%)", "at", "receipt"),
            tuple(rows),
            frozenset({4}),
        ),
    ]


def _step_words(position, ratio_steps, time_steps):
    words = []
    if position in ratio_steps:
        words.append("ratio steps here")
    if position in time_steps:
        words.append("time steps here")
    return "; ".join(words)


def _history_link(out, point):
    """A link to the workspace file of ``point``, or none when only git holds it."""
    return _link(out, point.path) if point.path else ""


def _hosts_page(out, history, study_receipts):
    page = Page("hosts.html", "Hosts")
    page.blocks.append(
        _text(
            "Receipts from different machines, merged: per cell, the range across the machines that measured it. "
            "A figure from one machine is that machine's, not the figure."
        )
    )
    machines = {}  # machine -> the provenance of its newest receipt (the versions it runs now)
    for provenance in sorted(
        [point.receipt["provenance"] for point in history] + [receipt["provenance"] for _, receipt in study_receipts],
        key=lambda provenance: provenance["finished_utc"],
    ):
        machines[machine_name(provenance)] = provenance
    page.blocks.append(Heading(2, "Machines"))
    page.blocks.append(
        Table(
            "Every machine with a receipt here",
            ("machine", "platform", "python", "numpy", "numba", "arch"),
            tuple(
                (
                    (
                        Cell(host),
                        Cell(provenance["machine"]["platform"]),
                        Cell(provenance["versions"].get("python", "")),
                        Cell(provenance["versions"].get("numpy", "")),
                        Cell(provenance["versions"].get("numba", "")),
                        Cell(provenance["versions"].get("arch", "")),
                    ),
                    "",
                )
                for host, provenance in sorted(machines.items())
            ),
        )
    )
    newest_full = {}
    for point in history:
        if point.receipt["body"]["profile"] == "full":
            newest_full[point.host] = point
    page.blocks.append(Heading(2, "Speed: peer / engine across machines"))
    ranges = {}
    for host, point in sorted(newest_full.items()):
        for cell, peer, ratio in _peer_rows(point.receipt):
            ranges.setdefault((_cell_label(cell), peer), []).append((host, ratio["median"]))
    page.blocks.append(
        Table(
            "Newest full bench receipt of each machine: the lowest and highest median ratio",
            ("cell", "peer", "machines", "lowest", "highest"),
            tuple(
                (
                    (
                        Cell(label),
                        Cell(peer),
                        Cell(", ".join(host for host, _ in values), len(values)),
                        Cell(f"{min(value for _, value in values):.2f}", min(value for _, value in values)),
                        Cell(f"{max(value for _, value in values):.2f}", max(value for _, value in values)),
                    ),
                    "loss" if min(value for _, value in values) < 1 else "",
                )
                for (label, peer), values in sorted(ranges.items())
            ),
            frozenset({3, 4}),
        )
    )
    page.blocks.append(Heading(2, "Coverage across machines"))
    coverage = {}
    for _path, receipt in study_receipts:
        body = receipt["body"]
        machine = machine_name(receipt["provenance"])
        for row in body["results"]["coverage"]:
            key = (f"{body['study']['id']} v{body['study']['version']}", row["n"], row["resampler"], row["kind"])
            coverage.setdefault(key, {})[machine] = row["coverage"]
    page.blocks.append(
        Table(
            "Newest registered receipt of each study on each machine: delivered coverage",
            ("study", "n", "resampler", "kind", "machines", "lowest", "highest"),
            tuple(
                (
                    (
                        Cell(study),
                        Cell(str(n), n),
                        Cell(resampler),
                        Cell(kind),
                        Cell(", ".join(sorted(by_machine)), len(by_machine)),
                        Cell(f"{min(by_machine.values()):.3f}", min(by_machine.values())),
                        Cell(f"{max(by_machine.values()):.3f}", max(by_machine.values())),
                    ),
                    "",
                )
                for (study, n, resampler, kind), by_machine in sorted(coverage.items())
            ),
            frozenset({1, 5, 6}),
        )
    )
    return page


def _registered_studies(directory):
    """Every registered study receipt in ``directory``, as (path, receipt), oldest first."""
    if not os.path.isdir(directory):
        return []
    return [
        (path, receipt)
        for _key, path, receipt in sorted(receipts.scan(directory, ("study",)), key=lambda item: item[0])
        if receipt["body"]["profile"]["name"] == "registered"
    ]


def _slug(text: str) -> str:
    """``text`` as an id and file-name part: lower-case letters, digits and single dashes."""
    return "-".join("".join(character if character.isalnum() else " " for character in text.lower()).split())


def _newest_studies(registered):
    """The newest receipt of each (study, version, machine) of ``registered``."""
    newest = {}
    for path, receipt in registered:
        body = receipt["body"]
        machine = machine_name(receipt["provenance"])
        newest[(body["study"]["id"], body["study"]["version"], machine)] = (path, receipt)
    return [newest[key] for key in sorted(newest)]


def _studies_page(out, charts, study_receipts, root):
    page = Page("studies.html", "Studies")
    page.blocks.append(
        _text(
            "Each registered study's newest receipt per machine: delivered coverage of the nominal interval with "
            "its Wilson 95% interval over the simulated series, the registered criteria, and the published "
            "figures the protocol cites, with z = (delivered - published) / Monte Carlo SE."
        )
    )
    headlines = []
    for path, receipt in study_receipts:
        body = receipt["body"]
        study, results = body["study"], body["results"]
        machine = machine_name(receipt["provenance"])
        nominal = 1.0 - body["design"]["alpha"]
        anchor = _slug(f"{study['id']}-v{study['version']}-{machine}")
        title = f"{study['id']} v{study['version']}: {study['title']} ({machine})"
        page.blocks.append(Heading(2, title, anchor))
        page.blocks.append(
            _text(
                f"{body['profile']['series']:,} series per n, B = {body['design']['n_bootstraps']}, nominal "
                f"{nominal:.2f}. Receipt ",
                (_name(path), _link(out, path)),
                f", content hash {receipt['content_sha256'][:16]}…; replay it with ",
                (f"bootmark study verify {os.path.relpath(path, root)}", None, True),
                ".",
            )
        )
        rows = results["coverage"]
        chart = f"forest-{anchor}.svg"
        charts[chart] = forest_svg(
            [
                (
                    f"n={row['n']} {row['resampler']} {row['kind']}",
                    row["coverage"],
                    row["wilson_low"],
                    row["wilson_high"],
                )
                for row in rows
            ],
            nominal,
            f"{study['id']} v{study['version']} ({machine})",
        )
        page.blocks.append(
            Figure(
                f"charts/{chart}",
                f"Forest plot of delivered coverage with Wilson 95% intervals for {study['id']} v{study['version']} "
                "against the nominal level; the numbers are in the table below.",
                "Delivered coverage per resampler; dashed: nominal.",
            )
        )
        published = {(entry["resampler"], entry["kind"], entry["n"]): entry for entry in results["published"]}
        page.blocks.append(
            Table(
                f"Coverage of {study['id']} v{study['version']} ({machine})",
                ("n", "resampler", "kind", "coverage", "Wilson 95%", "MC SE", "mean width", "published (z)"),
                tuple(
                    (
                        (
                            Cell(str(row["n"]), row["n"]),
                            Cell(row["resampler"]),
                            Cell(row["kind"]),
                            Cell(f"{row['coverage']:.3f}", row["coverage"]),
                            Cell(f"{row['wilson_low']:.3f}–{row['wilson_high']:.3f}", row["wilson_low"]),
                            Cell(f"{row['mc_se']:.3f}", row["mc_se"]),
                            Cell(f"{row['mean_width']:.4f}", row["mean_width"]),
                            Cell(_published(published.get((row["resampler"], row["kind"], row["n"])))),
                        ),
                        "loss" if row["wilson_high"] < nominal else "",
                    )
                    for row in rows
                ),
                frozenset({0, 3, 4, 5, 6}),
            )
        )
        if results["criteria"]:
            page.blocks.append(
                Bullets(
                    tuple(
                        _text(
                            ("PASS" if verdict["passed"] else "FAIL" if verdict["judged"] else "not run") + ": ",
                            (verdict["statement"], None, True),
                            f" ({verdict['detail']})",
                        )
                        for verdict in results["criteria"]
                    )
                )
            )
        headlines.append((study["id"], study["version"], study["title"], nominal, rows, anchor, machine))
    return page, headlines


def _published(entry):
    if not entry or entry.get("z") is None:
        return ""
    return f"{entry['published']:.3f} (z {entry['z']:+.1f})"


def _memory_page(out, charts, memory_path, memory_receipt):
    page = Page("memory.html", "Memory")
    if memory_receipt is None:
        page.blocks.append(_text("No memory receipt in this workspace yet: run bootmark memory."))
        return page
    body = memory_receipt["body"]
    page.blocks.append(
        _text(
            f"Peak resident memory added by each path against B (method {body['method']}, n = {body['n']}), each "
            "point in a fresh process. From ",
            (_name(memory_path), _link(out, memory_path)),
            ".",
        )
    )
    points = {}
    for point in body["points"]:
        if point["outcome"] == "ok":
            points.setdefault(point["path"], []).append((point["n_bootstraps"], point["added_mib"]))
    charts["memory.svg"] = memory_svg(
        {path: sorted(values) for path, values in points.items()}, "Peak memory against B"
    )
    page.blocks.append(
        Figure(
            "charts/memory.svg",
            "Peak memory added in MiB against B per path; the numbers are in the table below.",
            "MiB added at peak, per path.",
        )
    )
    page.blocks.append(
        Table(
            "Peak memory added (MiB) per path and B; a refused request is named",
            ("path", "B", "MiB added", "outcome"),
            tuple(
                (
                    (
                        Cell(point["path"]),
                        Cell(str(point["n_bootstraps"]), point["n_bootstraps"]),
                        Cell(f"{point['added_mib']:.1f}" if point["outcome"] == "ok" else "", point.get("added_mib")),
                        Cell("ok" if point["outcome"] == "ok" else point["outcome"][:200]),
                    ),
                    "",
                )
                for point in body["points"]
            ),
            frozenset({1, 2}),
        )
    )
    return page


# ---- the entry point ----

MARK = ".bootmark-site"  # in a folder bootmark built: only such a folder is replaced


def build_site(
    out: str, root: str | None = None, links_from: str | None = None, say: Callable[[str], None] | None = None
) -> list[str]:
    """Build the site from the workspace's receipts into ``out``.

    Parameters
    ----------
    out : str
        The output folder. It is created, or replaced if bootmark built it before (it
        holds ``.bootmark-site``); any other non-empty folder is refused.
    root : str, optional
        The workspace root (default: the workspace in use, ``bootmark.core.workspace.find``).
    links_from : str, optional
        The folder the site will be opened from, which its links to receipt files are
        relative to (default: ``out``); a test that rebuilds the committed site in a
        temporary folder names the committed site's folder here.
    say : callable, optional
        Where progress lines go (one per stage of the build).

    Returns
    -------
    list of str
        The files written, relative to ``out``, sorted.

    Raises
    ------
    SiteError
        No full bench receipt to build from, or ``out`` is a folder bootmark did not build.
    """
    root = root or workspace.find().root
    out = os.path.abspath(out)
    base = os.path.abspath(links_from or out)
    if os.path.exists(out) and not os.path.isdir(out):
        raise SiteError(f"{out} is a file, not a folder; name a new or empty folder with --out")
    if os.path.isdir(out) and os.listdir(out) and not os.path.exists(os.path.join(out, MARK)):
        raise SiteError(f"{out} holds files bootmark site did not write; name an empty or new folder with --out")
    history = bench_history(root)
    bench_dir = os.path.join(root, "receipts", "bench")
    # The pages that show "the newest" read a receipt file the reader can open: a receipt
    # that lives only in git history (deleted since) is history, not the scoreboard.
    full = [point for point in history if point.receipt["body"]["profile"] == "full" and point.path]
    if not full:
        raise SiteError(f"no full bench receipt in {bench_dir}; run bootmark bench")
    newest_point = max(full, key=lambda point: (point.finished_utc, point.name))
    newest_path = newest_point.path
    memory_dir = os.path.join(root, "receipts", "memory")
    memory_path = receipts.newest_receipt(memory_dir, "memory") if os.path.isdir(memory_dir) else None
    registered = _registered_studies(os.path.join(root, "receipts", "studies"))
    study_receipts = _newest_studies(registered)
    say = say or (lambda message: None)
    say(
        f"{len(history)} bench receipts (newest full: {newest_point.name}), {len(study_receipts)} study receipts, "
        f"memory: {os.path.basename(memory_path) if memory_path else 'none'}; drawing the charts"
    )

    charts: dict[str, str] = {}
    speed = _speed_page(base, charts, newest_path, newest_point.receipt)
    studies, headlines = _studies_page(base, charts, study_receipts, root)
    pages = [
        _overview_page(base, newest_path, newest_point.receipt, headlines),
        speed,
        _history_page(base, charts, history, root, registered),
        _hosts_page(base, history, study_receipts),
        studies,
        _memory_page(base, charts, memory_path, receipts.load_receipt(memory_path) if memory_path else None),
    ]
    files = {page.filename: _render(page) for page in pages}
    files.update({f"charts/{name}": svg for name, svg in charts.items()})
    for asset in ("site.css", "sort.js"):
        with open(os.path.join(ASSETS, asset), encoding="utf-8") as stream:
            files[asset] = stream.read()
    files[MARK] = "Built by bootmark site; the whole folder is replaced on the next build.\n"
    _write_all(out, files)
    return sorted(files)


def _write_all(out: str, files: dict[str, str]) -> None:
    """Write the site into a sibling folder, then swap it in: a crash leaves the old site
    whole, never half of each."""
    parent = os.path.dirname(out)
    os.makedirs(parent, exist_ok=True)
    # unique names beside ``out``: never a folder of the user's, and never a clash
    staging = tempfile.mkdtemp(prefix=f".{os.path.basename(out)}.building-", dir=parent)
    for relative, text in files.items():
        target = os.path.join(staging, relative)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
    if os.path.isdir(out):
        retired = tempfile.mkdtemp(prefix=f".{os.path.basename(out)}.old-", dir=parent)
        os.rmdir(retired)  # the name only: the old site is moved there
        os.replace(out, retired)
        os.replace(staging, out)  # a crash between the two leaves the old site whole, in ``retired``
        shutil.rmtree(retired)
    else:
        os.replace(staging, out)
