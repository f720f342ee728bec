"""Peer adapters for the coverage studies: one interval of the mean from ``arch`` or ``tsbootstrap``.

The study runner asks every resampler the same question: given a 1-D float64 series, the
two-sided tail ``alpha`` (0.10 gives a 90% interval), an interval ``kind`` in bootmark's
names, a replicate count ``B`` and an int ``seed``, what interval for the *sample mean* does
this peer give? :data:`PEER_RESAMPLERS` maps a name to a :class:`PeerResampler` whose
``interval`` answers with a :class:`PeerInterval`, in the units of the series.

Determinism. Every call builds its own generator from ``seed`` and nothing else, so the
answer is a function of (series, alpha, kind, n_bootstraps, seed) alone: the same bits on
every call and in every process (for tsbootstrap's compiled backend, on any thread count;
its Philox streams are keyed by replicate).

How each peer is driven (the choices that change results if made differently):

* ``arch`` 8.0.0. The resampler is seeded with ``numpy.random.default_rng(seed)``. One
  ``.cov(mean, B)`` pass draws the B replicates and gives the standard error (the
  replicates' standard deviation about their own mean, divisor B: arch's own definition,
  also the one its "norm" interval uses). ``conf_int(..., reuse=True)`` then reads the
  interval from exactly those replicates; arch's warning that reuse was refused is turned
  into an error, so the interval and the SE can never silently come from different draws.
  ``conf_int`` takes the *coverage* ``size = 1 - alpha`` (its default 0.95 is never used)
  and an explicit ``method`` (its default is "basic"). arch computes its tail as
  ``(1 - size) / 2``, which can differ from ``alpha / 2`` in the last bit.

  ``"studentized"`` cannot reuse: arch runs a nested bootstrap of
  :data:`STUDENTIZE_REPS` inner replicates for each outer one, on a second resampler
  seeded afresh with ``default_rng(seed)``. Its outer draws are therefore not the draws
  of the ``.cov`` pass, but the reported ``standard_error`` is still the ``.cov`` one,
  so the SE of a (series, B, seed) is the same for every kind. arch serves "bc" and
  "bca" on its block resamplers too (its acceleration is a delete-one jackknife, which
  ignores the dependence); they are offered here exactly as arch gives them.

* Block lengths for arch come from ``arch.bootstrap.optimal_block_length(series)``
  (Politis-White with the Patton-Politis-White correction), which returns unrounded
  floats. ``MovingBlockBootstrap`` needs an int (a float block size makes it fail: it is
  used as an array size), so the moving resampler uses ``ceil(column "circular")``,
  rounding up as Politis and White advise and as the MATLAB program arch takes its tuning
  from does, clipped to [1, n]. ``StationaryBootstrap`` only uses ``p = 1 / block_size``,
  and the mean of a geometric block length need not be an integer, so it gets column
  "stationary" unrounded, floored at 1.0 (the estimate can fall below 1 on white noise).
  ``PeerInterval.block_length`` records the value passed.

* ``tsbootstrap`` 0.7.3, ``MovingBlock`` on ``backend="compiled"`` (numba). The block
  length is tsbootstrap's own "auto" rule, ceil of its Politis-White estimate for the
  circular constant (``tsbootstrap.block.pwsd.optimal_block_length(kind="circular")``),
  computed here and passed as an int so that the length used is the length recorded.
  ``random_state=seed`` (an int becomes ``SeedSequence(seed)``, the run's recorded root).
  One ``bootstrap_reduce(statistic="mean")`` pass gives the B replicate means; the
  interval is tsbootstrap's own ``percentile_interval`` / ``basic_interval`` on them with
  ``alpha`` passed explicitly (its default is 0.05), numpy's default linear quantile.
  This is what ``tsbootstrap.conf_int(..., backend="compiled")`` does internally; the
  call is split only to keep the replicates for the SE (divisor B, as for arch:
  tsbootstrap defines no replicate SE of its own). The first call in a process with a
  cold numba cache compiles for about 50 s (100 to 110 s measured on this shared 2-core machine);
  pointing ``NUMBA_CACHE_DIR`` at a persistent folder is the caller's business.

A peer that is not installed is still listed; its ``interval`` raises
:class:`PeerNotInstalledError` and :func:`peer_versions` reports ``None``.

Examples
--------
>>> sorted(PEER_RESAMPLERS)
['arch.IIDBootstrap', 'arch.MovingBlockBootstrap', 'arch.StationaryBootstrap', 'tsbootstrap.MovingBlock']
>>> PEER_RESAMPLERS["tsbootstrap.MovingBlock"].kinds
('percentile', 'basic')
"""

from __future__ import annotations

import importlib
import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from bootmark.core.extras import IMPORT_NAMES, PEER_PINS, install_hint
from bootmark.core.provenance import package_version
from bootmark.reference.errors import (
    DataTypeError,
    ErrorCode,
    InvalidDataError,
    InvalidParameterError,
    ParameterTypeError,
)
from bootmark.reference.validation import check_alpha, check_n_bootstraps, check_seed

if TYPE_CHECKING:
    from collections.abc import Iterable

    from numpy.typing import ArrayLike

__all__ = [
    "PEER_RESAMPLERS",
    "STUDENTIZE_REPS",
    "arch_iid_bootstrap",
    "arch_moving_block_bootstrap",
    "arch_stationary_bootstrap",
    "tsbootstrap_moving_block",
    "PeerFailure",
    "PeerInterval",
    "PeerNotInstalledError",
    "PeerResampler",
    "peer_versions",
    "require_installed",
]

#: Inner replicates of arch's nested bootstrap for kind "studentized", per outer replicate.
#: arch's default is 1000, which costs B * 1000 resamples: 45 s a call at n=200, B=999 on
#: this machine, against about 2 s with 50, which keeps a 2,000-series study feasible.
#: Receipts record it (``PeerResampler.settings["studentize_reps"]``).
STUDENTIZE_REPS = 50

#: bootmark's interval names -> arch's ``conf_int`` method names.
ARCH_METHODS = MappingProxyType(
    {
        "percentile": "percentile",
        "basic": "basic",
        "normal": "norm",
        "bc": "bc",
        "bca": "bca",
        "studentized": "studentized",
    }
)

#: Kinds tsbootstrap's compiled backend serves for a built-in statistic.
TSBOOTSTRAP_KINDS = ("percentile", "basic")

# The install command of each peer, by import name: its extra, and the version receipts
# are comparable at.
_INSTALL_HINT = MappingProxyType(
    {
        IMPORT_NAMES.get(package, package): f"{install_hint(IMPORT_NAMES.get(package, package))} ({package}=={pin})"
        for package, pin in PEER_PINS.items()
    }
)


class PeerNotInstalledError(ModuleNotFoundError):
    """The peer package a resampler needs is not importable; the message says how to install it.

    Parameters
    ----------
    package : {"arch", "tsbootstrap"}
        The missing package (also its ``name`` and ``package`` attributes).

    Examples
    --------
    >>> error = PeerNotInstalledError("tsbootstrap")
    >>> error.package, error.name
    ('tsbootstrap', 'tsbootstrap')
    >>> print(str(error)[:60])
    tsbootstrap is not installed, so its resamplers cannot run:
    """

    def __init__(self, package: str) -> None:
        super().__init__(
            f"{package} is not installed, so its resamplers cannot run: {_INSTALL_HINT[package]}", name=package
        )
        self.package = package

    def __reduce__(self):  # rebuilt from the package name when it crosses a process boundary
        return type(self), (self.package,)


def require_installed(peer_names: Iterable[str | None]) -> None:
    """Raise :class:`PeerNotInstalledError` for the first peer package in ``peer_names``
    (resampler peer names such as "tsbootstrap.MovingBlock", or None for engine
    resamplers) that is not installed; checked before a run or a replay starts.

    Parameters
    ----------
    peer_names : iterable of str or None
        The ``peer`` of each resampler of a study (None for an engine resampler).

    Returns
    -------
    None

    Raises
    ------
    PeerNotInstalledError
        A peer package that is not installed.

    Examples
    --------
    >>> require_installed([None, None])
    """
    for name in peer_names:
        if name is None:
            continue
        package = PEER_RESAMPLERS[name].package if name in PEER_RESAMPLERS else name.split(".")[0]
        if package in _INSTALL_HINT and package_version(package) is None:
            raise PeerNotInstalledError(package)


class PeerFailure(RuntimeError):
    """The peer ran but gave no finite interval for this series (e.g. arch's bias
    correction is undefined when no replicate falls below the estimate).

    Raised by :meth:`PeerResampler.interval`; the message names the peer and the kind.
    """


@dataclass(frozen=True)
class PeerInterval:
    """One peer's answer, in the units of the series.

    ``standard_error`` is the standard deviation of the B replicate means about their mean,
    divisor B (ddof=0). ``block_length`` is the (mean) block length passed to the peer,
    ``None`` for i.i.d. resampling.

    Attributes
    ----------
    lower, upper : float
        The interval's bounds.
    point : float
        The sample mean of the series.
    standard_error : float
        The replicates' standard deviation, divisor B.
    block_length : float or None
        The (mean) block length passed to the peer; None for i.i.d. resampling.
    """

    lower: float
    upper: float
    point: float
    standard_error: float
    block_length: float | None


@dataclass(frozen=True)
class PeerResampler:
    """A named peer resampler of the sample mean.

    ``kinds`` are the interval kinds it serves, in bootmark's names. ``settings`` holds the
    fixed choices a receipt should record (block-length rule, inner replicate count, ...).

    Attributes
    ----------
    name : str
        Its key in :data:`PEER_RESAMPLERS` (e.g. ``"arch.IIDBootstrap"``).
    package : {"arch", "tsbootstrap"}
        The peer package it drives.
    kinds : tuple of str
        The interval kinds it serves.
    settings : mapping
        The fixed choices a receipt records.

    Examples
    --------
    >>> peer = PEER_RESAMPLERS["arch.MovingBlockBootstrap"]
    >>> peer.package, peer.settings["studentize_reps"]
    ('arch', 50)
    """

    name: str
    package: str
    kinds: tuple
    settings: Mapping = field(compare=False)
    _run: Callable = field(repr=False, compare=False)

    def interval(self, series: ArrayLike, *, alpha: float, kind: str, n_bootstraps: int, seed: int) -> PeerInterval:
        """The peer's ``1 - alpha`` two-sided interval for the mean of ``series``.

        ``series``: 1-D, real, finite, at least 2 values (block resamplers may need more
        for their block-length estimate). ``alpha`` in (0, 1); ``kind`` one of
        ``self.kinds``; ``n_bootstraps`` an int >= 1; ``seed`` an int >= 0. Bad arguments
        raise bootmark's typed errors naming the argument; a missing peer raises
        :class:`PeerNotInstalledError`; a non-finite result raises :class:`PeerFailure`.

        Parameters
        ----------
        series : array_like
            One series, in data units.
        alpha : float
            Two-sided tail, in (0, 1); 0.10 gives a 90% interval.
        kind : str
            One of ``self.kinds``.
        n_bootstraps : int
            Replicates B, >= 1.
        seed : int
            Seed of the peer's generator, >= 0.

        Returns
        -------
        PeerInterval
            Bounds, point, SE and block length, in the units of the series.

        Raises
        ------
        bootmark.reference.errors.ParameterTypeError
            ``kind``, ``alpha``, ``n_bootstraps`` or ``seed`` of the wrong type.
        bootmark.reference.errors.InvalidParameterError
            A kind this peer does not serve, or an out-of-range ``alpha``,
            ``n_bootstraps`` or ``seed``.
        bootmark.reference.errors.DataTypeError
            A series that is not real numbers.
        bootmark.reference.errors.InvalidDataError
            A series that is not 1-D, has fewer than 2 values or non-finite values, or
            whose block length arch cannot estimate.
        PeerNotInstalledError
            The peer package is not installed.
        PeerFailure
            The peer gave no finite interval.

        Examples
        --------
        >>> peer = PEER_RESAMPLERS["tsbootstrap.MovingBlock"]
        >>> peer.interval([0.1, 0.2], alpha=0.1, kind="normal", n_bootstraps=99, seed=1)
        Traceback (most recent call last):
            ...
        bootmark.reference.errors.InvalidParameterError: kind: tsbootstrap.MovingBlock has no interval kind 'normal'...
        """
        kind = self._check_kind(kind)
        alpha = check_alpha(alpha)
        n_bootstraps = check_n_bootstraps(n_bootstraps)
        seed = check_seed(seed)
        x = _check_series(series)
        result = self._run(x, alpha, kind, n_bootstraps, seed)
        numbers = (result.lower, result.upper, result.point, result.standard_error)
        if not all(math.isfinite(v) for v in numbers):
            raise PeerFailure(f"{self.name} returned a non-finite interval {result} for kind {kind!r}")
        return result

    def _check_kind(self, kind):
        fix = f"pass kind= one of {', '.join(map(repr, self.kinds))} for {self.name}"
        if not isinstance(kind, str):
            raise ParameterTypeError(ErrorCode.INTERVAL_KIND, "kind", f"expected a string, got {kind!r}", fix)
        if kind not in self.kinds:
            raise InvalidParameterError(
                ErrorCode.INTERVAL_KIND, "kind", f"{self.name} has no interval kind {kind!r}", fix
            )
        return kind


def _check_series(series):
    """The series as a contiguous 1-D float64 array, or a typed error naming ``series``."""
    x = np.asarray(series)
    if x.dtype.kind not in "iuf":
        raise DataTypeError(
            ErrorCode.DATA_TYPE,
            "series",
            f"expected real numbers, got dtype {x.dtype}",
            "pass a 1-D float64 numpy array",
        )
    if x.ndim != 1:
        raise InvalidDataError(
            ErrorCode.DATA_SHAPE, "series", f"expected 1-D, got shape {x.shape}", "pass one series as a 1-D array"
        )
    if x.shape[0] < 2:
        raise InvalidDataError(
            ErrorCode.DATA_TOO_SHORT, "series", f"needs at least 2 values, got {x.shape[0]}", "pass a longer series"
        )
    x = np.ascontiguousarray(x, dtype=np.float64)
    bad = ~np.isfinite(x)
    if bad.any():
        raise InvalidDataError(
            ErrorCode.DATA_NOT_FINITE,
            "series",
            f"{int(bad.sum())} NaN or infinite value(s), first at position {int(np.argmax(bad))}",
            "drop or impute them before bootstrapping",
        )
    return x


def _import(module):
    """Import ``module``; a missing top-level package becomes PeerNotInstalledError."""
    package = module.split(".")[0]
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name == package:
            raise PeerNotInstalledError(package) from None
        raise


def _mean(x):
    # One module-level function object: arch's reuse=True checks ``func is`` the last one.
    return x.mean(axis=0)


# ---------------------------------------------------------------------------- arch


def _arch_block_length(x, column):
    """arch's unrounded Politis-White estimate for ``column`` ("circular" or "stationary")."""
    arch_bootstrap = _import("arch.bootstrap")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # degenerate data: reported below
            estimate = float(arch_bootstrap.optimal_block_length(x)[column].iloc[0])
    except ValueError as error:  # arch needs n a little above sqrt(n) + 5 lags
        estimate, why = math.nan, f" ({error})"
    else:
        why = ""
    if not math.isfinite(estimate):
        raise InvalidDataError(
            ErrorCode.BLOCK_LENGTH_ESTIMATE,
            "series",
            f"arch's optimal_block_length is undefined for this series of {x.shape[0]} values{why}",
            "pass a longer, non-constant series",
        )
    return estimate


def _arch_resampler(class_name, x, seed):
    """(arch resampler seeded with default_rng(seed), block length passed or None)."""
    arch_bootstrap = _import("arch.bootstrap")
    cls = getattr(arch_bootstrap, class_name)
    generator = np.random.default_rng(seed)
    if class_name == "IIDBootstrap":
        return cls(x, seed=generator), None
    if class_name == "MovingBlockBootstrap":
        length = min(max(math.ceil(_arch_block_length(x, "circular")), 1), x.shape[0])
        return cls(length, x, seed=generator), float(length)
    length = max(_arch_block_length(x, "stationary"), 1.0)
    return cls(length, x, seed=generator), length


def _arch_interval(class_name):
    def run(x, alpha, kind, n_bootstraps, seed):
        resampler, block_length = _arch_resampler(class_name, x, seed)
        # .cov draws the B replicates once and keeps them for conf_int(reuse=True).
        standard_error = math.sqrt(float(np.asarray(resampler.cov(_mean, n_bootstraps)).reshape(-1)[0]))
        method = ARCH_METHODS[kind]
        try:
            if method == "studentized":
                nested, _ = _arch_resampler(class_name, x, seed)
                bounds = nested.conf_int(
                    _mean, n_bootstraps, method=method, size=1.0 - alpha, studentize_reps=STUDENTIZE_REPS
                )
            else:
                with warnings.catch_warnings():
                    warnings.filterwarnings("error", message="The conditions to reuse")
                    bounds = resampler.conf_int(_mean, n_bootstraps, method=method, size=1.0 - alpha, reuse=True)
        except RuntimeError as error:  # arch's bias correction or studentization is undefined here
            raise PeerFailure(f"arch.{class_name} kind {kind!r}: {error}") from error
        bounds = np.asarray(bounds, dtype=np.float64).reshape(2)
        return PeerInterval(
            lower=float(bounds[0]),
            upper=float(bounds[1]),
            point=float(_mean(x)),
            standard_error=standard_error,
            block_length=block_length,
        )

    return run


# ----------------------------------------------------------------------- tsbootstrap


def _tsbootstrap_moving_block(x, alpha, kind, n_bootstraps, seed):
    tsbootstrap = _import("tsbootstrap")
    # optional peer (the peers extra)
    from tsbootstrap.block.pwsd import optimal_block_length

    length = optimal_block_length(x, kind="circular")  # exactly what block_length="auto" resolves to
    replicates = tsbootstrap.bootstrap_reduce(
        x,
        method=tsbootstrap.MovingBlock(block_length=length),
        statistic="mean",
        n_bootstraps=n_bootstraps,
        random_state=seed,
        backend="compiled",
    ).statistics
    replicates = np.asarray(replicates, dtype=np.float64).reshape(n_bootstraps)
    point = float(_mean(x))  # tsbootstrap's "mean" reducer on the original series
    if kind == "percentile":
        lower, upper = tsbootstrap.percentile_interval(replicates, alpha=alpha)
    else:
        lower, upper = tsbootstrap.basic_interval(replicates, np.float64(point), alpha=alpha)
    return PeerInterval(
        lower=float(lower),
        upper=float(upper),
        point=point,
        standard_error=float(np.std(replicates)),
        block_length=float(length),
    )


# -------------------------------------------------------------------------- registry


def _registry():
    arch_se = "std of the B replicates, divisor B (arch .cov); interval from the same replicates (reuse=True)"
    entries = [
        PeerResampler(
            "arch.IIDBootstrap",
            "arch",
            tuple(ARCH_METHODS),
            MappingProxyType({"studentize_reps": STUDENTIZE_REPS, "standard_error": arch_se}),
            _arch_interval("IIDBootstrap"),
        ),
        PeerResampler(
            "arch.MovingBlockBootstrap",
            "arch",
            tuple(ARCH_METHODS),
            MappingProxyType(
                {
                    "block_length": "ceil(optimal_block_length()['circular']), clipped to [1, n]",
                    "studentize_reps": STUDENTIZE_REPS,
                    "standard_error": arch_se,
                }
            ),
            _arch_interval("MovingBlockBootstrap"),
        ),
        PeerResampler(
            "arch.StationaryBootstrap",
            "arch",
            tuple(ARCH_METHODS),
            MappingProxyType(
                {
                    "block_length": "max(optimal_block_length()['stationary'], 1.0), unrounded",
                    "studentize_reps": STUDENTIZE_REPS,
                    "standard_error": arch_se,
                }
            ),
            _arch_interval("StationaryBootstrap"),
        ),
        PeerResampler(
            "tsbootstrap.MovingBlock",
            "tsbootstrap",
            TSBOOTSTRAP_KINDS,
            MappingProxyType(
                {
                    "block_length": "tsbootstrap 'auto': ceil of its Politis-White circular estimate",
                    "backend": "compiled",
                    "standard_error": "std of the B replicates, divisor B (numpy)",
                }
            ),
            _tsbootstrap_moving_block,
        ),
    ]
    return MappingProxyType({entry.name: entry for entry in entries})


#: name -> PeerResampler, read-only.
PEER_RESAMPLERS = _registry()


def peer_versions() -> dict[str, str | None]:
    """The installed version (or None) of every package the ``peers`` extra pins.

    Returns
    -------
    dict of str to str or None
        Distribution name -> installed version, None when it is not installed; the
        keys are :data:`bootmark.core.extras.PEER_PINS`'s (receipts made before
        statsmodels and scikit-learn joined the extra list arch and tsbootstrap only).

    Examples
    --------
    >>> sorted(peer_versions())
    ['arch', 'scikit-learn', 'statsmodels', 'tsbootstrap']
    """
    return {package: package_version(package) for package in PEER_PINS}


# ------------------------------------------------------------------- contender adapters


def _contender(name):
    """The contender function of peer ``name`` (studies/plugins.py): the same question, asked
    the way a user's contender is asked. Declared as entry points in bootmark's
    pyproject.toml, so the runner loads bootmark's peers exactly as it loads anyone's."""
    peer = PEER_RESAMPLERS[name]

    def contender(series, *, statistic, alpha, kind, n_bootstraps, seed):
        if str(statistic) != "mean":
            raise InvalidParameterError(
                ErrorCode.STATISTIC, "statistic", f"{name} computes intervals for the mean only", "use 'mean'"
            )
        found = peer.interval(series, alpha=alpha, kind=kind, n_bootstraps=n_bootstraps, seed=seed)
        return {
            "lower": found.lower,
            "upper": found.upper,
            "point": found.point,
            "se": found.standard_error,
            # i.i.d. resampling is resampling in blocks of one
            "block_length": 1.0 if found.block_length is None else found.block_length,
        }

    contender.kinds = peer.kinds
    contender.statistics = ("mean",)
    contender.__name__ = contender.__qualname__ = name.replace(".", "_")
    contender.__doc__ = f"{name} as a contender: a ``1 - alpha`` interval for the mean (see this module)."
    return contender


#: The peers as contenders (entry points in the group ``bootmark.contenders``).
arch_iid_bootstrap = _contender("arch.IIDBootstrap")
arch_moving_block_bootstrap = _contender("arch.MovingBlockBootstrap")
arch_stationary_bootstrap = _contender("arch.StationaryBootstrap")
tsbootstrap_moving_block = _contender("tsbootstrap.MovingBlock")
