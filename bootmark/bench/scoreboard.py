"""``bootmark scoreboard``: README's speed, panel and memory tables, rendered from the newest receipts.

The table sits in README.md between the two marker lines below. ``--readme`` rewrites
exactly that section; ``render_section`` is also what the test compares README against,
so a hand-typed or stale figure fails the suite.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from bootmark.bench import grid as bench
from bootmark.bench import memory
from bootmark.bench import panel as panels
from bootmark.core import receipts, sections, workspace

__all__ = [
    "BEGIN",
    "END",
    "current_section",
    "is_current",
    "newest_full_receipt",
    "newest_panel_receipt",
    "newest_receipts",
    "render_section",
    "replace_section",
    "update_readme",
]

BEGIN = "<!-- scoreboard:begin (rendered by `bootmark scoreboard --readme`; do not edit) -->"
END = "<!-- scoreboard:end -->"
MODEL_SPEED_BAR = 10.0  # issue 6: the fused refit must beat tsbootstrap's residual workflow by 10x


def newest_full_receipt(directory: str | None = None) -> str | None:
    """The newest full-profile bench receipt in ``directory`` (default: the workspace's), or None.

    Parameters
    ----------
    directory : str, optional
        A folder of bench receipts.

    Returns
    -------
    str or None
        The receipt's path, None when there is none.

    Raises
    ------
    bootmark.core.receipts.ReceiptError
        A bench receipt in the folder cannot be loaded.
    """
    return _newest_full("bench", directory)


def _has_model_cells(receipt):
    return any(cell["method"] in bench.MODEL_METHODS for cell in receipt["body"]["cells"])


def newest_panel_receipt(directory: str | None = None) -> str | None:
    """The newest full-profile panel receipt (``bootmark bench --panel``) in ``directory``
    (default: the workspace's ``receipts/panel``), or None.

    Parameters
    ----------
    directory : str, optional
        A folder of panel receipts.

    Returns
    -------
    str or None
        The receipt's path, None when there is none.

    Raises
    ------
    bootmark.core.receipts.ReceiptError
        A panel receipt in the folder cannot be loaded.
    """
    return _newest_full("panel", directory)


def _newest_full(kind, directory):
    # the newest receipt of ``kind`` whose profile is "full", in its folder of the workspace
    return receipts.newest_receipt(
        workspace.directory_for(kind, directory), kind, lambda receipt: receipt["body"]["profile"] == "full"
    )


def newest_receipts(
    bench_directory: str | None = None, memory_directory: str | None = None, panel_directory: str | None = None
) -> tuple[str, str, str | None, str | None, str | None]:
    """(newest full bench receipt, newest memory receipt, newest bench receipt with
    model-based cells or None, newest "intervals" bench receipt or None, newest full panel
    receipt or None), from the workspace's receipt folders unless named;
    FileNotFoundError if either of the first two is missing.

    Parameters
    ----------
    bench_directory, memory_directory, panel_directory : str, optional
        Folders of bench, memory and panel receipts (default: the workspace's).

    Returns
    -------
    tuple
        Five paths, the last three possibly None: the arguments of :func:`render_section`.

    Raises
    ------
    FileNotFoundError
        No full bench receipt or no memory receipt was found.
    bootmark.core.receipts.ReceiptError
        A receipt in the folders cannot be loaded.
    """
    bench_directory = workspace.directory_for("bench", bench_directory)
    speed = newest_full_receipt(bench_directory)
    peak = receipts.newest_receipt(workspace.directory_for("memory", memory_directory), "memory")
    if speed is None or peak is None:
        raise FileNotFoundError(
            f"README's scoreboard needs a full bench receipt and a memory receipt in "
            f"{os.path.dirname(bench_directory)}; run `bootmark bench` and `bootmark memory`, "
            "or render one receipt with `bootmark scoreboard RECEIPT`"
        )
    intervals = receipts.newest_receipt(
        bench_directory, "bench", lambda receipt: receipt["body"]["profile"] == "intervals"
    )
    model = receipts.newest_receipt(bench_directory, "bench", _has_model_cells)
    return speed, peak, model, intervals, newest_panel_receipt(panel_directory)


def _model_part(path):
    """The model-based cells (fused ar_coef refit vs tsbootstrap's residual workflow) and the 10x bar."""
    receipt = receipts.load_receipt(path)
    cells = [cell for cell in receipt["body"]["cells"] if cell["method"] in bench.MODEL_METHODS]
    shown = dict(receipt, body=dict(receipt["body"], cells=cells))
    verdicts = []
    for cell in cells:
        ratio = cell["ratios"].get("tsbootstrap")
        if ratio is None:
            verdicts.append(f"- n = {cell['n']}, B = {cell['n_bootstraps']}: tsbootstrap not timed")
            continue
        met = "meets" if ratio["ci_low"] >= MODEL_SPEED_BAR else "MISSES"
        verdicts.append(
            f"- n = {cell['n']}, B = {cell['n_bootstraps']}: {ratio['median']:.1f}x "
            f"({ratio['ci_low']:.1f}-{ratio['ci_high']:.1f}); {met} the {MODEL_SPEED_BAR:g}x bar"
        )
    provenance = receipt["provenance"]
    return (
        f"### Model-based resampling: fused refit against tsbootstrap\n\nFrom `{_shown(path)}` "
        f"({provenance['started_utc']}, commit {_short_sha(provenance)}"
        f"{' (dirty)' if provenance['source']['dirty'] else ''}): ResidualBootstrap(AR(1), Wild()) on an AR(1) "
        f"path, the slope of every replicate. The engine's fused `ar_coef` refit against tsbootstrap "
        f"{provenance['versions'].get('tsbootstrap')}'s `bootstrap(...)` plus a vectorised OLS slope per path "
        f"(and the engine's own materialize-then-refit). The bar: the fused path at least "
        f"{MODEL_SPEED_BAR:g}x faster than tsbootstrap's in every cell, judged on the interval's lower end."
        f"\n\n{bench.render_table(shown)}\n\n" + "\n".join(verdicts)
    )


def _interval_part(path):
    """What the studentized and calibrated intervals cost against the percentile interval."""
    receipt = receipts.load_receipt(path)
    provenance = receipt["provenance"]
    return (
        f"### Interval cost: studentized and calibrated against percentile\n\nFrom `{_shown(path)}` "
        f"({provenance['started_utc']}, commit {_short_sha(provenance)}"
        f"{' (dirty)' if provenance['source']['dirty'] else ''}): the whole 90% interval for the mean of an "
        f"AR(1) path (phi = {bench.INTERVAL_PHI}, S1-length's n), `MovingBlock('auto')`, B = "
        f"{bench.INTERVAL_REPLICATES}, each kind's median time over the percentile interval's from the same "
        f"{receipt['body']['samples']} interleaved rounds (`bootmark bench --intervals`). The bar: the "
        f"studentized interval within {bench.INTERVAL_COST_BAR:g}x of the percentile interval, judged on the "
        f"ratio's upper end; the calibrated double bootstrap (C = 199) for scale.\n\n"
        f"{bench.render_interval_costs(receipt)}"
    )


def _panel_part(path):
    """The panel cells: the engine's panel call against a loop of its single-series calls,
    tsbootstrap's panel and its floor, each target met or MISSED."""
    receipt = receipts.load_receipt(path)
    provenance, body = receipt["provenance"], receipt["body"]
    shapes = "; ".join(
        f"`{name}`: {spec['series']:,} series of "
        + (
            f"n = {spec['n_min']}"
            if spec["n_min"] == spec["n_max"]
            else f"n from {spec['n_min']} to {spec['n_max']} (default_rng({spec['seed']}).integers("
            f"{spec['n_low']}, {spec['n_high'] + 1}))"
        )
        + f", {spec['observations']:,} observations"
        for name, spec in ((name, body["panels"][name]) for name in dict.fromkeys(c["panel"] for c in body["cells"]))
    )
    skipped = "".join(f" Not timed: {path} ({reason})." for path, reason in body["skipped_paths"].items())
    return (
        f"### Panels: many series in one call\n\nFrom `{_shown(path)}` ({provenance['started_utc']}, commit "
        f"{_short_sha(provenance)}{' (dirty)' if provenance['source']['dirty'] else ''}, "
        f"{provenance['threads']['numba_threads']} Numba threads; tsbootstrap "
        f"{provenance['versions'].get('tsbootstrap')}): `bootmark bench --panel`. Panels {shapes}; "
        f"B = {body['cells'][0]['n_bootstraps']}, the mean, block length {body['block_length']} (stationary: "
        f"mean {body['block_length']}). Per cell, median seconds of {body['samples']} interleaved rounds after "
        f"{body['warmups']} warm-ups: `panel`, the engine's `bootstrap_reduce(Panel, ...)` in one fused pass; "
        "`loop`, the engine's single-series call for every series (same seed, `series_id=s`: the same "
        "statistics bit for bit, checked before timing); `tsbootstrap`, its compiled "
        "`bootstrap_reduce_panel` on flat values and offsets; `floor`, the engine's floor summed over the "
        "series (one call of the single-series floor per distinct length, with B times as many replicates "
        "as series of that length); `floor per-call`, the same calls with one replicate each, what they cost "
        "beyond their replicates (the panel's one call pays that once, the floor once per distinct length). "
        "Ratios are medians of per-round ratios with 95% moving-block bootstrap intervals; the targets are "
        f"tsbootstrap / panel ≥ {body['targets']['tsbootstrap_over_panel_min']:g} and panel / net floor "
        f"(floor minus its per-call cost) ≤ {body['targets']['panel_over_floor_max']:g}, read from the "
        f"medians, MISSED where a cell misses one; the gross ratio is shown beside it.{skipped}\n\n"
        f"{panels.render_table(receipt)}\n\n{panels.render_summary(receipt)}"
    )


def _shown(path):
    """A receipt's path as README shows it (:meth:`bootmark.core.workspace.Workspace.shown`)."""
    return workspace.find().shown(path)


def _short_sha(provenance):
    return (provenance["source"]["git_sha"] or "unknown")[:10]


def _memory_part(path):
    receipt = receipts.load_receipt(path)
    body, provenance = receipt["body"], receipt["provenance"]
    return (
        f"### Peak memory\n\nFrom `{_shown(path)}` "
        f"({provenance['started_utc']}, commit {_short_sha(provenance)}): MiB of resident memory "
        f"each request added at its peak, in a fresh process, for n = {body['n']} and the {body['method']} "
        f"bootstrap (block length {body['block_length']}).\n\n{memory.render_table(receipt)}"
    )


def render_section(
    path: str,
    memory_path: str | None = None,
    model_path: str | None = None,
    interval_path: str | None = None,
    panel_path: str | None = None,
) -> str:
    """The marked section: the speed table of the bench receipt at ``path`` (hardware and
    versions first), the panel cells of ``panel_path`` if given, the memory table of the
    receipt at ``memory_path`` if given, the model-based cells of ``model_path`` and the
    interval costs of ``interval_path`` if given.

    Parameters
    ----------
    path : str
        A full-profile bench receipt.
    memory_path, model_path, interval_path, panel_path : str, optional
        A memory receipt, a bench receipt with model-based cells, an intervals receipt, a
        panel receipt.

    Returns
    -------
    str
        The section, from :data:`BEGIN` to :data:`END`.

    Raises
    ------
    bootmark.core.receipts.ReceiptError
        A receipt cannot be loaded.

    Examples
    --------
    >>> import os
    >>> from bootmark.bench import scoreboard
    >>> from bootmark.core import workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "bench")
    >>> section = scoreboard.render_section(os.path.join(folder, "bench-amd-epyc-20261203T200042Z-bba6c22628.json"))
    >>> section.startswith(scoreboard.BEGIN), section.endswith(scoreboard.END)
    (True, True)
    """
    receipt = receipts.load_receipt(path)
    if receipt["kind"] != "bench":
        raise receipts.ReceiptError(f"{path} is a {receipt['kind']} receipt; the scoreboard renders a bench receipt")
    provenance = receipt["provenance"]
    versions = provenance["versions"]
    peers = ", ".join(f"{name} {versions[name]}" for name in ("arch", "tsbootstrap") if versions.get(name))
    skipped = "".join(f"\n\nNot timed: {path} ({reason})." for path, reason in receipt["body"]["skipped_paths"].items())
    header = (
        f"From `{_shown(path)}`: {provenance['machine']['cpu_model']}, "
        f"{provenance['machine']['cores']} cores, {provenance['threads']['numba_threads']} Numba threads "
        f"({provenance['threads']['threading_layer']}); Python {versions['python']}, numpy {versions['numpy']}, "
        f"numba {versions['numba']}, {peers}; commit {_short_sha(provenance)}"
        f"{' (dirty)' if provenance['source']['dirty'] else ''}, {provenance['started_utc']}. "
        f"Medians of {receipt['body']['samples']} interleaved rounds after {receipt['body']['warmups']} "
        "warm-ups; a ratio is the other path's time over the engine path's (> 1: the engine is faster), with "
        "a 95% moving-block bootstrap interval. LOSS marks an interval wholly below 1."
    )
    full = dict(
        receipt,
        body=dict(
            receipt["body"],
            cells=[cell for cell in receipt["body"]["cells"] if cell["method"] not in bench.MODEL_METHODS],
        ),
    )
    scaling = bench.render_scaling(receipt)
    scaling = (
        (
            f"\n\n### Scaling: cost per resampled element\n\nThe same receipt: nanoseconds per resampled "
            f"element, median time / (n × B), of each path, and the fitted exponent of time against n (per "
            f"replicate) and against B (between the replicate counts timed at one n); it is 1.0 when the cost "
            f"per element is flat. The floors are timed in the same rounds (`bootmark/bench/floors.py`): "
            f"`gather_floor` draws the method's words and sums the data with nothing else, `philox_floor` only "
            f"draws the words, `fill_fresh` writes a fresh B × n array.\n\n{scaling}"
        )
        if scaling
        else ""
    )
    targets = bench.render_targets(receipt)
    scaling += (
        (
            f"\n\n### Speed targets, cell by cell\n\nThe same receipt, each fused-reduce cell against the "
            f"targets bootmark holds itself to, from medians. MISSED is a miss, with its cause read from the "
            f"same cell: for the floor, the per-call cost (`per_call`, the same call with B = 1) or the "
            f"replicates' own time over the floor; for a peer, whether the floor itself reaches the target "
            f'("even the floor is ...": no engine drawing these words could).{_philox_line(receipt)}\n\n{targets}'
        )
        if targets
        else ""
    )
    scaling += f"\n\n{_panel_part(panel_path)}" if panel_path else ""
    peak = f"\n\n{_memory_part(memory_path)}" if memory_path else ""
    model = f"\n\n{_model_part(model_path)}" if model_path else ""
    model += f"\n\n{_interval_part(interval_path)}" if interval_path else ""
    return f"{BEGIN}\n{header}{skipped}\n\n{bench.render_table(full)}{scaling}{peak}{model}\n{END}"


def _philox_line(receipt: dict) -> str:
    """A sentence on the floors' Philox throughput, where the receipt measured it."""
    rates = receipt["body"].get("philox_words_per_ns")
    if not rates:
        return ""
    shown = ", ".join(f"{rate:.2f} on {count} thread{'s' if count != '1' else ''}" for count, rate in rates.items())
    return f" The floors' Philox generator alone makes {shown} (words per ns)."


def replace_section(text: str, section: str, begin: str = BEGIN, end: str = END) -> str:
    """``text`` with its marked scoreboard section replaced by ``section``
    (:func:`bootmark.core.sections.replace_section` with the scoreboard's markers).

    Parameters
    ----------
    text : str
        A Markdown file holding one section between :data:`BEGIN` and :data:`END`.
    section : str
        The new section, markers included (:func:`render_section`).
    begin, end : str, optional
        The markers (default: the scoreboard's).

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
    >>> from bootmark.bench.scoreboard import BEGIN, END, replace_section
    >>> text = f"# README\\n{BEGIN}\\nold\\n{END}\\nmore\\n"
    >>> replace_section(text, f"{BEGIN}\\nnew\\n{END}") == f"# README\\n{BEGIN}\\nnew\\n{END}\\nmore\\n"
    True
    >>> replace_section("no markers", "")
    Traceback (most recent call last):
        ...
    ValueError: the file must hold exactly one scoreboard section between its markers
    """
    return sections.replace_section(text, section, begin, end)


def current_section(text: str) -> str:
    """The marked section of ``text``, markers included.

    Parameters
    ----------
    text : str
        A README holding a section between :data:`BEGIN` and :data:`END`.

    Returns
    -------
    str
        The section.

    Raises
    ------
    ValueError
        A marker is missing.

    Examples
    --------
    >>> from bootmark.bench.scoreboard import BEGIN, END, current_section
    >>> current_section(f"# README\\n{BEGIN}\\ntable\\n{END}\\nmore\\n") == f"{BEGIN}\\ntable\\n{END}"
    True
    """
    return text[text.index(BEGIN) : text.index(END) + len(END)]


def is_current(text: str, paths: Sequence[str | None]) -> bool:
    """Whether README ``text`` holds exactly what the receipts at ``paths`` render.

    Parameters
    ----------
    text : str
        A README with a marked section.
    paths : sequence of str or None
        The arguments of :func:`render_section` (:func:`newest_receipts`).

    Returns
    -------
    bool
        True when the section equals the rendered one.

    Raises
    ------
    ValueError
        A marker is missing from ``text``.
    bootmark.core.receipts.ReceiptError
        A receipt cannot be loaded.
    """
    return current_section(text) == render_section(*paths)


def update_readme(
    readme: str | None = None, directory: str | None = None
) -> tuple[str, str, str | None, str | None, str | None]:
    """Rewrite the workspace README's scoreboard (or ``readme``'s) from the newest
    receipts; return their paths.

    Parameters
    ----------
    readme : str, optional
        The README to rewrite (default: the workspace's).
    directory : str, optional
        The folder of bench receipts (default: the workspace's).

    Returns
    -------
    tuple
        The receipts rendered (:func:`newest_receipts`).

    Raises
    ------
    FileNotFoundError
        A needed receipt is missing.
    ValueError
        The README does not hold exactly one marked section.
    """
    readme = readme or workspace.find().readme
    paths = newest_receipts(directory)
    sections.rewrite_section(readme, render_section(*paths), BEGIN, END)
    return paths
