"""The engine's public entry points: bootstrap, bootstrap_reduce, conf_int.

Same arguments, checks, errors, streams and definitions as ``reference/api.py``; numpy
and pandas types out. Three paths share the one row builder (``indices.fill_row``):

* the index path, ``BootstrapResult.indices()``: (B, n) int32;
* the materializing path, ``BootstrapResult.values()``: one preallocated (B, n[, d])
  array, float64 or float32, refused beyond ``memory_budget`` bytes;
* the fused reduce path, ``bootstrap_reduce``: B statistics without the B x n tensor.

``conf_int(kind="calibrated")`` adds a double bootstrap on the same row builder: one
fused kernel per outer replicate rebuilds x*_b and reduces its C inner replicates
(``reduce.calibration_counts``), never building the B x n or B x C tensor.

Model-based methods (ResidualBootstrap, SieveAR) have no rows: ``models.py`` fits the
model once (bitwise the reference's fit) and its kernels rebuild each replicate series
in per-thread scratch, then store it (``values()``), reduce it (named statistics) or
refit it (``"ar_coef"``, fused: no B x n tensor). Callables get the series in chunks.
"""

from dataclasses import dataclass, field

import numpy as np
from bootmark.reference.api import checked_interval, prepare_arguments, statistic_layout
from bootmark.reference.errors import ErrorCode, InvalidParameterError, ParameterTypeError
from bootmark.reference.models import FIT_OK, no_indices_error, settle_refits, warn_if_recursive_block_wild
from bootmark.reference.specs import IID, TaperedBlock, check_statistic, check_statistic_for_method, is_model_method
from bootmark.reference.validation import as_probability, statistic_components

from . import models
from . import reduce as kernels
from .blocklength import resolve_method
from .data import as_array
from .indices import STREAM_VERSION, index_matrix, row_plan
from .intervals import interval
from .keys import root_key
from .taper import taper_weights

DEFAULT_MEMORY_BUDGET = 1 << 30  # bytes a materialized tensor may take unless the caller allows more
CALLABLE_CHUNK = 256  # replicates materialized at a time for a callable statistic
_DTYPES = {"float64": np.float64, "float32": np.float32}


def _prepare(x, method, n_bootstraps, seed):
    return prepare_arguments(as_array, x, method, n_bootstraps, seed)


def _check_budget(shape, itemsize, memory_budget, what):
    size = int(np.prod(shape, dtype=np.int64)) * itemsize
    if size > memory_budget:
        raise InvalidParameterError(
            ErrorCode.MEMORY_BUDGET,
            "memory_budget",
            f"{what} of shape {shape} needs {size / 2**20:,.0f} MiB, over the budget of "
            f"{memory_budget / 2**20:,.0f} MiB",
            "use bootstrap_reduce, which never builds the tensor, or raise memory_budget",
        )


def _check_memory_budget(memory_budget):
    if isinstance(memory_budget, bool) or not isinstance(memory_budget, (int, np.integer)) or memory_budget < 0:
        raise ParameterTypeError(
            ErrorCode.MEMORY_BUDGET,
            "memory_budget",
            f"expected a non-negative int of bytes, got {memory_budget!r}",
            "pass e.g. memory_budget=4 * 2**30 for 4 GiB",
        )
    return int(memory_budget)


def _tapering(series, method):
    """(weights, column means): empty weights for untapered methods."""
    if isinstance(method, TaperedBlock):
        return taper_weights(method), kernels.centre_columns(_columns(series))[1]
    return np.zeros(0), np.zeros(series.d)


def _columns(series):
    """(d, n) C-ordered copy of the data: never a view, since reduce_column works in place."""
    return np.array(series.values.T, order="C")


@dataclass(frozen=True)
class BootstrapResult:
    """Replicates of a bootstrap, generated on demand from (seed, replicate number).

    ``method`` is the resolved spec; ``memory_budget`` bounds what ``indices`` and
    ``values`` may allocate (bytes). For a model-based method ``fit`` is the
    :class:`~reference.models.ModelFit` of the data (None otherwise).
    """

    method: object
    n_bootstraps: int
    seed: int
    stream_version: int
    memory_budget: int
    series: object = field(repr=False)
    fit: object = None
    model: object = field(default=None, repr=False)

    def indices(self):
        """(B, n) int32 source positions; a model-based method has none and raises
        InvalidParameterError (code METHOD)."""
        if self.model is not None:
            raise no_indices_error(self.method)
        shape = (self.n_bootstraps, self.series.n)
        _check_budget(shape, 4, self.memory_budget, "the index matrix")
        return index_matrix(self.method, self.series.n, self.seed, self.n_bootstraps)

    def values(self, dtype="float64", out=None):
        """Resampled series: (B, n) for one series, (B, n, d) for rows of d variables.

        Parameters
        ----------
        dtype : {"float64", "float32"}
            Of the returned array only; tapered values and model-based series are
            computed in float64 first.
        out : numpy.ndarray, optional
            A C-contiguous, writeable array of that shape and a float64 or float32 dtype
            to fill instead of allocating one (its dtype wins; ``dtype`` must agree or be
            left at its default). The memory budget does not apply: the caller owns it.

        Returns
        -------
        numpy.ndarray
            ``out`` when given, else a new array. For a model-based method, the rebuilt
            series x* in the data's units; for ``ResidualBootstrap(..., design="fixed")``
            they are fitted values on the *observed* lags plus errors, so their own lags
            are not the regressors (``reference/models.py`` item 9).
        """
        n, d = self.series.n, self.series.d
        shape = (self.n_bootstraps, n) if self.series.univariate else (self.n_bootstraps, n, d)
        if out is None:
            target = _target_dtype(dtype)
            _check_budget(shape, target.itemsize, self.memory_budget, "the materialized tensor")
        else:
            target = _checked_out(out, shape, dtype)
        return self._fill(self._recipe(), 0, self.n_bootstraps, target, out)

    def iter_values(self, chunk_size=None, dtype="float64"):
        """Yield ``(first, block)``: the replicates first .. first + len(block) - 1 as in
        :meth:`values`, a chunk at a time, so B x n is never held at once.

        Parameters
        ----------
        chunk_size : int, optional
            Replicates per chunk; default as many as fit in 64 MiB (at least 1). The
            chunks hold exactly the rows :meth:`values` would return.
        dtype : {"float64", "float32"}
        """
        target = _target_dtype(dtype)
        row_bytes = self.series.n * self.series.d * target.itemsize
        if chunk_size is None:
            chunk_size = max(1, min(self.n_bootstraps, (64 << 20) // row_bytes))
        elif isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) or chunk_size < 1:
            raise ParameterTypeError(
                ErrorCode.N_BOOTSTRAPS,
                "chunk_size",
                f"expected a positive int of replicates, got {chunk_size!r}",
                "pass e.g. chunk_size=1000, or leave it out",
            )
        _check_budget(
            (int(chunk_size), self.series.n, self.series.d),
            target.itemsize,
            self.memory_budget,
            "one chunk of the materialized tensor",
        )
        recipe = self._recipe()  # once, not per chunk
        for first in range(0, self.n_bootstraps, int(chunk_size)):
            yield first, self._fill(recipe, first, min(first + int(chunk_size), self.n_bootstraps), target, None)

    def _recipe(self):
        """(row plan, root key, taper weights, column centres) of a materialization; None
        for a model-based method, whose rebuild needs none of them."""
        if self.model is not None:
            return None
        return (row_plan(self.method, self.series.n), root_key(self.seed), *_tapering(self.series, self.method))

    def _fill(self, recipe, first, last, target, out):
        """Replicates first .. last - 1 in ``target`` dtype, into ``out`` when given."""
        n, d = self.series.n, self.series.d
        count = last - first
        if self.model is not None:
            rebuilt = models.paths(self.model, self.series.values[:, 0], self.seed, last, first=first, dtype=target)
            if out is None:
                return rebuilt if self.series.univariate else rebuilt.reshape(count, n, d)
            out[...] = rebuilt.reshape(out.shape)
            return out
        plan, root, weights, centres = recipe
        buffer = np.empty((count, n, d), dtype=target) if out is None else out.reshape(count, n, d)
        kernels.materialize(plan, root, first, self.series.values, weights, centres, buffer)
        if out is not None:
            return out
        return buffer[:, :, 0] if self.series.univariate else buffer


def _target_dtype(dtype):
    if not isinstance(dtype, str) or dtype not in _DTYPES:
        raise InvalidParameterError(
            ErrorCode.DTYPE, "dtype", f"unsupported dtype {dtype!r}", "pass 'float64' or 'float32'"
        )
    return np.dtype(_DTYPES[dtype])


def _checked_out(out, shape, dtype):
    """The dtype of a caller's ``out`` array, after checking it can take ``shape``."""
    if not isinstance(out, np.ndarray):
        raise ParameterTypeError(
            ErrorCode.DTYPE,
            "out",
            f"expected a numpy array, got {type(out).__name__}",
            f"pass np.empty({shape}) or leave out=None",
        )
    if out.dtype not in (np.float64, np.float32):
        raise InvalidParameterError(
            ErrorCode.DTYPE,
            "out",
            f"dtype {out.dtype} is not float64 or float32",
            f"pass np.empty({shape}, dtype=np.float64)",
        )
    if dtype != "float64" and np.dtype(_target_dtype(dtype)) != out.dtype:
        raise InvalidParameterError(
            ErrorCode.DTYPE,
            "dtype",
            f"dtype {dtype!r} disagrees with out's {out.dtype}",
            "leave dtype at its default when passing out",
        )
    if out.shape != shape or not out.flags.c_contiguous or not out.flags.writeable:
        raise InvalidParameterError(
            ErrorCode.DTYPE,
            "out",
            f"expected a writeable C-contiguous array of shape "
            f"{shape}, got shape {out.shape}"
            f"{'' if out.flags.c_contiguous else ', not C-contiguous'}"
            f"{'' if out.flags.writeable else ', read-only'}",
            f"pass np.empty({shape}, dtype=np.float64)",
        )
    return out.dtype


def _present(layout, components):
    """Engine types out: float, pandas Series (labels) or ndarray."""
    if layout.scalar:
        return float(components[0])
    if layout.labels is not None:
        import pandas as pd  # only callers with labelled (pandas) data pay for the import

        return pd.Series(np.asarray(components, dtype=float), index=list(layout.labels))
    return np.asarray(components, dtype=float)


@dataclass(frozen=True)
class ReduceResult:
    """Bootstrap distribution of a statistic.

    ``statistics`` is a float64 array of shape (B,) for a scalar statistic of one series,
    else (B, k) with one column per component (named by ``labels`` when it can be).
    ``point`` is the statistic on the original data. Model-based methods record their
    ``fit``; ``skipped`` holds the replicates dropped by ``explosive="skip"``, whose rows
    ``statistics`` then lacks (it has B - len(skipped) rows).
    """

    statistic: object
    method: object
    n_bootstraps: int
    seed: int
    stream_version: int
    statistics: np.ndarray = field(repr=False)
    point: object = None
    labels: tuple = None
    layout: object = field(default=None, repr=False)
    point_components: tuple = field(default=(), repr=False)
    fit: object = None
    skipped: tuple = ()

    def component(self, k):
        """The B replicates of component k."""
        return self.statistics if self.statistics.ndim == 1 else self.statistics[:, k]

    def quantile(self, q):
        """Linear-interpolation quantile(s) of the bootstrap distribution (numpy's rule)."""
        if isinstance(q, (list, tuple)):
            return [self.quantile(level) for level in q]
        level = as_probability(q, "q", ErrorCode.QUANTILE, "pass a level in [0, 1], e.g. 0.95", open_interval=False)
        table = self.statistics.reshape(self.statistics.shape[0], -1)
        return _present(self.layout, np.quantile(table, level, axis=0))


def _resampled_chunks(series, method, seed):
    """``chunk(first, last)``: replicates first .. last - 1 of a resampling method as a
    (last - first, n, d) array (tapered when the method is)."""
    weights, centres = _tapering(series, method)

    def chunk(first, last):
        samples = series.values[index_matrix(method, series.n, seed, last, first=first)]
        if weights.size:
            samples = centres + np.resize(weights, series.n)[:, None] * (samples - centres)
        return samples

    return chunk


def _rebuilt_chunks(series, model, seed):
    """``chunk(first, last)``: rebuilt series first .. last - 1 of a resolved model, (R, n, 1)."""

    def chunk(first, last):
        return models.paths(model, series.values[:, 0], seed, last, first)[:, :, None]

    return chunk


def _callable_statistics(series, chunk, statistic, n_bootstraps, point):
    """A callable's components on every replicate, materialized ``CALLABLE_CHUNK`` at a
    time by ``chunk(first, last)``."""
    out = np.empty((n_bootstraps, len(point)))
    for first in range(0, n_bootstraps, CALLABLE_CHUNK):
        last = min(first + CALLABLE_CHUNK, n_bootstraps)
        for r, sample in enumerate(chunk(first, last)):
            components = statistic_components(
                statistic.function(sample[:, 0] if series.univariate else sample), f"replicate {first + r}"
            )
            if len(components) != len(point):
                raise InvalidParameterError(
                    ErrorCode.STATISTIC_RESULT,
                    "statistic",
                    f"returned {len(components)} values on replicate {first + r} but {len(point)} on the original data",
                    "return the same number of values for every sample",
                )
            out[first + r] = components
    return out


def _point(series, statistic):
    if statistic.kind == "callable":
        # A copy: a callable that sorts or centres its argument in place must not
        # rewrite the data the replicates are drawn from.
        sample = series.values[:, 0].copy() if series.univariate else series.values.copy()
        return statistic_components(statistic.function(sample), "the original data")
    kind = kernels.KIND_CODES[statistic.kind]
    if kind == kernels.MEAN:  # the mean in moment()'s order, without compiling moment() for it
        return tuple(float(kernels.accurate_sum(column, series.n) / series.n) for column in _columns(series))
    if kind in (kernels.VAR, kernels.STD):  # compiles only the small moment kernel
        return tuple(float(kernels.moment(kind, column)) for column in _columns(series))
    levels = np.asarray(statistic.levels, dtype=float)
    out = np.empty(series.d * max(1, len(levels)))
    offset = 0
    for column in _columns(series):
        offset = kernels.reduce_column(kind, levels, column, out, offset)
    return tuple(float(v) for v in out[:offset])


def _uses_block_algebra(kind, method):
    """Whether a named statistic's replicates come from ``block_mean_var`` (prefix-sum
    block algebra) rather than ``gather_reduce``: mean, var, std of untapered blocks."""
    return kind in (kernels.MEAN, kernels.VAR, kernels.STD) and not isinstance(method, (IID, TaperedBlock))


def _reduce_statistics(series, method, statistic, seed, n_bootstraps, width):
    if statistic.kind == "callable":
        return None
    out = np.empty((n_bootstraps, width))
    kind = kernels.KIND_CODES[statistic.kind]
    plan, root = row_plan(method, series.n), root_key(seed)
    columns = _columns(series)
    if _uses_block_algebra(kind, method):
        kernels.block_mean_var(plan, root, 0, columns, kind, out)
    else:
        weights, centres = _tapering(series, method)
        levels = np.asarray(statistic.levels, dtype=float)
        kernels.gather_reduce(plan, root, 0, columns, weights, centres, kind, levels, out)
    return out


def bootstrap(x, method, n_bootstraps=999, seed=None, *, memory_budget=DEFAULT_MEMORY_BUDGET):
    """Resample ``x`` with ``method``; a :class:`BootstrapResult` (see reference.bootstrap).

    ``memory_budget`` (bytes, default 1 GiB) caps what ``indices()`` and ``values()``
    may allocate; a larger request raises InvalidParameterError (code MEMORY_BUDGET).
    """
    memory_budget = _check_memory_budget(memory_budget)
    series, method, n_bootstraps, seed = _prepare(x, method, n_bootstraps, seed)
    if is_model_method(method):
        model = models.resolve(method, series)
        return BootstrapResult(
            model.method, n_bootstraps, seed, STREAM_VERSION, memory_budget, series, model.fit, model
        )
    return BootstrapResult(resolve_method(method, series), n_bootstraps, seed, STREAM_VERSION, memory_budget, series)


def _model_reduce(series, method, statistic, n_bootstraps, seed):
    """bootstrap_reduce for a model-based method: fused refits for "ar_coef", the fused
    named statistics or the chunked callable on the rebuilt series."""
    model = models.resolve(method, series)
    warn_if_recursive_block_wild(model.method, statistic.kind)
    x = series.values[:, 0]
    skipped = ()
    if statistic.kind == "ar_coef":
        point = model.fit.components
        out, status = models.refits(model, x, seed, n_bootstraps)
        skipped = settle_refits(status.tolist(), model.method.explosive, model.fit.order)
        out = out[status == FIT_OK]
    else:
        point = _point(series, statistic)
        if statistic.kind == "callable":
            out = _callable_statistics(series, _rebuilt_chunks(series, model, seed), statistic, n_bootstraps, point)
        else:
            out = models.statistics(
                model,
                x,
                seed,
                n_bootstraps,
                kernels.KIND_CODES[statistic.kind],
                np.asarray(statistic.levels, dtype=float),
                len(point),
            )
    layout = statistic_layout(statistic, series, len(point))
    statistics = out[:, 0] if layout.scalar else out
    return ReduceResult(
        statistic,
        model.method,
        n_bootstraps,
        seed,
        STREAM_VERSION,
        statistics,
        _present(layout, point),
        layout.labels,
        layout,
        point,
        model.fit,
        skipped,
    )


def bootstrap_reduce(x, method, statistic, n_bootstraps=999, seed=None):
    """Bootstrap distribution of ``statistic``; a :class:`ReduceResult`.

    Named statistics run in fused Numba kernels (one replicate per work item; mean, var
    and std of untapered block methods by block algebra). A callable receives each
    resampled series as a float64 array ((n,) or (n, d)) and is evaluated in chunks of
    ``CALLABLE_CHUNK`` replicates: correct, but slower by the Python call per replicate.
    "ar_coef" (model-based methods) refits the AR on every rebuilt series inside the
    kernel: a (B, p + 1) array, labelled intercept, phi_1 .. phi_p.
    """
    series, method, n_bootstraps, seed = _prepare(x, method, n_bootstraps, seed)
    # before resolving "auto", in the reference's order
    statistic = check_statistic_for_method(check_statistic(statistic), method)
    if is_model_method(method):
        return _model_reduce(series, method, statistic, n_bootstraps, seed)
    method = resolve_method(method, series)
    point = _point(series, statistic)
    layout = statistic_layout(statistic, series, len(point))
    out = _reduce_statistics(series, method, statistic, seed, n_bootstraps, len(point))
    if out is None:
        out = _callable_statistics(series, _resampled_chunks(series, method, seed), statistic, n_bootstraps, point)
    statistics = out[:, 0] if layout.scalar else out
    return ReduceResult(
        statistic,
        method,
        n_bootstraps,
        seed,
        STREAM_VERSION,
        statistics,
        _present(layout, point),
        layout.labels,
        layout,
        point,
    )


def calibration_points(x, result, inner_bootstraps):
    """The calibration points u_b of a calibrated interval (``reference.intervals``) as
    a (k, B) float64 array, row k for component k of ``result`` (an engine
    :class:`ReduceResult` of ``x``, a named statistic, whose resolved method, seed and B
    it reuses): u_b = (less + 0.5 * equal) / C, the reference's arithmetic."""
    series = as_array(x)
    statistic, method = result.statistic, result.method
    kind = kernels.KIND_CODES[statistic.kind]
    weights, centres = _tapering(series, method)
    less, equal = kernels.calibration_counts(
        row_plan(method, series.n),
        root_key(result.seed),
        _columns(series),
        weights,
        centres,
        kind,
        np.asarray(statistic.levels, dtype=float),
        _uses_block_algebra(kind, method),
        np.asarray(result.point_components, dtype=float),
        inner_bootstraps,
        result.n_bootstraps,
    )
    return ((less + 0.5 * equal) / inner_bootstraps).T


def studentization(x, result):
    """(se, se*) per column for a studentized interval (``reference.intervals``): the
    fixed-b standard error of each data column (a float) and of each replicate's column
    (a (B,) float64 array), for the engine :class:`ReduceResult` ``result`` of the mean
    of ``x``; replicates are rebuilt by the fused gather kernel, never stored."""
    series = as_array(x)
    columns = _columns(series)
    out = np.empty((result.n_bootstraps, series.d))
    kernels.gather_reduce(
        row_plan(result.method, series.n),
        root_key(result.seed),
        0,
        columns,
        np.zeros(0),
        np.zeros(series.d),
        kernels.FIXED_B_SE,
        np.zeros(0),
        out,
    )
    return [(float(kernels.fixed_b_standard_error(columns[c].copy())), out[:, c]) for c in range(series.d)]


def conf_int(
    x, statistic, method, alpha=0.05, kind="percentile", n_bootstraps=999, seed=None, *, inner_bootstraps=None
):
    """Two-sided bootstrap confidence interval: unpacks as (lower, upper, point).

    Same checks and definitions as ``reference.conf_int`` (see ``reference.intervals``);
    bounds are floats, or arrays / pandas Series laid out like ``ReduceResult.quantile``.

    ``inner_bootstraps`` (kind="calibrated" only): C, the inner replicates drawn from
    each outer resample, an int >= 10 (None: 199); any other kind refuses a value. The
    calibrated interval costs B * C inner replicates, run in fused kernels on
    ``numba.get_num_threads()`` threads: about the cost of ``bootstrap_reduce`` with
    B * C replicates. Named statistics only: a callable raises InvalidParameterError
    (code STATISTIC); model-based methods refuse kind="calibrated" (code INTERVAL_KIND).

    kind="studentized" (the mean, resampling methods other than TaperedBlock) adds one
    fused pass over each replicate for its fixed-b standard error: about the cost of
    materializing the replicates, without storing them.
    """
    return checked_interval(
        bootstrap_reduce,
        interval,
        _present,
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
