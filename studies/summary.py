"""Coverage summaries, criterion verdicts and published-figure comparisons of a study's outcomes.

Criteria on the bootstrap SE read the per-series outcomes: ``se_ratio_within`` (mean
of bootstrap SE / true SE within k combined MC SE of a target) and ``se_below`` (the
resampler's SE below ``other``'s in at least a fraction ``target`` of the series).

Coverage is hits / trials, a hit being lower <= truth <= upper. Its Monte Carlo SE is
sqrt(p (1 - p) / trials) with p the observed coverage; the 95% interval is Wilson's
score interval. Widths are upper - lower in data units; "SE ratio" is the mean over
series of (bootstrap SE / true SE).

A *cell* is the per-series outcome of one n, as :func:`bootmark.studies.runner.results_of`
stores it in a receipt: ``{"n", "truth": {"value", "standard_error", ...}, "resamplers":
{name: {"point", "standard_error", "block_length", "intervals": {kind: {"lower",
"upper"}}}}}``, each leaf a list with one entry per series.

Examples
--------
>>> low, high = wilson_interval(90, 100)
>>> round(low, 4), round(high, 4)
(0.8256, 0.9448)
"""

from __future__ import annotations

import math
import statistics
from itertools import pairwise
from statistics import NormalDist
from typing import TYPE_CHECKING

from .measures import POINT_KIND, interval_measures, point_measures

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

    from .protocol import Criterion, PublishedFigure

__all__ = [
    "ESTIMATE_MEASURES",
    "EVERY_RESAMPLER",
    "POINT_KIND",
    "compare_published",
    "coverage_row",
    "judge",
    "miss_split",
    "performance",
    "render_measures",
    "render_table",
    "render_verdicts",
    "shipped_citation",
    "shown_once",
    "summarise",
    "wilson_interval",
]

WILSON_Z = NormalDist().inv_cdf(0.975)
SE_TESTS = ("se_ratio_within", "se_below")


def wilson_interval(hits: int, trials: int, z: float = WILSON_Z) -> tuple[float, float]:
    """Wilson's score interval for a binomial proportion: (low, high).

    Parameters
    ----------
    hits : int
        Successes (intervals that covered the truth), 0 <= hits <= trials.
    trials : int
        Trials (series), >= 1.
    z : float, default WILSON_Z
        Standard normal quantile; the default, Phi^-1(0.975), gives a 95% interval.

    Returns
    -------
    tuple of float
        (low, high), clipped to [0, 1].

    Raises
    ------
    ZeroDivisionError
        ``trials`` is 0.

    Examples
    --------
    >>> low, high = wilson_interval(90, 100)
    >>> round(low, 4), round(high, 4)
    (0.8256, 0.9448)
    """
    p = hits / trials
    denominator = 1.0 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1.0 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def coverage_row(
    n: int, resampler: str, kind: str, lower: Sequence[float], upper: Sequence[float], truth: float | Sequence[float]
) -> dict[str, Any]:
    """The summary of one (n, resampler, kind) cell from its per-series bounds.

    Parameters
    ----------
    n : int
        Series length of the cell.
    resampler : str
        The resampler's name in the protocol.
    kind : str
        The interval kind (e.g. ``"percentile"``).
    lower, upper : sequence of float
        Per-series interval bounds, in data units; same length, >= 1.
    truth : float or sequence of float
        The true value, in data units; or, for prediction intervals, each series' own
        realised value.

    Returns
    -------
    dict
        ``n``, ``resampler``, ``kind``, ``hits``, ``trials``, ``coverage`` (hits / trials),
        ``wilson_low`` and ``wilson_high`` (:func:`wilson_interval`), ``mc_se``
        (sqrt(p (1 - p) / trials)), ``mean_width`` and ``median_width`` (data units).

    Raises
    ------
    ValueError
        ``lower`` and ``upper`` differ in length.

    Examples
    --------
    >>> row = coverage_row(200, "engine.IID", "percentile", [-1.0, -0.5, 0.2, -0.3], [1.0, 0.4, 0.9, 0.1], 0.0)
    >>> row["hits"], row["trials"], row["coverage"], row["mean_width"], row["median_width"]
    (3, 4, 0.75, 1.0, 0.8)
    """
    trials = len(lower)
    truths = [truth] * trials if isinstance(truth, (int, float)) else list(truth)
    hits = sum(1 for low, high, value in zip(lower, upper, truths, strict=True) if low <= value <= high)
    p = hits / trials
    low, high = wilson_interval(hits, trials)
    widths = [high_ - low_ for low_, high_ in zip(lower, upper, strict=True)]
    return {
        "n": n,
        "resampler": resampler,
        "kind": kind,
        "hits": hits,
        "trials": trials,
        "coverage": p,
        "wilson_low": low,
        "wilson_high": high,
        "mc_se": math.sqrt(p * (1.0 - p) / trials),
        "mean_width": math.fsum(widths) / trials,
        "median_width": statistics.median(widths),
    }


def miss_split(cells: Iterable[Mapping[str, Any]]) -> dict[tuple[int, str, str], tuple[float, float]]:
    """{(n, resampler, kind): (share of intervals wholly below the truth, share wholly
    above)}: which side the misses fall on. Even shares mean a spread error (too narrow
    on both sides); lopsided ones a centring error (bias or skew). Read from the
    per-series bounds, so any receipt gives it without its summary changing.

    Parameters
    ----------
    cells : iterable of dict
        The cells of a study receipt (see the module docstring).

    Returns
    -------
    dict
        (n, resampler, kind) -> (share below, share above), each in [0, 1].

    Examples
    --------
    >>> bounds = {"lower": [-1.0, -0.5, 0.2, -0.3], "upper": [1.0, 0.4, 0.9, 0.1]}
    >>> cell = {"n": 200, "truth": {"value": 0.0}, "resamplers": {"engine.IID": {"intervals": {"percentile": bounds}}}}
    >>> miss_split([cell])
    {(200, 'engine.IID', 'percentile'): (0.0, 0.25)}
    """
    split = {}
    for cell in cells:
        truth = cell["truth"]["value"]
        for name, outcome in cell["resamplers"].items():
            for kind, bounds in outcome["intervals"].items():
                trials = len(bounds["upper"])
                below = sum(1 for high in bounds["upper"] if high < truth) / trials
                above = sum(1 for low in bounds["lower"] if low > truth) / trials
                split[(cell["n"], name, kind)] = (below, above)
    return split


def summarise(cells: Iterable[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Coverage rows and per-resampler SE rows for every cell (see ``runner`` for the layout).

    Parameters
    ----------
    cells : iterable of dict
        The cells of a study receipt (see the module docstring).

    Returns
    -------
    coverage : list of dict
        One :func:`coverage_row` per (n, resampler, kind).
    standard_errors : list of dict
        One row per (n, resampler): ``n``, ``resampler``, ``mean_se_ratio`` (mean of
        bootstrap SE / true SE) and ``mean_block_length``.

    See Also
    --------
    bootmark.studies.runner.results_of : Builds the cells and calls this.

    Examples
    --------
    >>> bounds = {"lower": [-1.0, -0.5, 0.2, -0.3], "upper": [1.0, 0.4, 0.9, 0.1]}
    >>> columns = {"standard_error": [0.4, 0.5, 0.6, 0.5], "block_length": [1.0] * 4}
    >>> columns["intervals"] = {"percentile": bounds}
    >>> cell = {"n": 200, "truth": {"value": 0.0, "standard_error": 0.5}, "resamplers": {"engine.IID": columns}}
    >>> coverage, errors = summarise([cell])
    >>> coverage[0]["coverage"], errors
    (0.75, [{'n': 200, 'resampler': 'engine.IID', 'mean_se_ratio': 1.0, 'mean_block_length': 1.0}])
    """
    coverage, errors = [], []
    for cell in cells:
        truth = cell["truth"]
        for name, columns in cell["resamplers"].items():
            for kind, bounds in columns["intervals"].items():
                coverage.append(coverage_row(cell["n"], name, kind, bounds["lower"], bounds["upper"], truth["value"]))
            ratios = _ratios(columns["standard_error"], truth["standard_error"])
            lengths = columns["block_length"]
            errors.append(
                {
                    "n": cell["n"],
                    "resampler": name,
                    "mean_se_ratio": None if ratios is None else math.fsum(ratios) / len(ratios),
                    "mean_block_length": None if None in lengths else math.fsum(lengths) / len(lengths),
                }
            )
    return coverage, errors


def _ratios(standard_errors, true_se):
    """Per-series bootstrap SE / true SE; None when the true SE or any bootstrap SE is
    unknown (a process or contender of a user's that gives none)."""
    if true_se is None or None in standard_errors:
        return None
    return [se / true_se for se in standard_errors]


def performance(cells: Iterable[Mapping[str, Any]], null: float | None = None) -> list[dict[str, Any]]:
    """The ADEMP performance measures (:mod:`bootmark.studies.measures`) of every cell, as
    tidy rows ``{"n", "resampler", "kind", "measure", "estimate", "mc_se"}``.

    The measures of the point estimate and its SE (bias, relative bias, empirical SE,
    model SE, its relative error, MSE) are filed under kind ``"point"``; the interval
    measures (coverage, bias-eliminated coverage, rejection of ``null``, mean and median
    width) under each interval kind. Undefined figures are None.

    Parameters
    ----------
    cells : iterable of dict
        The cells of a study receipt (see the module docstring).
    null : float, optional
        The value whose rejection rate is reported (the protocol's ``[design] null``).

    Returns
    -------
    list of dict
        One row per (n, resampler, kind, measure), in cell, resampler and kind order.

    Examples
    --------
    >>> bounds = {"lower": [-1.0, -0.5, 0.2, -0.3], "upper": [1.0, 0.4, 0.9, 0.1]}
    >>> columns = {"point": [0.0, -0.05, 0.55, -0.1], "standard_error": [0.4, 0.5, 0.6, 0.5]}
    >>> columns.update(block_length=[1.0] * 4, intervals={"percentile": bounds})
    >>> cell = {"n": 200, "truth": {"value": 0.0, "standard_error": 0.5}, "resamplers": {"engine.IID": columns}}
    >>> rows = performance([cell])
    >>> [(row["kind"], row["measure"]) for row in rows][:2]
    [('point', 'bias'), ('point', 'relative_bias')]
    >>> coverage = next(row for row in rows if row["measure"] == "coverage")
    >>> coverage["estimate"], round(coverage["mc_se"], 4)
    (0.75, 0.2165)
    """
    rows = []
    for cell in cells:
        truth = cell["truth"]["value"]
        for name, columns in cell["resamplers"].items():
            points = columns["point"]
            found = point_measures(points, columns["standard_error"], truth)
            rows += [_measure_row(cell["n"], name, POINT_KIND, estimate) for estimate in found]
            mean_point = math.fsum(points) / len(points)
            for kind, bounds in columns["intervals"].items():
                found = interval_measures(bounds["lower"], bounds["upper"], truth, mean_point, null)
                rows += [_measure_row(cell["n"], name, kind, estimate) for estimate in found]
    return rows


def _measure_row(n, resampler, kind, estimate):
    return {"n": n, "resampler": resampler, "kind": kind, **estimate.to_json()}


def _rows_of(coverage, resampler, kind):
    return sorted(
        (row for row in coverage if row["resampler"] == resampler and row["kind"] == kind), key=lambda row: row["n"]
    )


def _series_ratios(cells, resampler, n=None):
    """Per-series bootstrap SE / true SE of one resampler, cell by cell: {n: [ratios]}
    (an empty list where an SE is unknown)."""
    return {
        cell["n"]: _ratios(cell["resamplers"][resampler]["standard_error"], cell["truth"]["standard_error"]) or []
        for cell in cells
        if resampler in cell["resamplers"] and (n is None or cell["n"] == n)
    }


def _mean_and_mc_se(values):
    mean = math.fsum(values) / len(values)
    spread = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1)) if len(values) > 1 else 0.0
    return mean, spread, spread / math.sqrt(len(values))


def _judge_se_ratio(criterion, cells):
    details, passed = [], True
    for n, ratios in _series_ratios(cells, criterion.resampler, criterion.n).items():
        if not ratios:
            passed = False
            details.append(f"n={n}: no SE ratio (the true SE or a bootstrap SE is unknown)")
            continue
        mean, spread, mc_se = _mean_and_mc_se(ratios)
        # The published figure has its own MC error; with its series count known, ours
        # stands in for its spread.
        combined = math.sqrt(mc_se**2 + (spread**2 / criterion.published_series if criterion.published_series else 0.0))
        ok = abs(mean - criterion.target) <= criterion.k * combined
        passed &= ok
        details.append(
            f"n={n}: mean SE ratio {mean:.4f} vs {criterion.target:.3f}, "
            f"{(mean - criterion.target) / combined if combined else math.inf:+.2f} combined MC SE"
        )
    return passed, details


def _judge_se_below(criterion, cells):
    details, passed = [], True
    for cell in cells:
        if criterion.n is not None and cell["n"] != criterion.n:
            continue
        mine = cell["resamplers"][criterion.resampler]["standard_error"]
        other = cell["resamplers"][criterion.other]["standard_error"]
        if None in mine or None in other:
            passed = False
            details.append(f"n={cell['n']}: a bootstrap SE is unknown")
            continue
        below = sum(1 for a, b in zip(mine, other, strict=True) if a < b)
        ok = below >= criterion.target * len(mine)
        passed &= ok
        details.append(
            f"n={cell['n']}: below in {below} of {len(mine)} series "
            f"({below / len(mine):.4f} vs >= {criterion.target:.3f})"
        )
    return passed, details


def _verdict(criterion, passed, details, judged=True):
    return {
        "id": criterion.id,
        "statement": criterion.statement,
        "passed": bool(passed),
        "detail": "; ".join(details),
        "rationale": criterion.rationale,
        "judged": judged,
    }


def _judge_measure(criterion: Criterion, performance: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The verdict of ``within`` / ``at_least`` / ``at_most`` on a performance measure's
    estimate (and its MC SE): the rows of the criterion's resampler, kind and measure, at
    its n or at every n (:func:`judge`'s verdict dict)."""
    rows = sorted(
        (
            row
            for row in performance
            if row["resampler"] == criterion.resampler
            and row["kind"] == criterion.kind
            and row["measure"] == criterion.measure
            and (criterion.n is None or row["n"] == criterion.n)
        ),
        key=lambda row: row["n"],
    )
    if not rows:
        return _verdict(criterion, False, ["not run in this profile"], judged=False)
    details, passed = [], True
    for row in rows:
        estimate, mc_se = row["estimate"], row["mc_se"]
        if estimate is None:
            passed = False
            details.append(f"n={row['n']}: {criterion.measure} is undefined here")
            continue
        if criterion.test == "within":
            gap = estimate - criterion.target
            ok = mc_se is not None and abs(gap) <= criterion.k * mc_se
            z = f"{gap / mc_se:+.2f} mc_se" if mc_se else "no mc_se"
            details.append(f"n={row['n']}: {estimate:.4g} vs {criterion.target:g}, {z}")
        else:
            ok = estimate >= criterion.target if criterion.test == "at_least" else estimate <= criterion.target
            spread = f" (mc_se {mc_se:.2g})" if mc_se is not None else ""
            details.append(f"n={row['n']}: {estimate:.4g}{spread} vs {criterion.target:g}")
        passed &= ok
    return _verdict(criterion, passed, details)


def judge(
    criterion: Criterion,
    coverage: Sequence[Mapping[str, Any]],
    cells: Iterable[Mapping[str, Any]] = (),
    performance: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The verdict of one criterion: {"id", "statement", "passed", "detail", "rationale", "judged"}.

    Coverage criteria read the coverage rows; SE criteria read the per-series SEs of ``cells``.

    Parameters
    ----------
    criterion : bootmark.studies.protocol.Criterion
        The registered rule (its tests are listed in :mod:`bootmark.studies.protocol`).
    coverage : sequence of dict
        Coverage rows (:func:`coverage_row`, :func:`summarise`).
    cells : iterable of dict, default ()
        The cells of the run (needed by ``se_ratio_within`` and ``se_below`` only).
    performance : sequence of dict, default ()
        Performance rows (:func:`performance`; needed by criteria on a ``measure`` other
        than coverage).

    Returns
    -------
    dict
        ``id``, ``statement``, ``passed`` (bool), ``detail`` (the figures behind it),
        ``rationale`` and ``judged``: False, and ``passed`` False, when the criterion's
        resampler, kind or n was not run in this profile.

    See Also
    --------
    compare_published : Our figure beside a published one.

    Examples
    --------
    >>> from bootmark.studies.protocol import Criterion
    >>> row = coverage_row(200, "engine.IID", "percentile", [-1.0, -0.5, 0.2, -0.3], [1.0, 0.4, 0.9, 0.1], 0.0)
    >>> rule = Criterion("iid-near", "within", "engine.IID", "percentile", "why", target=0.9, k=3.0)
    >>> verdict = judge(rule, [row])
    >>> verdict["passed"], verdict["detail"]
    (True, 'n=200: 0.7500 vs 0.900, -0.69 mc_se')
    >>> judge(Criterion("floor", "at_least", "engine.IID", "percentile", "why", target=0.8), [row])["passed"]
    False
    >>> judge(Criterion("other", "at_least", "engine.IID", "basic", "why", target=0.8), [row])["judged"]
    False
    """
    if getattr(criterion, "measure", "coverage") != "coverage":
        return _judge_measure(criterion, performance)
    if criterion.test in SE_TESTS:
        ran = [
            cell
            for cell in cells
            if criterion.resampler in cell["resamplers"]
            and (criterion.other is None or criterion.other in cell["resamplers"])
            and (criterion.n is None or cell["n"] == criterion.n)
        ]
        if not ran:
            return _verdict(criterion, False, ["not run in this profile"], judged=False)
        passed, details = (_judge_se_ratio if criterion.test == "se_ratio_within" else _judge_se_below)(criterion, ran)
        return _verdict(criterion, passed, details)
    rows = _rows_of(coverage, criterion.resampler, criterion.kind)
    if criterion.n is not None:
        rows = [row for row in rows if row["n"] == criterion.n]
    if not rows:
        return _verdict(criterion, False, ["not run in this profile"], judged=False)
    details, passed = [], True
    if criterion.test == "within":
        for row in rows:
            gap = row["coverage"] - criterion.target
            ok = abs(gap) <= criterion.k * row["mc_se"]
            passed &= ok
            details.append(
                f"n={row['n']}: {row['coverage']:.4f} vs {criterion.target:.3f}, "
                f"{gap / row['mc_se'] if row['mc_se'] else math.inf:+.2f} mc_se"
            )
    elif criterion.test in ("at_least", "at_most"):
        sign = ">=" if criterion.test == "at_least" else "<="
        for row in rows:
            ok = row["coverage"] >= criterion.target if sign == ">=" else row["coverage"] <= criterion.target
            passed &= ok
            details.append(
                f"n={row['n']}: {row['coverage']:.4f} "
                f"(Wilson {row['wilson_low']:.4f}-{row['wilson_high']:.4f}) vs {sign} {criterion.target:.3f}"
            )
    elif criterion.test == "exceeds":
        others = {row["n"]: row for row in _rows_of(coverage, criterion.other, criterion.kind)}
        for row in rows:
            other = others.get(row["n"])
            if other is None:
                passed = False
                details.append(f"n={row['n']}: {criterion.other} not run")
                continue
            spread = math.sqrt(row["mc_se"] ** 2 + other["mc_se"] ** 2)
            z = (row["coverage"] - other["coverage"]) / spread if spread else math.inf
            passed &= z > criterion.k
            details.append(f"n={row['n']}: {row['coverage']:.4f} vs {other['coverage']:.4f}, {z:+.2f} SE")
    else:

        def step_z(a, b):
            spread = math.sqrt(a["mc_se"] ** 2 + b["mc_se"] ** 2)
            return (
                (b["coverage"] - a["coverage"]) / spread
                if spread
                else math.copysign(math.inf, b["coverage"] - a["coverage"])
            )

        overall = step_z(rows[0], rows[-1])
        steps = [step_z(a, b) for a, b in pairwise(rows)]
        passed = overall > criterion.k and all(z >= -criterion.k for z in steps)
        details.append(
            " -> ".join(f"{row['coverage']:.3f}@{row['n']}" for row in rows)
            + f"; smallest to largest n {overall:+.1f} SE, worst step {min(steps):+.1f} SE"
        )
    return _verdict(criterion, passed, details)


def compare_published(
    figure: PublishedFigure, coverage: Sequence[Mapping[str, Any]], cells: Iterable[Mapping[str, Any]] = ()
) -> dict[str, Any]:
    """Our figure beside a published one, with a z-score.

    Coverage: the z-score's SE combines our Monte Carlo SE with the published figure's
    when its series count is known (sqrt(v (1 - v) / series)); otherwise ours alone.
    Mean SE ratio (``measure="se_ratio"``): our MC SE combined with our spread over the
    published series count.

    Parameters
    ----------
    figure : bootmark.studies.protocol.PublishedFigure
        The published figure.
    coverage : sequence of dict
        Coverage rows (:func:`coverage_row`, :func:`summarise`).
    cells : iterable of dict, default ()
        The cells of the run (needed for ``measure="se_ratio"`` only).

    Returns
    -------
    dict
        ``resampler``, ``kind``, ``n``, ``published``, ``source``, ``published_series``
        (and ``measure`` for an SE ratio), ``ours`` and ``z``; ``ours`` and ``z`` are None
        when that resampler, kind or n was not run.

    Examples
    --------
    >>> from bootmark.studies.protocol import PublishedFigure
    >>> row = coverage_row(200, "engine.IID", "percentile", [-1.0, -0.5, 0.2, -0.3], [1.0, 0.4, 0.9, 0.1], 0.0)
    >>> figure = PublishedFigure("engine.IID", "percentile", 200, 0.8, "a paper", series=1000)
    >>> entry = compare_published(figure, [row])
    >>> entry["ours"], round(entry["z"], 3)
    (0.75, -0.231)
    """
    entry = {
        "resampler": figure.resampler,
        "kind": figure.kind,
        "n": figure.n,
        "published": figure.value,
        "source": figure.source,
        "published_series": figure.series,
    }
    if figure.measure == "se_ratio":
        entry["measure"] = "se_ratio"
        ratios = _series_ratios(cells, figure.resampler, figure.n).get(figure.n)
        if not ratios:
            return {**entry, "ours": None, "z": None}
        mean, spread, mc_se = _mean_and_mc_se(ratios)
        variance = mc_se**2 + (spread**2 / figure.series if figure.series else 0.0)
        return {**entry, "ours": mean, "z": (mean - figure.value) / math.sqrt(variance) if variance else None}
    rows = [row for row in _rows_of(coverage, figure.resampler, figure.kind) if row["n"] == figure.n]
    if not rows:
        return {**entry, "ours": None, "z": None}
    row = rows[0]
    variance = row["mc_se"] ** 2 + (figure.value * (1 - figure.value) / figure.series if figure.series else 0.0)
    return {
        **entry,
        "ours": row["coverage"],
        "z": (row["coverage"] - figure.value) / math.sqrt(variance) if variance else None,
    }


def render_table(results: Mapping[str, Any], nominal: float) -> str:
    """A plain-text coverage table with criterion verdicts and published figures.

    Parameters
    ----------
    results : dict
        A receipt's ``results``: ``coverage`` and ``standard_errors`` rows
        (:func:`summarise`), ``criteria`` verdicts (:func:`judge`) and ``published``
        entries (:func:`compare_published`).
    nominal : float
        The nominal coverage, 1 - alpha.

    Returns
    -------
    str
        The table, lines joined by newlines, no trailing newline.

    Examples
    --------
    >>> row = coverage_row(200, "engine.IID", "percentile", [-1.0, -0.5, 0.2, -0.3], [1.0, 0.4, 0.9, 0.1], 0.0)
    >>> errors = [{"n": 200, "resampler": "engine.IID", "mean_se_ratio": 1.0, "mean_block_length": 1.0}]
    >>> print(render_table({"coverage": [row], "standard_errors": errors, "criteria": [], "published": []}, 0.9))
        n  resampler                     kind         coverage       Wilson 95%   mc_se mean width SE ratio
      200  engine.IID                    percentile      0.750    0.301-0.954     0.217     1.0000    1.000
    (nominal coverage 0.90; SE ratio = mean bootstrap SE / true SE)
    """
    width = max([30] + [len(row["resampler"]) + 2 for row in results["coverage"]])
    lines = [
        f"{'n':>5}  {'resampler':<{width}}{'kind':<12}{'coverage':>9}  {'Wilson 95%':>15}{'mc_se':>8}"
        f"{'mean width':>11}{'SE ratio':>9}"
    ]
    ratios = {(row["n"], row["resampler"]): row["mean_se_ratio"] for row in results["standard_errors"]}
    for row in results["coverage"]:
        lines.append(
            f"{row['n']:>5}  {row['resampler']:<{width}}{row['kind']:<12}{row['coverage']:>9.3f}  "
            f"{row['wilson_low']:>7.3f}-{row['wilson_high']:<7.3f}{row['mc_se']:>8.3f}"
            f"{row['mean_width']:>11.4f}{_optional(ratios[(row['n'], row['resampler'])], 9, '.3f')}"
        )
    lines.append(f"(nominal coverage {nominal:.2f}; SE ratio = mean bootstrap SE / true SE)")
    lines += render_verdicts(results["criteria"])
    if results["published"]:
        lines += ["", "published figures:"]
        for entry in results["published"]:
            ours = "not run" if entry["ours"] is None else f"ours {entry['ours']:.3f}, z = {entry['z']:+.2f}"
            what = "mean SE ratio" if entry.get("measure") == "se_ratio" else entry["kind"]
            lines.append(
                f"  {entry['resampler']} {what} n={entry['n']}: published "
                f"{entry['published']:.3f} ({shipped_citation(entry['source'])}); {ours}"
            )
    return "\n".join(lines)


# The measures of the point estimate alone (docs/measures.md): they differ between
# resamplers only where a contender answers its own point; model_se and
# relative_error_modse read each resampler's SE.
ESTIMATE_MEASURES = ("bias", "relative_bias", "empirical_se", "mse")
EVERY_RESAMPLER = "every resampler"


def shown_once(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The performance rows as printed: the measures of the point estimate
    (:data:`ESTIMATE_MEASURES`) appear once per n for the resamplers whose figures are the
    same, under :data:`EVERY_RESAMPLER` (or the names that share them, comma-separated),
    at the first one's place; every other row is kept as it is. The data (``to_frame``,
    csv, json) keep one row per resampler.

    Parameters
    ----------
    rows : sequence of dict
        ``{"n", "resampler", "kind", "measure", "estimate", "mc_se"}`` rows (:func:`performance`).

    Returns
    -------
    list of dict

    Examples
    --------
    >>> rows = [
    ...     {"n": 50, "resampler": name, "kind": "point", "measure": measure, "estimate": value, "mc_se": 0.1}
    ...     for name in ("engine.IID", "mine") for measure, value in (("bias", 0.2), ("model_se", len(name)))
    ... ]
    >>> [(row["resampler"], row["measure"]) for row in shown_once(rows)]
    [('every resampler', 'bias'), ('engine.IID', 'model_se'), ('mine', 'model_se')]
    """

    def is_estimate(row):
        return row["kind"] == POINT_KIND and row["measure"] in ESTIMATE_MEASURES

    figures: dict[tuple[int, str], list] = {}
    for row in rows:
        if is_estimate(row):
            figures.setdefault((row["n"], row["resampler"]), []).append((row["measure"], row["estimate"], row["mc_se"]))
    sharing: dict[tuple[int, tuple], list[str]] = {}
    for (n, resampler), found in figures.items():
        sharing.setdefault((n, tuple(found)), []).append(resampler)
    label = {}
    for (n, _), names in sharing.items():
        everyone = [resampler for cell_n, resampler in figures if cell_n == n]
        shown = EVERY_RESAMPLER if len(names) == len(everyone) > 1 else ", ".join(names)
        label[(n, names[0])] = shown
    return [
        dict(row, resampler=label[(row["n"], row["resampler"])]) if is_estimate(row) else dict(row)
        for row in rows
        if not is_estimate(row) or (row["n"], row["resampler"]) in label
    ]


def render_verdicts(criteria: Sequence[Mapping[str, Any]]) -> list[str]:
    """Plain-text lines: every registered criterion's verdict (PASS, FAIL, or n/a when its
    resampler, kind or n did not run), after a blank line; none without criteria.

    Examples
    --------
    >>> verdict = {"id": "c", "statement": "s", "detail": "d", "passed": True, "judged": True}
    >>> render_verdicts([verdict])
    ['', 'criteria (registered before the run):', '  PASS  c: s  [d]']
    """
    if not criteria:
        return []
    lines = ["", "criteria (registered before the run):"]
    for verdict in criteria:
        mark = "PASS" if verdict["passed"] else ("FAIL" if verdict["judged"] else "n/a ")
        lines.append(f"  {mark}  {verdict['id']}: {verdict['statement']}  [{verdict['detail']}]")
    return lines


def render_measures(rows: Sequence[Mapping[str, Any]]) -> str:
    """The performance rows (:func:`performance`) as a plain-text table.

    Parameters
    ----------
    rows : sequence of dict
        ``{"n", "resampler", "kind", "measure", "estimate", "mc_se"}`` rows.

    Returns
    -------
    str
        A header, one line per row (undefined figures as ``-``; the measures of the point
    estimate once for the resamplers that share them, :func:`shown_once`) and a note on units.

    Examples
    --------
    >>> row = {"n": 200, "resampler": "engine.IID", "kind": "point", "measure": "bias", "estimate": 0.01}
    >>> print(render_measures([dict(row, mc_se=0.002)]))
        n  resampler                     kind        measure                       estimate       mc_se
      200  engine.IID                    point       bias                            0.0100      0.0020
    (ADEMP measures with Monte Carlo SEs, Morris et al. 2019, Table 6: docs/measures.md)
    """
    rows = shown_once(rows)
    width = max([30] + [len(row["resampler"]) + 2 for row in rows])
    lines = [f"{'n':>5}  {'resampler':<{width}}{'kind':<12}{'measure':<26}{'estimate':>12}{'mc_se':>12}"]
    for row in rows:
        lines.append(
            f"{row['n']:>5}  {row['resampler']:<{width}}{row['kind']:<12}{row['measure']:<26}"
            f"{_optional(row['estimate'], 12, '.4f')}{_optional(row['mc_se'], 12, '.4f')}"
        )
    lines.append("(ADEMP measures with Monte Carlo SEs, Morris et al. 2019, Table 6: docs/measures.md)")
    return "\n".join(lines)


def _optional(value, width, spec):
    """``value`` formatted to ``width``, or a dash when it is unknown (None)."""
    return f"{'-':>{width}}" if value is None else f"{value:>{width}{spec}}"


def shipped_citation(source: str) -> str:
    """A published figure's source as printed: the registered protocols cite the design
    notes ("DESIGN.md section 6"), which do not ship; the printed text also names the page
    that does. The receipt keeps the protocol's own words.

    Parameters
    ----------
    source : str
        A published figure's ``source``, as the protocol words it.

    Returns
    -------
    str
        ``source`` with each "DESIGN.md section 6" followed by
        "[docs/published-figures.md]".

    Examples
    --------
    >>> shipped_citation("DESIGN.md section 6, table 2")
    'DESIGN.md section 6 [docs/published-figures.md], table 2'
    >>> shipped_citation("Politis and White (2004)")
    'Politis and White (2004)'
    """
    cited = "DESIGN.md section 6"
    return source.replace(cited, f"{cited} [docs/published-figures.md]")
