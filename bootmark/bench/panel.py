"""``bootmark bench --panel``: many series in one call, timed against the alternatives.

Each cell is a panel (S series packed end to end, ``engine.Panel``), a method and
B = 999 replicates of the mean. In one process, in interleaved rounds (the grid's
timing: ``bootmark.core.timing``, untimed warm-ups, then every path once per round), it
times:

* ``panel``:       engine.bootstrap_reduce(panel, method, "mean", B, seed=1): the fused
  panel pass (the anchor path: every ratio's denominator but the floor's);
* ``loop``:        engine.bootstrap_reduce(x_s, method, "mean", B, seed=1, series_id=s)
  for every series s, in a Python loop: bit for bit the panel's statistics (checked once,
  untimed, before the rounds);
* ``tsbootstrap``: tsbootstrap.bootstrap_reduce_panel(values, indptr=offsets,
  method=..., statistic="mean", n_bootstraps=B, random_state=1, backend="compiled"),
  its fused panel kernel on its native flat-values-plus-offsets layout (compiled, then
  warmed, before the rounds);
* ``floor``:       the engine's floor (``bootmark.bench.floors``) for the whole panel:
  for each distinct series length n, held by c series, one call of the single-series
  floor with c x B replicates (``gather_floor``, or ``stationary_gather_floor`` for
  stationary blocks, on that length's prefix sums): the sum over series of each series'
  floor, its Philox words and its gathers, with one thread start per distinct length
  instead of one per series;
* ``floor_per_call``: the same floor calls with one replicate each: what the floor's
  calls cost beyond their replicates (a wake-up of the thread team and the call, some
  40 to 90 us each here). The panel's one call pays that once; the floor of a ragged
  panel pays it once per distinct length (359 times), which would lower the bar by up
  to a third for moving blocks, so the target is read net of it.

Ratios are per round, with a 95% moving-block bootstrap interval on their median:
``loop`` / ``panel`` and ``tsbootstrap`` / ``panel`` (> 1: the panel call is faster),
and in ``floor_ratios`` ``panel`` / ``floor`` (gross) and ``panel_net``: panel /
(floor - floor_per_call), the floor's replicate work alone (1 would be the floor
itself). The targets (issue 32): tsbootstrap / panel at least 3, panel / floor at most
1.2, the latter judged on the net ratio (the stricter), both read from the medians; the
rendered table says MISSED beside every cell that misses one.

The full profile holds two panels, each with i.i.d., moving-block (b = 10) and
stationary (mean block 10) resampling:

* ``square``: 2,000 series of n = 200 (400,000 observations);
* ``ragged``: 400 series, lengths drawn by numpy's default_rng(32).integers(50, 2001)
  (n from 55 to 1,983, 393,509 observations).

The values are numpy's standard normals from the same generator, after the lengths.
The quick profile (a smoke test, not a figure) has 200 series of n = 200 and 40 of n
from 990 to 1,010, B = 999: few distinct lengths, so the floor's one call per length
costs well below its replicates even on a busy machine (smaller panels, a smaller B or
lengths all different left the floor under its per-call cost, and the tripwire fired).
Tripwires stop the run before anything is written: a path timed at zero, a non-finite
statistic, or the loop's statistics differing from the panel's in a single bit.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numba
import numpy as np
from tqdm import tqdm

from bootmark import engine
from bootmark.bench import grid
from bootmark.bench.grid import BLOCK_LENGTH, TripwireError
from bootmark.core import provenance, receipts, timing

__all__ = [
    "ANCHOR_PATH",
    "FLOOR_TARGET",
    "METHODS",
    "NET_FLOOR_RATIO",
    "PANELS",
    "PATHS",
    "PEER_TARGET",
    "PanelCell",
    "PanelSpec",
    "cell_paths",
    "cells",
    "check_statistics",
    "measure_cell",
    "panel_data",
    "peer_floor",
    "lengths_text",
    "render_summary",
    "render_table",
    "run_panel",
    "seconds_text",
    "select",
    "target_verdicts",
    "targets",
]

METHODS = ("iid", "moving", "stationary")
ANCHOR_PATH = "panel"
PATHS = (ANCHOR_PATH, "loop", "tsbootstrap", "floor", "floor_per_call")
STATISTIC = "mean"
SEED = 1  # the engine's seed and tsbootstrap's random_state
PEER_TARGET = 3.0  # issue 32: tsbootstrap's panel time at least 3x the engine's
FLOOR_TARGET = 1.2  # issue 32: the engine's panel within 1.2x of its floor (net of the floor's per-call cost)
NET_FLOOR_RATIO = "panel_net"  # panel / (floor - floor_per_call), the ratio the floor target is judged on


@dataclass(frozen=True)
class PanelSpec:
    """A bench panel: ``series`` series of lengths ``n_low`` .. ``n_high`` (equal: a
    square panel), lengths and values drawn from numpy's default_rng(``seed``)."""

    name: str
    series: int
    n_low: int
    n_high: int
    seed: int

    def lengths(self) -> np.ndarray:
        """The series' lengths, int64, the same on every run."""
        if self.n_low == self.n_high:
            return np.full(self.series, self.n_low, dtype=np.int64)
        return np.random.default_rng(self.seed).integers(self.n_low, self.n_high + 1, size=self.series)

    def to_json(self) -> dict:
        lengths = self.lengths()
        return {
            "series": self.series,
            "n_low": self.n_low,
            "n_high": self.n_high,
            "seed": self.seed,
            "n_min": int(lengths.min()),
            "n_max": int(lengths.max()),
            "observations": int(lengths.sum()),
            "distinct_lengths": int(np.unique(lengths).size),
        }


PANELS = MappingProxyType(
    {
        "full": (PanelSpec("square", 2000, 200, 200, 32), PanelSpec("ragged", 400, 50, 2000, 32)),
        "quick": (PanelSpec("square", 200, 200, 200, 32), PanelSpec("ragged", 40, 990, 1010, 32)),
    }
)
REPLICATES = MappingProxyType({"full": 999, "quick": 999})


@dataclass(frozen=True)
class PanelCell:
    """One cell: a panel, a method (:data:`METHODS`) and B."""

    panel: PanelSpec
    method: str
    n_bootstraps: int


def cells(profile: str) -> list[PanelCell]:
    """The cells of a profile, ``"full"`` or ``"quick"`` (module docstring).

    Parameters
    ----------
    profile : str
        ``"full"`` or ``"quick"``.

    Returns
    -------
    list of PanelCell
        Panel by panel, methods in :data:`METHODS` order.

    Raises
    ------
    ValueError
        ``profile`` is neither.

    Examples
    --------
    >>> from bootmark.bench.panel import cells
    >>> [(c.panel.name, c.method, c.n_bootstraps) for c in cells("full")][:2]
    [('square', 'iid', 999), ('square', 'moving', 999)]
    """
    if profile not in PANELS:
        raise ValueError(f"panel profile must be 'full' or 'quick', got {profile!r}")
    return [PanelCell(spec, method, REPLICATES[profile]) for spec in PANELS[profile] for method in METHODS]


def select(found: Iterable[PanelCell], filters: Mapping[str, str]) -> list[PanelCell]:
    """The cells matching every filter (keys: panel, method).

    Parameters
    ----------
    found : iterable of PanelCell
        The cells to filter (:func:`cells`).
    filters : mapping of str to str
        Wanted values (:func:`bootmark.bench.grid.parse_filters`).

    Returns
    -------
    list of PanelCell
        The matching cells, in order.

    Raises
    ------
    ValueError
        A key is neither.

    Examples
    --------
    >>> from bootmark.bench.panel import cells, select
    >>> [c.method for c in select(cells("full"), {"panel": "ragged", "method": "iid"})]
    ['iid']
    """
    unknown = set(filters) - {"panel", "method"}
    if unknown:
        raise ValueError(f"unknown panel cell filter {sorted(unknown)}; use panel= (square, ragged) or method=")
    return [
        cell
        for cell in found
        if filters.get("panel", cell.panel.name) == cell.panel.name
        and filters.get("method", cell.method) == cell.method
    ]


def panel_data(spec: PanelSpec) -> list[np.ndarray]:
    """The panel's series: its lengths, then that many standard normals, from one
    default_rng(``spec.seed``) (a square panel draws no lengths).

    Parameters
    ----------
    spec : PanelSpec
        The panel.

    Returns
    -------
    list of numpy.ndarray
        ``spec.series`` float64 series, the same on every run (views of one array).

    Examples
    --------
    >>> from bootmark.bench.panel import PANELS, panel_data
    >>> ragged = panel_data(PANELS["quick"][1])
    >>> len(ragged), [len(x) for x in ragged][:3]
    (40, [1008, 993, 1008])
    """
    generator = np.random.default_rng(spec.seed)
    if spec.n_low == spec.n_high:
        lengths = spec.lengths()
    else:
        lengths = generator.integers(spec.n_low, spec.n_high + 1, size=spec.series)
    values = generator.standard_normal(int(lengths.sum()))
    return np.split(values, np.cumsum(lengths)[:-1])


def _tsbootstrap_method(name):
    # optional peer (the peers extra); imported only when its path is timed
    import tsbootstrap as tb

    return {
        "iid": lambda: tb.IID(),
        "moving": lambda: tb.MovingBlock(block_length=BLOCK_LENGTH),
        "stationary": lambda: tb.StationaryBlock(avg_block_length=BLOCK_LENGTH),
    }[name]()


def _floor_paths(name, series, n_bootstraps):
    """The panel's floor: per distinct length n held by c series, the single-series floor
    with c x B replicates on the first such series' prefix sums; and the same calls with
    one replicate each (module docstring). ({"floor", "floor_per_call"}, calls)."""
    from bootmark.bench import floors  # late: as in grid._floor_paths, floors reads engine internals

    block_length = 1 if name == "iid" else BLOCK_LENGTH
    gather = floors.stationary_gather_floor if name == "stationary" else floors.gather_floor
    first = {}
    counts = {}
    for x in series:
        first.setdefault(x.shape[0], x)
        counts[x.shape[0]] = counts.get(x.shape[0], 0) + 1
    calls = [(floors.block_prefix(x, block_length), n, counts[n]) for n, x in sorted(first.items())]

    def floor():
        return [gather(prefix, n, block_length, count * n_bootstraps) for prefix, n, count in calls]

    def per_call():
        return [gather(prefix, n, block_length, 1) for prefix, n, _ in calls]

    return {"floor": floor, "floor_per_call": per_call}, len(calls)


def cell_paths(cell: PanelCell, skipped: Mapping[str, str]) -> tuple[dict[str, Callable[[], object]], dict]:
    """The zero-argument callables timed in one cell (anchor first), and what the receipt
    says about them.

    Parameters
    ----------
    cell : PanelCell
        The cell.
    skipped : mapping of str to str
        Peers not to time (tsbootstrap, when it is not installed).

    Returns
    -------
    tuple
        ({path: callable}, in :data:`PATHS` order, and ``{"floor_calls": int}``: the
        floor's calls of the single-series floor, one per distinct length).
    """
    series = panel_data(cell.panel)
    method = grid.engine_method(cell.method)
    panel = engine.Panel.from_series(series)
    n_bootstraps = cell.n_bootstraps
    paths = {
        ANCHOR_PATH: lambda: engine.bootstrap_reduce(panel, method, STATISTIC, n_bootstraps=n_bootstraps, seed=SEED),
        "loop": lambda: [
            engine.bootstrap_reduce(x, method, STATISTIC, n_bootstraps, seed=SEED, series_id=s).statistics
            for s, x in enumerate(series)
        ],
    }
    if "tsbootstrap" not in skipped:
        import tsbootstrap as tb  # optional peer

        peer_method = _tsbootstrap_method(cell.method)
        values, offsets = np.concatenate(series), np.concatenate([[0], np.cumsum([x.shape[0] for x in series])])
        paths["tsbootstrap"] = lambda: (
            tb.bootstrap_reduce_panel(
                values,
                indptr=offsets,
                method=peer_method,
                statistic=STATISTIC,
                n_bootstraps=n_bootstraps,
                random_state=SEED,
                backend="compiled",
            ).statistics
        )
    floor_paths, floor_calls = _floor_paths(cell.method, series, n_bootstraps)
    paths.update(floor_paths)
    return paths, {"floor_calls": floor_calls}


def check_statistics(paths: Mapping[str, Callable[[], object]], cell: PanelCell, label: str) -> dict:
    """Tripwires on one untimed run of every path (the first warm-up, which also compiles
    tsbootstrap's kernel): finite statistics of the right shapes, and the loop's
    statistics equal to the panel's bit for bit.

    Parameters
    ----------
    paths : mapping of str to callable
        A cell's paths (:func:`cell_paths`); each runs once.
    cell : PanelCell
        The cell (its shape is checked).
    label : str
        The cell, as error messages name it.

    Returns
    -------
    dict
        ``{"fused": bool}``: whether the engine's panel call ran its one fused pass.

    Raises
    ------
    TripwireError
        A statistic is not finite or not (S, B) (tsbootstrap: (B, S)), or the loop
        differs from the panel.
    """
    outputs = {name: run() for name, run in paths.items()}
    result = outputs[ANCHOR_PATH]
    shape = (cell.panel.series, cell.n_bootstraps)
    statistics = np.asarray(result.statistics)
    loop = np.stack(outputs["loop"])
    for name, values, wanted in (
        (ANCHOR_PATH, statistics, shape),
        ("loop", loop, shape),
        *((("tsbootstrap", np.asarray(outputs["tsbootstrap"]), shape[::-1]),) if "tsbootstrap" in outputs else ()),
    ):
        if values.shape != wanted or not np.all(np.isfinite(values)):
            raise TripwireError(
                f"{label}: path {name} returned statistics of shape {values.shape} (wanted {wanted}) or "
                "non-finite ones; no receipt written"
            )
    if not np.array_equal(statistics, loop):
        differing = int(np.sum(statistics != loop))
        raise TripwireError(
            f"{label}: the panel's statistics differ from the single-series loop's in {differing} of "
            f"{statistics.size} places; they must agree bit for bit; no receipt written"
        )
    return {"fused": bool(result.fused)}


def measure_cell(
    cell: PanelCell,
    warmups: int,
    samples: int,
    skipped: Mapping[str, str],
    progress: Callable[[], object] | None = None,
) -> dict:
    """One cell's receipt entry: the panel, its times, ratios with intervals.

    Parameters
    ----------
    cell : PanelCell
        The cell.
    warmups : int
        Untimed runs per path, the tripwire run included.
    samples : int
        Timed interleaved rounds.
    skipped : mapping of str to str
        Peers not to time.
    progress : callable, optional
        Called after each round.

    Returns
    -------
    dict
        The cell as a panel receipt holds it.

    Raises
    ------
    TripwireError
        A tripwire fired (:func:`check_statistics`, or a path timed at zero).
    """
    label = f"{cell.panel.name} {cell.method} S={cell.panel.series} B={cell.n_bootstraps}"
    paths, facts = cell_paths(cell, skipped)
    facts.update(check_statistics(paths, cell, label))  # an untimed run at the real shape: the first warm-up
    times = timing.time_interleaved(paths, max(warmups - 1, 0), samples, progress)
    for path, samples_s in times.items():
        if not timing.all_positive(samples_s):
            raise TripwireError(f"{label}: path {path} was timed at zero or not at all; no receipt written")
    anchor = times[ANCHOR_PATH]
    net = [floor - per_call for floor, per_call in zip(times["floor"], times["floor_per_call"], strict=True)]
    if not timing.all_positive(net):
        raise TripwireError(f"{label}: the floor's calls alone took as long as the floor; no receipt written")
    return {
        "panel": cell.panel.name,
        "method": cell.method,
        "series": cell.panel.series,
        "n_min": int(cell.panel.lengths().min()),
        "n_max": int(cell.panel.lengths().max()),
        "observations": int(cell.panel.lengths().sum()),
        "n_bootstraps": cell.n_bootstraps,
        "threads": numba.get_num_threads(),
        "fused": facts["fused"],
        "floor_calls": facts["floor_calls"],
        "loop_identical": True,  # check_statistics raised otherwise
        "paths": {path: timing.summary(s) for path, s in times.items()},
        "ratios": {
            path: timing.median_ratio(s, anchor) for path, s in times.items() if path in ("loop", "tsbootstrap")
        },
        "floor_ratios": {
            ANCHOR_PATH: timing.median_ratio(anchor, times["floor"]),
            NET_FLOOR_RATIO: timing.median_ratio(anchor, net),
        },
    }


def run_panel(
    chosen: Iterable[PanelCell],
    warmups: int = 3,
    samples: int = 15,
    profile: str = "custom",
    show_progress: bool = True,
    skipped: Mapping[str, str] | None = None,
) -> dict:
    """Measure ``chosen`` cells and return the sealed panel receipt (not yet written).

    Parameters
    ----------
    chosen : iterable of PanelCell
        The cells (:func:`cells`, :func:`select`).
    warmups : int, optional
        Untimed runs per path (default 3).
    samples : int, optional
        Timed interleaved rounds per cell (default 15).
    profile : str, optional
        The profile the receipt records: ``"full"``, ``"quick"`` or ``"custom"``.
    show_progress : bool, optional
        A progress bar on stderr.
    skipped : mapping of str to str, optional
        Peers not to time, with the reason (default: those not installed,
        :func:`bootmark.bench.grid.peer_status`; arch is never timed here).

    Returns
    -------
    dict
        A sealed receipt of kind ``panel``.

    Raises
    ------
    ValueError
        No cell.
    TripwireError
        A tripwire fired; nothing is returned.
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # idle OpenMP workers would steal the 2 cores
    chosen = list(chosen)
    if not chosen:
        raise ValueError("no panel cell matches the filter; see `bootmark bench --help`")
    started = provenance.collect()
    if skipped is None:
        skipped = {path: reason for path, reason in grid.peer_status().items() if path == "tsbootstrap"}
    bar = tqdm(
        total=len(chosen) * samples,
        desc="panel rounds",
        unit="round",
        file=sys.stderr,
        disable=not show_progress,
        smoothing=0.1,
    )
    try:
        measured = [measure_cell(cell, warmups, samples, skipped, bar.update) for cell in chosen]
    finally:
        bar.close()
    started["threads"] = provenance.threading_state()
    started["finished_utc"] = provenance.utc_now()
    body = {
        "profile": profile,
        "warmups": warmups,
        "samples": samples,
        "statistic": STATISTIC,
        "seed": SEED,
        "block_length": BLOCK_LENGTH,
        "reference_path": ANCHOR_PATH,
        "targets": {"tsbootstrap_over_panel_min": PEER_TARGET, "panel_over_floor_max": FLOOR_TARGET},
        "panels": {cell.panel.name: cell.panel.to_json() for cell in chosen},
        "skipped_paths": dict(skipped),
        "cells": measured,
        "philox_words_per_ns": grid.philox_rates(),
    }
    return receipts.seal("panel", started, body)


def seconds_text(seconds: float) -> str:
    """Seconds to three significant figures, never in exponent form.

    Parameters
    ----------
    seconds : float

    Returns
    -------
    str

    Examples
    --------
    >>> seconds_text(0.42391), seconds_text(1.0842), seconds_text(9.56e-05)
    ('0.424', '1.08', '0.0000956')
    """
    return np.format_float_positional(seconds, precision=3, fractional=False, trim="-")


def peer_floor(cell: Mapping) -> float | None:
    """tsbootstrap's median time over the net floor's (floor minus its per-call cost):
    the ratio to tsbootstrap that an engine doing only the floor's work would reach, None
    when tsbootstrap was not timed. A cell that misses the tsbootstrap target where this
    reaches it misses through the engine's own cost.

    Parameters
    ----------
    cell : mapping
        A panel receipt's cell.

    Returns
    -------
    float or None

    Examples
    --------
    >>> paths = {"tsbootstrap": 1.2, "floor": 0.35, "floor_per_call": 0.05}
    >>> round(peer_floor({"paths": {k: {"median_s": v} for k, v in paths.items()}}), 6)
    4.0
    """
    paths = cell["paths"]
    if "tsbootstrap" not in paths:
        return None
    return paths["tsbootstrap"]["median_s"] / (paths["floor"]["median_s"] - paths["floor_per_call"]["median_s"])


def _ratio_text(ratio: Mapping[str, float]) -> str:
    return f"{ratio['median']:.2f} ({ratio['ci_low']:.2f}-{ratio['ci_high']:.2f})"


def targets(receipt: Mapping) -> tuple[float, float]:
    """(tsbootstrap / panel at least, panel / floor at most): the targets a receipt
    recorded, so an old receipt is read against its own.

    Parameters
    ----------
    receipt : mapping
        A panel receipt.

    Returns
    -------
    tuple of float

    Examples
    --------
    >>> targets({"body": {"targets": {"tsbootstrap_over_panel_min": 3.0, "panel_over_floor_max": 1.2}}})
    (3.0, 1.2)
    """
    recorded = receipt["body"]["targets"]
    return recorded["tsbootstrap_over_panel_min"], recorded["panel_over_floor_max"]


def target_verdicts(cell: Mapping, peer_target: float = PEER_TARGET, floor_target: float = FLOOR_TARGET) -> dict:
    """``{"tsbootstrap": met?, "floor": met?}`` of a receipt's cell, read from the medians
    (None: tsbootstrap was not timed); the floor's on the net ratio (``panel_net``).

    Parameters
    ----------
    cell : mapping
        A panel receipt's cell.
    peer_target, floor_target : float, optional
        The targets (:func:`targets` reads a receipt's).

    Returns
    -------
    dict

    Examples
    --------
    >>> cell = {"ratios": {"tsbootstrap": {"median": 2.5}}, "floor_ratios": {"panel_net": {"median": 1.1}}}
    >>> target_verdicts(cell)
    {'tsbootstrap': False, 'floor': True}
    """
    peer = cell["ratios"].get("tsbootstrap")
    return {
        "tsbootstrap": None if peer is None else peer["median"] >= peer_target,
        "floor": cell["floor_ratios"][NET_FLOOR_RATIO]["median"] <= floor_target,
    }


def lengths_text(cell: Mapping) -> str:
    """A cell's series lengths: ``200``, or ``55–1983`` for a ragged panel.

    Parameters
    ----------
    cell : mapping
        A panel receipt's cell.

    Returns
    -------
    str

    Examples
    --------
    >>> lengths_text({"n_min": 55, "n_max": 1983}), lengths_text({"n_min": 200, "n_max": 200})
    ('55–1983', '200')
    """
    return str(cell["n_min"]) if cell["n_min"] == cell["n_max"] else f"{cell['n_min']}–{cell['n_max']}"


def render_table(receipt: dict) -> str:
    """Markdown table of a panel receipt: per cell, every path's median seconds, then
    tsbootstrap / panel and panel / floor net of the floor's per-call cost against the
    receipt's targets, each met or MISSED on its median (a tsbootstrap miss says whether
    the floor itself reaches the target, :func:`peer_floor`), panel / floor gross, and
    loop / panel with its win / LOSS / tie verdict (interval above, below or across 1).

    Parameters
    ----------
    receipt : dict
        A panel receipt.

    Returns
    -------
    str
        The table.
    """
    peer_target, floor_target = targets(receipt)
    lines = [
        "| panel | method | series | n | B | panel s | loop s | tsbootstrap s | floor s | floor per-call s | "
        f"tsbootstrap / panel (target ≥ {peer_target:g}) | panel / net floor (target ≤ {floor_target:g}) | "
        "panel / floor, gross | loop / panel |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|",
    ]
    for cell in receipt["body"]["cells"]:
        paths, ratios = cell["paths"], cell["ratios"]
        met = target_verdicts(cell, peer_target, floor_target)
        seconds = [seconds_text(paths[p]["median_s"]) if p in paths else "–" for p in PATHS]
        peer = ratios.get("tsbootstrap")
        peer_text = "–" if peer is None else f"{_ratio_text(peer)}: {'met' if met['tsbootstrap'] else 'MISSED'}"
        if met["tsbootstrap"] is False:
            reach = peer_floor(cell)
            peer_text += f" ({'the' if reach >= peer_target else 'even the'} floor is {reach:.1f}x)"
        floors = cell["floor_ratios"]
        floor_text = f"{_ratio_text(floors[NET_FLOOR_RATIO])}: {'met' if met['floor'] else 'MISSED'}"
        loop = ratios["loop"]
        lines.append(
            f"| {cell['panel']} | {cell['method']} | {cell['series']:,} | {lengths_text(cell)} | "
            f"{cell['n_bootstraps']} | {' | '.join(seconds)} | {peer_text} | {floor_text} | "
            f"{_ratio_text(floors[ANCHOR_PATH])} | {_ratio_text(loop)}: {grid.ratio_verdict(loop)} |"
        )
    return "\n".join(lines)


def render_summary(receipt: dict) -> str:
    """One line: how many cells meet each of the receipt's targets, of how many.

    Parameters
    ----------
    receipt : dict
        A panel receipt.

    Returns
    -------
    str
    """
    peer_target, floor_target = targets(receipt)
    verdicts = [target_verdicts(cell, peer_target, floor_target) for cell in receipt["body"]["cells"]]
    peer = [v["tsbootstrap"] for v in verdicts if v["tsbootstrap"] is not None]
    floor = [v["floor"] for v in verdicts]
    return (
        f"tsbootstrap / panel ≥ {peer_target:g}: met in {sum(peer)} of {len(peer)} cells; "
        f"panel / net floor ≤ {floor_target:g}: met in {sum(floor)} of {len(floor)} cells."
    )
