"""A user's own code in a study: contenders, processes and statistics named by import path.

A protocol names code it does not ship in one of two ways:

* an **import path** ``"package.module:attribute"`` (``callable = ...`` in a
  ``[[resamplers]]`` entry or in ``[dgp]``, or ``statistic = ...`` in ``[design]``);
* an **entry point** in the group :data:`ENTRY_POINT_GROUP` (``contender = "name"``),
  which an installed distribution declares in its ``pyproject.toml``::

      [project.entry-points."bootmark.contenders"]
      "mypkg.hac" = "mypkg.intervals:hac_interval"

  bootmark's own arch and tsbootstrap adapters are declared the same way (the older
  protocol key ``peer = "arch.IIDBootstrap"`` names one of them).

A module that is not installed is looked up in the workspace root too, so
``contenders/mine.py`` beside ``protocols/`` is ``"contenders.mine:interval"``.

The contract (docs/protocols.md, "Your own code"):

* a **contender** is called once per series and interval kind as
  ``function(series, *, statistic, alpha, kind, n_bootstraps, seed, **options)`` and
  returns ``(lower, upper)``, or a mapping or object with ``lower``, ``upper`` and
  optionally ``se`` (or ``standard_error``), ``block_length`` and ``point``. ``series``
  is a 1-D float64 array; ``statistic`` a :class:`StudyStatistic` (callable as
  ``statistic(x, axis=-1)``, its protocol name in ``statistic.name``); ``alpha`` the
  two-sided tail; ``seed`` an int below 2**128 that must be the only source of its
  randomness. Optional attributes ``function.kinds`` and ``function.statistics``
  (tuples of names) let bootmark refuse a protocol before it runs;
* a **process** is a class built from ``[dgp] parameters`` with
  ``simulate(n, rng) -> ndarray`` (``rng`` a ``numpy.random.Generator``),
  ``truth(statistic, n) -> float`` and optionally ``true_se(statistic, n) -> float``;
  ``monte_carlo_truth = True`` asks bootmark to estimate the true SE by simulation
  (cached as a truth receipt) when there is no ``true_se``;
* a **statistic** is ``function(x) -> float`` on one 1-D series.

Errors. Code that cannot be found or does not keep the contract before a run raises
:class:`PluginError` (a :class:`ValueError`; the CLI exits 2); code that raises or answers
garbage during a run raises :class:`PluginFailure` (the run stops, exit 3). Both name the
protocol entry.

Examples
--------
>>> is_import_path("numpy:mean"), is_import_path("mean"), is_import_path("quantile:0.9")
(True, False, False)
>>> load_object("math:sqrt", "[dgp] callable")(4.0)
2.0
>>> load_object("no_such_module_xyz:f", "[[resamplers]] 'mine'")
Traceback (most recent call last):
    ...
bootmark.studies.plugins.PluginError: [[resamplers]] 'mine': cannot import module 'no_such_module_xyz'...
"""

from __future__ import annotations

import copy
import difflib
import functools
import hashlib
import importlib
import importlib.metadata
import inspect
import math
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from bootmark.core import workspace
from bootmark.reference.errors import BootmarkError

from . import statistics as builtin_statistics
from .dgp import Truth
from .peers import PeerNotInstalledError

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = [
    "ENTRY_POINT_GROUP",
    "Answer",
    "Contender",
    "PluginError",
    "PluginFailure",
    "PluginOrigin",
    "PluginProcess",
    "StudyStatistic",
    "entry_point_names",
    "is_import_path",
    "load_contender",
    "load_entry_point",
    "load_object",
    "origin_of",
    "read_only",
    "study_statistic",
]

ENTRY_POINT_GROUP = "bootmark.contenders"
_IDENTIFIER = r"[A-Za-z_][A-Za-z0-9_]*"
_IMPORT_PATH = re.compile(rf"^{_IDENTIFIER}(\.{_IDENTIFIER})*:{_IDENTIFIER}(\.{_IDENTIFIER})*$")


class PluginError(ValueError):
    """Named code that cannot be loaded or breaks its contract before a run; the message
    names the protocol entry and the fix."""


class PluginFailure(RuntimeError):
    """Named code that raised, or answered garbage (NaN, lower > upper, a wrong shape),
    during a run; the message names the protocol entry, the series and the answer."""


def is_import_path(text: str) -> bool:
    """Whether ``text`` reads as ``"package.module:attribute"``.

    Parameters
    ----------
    text : str
        A protocol value.

    Returns
    -------
    bool
        True for an import path; False for a name such as ``"mean"`` or ``"quantile:0.9"``.

    Examples
    --------
    >>> is_import_path("mypkg.intervals:hac"), is_import_path("acf:2")
    (True, False)
    """
    return isinstance(text, str) and bool(_IMPORT_PATH.match(text))


def _search_in(directories):
    """Append ``directories`` to sys.path (after the installed packages, which always win)
    and leave them there: a workspace module may import its neighbours when it is
    called, not only when it is loaded, as pytest leaves its root directory on the path."""
    for folder in directories:
        if folder and folder not in sys.path:
            sys.path.append(folder)


def _workspace_root():
    try:
        return workspace.find().root
    except workspace.WorkspaceError:
        return None


def load_object(path: str, where: str, search: Sequence[str] | None = None) -> Any:
    """The object an import path names, or a :class:`PluginError` naming ``where``.

    Parameters
    ----------
    path : str
        ``"package.module:attribute"`` (the attribute may be dotted).
    where : str
        The protocol entry, for messages (e.g. ``"[[resamplers]] 'mine'"``).
    search : sequence of str, optional
        Folders to look in when the module is not installed; default the workspace root.

    Returns
    -------
    object
        The attribute.

    Raises
    ------
    PluginError
        A malformed path, a module that cannot be imported (or raises on import), or a
        missing attribute.

    Examples
    --------
    >>> load_object("math:pi", "[dgp] callable")
    3.141592653589793
    >>> load_object("math:no_such_thing", "[dgp] callable")
    Traceback (most recent call last):
        ...
    bootmark.studies.plugins.PluginError: [dgp] callable: module 'math' has no attribute 'no_such_thing'...
    """
    if not is_import_path(path):
        raise PluginError(f"{where}: {path!r} is not an import path; write 'package.module:function'")
    module_name, _, attribute = path.partition(":")
    folders = [_workspace_root()] if search is None else list(search)
    try:
        _search_in(folders)
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        raise PluginError(
            f"{where}: cannot import module {module_name!r} ({error}); install the distribution that "
            f"provides it, or put it in the workspace root ({', '.join(f for f in folders if f) or 'none found'})"
        ) from None
    except Exception as error:  # noqa: BLE001 - any failure of the user's module on import is reported
        raise PluginError(f"{where}: importing {module_name!r} raised {type(error).__name__}: {error}") from None
    found = module
    for part in attribute.split("."):
        if not hasattr(found, part):
            raise PluginError(
                f"{where}: module {module_name!r} has no attribute {attribute!r}; check the name after the ':'"
            )
        found = getattr(found, part)
    return found


def entry_point_names() -> tuple[str, ...]:
    """The names installed in the entry point group :data:`ENTRY_POINT_GROUP`, sorted.

    Examples
    --------
    >>> "arch.IIDBootstrap" in entry_point_names()
    True
    """
    return tuple(sorted({point.name for point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}))


def load_entry_point(name: str, where: str) -> tuple[Any, str]:
    """The object of entry point ``name`` in :data:`ENTRY_POINT_GROUP`, and its import path.

    Parameters
    ----------
    name : str
        The entry point's name (e.g. ``"arch.IIDBootstrap"``).
    where : str
        The protocol entry, for messages.

    Returns
    -------
    tuple
        (the loaded object, its ``"module:attribute"`` path).

    Raises
    ------
    PluginError
        No such entry point (the message lists the installed ones), or it cannot load.

    Examples
    --------
    >>> function, path = load_entry_point("arch.IIDBootstrap", "[[resamplers]] 'arch'")
    >>> path
    'bootmark.studies.peers:arch_iid_bootstrap'
    """
    found = [point for point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP) if point.name == name]
    if not found:
        raise PluginError(
            f"{where}: no contender {name!r} in the entry point group {ENTRY_POINT_GROUP!r}; installed: "
            f"{', '.join(entry_point_names()) or 'none'} (a distribution declares one under "
            f'[project.entry-points."{ENTRY_POINT_GROUP}"]; reinstall bootmark if its own are missing)'
        )
    return load_object(found[0].value, where), found[0].value


@dataclass(frozen=True)
class PluginOrigin:
    """Where a protocol entry's code came from, as a receipt records it.

    Attributes
    ----------
    entry : str
        The protocol entry (e.g. ``"[[resamplers]] 'scipy.bca'"``).
    path : str
        Its import path, ``"module:attribute"``.
    distribution : str or None
        The installed distribution providing the module; None for a workspace module.
    version : str or None
        That distribution's version.
    file_sha256 : str or None
        SHA-256 of the module's source file (None when it has none), so a receipt pins a
        workspace module too.
    requires : mapping of str to str or None
        The installed version of each distribution the code declares it needs
        (``function.requires = ("scipy",)``); None for one that is not installed.
    """

    entry: str
    path: str
    distribution: str | None
    version: str | None
    file_sha256: str | None
    requires: Mapping = field(default_factory=lambda: MappingProxyType({}))

    def to_json(self) -> dict[str, Any]:
        """The receipt's form: a dict of the six fields."""
        return {
            "entry": self.entry,
            "path": self.path,
            "distribution": self.distribution,
            "version": self.version,
            "file_sha256": self.file_sha256,
            "requires": dict(self.requires),
        }


def origin_of(entry: str, path: str) -> PluginOrigin:
    """The :class:`PluginOrigin` of an import path that has been loaded.

    The attribute's optional ``requires`` (a tuple of distribution names) is read too, so
    a workspace module that imports, say, SciPy can have SciPy's version recorded.

    Examples
    --------
    >>> found = origin_of("[dgp] callable", "numpy:mean")
    >>> found.distribution, found.version == np.__version__
    ('numpy', True)
    """
    module_name, _, attribute = path.partition(":")
    module = sys.modules.get(module_name)
    target = module
    for part in attribute.split("."):
        target = getattr(target, part, None)
    requires = {name: _version(name) for name in getattr(target, "requires", ())}
    source = getattr(module, "__file__", None)
    digest = None
    if source and os.path.isfile(source):
        with open(source, "rb") as stream:
            digest = hashlib.sha256(stream.read()).hexdigest()
    top = module_name.split(".")[0]
    distributions = importlib.metadata.packages_distributions().get(top, [])
    distribution = sorted(distributions)[0] if distributions else None
    version = None if distribution is None else _version(distribution)
    return PluginOrigin(entry, path, distribution, version, digest, MappingProxyType(requires))


def _version(distribution):
    """The installed version of ``distribution``, or None."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


# ------------------------------------------------------------------------------ statistic


@dataclass(frozen=True)
class StudyStatistic:
    """A study's statistic as contenders receive it: callable on one series or along an axis.

    Attributes
    ----------
    name : str
        As the protocol writes it (``"mean"``, ``"quantile:0.9"``, ``"pkg.mod:fn"``).
    function : callable
        ``function(x) -> float`` on one 1-D float64 series.
    rows : callable or None
        ``rows(paths) -> ndarray``, vectorised over the rows of a 2-D array, when known.

    Examples
    --------
    >>> mean = StudyStatistic("mean", lambda x: float(np.mean(x)), lambda paths: paths.mean(axis=1))
    >>> mean(np.array([1.0, 2.0, 6.0])), str(mean)
    (3.0, 'mean')
    >>> mean(np.array([[1.0, 3.0], [2.0, 4.0]]), axis=0)
    array([1.5, 3.5])
    """

    name: str
    function: Callable = field(repr=False, compare=False)
    rows: Callable | None = field(default=None, repr=False, compare=False)

    def __call__(self, x: ArrayLike, axis: int = -1) -> float | np.ndarray:
        """The statistic of ``x`` (1-D: a float), or of each slice along ``axis``."""
        x = np.asarray(x, dtype=np.float64)
        if x.ndim == 1:
            return float(self.function(x))
        moved = np.moveaxis(x, axis, -1)
        flat = moved.reshape(-1, moved.shape[-1])
        if self.rows is not None:
            values = np.asarray(self.rows(flat), dtype=np.float64)
        else:
            values = np.array([float(self.function(row)) for row in flat])
        return values.reshape(moved.shape[:-1])

    def __str__(self) -> str:
        return self.name


def study_statistic(text: str) -> StudyStatistic:
    """The :class:`StudyStatistic` a protocol's ``[design] statistic`` names: a built-in
    (:mod:`bootmark.studies.statistics`) or a function by import path.

    Raises
    ------
    PluginError
        An import path that cannot be loaded or is not callable.
    bootmark.reference.errors.InvalidParameterError
        A malformed built-in name.

    Examples
    --------
    >>> median = study_statistic("median")
    >>> median(np.array([3.0, 1.0, 2.0]))
    2.0
    >>> study_statistic("numpy:ptp")(np.array([3.0, 1.0, 2.0]))
    2.0
    """
    if builtin_statistics.is_builtin(text):
        parsed = builtin_statistics.parse(text, "design.statistic")
        return StudyStatistic(text, parsed.value, parsed.values)
    function = load_object(text, "[design] statistic")
    if not callable(function):
        raise PluginError(f"[design] statistic: {text} is {type(function).__name__}, not a function")
    return StudyStatistic(text, functools.partial(_checked_statistic, function, text))


def _checked_statistic(function, name, x):
    """A user's statistic of one series, on a read-only view, as a finite float; anything
    else is a PluginFailure naming ``[design] statistic``."""
    where = f"[design] statistic ({name})"
    try:
        value = function(read_only(x))
    except Exception as error:  # noqa: BLE001 - any failure of the user's code is reported
        raise PluginFailure(f"{where} raised {type(error).__name__}: {error}") from error
    if np.ndim(value) != 0:
        raise PluginFailure(f"{where} returned shape {np.shape(value)}; return one number")
    return _number(value, "its value", where)


def read_only(x: np.ndarray) -> np.ndarray:
    """A read-only view of ``x``: a user's function that writes into it raises instead of
    changing what the next resampler sees.

    Examples
    --------
    >>> view = read_only(np.zeros(3))
    >>> view[0] = 1.0
    Traceback (most recent call last):
        ...
    ValueError: assignment destination is read-only
    """
    view = np.asarray(x).view()
    view.flags.writeable = False
    return view


# ------------------------------------------------------------------------------ contender


@dataclass(frozen=True)
class Answer:
    """A contender's answer for one series and kind, checked (data units).

    Attributes
    ----------
    lower, upper : float
        The interval, finite, lower <= upper.
    standard_error : float or None
        The contender's SE of the statistic, when it gives one.
    block_length : float or None
        The (mean) block length it used, when it says.
    point : float or None
        Its point estimate, when it gives one (else the runner computes the statistic).
    """

    lower: float
    upper: float
    standard_error: float | None
    block_length: float | None
    point: float | None


def _number(value, what, where):
    if value is None:
        return None
    if isinstance(value, (str, bytes, bool, np.bool_)):
        raise PluginFailure(f"{where}: {what} is {value!r}, not a number")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise PluginFailure(f"{where}: {what} is {value!r}, not a number") from None
    if not math.isfinite(number):
        raise PluginFailure(f"{where}: {what} is {number}; a contender must answer finite numbers")
    return number


def _answer_getter(answer, where, pair, optional):
    """``get(key)`` over what a contender returned: a mapping, a ``(lower, upper)`` pair
    (``pair(answer)`` says whether it is one) or an object with those attributes; else
    PluginFailure naming the forms it may take (``optional``: the keys it may add)."""
    if isinstance(answer, Mapping):
        return answer.get
    if isinstance(answer, (tuple, list)) and len(answer) == 2 and pair(answer):
        return dict(zip(("lower", "upper"), answer, strict=True)).get
    if isinstance(answer, np.ndarray) and answer.shape[:1] == (2,) and pair(answer):
        return dict(zip(("lower", "upper"), answer, strict=True)).get
    if hasattr(answer, "lower") and hasattr(answer, "upper"):

        def get(key, default=None):
            return getattr(answer, key, default)

        return get
    raise PluginFailure(
        f"{where}: returned {answer!r}; return (lower, upper), or a mapping or object with "
        f"'lower' and 'upper' (and optionally {optional})"
    )


def _read_answer(answer, where):
    """An :class:`Answer` from what a contender returned, or PluginFailure naming it."""
    get = _answer_getter(answer, where, lambda pair: np.ndim(pair) == 1, "'se', 'block_length', 'point'")
    lower, upper = _number(get("lower"), "lower", where), _number(get("upper"), "upper", where)
    if lower is None or upper is None:
        raise PluginFailure(f"{where}: the answer has no {'lower' if lower is None else 'upper'} bound")
    if lower > upper:
        raise PluginFailure(f"{where}: lower {lower!r} > upper {upper!r}")
    se = get("se")
    se = _number(get("standard_error") if se is None else se, "se", where)
    if se is not None and se < 0:
        raise PluginFailure(f"{where}: se {se!r} is negative")
    length = _number(get("block_length"), "block_length", where)
    if length is not None and length <= 0:
        raise PluginFailure(f"{where}: block_length {length!r} is not positive")
    return Answer(lower, upper, se, length, _number(get("point"), "point", where))


@dataclass(frozen=True)
class ForecastAnswer:
    """A forecast contender's answer for one history, checked (data units).

    Attributes
    ----------
    lower, upper : tuple of float
        The prediction interval of each step ahead, 1 to ``horizon``: finite,
        ``lower[h] <= upper[h]``.
    point : tuple of float or None
        The point forecast of each step, when it gives one.
    """

    lower: tuple
    upper: tuple
    point: tuple | None


def _steps(value, what, horizon, where):
    """``value`` as ``horizon`` finite floats, or PluginFailure naming the step (1-based)."""
    if value is None:
        return None
    if isinstance(value, (str, bytes)):
        raise PluginFailure(f"{where}: {what} is {value!r}, not {horizon} numbers")
    try:
        steps = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise PluginFailure(f"{where}: {what} is {value!r}, not {horizon} numbers") from None
    if steps.ndim == 0 and horizon == 1:
        steps = steps.reshape(1)
    if steps.shape != (horizon,):
        raise PluginFailure(f"{where}: {what} has shape {steps.shape}; the horizon is {horizon}, so ({horizon},)")
    bad = np.flatnonzero(~np.isfinite(steps))
    if bad.size:
        raise PluginFailure(f"{where}: {what} at horizon {bad[0] + 1} is {steps[bad[0]]}; answer finite numbers")
    return tuple(float(step) for step in steps)


def read_forecast(answer: Any, horizon: int, where: str) -> ForecastAnswer:
    """A :class:`ForecastAnswer` from what a forecast contender returned.

    Parameters
    ----------
    answer : object
        ``(lower, upper)``, two sequences of ``horizon`` numbers, or a mapping or object
        with ``lower``, ``upper`` and optionally ``point``.
    horizon : int
        The steps ahead asked for.
    where : str
        The entry and series, for messages.

    Returns
    -------
    ForecastAnswer

    Raises
    ------
    PluginFailure
        Another form, a bound of the wrong length, a NaN or infinite bound, or
        ``lower > upper`` at some horizon (named, 1-based).

    Examples
    --------
    >>> read_forecast(([0.0, -1.0], [1.0, 1.5]), 2, "mine").upper
    (1.0, 1.5)
    >>> read_forecast({"lower": [0.0, 2.0], "upper": [1.0, 1.5]}, 2, "[[resamplers]] 'mine'")
    Traceback (most recent call last):
        ...
    bootmark.studies.plugins.PluginFailure: [[resamplers]] 'mine': lower 2.0 > upper 1.5 at horizon 2
    """
    get = _answer_getter(answer, where, lambda pair: True, "'point'")
    lower = _steps(get("lower"), "lower", horizon, where)
    upper = _steps(get("upper"), "upper", horizon, where)
    if lower is None or upper is None:
        raise PluginFailure(f"{where}: the answer has no {'lower' if lower is None else 'upper'} bounds")
    for step, (low, high) in enumerate(zip(lower, upper, strict=True), start=1):
        if low > high:
            raise PluginFailure(f"{where}: lower {low!r} > upper {high!r} at horizon {step}")
    return ForecastAnswer(lower, upper, _steps(get("point"), "point", horizon, where))


# The keyword arguments bootmark passes every contender call, besides the series and the
# entry's options (the module docstring's contract); a forecast contender's.
CALL_ARGUMENTS = ("statistic", "alpha", "kind", "n_bootstraps", "seed")
FORECAST_ARGUMENTS = ("horizon", "alpha", "seed")


@dataclass(frozen=True)
class Contender:
    """A loaded contender: the function, its options and where it came from.

    Attributes
    ----------
    entry : str
        The protocol entry (``"[[resamplers]] 'name'"``).
    path : str
        Its import path.
    function : callable
        The contender (see the module docstring for its contract).
    options : mapping
        ``[resamplers.options]``, passed as keyword arguments.
    """

    entry: str
    path: str
    function: Callable = field(repr=False, compare=False)
    options: Mapping = field(default_factory=lambda: MappingProxyType({}))

    def check(self, kinds: Sequence[str], statistic: str) -> None:
        """Refuse kinds or a statistic the function declares it does not serve.

        Parameters
        ----------
        kinds : sequence of str
            The entry's interval kinds.
        statistic : str
            The study's statistic, as the protocol writes it.

        Raises
        ------
        PluginError
            A kind outside ``function.kinds``, a statistic outside
            ``function.statistics``, a function that is not callable, or one whose
            signature takes no parameter for an option (close names are suggested) or
            not the arguments of every call (the module docstring's contract).
        """
        served = getattr(self.function, "kinds", None)
        if isinstance(served, str):  # one kind, written without the tuple
            served = (served,)
        if served is not None:
            bad = [kind for kind in kinds if kind not in served]
            if bad:
                raise PluginError(
                    f"{self.entry}: {self.path} serves kinds {', '.join(served)}, not {', '.join(bad)}; "
                    "drop those kinds from the entry"
                )
        statistics = getattr(self.function, "statistics", None)
        if isinstance(statistics, str):
            statistics = (statistics,)
        if statistics is not None and statistic not in statistics:
            raise PluginError(
                f"{self.entry}: {self.path} computes intervals for {', '.join(statistics)} only; this "
                f"study's statistic is {statistic!r}"
            )
        if not callable(self.function):
            raise PluginError(f"{self.entry}: {self.path} is not callable")
        self._check_arguments()
        self._check_options()

    def check_forecast(self) -> None:
        """Refuse, before any series is drawn, a forecast contender that is not callable or
        whose signature cannot take ``function(history, *, horizon, alpha, seed, **options)``.

        Raises
        ------
        PluginError
            As :meth:`check`'s signature checks, for the forecast call.
        """
        if not callable(self.function):
            raise PluginError(f"{self.entry}: {self.path} is not callable")
        self._check_arguments(FORECAST_ARGUMENTS, "history")
        self._check_options()

    def _check_options(self) -> None:
        """Refuse bad option values before any series is drawn, through the function's
        optional ``check_options(**options)`` (which raises ValueError or TypeError)."""
        validate = getattr(self.function, "check_options", None)
        if validate is None:
            return
        try:
            validate(**dict(self.options))
        except (TypeError, ValueError) as error:
            raise PluginError(f"{self.entry}: {self.path}: [resamplers.options] {error}") from None

    def forecast(self, history: np.ndarray, *, horizon: int, alpha: float, seed: int) -> ForecastAnswer:
        """Call a forecast contender on one history; its :class:`ForecastAnswer`, checked.

        Parameters
        ----------
        history : numpy.ndarray
            The values the forecaster sees (1-D float64, data units); it gets a read-only view.
        horizon : int
            Steps ahead asked for.
        alpha : float
            Two-sided tail of each step's interval.
        seed : int
            The series' seed, the only source of its randomness.

        Returns
        -------
        ForecastAnswer

        Raises
        ------
        PluginFailure
            The function raised, or answered something that is not ``horizon`` finite
            intervals (the message names the horizon).
        """
        try:
            answer = self.function(
                read_only(history), horizon=horizon, alpha=alpha, seed=seed, **copy.deepcopy(dict(self.options))
            )
        except PeerNotInstalledError:
            raise
        except (BootmarkError, Exception) as error:  # noqa: BLE001 - any failure of the user's code is reported
            raise PluginFailure(f"{self.entry} ({self.path}) raised {type(error).__name__}: {error}") from error
        return read_forecast(answer, horizon, f"{self.entry} ({self.path})")

    def _check_arguments(self, call_arguments: Sequence[str] = CALL_ARGUMENTS, first: str = "series") -> None:
        """Refuse, before any series is drawn, a call the function's signature cannot take:
        an option it has no parameter for (a misspelt ``[resamplers.options]`` key), or an
        argument bootmark always passes that it does not accept. A function whose
        signature cannot be read (some C functions) is not checked."""
        try:
            signature = inspect.signature(self.function)
        except (TypeError, ValueError):
            return
        parameters = signature.parameters.values()
        if any(parameter.kind is inspect.Parameter.VAR_KEYWORD for parameter in parameters):
            named = None  # **kwargs takes any option
        else:
            named = [
                parameter.name
                for parameter in parameters
                if parameter.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
            ]
        if named is not None:
            unknown = [option for option in self.options if option not in named]
            if unknown:
                taken = [name for name in named if name not in call_arguments and name != first]
                hints = [
                    f"{option!r} (did you mean {close[0]!r}?)" if close else repr(option)
                    for option in unknown
                    for close in [difflib.get_close_matches(option, taken, n=1)]
                ]
                raise PluginError(
                    f"{self.entry}: {self.path} has no parameter {', '.join(hints)} for [resamplers.options]; "
                    + (f"its options are {', '.join(taken)}" if taken else "it takes no options")
                )
        placeholder = {name: None for name in call_arguments}
        taken = set(signature.parameters)
        other, study = (
            (CALL_ARGUMENTS, "a coverage study (no target, or target = 'coverage')")
            if call_arguments == FORECAST_ARGUMENTS
            else (FORECAST_ARGUMENTS, "a forecast study (target = 'forecast')")
        )
        if not set(call_arguments) <= taken and set(other) <= taken:
            raise PluginError(f"{self.entry}: {self.path} is made for {study}, not this one; use it there")
        try:
            signature.bind(None, **placeholder, **dict(self.options))
        except TypeError as error:
            raise PluginError(
                f"{self.entry}: {self.path} cannot be called as bootmark calls a contender, "
                f"function({first}, *, {', '.join(call_arguments)}, **options): {error}"
            ) from None

    def interval(
        self, series: np.ndarray, *, statistic: StudyStatistic, alpha: float, kind: str, n_bootstraps: int, seed: int
    ) -> Answer:
        """Call the contender for one series and kind; its :class:`Answer`, checked.

        Parameters
        ----------
        series : numpy.ndarray
            One series (1-D float64, data units); the contender gets a read-only view.
        statistic : StudyStatistic
            The study's statistic.
        alpha : float
            Two-sided tail.
        kind : str
            The interval kind asked for.
        n_bootstraps : int
            B.
        seed : int
            The series' bootstrap seed.

        Returns
        -------
        Answer
            The checked interval, and the SE, block length and point when given.

        Raises
        ------
        PluginFailure
            The function raised, or answered something that is not a finite interval.
        bootmark.studies.peers.PeerNotInstalledError
            Passed through: a peer package bootmark's own adapters need is missing.
        """
        where = f"{self.entry} ({self.path}, kind {kind!r})"
        try:
            answer = self.function(
                read_only(series),  # a contender that sorts its series in place must not change the next one's
                statistic=statistic,
                alpha=alpha,
                kind=kind,
                n_bootstraps=n_bootstraps,
                seed=seed,
                **copy.deepcopy(dict(self.options)),  # nor options the next call reads
            )
        except PeerNotInstalledError:
            raise  # bootmark's own adapters: the user's to install, with the command that does it
        except (BootmarkError, Exception) as error:  # noqa: BLE001 - any failure of the user's code is reported
            raise PluginFailure(f"{where} raised {type(error).__name__}: {error}") from error
        return _read_answer(answer, where)


def load_contender(
    entry: str, *, path: str | None = None, entry_point: str | None = None, options: Mapping | None = None
) -> Contender:
    """Load a contender by import path or entry point name.

    Parameters
    ----------
    entry : str
        The protocol entry, for messages.
    path : str, optional
        ``"module:function"``.
    entry_point : str, optional
        A name in :data:`ENTRY_POINT_GROUP` (give exactly one of ``path`` and this).
    options : mapping, optional
        Keyword arguments for every call.

    Returns
    -------
    Contender

    Raises
    ------
    PluginError
        The code cannot be found or is not callable.

    Examples
    --------
    >>> contender = load_contender("[[resamplers]] 'arch'", entry_point="arch.IIDBootstrap")
    >>> contender.path
    'bootmark.studies.peers:arch_iid_bootstrap'
    """
    if entry_point is not None:
        function, path = load_entry_point(entry_point, entry)
    else:
        function = load_object(path, entry)
    if not callable(function):
        raise PluginError(f"{entry}: {path} is {type(function).__name__}, not a function")
    return Contender(entry, path, function, MappingProxyType(dict(options or {})))


# ------------------------------------------------------------------------------ process


@dataclass(frozen=True)
class PluginProcess:
    """A user's process class, built from ``[dgp] parameters``, behind bootmark's process
    interface (``sample(n, seed)``, ``truth(n, statistic)``).

    Attributes
    ----------
    path : str
        The class's import path.
    parameters : mapping
        The keyword arguments it was built with.
    instance : object
        The built process.

    Examples
    --------
    >>> class Noise:
    ...     def simulate(self, n, rng):
    ...         return rng.standard_normal(n)
    ...     def truth(self, statistic, n):
    ...         return 0.0
    ...     def true_se(self, statistic, n):
    ...         return 1.0 / n**0.5
    >>> process = PluginProcess("mine:Noise", MappingProxyType({}), Noise())
    >>> process.sample(4, seed=1).shape
    (4,)
    >>> process.truth(100, "mean").standard_error
    0.1
    """

    path: str
    parameters: Mapping
    instance: Any = field(compare=False)
    statistics = None  # any statistic: the process's own truth() decides

    @property
    def monte_carlo_truth(self) -> bool:
        """True when the class declares ``monte_carlo_truth`` and has no ``true_se``."""
        return bool(getattr(self.instance, "monte_carlo_truth", False)) and not callable(
            getattr(self.instance, "true_se", None)
        )

    @property
    def label(self) -> str:
        """How truth receipts and messages name it: the import path."""
        return self.path

    def simulate(self, n: int, generator: np.random.Generator) -> np.ndarray:
        """One checked path of length ``n`` from the user's ``simulate(n, rng)``."""
        where = f"[dgp] callable ({self.path}).simulate"
        try:
            path = self.instance.simulate(n, generator)
        except Exception as error:  # noqa: BLE001 - any failure of the user's code is reported
            raise PluginFailure(f"{where} raised {type(error).__name__}: {error}") from error
        try:
            x = np.asarray(path, dtype=np.float64)
        except (TypeError, ValueError):
            raise PluginFailure(f"{where} returned {type(path).__name__}, not an array of numbers") from None
        if x.shape != (n,):
            raise PluginFailure(f"{where} returned shape {x.shape} for n = {n}; return a 1-D array of n values")
        if not np.all(np.isfinite(x)):
            raise PluginFailure(f"{where} returned NaN or infinite values for n = {n}")
        return np.ascontiguousarray(x)

    def sample(self, n: int, seed: int) -> np.ndarray:
        """``n`` observations from ``simulate(n, numpy.random.default_rng(seed))``."""
        return self.simulate(n, np.random.default_rng(seed))

    def _ask(self, method, statistic, n):
        where = f"[dgp] callable ({self.path}).{method}({statistic!r}, {n})"
        try:
            value = getattr(self.instance, method)(statistic, n)
        except Exception as error:  # noqa: BLE001 - any failure of the user's code is reported
            raise PluginError(f"{where} raised {type(error).__name__}: {error}") from None
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise PluginError(f"{where} returned {value!r}, not a number") from None
        if not math.isfinite(number) or (method == "true_se" and number <= 0):
            raise PluginError(f"{where} returned {number}; it must be finite" + (" and > 0" * (method == "true_se")))
        return number

    def truth_value(self, n: int, statistic: str) -> float:
        """The true value from the user's ``truth(statistic, n)``.

        Raises
        ------
        PluginError
            The class has no ``truth``, or it raises or answers a non-finite number.
        """
        if not callable(getattr(self.instance, "truth", None)):
            raise PluginError(
                f"[dgp] callable ({self.path}): the process has no truth(statistic, n) method; a study "
                "needs the true value of its statistic to judge coverage"
            )
        return self._ask("truth", statistic, n)

    def truth(self, n: int, statistic: str) -> Truth:
        """The :class:`~bootmark.studies.dgp.Truth`: value from ``truth``, SE from
        ``true_se`` (None when the class has neither it nor a Monte Carlo truth)."""
        value = self.truth_value(n, statistic)
        has_se = callable(getattr(self.instance, "true_se", None))
        standard_error = self._ask("true_se", statistic, n) if has_se else None
        return Truth(
            value,
            standard_error,
            f"{self.path}.truth" + (" and .true_se" if has_se else "; no true SE given"),
        )
