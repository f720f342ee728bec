"""One series through one resampler: its intervals, point estimate, bootstrap SE and block length.

Series i of a cell gets its seeds from (root seed, n, i) only, through numpy's
``SeedSequence(root_seed, spawn_key=(n, i))``: the first two 64-bit words of its state
make the data seed and the next two the bootstrap seed. So an outcome does not depend on
which worker computes it, in what order, or with how many threads.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from bootmark import engine
from bootmark.engine.api import calibration_points, studentization
from bootmark.engine.intervals import bootstrap_standard_error, interval

from . import statistics as builtin_statistics

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from numpy.typing import ArrayLike

    from .plugins import StudyStatistic
    from .protocol import Protocol, ResamplerSpec

__all__ = ["Outcome", "Prepared", "SeriesSeeds", "evaluate", "prepare", "series_seeds"]

#: The statistics whose replicates are the OLS AR(1) slope (one statistic, two names).
SLOPE_STATISTICS = ("ar1_slope", "ar_coef")

SEED_WORDS = 4


@dataclass(frozen=True)
class SeriesSeeds:
    """The data seed (numpy default_rng) and bootstrap seed (every resampler) of one series.

    Attributes
    ----------
    data : int
        Seed of the process's ``sample`` (a 128-bit int).
    bootstrap : int
        Seed passed to every resampler on this series (a 128-bit int).

    See Also
    --------
    series_seeds : Derives both from (root seed, n, series).
    """

    data: int
    bootstrap: int


def series_seeds(root_seed: int, n: int, series: int) -> SeriesSeeds:
    """The seeds of series ``series`` of the cell with length ``n``.

    Parameters
    ----------
    root_seed : int
        The protocol's ``root_seed`` (>= 0).
    n : int
        Series length of the cell.
    series : int
        Index of the series within the cell (>= 0).

    Returns
    -------
    SeriesSeeds
        Words 0-1 of ``SeedSequence(root_seed, spawn_key=(n, series))`` as the data seed,
        words 2-3 as the bootstrap seed.

    Examples
    --------
    >>> seeds = series_seeds(20261202, 60, 0)
    >>> seeds.data
    14086314180204642988993493884756287065
    >>> seeds == series_seeds(20261202, 60, 0), seeds == series_seeds(20261202, 60, 1)
    (True, False)
    """
    words = np.random.SeedSequence(root_seed, spawn_key=(n, series)).generate_state(SEED_WORDS, np.uint64)
    data = int(words[0]) | int(words[1]) << 64
    return SeriesSeeds(data, int(words[2]) | int(words[3]) << 64)


@dataclass(frozen=True)
class Outcome:
    """One resampler on one series. Bounds, point and SE are in the data's units.

    Attributes
    ----------
    point : float
        The statistic on the series.
    standard_error : float
        The bootstrap standard error of the statistic.
    block_length : float
        1 for i.i.d. resampling; the resolved (mean) block length otherwise.
    intervals : tuple of (str, float, float)
        ``(kind, lower, upper)`` per interval kind, in the protocol's kind order.
    """

    point: float
    standard_error: float | None  # None: a contender that gives no SE
    block_length: float | None  # 1 for i.i.d.; the resolved (mean) block length; None: not said
    intervals: tuple  # ((kind, lower, upper), ...) in the protocol's kind order


@dataclass(frozen=True)
class Prepared:
    """What every series of a study reuses: the statistic, its engine form, the contenders.

    Built once per chunk by :func:`prepare`, so a user's modules are imported once, not
    once per series.

    Attributes
    ----------
    statistic : bootmark.studies.plugins.StudyStatistic
        The study's statistic, as contenders receive it.
    engine_statistic : str, tuple or callable
        What :func:`bootmark.engine.bootstrap_reduce` is given for it.
    contenders : mapping of str to bootmark.studies.plugins.Contender
        The loaded contender of each non-engine resampler, by name.
    """

    statistic: StudyStatistic
    engine_statistic: object = field(repr=False)
    contenders: Mapping = field(default_factory=lambda: MappingProxyType({}))


def prepare(protocol: Protocol, names: Sequence[str] | None = None) -> Prepared:
    """Load the statistic and the contenders of ``names`` (default: every resampler), and
    check each contender against its declared kinds and statistics.

    Raises
    ------
    bootmark.studies.plugins.PluginError
        Code that cannot be found, or declares it does not serve the entry's kinds or the
        study's statistic.
    """
    statistic = protocol.statistic_function()
    if builtin_statistics.is_builtin(protocol.statistic):  # "mean", ("quantile", q), ols_ar1_slope, ...
        engine_statistic = builtin_statistics.parse(protocol.statistic).engine_argument()
    else:
        engine_statistic = statistic.function
    contenders = {}
    for spec in protocol.resamplers:
        if spec.engine is None and (names is None or spec.name in names):
            contender = spec.load_contender()
            contender.check(spec.kinds, protocol.statistic)
            contenders[spec.name] = contender
    return Prepared(statistic, engine_statistic, MappingProxyType(contenders))


def _refits_slope(spec, protocol):
    """Whether the AR(1) slope of this engine method is refitted inside the fused kernel
    (``"ar_coef"``, column 1): a ResidualBootstrap of an AR(1)."""
    slope = protocol.statistic in SLOPE_STATISTICS
    return slope and spec.engine == "ResidualBootstrap" and dict(spec.settings).get("order", 1) == 1


def _engine_reduce(spec, x, protocol, seeds, prepared):
    """``engine.bootstrap_reduce`` of the protocol's statistic, on one series (``seeds``
    an int) or on a panel of series (one seed each). The AR(1) slope of a
    ResidualBootstrap of an AR(1) is refitted inside the fused kernel (``"ar_coef"``);
    for any other method it is computed on each resampled path by
    ``studies.dgp.ols_ar1_slope``. Every other statistic is what :func:`prepare`
    resolved: a named engine statistic or a callable."""
    statistic = "ar_coef" if _refits_slope(spec, protocol) else prepared.engine_statistic
    with warnings.catch_warnings():
        # A protocol that registers a recursive block-wild arm asks for it on purpose
        # (S4 measures what the warning warns of); one warning per series is noise.
        warnings.simplefilter("ignore", engine.BlockWildDesignWarning)
        return engine.bootstrap_reduce(x, spec.method(), statistic, protocol.n_bootstraps, seeds)


def _replicates_and_point(spec, protocol, result):
    """(replicates, point) of the protocol's statistic in one series' ReduceResult."""
    if _refits_slope(spec, protocol):
        return result.component(1), float(result.point_components[1])
    return result.statistics, float(result.point)


def _block_length(method):
    """The resolved (mean) block length of a method or of its block-wild innovation; 1 if none."""
    for owner in (method, getattr(method, "innovation", None)):
        length = getattr(owner, "block_length", None)
        if isinstance(length, (int, float)):
            return float(length)
    return 1.0


def _engine_outcome(spec, x, protocol, result):
    """The :class:`Outcome` of one series' engine ``result`` (its ReduceResult)."""
    replicates, point = _replicates_and_point(spec, protocol, result)
    bounds = []
    for kind in spec.kinds:
        # The calibrated and studentized kinds read the same replicates; only their
        # levels need the inner bootstrap or the replicates' standard errors (what
        # engine.conf_int computes for them, minus a second pass for the replicates).
        calibration = calibration_points(x, result, protocol.inner_bootstraps)[0] if kind == "calibrated" else None
        studentized = studentization(x, result)[0] if kind == "studentized" else None
        bounds.append((kind, *interval(kind, replicates, point, protocol.alpha, calibration, studentized)))
    return Outcome(point, float(bootstrap_standard_error(replicates)), _block_length(result.method), tuple(bounds))


def _contender_outcome(spec, x, protocol, seed, prepared):
    contender = prepared.contenders[spec.name]
    bounds, point, standard_error, length = [], None, None, None
    for kind in spec.kinds:
        found = contender.interval(
            x,
            statistic=prepared.statistic,
            alpha=protocol.alpha,
            kind=kind,
            n_bootstraps=protocol.n_bootstraps,
            seed=seed,
        )
        bounds.append((kind, found.lower, found.upper))
        # the last kind's point, SE and block length are recorded (a contender's are the
        # same for every kind when its replicates are)
        point, standard_error, length = found.point, found.standard_error, found.block_length
    if point is None:
        point = float(prepared.statistic(x))
    return Outcome(point, standard_error, length, tuple(bounds))


def evaluate(
    spec: ResamplerSpec, x: ArrayLike, protocol: Protocol, seed: int, prepared: Prepared | None = None
) -> Outcome:
    """The :class:`Outcome` of resampler ``spec`` on series ``x`` with bootstrap ``seed``.

    Parameters
    ----------
    spec : bootmark.studies.protocol.ResamplerSpec
        An engine method or a peer adapter, with its interval kinds.
    x : array_like
        One series (1-D, float64), in data units.
    protocol : bootmark.studies.protocol.Protocol
        Gives the statistic, B (``n_bootstraps``), ``alpha`` and ``inner_bootstraps``.
    seed : int
        The series' bootstrap seed (:attr:`SeriesSeeds.bootstrap`).
    prepared : Prepared, optional
        The statistic and contenders (:func:`prepare`); default prepared for ``spec`` now.

    Returns
    -------
    Outcome
        Point, bootstrap SE, block length and one interval per kind.

    Raises
    ------
    bootmark.studies.peers.PeerNotInstalledError
        A peer resampler whose package is not installed.
    bootmark.studies.plugins.PluginFailure
        A contender (a peer's adapter included) that raised or gave no finite interval.
    bootmark.studies.plugins.PluginError
        A contender or statistic that cannot be loaded (when ``prepared`` is not given).
    bootmark.reference.errors.BootmarkError
        The engine's typed error for a series it refuses.

    See Also
    --------
    bootmark.studies.runner.run_chunk : Calls this for every series and resampler.
    """
    if prepared is None:
        prepared = prepare(protocol, (spec.name,))
    if spec.engine is None:
        return _contender_outcome(spec, x, protocol, seed, prepared)
    return _engine_outcome(spec, x, protocol, _engine_reduce(spec, x, protocol, seed, prepared))


def evaluate_engine_panel(
    spec: ResamplerSpec,
    series: Sequence[ArrayLike],
    protocol: Protocol,
    seeds: Sequence[int],
    prepared: Prepared,
    numbers: Sequence[int] | None = None,
) -> list[Outcome]:
    """:func:`evaluate` of an engine resampler on many series in one panel call.

    Series k is bootstrapped with ``seeds[k]`` exactly as :func:`evaluate` does on its
    own (a panel of per-series seeds is bit for bit the single calls), but the engine's
    per-call work runs once and the fused pass fills every core.

    Parameters
    ----------
    spec : bootmark.studies.protocol.ResamplerSpec
        An engine method (``spec.engine`` set).
    series : sequence of array_like
        The series, 1-D float64 each, in data units.
    protocol : bootmark.studies.protocol.Protocol
        As for :func:`evaluate`.
    seeds : sequence of int
        Each series' bootstrap seed.
    prepared : Prepared
        The statistic (:func:`prepare`).
    numbers : sequence of int, optional
        The series' numbers in the study (default 0, 1, ...): the panel's ids, so an
        error the engine raises for one series names it as the study numbers it.

    Returns
    -------
    list of Outcome
        One per series, in order.
    """
    numbers = list(range(len(series))) if numbers is None else [int(number) for number in numbers]
    panel = engine.Panel.from_series(
        {number: np.asarray(x, dtype=np.float64) for number, x in zip(numbers, series, strict=True)}
    )
    results = _engine_reduce(spec, panel, protocol, [int(seed) for seed in seeds], prepared)
    return [_engine_outcome(spec, x, protocol, results[number]) for number, x in zip(numbers, series, strict=True)]
