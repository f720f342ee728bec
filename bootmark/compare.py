"""``bootmark compare OLD NEW``: did the engine get slower?

Exit codes: 0 pass, 1 regression, 2 incomparable.

Rules, for cells present in both receipts (matched on method, n, B and sentinel):

1. **Box state.** ``arch`` is pinned external code, so its time measures the machine.
   The drift is the median over matched cells of |NEW arch / OLD arch - 1|. Above
   ``BOX_DRIFT`` (10%) the boxes are incomparable and absolute milliseconds are not
   compared.
2. **Within-run ratios** are compared across any boxes. The engine's relative cost is
   engine_reduce / arch per round (the inverse of the receipt's arch ratio). A cell
   regresses when the whole of NEW's confidence interval for that cost lies above
   OLD's point value times ``tolerance``.
3. **Absolute time**, only on comparable boxes: a sentinel cell (one thread) regresses
   when NEW's median engine_reduce exceeds OLD's times ``tolerance``.

Cells timed on several threads may get a looser ``threaded_tolerance``: their ratio to
the one-thread control also moves when the host of a virtual machine takes a core away
(the gate uses 2, the most one lost core of two can cost).

The verdict is 1 if any cell regresses; otherwise 2 if the boxes are incomparable (the
ratios alone could not show a slow-down common to every path) or if no cell could be
judged at all; otherwise 0. Nothing is judged across different arch, numpy or stream
versions or block lengths, and a cell is not judged across different thread counts.
"""

import statistics

from . import receipts

PASS, REGRESSION, INCOMPARABLE = 0, 1, 2
BOX_DRIFT = 0.10
CONTROL_PATH = "arch"
ENGINE_PATH = "engine_reduce"


class ComparisonError(ValueError):
    """The two receipts cannot be compared (different kinds, nothing in common)."""


def _cells(receipt):
    return {(c["method"], c["n"], c["n_bootstraps"], c["sentinel"]): c for c in receipt["body"]["cells"]}


def box_drift(old, new):
    """Median |NEW arch / OLD arch - 1| over matched cells that timed arch, or None."""
    old_cells, new_cells = _cells(old), _cells(new)
    drifts = [
        abs(new_cells[k]["paths"][CONTROL_PATH]["median_s"] / old_cells[k]["paths"][CONTROL_PATH]["median_s"] - 1.0)
        for k in sorted(set(old_cells) & set(new_cells))
        if CONTROL_PATH in old_cells[k]["paths"] and CONTROL_PATH in new_cells[k]["paths"]
    ]
    return statistics.median(drifts) if drifts else None


SETUP_VERSIONS = ("arch", "numpy", "stream_version")


def setup_differences(old, new):
    """Reasons the two receipts' engine/arch costs cannot be compared: a different
    control (arch), numpy or stream version, or a different block length."""
    reasons = []
    for name in SETUP_VERSIONS:
        before, after = old["provenance"]["versions"].get(name), new["provenance"]["versions"].get(name)
        if before != after:
            reasons.append(f"{name} {before} before, {after} now")
    if old["body"]["block_length"] != new["body"]["block_length"]:
        reasons.append(f"block length {old['body']['block_length']} before, {new['body']['block_length']} now")
    return reasons


def compare(old, new, tolerance=1.25, threaded_tolerance=None):
    """The verdict dict: exit_code, box drift, and one row per matched cell.

    ``threaded_tolerance`` (default: ``tolerance``) applies to cells timed on more than
    one thread, whose ratio to the one-thread ``arch`` control also moves when the host
    takes a core away."""
    threaded_tolerance = tolerance if threaded_tolerance is None else threaded_tolerance
    for receipt in (old, new):
        if receipt.get("kind") != "bench":
            raise ComparisonError(f"only bench receipts can be compared; got a {receipt.get('kind')!r} receipt")
    if not (tolerance > 1 and threaded_tolerance > 1):
        raise ComparisonError(
            f"tolerances must be above 1 (allowed slow-down factors), got {tolerance} and {threaded_tolerance}"
        )
    old_cells, new_cells = _cells(old), _cells(new)
    matched = sorted(set(old_cells) & set(new_cells))
    if not matched:
        raise ComparisonError("the receipts have no cell in common; compare receipts of the same profile")
    setup_changes = setup_differences(old, new)
    drift = box_drift(old, new)
    comparable = drift is not None and drift <= BOX_DRIFT and not setup_changes
    rows = []
    for key in matched:
        before, after = old_cells[key], new_cells[key]
        allowed = tolerance if after["threads"] == 1 else threaded_tolerance
        row = {
            "method": key[0],
            "n": key[1],
            "n_bootstraps": key[2],
            "sentinel": key[3],
            "threads": after["threads"],
            "tolerance": allowed,
            "regressed": False,
            "judged": False,
            "reasons": [],
        }
        if setup_changes:
            row["reasons"].append("not judged: " + "; ".join(setup_changes))
        elif before["threads"] != after["threads"]:
            row["reasons"].append(f"not judged: {before['threads']} threads before, {after['threads']} now")
        elif CONTROL_PATH in before["ratios"] and CONTROL_PATH in after["ratios"]:
            row["judged"] = True
            old_cost = 1.0 / before["ratios"][CONTROL_PATH]["median"]
            new_ratio = after["ratios"][CONTROL_PATH]
            new_low, new_high = 1.0 / new_ratio["ci_high"], 1.0 / new_ratio["ci_low"]
            row.update(old_cost=old_cost, new_cost=1.0 / new_ratio["median"], new_cost_ci=[new_low, new_high])
            if new_low > old_cost * allowed:
                row["regressed"] = True
                row["reasons"].append(
                    f"engine/arch cost CI [{new_low:.3g}, {new_high:.3g}] lies above {old_cost:.3g} x {allowed}"
                )
        else:
            row["reasons"].append(f"not judged: {CONTROL_PATH} was not timed in both receipts")
        old_ms = before["paths"][ENGINE_PATH]["median_s"] * 1e3
        new_ms = after["paths"][ENGINE_PATH]["median_s"] * 1e3
        row.update(old_ms=old_ms, new_ms=new_ms)
        if key[3] and comparable and before["threads"] == after["threads"]:
            row["judged"] = True
            if new_ms > old_ms * allowed:
                row["regressed"] = True
                row["reasons"].append(f"sentinel median {new_ms:.3g} ms > {old_ms:.3g} ms x {allowed}")
        rows.append(row)
    regressed = any(row["regressed"] for row in rows)
    judged = sum(row["judged"] for row in rows)
    # Nothing judged is never a pass: a missing control must not wave a slower engine through.
    exit_code = REGRESSION if regressed else PASS if comparable and judged else INCOMPARABLE
    return {
        "exit_code": exit_code,
        "verdict": {PASS: "pass", REGRESSION: "regression", INCOMPARABLE: "incomparable"}[exit_code],
        "box_drift": drift,
        "box_drift_limit": BOX_DRIFT,
        "comparable_boxes": comparable,
        "tolerance": tolerance,
        "threaded_tolerance": threaded_tolerance,
        "judged_cells": judged,
        "setup_differences": setup_changes,
        "old_sha": old["provenance"]["source"]["git_sha"],
        "new_sha": new["provenance"]["source"]["git_sha"],
        "unmatched_cells": [list(k) for k in sorted(set(old_cells) ^ set(new_cells))],
        "cells": rows,
    }


def compare_paths(old_path, new_path, tolerance=1.25, threaded_tolerance=None):
    """:func:`compare` on two receipt files (each loaded with its schema and hash checked)."""
    return compare(receipts.load_receipt(old_path), receipts.load_receipt(new_path), tolerance, threaded_tolerance)


def render_markdown(verdict):
    """The verdict as a markdown table with a one-line summary."""
    drift = "n/a" if verdict["box_drift"] is None else f"{verdict['box_drift']:.1%}"
    lines = [
        f"**{verdict['verdict'].upper()}** (exit {verdict['exit_code']}); arch drift {drift} "
        f"(limit {verdict['box_drift_limit']:.0%}), tolerance x{verdict['tolerance']} "
        f"(x{verdict['threaded_tolerance']} for multi-thread cells); {verdict['judged_cells']} of "
        f"{len(verdict['cells'])} cells judged" + "".join(f"; {reason}" for reason in verdict["setup_differences"]),
        "",
        "| method | n | B | threads | old ms | new ms | old engine/arch | new engine/arch (95% CI) | regressed |",
        "|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for row in verdict["cells"]:
        cost = (
            f"{row['new_cost']:.3f} ({row['new_cost_ci'][0]:.3f}-{row['new_cost_ci'][1]:.3f})"
            if "new_cost" in row
            else "n/a"
        )
        old_cost = f"{row['old_cost']:.3f}" if "old_cost" in row else "n/a"
        lines.append(
            f"| {row['method']}{' (sentinel)' if row['sentinel'] else ''} | {row['n']} | "
            f"{row['n_bootstraps']} | {row['threads']} | "
            f"{row['old_ms']:.2f} | {row['new_ms']:.2f} | {old_cost} | {cost} | "
            f"{'YES: ' + '; '.join(row['reasons']) if row['regressed'] else 'no'}"
            f"{'' if row['judged'] else ' (not judged)'} |"
        )
    return "\n".join(lines)
