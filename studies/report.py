"""README's coverage section and the coverage charts, rendered from study receipts.

For each registered study, the newest receipt of its registered profile (by start time)
is rendered: a table of delivered coverage with Wilson 95% intervals, mean width and SE
ratio, the criteria verdicts and the published figures beside ours, and a chart of
nominal vs delivered coverage (``<workspace>/receipts/studies/charts/<ID>-v<version>.png``). No
figure is typed by hand.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from bootmark.core import receipts, workspace

from . import protocol as protocols
from .measures import CONDITIONAL_COVERAGES, FORECAST_MEASURES
from .summary import POINT_KIND, miss_split, shown_once

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

__all__ = [
    "BEGIN",
    "END",
    "chart_path",
    "current_section",
    "newest_study_receipts",
    "render_section",
    "replace_section",
    "update_readme",
]

BEGIN = "<!-- coverage:begin (rendered by `bootmark study render --readme`; do not edit) -->"
END = "<!-- coverage:end -->"


def newest_study_receipts(
    directory: str | None = None, profile: str = "registered"
) -> dict[tuple[str, int], tuple[str, dict[str, Any]]]:
    """{(study id, version): (path, receipt)} of the newest receipt of each study in
    ``profile``, from one scan of ``directory`` (default: the workspace's study receipts);
    a process study has one profile.

    Parameters
    ----------
    directory : str, optional
        Folder of study receipts; default the workspace's.
    profile : str, default "registered"
        The profile whose receipts count.

    Returns
    -------
    dict
        (study id, version) -> (path, loaded receipt), newest by start time.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     newest_study_receipts(folder)
    {}
    """
    newest = {}
    directory = workspace.directory_for("study", directory)
    for _key, path, receipt in sorted(receipts.scan(directory, ("study", "process")), key=lambda item: item[0]):
        body = receipt["body"]
        if body.get("profile", {"name": profile})["name"] == profile:
            newest[(body["study"]["id"], body["study"]["version"])] = (path, receipt)
    return newest


def chart_path(body: Mapping[str, Any], directory: str | None = None) -> str:
    """Where the chart of the study receipt ``body`` goes (default: the workspace's charts).

    Parameters
    ----------
    body : dict
        A study receipt's body (its ``study`` id and version are read).
    directory : str, optional
        Folder of charts; default the workspace's ``receipts/studies/charts``.

    Returns
    -------
    str
        ``<directory>/<ID>-v<version>.png``.

    Examples
    --------
    >>> chart_path({"study": {"id": "S1", "version": 1}}, "charts")
    'charts/S1-v1.png'
    """
    return os.path.join(directory or workspace.find().charts, f"{body['study']['id']}-v{body['study']['version']}.png")


def draw_chart(body: Mapping[str, Any], path: str) -> str:
    """Delivered coverage with Wilson 95% bars against the nominal level; one panel per
    study (a forecast study: one panel per n, coverage against the horizon)."""
    # heavy (matplotlib): loaded only when a chart is drawn
    import matplotlib

    matplotlib.use("Agg")
    # heavy (matplotlib): loaded only when a chart is drawn
    import matplotlib.pyplot as plt

    if body["design"].get("target") == "forecast":
        return _draw_forecast_chart(plt, body, path)
    rows = body["results"]["coverage"]
    nominal = 1.0 - body["design"]["alpha"]
    several_n = len(body["profile"]["n"]) > 1
    figure, axes = plt.subplots(figsize=(9, 4.8 if several_n else 0.45 * len(rows) + 1.6))
    if several_n:
        for resampler, kind in dict.fromkeys((row["resampler"], row["kind"]) for row in rows):
            line = [row for row in rows if (row["resampler"], row["kind"]) == (resampler, kind)]
            xs = [row["n"] for row in line]
            ys = [row["coverage"] for row in line]
            errors = [
                [row["coverage"] - row["wilson_low"] for row in line],
                [row["wilson_high"] - row["coverage"] for row in line],
            ]
            axes.errorbar(xs, ys, yerr=errors, marker="o", capsize=3, label=f"{resampler} {kind}")
        axes.set_xscale("log")
        axes.set_xticks(body["profile"]["n"], [str(n) for n in body["profile"]["n"]])
        axes.minorticks_off()
        axes.set_xlabel("series length n")
        axes.set_ylabel("delivered coverage")
        axes.axhline(nominal, color="black", linestyle="--", linewidth=1, label=f"nominal {nominal:.2f}")
        axes.legend(fontsize=7, loc="center right")
    else:
        labels = [f"{row['resampler']} {row['kind']}" for row in rows]
        positions = list(range(len(rows)))[::-1]
        errors = [
            [row["coverage"] - row["wilson_low"] for row in rows],
            [row["wilson_high"] - row["coverage"] for row in rows],
        ]
        axes.errorbar(
            [row["coverage"] for row in rows],
            positions,
            xerr=errors,
            fmt="o",
            capsize=3,
            label="delivered (Wilson 95%)",
        )
        published = {(entry["resampler"], entry["kind"]): entry["published"] for entry in body["results"]["published"]}
        marks = [
            (published[(row["resampler"], row["kind"])], y)
            for row, y in zip(rows, positions, strict=True)
            if (row["resampler"], row["kind"]) in published
        ]
        if marks:
            axes.plot(*zip(*marks, strict=True), "x", color="tab:red", label="published")
            axes.legend(fontsize=7, loc="lower left")
        axes.set_yticks(positions, labels, fontsize=8)
        axes.axvline(nominal, color="black", linestyle="--", linewidth=1)
        axes.set_xlabel(f"delivered coverage (nominal {nominal:.2f}, dashed); bars: Wilson 95%")
    return _save(figure, axes, body, f"{rows[0]['trials']:,} series per cell", path)


def _draw_forecast_chart(plt, body, path):
    """One panel per n: each forecaster's coverage (Wilson 95% bars) against the horizon."""
    rows = body["results"]["coverage"]
    nominal = 1.0 - body["design"]["alpha"]
    ns = body["profile"]["n"]
    figure, panels = plt.subplots(1, len(ns), figsize=(3.4 * len(ns) + 1.0, 4.2), sharey=True, squeeze=False)
    for axes, n in zip(panels[0], ns, strict=True):
        for resampler in dict.fromkeys(row["resampler"] for row in rows):
            line = [row for row in rows if row["resampler"] == resampler and row["n"] == n]
            steps = [int(row["kind"][1:]) for row in line]
            errors = [
                [row["coverage"] - row["wilson_low"] for row in line],
                [row["wilson_high"] - row["coverage"] for row in line],
            ]
            axes.errorbar(steps, [row["coverage"] for row in line], yerr=errors, marker="o", capsize=3, label=resampler)
        axes.axhline(nominal, color="black", linestyle="--", linewidth=1)
        axes.set_xticks(range(1, body["design"]["horizon"] + 1))
        axes.set_xlabel(f"steps ahead (n = {n})")
        axes.grid(alpha=0.3)
    panels[0][0].set_ylabel(f"delivered coverage (nominal {nominal:.2f}, dashed)")
    panels[0][-1].legend(fontsize=7, loc="lower right")
    study = body["study"]
    figure.suptitle(f"{study['id']} v{study['version']}: {rows[0]['trials']:,} series per cell", fontsize=10)
    figure.tight_layout()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    figure.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(figure)
    return path


def _save(figure, axes, body, size, path):
    """Title, grid and a PNG without a timestamp, so a re-render of the same receipt is identical."""
    # heavy (matplotlib): loaded only when a chart is drawn
    import matplotlib.pyplot as plt

    axes.set_title(f"{body['study']['id']} v{body['study']['version']}: {body['study']['title']} ({size})", fontsize=9)
    axes.grid(alpha=0.3)
    figure.tight_layout()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    figure.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(figure)
    return path


def render_study(body: Mapping[str, Any], receipt_path: str | None, chart_link: str | None = None) -> str:
    """Markdown for one study receipt (a forecast study's: :func:`render_forecast`)."""
    if body["design"].get("target") == "forecast":
        return render_forecast(body, receipt_path, chart_link)
    study, results = body["study"], body["results"]
    nominal = 1.0 - body["design"]["alpha"]
    ratios = {(row["n"], row["resampler"]): row for row in results["standard_errors"]}
    published = {(entry["resampler"], entry["kind"], entry["n"]): entry for entry in results["published"]}
    sha = receipt_path and os.path.basename(receipt_path)
    lines = [
        f"#### {study['id']} v{study['version']}: {study['title']}",
        "",
        f"{body['profile']['series']:,} series per n, B = {body['design']['n_bootstraps']}, nominal "
        f"{nominal:.0%}; receipt `{sha}`" + (f"; [chart]({chart_link})" if chart_link else "") + ".",
        "",
        "| n | resampler | kind | coverage | Wilson 95% | MC SE | misses below / above | mean width "
        "| SE / true SE | block length | published (z) |",
        "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    misses = miss_split(results["cells"])
    for row in results["coverage"]:
        error = ratios[(row["n"], row["resampler"])]
        below, above = misses[(row["n"], row["resampler"], row["kind"])]
        figure = published.get((row["resampler"], row["kind"], row["n"]))
        cited = f"{figure['published']:.3f} ({figure['z']:+.1f})" if figure and figure["z"] is not None else ""
        lines.append(
            f"| {row['n']} | {row['resampler']} | {row['kind']} | {row['coverage']:.3f} | "
            f"{row['wilson_low']:.3f}-{row['wilson_high']:.3f} | {row['mc_se']:.3f} | "
            f"{below:.3f} / {above:.3f} | "
            f"{row['mean_width']:.4f} | {_figure(error['mean_se_ratio'], '.3f')} | "
            f"{_figure(error['mean_block_length'], '.1f')} | "
            f"{cited} |"
        )
    if "performance" in results:
        lines += ["", *_point_measures_table(results["performance"])]
    lines += _verdict_lines(results["criteria"])
    return "\n".join(lines)


def render_forecast(body: Mapping[str, Any], receipt_path: str | None, chart_link: str | None = None) -> str:
    """Markdown for one forecast study receipt: per n, resampler and horizon, the coverage
    of the realised value with its Wilson interval and MC SE, the misses below and above,
    the mean width, the interval (Winkler) score and the coverage in each third of the last
    observed value's distribution (each with its MC SE); then the criteria's verdicts."""
    study, results = body["study"], body["results"]
    design = body["design"]
    found = {(row["n"], row["resampler"], row["kind"], row["measure"]): row for row in results["performance"]}
    lines = [
        f"#### {study['id']} v{study['version']}: {study['title']}",
        "",
        f"Prediction intervals 1 to {design['horizon']} steps ahead, {body['profile']['series']:,} series per n, "
        f"nominal {1.0 - design['alpha']:.0%}; receipt `{receipt_path and os.path.basename(receipt_path)}`"
        + (f"; [chart]({chart_link})" if chart_link else "")
        + ".",
        "",
        "| n | resampler | h | coverage | Wilson 95% | MC SE | misses below / above | mean width | Winkler score "
        "| coverage by third of the last value (low / mid / high) |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in results["coverage"]:
        measure = {name: found.get((row["n"], row["resampler"], row["kind"], name)) for name in FORECAST_MEASURES}
        thirds = " / ".join(_with_error(measure[name], ".3f") for name in CONDITIONAL_COVERAGES)
        lines.append(
            f"| {row['n']} | {row['resampler']} | {row['kind'][1:]} | {row['coverage']:.3f} | "
            f"{row['wilson_low']:.3f}-{row['wilson_high']:.3f} | {row['mc_se']:.3f} | "
            f"{measure['miss_below']['estimate']:.3f} / {measure['miss_above']['estimate']:.3f} | "
            f"{_with_error(measure['mean_width'], '.4f')} | {_with_error(measure['winkler'], '.4f')} | {thirds} |"
        )
    lines += _verdict_lines(results["criteria"])
    return "\n".join(lines)


def _verdict_lines(criteria: Sequence[Mapping[str, Any]]) -> list[str]:
    """Markdown lines: every registered criterion's verdict (none: no lines)."""
    if not criteria:
        return []
    lines = ["", "Registered criteria:", ""]
    for verdict in criteria:
        mark = "PASS" if verdict["passed"] else ("FAIL" if verdict["judged"] else "not run")
        lines.append(f"- **{mark}** `{verdict['statement']}`: {verdict['detail']}")
    return lines


def _figure(value: float | None, spec: str) -> str:
    """A table cell: ``value`` formatted, or a dash when it is undefined."""
    return "-" if value is None else format(value, spec)


def _with_error(row: Mapping[str, Any] | None, spec: str) -> str:
    """A table cell: a measure's estimate and, in brackets, its Monte Carlo SE."""
    if row is None or row["estimate"] is None:
        return "-"
    spread = "" if row["mc_se"] is None else f" ({row['mc_se']:{spec}})"
    return f"{row['estimate']:{spec}}{spread}"


ESTIMATE_COLUMNS = (("bias", "bias"), ("empirical_se", "empirical SE"), ("mse", "MSE"))
SE_COLUMNS = (("model_se", "model SE"), ("relative_error_modse", "relative error of model SE"))


def _point_measures_table(performance: Sequence[Mapping[str, Any]]) -> list[str]:
    """Markdown lines: the measures of the point estimate, once per n for the resamplers
    that share them (:func:`~bootmark.studies.summary.shown_once`), then those of each
    resampler's SE, each with its Monte Carlo SE in brackets (docs/measures.md)."""
    rows = [row for row in shown_once(performance) if row["kind"] == POINT_KIND]
    found = {(row["n"], row["resampler"], row["measure"]): row for row in rows}
    lines = [
        "Point estimate and SE (ADEMP measures, Monte Carlo SE in brackets; [docs/measures.md](docs/measures.md)):",
        "",
    ]
    for label, columns in (("point estimate of", ESTIMATE_COLUMNS), ("SE of", SE_COLUMNS)):
        keys = list(dict.fromkeys((n, r) for n, r, measure in found if measure == columns[0][0]))
        lines += [
            f"| n | {label} | " + " | ".join(title for _, title in columns) + " |",
            "|---:|---|" + "---:|" * len(columns),
        ]
        for n, resampler in keys:
            cells = [_with_error(found.get((n, resampler, measure)), ".4f") for measure, _ in columns]
            lines.append(f"| {n} | {resampler} | " + " | ".join(cells) + " |")
        lines.append("")
    return lines[:-1]


def draw_process_chart(body: Mapping[str, Any], path: str) -> str:
    """The multiplier autocorrelation with MC error bars, the triangular law and the published figures."""
    # heavy (matplotlib): loaded only when a chart is drawn
    import matplotlib

    matplotlib.use("Agg")
    # heavy (matplotlib): loaded only when a chart is drawn
    import matplotlib.pyplot as plt

    rows, size = body["results"]["lags"], body["design"]["block_length"]
    figure, axes = plt.subplots(figsize=(7, 3.6))
    horizon = max(row["lag"] for row in rows) + 2
    axes.plot(
        [0, size, horizon], [1.0, 0.0, 0.0], color="black", linestyle="--", linewidth=1, label=f"max(0, 1 - h/{size})"
    )
    axes.errorbar(
        [row["lag"] for row in rows],
        [row["estimate"] for row in rows],
        yerr=[3 * row["mc_se"] for row in rows],
        fmt="o",
        capsize=3,
        label="bootmark (3 MC SE)",
    )
    published = [(row["lag"], row["published"]) for row in rows if row["published"] is not None]
    if published:
        axes.plot(*zip(*published, strict=True), "x", color="tab:red", label="published")
    axes.set_xlabel("lag h")
    axes.set_ylabel("autocorrelation")
    axes.legend(fontsize=7)
    return _save(figure, axes, body, f"{body['design']['replicates']:,} replicates", path)


def render_process(body: Mapping[str, Any], receipt_path: str | None, chart_link: str | None = None) -> str:
    """Markdown for one process-study receipt (S3)."""
    study, design = body["study"], body["design"]
    lines = [
        f"#### {study['id']} v{study['version']}: {study['title']}",
        "",
        f"{design['distribution'].title()} multipliers, L = {design['block_length']}, {design['replicates']:,} "
        f"replicates of {design['length']} residuals; receipt `{receipt_path and os.path.basename(receipt_path)}`"
        + (f"; [chart]({chart_link})" if chart_link else "")
        + ".",
        "",
        "| lag | autocorrelation | MC SE | law max(0, 1 - h/L) | z (law) | published | z (published) |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in body["results"]["lags"]:
        published = ("", "") if row["published"] is None else (f"{row['published']:.3f}", f"{row['z_published']:+.1f}")
        lines.append(
            f"| {row['lag']} | {row['estimate']:.4f} | {row['mc_se']:.4f} | {row['law']:.3f} | "
            f"{row['z_law']:+.1f} | {published[0]} | {published[1]} |"
        )
    lines += ["", "Registered criteria:", ""]
    for verdict in body["results"]["criteria"]:
        lines.append(f"- **{'PASS' if verdict['passed'] else 'FAIL'}** `{verdict['statement']}`: {verdict['detail']}")
    return "\n".join(lines)


def render_section(
    directory: str | None = None, chart_directory: str | None = None, draw: bool = True
) -> tuple[str, list[str]]:
    """(markdown, receipt paths) for every registered study that has a receipt; receipts
    and charts default to the workspace's folders, and links are relative to its root.

    Parameters
    ----------
    directory : str, optional
        Folder of study receipts; default the workspace's.
    chart_directory : str, optional
        Folder of charts; default the workspace's.
    draw : bool, default True
        Draw (or redraw) each study's chart (PNG, matplotlib).

    Returns
    -------
    markdown : str
        One section per study, newest receipt of its registered profile.
    paths : list of str
        The receipts rendered.

    Raises
    ------
    FileNotFoundError
        No registered study has a receipt in ``directory``.
    """
    parts, paths = [], []
    found = workspace.find()
    directory = workspace.directory_for("study", directory)
    newest = newest_study_receipts(directory)
    for protocol in protocols.registered():
        if (protocol.id, protocol.version) not in newest:
            continue
        path, receipt = newest[(protocol.id, protocol.version)]
        body = receipt["body"]
        chart = chart_path(body, chart_directory)
        process = "profile" not in body
        if draw:
            (draw_process_chart if process else draw_chart)(body, chart)
        parts.append((render_process if process else render_study)(body, found.shown(path), found.shown(chart)))
        paths.append(path)
    if not parts:
        raise FileNotFoundError(f"no study receipt in {directory}; run `bootmark study run S1` first")
    return "\n\n".join(parts), paths


def replace_section(text: str, section: str) -> str:
    """``text`` with the part between :data:`BEGIN` and :data:`END` replaced by ``section``.

    Parameters
    ----------
    text : str
        A README's text, holding both markers.
    section : str
        The new coverage section (markdown).

    Returns
    -------
    str
        The new text; what lies outside the markers is unchanged.

    Raises
    ------
    ValueError
        ``text`` lacks a marker.

    See Also
    --------
    current_section : The section between the markers.

    Examples
    --------
    >>> text = f"intro\\n{BEGIN}\\nold\\n{END}\\nrest"
    >>> current_section(replace_section(text, "new"))
    'new'
    >>> replace_section("no markers", "new")
    Traceback (most recent call last):
        ...
    ValueError: the file has no coverage markers (...)
    """
    if BEGIN not in text or END not in text:
        raise ValueError(f"the file has no coverage markers ({BEGIN} ... {END})")
    head, rest = text.split(BEGIN, 1)
    return head + BEGIN + "\n" + section + "\n" + END + rest.split(END, 1)[1]


def current_section(text: str) -> str:
    """The coverage section of ``text``: what lies between :data:`BEGIN` and :data:`END`,
    without the newlines at its ends.

    Raises
    ------
    IndexError
        ``text`` lacks a marker.

    Examples
    --------
    >>> current_section(f"intro\\n{BEGIN}\\nold\\n{END}\\nrest")
    'old'
    """
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n")


def update_readme(readme: str | None = None) -> list[str]:
    """Rewrite the workspace README's coverage section (or ``readme``'s) and the charts;
    return the receipts used.

    Parameters
    ----------
    readme : str, optional
        The markdown file to rewrite; default the workspace's README.

    Returns
    -------
    list of str
        The receipts rendered (:func:`render_section`).

    Raises
    ------
    FileNotFoundError
        No study receipt, or no ``readme``.
    ValueError
        ``readme`` has no coverage markers.
    """
    readme = readme or workspace.find().readme
    section, paths = render_section()
    with open(readme, encoding="utf-8") as stream:
        text = stream.read()
    try:
        updated = replace_section(text, section)
    except ValueError as error:
        raise ValueError(f"{readme}: {error}") from None
    with open(readme, "w", encoding="utf-8") as stream:
        stream.write(updated)
    return paths
