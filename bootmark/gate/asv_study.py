"""``bootmark gate`` against ``asv continuous``, side by side: the committed receipt of
``scripts/gate_vs_asv.py`` and the README table rendered from it.

The study (docs/gate.md, "Against asv continuous") builds a test repository with six
benchmarks from 50 µs to 200 ms a call, commits A, A′ (no code change) and B (three
benchmarks slowed by 10%, 25% and 50%), and runs each tool on A against A′ (false alarms)
and on A against B (detection), on the same machine, with asv's ``--factor`` equal to the
gate's ``--tolerance``.
"""

from __future__ import annotations

import statistics

from bootmark.core import provenance, receipts, workspace
from bootmark.core.sections import rewrite_section

__all__ = ["BEGIN", "END", "render_table", "seal_study", "update_readme"]

BEGIN = "<!-- gate-vs-asv:begin (rendered by `python scripts/gate_vs_asv.py --render`; do not edit) -->"
END = "<!-- gate-vs-asv:end -->"
TOOLS = (
    ("bootmark_gate", "`bootmark gate --tolerance {factor:g}`"),
    ("asv", "`asv continuous --factor {factor:g}`"),
    ("pytest_benchmark", "pytest-benchmark `--benchmark-compare-fail=median:{percent:g}%`"),
)
VERSIONED = {"bootmark_gate": "bootmark", "asv": "asv", "pytest_benchmark": "pytest-benchmark"}


def seal_study(result: dict, directory: str | None = None) -> str:
    """Seal the study's JSON (``{"bootmark_gate": ..., "asv": ...}``) as a ``gatecheck``
    receipt in ``directory`` (default: the workspace's ``receipts/gatecheck``).

    Parameters
    ----------
    result : dict
        What ``scripts/gate_vs_asv.py --out`` wrote.
    directory : str, optional
        The receipt folder.

    Returns
    -------
    str
        The receipt's path.
    """
    sealed = receipts.seal("gatecheck", provenance.collect(), result)
    return receipts.write_receipt(sealed, workspace.directory_for("gatecheck", directory))


def render_table(receipt: dict) -> str:
    """The side-by-side table of a ``gatecheck`` receipt, between :data:`BEGIN` and :data:`END`.

    Parameters
    ----------
    receipt : dict
        A loaded ``gatecheck`` receipt.

    Returns
    -------
    str
        Markdown: one row per tool (the gate, asv, and pytest-benchmark when the study ran
        it) with its false alarms, its detections per slowed benchmark, its exit codes
        other than 0 and 1, and its wall times.
    """
    body = receipt["body"]
    slowed = body["asv"]["repo"]["slowed"]
    order = sorted(slowed, key=slowed.get)
    head = " | ".join(f"{slowed[name]:.2f}x slower: `{name.split('.')[-1]}`" for name in order)
    lines = [
        BEGIN,
        f"| tool | false alarms, A vs A′ | {head} | runs that could not judge (exit 2) "
        "| wall time per run, median (first) |",
        "|---|---:|" + "---:|" * len(order) + "---:|---:|",
    ]
    for key, label in TOOLS:
        if key not in body:  # studies before 2026-12-05 compared the gate with asv only
            continue
        tool = body[key]
        null, slow = tool["null"], tool["slowed"]
        detections = " | ".join(f"{tool['detections'][name]} of {slow['runs']}" for name in order)
        stuck = sum(code not in (0, 1) for code in (*null["exit_codes"], *slow["exit_codes"]))
        walls = [*null["wall_seconds"], *slow["wall_seconds"]]
        lines.append(
            f"| {label.format(factor=tool['factor'], percent=round((tool['factor'] - 1) * 100, 6))}"
            f"{_version(body, key)} | {tool['false_alarms']} of {null['runs']} | {detections} | "
            f"{stuck} of {null['runs'] + slow['runs']} | {statistics.median(walls):.0f} s "
            f"({tool['wall_seconds_first']:.0f} s) |"
        )
    source = receipt["provenance"]["source"]
    lines += [
        "",
        f"From one run on {receipt['provenance']['machine']['cpu_model']} ({receipt['provenance']['started_utc']}, "
        f"bootmark {(source['git_sha'] or 'wheel')[:10]}{' with uncommitted changes' if source.get('dirty') else ''}); "
        "a false alarm is a run that flags any benchmark.",
        END,
    ]
    return "\n".join(lines)


def _version(body: dict, key: str) -> str:
    version = body.get("tools", {}).get(VERSIONED[key])
    return f" ({VERSIONED[key]} {version})" if version and key != "bootmark_gate" else ""


def update_readme(receipt_path: str, readme: str | None = None) -> None:
    """Render the table of the receipt at ``receipt_path`` into the README's marked section.

    Parameters
    ----------
    receipt_path : str
        A ``gatecheck`` receipt.
    readme : str, optional
        The README (default: the workspace's).
    """
    readme = readme or workspace.find().readme
    rewrite_section(readme, render_table(receipts.load_receipt(receipt_path)), BEGIN, END)
