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

__all__ = [
    "BEGIN",
    "BUSY_BEGIN",
    "BUSY_END",
    "END",
    "is_busy",
    "newest",
    "render_busy",
    "render_table",
    "seal_study",
    "update_readme",
]

BEGIN = "<!-- gate-vs-asv:begin (rendered by `python scripts/gate_vs_asv.py --render`; do not edit) -->"
END = "<!-- gate-vs-asv:end -->"
BUSY_BEGIN = "<!-- gate-busy:begin (rendered by `python scripts/gate_vs_asv.py --render`; do not edit) -->"
BUSY_END = "<!-- gate-busy:end -->"
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
    order = _slowed_order(body)
    lines = [BEGIN, *_header(body, order, "tool")]
    for key, label in TOOLS:
        if key not in body:  # studies before 2026-12-05 compared the gate with asv only
            continue
        lines.append(_row(body, key, label.format(**_factors(body[key])) + _version(body, key), order))
    said = _from_line(receipt, "a false alarm is a run that flags any benchmark.")
    lines += ["", said[0].upper() + said[1:], END]
    return "\n".join(lines)


def render_busy(quiet: dict, busy: dict) -> str:
    """The gate on a quiet machine beside the gate with a noisy neighbour (``gatecheck``
    receipts without and with ``body.neighbour``), between :data:`BUSY_BEGIN` and
    :data:`BUSY_END`.

    Parameters
    ----------
    quiet, busy : dict
        Loaded ``gatecheck`` receipts: the newest quiet one and the newest busy one.

    Returns
    -------
    str
        Markdown: one row per condition, in the columns of :func:`render_table`.
    """
    neighbour = busy["body"]["neighbour"]
    order = _slowed_order(busy["body"])
    label = "`bootmark gate --tolerance {factor:g}`"
    lines = [
        BUSY_BEGIN,
        *_header(busy["body"], order, "the gate, on"),
        _row(
            quiet["body"],
            "bootmark_gate",
            "a quiet machine: " + label.format(**_factors(quiet["body"]["bootmark_gate"])),
            order,
        ),
        _row(
            busy["body"],
            "bootmark_gate",
            f"a busy machine, {neighbour['processes']} of its cores burnt by a neighbour: "
            + label.format(**_factors(busy["body"]["bootmark_gate"])),
            order,
        ),
        "",
        "Quiet: " + _from_line(quiet, ""),
        "Busy: " + _from_line(busy, f"the neighbour: {neighbour['description']}." + _instructions_said(busy["body"])),
        BUSY_END,
    ]
    return "\n".join(lines)


def _instructions_said(body: dict) -> str:
    """What the busy runs' receipts say of instructions retired: how busy the gate found the
    runner, and how many cells they decided (empty for receipts from before they existed)."""
    runs = body["bootmark_gate"]["runs"]
    if not any("decided_by_instructions" in run["outcome"] for run in runs):
        return ""
    loads, decided = [], {"null": 0, "slowed": 0}
    for run in runs:
        if run["outcome"].get("other_cpus") is not None:
            loads.append(run["outcome"]["other_cpus"])
        decided[run["comparison"]] += len(run["outcome"].get("decided_by_instructions", ()))
    loads.sort()
    load = (
        f" The gate found other processes using {loads[len(loads) // 2]:.2f} CPUs (median of its runs)" if loads else ""
    )
    return (
        f"{load}; instructions retired (valgrind) decided {decided['null']} cell verdict(s) in the null runs and "
        f"{decided['slowed']} in the slowed runs, wall time the rest."
    )


def _slowed_order(body):
    slowed = body["bootmark_gate"]["repo"]["slowed"]
    return sorted(slowed, key=slowed.get), slowed


def _header(body, order, first):
    names, slowed = order
    head = " | ".join(f"{slowed[name]:.2f}x slower: `{name.split('.')[-1]}`" for name in names)
    return [
        f"| {first} | false alarms, A vs A′ | {head} | runs that could not judge (exit 2) "
        "| wall time per run, median (first) |",
        "|---|---:|" + "---:|" * len(names) + "---:|---:|",
    ]


def _factors(tool):
    return {"factor": tool["factor"], "percent": round((tool["factor"] - 1) * 100, 6)}


def _row(body, key, label, order):
    names, _ = order
    tool = body[key]
    null, slow = tool["null"], tool["slowed"]
    detections = " | ".join(f"{tool['detections'][name]} of {slow['runs']}" for name in names)
    stuck = sum(code not in (0, 1) for code in (*null["exit_codes"], *slow["exit_codes"]))
    walls = [*null["wall_seconds"], *slow["wall_seconds"]]
    return (
        f"| {label} | {tool['false_alarms']} of {null['runs']} | {detections} | "
        f"{stuck} of {null['runs'] + slow['runs']} | {statistics.median(walls):.0f} s "
        f"({tool['wall_seconds_first']:.0f} s) |"
    )


def _from_line(receipt, tail):
    source = receipt["provenance"]["source"]
    return (
        f"from one run on {receipt['provenance']['machine']['cpu_model']} ({receipt['provenance']['started_utc']}, "
        f"bootmark {(source['git_sha'] or 'wheel')[:10]}{' with uncommitted changes' if source.get('dirty') else ''})"
        + (f"; {tail}" if tail else ".")
    )


def _version(body: dict, key: str) -> str:
    version = body.get("tools", {}).get(VERSIONED[key])
    return f" ({VERSIONED[key]} {version})" if version and key != "bootmark_gate" else ""


def is_busy(receipt: dict) -> bool:
    """Whether a ``gatecheck`` receipt was measured beside a noisy neighbour.

    Parameters
    ----------
    receipt : dict
        A loaded ``gatecheck`` receipt.

    Returns
    -------
    bool
        True when its body records a ``neighbour``.
    """
    return "neighbour" in receipt["body"]


def newest(busy: bool, directory: str | None = None) -> str | None:
    """The newest ``gatecheck`` receipt measured with (``busy``) or without a neighbour.

    Parameters
    ----------
    busy : bool
    directory : str, optional
        The receipt folder (default: the workspace's ``receipts/gatecheck``).

    Returns
    -------
    str or None
        Its path.
    """
    folder = workspace.directory_for("gatecheck", directory)
    return receipts.newest_receipt(folder, "gatecheck", lambda receipt: is_busy(receipt) == busy)


def update_readme(readme: str | None = None, directory: str | None = None) -> None:
    """Render the newest quiet receipt's table, and the quiet gate beside the newest busy
    one, into the README's marked sections.

    Parameters
    ----------
    readme : str, optional
        The README (default: the workspace's).
    directory : str, optional
        The receipt folder (default: the workspace's ``receipts/gatecheck``).
    """
    readme = readme or workspace.find().readme
    quiet, busy = newest(False, directory), newest(True, directory)
    quiet = receipts.load_receipt(quiet) if quiet else None
    if quiet is not None:
        rewrite_section(readme, render_table(quiet), BEGIN, END)
    if quiet is not None and busy is not None:
        rewrite_section(readme, render_busy(quiet, receipts.load_receipt(busy)), BUSY_BEGIN, BUSY_END)
