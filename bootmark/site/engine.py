"""The site's pages of bootmark's own engine grid: speed (every cell of the newest full
bench receipt, then the newest full panel receipt's cells), the bench history over
commits, the hosts that measured it, and memory. A workspace without bench, panel or
memory receipts gets none of these pages.

May import: bootmark.bench, bootmark.site.model, bootmark.site.charts, bootmark.site.history.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from bootmark.bench import grid as bench
from bootmark.bench import panel as panels
from bootmark.site.charts import history_svg, memory_svg, samples_svg, speed_svg
from bootmark.site.history import HistoryReceipt, change_points, machine_name
from bootmark.site.model import (
    Cell,
    Figure,
    Heading,
    Page,
    Publisher,
    Table,
    commit_text,
    interval_text,
    ms,
    ratio_cell,
    text,
)

__all__ = ["PEERS", "history_blocks", "hosts_page", "memory_page", "overview_blocks", "panel_blocks", "speed_page"]

PEERS = ("arch", "tsbootstrap")


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


def speed_page(publish: Publisher, charts: dict, newest_path: str, newest: dict) -> Page:
    """The speed page: every peer comparison of the newest full bench receipt, and every
    timed sample of every cell.

    Parameters
    ----------
    publish : Publisher
        Copies the receipts linked into the site.
    charts : dict
        Gains the charts drawn ({file name: SVG}).
    newest_path : str
        The newest full bench receipt's file.
    newest : dict
        That receipt, loaded.

    Returns
    -------
    Page
    """
    page = Page("speed.html", "Speed grid")
    provenance = newest["provenance"]
    page.blocks.append(
        text(
            f"From {os.path.basename(newest_path)} ({machine_name(provenance)}, "
            f"commit {commit_text(provenance)}, {provenance['finished_utc']}): ",
            ("the receipt", publish.link(newest_path)),
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
                    Cell(ms(engine), engine * 1e3),
                    Cell(peer),
                    Cell(ms(cell["paths"][peer]["median_s"]), cell["paths"][peer]["median_s"] * 1e3),
                    ratio_cell(ratio),
                    Cell(verdict, verdict, css=f"verdict-{verdict.lower()}"),
                ),
                "loss" if verdict == "LOSS" else "",
            )
        )
        chart_rows.append((f"{_cell_label(cell)} vs {peer}", ratio["median"], ratio["ci_low"], ratio["ci_high"]))
    losses = sum(1 for cells, css in rows if css == "loss")
    page.blocks.append(
        text(
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
        text("Every timed round of every path, not the median alone: the spread is how far a figure can be trusted.")
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
                            Cell(ms(timing["median_s"]), timing["median_s"] * 1e3),
                            Cell(ms(timing["min_s"]), timing["min_s"] * 1e3),
                            Cell(str(len(timing["samples_s"])), len(timing["samples_s"])),
                            ratio_cell(cell.get("ratios", {}).get(path)),
                        ),
                        "",
                    )
                    for path, timing in cell["paths"].items()
                ),
                frozenset({1, 2, 3, 4}),
            )
        )
    return page


def _seconds(seconds: float) -> Cell:
    return Cell(panels.seconds_text(seconds), seconds)


def _target_cell(ratio: dict | None, met: bool | None) -> Cell:
    if ratio is None:
        return Cell("")
    verdict = "met" if met else "MISSED"
    return Cell(f"{interval_text(ratio)}: {verdict}", ratio["median"], css="" if met else "verdict-loss")


def panel_blocks(publish: Publisher, panel_path: str, receipt: dict) -> list:
    """The speed page's section on panels (``bootmark bench --panel``): per cell, the
    engine's panel call, the loop of its single-series calls, tsbootstrap's panel and the
    floor, with tsbootstrap / panel and panel / floor against the receipt's targets (a
    row that misses one is marked) and loop / panel.

    Parameters
    ----------
    publish : Publisher
        Copies the receipts linked into the site.
    panel_path : str
        The newest full panel receipt's file.
    receipt : dict
        That receipt, loaded.

    Returns
    -------
    list
        Page blocks.
    """
    provenance, body = receipt["provenance"], receipt["body"]
    peer_target, floor_target = panels.targets(receipt)
    rows, misses = [], 0
    for cell in body["cells"]:
        paths, ratios = cell["paths"], cell["ratios"]
        met = panels.target_verdicts(cell, peer_target, floor_target)
        missed = met["floor"] is False or met["tsbootstrap"] is False
        misses += missed
        loop = ratios["loop"]
        loop_verdict = bench.ratio_verdict(loop)
        rows.append(
            (
                (
                    Cell(cell["panel"]),
                    Cell(cell["method"]),
                    Cell(f"{cell['series']:,}", cell["series"]),
                    Cell(panels.lengths_text(cell), cell["n_max"]),
                    Cell(str(cell["n_bootstraps"]), cell["n_bootstraps"]),
                    *(_seconds(paths[p]["median_s"]) if p in paths else Cell("") for p in panels.PATHS),
                    _target_cell(ratios.get("tsbootstrap"), met["tsbootstrap"]),
                    _target_cell(cell["floor_ratios"][panels.NET_FLOOR_RATIO], met["floor"]),
                    ratio_cell(cell["floor_ratios"][panels.ANCHOR_PATH]),
                    Cell(
                        f"{interval_text(loop)}: {loop_verdict}",
                        loop["median"],
                        css="verdict-loss" if loop_verdict == "LOSS" else "",
                    ),
                ),
                "loss" if missed else "",
            )
        )
    shapes = "; ".join(
        f"{name}: {spec['series']:,} series of "
        + (f"n = {spec['n_min']}" if spec["n_min"] == spec["n_max"] else f"n from {spec['n_min']} to {spec['n_max']}")
        for name, spec in ((name, body["panels"][name]) for name in dict.fromkeys(c["panel"] for c in body["cells"]))
    )
    return [
        Heading(2, "Panels: many series in one call", "panels"),
        text(
            f"From {os.path.basename(panel_path)} ({machine_name(provenance)}, commit {commit_text(provenance)}, "
            f"{provenance.get('finished_utc', provenance['started_utc'])}): ",
            ("the receipt", publish.link(panel_path)),
            f". {shapes}; the mean, medians of {body['samples']} interleaved rounds in seconds. ",
            ("panel", None, True),
            " is the engine's one fused panel call, ",
            ("loop", None, True),
            " its single-series call for every series (the same statistics, bit for bit), ",
            ("tsbootstrap", None, True),
            f" its compiled panel (version {provenance['versions'].get('tsbootstrap')}), ",
            ("floor", None, True),
            " the engine's floor summed over the series (one call per distinct length), ",
            ("floor_per_call", None, True),
            " the same calls with one replicate each, their cost beyond the replicates. Targets: tsbootstrap / "
            f"panel at least {peer_target:g}, panel / net floor (floor minus its per-call cost) at most "
            f"{floor_target:g}, on the medians; {misses} of {len(rows)} cells miss one (marked).",
        ),
        Table(
            "Every panel cell of the newest full panel receipt (seconds per call; ratios with 95% intervals)",
            (
                "panel",
                "method",
                "series",
                "n",
                "B",
                "panel s",
                "loop s",
                "tsbootstrap s",
                "floor s",
                "floor per-call s",
                f"tsbootstrap / panel (target ≥ {peer_target:g})",
                f"panel / net floor (target ≤ {floor_target:g})",
                "panel / floor, gross",
                "loop / panel",
            ),
            tuple(rows),
            frozenset({2, 3, 4, 5, 6, 7, 8, 9}),
        ),
    ]


def overview_blocks(publish: Publisher, newest_path: str, newest: dict) -> list:
    """The overview's section on the engine grid: wins, ties and LOSSES against each peer in
    the newest full bench receipt, and its worst cell.

    Parameters
    ----------
    publish : Publisher
        Copies the receipts linked into the site.
    newest_path : str
        The newest full bench receipt's file.
    newest : dict
        That receipt, loaded.

    Returns
    -------
    list
        Page blocks.
    """
    blocks = [
        Heading(2, "The engine against its peers", "engine-grid"),
        text(
            "bootmark's engine against each peer, counted from the newest full bench receipt (",
            (os.path.basename(newest_path), publish.link(newest_path)),
            "). Losses are counted beside wins; every cell is on the ",
            ("speed page", "speed.html"),
            ".",
        ),
    ]
    rows = []
    for peer in PEERS:
        found = [bench.ratio_verdict(ratio) for _cell, name, ratio in _peer_rows(newest) if name == peer]
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
    blocks.append(
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
        blocks.append(
            text(
                "Worst cell: ",
                (f"{_cell_label(cell)} against {peer}", f"speed.html#cell-{_cell_id(cell)}"),
                f", {peer} / engine = {interval_text(ratio)}, {bench.ratio_verdict(ratio)}.",
            )
        )
    return blocks


def history_blocks(publish: Publisher, charts: dict, history: Sequence[HistoryReceipt]) -> list:
    """The history page's section on the engine grid: every bench receipt in commit order,
    then per cell the arch / engine ratio and the engine's time over commits, one line per
    machine, with change points.

    Parameters
    ----------
    publish : Publisher
        Copies the receipts linked into the site.
    charts : dict
        Gains the charts drawn ({file name: SVG}).
    history : sequence of HistoryReceipt
        From ``bootmark.site.history.bench_history``, in commit order.

    Returns
    -------
    list
        Page blocks.
    """
    page = Page("history.html", "History")  # a scratch page: its blocks are the section
    page.blocks.append(Heading(2, "The engine grid over commits", "engine-grid"))
    page.blocks.append(
        text(
            f"{len(history)} bench receipts from the workspace and its git history, in commit order. Per cell, "
            "the arch / engine ratio and the engine's median time; a dotted line marks a change point "
            "(ruptures' PELT on the logarithm, steps of 10% or more clear of the receipts' scatter)."
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
                        Cell(point.name, href=_history_link(publish, point)),
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
        page.blocks.append(Heading(3, title, f"history-{method}-{n}-{replicates}{'-sentinel' if sentinel else ''}"))
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
                            ratio_cell(cell["ratios"]["arch"]),
                            Cell(ms(cell["paths"][bench.ANCHOR_PATH]["median_s"]), times[position]),
                            Cell(_step_words(position, ratio_steps, time_steps) if position in steps else ""),
                            Cell(point.name, href=_history_link(publish, point)),
                        ),
                        "",
                    )
                    for position, (index, point, cell) in enumerate(found)
                ),
                frozenset({0, 3, 4}),
            )
        )
    return page.blocks


def _step_words(position, ratio_steps, time_steps):
    words = []
    if position in ratio_steps:
        words.append("ratio steps here")
    if position in time_steps:
        words.append("time steps here")
    return "; ".join(words)


def _history_link(publish, point):
    """A link to the workspace file of ``point``, or none when only git holds it."""
    return publish.link(point.path) if point.path else ""


def hosts_page(history: Sequence[HistoryReceipt], study_receipts: Sequence[tuple[str, dict]]) -> Page:
    """The hosts page: every machine with a receipt, then per bench cell and per study row
    the range across machines (a section only for the receipts the workspace holds).

    Parameters
    ----------
    history : sequence of HistoryReceipt
        The bench receipts, in commit order.
    study_receipts : sequence of (str, dict)
        The newest study receipt of each study and machine, as (path, receipt).

    Returns
    -------
    Page
    """
    page = Page("hosts.html", "Hosts")
    page.blocks.append(
        text(
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
    if newest_full:
        page.blocks.extend(_speed_across_machines(newest_full))
    if study_receipts:
        page.blocks.extend(_coverage_across_machines(study_receipts))
    return page


def _speed_across_machines(newest_full: dict) -> list:
    blocks = [Heading(2, "Speed: peer / engine across machines")]
    ranges = {}
    for host, point in sorted(newest_full.items()):
        for cell, peer, ratio in _peer_rows(point.receipt):
            ranges.setdefault((_cell_label(cell), peer), []).append((host, ratio["median"]))
    blocks.append(
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
    return blocks


def _coverage_across_machines(study_receipts: Sequence[tuple[str, dict]]) -> list:
    blocks = [Heading(2, "Coverage across machines")]
    coverage = {}
    for _path, receipt in study_receipts:
        body = receipt["body"]
        machine = machine_name(receipt["provenance"])
        for row in body["results"]["coverage"]:
            key = (f"{body['study']['id']} v{body['study']['version']}", row["n"], row["resampler"], row["kind"])
            coverage.setdefault(key, {})[machine] = row["coverage"]
    blocks.append(
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
    return blocks


def memory_page(publish: Publisher, charts: dict, memory_path: str, memory_receipt: dict) -> Page:
    """The memory page: peak memory added against B per path, from the newest memory receipt.

    Parameters
    ----------
    publish : Publisher
        Copies the receipts linked into the site.
    charts : dict
        Gains the charts drawn ({file name: SVG}).
    memory_path : str
        The newest memory receipt's file.
    memory_receipt : dict
        That receipt, loaded.

    Returns
    -------
    Page
    """
    page = Page("memory.html", "Memory")
    body = memory_receipt["body"]
    page.blocks.append(
        text(
            f"Peak resident memory added by each path against B (method {body['method']}, n = {body['n']}), each "
            "point in a fresh process. From ",
            (os.path.basename(memory_path), publish.link(memory_path)),
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
