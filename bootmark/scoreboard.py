"""``bootmark scoreboard``: README's speed and memory tables, rendered from the newest receipts.

The table sits in README.md between the two marker lines below. ``--readme`` rewrites
exactly that section; ``render_section`` is also what the test compares README against,
so a hand-typed or stale figure fails the suite.
"""

import os

from . import bench, memory, provenance, receipts

BEGIN = "<!-- scoreboard:begin (rendered by `bootmark scoreboard --readme`; do not edit) -->"
END = "<!-- scoreboard:end -->"
README = os.path.join(provenance.PROJECT_ROOT, "README.md")


def newest_full_receipt(directory=bench.RECEIPT_DIRECTORY):
    return receipts.newest_receipt(directory, "bench", lambda receipt: receipt["body"]["profile"] == "full")


def newest_receipts(bench_directory=bench.RECEIPT_DIRECTORY, memory_directory=memory.RECEIPT_DIRECTORY):
    """(newest full bench receipt, newest memory receipt); FileNotFoundError if either is missing."""
    speed = newest_full_receipt(bench_directory)
    peak = receipts.newest_receipt(memory_directory, "memory")
    if speed is None or peak is None:
        raise FileNotFoundError("README's scoreboard needs a full bench receipt and a memory receipt; run "
                                "`bootmark bench` and `bootmark memory` and commit their receipts")
    return speed, peak


def _short_sha(provenance):
    return (provenance["source"]["git_sha"] or "unknown")[:10]


def _memory_part(path):
    receipt = receipts.load_receipt(path)
    body, provenance = receipt["body"], receipt["provenance"]
    return (f"### Peak memory\n\nFrom `receipts/memory/{os.path.basename(path)}` "
            f"({provenance['started_utc']}, commit {_short_sha(provenance)}): MiB of resident memory "
            f"each request added at its peak, in a fresh process, for n = {body['n']} and the {body['method']} "
            f"bootstrap (block length {body['block_length']}).\n\n{memory.render_table(receipt)}")


def render_section(path, memory_path):
    """The marked section: the speed table of the bench receipt at ``path`` (hardware and
    versions first), then the memory table of the receipt at ``memory_path``."""
    receipt = receipts.load_receipt(path)
    provenance = receipt["provenance"]
    versions = provenance["versions"]
    peers = ", ".join(f"{name} {versions[name]}" for name in ("arch", "tsbootstrap") if versions.get(name))
    skipped = "".join(f"\n\nNot timed: {path} ({reason})." for path, reason in receipt["body"]["skipped_paths"].items())
    header = (f"From `receipts/bench/{os.path.basename(path)}`: {provenance['machine']['cpu_model']}, "
              f"{provenance['machine']['cores']} cores, {provenance['threads']['numba_threads']} Numba threads "
              f"({provenance['threads']['threading_layer']}); Python {versions['python']}, numpy {versions['numpy']}, "
              f"numba {versions['numba']}, {peers}; commit {_short_sha(provenance)}"
              f"{' (dirty)' if provenance['source']['dirty'] else ''}, {provenance['started_utc']}. "
              f"Medians of {receipt['body']['samples']} interleaved rounds after {receipt['body']['warmups']} "
              "warm-ups; a ratio is the other path's time over the engine path's (> 1: the engine is faster), with "
              "a 95% moving-block bootstrap interval. LOSS marks an interval wholly below 1.")
    return f"{BEGIN}\n{header}{skipped}\n\n{bench.render_table(receipt)}\n\n{_memory_part(memory_path)}\n{END}"


def replace_section(text, section):
    """``text`` with its marked section replaced by ``section``."""
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        raise ValueError("README.md must hold exactly one scoreboard section between its markers")
    return text[:text.index(BEGIN)] + section + text[text.index(END) + len(END):]


def current_section(text):
    return text[text.index(BEGIN):text.index(END) + len(END)]


def is_current(text, paths):
    """Whether README ``text`` holds exactly what the receipts at ``paths`` render."""
    return current_section(text) == render_section(*paths)


def update_readme(readme=README, directory=bench.RECEIPT_DIRECTORY):
    """Rewrite README's scoreboard from the newest receipts; return their paths."""
    paths = newest_receipts(directory)
    with open(readme) as stream:
        text = stream.read()
    updated = replace_section(text, render_section(*paths))
    temporary = readme + ".partial"
    with open(temporary, "w") as stream:
        stream.write(updated)
    os.replace(temporary, readme)
    return paths
