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

from __future__ import annotations

import secrets
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from bootmark.reference.api import (
    SEED_BITS,
    checked_interval,
    interval_arguments,
    interval_of_result,
    prepare_arguments,
    statistic_layout,
)
from bootmark.reference.errors import ErrorCode, InvalidParameterError, ParameterTypeError
from bootmark.reference.models import FIT_OK, no_indices_error, settle_refits, warn_if_recursive_block_wild
from bootmark.reference.panel import no_series_id, panel_methods
from bootmark.reference.specs import IID, TaperedBlock, check_statistic, check_statistic_for_method, is_model_method
from bootmark.reference.validation import as_probability, check_n_bootstraps, check_series_id, statistic_components

from . import models
from . import reduce as kernels
from .blocklength import resolve_method
from .data import as_array
from .indices import STREAM_VERSION, index_matrix, row_plan
from .intervals import interval
from .keys import stream_root
from .panel import (
    Panel,
    PanelBootstraps,
    PanelInterval,
    PanelReduceResult,
    SingleCalls,
    bootstrap_panel,
    check_interval_panel,
    interval_panel,
    reduce_panel,
    reduce_panel_distributed,
)
from .taper import taper_weights

if TYPE_CHECKING:  # annotations only: importing this module loads neither numpy.typing nor pandas
    import numpy.typing as npt
    import pandas as pd

    from bootmark.reference.api import ConfidenceInterval, IntervalKind, StatisticLayout
    from bootmark.reference.models import ModelFit, ResolvedModel
    from bootmark.reference.specs import Method, Statistic, StatisticLike

    from .data import Series

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

    Returned by :func:`bootstrap`; not constructed by hand. Nothing is drawn until
    :meth:`indices`, :meth:`values` or :meth:`iter_values` is called, and every call
    draws the same replicates: replicate b depends only on (``seed``, b).

    Attributes
    ----------
    method : method spec
        The resolved method (``"auto"`` replaced by the length used).
    n_bootstraps : int
        B, the number of replicates.
    seed : int
        The seed used, in [0, 2**128) (fresh entropy for ``seed=None``).
    stream_version : int
        The version of the random streams (``STREAM_VERSION``).
    memory_budget : int
        Bytes :meth:`indices` and :meth:`values` may allocate.
    fit : ModelFit or None
        The AR fit of a model-based method; None for resampling methods.
    series_id : int
        The counter's series word the replicates were drawn with (0 unless given).

    See Also
    --------
    bootstrap : makes it.
    bootmark.reference.BootstrapResult : the reference's (lists), the same replicates.

    Examples
    --------
    >>> import numpy as np
    >>> from bootmark import engine
    >>> x = np.array([0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5,
    ...               -0.1, 0.4, 0.5, -0.2, 0.7, 1.4, 1.5, 1.7, 0.6, 0.8, 1.3, 1.1])
    >>> result = engine.bootstrap(x, engine.CircularBlock(4), n_bootstraps=3, seed=42)
    >>> result.method, result.n_bootstraps, result.seed, result.memory_budget == 2**30
    (CircularBlock(block_length=4), 3, 42, True)
    >>> result.indices().shape, result.values().shape
    ((3, 24), (3, 24))
    """

    method: Method
    n_bootstraps: int
    seed: int
    stream_version: int
    memory_budget: int
    series: Series = field(repr=False)
    fit: ModelFit | None = None
    model: ResolvedModel | None = field(default=None, repr=False)
    series_id: int = 0

    def indices(self) -> npt.NDArray[np.int32]:
        """(B, n) int32 source positions; a model-based method has none and raises
        InvalidParameterError (code METHOD).

        Row b, column t is the position in [0, n) of the observation replicate b has at
        time t; one row serves every variable of multivariate data. Bit for bit the rows
        of :meth:`bootmark.reference.BootstrapResult.indices`.

        Returns
        -------
        numpy.ndarray
            A new (B, n) int32 array.

        Raises
        ------
        InvalidParameterError
            Code METHOD: the method is model-based (its replicates are rebuilt series).
            Code MEMORY_BUDGET: B * n * 4 bytes exceed ``memory_budget``.

        See Also
        --------
        values : the resampled series.

        Examples
        --------
        >>> import numpy as np
        >>> from bootmark import engine, reference
        >>> x = np.array([0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5])
        >>> rows = engine.bootstrap(x, engine.MovingBlock(3), n_bootstraps=2, seed=1).indices()
        >>> rows
        array([[ 3,  4,  5,  5,  6,  7,  5,  6,  7,  7,  8,  9],
               [ 6,  7,  8,  4,  5,  6,  9, 10, 11,  5,  6,  7]], dtype=int32)
        >>> rows.tolist() == reference.bootstrap(x, reference.MovingBlock(3), n_bootstraps=2, seed=1).indices()
        True
        """
        if self.model is not None:
            raise no_indices_error(self.method)
        shape = (self.n_bootstraps, self.series.n)
        _check_budget(shape, 4, self.memory_budget, "the index matrix")
        return index_matrix(self.method, self.series.n, self.seed, self.n_bootstraps, series=self.series_id)

    def values(
        self, dtype: Literal["float64", "float32"] = "float64", out: npt.NDArray[np.floating] | None = None
    ) -> npt.NDArray[np.floating]:
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

        Raises
        ------
        InvalidParameterError
            Code DTYPE: ``dtype`` is not "float64" or "float32"; ``out`` is not float64 or
            float32, has the wrong shape, is not C-contiguous or is read-only, or its dtype
            disagrees with a ``dtype`` passed. Code MEMORY_BUDGET (without ``out``): the
            array would exceed ``memory_budget`` bytes.
        ParameterTypeError
            Code DTYPE: ``out`` is not a numpy array.

        See Also
        --------
        iter_values : the same rows, a chunk at a time.
        indices : the source positions.

        Examples
        --------
        >>> import numpy as np
        >>> from bootmark import engine, reference
        >>> x = np.array([0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5])
        >>> result = engine.bootstrap(x, engine.MovingBlock(3), n_bootstraps=4, seed=1)
        >>> paths = result.values()
        >>> paths.shape, paths.dtype
        ((4, 12), dtype('float64'))
        >>> paths.tolist() == reference.bootstrap(x, reference.MovingBlock(3), n_bootstraps=4, seed=1).values()
        True
        >>> buffer = np.empty((4, 12), dtype=np.float32)
        >>> result.values(out=buffer) is buffer
        True
        >>> rows = np.column_stack([x, 10 * x])  # n rows of d = 2 variables, resampled together
        >>> engine.bootstrap(rows, engine.MovingBlock(3), n_bootstraps=4, seed=1).values().shape
        (4, 12, 2)
        """
        n, d = self.series.n, self.series.d
        shape = (self.n_bootstraps, n) if self.series.univariate else (self.n_bootstraps, n, d)
        if out is None:
            target = _target_dtype(dtype)
            _check_budget(shape, target.itemsize, self.memory_budget, "the materialized tensor")
        else:
            target = _checked_out(out, shape, dtype)
        return self._fill(self._recipe(), 0, self.n_bootstraps, target, out)

    def iter_values(
        self, chunk_size: int | None = None, dtype: Literal["float64", "float32"] = "float64"
    ) -> Iterator[tuple[int, npt.NDArray[np.floating]]]:
        """Yield ``(first, block)``: the replicates first .. first + len(block) - 1 as in
        :meth:`values`, a chunk at a time, so B x n is never held at once.

        Parameters
        ----------
        chunk_size : int, optional
            Replicates per chunk; default as many as fit in 64 MiB (at least 1). The
            chunks hold exactly the rows :meth:`values` would return.
        dtype : {"float64", "float32"}
            Of the yielded arrays.

        Yields
        ------
        first : int
            The number of the chunk's first replicate.
        block : numpy.ndarray
            A new (count, n) or (count, n, d) array of replicates first .. first +
            count - 1; count is ``chunk_size`` except for the last chunk.

        Raises
        ------
        InvalidParameterError
            Code DTYPE: an unsupported ``dtype``. Code MEMORY_BUDGET: one chunk would
            exceed ``memory_budget`` bytes.
        ParameterTypeError
            Code N_BOOTSTRAPS: ``chunk_size`` is not a positive int.

        Notes
        -----
        This is a generator: the arguments are checked, and errors raised, when
        iteration starts (at the first ``next``), not at the call.

        Examples
        --------
        >>> import numpy as np
        >>> from bootmark import engine
        >>> x = np.array([0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5])
        >>> result = engine.bootstrap(x, engine.CircularBlock(3), n_bootstraps=5, seed=1)
        >>> [(first, block.shape) for first, block in result.iter_values(chunk_size=2)]
        [(0, (2, 12)), (2, (2, 12)), (4, (1, 12))]
        >>> chunks = [block for _, block in result.iter_values(chunk_size=2)]
        >>> bool((np.concatenate(chunks) == result.values()).all())
        True
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
        root = stream_root(self.seed, self.series_id)
        return (row_plan(self.method, self.series.n), root, *_tapering(self.series, self.method))

    def _fill(self, recipe, first, last, target, out):
        """Replicates first .. last - 1 in ``target`` dtype, into ``out`` when given."""
        n, d = self.series.n, self.series.d
        count = last - first
        if self.model is not None:
            rebuilt = models.paths(
                self.model, self.series.values[:, 0], self.seed, last, first=first, dtype=target, series=self.series_id
            )
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

    Returned by :func:`bootstrap_reduce`; not constructed by hand.

    Attributes
    ----------
    statistic : Statistic
        The parsed statistic.
    method : method spec
        The resolved method.
    n_bootstraps : int
        B, the number of replicates drawn.
    seed : int
        The seed used, in [0, 2**128).
    stream_version : int
        The version of the random streams.
    statistics : numpy.ndarray
        float64, (B,) or (B, k), in replicate order.
    point : float, numpy.ndarray or pandas.Series
        The statistic of the original data: a float for a scalar statistic of one
        series, a pandas Series indexed by ``labels`` when the components are named
        (a DataFrame's columns, ``"ar_coef"``'s coefficients), else a float64 array.
    labels : tuple or None
        Names of the components, as in the reference.
    fit : ModelFit or None
        The AR fit of a model-based method.
    skipped : tuple of int
        Replicates dropped by ``explosive="skip"``.
    series_id : int
        The counter's series word the replicates were drawn with (0 unless given).

    See Also
    --------
    bootstrap_reduce : makes it.
    bootmark.reference.ReduceResult : the reference's (lists and dicts).

    Examples
    --------
    >>> import numpy as np
    >>> from bootmark import engine
    >>> x = np.array([0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5,
    ...               -0.1, 0.4, 0.5, -0.2, 0.7, 1.4, 1.5, 1.7, 0.6, 0.8, 1.3, 1.1])
    >>> result = engine.bootstrap_reduce(x, engine.MovingBlock(4), ("quantile", (0.25, 0.75)), 100, seed=42)
    >>> result.statistics.shape, result.labels
    ((100, 2), (0.25, 0.75))
    >>> type(result.point).__name__, result.point.round(6).tolist()
    ('Series', [-0.1, 0.9])
    """

    statistic: Statistic
    method: Method
    n_bootstraps: int
    seed: int
    stream_version: int
    statistics: npt.NDArray[np.float64] = field(repr=False)
    point: float | npt.NDArray[np.float64] | pd.Series | None = None
    labels: tuple[Hashable, ...] | None = None
    layout: StatisticLayout | None = field(default=None, repr=False)  # set by bootstrap_reduce
    point_components: tuple[float, ...] = field(default=(), repr=False)
    fit: ModelFit | None = None
    skipped: tuple[int, ...] = ()
    series_id: int = 0

    def component(self, k: int) -> npt.NDArray[np.float64]:
        """The B replicates of component k.

        Parameters
        ----------
        k : int
            The component's position (``labels`` names them in order). A scalar
            statistic has the one component 0.

        Returns
        -------
        numpy.ndarray
            float64, (B,) (B - len(skipped) with ``explosive="skip"``), sharing memory
            with :attr:`statistics` (not a copy).

        Examples
        --------
        >>> import numpy as np
        >>> from bootmark import engine
        >>> rows = np.array([[0.7, 1.0], [0.9, 0.2], [0.4, -0.5], [-0.2, 0.3], [-0.1, 0.9], [-0.3, -0.7]])
        >>> result = engine.bootstrap_reduce(rows, engine.IID(), "mean", n_bootstraps=3, seed=5)
        >>> result.component(1).round(6).tolist()
        [0.166667, 0.25, 0.083333]
        """
        return self.statistics if self.statistics.ndim == 1 else self.statistics[:, k]

    def quantile(self, q: float | Sequence[float]) -> float | npt.NDArray[np.float64] | pd.Series | list:
        """Linear-interpolation quantile(s) of the bootstrap distribution (numpy's rule).

        Parameters
        ----------
        q : float or sequence of float
            Level(s) in [0, 1]; a list or tuple gives a list, one entry per level.

        Returns
        -------
        float, numpy.ndarray, pandas.Series or list
            Per level, laid out like :attr:`point`.

        Raises
        ------
        ParameterTypeError
            Code QUANTILE: a level is not a number.
        InvalidParameterError
            Code QUANTILE: a level is outside [0, 1] or not finite.

        Examples
        --------
        >>> import numpy as np
        >>> from bootmark import engine
        >>> x = np.array([0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5])
        >>> result = engine.bootstrap_reduce(x, engine.MovingBlock(3), "mean", n_bootstraps=200, seed=3)
        >>> [round(v, 6) for v in result.quantile([0.05, 0.5, 0.95])]
        [-0.042083, 0.158333, 0.400417]
        """
        if isinstance(q, (list, tuple)):
            return [self.quantile(level) for level in q]
        level = as_probability(q, "q", ErrorCode.QUANTILE, "pass a level in [0, 1], e.g. 0.95", open_interval=False)
        table = self.statistics.reshape(self.statistics.shape[0], -1)
        return _present(self.layout, np.quantile(table, level, axis=0))


def _resampled_chunks(series, method, seed, series_id):
    """``chunk(first, last)``: replicates first .. last - 1 of a resampling method as a
    (last - first, n, d) array (tapered when the method is)."""
    weights, centres = _tapering(series, method)

    def chunk(first, last):
        samples = series.values[index_matrix(method, series.n, seed, last, first=first, series=series_id)]
        if weights.size:
            samples = centres + np.resize(weights, series.n)[:, None] * (samples - centres)
        return samples

    return chunk


def _rebuilt_chunks(series, model, seed, series_id):
    """``chunk(first, last)``: rebuilt series first .. last - 1 of a resolved model, (R, n, 1)."""

    def chunk(first, last):
        return models.paths(model, series.values[:, 0], seed, last, first, series=series_id)[:, :, None]

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


def _reduce_statistics(series, method, statistic, seed, n_bootstraps, width, series_id):
    if statistic.kind == "callable":
        return None
    out = np.empty((n_bootstraps, width))
    kind = kernels.KIND_CODES[statistic.kind]
    plan, root = row_plan(method, series.n), stream_root(seed, series_id)
    columns = _columns(series)
    if _uses_block_algebra(kind, method):
        kernels.block_mean_var(plan, root, 0, columns, kind, out)
    else:
        weights, centres = _tapering(series, method)
        levels = np.asarray(statistic.levels, dtype=float)
        kernels.gather_reduce(plan, root, 0, columns, weights, centres, kind, levels, out)
    return out


def bootstrap(
    x: npt.ArrayLike | pd.Series | pd.DataFrame | Panel,
    method: Method,
    n_bootstraps: int = 999,
    seed: int | None = None,
    *,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    series_id: int = 0,
) -> BootstrapResult | PanelBootstraps:
    """Resample ``x`` with ``method``; a :class:`BootstrapResult` (see reference.bootstrap).

    ``memory_budget`` (bytes, default 1 GiB) caps what ``indices()`` and ``values()``
    may allocate; a larger request raises InvalidParameterError (code MEMORY_BUDGET).

    The same arguments, checks, errors and replicates as
    :func:`bootmark.reference.bootstrap` (index rows bit for bit); numpy types out. A
    model-based method is fitted here (bitwise the reference's fit).

    Parameters
    ----------
    x : array_like, pandas.Series, pandas.DataFrame or Panel
        One series of n >= 2 finite numbers, or an (n, d) array / DataFrame of n rows of
        d variables (rows are resampled together). Magnitudes up to 2**495, n below 2**31.
        A :class:`Panel` of many univariate series gives a :class:`PanelBootstraps`:
        series s is this call on series s with its seed (docs: panels).
    method : method spec
        An instance of IID, MovingBlock, CircularBlock, NonOverlappingBlock,
        StationaryBlock, TaperedBlock, ResidualBootstrap or SieveAR.
    n_bootstraps : int, default 999
        B, a positive int (numpy integers accepted; floats and bools refused).
    seed : int, None, or one per series
        A non-negative int below 2**128, or None for 64 bits of fresh entropy (recorded
        on the result as ``seed``). For a panel, also a list (or a dict keyed by id) of
        one seed per series.
    memory_budget : int, default 2**30
        Bytes, a non-negative int.
    series_id : int, default 0
        The counter's series word, in [0, 2**32): series s of a panel drawn under one
        seed is this call with ``series_id=s`` (see :class:`Panel`).

    Returns
    -------
    BootstrapResult
        The resolved method, B, the seed used, the budget and (model-based) the fit.

    Raises
    ------
    ParameterTypeError
        Code MEMORY_BUDGET: ``memory_budget`` is not a non-negative int (checked first).
        Code METHOD, N_BOOTSTRAPS, SEED: as :func:`bootmark.reference.bootstrap`.
    DataTypeError, InvalidDataError, InvalidParameterError
        As :func:`bootmark.reference.bootstrap`: bad data (codes DATA_*), a block length
        above n (BLOCK_LENGTH) or not estimable (BLOCK_LENGTH_ESTIMATE), B < 1, a seed
        outside [0, 2**128), an AR order at or above n / 2 (MODEL_ORDER), an AR fit that
        is singular or not stationary (MODEL_FIT).

    Warns
    -----
    BlockLengthWarning
        A block length equal to n, or a non-overlapping one that leaves one block.

    See Also
    --------
    bootstrap_reduce : a statistic of every replicate, without the B x n tensor.
    bootmark.reference.bootstrap : the executable specification.

    Examples
    --------
    >>> import numpy as np
    >>> from bootmark import engine, reference
    >>> x = np.array([0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5,
    ...               -0.1, 0.4, 0.5, -0.2, 0.7, 1.4, 1.5, 1.7, 0.6, 0.8, 1.3, 1.1])
    >>> result = engine.bootstrap(x, engine.StationaryBlock("auto"), n_bootstraps=5, seed=2024)
    >>> result.method
    StationaryBlock(mean_block_length=3)
    >>> result.indices()[0].tolist()
    [12, 13, 14, 22, 8, 9, 10, 11, 12, 8, 9, 10, 11, 12, 5, 6, 7, 1, 9, 21, 5, 6, 7, 21]
    >>> twin = reference.bootstrap(x.tolist(), reference.StationaryBlock("auto"), n_bootstraps=5, seed=2024)
    >>> result.indices().tolist() == twin.indices()
    True

    The budget refuses a larger tensor (code MEMORY_BUDGET); ``bootstrap_reduce`` never builds one:

    >>> engine.bootstrap(x, engine.IID(), n_bootstraps=100, seed=1, memory_budget=1024).values()
    Traceback (most recent call last):
        ...
    bootmark.reference.errors.InvalidParameterError: memory_budget: the materialized tensor of shape (100, 24) needs ...
    """
    memory_budget = _check_memory_budget(memory_budget)
    if isinstance(x, Panel):
        seed, method = no_series_id(seed, series_id), panel_methods(method, x.ids)
        n_bootstraps = check_n_bootstraps(n_bootstraps)
        return bootstrap_panel(x, method, n_bootstraps, seed, SINGLE_CALLS, secrets.randbits(SEED_BITS), memory_budget)
    series, method, n_bootstraps, seed = _prepare(x, method, n_bootstraps, seed)
    series_id = check_series_id(series_id)
    if is_model_method(method):
        model = models.resolve(method, series)
        return BootstrapResult(
            model.method, n_bootstraps, seed, STREAM_VERSION, memory_budget, series, model.fit, model, series_id
        )
    resolved = resolve_method(method, series)
    return BootstrapResult(resolved, n_bootstraps, seed, STREAM_VERSION, memory_budget, series, series_id=series_id)


def _model_reduce(series, method, statistic, n_bootstraps, seed, series_id):
    """bootstrap_reduce for a model-based method: fused refits for "ar_coef", the fused
    named statistics or the chunked callable on the rebuilt series."""
    model = models.resolve(method, series)
    warn_if_recursive_block_wild(model.method, statistic.kind)
    x = series.values[:, 0]
    skipped = ()
    if statistic.kind == "ar_coef":
        point = model.fit.components
        out, status = models.refits(model, x, seed, n_bootstraps, series=series_id)
        skipped = settle_refits(status.tolist(), model.method.explosive, model.fit.order)
        out = out[status == FIT_OK]
    else:
        point = _point(series, statistic)
        if statistic.kind == "callable":
            chunks = _rebuilt_chunks(series, model, seed, series_id)
            out = _callable_statistics(series, chunks, statistic, n_bootstraps, point)
        else:
            out = models.statistics(
                model,
                x,
                seed,
                n_bootstraps,
                kernels.KIND_CODES[statistic.kind],
                np.asarray(statistic.levels, dtype=float),
                len(point),
                series=series_id,
            )
    return _reduce_result(
        series, statistic, model.method, n_bootstraps, seed, out, point, series_id, model.fit, skipped
    )


def _reduce_result(series, statistic, method, n_bootstraps, seed, out, point, series_id, fit=None, skipped=()):
    """The :class:`ReduceResult` of (B, width) statistics ``out`` and the point's
    components ``point`` (a tuple of floats): one series' result, by itself or as a
    panel's series."""
    layout = statistic_layout(statistic, series, len(point))
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
        fit,
        skipped,
        series_id,
    )


def bootstrap_reduce(
    x: npt.ArrayLike | pd.Series | pd.DataFrame | Panel,
    method: Method,
    statistic: StatisticLike,
    n_bootstraps: int = 999,
    seed: int | None = None,
    *,
    series_id: int = 0,
    scheduler: Any = None,
) -> ReduceResult | PanelReduceResult:
    """Bootstrap distribution of ``statistic``; a :class:`ReduceResult`.

    Named statistics run in fused Numba kernels (one replicate per work item; mean, var
    and std of untapered block methods by block algebra). A callable receives each
    resampled series as a float64 array ((n,) or (n, d)) and is evaluated in chunks of
    ``CALLABLE_CHUNK`` replicates: correct, but slower by the Python call per replicate.
    "ar_coef" (model-based methods) refits the AR on every rebuilt series inside the
    kernel: a (B, p + 1) array, labelled intercept, phi_1 .. phi_p.

    The same arguments, statistics, checks, errors and replicates as
    :func:`bootmark.reference.bootstrap_reduce`; the statistics agree with the
    reference's within the bounds stated in ``engine/reduce.py`` (model-based methods:
    ``engine/models.py``).

    Parameters
    ----------
    x : array_like, pandas.Series, pandas.DataFrame or Panel
        The data, as for :func:`bootstrap`. A :class:`Panel` gives a
        :class:`PanelReduceResult`: series s's replicates are this call's on series s
        with ``series_id=s`` (one seed) or with its own seed (one seed per series), bit
        for bit; named statistics of the resampling methods run in one fused pass.
    method : method spec, or one per series
        A method spec instance, as for :func:`bootstrap`; for a panel, also a list (or
        a dict keyed by id) of one spec per series.
    statistic : str, tuple or callable
        "mean", "var" (ddof=0), "std", "median", ("quantile", q) with q a level in
        [0, 1] or a sequence of distinct levels, "ar_coef" (model-based methods only),
        or a callable returning a float or a flat sequence of floats, the same number
        for every replicate.
    n_bootstraps : int, default 999
        B, a positive int.
    seed : int or None, default None
        A non-negative int below 2**128, or None for fresh entropy (recorded).
    series_id : int, default 0
        The counter's series word, in [0, 2**32), as for :func:`bootstrap`; refused with
        a panel, which numbers its series itself.
    scheduler : distributed.Client or str, optional
        Panels only: split the panel by series over this dask.distributed cluster (a
        Client, or a scheduler address such as ``"tcp://host:8786"``; needs
        ``bootmark[cluster]``). The result is the local run's, bit for bit.

    Returns
    -------
    ReduceResult
        ``statistics`` a float64 (B,) or (B, k) array; ``point`` the statistic of ``x``.

    Raises
    ------
    DataTypeError, InvalidDataError, ParameterTypeError, InvalidParameterError
        As :func:`bootmark.reference.bootstrap_reduce`: for the data, method, B and seed
        as :func:`bootstrap`; code STATISTIC for an unknown or unsupported statistic
        or ``"ar_coef"`` with a resampling method; QUANTILE for bad levels;
        STATISTIC_RESULT when a callable returns non-finite, non-numeric or a varying
        number of values; InvalidDataError MODEL_FIT for a refused ``"ar_coef"`` refit.

    Warns
    -----
    BlockLengthWarning, SkippedReplicatesWarning, BlockWildDesignWarning
        As :func:`bootmark.reference.bootstrap_reduce`.

    See Also
    --------
    conf_int : an interval from these replicates.
    bootmark.reference.bootstrap_reduce : the executable specification.

    Examples
    --------
    >>> import numpy as np
    >>> from bootmark import engine, reference
    >>> x = np.array([0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5,
    ...               -0.1, 0.4, 0.5, -0.2, 0.7, 1.4, 1.5, 1.7, 0.6, 0.8, 1.3, 1.1])
    >>> result = engine.bootstrap_reduce(x, engine.MovingBlock(4), "mean", n_bootstraps=200, seed=42)
    >>> result.statistics.shape, round(result.point, 6)
    ((200,), 0.533333)
    >>> twin = reference.bootstrap_reduce(x.tolist(), reference.MovingBlock(4), "mean", n_bootstraps=200, seed=42)
    >>> bool(np.allclose(result.statistics, twin.statistics, rtol=0, atol=1e-12))
    True
    >>> fit = engine.bootstrap_reduce(x, engine.ResidualBootstrap(engine.AR(1)), "ar_coef", n_bootstraps=200, seed=42)
    >>> fit.statistics.shape, fit.labels
    ((200, 2), ('intercept', 'phi_1'))
    >>> fit.point.round(6).tolist()
    [0.216086, 0.609403]
    """
    if isinstance(x, Panel):
        # the single call's order: the method (a shared one here; per series in the
        # panel), B, the seeds, the statistic (in reduce_panel)
        seed, method = no_series_id(seed, series_id), panel_methods(method, x.ids)
        n_bootstraps, fresh = check_n_bootstraps(n_bootstraps), secrets.randbits(SEED_BITS)
        if scheduler is not None:
            return reduce_panel_distributed(x, method, statistic, n_bootstraps, seed, SINGLE_CALLS, fresh, scheduler)
        return reduce_panel(x, method, statistic, n_bootstraps, seed, SINGLE_CALLS, fresh)
    _no_scheduler(scheduler)
    series, method, n_bootstraps, seed = _prepare(x, method, n_bootstraps, seed)
    # before resolving "auto", in the reference's order
    statistic = check_statistic_for_method(check_statistic(statistic), method)
    series_id = check_series_id(series_id)
    if is_model_method(method):
        return _model_reduce(series, method, statistic, n_bootstraps, seed, series_id)
    method = resolve_method(method, series)
    point = _point(series, statistic)
    out = _reduce_statistics(series, method, statistic, seed, n_bootstraps, len(point), series_id)
    if out is None:
        chunks = _resampled_chunks(series, method, seed, series_id)
        out = _callable_statistics(series, chunks, statistic, n_bootstraps, point)
    return _reduce_result(series, statistic, method, n_bootstraps, seed, out, point, series_id)


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
        stream_root(result.seed, result.series_id),
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
        stream_root(result.seed, result.series_id),
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
    x: npt.ArrayLike | pd.Series | pd.DataFrame | Panel,
    statistic: StatisticLike,
    method: Method,
    alpha: float = 0.05,
    kind: IntervalKind = "percentile",
    n_bootstraps: int = 999,
    seed: int | None = None,
    *,
    inner_bootstraps: int | None = None,
    series_id: int = 0,
    scheduler: Any = None,
) -> ConfidenceInterval | PanelInterval:
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

    Parameters
    ----------
    x : array_like, pandas.Series, pandas.DataFrame or Panel
        The data, as for :func:`bootstrap`. A :class:`Panel` gives a
        :class:`PanelInterval`: series s's interval is this call's on series s (seeds as
        for :func:`bootstrap_reduce`).
    statistic : str, tuple or callable
        As for :func:`bootstrap_reduce`; each component gets its own interval.
    method : method spec
        A method spec instance.
    alpha : float, default 0.05
        The total two-sided tail probability, in (0, 1): 0.10 gives a 90% interval.
    kind : {"percentile", "basic", "normal", "calibrated", "studentized"}, default "percentile"
        The interval, defined in ``reference.intervals``.
    n_bootstraps : int, default 999
        B, an int >= 2.
    seed : int or None, default None
        A non-negative int below 2**128, or None for fresh entropy (recorded).
    inner_bootstraps : int or None, default None
        C, for kind="calibrated" only: an int >= 10 (None: 199).
    series_id : int, default 0
        The counter's series word, in [0, 2**32), as for :func:`bootstrap`; refused with
        a panel, which numbers its series itself.
    scheduler : distributed.Client or str, optional
        Panels only: split the panel by series over this dask.distributed cluster (a
        Client, or a scheduler address such as ``"tcp://host:8786"``; needs
        ``bootmark[cluster]``). The result is the local run's, bit for bit.

    Returns
    -------
    ConfidenceInterval
        Unpacks as ``lower, upper, point``: floats, or arrays / pandas Series laid out
        like :meth:`ReduceResult.quantile`.

    Raises
    ------
    ParameterTypeError, InvalidParameterError, InvalidDataError, DataTypeError
        As :func:`bootmark.reference.conf_int`: code INTERVAL_KIND for an unknown kind
        or one the method does not support, ALPHA for alpha outside (0, 1),
        N_BOOTSTRAPS for B < 2 or a bad ``inner_bootstraps``, STATISTIC for a callable
        with kind="calibrated" or a statistic other than the mean with
        kind="studentized", DATA_CONSTANT for a studentized interval of a constant series
        or resample; and whatever :func:`bootstrap_reduce` raises.

    Warns
    -----
    BlockLengthWarning, SkippedReplicatesWarning, BlockWildDesignWarning
        As :func:`bootstrap_reduce`.

    See Also
    --------
    bootstrap_reduce : the replicates the bounds come from.
    bootmark.reference.conf_int : the executable specification.

    Examples
    --------
    >>> import numpy as np
    >>> from bootmark import engine
    >>> x = np.array([0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5,
    ...               -0.1, 0.4, 0.5, -0.2, 0.7, 1.4, 1.5, 1.7, 0.6, 0.8, 1.3, 1.1])
    >>> method = engine.StationaryBlock(3)
    >>> lower, upper, point = engine.conf_int(x, "mean", method, alpha=0.10, n_bootstraps=200, seed=42)
    >>> round(lower, 6), round(upper, 6), round(point, 6)
    (0.241667, 0.800208, 0.533333)
    >>> ci = engine.conf_int(x, "median", engine.MovingBlock(4), kind="calibrated", n_bootstraps=100, seed=42,
    ...                      inner_bootstraps=50)
    >>> ci.kind, ci.inner_bootstraps, round(ci.lower, 6), round(ci.upper, 6)
    ('calibrated', 50, -0.002, 1.15)
    >>> rows = np.column_stack([x, 2 * x])
    >>> engine.conf_int(rows, "mean", engine.MovingBlock(4), n_bootstraps=200, seed=42).lower.round(6).tolist()
    [0.128958, 0.257917]
    """
    if isinstance(x, Panel):
        seed, statistic = no_series_id(seed, series_id), check_statistic(statistic)
        kind, alpha, inner_bootstraps = check_interval_panel(
            x, panel_methods(method, x.ids), interval_arguments, statistic, alpha, kind, n_bootstraps, inner_bootstraps
        )
        reduced = bootstrap_reduce(x, method, statistic, n_bootstraps, seed, scheduler=scheduler)
        return interval_panel(x, reduced, SINGLE_CALLS, kind, alpha, inner_bootstraps)
    _no_scheduler(scheduler)
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
        series_id=series_id,
    )


def _series_interval(x, result, kind, alpha, inner_bootstraps):
    """One series' :class:`ConfidenceInterval` from its ``result``, as conf_int bounds it."""
    return interval_of_result(
        interval, _present, x, result, kind, alpha, inner_bootstraps, calibration_points, studentization
    )


def _no_scheduler(scheduler):
    if scheduler is not None:
        raise InvalidParameterError(
            ErrorCode.PANEL,
            "scheduler",
            "splits a panel by series, and x is one series",
            "pass an engine.Panel, or drop scheduler",
        )


#: The single-series entry points a panel's series fall back to (``panel.py`` cannot
#: import this module): an immutable record of module-level functions, so it pickles
#: by reference to a dask worker.
SINGLE_CALLS = SingleCalls(bootstrap, bootstrap_reduce, _series_interval, _reduce_result)
