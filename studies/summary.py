"""Coverage summaries, criterion verdicts and published-figure comparisons of a study's outcomes.

Coverage is hits / trials, a hit being lower <= truth <= upper. Its Monte Carlo SE is
sqrt(p (1 - p) / trials) with p the observed coverage; the 95% interval is Wilson's
score interval. Widths are upper - lower in data units; "SE ratio" is the mean over
series of (bootstrap SE / true SE).
"""

import math
import statistics
from statistics import NormalDist

WILSON_Z = NormalDist().inv_cdf(0.975)


def wilson_interval(hits, trials, z=WILSON_Z):
    """Wilson's score interval for a binomial proportion: (low, high)."""
    p = hits / trials
    denominator = 1.0 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1.0 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def coverage_row(n, resampler, kind, lower, upper, truth):
    """The summary of one (n, resampler, kind) cell from its per-series bounds."""
    trials = len(lower)
    hits = sum(1 for low, high in zip(lower, upper) if low <= truth <= high)
    p = hits / trials
    low, high = wilson_interval(hits, trials)
    widths = [high_ - low_ for low_, high_ in zip(lower, upper)]
    return {"n": n, "resampler": resampler, "kind": kind, "hits": hits, "trials": trials, "coverage": p,
            "wilson_low": low, "wilson_high": high, "mc_se": math.sqrt(p * (1.0 - p) / trials),
            "mean_width": math.fsum(widths) / trials, "median_width": statistics.median(widths)}


def summarise(cells):
    """Coverage rows and per-resampler SE rows for every cell (see ``runner`` for the layout)."""
    coverage, errors = [], []
    for cell in cells:
        truth = cell["truth"]
        for name, columns in cell["resamplers"].items():
            for kind, bounds in columns["intervals"].items():
                coverage.append(coverage_row(cell["n"], name, kind, bounds["lower"], bounds["upper"], truth["value"]))
            ratios = [se / truth["standard_error"] for se in columns["standard_error"]]
            errors.append({"n": cell["n"], "resampler": name, "mean_se_ratio": math.fsum(ratios) / len(ratios),
                           "mean_block_length": math.fsum(columns["block_length"]) / len(ratios)})
    return coverage, errors


def _rows_of(coverage, resampler, kind):
    return sorted((row for row in coverage if row["resampler"] == resampler and row["kind"] == kind),
                  key=lambda row: row["n"])


def judge(criterion, coverage):
    """The verdict of one criterion: {"id", "statement", "passed", "detail", "rationale"}."""
    rows = _rows_of(coverage, criterion.resampler, criterion.kind)
    if criterion.n is not None:
        rows = [row for row in rows if row["n"] == criterion.n]
    if not rows:
        return {"id": criterion.id, "statement": criterion.statement, "passed": False,
                "detail": "not run in this profile", "rationale": criterion.rationale, "judged": False}
    details, passed = [], True
    if criterion.test == "within":
        for row in rows:
            gap = row["coverage"] - criterion.target
            ok = abs(gap) <= criterion.k * row["mc_se"]
            passed &= ok
            details.append(f"n={row['n']}: {row['coverage']:.4f} vs {criterion.target:.3f}, "
                           f"{gap / row['mc_se'] if row['mc_se'] else math.inf:+.2f} mc_se")
    elif criterion.test == "at_least":
        for row in rows:
            ok = row["coverage"] >= criterion.target
            passed &= ok
            details.append(f"n={row['n']}: {row['coverage']:.4f} "
                           f"(Wilson {row['wilson_low']:.4f}-{row['wilson_high']:.4f}) vs >= {criterion.target:.3f}")
    else:
        def step_z(a, b):
            spread = math.sqrt(a["mc_se"] ** 2 + b["mc_se"] ** 2)
            return (b["coverage"] - a["coverage"]) / spread if spread else math.copysign(math.inf, b["coverage"]
                                                                                       - a["coverage"])
        overall = step_z(rows[0], rows[-1])
        steps = [step_z(a, b) for a, b in zip(rows, rows[1:])]
        passed = overall > criterion.k and all(z >= -criterion.k for z in steps)
        details.append(" -> ".join(f"{row['coverage']:.3f}@{row['n']}" for row in rows)
                       + f"; smallest to largest n {overall:+.1f} SE, worst step {min(steps):+.1f} SE")
    return {"id": criterion.id, "statement": criterion.statement, "passed": bool(passed), "detail": "; ".join(details),
            "rationale": criterion.rationale, "judged": True}


def compare_published(figure, coverage):
    """Our coverage beside a published figure, with a z-score.

    The z-score's SE combines our Monte Carlo SE with the published figure's when its
    series count is known (sqrt(v (1 - v) / series)); otherwise ours alone.
    """
    rows = [row for row in _rows_of(coverage, figure.resampler, figure.kind) if row["n"] == figure.n]
    entry = {"resampler": figure.resampler, "kind": figure.kind, "n": figure.n, "published": figure.value,
             "source": figure.source, "published_series": figure.series}
    if not rows:
        return {**entry, "ours": None, "z": None}
    row = rows[0]
    variance = row["mc_se"] ** 2 + (figure.value * (1 - figure.value) / figure.series if figure.series else 0.0)
    return {**entry, "ours": row["coverage"], "z": (row["coverage"] - figure.value) / math.sqrt(variance)
            if variance else None}


def render_table(results, nominal):
    """A plain-text coverage table with criterion verdicts and published figures."""
    lines = [f"{'n':>5}  {'resampler':<30}{'kind':<12}{'coverage':>9}  {'Wilson 95%':>15}{'mc_se':>8}"
             f"{'mean width':>11}{'SE ratio':>9}",]
    ratios = {(row["n"], row["resampler"]): row["mean_se_ratio"] for row in results["standard_errors"]}
    for row in results["coverage"]:
        lines.append(f"{row['n']:>5}  {row['resampler']:<30}{row['kind']:<12}{row['coverage']:>9.3f}  "
                     f"{row['wilson_low']:>7.3f}-{row['wilson_high']:<7.3f}{row['mc_se']:>8.3f}"
                     f"{row['mean_width']:>11.4f}{ratios[(row['n'], row['resampler'])]:>9.3f}")
    lines.append(f"(nominal coverage {nominal:.2f}; SE ratio = mean bootstrap SE / true SE)")
    if results["criteria"]:
        lines += ["", "criteria (registered before the run):"]
        for verdict in results["criteria"]:
            mark = "PASS" if verdict["passed"] else ("FAIL" if verdict["judged"] else "n/a ")
            lines.append(f"  {mark}  {verdict['id']}: {verdict['statement']}  [{verdict['detail']}]")
    if results["published"]:
        lines += ["", "published figures:"]
        for entry in results["published"]:
            ours = "not run" if entry["ours"] is None else f"ours {entry['ours']:.3f}, z = {entry['z']:+.2f}"
            lines.append(f"  {entry['resampler']} {entry['kind']} n={entry['n']}: published "
                         f"{entry['published']:.3f} ({entry['source']}); {ours}")
    return "\n".join(lines)
