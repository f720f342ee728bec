"""Forecast studies: prediction intervals judged against the values the process goes on to draw.

A protocol with ``[design] target = "forecast"`` and ``horizon = H`` audits prediction
intervals. For series i of the cell of length n, the process draws n + H values from the
series' data seed (:func:`bootmark.studies.evaluate.series_seeds`); each contender sees the
first n (the history) and answers, for each step h = 1..H ahead, an interval for value
n + h, called as ``forecast_interval(history, *, horizon, alpha, seed, **options)``
(:meth:`bootmark.studies.plugins.Contender.forecast`). The measures per horizon
(:func:`bootmark.studies.measures.forecast_measures`) judge the intervals against the
values the process realised: coverage, mean and median width, the interval (Winkler)
score, the misses below and above, and coverage in each third of the distribution of the
last observed value (the empirical thirds of that value over the cell's series), each
with its Monte Carlo SE. They are filed as tidy rows with ``kind = "h1"`` .. ``"hH"``,
so that ``to_frame()``, ``study show`` and the criteria read them as any measure.

The *oracle* (``oracle = true`` in a ``[[resamplers]]`` entry) is the interval of the
true conditional distribution of a Gaussian AR(p) with known parameters (the built-in
``ar1`` and ``ar3``): mean the AR recursion from the last p values, variance
sigma**2 sum_{j < h} psi_j**2 (psi the MA(infinity) weights). It covers exactly
1 - alpha at every horizon: the audit's positive control.

May import: numpy, bootmark.core, and the studies modules oracle, evaluate, measures,
plugins and summary (never protocol or runner, which import this module; protocol reads
what it needs from :mod:`bootmark.studies.oracle`, which this module re-exports).
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import TYPE_CHECKING

import numpy as np

from . import summary
from .evaluate import series_seeds
from .measures import CONDITIONAL_COVERAGES, FORECAST_MEASURES, forecast_measures
from .oracle import FORECAST_TARGET, HORIZON_LIMIT, OracleUnavailable, has_oracle, horizon_kind, oracle_interval
from .plugins import PluginFailure, read_only

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

__all__ = [
    "FORECAST_TARGET",
    "HORIZON_LIMIT",
    "OracleUnavailable",
    "horizon_kind",
    "has_oracle",
    "oracle_interval",
    "thirds",
]


def thirds(origins: Sequence[float]) -> list[int]:
    """Each series' third (0, 1, 2) of the empirical distribution of its last observed
    value over a cell's series: by rank, ties in series order, the lowest
    floor(m / 3)-ish go to 0 (label = floor(3 rank / m)).

    >>> thirds([5.0, -1.0, 0.0, 9.0, 2.0, 1.0])
    [2, 0, 0, 2, 1, 1]
    """
    order = sorted(range(len(origins)), key=lambda index: (origins[index], index))
    labels = [0] * len(origins)
    for rank, index in enumerate(order):
        labels[index] = 3 * rank // len(origins)
    return labels


def empty_columns(names: Iterable[str]) -> dict[str, dict[str, list]]:
    """Empty per-resampler columns ``{"lower": [], "upper": [], "point": []}``."""
    return {name: {"lower": [], "upper": [], "point": []} for name in names}


def run_chunk(protocol: Any, prepared: Mapping[str, Any], names: Sequence[str], n: int, first: int, last: int) -> dict:
    """The answers of every resampler ``names`` on series [first, last) of cell n, and what
    the process realised after each history.

    Parameters
    ----------
    protocol : bootmark.studies.protocol.Protocol
        A forecast protocol.
    prepared : mapping
        Resampler name -> its loaded contender (:func:`prepare`), or None for the oracle.
    names : sequence of str
        The resamplers run (a profile's).
    n : int
        History length of the cell.
    first, last : int
        The series [first, last).

    Returns
    -------
    dict
        ``n``, ``first``, ``last``, ``protocol_sha256``, ``future`` (per series, the H
        realised values), ``origin`` (per series, the last observed value) and ``columns``
        (:func:`empty_columns` layout).

    Raises
    ------
    PluginFailure
        A process or contender that raised, or a contender's answer that is not H finite
        intervals; the message names the entry, the series and the horizon.
    """
    horizon = protocol.horizon
    process = protocol.process()
    columns = empty_columns(names)
    future, origin = [], []
    for series in range(first, last):
        seeds = series_seeds(protocol.root_seed, n, series)
        where = f"{protocol.id} n={n} series {series}"
        try:
            path = np.asarray(process.sample(n + horizon, seeds.data), dtype=np.float64)
        except PluginFailure as error:
            raise PluginFailure(f"{where}: {error}") from None
        history = read_only(path[:n])
        future.append(path[n:].tolist())
        origin.append(float(path[n - 1]))
        for name in names:
            contender = prepared[name]
            try:
                if contender is None:
                    lower, upper, point = oracle_interval(process, history, horizon, protocol.alpha)
                    answer = (lower.tolist(), upper.tolist(), point.tolist())
                else:
                    found = contender.forecast(history, horizon=horizon, alpha=protocol.alpha, seed=seeds.bootstrap)
                    answer = (list(found.lower), list(found.upper), None if found.point is None else list(found.point))
            except PluginFailure as error:
                raise PluginFailure(f"{where}: {error}") from None
            for key, value in zip(("lower", "upper", "point"), answer, strict=True):
                columns[name][key].append(value)
    return {
        "n": n,
        "first": first,
        "last": last,
        "protocol_sha256": protocol.sha256,
        "future": future,
        "origin": origin,
        "columns": columns,
    }


def prepare(protocol: Any, names: Sequence[str]) -> dict[str, Any]:
    """Load and check every forecast resampler of ``names`` before a series is drawn:
    resampler name -> its contender, or None for the oracle.

    Raises
    ------
    bootmark.studies.plugins.PluginError
        Code that cannot be found or cannot take the forecast call; an oracle on a process
        without one (:class:`OracleUnavailable`).
    """
    found = {}
    for name in names:
        spec = protocol.resampler(name)
        if spec.oracle:
            process = protocol.process()
            if not has_oracle(process):
                raise OracleUnavailable(
                    f"{spec.entry}: no oracle for {type(process).__name__}; the oracle is the known conditional "
                    "distribution of a Gaussian AR process (ar1, ar3): drop the entry or use one of those"
                )
            found[name] = None
            continue
        contender = spec.load_contender()
        contender.check_forecast()
        found[name] = contender
    return found


def merge_cell(chunk_list: Iterable[Mapping[str, Any]], names: Sequence[str]) -> dict[str, Any]:
    """One cell's ``future``, ``origin`` and per-resampler columns from its chunks, in
    series order (resamplers in ``names`` order)."""
    ordered = sorted(chunk_list, key=lambda chunk: chunk["first"])
    merged = {"future": [], "origin": [], "resamplers": empty_columns(names)}
    for chunk in ordered:
        merged["future"].extend(chunk["future"])
        merged["origin"].extend(chunk["origin"])
        for name in names:
            for key in ("lower", "upper", "point"):
                merged["resamplers"][name][key].extend(chunk["columns"][name][key])
    return merged


def performance(cells: Iterable[Mapping[str, Any]], alpha: float) -> list[dict[str, Any]]:
    """The measures of every (n, resampler, horizon) as tidy rows ``{"n", "resampler",
    "kind", "measure", "estimate", "mc_se"}``, ``kind`` the horizon (:func:`horizon_kind`).

    Parameters
    ----------
    cells : iterable of dict
        A forecast receipt's cells (``n``, ``future``, ``origin``, ``resamplers``).
    alpha : float
        The intervals' two-sided tail (the Winkler score's penalty is 2 / alpha).

    Returns
    -------
    list of dict
        In cell, resampler, horizon and :data:`~bootmark.studies.measures.FORECAST_MEASURES` order.
    """
    rows = []
    for cell in cells:
        labels = thirds(cell["origin"])
        for name, columns in cell["resamplers"].items():
            for step in range(len(cell["future"][0])):
                found = forecast_measures(
                    [bounds[step] for bounds in columns["lower"]],
                    [bounds[step] for bounds in columns["upper"]],
                    [values[step] for values in cell["future"]],
                    alpha,
                    labels,
                )
                rows += [
                    {"n": cell["n"], "resampler": name, "kind": horizon_kind(step + 1), **estimate.to_json()}
                    for estimate in found
                ]
    return rows


# The measures that are shares of the series (of a third of them, for the conditional
# coverages): a `within` criterion judges them with the SE a share has at its target.
SHARE_MEASURES = ("coverage", "miss_below", "miss_above", *CONDITIONAL_COVERAGES)


def family_k(k: float, cells: int) -> float:
    """The SEs each of ``cells`` judged cells gets so that a criterion's ``k`` holds for
    all of them together (Bonferroni): Phi^-1(1 - (1 - Phi(k)) / cells), two-sided.

    >>> round(family_k(3.0, 1), 6), round(family_k(3.0, 15), 2)
    (3.0, 3.74)
    """
    normal = NormalDist()
    return normal.inv_cdf(1.0 - (1.0 - normal.cdf(k)) / cells)


def judge(
    criterion: Any, rows: Sequence[Mapping[str, Any]], cells: Sequence[Mapping[str, Any]], horizon: int
) -> dict[str, Any]:
    """The verdict of a forecast criterion on its measure, at its horizon or at every one
    (``criterion.kind`` None), at its n or at every one: every judged cell must pass.

    ``at_least`` / ``at_most`` compare the estimate with the target. ``within`` asks
    whether the estimate lies within k SEs of the target, k held for the criterion's m
    cells together (each cell at :func:`family_k`, Bonferroni), the SE of a share
    (:data:`SHARE_MEASURES`) being the one it has at the target, sqrt(target (1 - target)
    / m_i), m_i the series behind it (so a cell that covers 40 of 40 is not judged by a
    zero SE), and of any other measure its Monte Carlo SE.

    Returns
    -------
    dict
        ``id``, ``statement``, ``passed``, ``detail``, ``rationale``, ``judged`` (False
        when the resampler, n or horizon was not run in this profile).
    """
    kinds = [horizon_kind(step) for step in range(1, horizon + 1)] if criterion.kind is None else [criterion.kind]
    found = {
        (row["n"], row["kind"]): row
        for row in rows
        if row["resampler"] == criterion.resampler and row["measure"] == criterion.measure
    }
    judged = [
        (cell, kind, found[(cell["n"], kind)])
        for cell in cells
        if criterion.n is None or cell["n"] == criterion.n
        for kind in kinds
        if (cell["n"], kind) in found
    ]
    if not judged:
        return _verdict(criterion, False, "not run in this profile", judged=False)
    k = family_k(criterion.k, len(judged))
    details, passed = [], True
    for cell, kind, row in judged:
        estimate = row["estimate"]
        where = f"n={cell['n']} {kind}"
        if estimate is None:
            passed = False
            details.append(f"{where}: {criterion.measure} is undefined here")
            continue
        if criterion.test == "within":
            spread = _target_se(criterion, cell) if criterion.measure in SHARE_MEASURES else row["mc_se"]
            z = (
                (estimate - criterion.target) / spread
                if spread
                else math.copysign(math.inf, estimate - criterion.target)
            )
            ok = abs(z) <= k
            details.append(f"{where}: {estimate:.4f} vs {criterion.target:.3f}, {z:+.2f} SE")
        else:
            ok = estimate >= criterion.target if criterion.test == "at_least" else estimate <= criterion.target
            details.append(
                f"{where}: {estimate:.4f} vs {'>=' if criterion.test == 'at_least' else '<='} {criterion.target:g}"
            )
        passed &= ok
    if criterion.test == "within":
        details.append(f"each cell within {k:.2f} SE: {criterion.k:g} SE held over {len(judged)} cells")
    return _verdict(criterion, passed, "; ".join(details))


def _target_se(criterion, cell):
    """The SE of a share at the criterion's target: sqrt(t (1 - t) / m), m the series
    behind it (a third of them for the conditional coverages)."""
    count = len(cell["origin"])
    if criterion.measure in CONDITIONAL_COVERAGES:
        third = CONDITIONAL_COVERAGES.index(criterion.measure)
        count = sum(1 for label in thirds(cell["origin"]) if label == third)
    return math.sqrt(criterion.target * (1.0 - criterion.target) / count)


def _verdict(criterion, passed, detail, judged=True):
    return {
        "id": criterion.id,
        "statement": criterion.statement,
        "passed": bool(passed) and judged,
        "detail": detail,
        "rationale": criterion.rationale,
        "judged": judged,
    }


def results_of(protocol: Any, profile: Any, done: Mapping[tuple[int, int], Mapping[str, Any]]) -> dict[str, Any]:
    """The deterministic part of a forecast receipt: ``cells`` (per n: ``future``,
    ``origin`` and each resampler's ``lower``, ``upper``, ``point`` per series),
    ``coverage`` (:func:`bootmark.studies.summary.coverage_row` per n, resampler and
    horizon, with its Wilson interval), ``performance`` (:func:`performance`),
    ``criteria`` (verdicts) and ``published`` ([])."""
    cells = []
    for n in profile.n:
        merged = merge_cell([chunk for (cell_n, _), chunk in done.items() if cell_n == n], profile.resamplers)
        cells.append({"n": n, **merged})
    rows = performance(cells, protocol.alpha)
    coverage = [
        summary.coverage_row(
            cell["n"],
            name,
            horizon_kind(step + 1),
            [bounds[step] for bounds in columns["lower"]],
            [bounds[step] for bounds in columns["upper"]],
            [values[step] for values in cell["future"]],
        )
        for cell in cells
        for name, columns in cell["resamplers"].items()
        for step in range(protocol.horizon)
    ]
    return {
        "cells": cells,
        "coverage": coverage,
        "performance": rows,
        "criteria": [judge(criterion, rows, cells, protocol.horizon) for criterion in protocol.criteria],
        "published": [],
    }


def tripwire(protocol: Any, n: int, cell: Mapping[str, Any], series: int) -> str | None:
    """Why the first ``series`` series of a cell look like garbage (every interval of a
    resampler zero-width at every horizon, or all identical), or None."""
    for name, columns in cell["resamplers"].items():
        pairs = [(tuple(low), tuple(high)) for low, high in zip(columns["lower"], columns["upper"], strict=True)][
            :series
        ]
        if all(top - bottom == 0.0 for low, high in pairs for bottom, top in zip(low, high, strict=True)):
            return f"{protocol.id} n={n}: {name} intervals are all zero-width over the first {len(pairs)} series"
        if len(pairs) > 1 and len(set(pairs)) == 1:
            return f"{protocol.id} n={n}: {name} intervals are all identical over the first {len(pairs)} series"
    return None


def render_table(results: Mapping[str, Any], nominal: float) -> str:
    """Plain text: coverage (with its MC SE), misses below / above, mean width and the
    Winkler score per n, resampler and horizon; then the criteria's verdicts."""
    found = {(row["n"], row["resampler"], row["kind"], row["measure"]): row for row in results["performance"]}
    keys = list(dict.fromkeys((n, name, kind) for n, name, kind, _ in found))
    width = max([24] + [len(name) + 2 for _, name, _ in keys])
    lines = [
        f"{'n':>6}  {'resampler':<{width}}{'h':>4}{'coverage':>10}{'mc_se':>8}{'below':>8}{'above':>8}"
        f"{'mean width':>12}{'winkler':>10}"
    ]
    for n, name, kind in keys:
        value = {measure: found[(n, name, kind, measure)] for measure in FORECAST_MEASURES}
        lines.append(
            f"{n:>6}  {name:<{width}}{kind[1:]:>4}{value['coverage']['estimate']:>10.3f}"
            f"{value['coverage']['mc_se']:>8.3f}{value['miss_below']['estimate']:>8.3f}"
            f"{value['miss_above']['estimate']:>8.3f}{value['mean_width']['estimate']:>12.4f}"
            f"{value['winkler']['estimate']:>10.4f}"
        )
    lines.append(f"(nominal coverage {nominal:.2f} at every horizon h; below / above: the misses each side)")
    return "\n".join(lines + summary.render_verdicts(results["criteria"]))
