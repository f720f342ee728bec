"""``bootmark site``: a static site built from whatever receipts a workspace holds.

Each page exists only when the workspace holds its receipts, and the overview leads with
what it holds:

* **overview** (``index.html``): what the workspace holds, then one section per kind:
  the suite history (records, machines, every step found), the speed gate (the newest
  run's verdict, runs passed and failed), the audits (claim, code under audit, criteria,
  lowest coverage), the engine grid (wins, ties and LOSSES against each peer, the worst
  cell);
* **suite history** (``suite.html``, from ``bootmark record`` receipts of the workspace and
  its git history): per benchmark, its median over commits, one line per machine, change
  points named by commit, gate runs linked (:mod:`bootmark.site.records`);
* **head to head** (``versus.html``, from records with head-to-head groups): each
  implementation's time over the reference's with its interval, and the reference's wins,
  ties and LOSSES (:mod:`bootmark.site.headtohead`);
* **audits** (``audits.html``, from study receipts): per study and machine the
  claim, the contender's import path, distribution, version and source hash, the process,
  each criterion's verdict, coverage per n with its Wilson interval and a forest plot, and
  the ``bootmark study verify`` command (:mod:`bootmark.site.audits`);
* **gate** (``gate.html``, from gate receipts): every run's verdict, then its cells
  (:mod:`bootmark.site.gates`);
* **speed** (``speed.html``, from a full bench receipt and a full panel receipt): every
  cell of bootmark's engine grid, ratios with intervals and verdicts, every timed sample;
  then the panel cells (``bootmark bench --panel``) against their targets;
* **history** (``history.html``): bench receipts of the workspace and its git history in
  commit order with change points, and study receipts over commits and machines;
* **hosts** (``hosts.html``): per bench cell and per study row, the range across machines;
* **memory** (``memory.html``, from a memory receipt): peak memory against B, per path
  (:mod:`bootmark.site.engine` draws speed, history's grid, hosts and memory).

Every receipt a page links is copied into the site's ``receipts/`` folder, listed in
``receipts/index.txt``, so no link leaves the folder, the site works wherever it is moved
or uploaded, and the next build can fetch its history back from the published copy. Every chart is drawn
from receipts only, with a table beside it holding the same numbers. The same receipts
(and the same git history) give the same bytes: the site can be committed and diffed.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from bootmark.core import receipts, workspace
from bootmark.site import audits as audit_pages
from bootmark.site import engine as engine_pages
from bootmark.site import gates as gate_pages
from bootmark.site import headtohead as versus_pages
from bootmark.site import records as record_pages
from bootmark.site.history import bench_history, commit_positions, receipt_history
from bootmark.site.model import Bullets, Page, Publisher, render, text

__all__ = ["PAGES", "SiteError", "build_site"]

ASSETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "assets")
PAGES = (
    ("index.html", "Overview"),
    ("suite.html", "Suite history"),
    ("versus.html", "Head to head"),
    ("gate.html", "Speed gate"),
    ("audits.html", "Audits"),
    ("speed.html", "Speed grid"),
    ("history.html", "History"),
    ("hosts.html", "Hosts"),
    ("memory.html", "Memory"),
)
"""Every page a site can have, in the order of its navigation bar; a site has those its
workspace holds receipts for."""

MARK = ".bootmark-site"  # in a folder bootmark built: only such a folder is replaced
RECEIPT_INDEX = "receipts/index.txt"
"""The site's list of the receipts it holds, one path (relative to the site) per line."""


class SiteError(RuntimeError):
    """The site cannot be built: no receipt to build it from, or an output folder that is
    not bootmark's to replace."""


def site_name(root: str) -> str:
    """The project a workspace serves, as the site's header names it: ``[project] name`` of
    its ``pyproject.toml``, else the workspace folder's name.

    Parameters
    ----------
    root : str
        The workspace root.

    Returns
    -------
    str
    """
    try:
        with open(os.path.join(root, "pyproject.toml"), "rb") as stream:
            name = tomllib.load(stream).get("project", {}).get("name")
    except (OSError, tomllib.TOMLDecodeError):
        name = None
    return str(name) if name else os.path.basename(os.path.abspath(root))


def build_site(out: str, root: str | None = None, say: Callable[[str], None] | None = None) -> list[str]:
    """Build the site from the workspace's receipts into ``out``.

    Parameters
    ----------
    out : str
        The output folder. It is created, or replaced if bootmark built it before (it
        holds ``.bootmark-site``); any other non-empty folder is refused.
    root : str, optional
        The workspace root (default: the workspace in use, ``bootmark.core.workspace.find``).
    say : callable, optional
        Where progress lines go (one per stage of the build).

    Returns
    -------
    list of str
        The files written, relative to ``out``, sorted: pages, charts, assets, and the
        receipts the pages link under ``receipts/``.

    Raises
    ------
    SiteError
        No receipt to publish, or ``out`` is a file or a folder bootmark did not build.
    """
    root = os.path.abspath(root or workspace.find().root)
    out = os.path.abspath(out)
    if os.path.exists(out) and not os.path.isdir(out):
        raise SiteError(f"{out} is a file, not a folder; name a new or empty folder with --out")
    if os.path.isdir(out) and os.listdir(out) and not os.path.exists(os.path.join(out, MARK)):
        raise SiteError(f"{out} holds files bootmark site did not write; name an empty or new folder with --out")
    folder = os.path.join(root, "receipts")
    history = bench_history(root)
    # The pages that show "the newest" read a receipt file the reader can open: a receipt
    # that lives only in git history (deleted since) is history, not the scoreboard.
    full = [point for point in history if point.receipt["body"]["profile"] == "full" and point.path]
    newest_full = max(full, key=lambda point: (point.finished_utc, point.name)) if full else None
    panel_dir = os.path.join(folder, "panel")
    panel_path = (
        receipts.newest_receipt(panel_dir, "panel", lambda receipt: receipt["body"]["profile"] == "full")
        if os.path.isdir(panel_dir)
        else None
    )
    memory_dir = os.path.join(folder, "memory")
    memory_path = receipts.newest_receipt(memory_dir, "memory") if os.path.isdir(memory_dir) else None
    studies = audit_pages.study_receipts(os.path.join(folder, "studies"))
    audits = audit_pages.newest_audits(studies)
    runs = gate_pages.gate_runs(os.path.join(folder, "gate"))
    records = receipt_history(root, record_pages.FOLDER, "record")
    if not (history or memory_path or studies or runs or records or panel_path):
        raise SiteError(
            f"no receipt to publish in {folder}: a site shows suite records (bootmark record), gate receipts "
            "(bootmark gate), study receipts (bootmark study run) and bench, panel or memory receipts (bootmark "
            "bench, bootmark bench --panel, bootmark memory)"
        )
    say = say or (lambda message: None)
    say(
        f"{len(records)} suite records, {len(runs)} gate runs, {len(audits)} audits, {len(history)} bench receipts"
        + (f" (newest full: {newest_full.name})" if newest_full else "")
        + f", panel: {os.path.basename(panel_path) if panel_path else 'none'}"
        + f", memory: {os.path.basename(memory_path) if memory_path else 'none'}; drawing the charts"
    )

    publish, charts = Publisher(root), {}
    overview = Page("index.html", "Overview")
    overview.blocks.append(_holdings(records, runs, audits, history, newest_full, memory_path, panel_path))
    pages = [overview]
    if records:
        steps = record_pages.suite_steps(records)
        overview.blocks.extend(record_pages.overview_blocks(records, steps))
        pages.append(record_pages.suite_page(publish, charts, records, steps, runs))
    boards = versus_pages.newest_scoreboards(records)
    if boards:
        overview.blocks.extend(versus_pages.overview_blocks(boards))
        pages.append(versus_pages.versus_page(publish, boards))
    if runs:
        overview.blocks.extend(gate_pages.overview_blocks(runs))
        pages.append(gate_pages.gate_page(publish, runs))
    if audits:
        overview.blocks.extend(audit_pages.overview_blocks(audits))
        pages.append(audit_pages.audits_page(publish, charts, audits, root))
    if newest_full:
        overview.blocks.extend(engine_pages.overview_blocks(publish, newest_full.path, newest_full.receipt))
        pages.append(engine_pages.speed_page(publish, charts, newest_full.path, newest_full.receipt))
    if panel_path:
        if not newest_full:
            pages.append(Page("speed.html", "Speed grid"))
        speed = next(page for page in pages if page.filename == "speed.html")
        speed.blocks.extend(engine_pages.panel_blocks(publish, panel_path, receipts.load_receipt(panel_path)))
    if history or studies:
        page = Page("history.html", "History")
        if history:
            page.blocks.extend(engine_pages.history_blocks(publish, charts, history))
        if studies:
            page.blocks.extend(audit_pages.history_blocks(publish, studies, commit_positions(root)))
        pages.append(page)
    if newest_full or audits:
        pages.append(engine_pages.hosts_page(history, [(audit.path, audit.receipt) for audit in audits]))
    if memory_path:
        pages.append(engine_pages.memory_page(publish, charts, memory_path, receipts.load_receipt(memory_path)))

    present = {page.filename for page in pages}
    navigation = [(name, title) for name, title in PAGES if name in present]
    name = site_name(root)
    files: dict[str, str | bytes] = {page.filename: render(page, navigation, name) for page in pages}
    files.update({f"charts/{chart}": svg for chart, svg in charts.items()})
    for relative, source in publish.copies.items():
        with open(source, "rb") as stream:
            files[relative] = stream.read()
    if publish.copies:  # what a later build can fetch back from the published site (docs/site.md)
        files[RECEIPT_INDEX] = "".join(f"{relative}\n" for relative in sorted(publish.copies))
    for asset in ("site.css", "sort.js"):
        with open(os.path.join(ASSETS, asset), encoding="utf-8") as stream:
            files[asset] = stream.read()
    files[MARK] = "Built by bootmark site; the whole folder is replaced on the next build.\n"
    _write_all(out, files)
    return sorted(files)


def _holdings(records, runs, audits, history, newest_full, memory_path, panel_path):
    """The overview's first lines: what the workspace holds, each kind linked to its page."""
    items = []
    if records:
        items.append(
            text(
                (f"{len(records)} suite record{'' if len(records) == 1 else 's'}", "suite.html"),
                " of the project's benchmark suite, commit by commit",
            )
        )
    if audits:
        items.append(
            text(
                (f"{len(audits)} audit{'' if len(audits) == 1 else 's'}", "audits.html"),
                " (study receipts, the newest per study, profile and machine)",
            )
        )
    if runs:
        items.append(
            text(
                (f"{len(runs)} gate run{'' if len(runs) == 1 else 's'}", "gate.html"),
                " of the project's benchmark suite",
            )
        )
    if history:
        items.append(
            text(
                (f"{len(history)} bench receipt{'' if len(history) == 1 else 's'}", "history.html"),
                " of bootmark's engine grid" + (", the newest full grid on the " if newest_full else ""),
                *((("speed page", "speed.html"),) if newest_full else ()),
            )
        )
    if panel_path:
        items.append(text(("a panel receipt", "speed.html#panels"), " (many series in one call, against its targets)"))
    if memory_path:
        items.append(text(("a memory receipt", "memory.html"), " (peak memory against B)"))
    return Bullets(tuple(items))


def _write_all(out: str, files: dict[str, str | bytes]) -> None:
    """Write the site into a sibling folder, then swap it in: a crash leaves the old site
    whole, never half of each."""
    parent = os.path.dirname(out)
    os.makedirs(parent, exist_ok=True)
    # unique names beside ``out``: never a folder of the user's, and never a clash
    staging = tempfile.mkdtemp(prefix=f".{os.path.basename(out)}.building-", dir=parent)
    for relative, content in files.items():
        target = os.path.join(staging, relative)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if isinstance(content, bytes):  # a receipt, copied as it is
            with open(target, "wb") as stream:
                stream.write(content)
        else:
            with open(target, "w", encoding="utf-8", newline="\n") as stream:
                stream.write(content)
    if os.path.isdir(out):
        retired = tempfile.mkdtemp(prefix=f".{os.path.basename(out)}.old-", dir=parent)
        os.rmdir(retired)  # the name only: the old site is moved there
        os.replace(out, retired)
        os.replace(staging, out)  # a crash between the two leaves the old site whole, in ``retired``
        shutil.rmtree(retired)
    else:
        os.replace(staging, out)
