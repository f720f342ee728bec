"""The public entry points of the reference twin: bootstrap, bootstrap_reduce, conf_int.

Every function checks all of its arguments before any work, resolves ``"auto"`` block
lengths from the data, and records the seed it used (fresh entropy when ``seed=None``),
so any result can be replayed exactly. Model-based methods (ResidualBootstrap, SieveAR)
fit their model to the data first and record it on the result (``fit``); their
replicates are rebuilt series (``models.py``), not rows of source positions.
"""

import secrets
from dataclasses import dataclass, field

from .blocklength import resolve_method
from .data import as_series
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
from .keys import inner_root, replicate_key, root_key
from .models import (
    ARITHMETIC,
    FIT_OK,
    FIXED,
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
from .reduce import apply_statistic, mean, quantile_sorted
from .specs import (
    TaperedBlock,
    check_method,
    check_statistic,
    check_statistic_for_method,
    coefficient_labels,
    is_model_method,
)
from .taper import taper_weights
from .validation import as_probability, check_alpha, check_n_bootstraps, check_seed

SEED_BITS = 64  # entropy drawn for seed=None


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
    labels: tuple = None

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
    """

    method: object
    n_bootstraps: int
    seed: int
    stream_version: int
    series: object = field(repr=False)
    fit: object = None
    model: object = field(default=None, repr=False)

    def indices(self):
        """B rows of n source positions (ints in [0, n)); a model-based method has none
        and raises InvalidParameterError (code METHOD)."""
        if self.model is not None:
            raise no_indices_error(self.method)
        return list(index_rows(self.method, self.series.n, self.seed, self.n_bootstraps))

    def values(self):
        """B resampled series: lists of n floats for 1-D data, of n row lists otherwise.

        For :class:`TaperedBlock` these are the tapered values (see its docstring); for a
        model-based method the rebuilt series (``models.py``): for
        ``ResidualBootstrap(..., design="fixed")`` fitted values on the observed lags plus
        errors, whose own lags are not the regressors (item 9).
        """
        if self.model is not None:
            paths = replicate_paths(self.model, self.series.columns[0], self.seed, self.n_bootstraps)
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
    """

    statistic: object
    method: object
    n_bootstraps: int
    seed: int
    stream_version: int
    statistics: list = field(repr=False)
    point: object = None
    labels: tuple = None
    layout: object = field(default=None, repr=False)
    point_components: tuple = field(default=(), repr=False)
    fit: object = None
    skipped: tuple = ()

    def component(self, k):
        """The B replicates of component k, as a list of floats."""
        if self.layout.scalar:
            return list(self.statistics)
        return [entry[k] for entry in self.statistics]

    @property
    def width(self):
        return 1 if self.layout.scalar else len(self.statistics[0])

    def quantile(self, q):
        """Linear-interpolation quantile(s) of the bootstrap distribution.

        ``q`` is a level in [0, 1] or a sequence of levels (then a list is returned).
        """
        if isinstance(q, (list, tuple)):
            return [self.quantile(level) for level in q]
        level = as_probability(q, "q", ErrorCode.QUANTILE, "pass a level in [0, 1], e.g. 0.95", open_interval=False)
        return self.layout.present(tuple(quantile_sorted(sorted(self.component(k)), level) for k in range(self.width)))


def bootstrap(x, method, n_bootstraps=999, seed=None):
    """Resample ``x`` with ``method``; return a :class:`BootstrapResult`.

    ``x`` is one series (n values) or n rows of d variables (rows are resampled
    together); lists, tuples, numpy arrays and pandas objects are accepted.
    ``n_bootstraps`` is the number B of replicates; ``seed`` an int in [0, 2**128) or
    None for fresh entropy (the seed used is recorded on the result). A model-based
    method (one series only) is fitted here and its fit recorded.
    """
    series, method, n_bootstraps, seed = _prepare(x, method, n_bootstraps, seed)
    if is_model_method(method):
        model = resolve_model(method, series, ARITHMETIC)
        return BootstrapResult(model.method, n_bootstraps, seed, STREAM_VERSION, series, model.fit, model)
    method = resolve_method(method, series)
    return BootstrapResult(method, n_bootstraps, seed, STREAM_VERSION, series)


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


def _model_reduce(series, method, statistic, n_bootstraps, seed):
    """bootstrap_reduce for a model-based method: refits for "ar_coef", else the
    statistic of each rebuilt series."""
    model = resolve_model(method, series, ARITHMETIC)
    warn_if_recursive_block_wild(model.method, statistic.kind)
    x = series.columns[0]
    paths = replicate_paths(model, x, seed, n_bootstraps)
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
    )


def bootstrap_reduce(x, method, statistic, n_bootstraps=999, seed=None):
    """Bootstrap distribution of ``statistic`` under ``method``; a :class:`ReduceResult`.

    ``statistic`` is "mean", "var" (ddof=0), "std", "median", ("quantile", q) with q a
    level or a sequence of levels, or a callable taking one resampled series (a list of
    floats, or of row tuples for multivariate data) and returning a float or a flat
    sequence of floats. Named statistics are applied to every column. "ar_coef" (model-
    based methods only) refits the AR model on every replicate: components intercept,
    phi_1 .. phi_p, labelled.
    """
    series, method, n_bootstraps, seed = _prepare(x, method, n_bootstraps, seed)
    statistic = check_statistic_for_method(check_statistic(statistic), method)
    if is_model_method(method):
        return _model_reduce(series, method, statistic, n_bootstraps, seed)
    method = resolve_method(method, series)
    point = apply_statistic(statistic, series.columns, series.univariate)
    layout = statistic_layout(statistic, series, len(point))
    resample = _resampler(series.columns, method)
    replicates = []
    for replicate, row in enumerate(index_rows(method, series.n, seed, n_bootstraps)):
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
    )


@dataclass(frozen=True)
class ConfidenceInterval:
    """A bootstrap confidence interval; unpacks as ``lower, upper, point``.

    Each bound is a float for a scalar statistic of one series, else laid out per
    component like :meth:`ReduceResult.quantile`. ``coverage`` is 1 - alpha.
    ``inner_bootstraps`` is C, the inner replicates per outer replicate, for
    kind="calibrated", and None for the other kinds. ``fit`` and ``skipped`` are those of
    the underlying bootstrap_reduce result (model-based methods).
    """

    lower: object
    upper: object
    point: object
    kind: str
    alpha: float
    method: object
    n_bootstraps: int
    seed: int
    stream_version: int
    inner_bootstraps: int = None
    fit: object = None
    skipped: tuple = ()

    @property
    def coverage(self):
        return 1.0 - self.alpha

    def __iter__(self):
        return iter((self.lower, self.upper, self.point))


def _inner_statistics(columns, univariate, method, statistic, build, root, replicate, inner_bootstraps):
    """The C inner statistics (component tuples) of outer replicate ``replicate``, whose
    resample is ``columns``: inner replicate c is the row ``build`` draws from the key
    ``replicate_key(inner_root(root, replicate), c)``, resampled from ``columns``."""
    resample = _resampler(columns, method)
    inner = inner_root(root, replicate)
    return [
        apply_statistic(statistic, resample(build(replicate_key(inner, c))), univariate)
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
    for replicate, row in enumerate(index_rows(method, n, result.seed, result.n_bootstraps)):
        inner = _inner_statistics(
            outer(row), series.univariate, method, result.statistic, build, root, replicate, inner_bootstraps
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
    for row in index_rows(result.method, series.n, result.seed, result.n_bootstraps):
        for k, column in enumerate(resample(row)):
            errors[k].append(fixed_b_standard_error(column))
    return [
        (fixed_b_standard_error(column), replicate_errors)
        for column, replicate_errors in zip(series.columns, errors, strict=True)
    ]


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
):
    """The conf_int procedure shared by both twins: check ``kind``, ``alpha``, B >= 2 and
    ``inner_bootstraps`` (and, for kind="calibrated", that the statistic is a named one;
    for kind="studentized", that it is the mean of a resampling method), run the twin's
    ``reduce`` (bootstrap_reduce), for kind="calibrated" compute the calibration points
    with the twin's ``calibrate(x, result, C)`` (a sequence of B u_b per component), for
    kind="studentized" the standard errors with ``studentize(x, result)`` ((se, B se*_b)
    per component), bound each component with the twin's ``interval_of`` and lay the
    bounds out with ``present(layout, components)``."""
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
    result = reduce(x, method, statistic, n_bootstraps, seed)
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
    )


def conf_int(
    x, statistic, method, alpha=0.05, kind="percentile", n_bootstraps=999, seed=None, *, inner_bootstraps=None
):
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
    """
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
    )
