"""``bootmark bench``: the head-to-head timing grid, written as a receipt.

For each cell (method x n x B; block length 10, mean 10 for stationary) it times, in one
process and interleaved (see ``bootmark.core.timing``):

* ``engine_reduce``:      engine.bootstrap_reduce(x, method, "mean", B)   (the anchor path: every ratio's denominator)
* ``engine_materialize``: engine.bootstrap(x, method, B).values().mean(axis=1)
* ``arch``:               arch.bootstrap.XBootstrap(...).apply(np.mean, reps=B)
* ``tsbootstrap``:        tsbootstrap.bootstrap_reduce(..., statistic="mean", backend="compiled")
* floors (``bootmark.bench.floors``), timed in the same rounds: ``philox_floor`` (the Philox
  words the method needs, generated a batch of replicates at a time and nothing else),
  ``gather_floor`` (those words mapped to starts without rejection and the data summed:
  the fused reduce's unavoidable work; for stationary cells
  ``floors.stationary_gather_floor``, with its varying, wrapping blocks),
  and where materialize is timed ``fill_fresh`` / ``fill_touched`` (writing B x n float64
  into a fresh array / one touched before). ``floor_ratios`` give each engine path's
  time over its floor (engine_reduce / gather_floor, engine_materialize / fill_fresh).
* ``per_call``: the same fused reduce with B = 1, the call's own cost (argument checks,
  centring, prefix sums, planning), which a small cell's floor miss is read against.

The receipt's body also gives the floors' Philox throughput, words per ns on 1 thread
and on all of them (``philox_words_per_ns``).

The full grid is {iid, moving, circular, stationary} x n in {200, 2000, 10000} x B in
{999, 10000}, plus the scale cells n = 1e5 (B = 1000) and n = 1e6 (B = 100) for every
method, so that a cost that grows with n shows up where users meet it. Materialize is
timed where B x n float64 fits the engine's default 1 GiB memory budget. The quick
profile (quick receipts for `bootmark compare`) holds n = 2000, B = 999 for every method and one n = 1e5
i.i.d. cell.

Model-based cells (method ``residual_wild``: ResidualBootstrap(AR(1), Wild("rademacher"))
on an AR(1) path with phi = 0.5, n in {600, 5000}, B in {999, 10000}) time the AR(1)
slope of every replicate instead of the mean:

* ``engine_reduce``:      engine.bootstrap_reduce(x, method, "ar_coef", B), column 1: fused
  regenerate-and-refit, no paths kept
* ``engine_materialize``: engine.bootstrap(x, method, B).values(), then the slope of every
  path by vectorised OLS
* ``tsbootstrap``:        the published workflow, tsbootstrap.bootstrap(x,
  method=ResidualBootstrap(model=AR(order=1), innovation=Wild()), n_bootstraps=B) and
  the same vectorised OLS slope of every path (the fastest refit numpy offers, so the
  baseline is not handicapped by a Python loop)

``arch`` has no model-based bootstrap: those cells skip it, and say so.

Ratios are path time / engine_reduce time per round (> 1: the engine's reduce is faster),
with a moving-block bootstrap interval on their median. Sentinel cells (one Numba
thread, n = 2000, B = 10000, engine reduce and arch only) track per-replicate cost
without scheduling noise. A peer that is not installed is skipped with the reason
recorded. Tripwires stop the run, before anything is written, on a path timed at zero,
a non-finite statistic, or engine reduce disagreeing with materialize-then-reduce.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Mapping

import numba
import numpy as np
from tqdm import tqdm

from bootmark import engine
from bootmark.core import provenance, receipts, timing
from bootmark.core.records import CellSpec
from bootmark.core.simulate import ar1

__all__ = [
    "ANCHOR_PATH",
    "BLOCK_LENGTH",
    "INTERVAL_COST_BAR",
    "INTERVAL_PHI",
    "INTERVAL_REPLICATES",
    "METHODS",
    "MODEL_METHODS",
    "SCALE_CELLS",
    "CellSpec",
    "TripwireError",
    "arch_path",
    "cell_paths",
    "cell_series",
    "check_statistics",
    "engine_method",
    "engine_reduce_path",
    "grid",
    "materialize_timed",
    "measure_cell",
    "parse_filters",
    "peer_status",
    "ratio_verdict",
    "render_interval_costs",
    "render_scaling",
    "render_table",
    "render_targets",
    "run_grid",
    "select",
]

METHODS = ("iid", "moving", "circular", "stationary")
SIZES = (200, 2000, 10000)
REPLICATES = (999, 10000)
MODEL_METHODS = ("residual_wild",)
MODEL_SIZES = (600, 5000)
MODEL_PHI = 0.5
# The "intervals" profile: what an interval kind costs against the percentile interval
# with the same B, at S1-length's n, on its AR(1) (phi = 0.7) and its resampler
# (MovingBlock("auto")). The anchor path there is the whole percentile interval.
INTERVAL_METHODS = ("interval_mean",)
INTERVAL_SIZES = (100, 200, 500, 1000, 2000)
INTERVAL_REPLICATES = 999
INTERVAL_PHI = 0.7
INTERVAL_ALPHA = 0.10
INTERVAL_COST_BAR = 5.0  # issue 16: the small-n interval at most 5x the percentile interval's time
NO_ARCH_MODEL = "arch has no model-based (residual) bootstrap"
BLOCK_LENGTH = 10
SENTINEL_SIZE, SENTINEL_REPLICATES = 2000, 10000
SCALE_CELLS = tuple((method, n, b) for n, b in ((100_000, 1000), (1_000_000, 100)) for method in METHODS)
QUICK_CELLS = tuple((method, 2000, 999) for method in METHODS) + (("iid", 100_000, 1000),)
FLOOR_PATHS = ("philox_floor", "gather_floor", "fill_fresh", "fill_touched", "per_call")
# per_call is no floor but a bound of the same kind: the engine's fused reduce with B = 1,
# what a call costs before its replicates (argument checks, centring, prefix sums,
# planning), timed in the same rounds so a small cell's miss can be read against it.
PER_CALL_PATH = "per_call"
ANCHOR_PATH = "engine_reduce"
MATERIALIZE_PATH = "engine_materialize"


class TripwireError(RuntimeError):
    """An implausible aggregate signal: the run stops and no receipt is written.

    A ``RuntimeError``, raised by :func:`check_statistics` (a non-finite statistic, or
    engine reduce disagreeing with materialize-then-reduce) and :func:`measure_cell` (a
    path timed at zero).
    """


def grid(profile: str) -> list[CellSpec]:
    """The :class:`CellSpec` cells of a profile: "full", "quick" or "intervals".

    Parameters
    ----------
    profile : str
        ``"full"``, ``"quick"`` or ``"intervals"`` (module docstring).

    Returns
    -------
    list of CellSpec
        The cells, sentinel cells last (the intervals profile has none).

    Raises
    ------
    ValueError
        ``profile`` is not one of the three.

    Examples
    --------
    >>> from bootmark.bench.grid import grid
    >>> cells = grid("quick")
    >>> len(cells), cells[0]
    (9, CellSpec(method='iid', n=2000, n_bootstraps=999, sentinel=False))
    >>> cells[-1]
    CellSpec(method='stationary', n=2000, n_bootstraps=10000, sentinel=True)
    """
    if profile == "full":
        cells = [(m, n, b) for m in METHODS for n in SIZES for b in REPLICATES]
        cells += list(SCALE_CELLS)
        cells += [(m, n, b) for m in MODEL_METHODS for n in MODEL_SIZES for b in REPLICATES]
    elif profile == "quick":
        cells = list(QUICK_CELLS)
    elif profile == "intervals":
        return [CellSpec(m, n, INTERVAL_REPLICATES, False) for m in INTERVAL_METHODS for n in INTERVAL_SIZES]
    else:
        raise ValueError(f"profile must be 'full', 'quick' or 'intervals', got {profile!r}")
    return [CellSpec(m, n, b, False) for m, n, b in cells] + [
        CellSpec(m, SENTINEL_SIZE, SENTINEL_REPLICATES, True) for m in METHODS
    ]


def select(cells: Iterable[CellSpec | tuple], filters: Mapping[str, str]) -> list:
    """Cells matching every ``key=value`` filter (keys: method, n, B, sentinel).

    Parameters
    ----------
    cells : iterable of CellSpec or tuple
        The cells to filter.
    filters : mapping of str to str
        Wanted values as strings (:func:`parse_filters`); ``sentinel`` is ``"true"`` or
        ``"false"``.

    Returns
    -------
    list
        The matching cells, in order, as given.

    Raises
    ------
    ValueError
        A filter key is not method, n, B or sentinel.

    Examples
    --------
    >>> from bootmark.bench.grid import grid, parse_filters, select
    >>> for cell in select(grid("quick"), parse_filters("method=iid,sentinel=false")):
    ...     print(cell)
    CellSpec(method='iid', n=2000, n_bootstraps=999, sentinel=False)
    CellSpec(method='iid', n=100000, n_bootstraps=1000, sentinel=False)
    """

    def keep(cell):
        cell = CellSpec(*cell)
        fields = {
            "method": cell.method,
            "n": str(cell.n),
            "B": str(cell.n_bootstraps),
            "sentinel": str(cell.sentinel).lower(),
        }
        return all(fields.get(key) == value for key, value in filters.items())

    unknown = set(filters) - {"method", "n", "B", "sentinel"}
    if unknown:
        raise ValueError(f"unknown cell filter {sorted(unknown)}; use method=, n=, B= or sentinel=")
    return [cell for cell in cells if keep(cell)]


def parse_filters(text: str) -> dict[str, str]:
    """ "n=200,method=iid" -> {"n": "200", "method": "iid"}.

    Parameters
    ----------
    text : str
        Comma-separated ``key=value`` pairs (``bootmark bench --cells``).

    Returns
    -------
    dict of str to str
        The filters for :func:`select`.

    Raises
    ------
    ValueError
        A part is not ``key=value``.

    Examples
    --------
    >>> from bootmark.bench.grid import parse_filters
    >>> parse_filters("n=200, method=iid")
    {'n': '200', 'method': 'iid'}
    >>> parse_filters("n")
    Traceback (most recent call last):
        ...
    ValueError: cell filter 'n' is not key=value, e.g. method=iid,n=2000
    """
    filters = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, separator, value = part.partition("=")
        if not separator or not value:
            raise ValueError(f"cell filter {part!r} is not key=value, e.g. method=iid,n=2000")
        filters[key] = value
    return filters


def engine_method(name: str) -> object:
    """The engine's resampler spec for a cell's method name.

    Parameters
    ----------
    name : str
        A method of :data:`METHODS`, :data:`MODEL_METHODS` or ``INTERVAL_METHODS``.

    Returns
    -------
    object
        An engine spec: ``IID()``, a block spec with :data:`BLOCK_LENGTH`,
        ``ResidualBootstrap(AR(1), Wild("rademacher"))`` or ``MovingBlock("auto")``.

    Raises
    ------
    KeyError
        ``name`` is no bench method.

    Examples
    --------
    >>> from bootmark.bench.grid import engine_method
    >>> engine_method("moving")
    MovingBlock(block_length=10)
    """
    if name == "residual_wild":
        return engine.ResidualBootstrap(engine.AR(1), engine.Wild("rademacher"))
    if name in INTERVAL_METHODS:
        return engine.MovingBlock("auto")
    return {
        "iid": engine.IID(),
        "moving": engine.MovingBlock(BLOCK_LENGTH),
        "circular": engine.CircularBlock(BLOCK_LENGTH),
        "stationary": engine.StationaryBlock(BLOCK_LENGTH),
    }[name]


def ar1_slopes(paths):
    """OLS slope of x_t on (1, x_{t-1}) for every row of a (B, n) array, vectorised.

    studies.dgp.ols_ar1_slope computes the same slope, but its summed products allocate a
    third (B, n) temporary; the timed baseline gets numpy's leanest refit (einsum), so
    the ratio is not flattered by a slow one."""
    lagged, current = paths[:, :-1], paths[:, 1:]
    lagged = lagged - lagged.mean(axis=1, keepdims=True)
    current = current - current.mean(axis=1, keepdims=True)
    return np.einsum("ij,ij->i", lagged, current) / np.einsum("ij,ij->i", lagged, lagged)


def _model_series(n):
    """An AR(1) path with phi = MODEL_PHI from numpy's default_rng(n), burn-in 500 (studies.dgp.ar1)."""
    return ar1(n, MODEL_PHI, seed=n)


def arch_path(name: str, x: np.ndarray, n_bootstraps: int) -> Callable[[], np.ndarray]:
    """Zero-argument callable: arch 8.0.0's resampler for ``name`` applying np.mean B times.

    Parameters
    ----------
    name : str
        One of :data:`METHODS`.
    x : numpy.ndarray
        The series.
    n_bootstraps : int
        The replicates B.

    Returns
    -------
    callable
        Returns the B replicate means (seed 1); imports arch when made.

    Raises
    ------
    ImportError
        arch is not installed.
    """
    # peer: arch loads scipy and pandas; imported only when an arch path is timed
    from arch.bootstrap import CircularBlockBootstrap, IIDBootstrap, MovingBlockBootstrap, StationaryBootstrap

    def run():
        if name == "iid":
            resampler = IIDBootstrap(x, seed=1)
        else:
            kind = {
                "moving": MovingBlockBootstrap,
                "circular": CircularBlockBootstrap,
                "stationary": StationaryBootstrap,
            }[name]
            resampler = kind(BLOCK_LENGTH, x, seed=1)
        return resampler.apply(np.mean, reps=n_bootstraps)[:, 0]

    return run


def _tsbootstrap_path(name, x, n_bootstraps):
    # optional peer (the peers extra); imported only when its path is timed
    import tsbootstrap as tb

    if name == "residual_wild":
        model_method = tb.ResidualBootstrap(model=tb.AR(order=1), innovation=tb.Wild())

        def refit():
            paths = tb.bootstrap(x, method=model_method, n_bootstraps=n_bootstraps, random_state=1).values()
            return ar1_slopes(np.asarray(paths, dtype=float))

        return refit
    method = {
        "iid": lambda: tb.IID(),
        "moving": lambda: tb.MovingBlock(block_length=BLOCK_LENGTH),
        "circular": lambda: tb.CircularBlock(block_length=BLOCK_LENGTH),
        "stationary": lambda: tb.StationaryBlock(avg_block_length=BLOCK_LENGTH),
    }[name]()

    def run():
        return tb.bootstrap_reduce(
            x, method=method, statistic="mean", n_bootstraps=n_bootstraps, random_state=1, backend="compiled"
        ).statistics

    return run


def _floor_paths(name, x, n_bootstraps, materialized):
    """The floors of a cell (module docstring), as zero-argument callables."""
    # late on purpose: floors reads engine internals that older source trees, timed by
    # `bootmark versus` workers through this module, may not have
    from bootmark.bench import floors

    n = x.shape[0]
    block_length = 1 if name == "iid" else BLOCK_LENGTH
    words = floors.words_per_replicate(name, n, BLOCK_LENGTH)
    prefix = floors.block_prefix(x, block_length)
    gather = floors.stationary_gather_floor if name == "stationary" else floors.gather_floor
    method = engine_method(name)
    paths = {
        "philox_floor": lambda: floors.philox_floor(words, n_bootstraps),
        "gather_floor": lambda: gather(prefix, n, block_length, n_bootstraps),
        PER_CALL_PATH: lambda: engine.bootstrap_reduce(x, method, "mean", 1, seed=1).statistics,
    }
    if materialized:
        touched = floors.fill_floor(shape=(n_bootstraps, n))
        paths["fill_fresh"] = lambda: floors.fill_floor(shape=(n_bootstraps, n))
        paths["fill_touched"] = lambda: floors.fill_floor(touched)
    return paths


def materialize_timed(n: int, n_bootstraps: int) -> bool:
    """Whether a cell times materialize: B x n float64 within the default memory budget.

    Parameters
    ----------
    n, n_bootstraps : int
        The series length and the replicates B.

    Returns
    -------
    bool
        ``8 n B <= engine.DEFAULT_MEMORY_BUDGET`` (bytes).

    Examples
    --------
    >>> from bootmark.bench.grid import materialize_timed
    >>> materialize_timed(2000, 999), materialize_timed(1_000_000, 1000)
    (True, False)
    """
    # late on purpose: older source trees, timed by `bootmark versus` workers through this
    # module, have no DEFAULT_MEMORY_BUDGET
    from bootmark.engine import DEFAULT_MEMORY_BUDGET

    return n * n_bootstraps * 8 <= DEFAULT_MEMORY_BUDGET


def peer_status() -> dict[str, str]:
    """{path: reason} for peers that cannot be timed here.

    Returns
    -------
    dict of str to str
        ``"arch"`` and ``"tsbootstrap"`` when not installed, each with the pip command
        that installs the timed version; empty when both are.
    """
    skipped = {}
    for path, module, version in (("arch", "arch", "8.0.0"), ("tsbootstrap", "tsbootstrap", "0.7.3")):
        found = provenance.package_version(module)
        if found is None:
            skipped[path] = f"{module} is not installed (pip install {module}=={version})"
    return skipped


def cell_series(name: str, n: int) -> np.ndarray:
    """The series a cell resamples: an AR(1) path for model methods, else numpy's
    default_rng(n) standard normals.

    Parameters
    ----------
    name : str
        The cell's method.
    n : int
        The series length (also the seed).

    Returns
    -------
    numpy.ndarray
        ``n`` float64 values, the same on every run.

    Examples
    --------
    >>> import numpy as np
    >>> from bootmark.bench.grid import cell_series
    >>> x = cell_series("iid", 2000)
    >>> x.shape, bool(np.array_equal(x, np.random.default_rng(2000).standard_normal(2000)))
    ((2000,), True)
    """
    if name in INTERVAL_METHODS:
        return ar1(n, INTERVAL_PHI, seed=n)
    return _model_series(n) if name in MODEL_METHODS else np.random.default_rng(n).standard_normal(n)


def engine_reduce_path(name: str, x: np.ndarray, n_bootstraps: int) -> Callable[[], np.ndarray]:
    """Zero-argument callable, the anchor path: the engine's fused reduce of ``x`` (the
    AR(1) slope column of ``ar_coef`` for model methods, else the mean), seed 1.

    ``bootmark.bench.versus`` times this same callable against another revision's engine.

    Parameters
    ----------
    name : str
        The cell's method (:func:`engine_method`).
    x : numpy.ndarray
        The series (:func:`cell_series`).
    n_bootstraps : int
        The replicates B.

    Returns
    -------
    callable
        Returns the B statistics (for interval methods: the percentile interval's
        bounds).
    """

    method = engine_method(name)
    if name in INTERVAL_METHODS:
        return interval_path(x, method, "percentile", n_bootstraps)
    if name in MODEL_METHODS:
        return lambda: engine.bootstrap_reduce(x, method, "ar_coef", n_bootstraps, seed=1).component(1)
    return lambda: engine.bootstrap_reduce(x, method, "mean", n_bootstraps, seed=1).statistics


def interval_path(x, method, kind, n_bootstraps):
    """Zero-argument callable: the whole ``kind`` interval of the mean of ``x`` (block
    length resolved, replicates drawn and reduced, bounds), as an array (lower, upper)."""

    return lambda: np.array(
        tuple(engine.conf_int(x, "mean", method, alpha=INTERVAL_ALPHA, kind=kind, n_bootstraps=n_bootstraps, seed=1))[
            :2
        ]
    )


def cell_paths(
    name: str, n: int, n_bootstraps: int, sentinel: bool, skipped: Mapping[str, str]
) -> dict[str, Callable[[], object]]:
    """The zero-argument callables timed in one cell, anchor path first.

    Parameters
    ----------
    name, n, n_bootstraps, sentinel
        The cell (:class:`CellSpec`).
    skipped : mapping of str to str
        Peers not to time (:func:`peer_status`).

    Returns
    -------
    dict of str to callable
        Path name -> callable (module docstring for which paths a cell times).
    """
    method = engine_method(name)
    x = cell_series(name, n)
    paths = {ANCHOR_PATH: engine_reduce_path(name, x, n_bootstraps)}
    if name in INTERVAL_METHODS:
        paths.update({kind: interval_path(x, method, kind, n_bootstraps) for kind in ("studentized", "calibrated")})
        return paths
    if name in MODEL_METHODS:
        paths[MATERIALIZE_PATH] = lambda: ar1_slopes(
            engine.bootstrap(x, method, n_bootstraps, seed=1, memory_budget=16 << 30).values()
        )
        if "tsbootstrap" not in skipped:
            paths["tsbootstrap"] = _tsbootstrap_path(name, x, n_bootstraps)
        return paths
    materialized = not sentinel and materialize_timed(n, n_bootstraps)
    if materialized:
        paths[MATERIALIZE_PATH] = lambda: engine.bootstrap(x, method, n_bootstraps, seed=1).values().mean(axis=1)
    if "arch" not in skipped:
        paths["arch"] = arch_path(name, x, n_bootstraps)
    if not sentinel and "tsbootstrap" not in skipped:
        paths["tsbootstrap"] = _tsbootstrap_path(name, x, n_bootstraps)
    if not sentinel:
        paths.update(_floor_paths(name, x, n_bootstraps, materialized))
    return paths


def check_statistics(paths: Mapping[str, Callable[[], object]], label: str) -> None:
    """Tripwires on one run of each statistic path: finite results, and engine reduce
    equal to materialize-then-reduce within the engine's stated accuracy.

    Parameters
    ----------
    paths : mapping of str to callable
        A cell's paths (:func:`cell_paths`); each runs once.
    label : str
        The cell, as error messages name it.

    Raises
    ------
    TripwireError
        A statistic is not finite, or engine reduce and materialize differ by more than
        1e-9 (or in shape).
    """
    outputs = {name: run() for name, run in paths.items()}  # every path runs: this is its first warm-up
    results = {name: np.asarray(out, dtype=float) for name, out in outputs.items() if name not in FLOOR_PATHS}
    for name, values in results.items():
        if not np.all(np.isfinite(values)):
            raise TripwireError(f"{label}: path {name} returned a non-finite statistic; no receipt written")
    if MATERIALIZE_PATH in results:
        reduce_values, materialized = results[ANCHOR_PATH], results[MATERIALIZE_PATH]
        # Block algebra and pairwise sums differ from numpy's mean by a few ulps of the
        # data's scale (engine/reduce.py); 1e-9 leaves room for that and for nothing else.
        if reduce_values.shape != materialized.shape or not np.allclose(reduce_values, materialized, rtol=0, atol=1e-9):
            worst = float(np.max(np.abs(reduce_values - materialized)))
            raise TripwireError(
                f"{label}: engine reduce disagrees with materialize-then-reduce (max |diff| "
                f"{worst:.3g}); no receipt written"
            )


def measure_cell(
    name: str,
    n: int,
    n_bootstraps: int,
    sentinel: bool,
    warmups: int,
    samples: int,
    skipped: Mapping[str, str],
    progress: Callable[[], object] | None = None,
) -> dict:
    """One cell's receipt entry (times, summaries, ratios with intervals).

    Parameters
    ----------
    name, n, n_bootstraps, sentinel
        The cell (:class:`CellSpec`); a sentinel runs on one Numba thread.
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
        The cell as a bench receipt holds it (:class:`bootmark.core.records.BenchCell`).

    Raises
    ------
    TripwireError
        A tripwire fired (:func:`check_statistics`, or a path timed at zero).
    """
    label = f"{name} n={n} B={n_bootstraps}{' sentinel' if sentinel else ''}"
    paths = cell_paths(name, n, n_bootstraps, sentinel, skipped)
    threads_before = numba.get_num_threads()
    try:
        if sentinel:
            numba.set_num_threads(1)
        check_statistics(paths, label)  # an untimed run at the real shape: it is the first warm-up
        times = timing.time_interleaved(paths, max(warmups - 1, 0), samples, progress)
        threads = numba.get_num_threads()
    finally:
        numba.set_num_threads(threads_before)
    for path, samples_s in times.items():
        if not timing.all_positive(samples_s):
            raise TripwireError(f"{label}: path {path} was timed at zero or not at all; no receipt written")
    anchor = times[ANCHOR_PATH]
    cell = {
        "method": name,
        "n": n,
        "n_bootstraps": n_bootstraps,
        "threads": threads,
        "sentinel": sentinel,
        "paths": {path: timing.summary(s) for path, s in times.items()},
        "ratios": {path: timing.median_ratio(s, anchor) for path, s in times.items() if path != ANCHOR_PATH},
    }
    if MATERIALIZE_PATH in times and "arch" in times:
        # arch's apply() also hands every resample to a Python statistic; tsbootstrap's
        # timed path is its fused reduce, so materializing is judged against arch only.
        cell["materialize_ratios"] = {"arch": timing.median_ratio(times["arch"], times[MATERIALIZE_PATH])}
    floors = {
        path: floor
        for path, floor in ((ANCHOR_PATH, "gather_floor"), (MATERIALIZE_PATH, "fill_fresh"))
        if path in times and floor in times
    }
    if floors:
        # path time / floor time, per round: how far above the unavoidable work (>= 1).
        cell["floor_ratios"] = {path: timing.median_ratio(times[path], times[floor]) for path, floor in floors.items()}
    return cell


def run_grid(
    cells: Iterable[CellSpec | tuple],
    warmups: int = 3,
    samples: int = 15,
    profile: str = "custom",
    show_progress: bool = True,
) -> dict:
    """Measure ``cells`` and return the sealed receipt (not yet written).

    Parameters
    ----------
    cells : sequence of CellSpec or tuple
        The cells (:func:`grid`, :func:`select`).
    warmups : int, optional
        Untimed runs per path (default 3).
    samples : int, optional
        Timed interleaved rounds per cell (default 15).
    profile : str, optional
        The profile name the receipt records.
    show_progress : bool, optional
        Show a progress bar on stderr.

    Returns
    -------
    dict
        A sealed bench receipt (:func:`bootmark.core.receipts.seal`).

    Raises
    ------
    ValueError
        ``cells`` is empty.
    TripwireError
        A tripwire fired; nothing is returned.
    bootmark.core.receipts.ReceiptError
        The receipt fails its schema.

    See Also
    --------
    bootmark.core.receipts.write_receipt : write the receipt.
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # idle OpenMP workers would steal the 2 cores
    if not cells:
        raise ValueError("no cell matches the filter; see `bootmark bench --help` for the grid")
    started = provenance.collect()
    skipped = peer_status()
    bar = _progress_bar(len(cells) * samples, show_progress)
    try:
        measured = [measure_cell(*cell, warmups, samples, skipped, bar.update) for cell in cells]
    finally:
        bar.close()
    started["threads"] = provenance.threading_state()
    started["finished_utc"] = provenance.utc_now()
    body = {
        "profile": profile,
        "warmups": warmups,
        "samples": samples,
        "block_length": BLOCK_LENGTH,
        "reference_path": ANCHOR_PATH,  # the receipt key keeps its first name: receipts stay byte-compatible
        "skipped_paths": skipped,
        "cells": measured,
        "philox_words_per_ns": philox_rates(),
    }
    return receipts.seal("bench", started, body)


def philox_rates() -> dict[str, float]:
    """Words per nanosecond of the floors' Philox generator on 1 and on every Numba thread
    (:func:`bootmark.bench.floors.philox_throughput`), keyed by the thread count as a
    string: the ceiling every floor in the receipt sits under.

    Returns
    -------
    dict of str to float
        ``{"1": rate, "2": rate}`` on a 2-core machine.
    """
    from bootmark.bench import floors  # late: see _floor_paths

    counts = sorted({1, numba.get_num_threads()})
    return {str(threads): round(floors.philox_throughput(threads), 4) for threads in counts}


def _progress_bar(total, show):
    return tqdm(total=total, desc="bench rounds", unit="round", file=sys.stderr, disable=not show, smoothing=0.1)


def ratio_verdict(ratio: Mapping[str, float]) -> str:
    """``win``, ``LOSS`` or ``tie``: a peer ratio (peer time / engine time) whose 95% interval
    lies wholly above 1, wholly below 1, or across it.

    Parameters
    ----------
    ratio : Mapping
        A receipt's ratio, with ``ci_low`` and ``ci_high``.

    Returns
    -------
    str

    Examples
    --------
    >>> ratio_verdict({"median": 0.8, "ci_low": 0.75, "ci_high": 0.85})
    'LOSS'
    """
    return "win" if ratio["ci_low"] > 1 else "LOSS" if ratio["ci_high"] < 1 else "tie"


def render_interval_costs(receipt: dict) -> str:
    """Markdown table of an "intervals" receipt: per n, each interval kind's median time
    against the percentile interval's, from the same interleaved rounds, and whether the
    studentized interval keeps within INTERVAL_COST_BAR (judged on the ratio's upper end).

    Parameters
    ----------
    receipt : dict
        A bench receipt of the intervals profile; other cells are left out.

    Returns
    -------
    str
        The table, times in milliseconds.

    Examples
    --------
    >>> import os
    >>> from bootmark.bench import grid as bench
    >>> from bootmark.core import receipts, workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "bench")
    >>> receipt = receipts.load_receipt(os.path.join(folder, "bench-amd-epyc-20261203T221558Z-dd88ddf67d.json"))
    >>> print(bench.render_interval_costs(receipt).splitlines()[2])
    | 100 | 999 | 0.87 | 1.28 | 1.66 (1.47-1.76) | yes | 17.4 | 19 |
    """
    lines = [
        "| n | B | percentile ms | studentized ms | studentized / percentile (95% CI) | within "
        f"{INTERVAL_COST_BAR:g}x | calibrated ms | calibrated / percentile |",
        "|---:|---:|---:|---:|---|---|---:|---:|",
    ]
    for cell in receipt["body"]["cells"]:
        if cell["method"] not in INTERVAL_METHODS:
            continue
        paths, ratios = cell["paths"], cell["ratios"]
        studentized, calibrated = ratios["studentized"], ratios["calibrated"]
        verdict = (
            "yes"
            if studentized["ci_high"] <= INTERVAL_COST_BAR
            else ("NO" if studentized["ci_low"] > INTERVAL_COST_BAR else "unclear")
        )
        lines.append(
            f"| {cell['n']} | {cell['n_bootstraps']} | {paths[ANCHOR_PATH]['median_s'] * 1e3:.2f} | "
            f"{paths['studentized']['median_s'] * 1e3:.2f} | {studentized['median']:.2f} "
            f"({studentized['ci_low']:.2f}-{studentized['ci_high']:.2f}) | {verdict} | "
            f"{paths['calibrated']['median_s'] * 1e3:.1f} | {calibrated['median']:.0f} |"
        )
    return "\n".join(lines)


def render_table(receipt: dict) -> str:
    """Markdown table of a bench receipt: one row per (cell, compared path) with medians
    and the ratio's interval. Against a peer the verdict is win / LOSS / tie (interval
    above, below or across 1).

    Parameters
    ----------
    receipt : dict
        A bench receipt.

    Returns
    -------
    str
        The table, times in milliseconds; floors are left out (:func:`render_scaling`).

    Examples
    --------
    >>> import os
    >>> from bootmark.bench import grid as bench
    >>> from bootmark.core import receipts, workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "bench")
    >>> receipt = receipts.load_receipt(os.path.join(folder, "bench-amd-epyc-20261203T181926Z-f0d3e52745.json"))
    >>> print(bench.render_table(receipt).splitlines()[2])
    | iid | 2000 | 999 | 2 | engine_reduce | 3.44 | arch | 30.36 | 8.88 (7.67-9.48) | win |
    """
    lines = [
        "| method | n | B | threads | engine path | engine ms | vs | vs ms | ratio (95% CI) | verdict |",
        "|---|---:|---:|---:|---|---:|---|---:|---|---|",
    ]
    for cell in receipt["body"]["cells"]:
        name = cell["method"] + (" (sentinel)" if cell["sentinel"] else "")
        # Floors have their own table (``render_scaling``); here the contest only.
        comparisons = [(ANCHOR_PATH, path, ratio) for path, ratio in cell["ratios"].items() if path not in FLOOR_PATHS]
        comparisons += [(MATERIALIZE_PATH, path, ratio) for path, ratio in cell.get("materialize_ratios", {}).items()]
        for ours, theirs, ratio in comparisons:
            verdict = "fused gain" if theirs == MATERIALIZE_PATH else ratio_verdict(ratio)
            lines.append(
                f"| {name} | {cell['n']} | {cell['n_bootstraps']} | {cell['threads']} | {ours} | "
                f"{cell['paths'][ours]['median_s'] * 1e3:.2f} | {theirs} | "
                f"{cell['paths'][theirs]['median_s'] * 1e3:.2f} | {ratio['median']:.2f} "
                f"({ratio['ci_low']:.2f}-{ratio['ci_high']:.2f}) | {verdict} |"
            )
    return "\n".join(lines)


# The speed targets a reduce cell is read against (issue 31): the engine within
# FLOOR_TARGET of its gather floor at every n; PEER_TARGETS[peer][method] = (target,
# largest n it applies to): arch over the engine, tsbootstrap over the engine.
FLOOR_TARGET = 1.3
PEER_TARGETS = {
    "arch": {"iid": (10.0, 2000), "moving": (40.0, 10_000), "circular": (40.0, 10_000), "stationary": (15.0, 10_000)},
    "tsbootstrap": {method: (4.0, 10_000) for method in ("iid", "moving", "circular", "stationary")},
}


def _median(cell, path):
    return cell["paths"][path]["median_s"] if path in cell["paths"] else None


def _floor_verdict(cell):
    """ "ratio: verdict" for engine / gather floor, a miss with its cause read from the
    same cell: the per-call cost's share of the call, or the replicate work over the floor."""
    ratio = cell["floor_ratios"][ANCHOR_PATH]
    to_floor = ratio["median"]
    if ratio["ci_high"] < 1.0:  # the whole interval below 1: not noise
        return f"{to_floor:.2f}: MISSED (the floor is slower than the engine here: it bounds nothing)"
    if to_floor <= FLOOR_TARGET:
        return f"{to_floor:.2f}: met"
    engine_s, call_s, floor_s = _median(cell, ANCHOR_PATH), _median(cell, PER_CALL_PATH), _median(cell, "gather_floor")
    if call_s is None:
        return f"{to_floor:.2f}: MISSED"
    work = max(engine_s - call_s, 0.0) / floor_s
    cause = (
        f"per-call cost {call_s * 1e3:.3f} ms is {call_s / engine_s:.0%} of the call"
        if work <= FLOOR_TARGET
        else f"replicates at {work:.2f}x the floor, per-call cost {call_s / engine_s:.0%}"
    )
    return f"{to_floor:.2f}: MISSED ({cause})"


def _against(cell, peer):
    """ "ratio: verdict" for peer time over engine time against the peer's target, "–"
    where no target applies or the peer was not timed; a miss says whether the floor
    itself reaches the target (peer / floor)."""
    target, largest_n = PEER_TARGETS[peer].get(cell["method"], (None, 0))
    ratios = cell["ratios"]
    if target is None or cell["n"] > largest_n or peer not in ratios:
        return "–"
    ours = ratios[peer]["median"]
    if ours >= target:
        return f"{ours:.1f}: met"
    if "gather_floor" not in ratios:
        return f"{ours:.1f}: MISSED"
    floor = ours / ratios["gather_floor"]["median"]
    cause = f"even the floor is {floor:.1f}x" if floor < target else f"the floor is {floor:.1f}x"
    return f"{ours:.1f}: MISSED ({cause})"


def render_targets(receipt: dict) -> str | None:
    """Markdown: every reduce cell against the speed targets, read from its medians: the
    engine over its gather floor (target <= FLOOR_TARGET at every n), arch and tsbootstrap
    over the engine (targets and the largest n they apply to in PEER_TARGETS). A miss is
    MISSED with its cause, read from the same cell. None when no cell timed a floor.

    Parameters
    ----------
    receipt : dict
        A bench receipt.

    Returns
    -------
    str or None
        The table, or None.

    Examples
    --------
    >>> import os
    >>> from bootmark.bench import grid as bench
    >>> from bootmark.core import receipts, workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "bench")
    >>> receipt = receipts.load_receipt(os.path.join(folder, "bench-amd-epyc-20261203T181926Z-f0d3e52745.json"))
    >>> print(bench.render_targets(receipt).splitlines()[2])
    | iid | 2000 | 999 | 1.45: MISSED | 8.9: MISSED (the floor is 12.9x) | 2.2: MISSED (even the floor is 3.2x) |
    """
    cells = [
        cell
        for cell in receipt["body"]["cells"]
        if not cell["sentinel"] and "floor_ratios" in cell and ANCHOR_PATH in cell["floor_ratios"]
    ]
    if not cells:
        return None
    arch, peer = PEER_TARGETS["arch"], PEER_TARGETS["tsbootstrap"]["iid"]
    lines = [
        f"| method | n | B | engine / floor (target ≤ {FLOOR_TARGET:g}) | arch / engine (target "
        f"{arch['iid'][0]:g} i.i.d. to n = {arch['iid'][1]}, {arch['moving'][0]:g} moving and circular, "
        f"{arch['stationary'][0]:g} stationary to n = {arch['moving'][1]}) | tsbootstrap / engine (target "
        f"{peer[0]:g} to n = {peer[1]}) |",
        "|---|---:|---:|---|---|---|",
    ]
    for cell in cells:
        lines.append(
            f"| {cell['method']} | {cell['n']} | {cell['n_bootstraps']} | {_floor_verdict(cell)} | "
            f"{_against(cell, 'arch')} | {_against(cell, 'tsbootstrap')} |"
        )
    return "\n".join(lines)


SCALING_PATHS = (ANCHOR_PATH, "gather_floor", "philox_floor", MATERIALIZE_PATH, "fill_fresh", "arch", "tsbootstrap")


def _exponent(points):
    """Least-squares slope of log(time) against log(size) over (size, time) points, or None."""
    if len(points) < 2:
        return None
    logs = np.log(np.array(points, dtype=float))
    return float(np.polyfit(logs[:, 0], logs[:, 1], 1)[0])


def render_scaling(receipt: dict) -> str | None:
    """Markdown: ns per resampled element (median time / (n B)) per method, path and n,
    from one replicate count per n (the smallest timed), with the fitted exponent of time
    against n (per replicate) and against B (at the n with two replicate counts), and
    each engine path's ratio to its floor. None when the receipt has fewer than two n.

    Parameters
    ----------
    receipt : dict
        A bench receipt.

    Returns
    -------
    str or None
        The tables (and notes on exponents away from 1), or None.

    Examples
    --------
    >>> import os
    >>> from bootmark.bench import grid as bench
    >>> from bootmark.core import receipts, workspace
    >>> folder = os.path.join(workspace.find().root, "receipts", "bench")
    >>> receipt = receipts.load_receipt(os.path.join(folder, "bench-amd-epyc-20261203T181926Z-f0d3e52745.json"))
    >>> print(bench.render_scaling(receipt).splitlines()[2])
    | iid | engine_reduce | 1.72 | 1.69 | 0.99 | – |
    """
    cells = [cell for cell in receipt["body"]["cells"] if not cell["sentinel"] and cell["method"] in METHODS]
    chosen = {}
    for cell in sorted(cells, key=lambda c: c["n_bootstraps"]):
        chosen.setdefault((cell["method"], cell["n"]), cell)
    sizes = sorted({n for _, n in chosen})
    if len(sizes) < 2:
        return None
    by_n = {}
    for cell in cells:
        by_n.setdefault((cell["method"], cell["n"]), []).append(cell)
    header = " | ".join(
        f"n = {n:,}, B = {chosen[next(k for k in chosen if k[1] == n)]['n_bootstraps']:,}" for n in sizes
    )
    lines = [
        f"| method | path | {header} | exponent in n | exponent in B |",
        "|---|---|" + "---:|" * len(sizes) + "---:|---:|",
    ]
    notes = []
    for method in METHODS:
        for path in SCALING_PATHS:
            values, points = [], []
            for n in sizes:
                cell = chosen.get((method, n))
                if cell is None or path not in cell["paths"]:
                    values.append("–")
                    continue
                seconds = cell["paths"][path]["median_s"]
                values.append(f"{seconds / (n * cell['n_bootstraps']) * 1e9:.3g}")
                points.append((n, seconds / cell["n_bootstraps"]))
            if all(v == "–" for v in values):
                continue
            in_n = _exponent(points)
            in_b = [
                _exponent([(c["n_bootstraps"], c["paths"][path]["median_s"]) for c in group if path in c["paths"]])
                for (m, _), group in sorted(by_n.items())
                if m == method and len(group) > 1
            ]
            in_b = [e for e in in_b if e is not None]
            shown_b = f"{min(in_b):.2f}–{max(in_b):.2f}" if in_b else "–"
            lines.append(
                f"| {method} | {path} | {' | '.join(values)} | {'–' if in_n is None else f'{in_n:.2f}'} | {shown_b} |"
            )
            if path == ANCHOR_PATH and in_n is not None and abs(in_n - 1.0) > 0.1:
                notes.append(f"{method}: engine_reduce's exponent in n is {in_n:.2f}")
    lines += [
        "",
        "Each engine path over its floor (median of per-round ratios; 1 would be the floor itself):",
        "",
        "| method | n | B | engine_reduce / gather_floor | engine_materialize / fill_fresh |",
        "|---|---:|---:|---:|---:|",
    ]
    for cell in cells:
        floors = cell.get("floor_ratios", {})
        shown = [
            f"{floors[p]['median']:.2f} ({floors[p]['ci_low']:.2f}-{floors[p]['ci_high']:.2f})" if p in floors else "–"
            for p in (ANCHOR_PATH, MATERIALIZE_PATH)
        ]
        lines.append(f"| {cell['method']} | {cell['n']} | {cell['n_bootstraps']} | {shown[0]} | {shown[1]} |")
    if notes:
        lines += [
            "",
            "Exponents in n away from 1 by more than 0.1: " + "; ".join(notes) + ". An exponent below 1 "
            "means fixed per-call costs (argument checks, thread start-up) are spread over more elements as n "
            "grows; one above 1 means the data left a cache level, which the gather floor's own exponent in "
            "the same table shows.",
        ]
    return "\n".join(lines)
