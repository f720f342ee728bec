"""``bootmark scoreboard``: README's speed table, rendered from the newest receipt.

The table sits in README.md between the two marker lines below. ``--readme`` rewrites
exactly that section; ``render_section`` is also what the test compares README against,
so a hand-typed or stale figure fails the suite.
"""

import os

from . import bench, receipts

BEGIN = "<!-- scoreboard:begin (rendered by `bootmark scoreboard --readme`; do not edit) -->"
END = "<!-- scoreboard:end -->"
README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")


def newest_full_receipt(directory=bench.RECEIPT_DIRECTORY):
    return receipts.newest_receipt(directory, "bench", lambda receipt: receipt["body"]["profile"] == "full")


def render_section(path):
    """The marked section for the receipt at ``path``: hardware, versions, then the table."""
    receipt = receipts.load_receipt(path)
    provenance = receipt["provenance"]
    versions = provenance["versions"]
    peers = ", ".join(f"{name} {versions[name]}" for name in ("arch", "tsbootstrap") if versions.get(name))
    skipped = "".join(f"\n\nNot timed: {path} ({reason})." for path, reason in receipt["body"]["skipped_paths"].items())
    header = (f"From `receipts/bench/{os.path.basename(path)}`: {provenance['machine']['cpu_model']}, "
              f"{provenance['machine']['cores']} cores, {provenance['threads']['numba_threads']} Numba threads "
              f"({provenance['threads']['threading_layer']}); Python {versions['python']}, numpy {versions['numpy']}, "
              f"numba {versions['numba']}, {peers}; commit {provenance['source']['git_sha'][:10]}"
              f"{' (dirty)' if provenance['source']['dirty'] else ''}, {provenance['started_utc']}. "
              f"Medians of {receipt['body']['samples']} interleaved rounds after {receipt['body']['warmups']} "
              "warm-ups; a ratio is the other path's time over the engine path's (> 1: the engine is faster), with "
              "a 95% moving-block bootstrap interval. LOSS marks an interval wholly below 1.")
    return f"{BEGIN}\n{header}{skipped}\n\n{bench.render_table(receipt)}\n{END}"


def replace_section(text, section):
    """``text`` with its marked section replaced by ``section``."""
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        raise ValueError("README.md must hold exactly one scoreboard section between its markers")
    return text[:text.index(BEGIN)] + section + text[text.index(END) + len(END):]


def current_section(text):
    return text[text.index(BEGIN):text.index(END) + len(END)]


def update_readme(readme=README, directory=bench.RECEIPT_DIRECTORY):
    """Rewrite README's scoreboard from the newest full receipt; return the receipt path."""
    path = newest_full_receipt(directory)
    if path is None:
        raise FileNotFoundError(f"no full-profile bench receipt in {directory}; run `bootmark bench` first")
    with open(readme) as stream:
        text = stream.read()
    updated = replace_section(text, render_section(path))
    temporary = readme + ".partial"
    with open(temporary, "w") as stream:
        stream.write(updated)
    os.replace(temporary, readme)
    return path
