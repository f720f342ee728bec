"""The public entry points of the reference twin: bootstrap, bootstrap_reduce, conf_int.

Every function checks all of its arguments before any work, resolves ``"auto"`` block
lengths from the data, and records the seed it used (fresh entropy when ``seed=None``),
so any result can be replayed exactly. Model-based methods (ResidualBootstrap, SieveAR)
fit their model to the data first and record it on the result (``fit``); their
replicates are rebuilt series (``models.py``), not rows of source positions.
"""

from __future__ import annotations

import secrets
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .blocklength import resolve_method
from .data import Series, as_series
from .errors import ErrorCode, InvalidParameterError
from .indices import STREAM_VERSION, index_rows, row_builder
from .intervals import (
    CALIBRATED,
    STUDENTIZED,
    calibration_point,
    check_calibrated_method,
    check_calibrated_statistic,
    check_inner_bootstraps,
    check_kind,
    check_studentized,
    fixed_b_standard_error,
    interval,
)
from .keys import inner_root, root_key, stream_key
from .models import (
    ARITHMETIC,
    FIT_OK,
    FIXED,
    ModelFit,
    ResolvedModel,
    design_of,
    fixed_design,
    fixed_refit,
    no_indices_error,
    refit,
    replicate_paths,
    resolve_model,
    settle_refits,
    warn_if_recursive_block_wild,
)
from .panel import is_panel, no_series_id, run_panel
from .reduce import apply_statistic, mean, quantile_sorted
from .specs import (
    DataLike,
    Method,
    Statistic,
    StatisticLike,
    TaperedBlock,
    check_method,
    check_statistic,
    check_statistic_for_method,
    coefficient_labels,
    is_model_method,
)
from .taper import taper_weights
from .validation import as_probability, check_alpha, check_n_bootstraps, check_seed, check_series_id

SEED_BITS = 64  # entropy drawn for seed=None

#: The interval kinds of ``conf_int`` (``reference.intervals`` defines each).
IntervalKind = Literal["percentile", "basic", "normal", "calibrated", "studentized"]


def prepare_arguments(as_data, x, method, n_bootstraps, seed):
    """The argument checks of every entry point, in the order both twins share: the data
    (through the twin's ``as_data``), the method spec, B, and the seed (fresh 64-bit
    entropy for None, recorded on the result)."""
    series = as_data(x)
    method = check_method(method)
    n_bootstraps = check_n_bootstraps(n_bootstraps)
    seed = secrets.randbits(SEED_BITS) if seed is None else check_seed(seed)
    return series, method, n_bootstraps, seed


def _prepare(x, method, n_bootstraps, seed):
    return prepare_arguments(as_series, x, method, n_bootstraps, seed)


def _resampler(columns, method):
    """Return ``resample(row) -> d columns`` drawn from the d ``columns`` (lists of n
    floats) for a resolved method; a tapered method tapers around these columns' means."""
    if isinstance(method, TaperedBlock):
        weights = taper_weights(method)
        b = method.block_length
        centres = [mean(column) for column in columns]

        def resample(row):
            return [
                [centre + weights[position % b] * (column[i] - centre) for position, i in enumerate(row)]
                for column, centre in zip(columns, centres, strict=True)
            ]

        return resample

    def resample(row):
        return [[column[i] for i in row] for column in columns]

    return resample


@dataclass(frozen=True)
class StatisticLayout:
    """How a statistic's components are presented: a float, a list or a labelled dict."""

    scalar: bool
    labels: tuple[Hashable, ...] | None = None

    @staticmethod
    def present_with(layout, components):
        return layout.present(components)

    def present(self, components):
        if self.scalar:
            return components[0]
        if self.labels is not None:
            return dict(zip(self.labels, components, strict=True))
        return list(components)


def statistic_layout(statistic, series, width):
    """How the ``width`` components of ``statistic`` on ``series`` are presented (shared
    by both twins: which components exist and what they are called)."""
    levels = statistic.levels if statistic.kind == "quantile" else ()
    if statistic.kind == "ar_coef":  # intercept, phi_1 .. phi_p of one series
        return StatisticLayout(False, coefficient_labels(width - 1))
    if statistic.kind == "callable":
        return StatisticLayout(series.univariate and width == 1)
    if len(levels) > 1:
        if series.univariate:
            return StatisticLayout(False, levels)
        if series.labels is not None:
            return StatisticLayout(False, tuple((label, q) for label in series.labels for q in levels))
        return StatisticLayout(False)
    return StatisticLayout(series.univariate, None if series.univariate else series.labels)


@dataclass(frozen=True)
class BootstrapResult:
    """Replicates of a bootstrap, regenerated on demand from (seed, replicate number).

    ``method`` is the resolved spec (``"auto"`` replaced by the length used). For a
    model-based method ``fit`` is the :class:`~reference.models.ModelFit` of the data
    (None otherwise).

    Returned by :func:`bootstrap`; not constructed by hand. Nothing is drawn until
    :meth:`indices` or :meth:`values` is called, and every call draws the same
    replicates: replicate b depends only on (``seed``, b).

    Attributes
    ----------
    method : method spec
        The resolved method (block lengths are ints; a sieve's ``max_order`` is the P
        used; a ``BlockWild`` innovation's ``"auto"`` is the length used).
    n_bootstraps : int
        B, the number of replicates.
    seed : int
        The seed used, in [0, 2**128): the one passed, or the fresh entropy drawn for
        ``seed=None``. Passing it again replays the replicates exactly.
    stream_version : int
        The version of the random streams (``STREAM_VERSION``) the replicates follow.
    fit : ModelFit or None
        The AR fit of a model-based method; None for resampling methods.
    series_id : int
        The counter's series word the replicates were drawn with (0 unless given).

    See Also
    --------
    bootstrap : makes it.
    bootstrap_reduce : a statistic of every replicate, without keeping the replicates.

    Examples
    --------
    >>> from bootmark import reference
    >>> x = [0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5,
    ...      -0.1, 0.4, 0.5, -0.2, 0.7, 1.4, 1.5, 1.7, 0.6, 0.8, 1.3, 1.1]
    >>> result = reference.bootstrap(x, reference.CircularBlock(4), n_bootstraps=3, seed=42)
    >>> result.method, result.n_bootstraps, result.seed
    (CircularBlock(block_length=4), 3, 42)
    >>> result.indices()[0]
    [1, 2, 3, 4, 0, 1, 2, 3, 12, 13, 14, 15, 4, 5, 6, 7, 13, 14, 15, 16, 5, 6, 7, 8]
    >>> result.values()[0][:8]
    [0.9, 0.4, -0.2, -0.1, 0.7, 0.9, 0.4, -0.2]
    """

    method: Method
    n_bootstraps: int
    seed: int
    stream_version: int
    series: Series = field(repr=False)
    fit: ModelFit | None = None
    model: ResolvedModel | None = field(default=None, repr=False)
    series_id: int = 0

    def indices(self) -> list[list[int]]:
        """B rows of n source positions (ints in [0, n)); a model-based method has none
        and raises InvalidParameterError (code METHOD).

        Row b, position t holds the index of the observation that replicate b has at
        time t. For multivariate data one row serves every variable (rows are resampled
        together). The rows are bit for bit those of the engine
        (:meth:`bootmark.engine.BootstrapResult.indices`).

        Returns
        -------
        list of list of int
            B lists of n positions in [0, n).

        Raises
        ------
        InvalidParameterError
            Code METHOD: the method is model-based (ResidualBootstrap, SieveAR), whose
            replicates are rebuilt series, not resampled positions.

        See Also
        --------
        values : the resampled (or rebuilt) series themselves.

        Examples
        --------
        >>> from bootmark import reference
        >>> x = [0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5]
        >>> reference.bootstrap(x, reference.MovingBlock(3), n_bootstraps=2, seed=1).indices()
        [[3, 4, 5, 5, 6, 7, 5, 6, 7, 7, 8, 9], [6, 7, 8, 4, 5, 6, 9, 10, 11, 5, 6, 7]]
        """
        if self.model is not None:
            raise no_indices_error(self.method)
        return list(index_rows(self.method, self.series.n, self.seed, self.n_bootstraps, series=self.series_id))

    def values(self) -> list[list[float]] | list[list[list[float]]]:
        """B resampled series: lists of n floats for 1-D data, of n row lists otherwise.

        For :class:`TaperedBlock` these are the tapered values (see its docstring); for a
        model-based method the rebuilt series (``models.py``): for
        ``ResidualBootstrap(..., design="fixed")`` fitted values on the observed lags plus
        errors, whose own lags are not the regressors (item 9).

        Returns
        -------
        list
            B replicates in the data's units: each a list of n floats (one series) or
            of n lists of d floats (rows).

        See Also
        --------
        indices : the source positions of resampling methods.
        bootmark.engine.BootstrapResult.values : the engine's (B, n[, d]) array.

        Examples
        --------
        >>> from bootmark import reference
        >>> x = [0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5]
        >>> result = reference.bootstrap(x, reference.MovingBlock(3), n_bootstraps=2, seed=1)
        >>> result.values()[0]
        [-0.2, -0.1, -0.3, -0.3, 0.4, -0.1, -0.3, 0.4, -0.1, -0.1, -0.1, 0.1]
        >>> rows = [(v, 10 * v) for v in x]
        >>> reference.bootstrap(rows, reference.MovingBlock(3), n_bootstraps=2, seed=1).values()[0][:3]
        [[-0.2, -2.0], [-0.1, -1.0], [-0.3, -3.0]]
        """
        if self.model is not None:
            paths = replicate_paths(
                self.model, self.series.columns[0], self.seed, self.n_bootstraps, series=self.series_id
            )
            return [path if self.series.univariate else [[v] for v in path] for path in paths]
        resample = _resampler(self.series.columns, self.method)
        out = []
        for row in self.indices():
            columns = resample(row)
            out.append(columns[0] if self.series.univariate else [list(r) for r in zip(*columns, strict=True)])
        return out


@dataclass(frozen=True)
class ReduceResult:
    """Bootstrap distribution of a statistic.

    ``statistics`` holds B entries: floats for a scalar statistic of one series,
    tuples of components otherwise (``labels`` names them when it can). ``point`` is
    the statistic on the original data, laid out like :meth:`quantile`'s result.

    Model-based methods record their ``fit`` (a ModelFit); ``skipped`` holds the numbers
    of replicates dropped by ``explosive="skip"``, which ``statistics`` then lacks (it
    has B - len(skipped) entries).

    Returned by :func:`bootstrap_reduce`; not constructed by hand.

    Attributes
    ----------
    statistic : Statistic
        The parsed statistic (its ``kind``, quantile ``levels`` or ``function``).
    method : method spec
        The resolved method, as on :class:`BootstrapResult`.
    n_bootstraps : int
        B, the number of replicates drawn.
    seed : int
        The seed used, in [0, 2**128).
    stream_version : int
        The version of the random streams.
    statistics : list of float or list of tuple of float
        The replicates of the statistic, in replicate order.
    point : float, list of float or dict
        The statistic of the original data: a float for a scalar statistic of one
        series, a dict keyed by ``labels`` when the components are named, else a list.
    labels : tuple or None
        Names of the components: DataFrame column labels, quantile levels,
        (label, level) pairs, or ``("intercept", "phi_1", ..)`` for ``"ar_coef"``.
    fit : ModelFit or None
        The AR fit of a model-based method.
    skipped : tuple of int
        Replicates dropped by ``explosive="skip"`` (empty otherwise).
    series_id : int
        The counter's series word the replicates were drawn with (0 unless given).

    See Also
    --------
    bootstrap_reduce : makes it.
    conf_int : an interval from the same replicates.

    Examples
    --------
    >>> from bootmark import reference
    >>> x = [0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5,
    ...      -0.1, 0.4, 0.5, -0.2, 0.7, 1.4, 1.5, 1.7, 0.6, 0.8, 1.3, 1.1]
    >>> result = reference.bootstrap_reduce(x, reference.MovingBlock(4), ("quantile", (0.25, 0.75)), 100, seed=42)
    >>> result.labels, result.width, len(result.statistics)
    ((0.25, 0.75), 2, 100)
    >>> result.point
    {0.25: -0.1, 0.75: 0.9}
    """

    statistic: Statistic
    method: Method
    n_bootstraps: int
    seed: int
    stream_version: int
    statistics: list[Any] = field(repr=False)  # floats, or tuples of floats (see above)
    point: float | list[float] | dict[Hashable, float] | None = None
    labels: tuple[Hashable, ...] | None = None
    layout: Any = field(default=None, repr=False)  # a StatisticLayout, set by bootstrap_reduce
    point_components: tuple[float, ...] = field(default=(), repr=False)
    fit: ModelFit | None = None
    skipped: tuple[int, ...] = ()
    series_id: int = 0

    def component(self, k: int) -> list[float]:
        """The B replicates of component k, as a list of floats.

        Parameters
        ----------
        k : int
            The component's position: a column, a quantile level, or a coefficient
            (``labels`` names them in order). A scalar statistic has the one component 0.

        Returns
        -------
        list of float
            One value per kept replicate, in replicate order.

        Examples
        --------
        >>> from bootmark import reference
        >>> rows = [(0.7, 1.0), (0.9, 0.2), (0.4, -0.5), (-0.2, 0.3), (-0.1, 0.9), (-0.3, -0.7)]
        >>> result = reference.bootstrap_reduce(rows, reference.IID(), "mean", n_bootstraps=3, seed=5)
        >>> [round(v, 6) for v in result.component(1)]
        [0.166667, 0.25, 0.083333]
        """
        if self.layout.scalar:
            return list(self.statistics)
        return [entry[k] for entry in self.statistics]

    @property
    def width(self) -> int:
        """The number of components of the statistic (1 for a scalar one)."""
        return 1 if self.layout.scalar else len(self.statistics[0])

    def quantile(self, q: float | Sequence[float]) -> Any:
        """Linear-interpolation quantile(s) of the bootstrap distribution.

        ``q`` is a level in [0, 1] or a sequence of levels (then a list is returned).

        The rule is numpy's default (``method="linear"``), applied to each component.

        Parameters
        ----------
        q : float or sequence of float
            Level(s) in [0, 1].

        Returns
        -------
        float, list or dict
            For one level, laid out like :attr:`point` (a float, a list, or a dict keyed
            by ``labels``); for a list or tuple of levels, a list of those.

        Raises
        ------
        ParameterTypeError
            Code QUANTILE: a level is not a number.
        InvalidParameterError
            Code QUANTILE: a level is outside [0, 1] or not finite.

        Examples
        --------
        >>> from bootmark import reference
        >>> x = [0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5]
        >>> result = reference.bootstrap_reduce(x, reference.MovingBlock(3), "mean", n_bootstraps=200, seed=3)
        >>> [round(v, 6) for v in result.quantile([0.05, 0.5, 0.95])]
        [-0.042083, 0.158333, 0.400417]
        """
        if isinstance(q, (list, tuple)):
            return [self.quantile(level) for level in q]
        level = as_probability(q, "q", ErrorCode.QUANTILE, "pass a level in [0, 1], e.g. 0.95", open_interval=False)
        return self.layout.present(tuple(quantile_sorted(sorted(self.component(k)), level) for k in range(self.width)))


def bootstrap(
    x: DataLike, method: Method, n_bootstraps: int = 999, seed: int | None = None, *, series_id: int = 0
) -> BootstrapResult:
    """Resample ``x`` with ``method``; return a :class:`BootstrapResult`.

    ``x`` is one series (n values) or n rows of d variables (rows are resampled
    together); lists, tuples, numpy arrays and pandas objects are accepted.
    ``n_bootstraps`` is the number B of replicates; ``seed`` an int in [0, 2**128) or
    None for fresh entropy (the seed used is recorded on the result). A model-based
    method (one series only) is fitted here and its fit recorded.

    Every argument is checked before any work; ``"auto"`` block lengths are resolved on
    ``x``. The replicates are drawn lazily by the result's :meth:`~BootstrapResult.indices`
    and :meth:`~BootstrapResult.values`.

    Parameters
    ----------
    x : sequence of float, sequence of rows, numpy array or pandas Series/DataFrame
        One series of n >= 2 finite numbers, or n rows of d numbers. Values are in the
        data's units; their magnitude must not exceed 2**495 and n must be below 2**31.
        A :class:`Panel` of many univariate series gives a :class:`PanelResults`, one
        result per series: series s's is this call's on series s with ``series_id=s``
        under one seed, or with its own seed when ``seed`` gives one per series (a list,
        or a dict keyed by id); ``method`` may also give one spec per series.
    method : method spec
        An instance of IID, MovingBlock, CircularBlock, NonOverlappingBlock,
        StationaryBlock, TaperedBlock, ResidualBootstrap or SieveAR (not the class).
    n_bootstraps : int, default 999
        B, the number of replicates: a positive int (numpy integers accepted, floats and
        bools refused).
    seed : int or None, default None
        A non-negative int below 2**128, or None to draw 64 bits of fresh entropy. The
        seed used is recorded on the result, so any result can be replayed.
    series_id : int, default 0
        The counter's series word, in [0, 2**32): the streams of series s of a panel
        drawn under one seed (``reference.Panel``); 0 is every single-series stream.

    Returns
    -------
    BootstrapResult
        The resolved method, B, the seed used and (model-based methods) the fit.

    Raises
    ------
    DataTypeError
        Code DATA_TYPE: ``x`` is not numeric.
    InvalidDataError
        Codes DATA_SHAPE, DATA_TOO_SHORT, DATA_NOT_FINITE, DATA_RANGE, DATA_TOO_LONG:
        ``x`` is empty, ragged, 3-D, shorter than 2, not finite, too large or too long;
        DATA_SHAPE also for several columns with a model-based method. Code
        BLOCK_LENGTH_ESTIMATE: ``"auto"`` on data whose block length cannot be
        estimated. Code MODEL_FIT: the AR fit to ``x`` is singular, explosive or has a
        unit root.
    ParameterTypeError
        Code METHOD: ``method`` is not a method spec instance. Codes N_BOOTSTRAPS, SEED:
        ``n_bootstraps`` or ``seed`` is not an int.
    InvalidParameterError
        Code N_BOOTSTRAPS: ``n_bootstraps`` < 1. Code SEED: ``seed`` outside
        [0, 2**128). Code BLOCK_LENGTH: a block length above n (a BlockWild one above
        n - p). Code MODEL_ORDER: an AR order or sieve ``max_order`` at or above n / 2.

    Warns
    -----
    BlockLengthWarning
        A block length equal to n, or a non-overlapping one that leaves one block.

    See Also
    --------
    bootstrap_reduce : the distribution of a statistic, without storing replicates.
    conf_int : a confidence interval.
    bootmark.engine.bootstrap : the engine's twin (the same rows, bit for bit).

    Examples
    --------
    >>> from bootmark import reference
    >>> x = [0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5,
    ...      -0.1, 0.4, 0.5, -0.2, 0.7, 1.4, 1.5, 1.7, 0.6, 0.8, 1.3, 1.1]
    >>> result = reference.bootstrap(x, reference.StationaryBlock("auto"), n_bootstraps=5, seed=2024)
    >>> result.method
    StationaryBlock(mean_block_length=3)
    >>> result.indices()[0]
    [12, 13, 14, 22, 8, 9, 10, 11, 12, 8, 9, 10, 11, 12, 5, 6, 7, 1, 9, 21, 5, 6, 7, 21]

    With ``seed=None`` the seed drawn is recorded, and replays the same replicates:

    >>> first = reference.bootstrap(x, reference.MovingBlock(3), n_bootstraps=5)
    >>> again = reference.bootstrap(x, reference.MovingBlock(3), n_bootstraps=5, seed=first.seed)
    >>> again.indices() == first.indices()
    True
    """
    if is_panel(x):
        return run_panel(
            lambda values, spec, series_seed, sid: bootstrap(values, spec, n_bootstraps, series_seed, series_id=sid),
            x,
            method,
            n_bootstraps,
            no_series_id(seed, series_id),
            secrets.randbits(SEED_BITS),
        )
    series, method, n_bootstraps, seed = _prepare(x, method, n_bootstraps, seed)
    series_id = check_series_id(series_id)
    if is_model_method(method):
        model = resolve_model(method, series, ARITHMETIC)
        return BootstrapResult(model.method, n_bootstraps, seed, STREAM_VERSION, series, model.fit, model, series_id)
    method = resolve_method(method, series)
    return BootstrapResult(method, n_bootstraps, seed, STREAM_VERSION, series, series_id=series_id)


def _replicate_components(statistic, columns, univariate, replicate, width):
    """The statistic of one replicate, checked to have the data's ``width`` components."""
    components = apply_statistic(statistic, columns, univariate, f"replicate {replicate}")
    if len(components) != width:
        raise InvalidParameterError(
            ErrorCode.STATISTIC_RESULT,
            "statistic",
            f"returned {len(components)} values on replicate {replicate} but {width} on the original data",
            "return the same number of values for every sample",
        )
    return components


def _model_reduce(series, method, statistic, n_bootstraps, seed, series_id):
    """bootstrap_reduce for a model-based method: refits for "ar_coef", else the
    statistic of each rebuilt series."""
    model = resolve_model(method, series, ARITHMETIC)
    warn_if_recursive_block_wild(model.method, statistic.kind)
    x = series.columns[0]
    paths = replicate_paths(model, x, seed, n_bootstraps, series=series_id)
    skipped = ()
    if statistic.kind == "ar_coef":
        point = model.fit.components
        if design_of(model.method) == FIXED:
            design = fixed_design(model, x)
            refits = [fixed_refit(path, model, design) for path in paths]
        else:
            refits = [refit(path, model.fit.order) for path in paths]
        skipped = settle_refits([status for _, status in refits], model.method.explosive, model.fit.order)
        replicates = [components for components, status in refits if status == FIT_OK]
    else:
        point = apply_statistic(statistic, series.columns, series.univariate)
        replicates = [
            _replicate_components(statistic, (path,), series.univariate, replicate, len(point))
            for replicate, path in enumerate(paths)
        ]
    layout = statistic_layout(statistic, series, len(point))
    replicates = [components[0] for components in replicates] if layout.scalar else replicates
    return ReduceResult(
        statistic,
        model.method,
        n_bootstraps,
        seed,
        STREAM_VERSION,
        replicates,
        layout.present(point),
        layout.labels,
        layout,
        point,
        model.fit,
        skipped,
        series_id,
    )


def bootstrap_reduce(
    x: DataLike,
    method: Method,
    statistic: StatisticLike,
    n_bootstraps: int = 999,
    seed: int | None = None,
    *,
    series_id: int = 0,
) -> ReduceResult:
    """Bootstrap distribution of ``statistic`` under ``method``; a :class:`ReduceResult`.

    ``statistic`` is "mean", "var" (ddof=0), "std", "median", ("quantile", q) with q a
    level or a sequence of levels, or a callable taking one resampled series (a list of
    floats, or of row tuples for multivariate data) and returning a float or a flat
    sequence of floats. Named statistics are applied to every column. "ar_coef" (model-
    based methods only) refits the AR model on every replicate: components intercept,
    phi_1 .. phi_p, labelled.

    The replicates are those of :func:`bootstrap` with the same arguments (replicate b
    of both is the same series).

    Parameters
    ----------
    x : sequence of float, sequence of rows, numpy array or pandas Series/DataFrame
        The data, as for :func:`bootstrap`.
    method : method spec
        A method spec instance, as for :func:`bootstrap`.
    statistic : str, tuple or callable
        As above. Quantile levels lie in [0, 1], each listed once, interpolated linearly
        (numpy's default). A callable must return the same number of finite values for
        every replicate as for the data.
    n_bootstraps : int, default 999
        B, a positive int.
    seed : int or None, default None
        A non-negative int below 2**128, or None for fresh entropy (recorded).
    series_id : int, default 0
        The counter's series word, in [0, 2**32): the streams of series s of a panel
        drawn under one seed (``reference.Panel``); 0 is every single-series stream.

    Returns
    -------
    ReduceResult
        The B replicates of the statistic (B - len(skipped) with ``explosive="skip"``),
        its value on the data (``point``) and the names of its components.

    Raises
    ------
    DataTypeError, InvalidDataError, ParameterTypeError, InvalidParameterError
        For ``x``, ``method``, ``n_bootstraps`` and ``seed`` as :func:`bootstrap` raises
        them. For the statistic: ParameterTypeError (code STATISTIC) for an unsupported
        type; InvalidParameterError code STATISTIC for an unknown name or ``"ar_coef"``
        with a resampling method, code QUANTILE for a missing, duplicate or out-of-range
        level (ParameterTypeError for a non-number), code STATISTIC_RESULT when a
        callable returns non-finite values, non-numbers, or a varying number of values.
        InvalidDataError code MODEL_FIT when an ``"ar_coef"`` refit is explosive or
        singular under ``explosive="raise"``, or every refit is under ``"skip"``.

    Warns
    -----
    BlockLengthWarning
        A block length equal to n, or a non-overlapping one that leaves one block.
    SkippedReplicatesWarning
        ``"ar_coef"`` with ``explosive="skip"`` dropped some replicates.
    BlockWildDesignWarning
        ``"ar_coef"`` with a recursive block-wild bootstrap (block length above 1).

    See Also
    --------
    conf_int : an interval from these replicates.
    bootmark.engine.bootstrap_reduce : the engine's twin (fused kernels, numpy types out).

    Examples
    --------
    >>> from bootmark import reference
    >>> x = [0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5,
    ...      -0.1, 0.4, 0.5, -0.2, 0.7, 1.4, 1.5, 1.7, 0.6, 0.8, 1.3, 1.1]
    >>> result = reference.bootstrap_reduce(x, reference.MovingBlock(4), "mean", n_bootstraps=200, seed=42)
    >>> round(result.point, 6), len(result.statistics)
    (0.533333, 200)
    >>> [round(q, 6) for q in result.quantile([0.05, 0.95])]
    [0.175, 0.7875]

    A callable receives each resampled series:

    >>> def spread(sample):
    ...     return max(sample) - min(sample)
    >>> result = reference.bootstrap_reduce(x, reference.MovingBlock(4), spread, n_bootstraps=50, seed=42)
    >>> round(result.point, 6), round(min(result.statistics), 6)
    (2.0, 1.1)
    """
    if is_panel(x):
        return run_panel(
            lambda values, spec, series_seed, sid: bootstrap_reduce(
                values, spec, statistic, n_bootstraps, series_seed, series_id=sid
            ),
            x,
            method,
            n_bootstraps,
            no_series_id(seed, series_id),
            secrets.randbits(SEED_BITS),
        )
    series, method, n_bootstraps, seed = _prepare(x, method, n_bootstraps, seed)
    statistic = check_statistic_for_method(check_statistic(statistic), method)
    series_id = check_series_id(series_id)
    if is_model_method(method):
        return _model_reduce(series, method, statistic, n_bootstraps, seed, series_id)
    method = resolve_method(method, series)
    point = apply_statistic(statistic, series.columns, series.univariate)
    layout = statistic_layout(statistic, series, len(point))
    resample = _resampler(series.columns, method)
    replicates = []
    for replicate, row in enumerate(index_rows(method, series.n, seed, n_bootstraps, series=series_id)):
        components = _replicate_components(statistic, resample(row), series.univariate, replicate, len(point))
        replicates.append(components[0] if layout.scalar else components)
    return ReduceResult(
        statistic,
        method,
        n_bootstraps,
        seed,
        STREAM_VERSION,
        replicates,
        layout.present(point),
        layout.labels,
        layout,
        point,
        series_id=series_id,
    )


@dataclass(frozen=True)
class ConfidenceInterval:
    """A bootstrap confidence interval; unpacks as ``lower, upper, point``.

    Each bound is a float for a scalar statistic of one series, else laid out per
    component like :meth:`ReduceResult.quantile`. ``coverage`` is 1 - alpha.
    ``inner_bootstraps`` is C, the inner replicates per outer replicate, for
    kind="calibrated", and None for the other kinds. ``fit`` and ``skipped`` are those of
    the underlying bootstrap_reduce result (model-based methods).

    Returned by ``conf_int`` of both twins (the engine lays the bounds out as floats,
    numpy arrays or pandas Series); not constructed by hand.

    Attributes
    ----------
    lower, upper : float, list, dict, numpy array or pandas Series
        The bounds, in the statistic's units.
    point : float, list, dict, numpy array or pandas Series
        The statistic of the original data.
    kind : str
        The interval kind (see :func:`conf_int`).
    alpha : float
        The total two-sided tail probability, in (0, 1).
    method : method spec
        The resolved method.
    n_bootstraps : int
        B, the outer replicates.
    seed : int
        The seed used, in [0, 2**128).
    stream_version : int
        The version of the random streams.
    inner_bootstraps : int or None
        C for kind="calibrated"; None otherwise.
    fit : ModelFit or None
        The AR fit of a model-based method.
    skipped : tuple of int
        Replicates dropped by ``explosive="skip"``.
    series_id : int
        The counter's series word the replicates were drawn with (0 unless given).

    See Also
    --------
    conf_int : makes it.

    Examples
    --------
    >>> from bootmark import reference
    >>> x = [0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5]
    >>> ci = reference.conf_int(x, "mean", reference.MovingBlock(3), alpha=0.10, n_bootstraps=200, seed=1)
    >>> ci.kind, ci.alpha, round(ci.coverage, 6), ci.inner_bootstraps
    ('percentile', 0.1, 0.9, None)
    >>> lower, upper, point = ci
    >>> lower < point < upper
    True
    """

    lower: Any
    upper: Any
    point: Any
    kind: str
    alpha: float
    method: Method
    n_bootstraps: int
    seed: int
    stream_version: int
    inner_bootstraps: int | None = None
    fit: ModelFit | None = None
    skipped: tuple[int, ...] = ()
    series_id: int = 0

    @property
    def coverage(self) -> float:
        """The nominal coverage, 1 - alpha (0.9 for alpha=0.10)."""
        return 1.0 - self.alpha

    def __iter__(self) -> Iterator[Any]:
        """Unpack as ``lower, upper, point``."""
        return iter((self.lower, self.upper, self.point))


def _inner_statistics(columns, univariate, method, statistic, build, root, replicate, inner_bootstraps, series):
    """The C inner statistics (component tuples) of outer replicate ``replicate``, whose
    resample is ``columns``: inner replicate c is the row ``build`` draws from the key
    ``stream_key(inner_root(root, replicate), c, series)``, resampled from ``columns``."""
    resample = _resampler(columns, method)
    inner = inner_root(root, replicate)
    return [
        apply_statistic(statistic, resample(build(stream_key(inner, c, series))), univariate)
        for c in range(inner_bootstraps)
    ]


def calibration_points(x, result, inner_bootstraps):
    """The calibration points u_b of a calibrated interval (``reference.intervals``):
    one list of B floats per component of ``result`` (a :class:`ReduceResult` of ``x``,
    whose resolved method, seed and B it reuses)."""
    series = as_series(x)
    method, n = result.method, series.n
    build, root = row_builder(method, n), root_key(result.seed)
    outer = _resampler(series.columns, method)
    points = [[] for _ in result.point_components]
    rows = index_rows(method, n, result.seed, result.n_bootstraps, series=result.series_id)
    for replicate, row in enumerate(rows):
        inner = _inner_statistics(
            outer(row),
            series.univariate,
            method,
            result.statistic,
            build,
            root,
            replicate,
            inner_bootstraps,
            result.series_id,
        )
        for k, theta in enumerate(result.point_components):
            points[k].append(calibration_point([components[k] for components in inner], theta))
    return points


def studentization(x, result):
    """(se, [se*_b]) per column for a studentized interval (``reference.intervals``): the
    fixed-b standard error of the data's column and of each replicate's, for the
    :class:`ReduceResult` ``result`` of the mean of ``x`` (its resolved method, seed, B)."""
    series = as_series(x)
    resample = _resampler(series.columns, result.method)
    errors = [[] for _ in series.columns]
    for row in index_rows(result.method, series.n, result.seed, result.n_bootstraps, series=result.series_id):
        for k, column in enumerate(resample(row)):
            errors[k].append(fixed_b_standard_error(column))
    return [
        (fixed_b_standard_error(column), replicate_errors)
        for column, replicate_errors in zip(series.columns, errors, strict=True)
    ]


def interval_arguments(statistic, method, alpha, kind, n_bootstraps, inner_bootstraps):
    """The checks of every conf_int, shared by both twins and their panels: ``kind``,
    ``alpha``, B >= 2 and ``inner_bootstraps`` (and, for kind="calibrated", that the
    statistic is a named one; for kind="studentized", that it is the mean of a resampling
    method). Returns the checked (kind, alpha, inner_bootstraps)."""
    kind = check_kind(kind)
    alpha = check_alpha(alpha)
    if check_n_bootstraps(n_bootstraps) < 2:
        raise InvalidParameterError(
            ErrorCode.N_BOOTSTRAPS,
            "n_bootstraps",
            "an interval needs at least 2 replicates",
            "pass n_bootstraps=999 or more",
        )
    inner_bootstraps = check_inner_bootstraps(inner_bootstraps, kind)
    if kind == CALIBRATED:
        check_calibrated_statistic(statistic)
        check_calibrated_method(method)
    if kind == STUDENTIZED:
        check_studentized(statistic, method)
    return kind, alpha, inner_bootstraps


def interval_of_result(interval_of, present, x, result, kind, alpha, inner_bootstraps, calibrate, studentize):
    """The :class:`ConfidenceInterval` of a twin's ``result`` (its bootstrap_reduce of
    ``x``): for kind="calibrated" the calibration points from the twin's
    ``calibrate(x, result, C)`` (a sequence of B u_b per component), for
    kind="studentized" the standard errors from ``studentize(x, result)`` ((se, B se*_b)
    per component), each component bounded by the twin's ``interval_of`` and laid out
    with ``present(layout, components)``."""
    point = result.point_components
    calibration = calibrate(x, result, inner_bootstraps) if kind == CALIBRATED else [None] * len(point)
    studentization = studentize(x, result) if kind == STUDENTIZED else [None] * len(point)
    bounds = [
        interval_of(kind, result.component(k), point[k], alpha, calibration[k], studentization[k])
        for k in range(len(point))
    ]
    return ConfidenceInterval(
        present(result.layout, tuple(b[0] for b in bounds)),
        present(result.layout, tuple(b[1] for b in bounds)),
        result.point,
        kind,
        alpha,
        result.method,
        result.n_bootstraps,
        result.seed,
        STREAM_VERSION,
        inner_bootstraps,
        result.fit,
        result.skipped,
        result.series_id,
    )


def checked_interval(
    reduce,
    interval_of,
    present,
    x,
    statistic,
    method,
    alpha,
    kind,
    n_bootstraps,
    seed,
    *,
    inner_bootstraps,
    calibrate,
    studentize,
    series_id=0,
):
    """The conf_int procedure shared by both twins: :func:`interval_arguments`, the twin's
    ``reduce`` (bootstrap_reduce), then :func:`interval_of_result`."""
    kind, alpha, inner_bootstraps = interval_arguments(statistic, method, alpha, kind, n_bootstraps, inner_bootstraps)
    result = reduce(x, method, statistic, n_bootstraps, seed, series_id=series_id)
    return interval_of_result(interval_of, present, x, result, kind, alpha, inner_bootstraps, calibrate, studentize)


def conf_int(
    x: DataLike,
    statistic: StatisticLike,
    method: Method,
    alpha: float = 0.05,
    kind: IntervalKind = "percentile",
    n_bootstraps: int = 999,
    seed: int | None = None,
    *,
    inner_bootstraps: int | None = None,
    series_id: int = 0,
) -> ConfidenceInterval:
    """Two-sided bootstrap confidence interval for ``statistic``: (lower, upper, point).

    ``alpha`` is the total tail probability (0.10 gives a 90% interval); ``kind`` is
    "percentile", "basic", "normal", "calibrated" or "studentized" (see
    ``reference.intervals``). Needs B >= 2. "studentized" is a bootstrap-t interval for
    the mean with the fixed-b (Kiefer-Vogelsang b = 1) standard error, for resampling
    methods other than TaperedBlock. It is designed to hold its level for dependent data
    at small n; study S1-length v2 measures how close it comes (it falls short at
    n = 100).

    ``inner_bootstraps`` (kind="calibrated" only): C, the number of inner replicates
    drawn from each of the B outer resamples, an int >= 10; None means 199. The
    interval then costs B * C inner resamples on top of the B outer ones. It must be
    left None for the other kinds. Errors name the argument ``inner_bootstraps`` and
    carry code N_BOOTSTRAPS (a replicate count, like ``n_bootstraps``). A calibrated
    interval needs a named statistic (a callable raises InvalidParameterError, code
    STATISTIC) and a resampling method: model-based methods refuse it (code
    INTERVAL_KIND) and take "percentile", "basic" or "normal".

    Parameters
    ----------
    x : sequence of float, sequence of rows, numpy array or pandas Series/DataFrame
        The data, as for :func:`bootstrap`.
    statistic : str, tuple or callable
        As for :func:`bootstrap_reduce`; each component gets its own interval.
    method : method spec
        A method spec instance, as for :func:`bootstrap`.
    alpha : float, default 0.05
        The total two-sided tail probability, in (0, 1): alpha/2 in each tail.
    kind : {"percentile", "basic", "normal", "calibrated", "studentized"}, default "percentile"
        The interval (definitions in ``reference.intervals``).
    n_bootstraps : int, default 999
        B, an int >= 2.
    seed : int or None, default None
        A non-negative int below 2**128, or None for fresh entropy (recorded).
    inner_bootstraps : int or None, default None
        C, for kind="calibrated" only: an int >= 10 (None means 199).
    series_id : int, default 0
        The counter's series word, in [0, 2**32): the streams of series s of a panel
        drawn under one seed (``reference.Panel``); 0 is every single-series stream.

    Returns
    -------
    ConfidenceInterval
        Unpacks as ``lower, upper, point``; bounds laid out like
        :meth:`ReduceResult.quantile`.

    Raises
    ------
    ParameterTypeError
        Code INTERVAL_KIND: ``kind`` is not a string. Code ALPHA: ``alpha`` is not a
        number. Code N_BOOTSTRAPS: ``inner_bootstraps`` is not an int. Otherwise as
        :func:`bootstrap_reduce`.
    InvalidParameterError
        Code INTERVAL_KIND: an unknown ``kind``; kind="calibrated" with a model-based
        method; kind="studentized" with a model-based method or TaperedBlock. Code ALPHA:
        ``alpha`` outside (0, 1). Code N_BOOTSTRAPS: ``n_bootstraps`` < 2, or
        ``inner_bootstraps`` below 10 or given with another kind. Code STATISTIC: a
        callable with kind="calibrated", or a statistic other than ``"mean"`` with
        kind="studentized". Otherwise as :func:`bootstrap_reduce`.
    InvalidDataError
        Code DATA_CONSTANT: kind="studentized" on a constant series or resample.
        Otherwise as :func:`bootstrap_reduce`.
    DataTypeError
        As :func:`bootstrap`.

    Warns
    -----
    BlockLengthWarning, SkippedReplicatesWarning, BlockWildDesignWarning
        As :func:`bootstrap_reduce`.

    See Also
    --------
    bootstrap_reduce : the replicates the bounds come from.
    bootmark.engine.conf_int : the engine's twin.

    Examples
    --------
    >>> from bootmark import reference
    >>> x = [0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5,
    ...      -0.1, 0.4, 0.5, -0.2, 0.7, 1.4, 1.5, 1.7, 0.6, 0.8, 1.3, 1.1]
    >>> method = reference.StationaryBlock(3)
    >>> lower, upper, point = reference.conf_int(x, "mean", method, alpha=0.10, n_bootstraps=200, seed=42)
    >>> round(lower, 6), round(upper, 6), round(point, 6)
    (0.241667, 0.800208, 0.533333)
    >>> ci = reference.conf_int(x, "mean", method, kind="studentized", n_bootstraps=200, seed=42)
    >>> round(ci.lower, 6), round(ci.upper, 6)
    (-0.249406, 1.807838)
    >>> ci = reference.conf_int(x, "median", method, kind="calibrated", n_bootstraps=50, seed=42, inner_bootstraps=20)
    >>> ci.inner_bootstraps, round(ci.lower, 6), round(ci.upper, 6)
    (20, -0.1, 1.3)
    """
    if is_panel(x):
        return run_panel(
            lambda values, spec, series_seed, sid: conf_int(
                values,
                statistic,
                spec,
                alpha,
                kind,
                n_bootstraps,
                series_seed,
                inner_bootstraps=inner_bootstraps,
                series_id=sid,
            ),
            x,
            method,
            n_bootstraps,
            no_series_id(seed, series_id),
            secrets.randbits(SEED_BITS),
        )
    return checked_interval(
        bootstrap_reduce,
        interval,
        StatisticLayout.present_with,
        x,
        statistic,
        method,
        alpha,
        kind,
        n_bootstraps,
        seed,
        inner_bootstraps=inner_bootstraps,
        calibrate=calibration_points,
        studentize=studentization,
        series_id=series_id,
    )
