"""The charts of ``bootmark site``: matplotlib figures saved as SVG text, drawn from
receipts only (every mark is a number a receipt holds), and byte-identical for the same
receipts (a fixed ``svg.hashsalt``, no date, text kept as text, clip paths numbered in
order rather than named by a hash of their float bounds).

Each function returns the SVG as a string; the page shows the same numbers in a table
beside it, the chart's text equivalent.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence

__all__ = ["forest_svg", "history_svg", "memory_svg", "samples_svg", "speed_svg"]

# Colours that keep 3:1 contrast on white and read apart in the common colour blindnesses
# (Okabe and Ito's palette).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
RC = {
    "svg.hashsalt": "bootmark-site",
    "svg.fonttype": "none",
    "font.size": 9,
    "axes.grid": True,
    "grid.alpha": 0.3,
}


def _figure(width, height):
    # heavy (matplotlib): loaded only when a site is built
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height))


def _svg(figure) -> str:
    """The figure as SVG text (called inside :func:`_styled`, whose settings make it
    reproducible)."""
    buffer = io.StringIO()
    figure.tight_layout()
    figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    return numbered_clips(buffer.getvalue())


# matplotlib names a clip path by a hash of its rectangle's bounds at full float precision,
# so a last-bit change of the layout (another numpy or kiwisolver build) renames every clip
# path of an otherwise identical chart.
_CLIP_ID = re.compile(r'(?<=id=")p[0-9a-f]{10}(?=")|(?<=url\(#)p[0-9a-f]{10}(?=\))')


def numbered_clips(svg: str) -> str:
    """``svg`` with matplotlib's hashed clip-path ids (``p`` and ten hex digits) renamed
    ``clip1``, ``clip2``, ... in order of first appearance, references included.

    Examples
    --------
    >>> numbered_clips('<g clip-path="url(#p0123456789)"/><clipPath id="p0123456789"/><a id="pabcdefabcd"/>')
    '<g clip-path="url(#clip1)"/><clipPath id="clip1"/><a id="clip2"/>'
    """
    names: dict[str, str] = {}
    return _CLIP_ID.sub(lambda found: names.setdefault(found.group(), f"clip{len(names) + 1}"), svg)


def _styled(draw):
    """Run ``draw`` under the site's rc settings, so colours and fonts apply as it draws."""
    # heavy (matplotlib): loaded only when a site is built
    import matplotlib
    from cycler import cycler  # matplotlib's own dependency, loaded with it

    with matplotlib.rc_context(dict(RC, **{"axes.prop_cycle": cycler(color=PALETTE)})):
        return draw()


def samples_svg(paths: Mapping[str, Sequence[float]], title: str) -> str:
    """Every timed sample of each path of one cell, in milliseconds, on a log axis, with
    the median marked (not the median alone: the spread is the point).

    Parameters
    ----------
    paths : Mapping of str to sequence of float
        Path name to its samples in seconds.
    title : str

    Returns
    -------
    str
        The chart as SVG text.
    """

    def draw():
        figure = _figure(6.4, 0.45 * len(paths) + 1.3)
        axes = figure.add_subplot()
        names = list(paths)
        for row, name in enumerate(names):
            samples = [value * 1e3 for value in paths[name]]
            axes.plot(samples, [row] * len(samples), "o", alpha=0.55, markersize=4, color=PALETTE[row % len(PALETTE)])
            middle = sorted(samples)[len(samples) // 2]
            axes.plot([middle], [row], "|", markersize=16, color="black")
        axes.set_yticks(range(len(names)), names)
        axes.set_ylim(-0.7, len(names) - 0.3)
        axes.set_xscale("log")
        axes.set_xlabel("ms per call (each dot one timed round; bar: median)")
        axes.set_title(title)
        return _svg(figure)

    return _styled(draw)


def speed_svg(rows: Sequence[tuple[str, float, float, float]], title: str) -> str:
    """Ratios peer time / engine time with their 95% intervals, one row per cell; the line
    at 1 divides wins (right) from losses (left).

    Parameters
    ----------
    rows : sequence of (label, median, low, high)
    title : str

    Returns
    -------
    str
        The chart as SVG text.
    """

    return _intervals_svg(
        rows,
        1.0,
        lambda low, high: high < 1,
        "time ratio (95% interval); right of 1: engine faster; orange: LOSS",
        title,
        log_scale=True,
        row_height=0.28,
    )


def _intervals_svg(rows, reference, flagged, xlabel, title, log_scale, row_height):
    """One row per (label, point, low, high): the point with its interval (orange where
    ``flagged(low, high)``) against a dashed line at ``reference``."""

    def draw():
        figure = _figure(7.0, row_height * len(rows) + 1.4)
        axes = figure.add_subplot()
        positions = list(range(len(rows)))[::-1]
        for (_label, point, low, high), y in zip(rows, positions, strict=True):
            # a percentile interval need not hold its point: clamp, never raise
            axes.errorbar(
                [point],
                [y],
                xerr=[[max(point - low, 0.0)], [max(high - point, 0.0)]],
                fmt="o",
                capsize=2,
                color=PALETTE[1] if flagged(low, high) else PALETTE[0],
            )
        axes.axvline(reference, color="black", linewidth=1, linestyle="--")
        if log_scale:
            axes.set_xscale("log")
        axes.set_ylim(-0.7, len(rows) - 0.3)
        axes.set_yticks(positions, [row[0] for row in rows], fontsize=7)
        axes.set_xlabel(xlabel)
        axes.set_title(title)
        return _svg(figure)

    return _styled(draw)


def history_svg(
    labels: Sequence[str], series: Mapping[str, Sequence[float | None]], steps: Mapping[str, Sequence[int]], ylabel: str
) -> str:
    """Values over receipts in commit order, one line per series, with each detected
    change point marked by a vertical line at the first point of the new level.

    Parameters
    ----------
    labels : sequence of str
        The x tick labels (short commits).
    series : Mapping of str to sequence of float or None
        A value per label (None: not measured in that receipt).
    steps : Mapping of str to sequence of int
        Change points per series (indices into ``labels``).
    ylabel : str

    Returns
    -------
    str
        The chart as SVG text.
    """

    def draw():
        figure = _figure(7.0, 3.0)
        axes = figure.add_subplot()
        for index, (name, values) in enumerate(series.items()):
            colour = PALETTE[index % len(PALETTE)]
            points = [(x, value) for x, value in enumerate(values) if value is not None]
            if points:
                axes.plot(*zip(*points, strict=True), "o-", label=name, color=colour, markersize=4)
            for step in steps.get(name, ()):
                axes.axvline(step - 0.5, color=colour, linestyle=":", linewidth=1.5)
        axes.set_xticks(range(len(labels)), labels, rotation=60, fontsize=7)
        axes.set_yscale("log")
        axes.set_ylabel(ylabel)
        axes.set_xlabel("receipt, in commit order (dotted: change point)")
        if series:
            axes.legend(fontsize=7)
        return _svg(figure)

    return _styled(draw)


def forest_svg(rows: Sequence[tuple[str, float, float, float]], nominal: float, title: str) -> str:
    """A forest plot of delivered coverage with Wilson 95% intervals against the nominal
    level (dashed).

    Parameters
    ----------
    rows : sequence of (label, coverage, wilson_low, wilson_high)
    nominal : float
    title : str

    Returns
    -------
    str
        The chart as SVG text.
    """

    return _intervals_svg(
        rows,
        nominal,
        lambda low, high: high < nominal or low > nominal,
        f"delivered coverage, Wilson 95% (nominal {nominal:.2f}, dashed; orange: interval misses it)",
        title,
        log_scale=False,
        row_height=0.3,
    )


def memory_svg(points: Mapping[str, Sequence[tuple[int, float]]], title: str) -> str:
    """Peak memory added (MiB) against B, one line per path.

    Parameters
    ----------
    points : Mapping of str to sequence of (B, MiB)
    title : str

    Returns
    -------
    str
        The chart as SVG text.
    """

    def draw():
        figure = _figure(6.4, 3.2)
        axes = figure.add_subplot()
        for name, values in points.items():
            if values:
                axes.plot(*zip(*values, strict=True), "o-", label=name, markersize=4)
        axes.set_xscale("log")
        axes.set_xlabel("replicates B")
        axes.set_ylabel("MiB added at peak")
        axes.set_title(title)
        if any(points.values()):
            axes.legend(fontsize=7)
        return _svg(figure)

    return _styled(draw)
