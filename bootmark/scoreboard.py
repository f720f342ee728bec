"""``bootmark scoreboard``: README's speed and memory tables, rendered from the newest receipts.

The table sits in README.md between the two marker lines below. ``--readme`` rewrites
exactly that section; ``render_section`` is also what the test compares README against,
so a hand-typed or stale figure fails the suite.
"""

import os

from . import bench, memory, receipts, workspace

BEGIN = "<!-- scoreboard:begin (rendered by `bootmark scoreboard --readme`; do not edit) -->"
END = "<!-- scoreboard:end -->"
MODEL_SPEED_BAR = 10.0  # issue 6: the fused refit must beat tsbootstrap's residual workflow by 10x


def newest_full_receipt(directory=None):
    """The newest full-profile bench receipt in ``directory`` (default: the workspace's), or None."""
    return receipts.newest_receipt(
        workspace.directory_for("bench", directory), "bench", lambda receipt: receipt["body"]["profile"] == "full"
    )


def _has_model_cells(receipt):
    return any(cell["method"] in bench.MODEL_METHODS for cell in receipt["body"]["cells"])


def newest_receipts(bench_directory=None, memory_directory=None):
    """(newest full bench receipt, newest memory receipt, newest bench receipt with
    model-based cells or None, newest "intervals" bench receipt or None), from the
    workspace's receipt folders unless named; FileNotFoundError if either of the first
    two is missing."""
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
    return speed, peak, receipts.newest_receipt(bench_directory, "bench", _has_model_cells), intervals


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


def _shown(path):
    """A receipt's path as README shows it (:meth:`bootmark.workspace.Workspace.shown`)."""
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


def render_section(path, memory_path=None, model_path=None, interval_path=None):
    """The marked section: the speed table of the bench receipt at ``path`` (hardware and
    versions first), the memory table of the receipt at ``memory_path`` if given, the
    model-based cells of ``model_path`` and the interval costs of ``interval_path`` if
    given."""
    receipt = receipts.load_receipt(path)
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
            f"per element is flat. The floors are timed in the same rounds (`bootmark/floors.py`): "
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
            f"targets bootmark holds itself to, from medians. A peer target is judged only where the floor "
            f"reaches it (the peer's time over the gather floor's): where even the floor cannot, the cell says "
            f"so rather than count a miss no code could mend. MISSED is a miss.\n\n{targets}"
        )
        if targets
        else ""
    )
    peak = f"\n\n{_memory_part(memory_path)}" if memory_path else ""
    model = f"\n\n{_model_part(model_path)}" if model_path else ""
    model += f"\n\n{_interval_part(interval_path)}" if interval_path else ""
    return f"{BEGIN}\n{header}{skipped}\n\n{bench.render_table(full)}{scaling}{peak}{model}\n{END}"


def replace_section(text, section):
    """``text`` with its marked section replaced by ``section``."""
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        raise ValueError("README.md must hold exactly one scoreboard section between its markers")
    return text[: text.index(BEGIN)] + section + text[text.index(END) + len(END) :]


def current_section(text):
    return text[text.index(BEGIN) : text.index(END) + len(END)]


def is_current(text, paths):
    """Whether README ``text`` holds exactly what the receipts at ``paths`` render."""
    return current_section(text) == render_section(*paths)


def update_readme(readme=None, directory=None):
    """Rewrite the workspace README's scoreboard (or ``readme``'s) from the newest
    receipts; return their paths."""
    readme = readme or workspace.find().readme
    paths = newest_receipts(directory)
    with open(readme) as stream:
        text = stream.read()
    updated = replace_section(text, render_section(*paths))
    temporary = readme + ".partial"
    with open(temporary, "w") as stream:
        stream.write(updated)
    os.replace(temporary, readme)
    return paths
