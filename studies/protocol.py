"""Registered study protocols: ``studies/protocols/<ID>-v<version>.toml``, parsed and checked.

A protocol fixes, before any run, everything that decides a study's outcome: the
process and its truth, the statistic, n, the number of series, B, alpha, the interval
kinds, the resamplers, the root seed, the pass/fail criteria with their rationale, and
the published figures being checked. Its SHA-256 (of the file's bytes) goes into every
receipt made from it; a protocol with a committed receipt is never edited (a test
checks this): a new version is a new file.

Criteria (``[[criteria]]``, field ``test``):

* ``within``: coverage within ``k`` Monte Carlo SE (sqrt(p (1 - p) / trials), p the
  observed coverage) of ``target``, at every n of the study (or at ``n`` if given);
* ``at_least`` / ``at_most``: observed coverage >= / <= ``target`` (at every n, or at
  ``n``);
* ``exceeds``: coverage exceeds that of resampler ``other`` (same kind) by more than
  ``k`` SE of the difference (the two SEs combined as if independent; the series are
  shared, so this is conservative when the two coverages are positively correlated);
* ``increases_with_n``: coverage at the largest n exceeds coverage at the smallest by
  more than ``k`` SE of the difference, and no step between neighbouring n falls by
  more than ``k`` SE of that step;
* ``se_ratio_within``: the mean over series of bootstrap SE / true SE within ``k``
  combined MC SE of ``target`` (ours, plus the published figure's estimated from our
  spread and its ``published_series``);
* ``se_below``: the resampler's bootstrap SE is below ``other``'s in at least a
  fraction ``target`` of the series.

``within``, ``at_least`` and ``at_most`` judge another performance measure when the
criterion names one (``measure = "bias"``, ``"relative_error_modse"``, ...; see
:mod:`bootmark.studies.measures`), by its estimate and its own Monte Carlo SE; the
measures of the point estimate take ``kind = "point"``.

Resamplers are engine specs or *contenders*, a user's functions named by import path
or entry point (:mod:`bootmark.studies.plugins`), as the process (``[dgp] callable``)
and the statistic can be; their code is loaded when a run starts, never by parsing.

Examples
--------
>>> import os
>>> from bootmark.core import workspace
>>> path = os.path.join(workspace.find().root, "tests", "protocols", "CI-v1.toml")
>>> with open(path, encoding="utf-8") as stream:
...     text = stream.read()
>>> protocol = parse(text, "CI-v1.toml")
>>> protocol.id, protocol.version, protocol.n, protocol.statistic
('CI', 1, (60, 120), 'mean')
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import sys
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import TYPE_CHECKING

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from dataclasses import fields

from bootmark import engine
from bootmark.core import workspace
from bootmark.reference.errors import BootmarkError

from . import multipliers, oracle, plugins
from . import statistics as builtin_statistics
from .dgp import FINITE_N_FAMILIES, PROCESSES, TRUE_SE, has_truth, make_process
from .measures import FORECAST_MEASURES, INTERVAL_MEASURES, MEASURES, POINT_KIND, POINT_MEASURES

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .dgp import AR1, AR3, ARMA11, HeteroskedasticAR1
    from .multipliers import MultiplierProtocol

__all__ = [
    "PROTOCOL_DIRECTORY",
    "REGISTERED_PROFILE",
    "Criterion",
    "Profile",
    "Protocol",
    "ProtocolError",
    "PublishedFigure",
    "ResamplerSpec",
    "find",
    "load",
    "parse",
    "protocol_files",
    "protocol_paths",
    "registered",
]

# The registered protocols that ship with bootmark (package data); a workspace's own
# protocols/ folder adds to them.
PROTOCOL_DIRECTORY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "protocols")
MODEL_METHODS = ("ResidualBootstrap", "SieveAR")
ENGINE_METHODS = ("IID", "MovingBlock", "CircularBlock", "StationaryBlock", "NonOverlappingBlock") + MODEL_METHODS
ENGINE_KINDS = ("percentile", "basic", "normal", "calibrated", "studentized")
MODEL_KINDS = ("percentile", "basic", "normal")  # no calibrated interval for model-based methods
ENGINE_SETTINGS = ("block_length", "order", "max_order", "criterion", "innovation", "distribution", "design")
_INNOVATION_SETTINGS = ("innovation", "distribution", "block_length")
# the settings each engine method reads; any other is refused, never silently ignored
SETTINGS_OF = {
    "IID": (),
    "ResidualBootstrap": ("order", "design") + _INNOVATION_SETTINGS,
    "SieveAR": ("max_order", "criterion") + _INNOVATION_SETTINGS,
    **{name: ("block_length",) for name in ENGINE_METHODS if name not in MODEL_METHODS + ("IID",)},
}
CRITERION_TESTS = ("within", "at_least", "at_most", "exceeds", "increases_with_n", "se_ratio_within", "se_below")
SE_TESTS = ("se_ratio_within", "se_below")
# How a contender's interval kind may be named (any name it serves, "bca" or "hac" alike).
_KIND_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
# The arguments bootmark passes a contender itself, which [resamplers.options] cannot set.
_CALL_ARGUMENTS = ("series", *plugins.CALL_ARGUMENTS)
# The statistics the engine's calibrated interval can nest (its named kernels).
_CALIBRATED_STATISTICS = ("mean", "median", "var", "std", "quantile")
REGISTERED_PROFILE = "registered"
_FILE_NAME = re.compile(r"^(?P<id>[A-Za-z0-9][A-Za-z0-9_-]*)-v(?P<version>\d+)\.toml$")


class ProtocolError(ValueError):
    """A protocol that cannot be run; the message names the file and the field.

    Raised by :func:`parse`, :func:`load`, :func:`find`, :func:`protocol_paths` and the
    lookups of :class:`Protocol`.

    Examples
    --------
    >>> parse("id = 'X'", "X-v1.toml")
    Traceback (most recent call last):
        ...
    bootmark.studies.protocol.ProtocolError: X-v1.toml: missing field 'version'
    """


@dataclass(frozen=True)
class ResamplerSpec:
    """One resampler of a study: an engine method spec or a peer adapter, and its kinds.

    ``engine`` names an engine spec; ``settings`` holds its fields as (key, value)
    pairs: ``block_length`` for block methods; ``order`` (ResidualBootstrap),
    ``max_order`` and ``criterion`` (SieveAR), and ``innovation`` ("IID", "Wild" or
    "BlockWild") with ``distribution`` and ``block_length`` for model-based methods;
    ``design`` ("recursive", the default, or "fixed") for ResidualBootstrap.

    Attributes
    ----------
    name : str
        The resampler's name in the protocol (unique within it).
    kinds : tuple of str
        The interval kinds it is asked for, in protocol order.
    engine : str or None
        The engine spec's name (one of ``ENGINE_METHODS``), or None for a peer.
    settings : tuple of (str, object)
        The engine spec's settings, in ``ENGINE_SETTINGS`` order.
    peer : str or None
        The older spelling of ``contender``, as the protocol wrote it: an entry point name
        such as ``"arch.IIDBootstrap"`` (bootmark's peer adapters).
    contender : str or None
        An entry point name in the group ``bootmark.contenders`` (``peer``'s, when the
        protocol says ``peer``).
    callable : str or None
        An import path ``"package.module:function"`` of a contender.
    options : tuple of (str, object)
        ``[resamplers.options]``: keyword arguments for every call of the contender.

    Examples
    --------
    >>> spec = ResamplerSpec("block", ("percentile",), engine="MovingBlock", settings=(("block_length", 5),))
    >>> spec.method()
    MovingBlock(block_length=5)
    """

    name: str
    kinds: tuple
    engine: str | None = None
    settings: tuple = ()
    peer: str | None = None
    contender: str | None = None  # an entry point name in the group bootmark.contenders
    callable: str | None = None  # an import path, "package.module:function"
    options: tuple = ()  # ((key, value), ...) of [resamplers.options], passed as keyword arguments
    oracle: bool = False  # a forecast study's oracle interval (bootmark.studies.forecast)

    @property
    def entry(self) -> str:
        """How messages name this entry: ``"[[resamplers]] 'name'"``."""
        return f"[[resamplers]] {self.name!r}"

    def load_contender(self) -> plugins.Contender:
        """The contender this entry names (not for engine resamplers).

        Raises
        ------
        bootmark.studies.plugins.PluginError
            The code cannot be found or is not callable.
        """
        if self.engine is not None:
            raise ValueError(f"{self.entry} is an engine resampler, not a contender")
        return plugins.load_contender(
            self.entry,
            path=self.callable,
            entry_point=self.contender,
            options=dict(self.options),
        )

    def method(self) -> object:
        """The engine's method spec (engine resamplers only).

        Returns
        -------
        object
            A spec of :mod:`bootmark.engine` (e.g. ``engine.MovingBlock(5)``) built from
            ``engine`` and ``settings``; the spec's own typed error if a setting is bad.

        Raises
        ------
        ValueError
            An unknown ``innovation`` setting.

        Examples
        --------
        >>> ResamplerSpec("iid", ("percentile",), engine="IID").method()
        IID()
        """
        settings = dict(self.settings)
        if self.engine == "IID":
            return engine.IID()
        if self.engine in MODEL_METHODS:
            innovation = _innovation_spec(engine, settings)
            if self.engine == "ResidualBootstrap":
                return engine.ResidualBootstrap(
                    engine.AR(settings.get("order", 1)), innovation, design=settings.get("design", "recursive")
                )
            return engine.SieveAR(settings.get("max_order"), settings.get("criterion", "aic"), innovation)
        return getattr(engine, self.engine)(settings.get("block_length", "auto"))


def _innovation_spec(engine, settings):
    kind = settings.get("innovation", "IID")
    if kind == "IID":
        return engine.IID()
    if kind == "Wild":
        return engine.Wild(settings.get("distribution", "rademacher"))
    if kind == "BlockWild":
        return engine.BlockWild(settings.get("distribution", "rademacher"), settings.get("block_length", "auto"))
    raise ValueError(f"unknown innovation {kind!r}; use IID, Wild or BlockWild")


@dataclass(frozen=True)
class Criterion:
    """A pass/fail rule fixed before the run (see the module docstring).

    Attributes
    ----------
    id : str
        The criterion's name in the protocol.
    test : str
        One of ``CRITERION_TESTS``.
    resampler : str
        The resampler judged.
    kind : str
        Its interval kind (``"se"`` for the SE tests).
    rationale : str
        Why the rule was registered.
    target : float or None
        The coverage, SE ratio or share the test compares with.
    k : float, default 3.0
        Monte Carlo standard errors allowed.
    n : int or None
        The one n judged (None: every n of the study).
    other : str or None
        The resampler compared with (``exceeds``, ``se_below``).
    published_series : int or None
        Series behind the target (``se_ratio_within``), for its MC error.
    measure : str, default "coverage"
        The performance measure judged by ``within``, ``at_least`` and ``at_most`` (one of
        :data:`bootmark.studies.measures.MEASURES`); ``kind`` is ``"point"`` for the
        measures of the point estimate and its SE.

    See Also
    --------
    bootmark.studies.summary.judge : The verdict of a criterion on a run.

    Examples
    --------
    >>> Criterion("iid", "within", "engine.IID", "percentile", "why", target=0.9).statement
    'coverage(engine.IID, percentile) within 3 mc_se of 0.900'
    """

    id: str
    test: str
    resampler: str
    kind: str | None
    rationale: str
    target: float | None = None
    k: float = 3.0
    n: int | None = None
    other: str | None = None  # se_below: the resampler whose SE is compared
    published_series: int | None = None  # se_ratio_within: series behind the target, for its MC error
    measure: str = "coverage"  # within / at_least / at_most: any performance measure (studies/measures.py)

    @property
    def statement(self) -> str:
        """The rule in one line of text, as verdicts and tables print it."""
        where = f" at n={self.n}" if self.n is not None else ""
        kind = "every horizon" if self.kind is None else self.kind  # a forecast criterion on every horizon
        if self.measure != "coverage":
            subject = f"{self.measure}({self.resampler}, {kind}){where}"
            if self.test == "within":
                return f"{subject} within {self.k:g} mc_se of {self.target:g}"
            return f"{subject} {'>=' if self.test == 'at_least' else '<='} {self.target:g}"
        if self.test == "se_ratio_within":
            return f"mean SE ratio({self.resampler}){where} within {self.k:g} combined MC SE of {self.target:.3f}"
        if self.test == "se_below":
            return f"SE({self.resampler}) < SE({self.other}){where} in >= {self.target:.1%} of series"
        subject = f"coverage({self.resampler}, {kind}){where}"
        if self.test == "within":
            return f"{subject} within {self.k:g} mc_se of {self.target:.3f}"
        if self.test == "at_least":
            return f"{subject} >= {self.target:.3f}"
        if self.test == "at_most":
            return f"{subject} <= {self.target:.3f}"
        if self.test == "exceeds":
            return f"{subject} > coverage({self.other}, {self.kind}) by > {self.k:g} SE"
        return f"{subject} increases with n (by > {self.k:g} SE from smallest to largest n)"


@dataclass(frozen=True)
class PublishedFigure:
    """A published coverage figure to set beside ours, with its source.

    Attributes
    ----------
    resampler, kind : str
        The resampler and interval kind it is compared with.
    n : int
        Series length.
    value : float
        The published coverage (or mean SE ratio).
    source : str
        Where it is published.
    series : int or None
        Series behind it, when stated (its Monte Carlo error is then combined with ours).
    measure : {"coverage", "se_ratio"}, default "coverage"
        What ``value`` measures.

    See Also
    --------
    bootmark.studies.summary.compare_published : Our figure beside it.
    """

    resampler: str
    kind: str
    n: int
    value: float
    source: str
    series: int | None = None  # how many series the published figure used, when stated
    measure: str = "coverage"  # or "se_ratio": the mean of bootstrap SE / true SE


@dataclass(frozen=True)
class Profile:
    """A named run size: the registered one, or a smaller one declared in the protocol.

    Attributes
    ----------
    name : str
        ``"registered"`` or the name of a ``[profiles.<name>]`` table.
    series : int
        Series per n.
    resamplers : tuple of str
        The resamplers run, in protocol order.
    n : tuple of int
        The series lengths run.
    """

    name: str
    series: int
    resamplers: tuple  # names, in protocol order
    n: tuple


@dataclass(frozen=True)
class Protocol:
    """A parsed protocol. ``text`` and ``sha256`` are the file's exact content and hash.

    Built by :func:`parse` (or :func:`load`, which also sets ``source_path``); its fields
    mirror the protocol file's (see docs/protocols.md): the design (``statistic``, ``n``,
    ``series``, ``n_bootstraps``, ``alpha``, ``inner_bootstraps``, ``root_seed``,
    ``chunk_series``), the process (``dgp_name``, ``dgp_parameters``, ``truth_note``,
    ``true_se``),
    ``resamplers`` (:class:`ResamplerSpec`), ``criteria`` (:class:`Criterion`),
    ``published`` (:class:`PublishedFigure`) and ``profiles`` (name ->
    :class:`Profile`).

    Examples
    --------
    >>> import os
    >>> from bootmark.core import workspace
    >>> path = os.path.join(workspace.find().root, "tests", "protocols", "CI-v1.toml")
    >>> with open(path, encoding="utf-8") as stream:
    ...     text = stream.read()
    >>> protocol = parse(text, "CI-v1.toml")
    >>> protocol.process()
    AR1(phi=0.7, innovation_sd=1.0, burn_in=500, true_se='large_n')
    >>> protocol.true_se is None  # [dgp] true_se absent: the large-n SE, as every receipt before it
    True
    >>> protocol.profile("tiny")
    Profile(name='tiny', series=10, resamplers=('engine.IID', 'engine.MovingBlock(auto)'), n=(60,))
    >>> protocol.resampler("engine.MovingBlock(auto)").kinds
    ('percentile', 'calibrated')
    >>> protocol.profile("huge")
    Traceback (most recent call last):
        ...
    bootmark.studies.protocol.ProtocolError: CI-v1.toml: no profile 'huge'; declared: registered, tiny
    """

    id: str
    version: int
    registered: str
    title: str
    claim: str
    dgp_name: str
    dgp_parameters: MappingProxyType
    truth_note: str
    statistic: str
    n: tuple
    series: int
    n_bootstraps: int
    alpha: float
    inner_bootstraps: int
    root_seed: int
    chunk_series: int
    resamplers: tuple
    criteria: tuple
    published: tuple
    profiles: MappingProxyType
    file_name: str
    text: str
    sha256: str
    kind: str = "coverage"
    source_path: str | None = None  # the file it was loaded from (not part of its text or hash)
    dgp_callable: str | None = None  # [dgp] callable: a process class by import path
    null: float | None = None  # [design] null: the value whose rejection rate is reported
    truth_draws: int | None = None  # [dgp] truth_draws: draws of a Monte Carlo truth (plugin processes)
    # [dgp] true_se, "large_n" or "finite_n"; None when absent, which builds the process exactly
    # as before the key existed (large-n for the closed forms), so old receipts replay bit for bit
    true_se: str | None = None
    # [design] target: "coverage" (an interval for a parameter) or "forecast" (prediction
    # intervals for the next `horizon` values: bootmark.studies.forecast)
    target: str = "coverage"
    horizon: int | None = None

    def process(self) -> AR1 | AR3 | ARMA11 | HeteroskedasticAR1 | plugins.PluginProcess:
        """The data-generating process: a built-in (:func:`bootmark.studies.dgp.make_process`,
        with ``[dgp] true_se``) or the class ``[dgp] callable`` names, built from
        ``[dgp] parameters``.

        Raises
        ------
        bootmark.studies.plugins.PluginError
            A process class that cannot be imported or built.
        """
        if self.dgp_callable is None:
            return make_process(self.dgp_name, dict(self.dgp_parameters), self.true_se)
        where = f"[dgp] callable ({self.dgp_callable})"
        cls = plugins.load_object(self.dgp_callable, "[dgp] callable")
        try:
            instance = cls(**dict(self.dgp_parameters))
        except Exception as error:  # noqa: BLE001 - any refusal of the user's class is reported
            raise plugins.PluginError(
                f"{where}: building it from [dgp] parameters raised {type(error).__name__}: {error}"
            ) from None
        if not callable(getattr(instance, "simulate", None)):
            raise plugins.PluginError(f"{where}: the process has no simulate(n, rng) method")
        return plugins.PluginProcess(self.dgp_callable, self.dgp_parameters, instance)

    def statistic_function(self) -> plugins.StudyStatistic:
        """The statistic as contenders receive it (:class:`~bootmark.studies.plugins.StudyStatistic`).

        Raises
        ------
        bootmark.studies.plugins.PluginError
            An import-path statistic that cannot be loaded.
        """
        return plugins.study_statistic(self.statistic)

    def plugin_entries(self, names: Sequence[str] | None = None) -> tuple[tuple[str, str], ...]:
        """((entry, import path or entry point name), ...) of the code this protocol names
        outside bootmark's engine, in protocol order; of the resamplers ``names`` only,
        when given (a profile's)."""
        found = []
        if self.dgp_callable is not None:
            found.append(("[dgp] callable", self.dgp_callable))
        if self.statistic is not None and not builtin_statistics.is_builtin(self.statistic):
            found.append(("[design] statistic", self.statistic))
        for spec in self.resamplers:
            if spec.engine is None and not spec.oracle and (names is None or spec.name in names):
                found.append((spec.entry, spec.callable or spec.contender))
        return tuple(found)

    def resampler(self, name: str) -> ResamplerSpec:
        """The :class:`ResamplerSpec` named ``name``.

        Raises
        ------
        ProtocolError
            No resampler of that name.
        """
        for spec in self.resamplers:
            if spec.name == name:
                return spec
        raise ProtocolError(f"{self.file_name}: no resampler named {name!r}")

    def profile(self, name: str = REGISTERED_PROFILE) -> Profile:
        """The :class:`Profile` named ``name`` (default: the registered one).

        Raises
        ------
        ProtocolError
            No profile of that name.
        """
        if name not in self.profiles:
            raise ProtocolError(f"{self.file_name}: no profile {name!r}; declared: {', '.join(self.profiles)}")
        return self.profiles[name]


def _field(table, key, kind, where, default=None, required=True):
    if key not in table:
        if required:
            raise ProtocolError(f"{where}: missing field {key!r}")
        return default
    value = table[key]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise ProtocolError(f"{where}: field {key!r} must be {getattr(kind, '__name__', kind)}, got {value!r}")
    return value


def _positive(value, key, where):
    if value < 1:
        raise ProtocolError(f"{where}: field {key!r} must be >= 1, got {value}")
    return value


_RESAMPLER_SOURCES = ("engine", "contender", "callable", "peer")
_CONTENDER_KEYS = ("name", "kinds", "contender", "callable", "peer", "options")


def _resampler(table, where):
    name = _field(table, "name", str, where)
    kinds = tuple(_field(table, "kinds", list, f"{where} ({name})"))
    given = [key for key in _RESAMPLER_SOURCES if key in table]
    if len(given) != 1:
        raise ProtocolError(
            f"{where} ({name}): give exactly one of 'engine' (a bootmark method), 'contender' (an entry "
            "point name), 'callable' (an import path 'package.module:function') or 'peer'"
            + (f"; found {', '.join(given)}" if given else "")
        )
    engine_name = _field(table, "engine", str, where, required=False)
    if engine_name is None:
        return _contender_spec(table, f"{where} ({name})", name, kinds)
    if engine_name not in ENGINE_METHODS:
        raise ProtocolError(
            f"{where} ({name}): unknown engine method {engine_name!r}; use one of {', '.join(ENGINE_METHODS)}"
        )
    allowed = MODEL_KINDS if engine_name in MODEL_METHODS else ENGINE_KINDS
    bad = [kind for kind in kinds if kind not in allowed]
    stray = [key for key in ENGINE_SETTINGS if key in table and key not in SETTINGS_OF[engine_name]]
    if stray:
        raise ProtocolError(
            f"{where} ({name}): {engine_name} does not read {', '.join(stray)}; its settings "
            f"are {', '.join(SETTINGS_OF[engine_name]) or 'none'}"
        )
    settings = tuple((key, table[key]) for key in ENGINE_SETTINGS if key in table)
    if not kinds or bad:
        raise ProtocolError(f"{where} ({name}): unsupported or missing interval kinds {bad or kinds}")
    spec = ResamplerSpec(name, kinds, engine_name, settings)
    try:
        spec.method()
    except Exception as error:  # the spec's own typed error, re-raised with the protocol's location
        raise ProtocolError(f"{where} ({name}): {error}") from None
    return spec


def _contender_spec(table, where, name, kinds):
    """A contender entry: checked for form only; its code is loaded when a run starts
    (so listing protocols never imports a user's module)."""
    stray = sorted(set(table) - set(_CONTENDER_KEYS))
    if stray:
        raise ProtocolError(
            f"{where}: a contender does not read {', '.join(stray)} (engine settings); pass its own "
            "settings in [resamplers.options]"
        )
    if not kinds or not all(isinstance(kind, str) and _KIND_NAME.match(kind) for kind in kinds):
        raise ProtocolError(f"{where}: kinds must be a non-empty list of names, got {list(kinds)}")
    if POINT_KIND in kinds:
        raise ProtocolError(
            f"{where}: {POINT_KIND!r} names the measures of the point estimate; call the kind otherwise"
        )
    if len(set(kinds)) != len(kinds):
        raise ProtocolError(f"{where}: kinds {list(kinds)} repeat a kind")
    path = _field(table, "callable", str, where, required=False)
    if path is not None and not plugins.is_import_path(path):
        raise ProtocolError(f"{where}: callable {path!r} is not an import path; write 'package.module:function'")
    options = _field(table, "options", dict, where, {}, required=False)
    reserved = sorted(set(options) & set(_CALL_ARGUMENTS))
    if reserved:
        raise ProtocolError(
            f"{where}: [resamplers.options] cannot set {', '.join(reserved)}: bootmark passes "
            f"{', '.join(_CALL_ARGUMENTS)} itself, from the design"
        )
    peer = _field(table, "peer", str, where, required=False)
    return ResamplerSpec(
        name,
        kinds,
        peer=peer,
        # `peer` is the older spelling of `contender`: one field holds the entry point either way
        contender=_field(table, "contender", str, where, required=False) or peer,
        callable=path,
        options=tuple(sorted(options.items())),
    )


def _criterion(table, where, resamplers, ns, null=None):
    test = _field(table, "test", str, where)
    if test not in CRITERION_TESTS:
        raise ProtocolError(f"{where}: unknown test {test!r}; use one of {', '.join(CRITERION_TESTS)}")
    se_test = test in SE_TESTS
    criterion = Criterion(
        id=_field(table, "id", str, where),
        test=test,
        resampler=_field(table, "resampler", str, where),
        kind=_field(table, "kind", str, where, "se", required=not se_test),
        rationale=_field(table, "rationale", str, where),
        target=_field(table, "target", float, where, required=test not in ("increases_with_n", "exceeds")),
        k=_field(table, "k", float, where, 3.0, required=False),
        n=_field(table, "n", int, where, required=False),
        other=_field(table, "other", str, where, required=test in ("se_below", "exceeds")),
        published_series=_field(table, "published_series", int, where, required=False),
        measure=_field(table, "measure", str, where, "coverage", required=False),
    )
    if criterion.measure != "coverage":
        _check_measure(criterion, where, null)
    known = resamplers.get(criterion.resampler)
    point_measure = criterion.measure in POINT_MEASURES and criterion.kind == POINT_KIND
    if known is None or not se_test and not point_measure and criterion.kind not in known.kinds:
        raise ProtocolError(
            f"{where} ({criterion.id}): no resampler {criterion.resampler!r} with kind "
            f"{criterion.kind!r} in this protocol"
        )
    if criterion.other is not None and criterion.other not in resamplers:
        raise ProtocolError(f"{where} ({criterion.id}): no resampler {criterion.other!r} in this protocol")
    if criterion.n is not None and criterion.n not in ns:
        raise ProtocolError(f"{where} ({criterion.id}): n={criterion.n} is not one of the study's n {ns}")
    if test == "increases_with_n" and len(ns) < 2:
        raise ProtocolError(f"{where} ({criterion.id}): increases_with_n needs at least two n")
    return criterion


def _check_measure(criterion, where, null):
    """A criterion on a measure other than coverage: a known measure, a test that reads an
    estimate (within, at_least, at_most), and the kind "point" for the point measures."""
    if criterion.measure not in MEASURES:
        raise ProtocolError(f"{where} ({criterion.id}): unknown measure {criterion.measure!r}; use one of {MEASURES}")
    if criterion.test not in ("within", "at_least", "at_most"):
        raise ProtocolError(
            f"{where} ({criterion.id}): a measure is judged by within, at_least or at_most, not {criterion.test!r}"
        )
    if criterion.measure == "rejection" and null is None:
        raise ProtocolError(
            f"{where} ({criterion.id}): measure 'rejection' needs [design] null, the value whose rejection is counted"
        )
    if (criterion.measure in POINT_MEASURES) != (criterion.kind == POINT_KIND):
        want = f'kind = "{POINT_KIND}"' if criterion.measure in POINT_MEASURES else "an interval kind"
        raise ProtocolError(f"{where} ({criterion.id}): measure {criterion.measure!r} takes {want}")
    assert criterion.measure in POINT_MEASURES + INTERVAL_MEASURES


def _published(table, where):
    """A :class:`PublishedFigure` from one ``[[published]]`` table; unknown keys refused."""
    known = [f.name for f in fields(PublishedFigure)]
    unknown = sorted(set(table) - set(known))
    if unknown:
        raise ProtocolError(f"{where}: unknown field(s) {unknown}; a published figure takes {', '.join(known)}")
    missing = [name for name in ("resampler", "kind", "n", "value", "source") if name not in table]
    if missing:
        raise ProtocolError(f"{where}: missing field(s) {missing}")
    return PublishedFigure(**table)


def parse(text: str, file_name: str) -> Protocol | MultiplierProtocol:
    """A :class:`Protocol` from TOML ``text``; ``file_name`` must be ``<id>-v<version>.toml``.

    A protocol of ``kind = "multiplier_autocorrelation"`` is handed to
    :func:`bootmark.studies.multipliers.parse`. Every check that can be made before a
    run is made here, including building the process and each engine spec.

    Parameters
    ----------
    text : str
        The protocol file's text (its SHA-256 is the protocol's).
    file_name : str
        The file's base name, ``<id>-v<version>.toml``, matching its ``id`` and
        ``version``.

    Returns
    -------
    Protocol or bootmark.studies.multipliers.MultiplierProtocol
        The parsed protocol.

    Raises
    ------
    ProtocolError
        Invalid TOML, a missing or mistyped field, a file name that does not match, an
        unknown process, method, peer, kind, test or resampler, or a design the runner
        cannot honour; the message names the file and the field.

    See Also
    --------
    load : Parse a protocol file.

    Examples
    --------
    >>> import os
    >>> from bootmark.core import workspace
    >>> path = os.path.join(workspace.find().root, "tests", "protocols", "CI-v1.toml")
    >>> with open(path, encoding="utf-8") as stream:
    ...     text = stream.read()
    >>> protocol = parse(text, "CI-v1.toml")
    >>> [spec.name for spec in protocol.resamplers]
    ['engine.IID', 'engine.MovingBlock(auto)', 'engine.StationaryBlock(5)', 'arch.IIDBootstrap']
    >>> protocol.criteria[0].statement
    'coverage(engine.IID, percentile) within 3 mc_se of 0.510'
    >>> parse(text, "CI-v2.toml")
    Traceback (most recent call last):
        ...
    bootmark.studies.protocol.ProtocolError: CI-v2.toml: the file must be named CI-v1.toml (its id and version)
    """
    where = file_name
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ProtocolError(f"{where}: not valid TOML ({error})") from None
    study_id, version = (
        _field(table, "id", str, where),
        _positive(_field(table, "version", int, where), "version", where),
    )
    match = _FILE_NAME.match(file_name)
    if not match or match["id"] != study_id or int(match["version"]) != version:
        raise ProtocolError(f"{where}: the file must be named {study_id}-v{version}.toml (its id and version)")
    if table.get("kind", "coverage") != "coverage":
        if table["kind"] != multipliers.KIND:
            raise ProtocolError(
                f"{where}: unknown study kind {table['kind']!r}; use 'coverage' or {multipliers.KIND!r}"
            )
        return multipliers.parse(table, text, file_name, _field, _positive, ProtocolError)
    dgp = _field(table, "dgp", dict, where)
    design = _field(table, "design", dict, where)
    ns = _design_n(design, where)
    target = _field(design, "target", str, f"{where} [design]", "coverage", required=False)
    if target == oracle.FORECAST_TARGET:
        return _parse_forecast(table, dgp, design, ns, text, file_name, study_id, version)
    if target != "coverage":
        raise ProtocolError(f"{where} [design]: target must be 'coverage' or 'forecast', got {target!r}")
    if "horizon" in design:
        raise ProtocolError(
            f'{where} [design]: horizon is read only by a forecast study; add target = "forecast" (or drop horizon)'
        )
    statistic = _statistic(_field(design, "statistic", str, f"{where} [design]"), where)
    dgp_callable = _dgp_callable(dgp, where)
    null = _field(design, "null", float, f"{where} [design]", required=False)
    if null is not None and not math.isfinite(null):
        raise ProtocolError(f"{where} [design]: null must be a finite number, got {null}")
    alpha = _field(design, "alpha", float, f"{where} [design]")
    if not 0.0 < alpha < 1.0:
        raise ProtocolError(f"{where}: design.alpha must lie in (0, 1), got {alpha}")
    resamplers = tuple(_resampler(item, f"{where} [[resamplers]]") for item in _field(table, "resamplers", list, where))
    by_name = _by_name(resamplers, where)
    series = _positive(_field(design, "series", int, f"{where} [design]"), "series", where)
    profiles = _profiles(table, where, series, tuple(by_name), ns)
    protocol = Protocol(
        **_identity(table, dgp, design, dgp_callable, text, file_name, study_id, version),
        truth_note=_field(dgp, "truth", str, f"{where} [dgp]"),
        statistic=statistic,
        n=ns,
        series=series,
        n_bootstraps=_positive(_field(design, "n_bootstraps", int, f"{where} [design]"), "n_bootstraps", where),
        alpha=alpha,
        inner_bootstraps=_field(design, "inner_bootstraps", int, where, 199, required=False),
        resamplers=resamplers,
        criteria=tuple(
            _criterion(item, f"{where} [[criteria]]", by_name, ns, null) for item in table.get("criteria", [])
        ),
        published=tuple(_published(item, f"{where} [[published]]") for item in table.get("published", [])),
        profiles=MappingProxyType(profiles),
        null=null,
        truth_draws=_truth_draws(dgp, f"{where} [dgp]"),
        true_se=_true_se(dgp, f"{where} [dgp]", dgp_callable),
    )
    _check_combinations(protocol, where)
    return protocol


# What a forecast protocol's tables may hold: a key outside these is refused, never ignored.
_FORECAST_DESIGN = ("target", "horizon", "n", "series", "alpha", "root_seed", "chunk_series")
_FORECAST_ENTRY = ("name", "callable", "contender", "oracle", "options")
_FORECAST_CRITERION = ("id", "test", "resampler", "measure", "horizon", "n", "target", "k", "rationale")


def _parse_forecast(table, dgp, design, ns, text, file_name, study_id, version):
    """A forecast :class:`Protocol` (``[design] target = "forecast"``): prediction intervals
    for the next ``horizon`` values, judged against the process's own continuation."""
    where = file_name
    stray = sorted(set(design) - set(_FORECAST_DESIGN))
    if stray:
        raise ProtocolError(
            f"{where} [design]: a forecast study does not read {', '.join(stray)} (it has no statistic and "
            "calls forecasters with the history, horizon, alpha and seed); its fields are "
            f"{', '.join(_FORECAST_DESIGN)}"
        )
    if "horizon" not in design:
        raise ProtocolError(
            f"{where} [design]: a forecast study needs horizon, the steps ahead each interval is asked for "
            "(e.g. horizon = 5)"
        )
    horizon = _positive(_field(design, "horizon", int, f"{where} [design]"), "horizon", where)
    if horizon > oracle.HORIZON_LIMIT:
        raise ProtocolError(f"{where} [design]: horizon must be at most {oracle.HORIZON_LIMIT}, got {horizon}")
    dgp_callable = _dgp_callable(dgp, where)
    for key in ("true_se", "truth_draws"):
        if key in dgp:
            raise ProtocolError(f"{where} [dgp]: {key} has no meaning in a forecast study (its truth is the future)")
    alpha = _field(design, "alpha", float, f"{where} [design]")
    if not 0.0 < alpha < 1.0:
        raise ProtocolError(f"{where}: design.alpha must lie in (0, 1), got {alpha}")
    entries = _field(table, "resamplers", list, where)
    resamplers = tuple(_forecast_entry(item, f"{where} [[resamplers]]") for item in entries)
    by_name = _by_name(resamplers, where)
    series = _positive(_field(design, "series", int, f"{where} [design]"), "series", where)
    protocol = Protocol(
        **_identity(table, dgp, design, dgp_callable, text, file_name, study_id, version),
        truth_note=_field(dgp, "truth", str, f"{where} [dgp]", "the process's own continuation", required=False),
        statistic=None,
        n=ns,
        series=series,
        n_bootstraps=0,
        alpha=alpha,
        inner_bootstraps=0,
        resamplers=resamplers,
        criteria=tuple(
            _forecast_criterion(item, f"{where} [[criteria]]", by_name, ns, horizon)
            for item in table.get("criteria", [])
        ),
        published=(),
        profiles=MappingProxyType(_profiles(table, where, series, tuple(by_name), ns)),
        target=oracle.FORECAST_TARGET,
        horizon=horizon,
    )
    if "published" in table:
        raise ProtocolError(f"{where}: a forecast study has no [[published]] figures yet")
    if dgp_callable is None:  # a built-in process: its parameters, and the oracle's, checked now
        process = protocol.process()
        oracles = [spec.entry for spec in resamplers if spec.oracle]
        if oracles and not oracle.has_oracle(process):
            raise ProtocolError(
                f"{where}: {oracles[0]} asks for the oracle, which {protocol.dgp_name} has not: the oracle is the "
                "known conditional distribution of a Gaussian AR process (ar1, ar3)"
            )
    return protocol


def _forecast_entry(table, where):
    """One forecast ``[[resamplers]]`` entry: a contender (``callable`` or ``contender``)
    with its options, or ``oracle = true``; no kinds (each answers every horizon)."""
    name = _field(table, "name", str, where)
    where = f"{where} ({name})"
    if "kinds" in table:
        raise ProtocolError(f"{where}: a forecast entry takes no kinds; it answers an interval per horizon")
    if "engine" in table:
        raise ProtocolError(
            f"{where}: an engine method is a bootstrap of a parameter, not a forecaster; name a forecast "
            "contender (callable = 'package.module:function') or oracle = true"
        )
    stray = sorted(set(table) - set(_FORECAST_ENTRY))
    if stray:
        raise ProtocolError(f"{where}: a forecast entry does not read {', '.join(stray)}; it takes {_FORECAST_ENTRY}")
    wants_oracle = _field(table, "oracle", bool, where, False, required=False)
    given = [key for key in ("callable", "contender") if key in table] + (["oracle"] if wants_oracle else [])
    if len(given) != 1:
        raise ProtocolError(
            f"{where}: give exactly one of 'callable' (an import path 'package.module:function'), 'contender' "
            "(an entry point name) or oracle = true" + (f"; found {', '.join(given)}" if given else "")
        )
    path = _field(table, "callable", str, where, required=False)
    if path is not None and not plugins.is_import_path(path):
        raise ProtocolError(f"{where}: callable {path!r} is not an import path; write 'package.module:function'")
    options = _field(table, "options", dict, where, {}, required=False)
    if wants_oracle and options:
        raise ProtocolError(f"{where}: the oracle takes no options")
    reserved = sorted(set(options) & {"history", *plugins.FORECAST_ARGUMENTS})
    if reserved:
        raise ProtocolError(
            f"{where}: [resamplers.options] cannot set {', '.join(reserved)}: bootmark passes the history, "
            f"{', '.join(plugins.FORECAST_ARGUMENTS)} itself"
        )
    return ResamplerSpec(
        name,
        (),
        contender=_field(table, "contender", str, where, required=False),
        callable=path,
        options=tuple(sorted(options.items())),
        oracle=wants_oracle,
    )


def _forecast_criterion(table, where, resamplers, ns, horizon):
    """A forecast criterion: within / at_least / at_most on one of the forecast measures,
    at one horizon (``horizon = h``) or at every horizon, at one n or every n."""
    stray = sorted(set(table) - set(_FORECAST_CRITERION))
    if stray:
        raise ProtocolError(f"{where}: a forecast criterion does not read {', '.join(stray)}")
    test = _field(table, "test", str, where)
    if test not in ("within", "at_least", "at_most"):
        raise ProtocolError(f"{where}: a forecast criterion's test is within, at_least or at_most, not {test!r}")
    step = _field(table, "horizon", int, where, required=False)
    if step is not None and not 1 <= step <= horizon:
        raise ProtocolError(f"{where}: horizon = {step} is not one of the study's steps 1..{horizon}")
    criterion = Criterion(
        id=_field(table, "id", str, where),
        test=test,
        resampler=_field(table, "resampler", str, where),
        kind=None if step is None else oracle.horizon_kind(step),
        rationale=_field(table, "rationale", str, where),
        target=_field(table, "target", float, where),
        k=_field(table, "k", float, where, 3.0, required=False),
        n=_field(table, "n", int, where, required=False),
        measure=_field(table, "measure", str, where, "coverage", required=False),
    )
    if criterion.measure not in FORECAST_MEASURES:
        raise ProtocolError(
            f"{where} ({criterion.id}): unknown forecast measure {criterion.measure!r}; use one of {FORECAST_MEASURES}"
        )
    if criterion.resampler not in resamplers:
        raise ProtocolError(f"{where} ({criterion.id}): no resampler {criterion.resampler!r} in this protocol")
    if criterion.n is not None and criterion.n not in ns:
        raise ProtocolError(f"{where} ({criterion.id}): n={criterion.n} is not one of the study's n {ns}")
    return criterion


def _identity(table, dgp, design, dgp_callable, text, file_name, study_id, version):
    """The :class:`Protocol` fields every kind of study reads alike: who it is, its file,
    its process and its seeds."""
    where = file_name
    return {
        "id": study_id,
        "version": version,
        "registered": str(_field(table, "registered", object, where)),
        "title": _field(table, "title", str, where),
        "claim": _field(table, "claim", str, where),
        "dgp_name": dgp_callable or _field(dgp, "name", str, f"{where} [dgp]"),
        "dgp_parameters": MappingProxyType(dict(_field(dgp, "parameters", dict, f"{where} [dgp]"))),
        "root_seed": _field(design, "root_seed", int, f"{where} [design]"),
        "chunk_series": _positive(
            _field(design, "chunk_series", int, where, 25, required=False), "chunk_series", where
        ),
        "file_name": file_name,
        "text": text,
        "sha256": hashlib.sha256(text.encode()).hexdigest(),
        "dgp_callable": dgp_callable,
    }


def _by_name(resamplers, where):
    """{name: spec} of the resamplers; a name used twice is refused, named."""
    by_name = {}
    for spec in resamplers:
        if spec.name in by_name:
            raise ProtocolError(f"{where}: resampler names must be unique; {spec.name!r} is used twice")
        by_name[spec.name] = spec
    return by_name


def _dgp_callable(dgp, where):
    """[dgp] callable (None for a built-in ``name``): exactly one of the two, an import path."""
    dgp_callable = _field(dgp, "callable", str, f"{where} [dgp]", required=False)
    if ("name" in dgp) == (dgp_callable is not None):
        raise ProtocolError(
            f"{where} [dgp]: give exactly one of 'name' (a built-in process) and 'callable' (an import "
            "path 'package.module:Process')"
        )
    if dgp_callable is not None and not plugins.is_import_path(dgp_callable):
        raise ProtocolError(f"{where} [dgp]: callable {dgp_callable!r} is not an import path 'package.module:Class'")
    return dgp_callable


def _statistic(text, where):
    """design.statistic: a built-in name (checked now) or an import path (loaded at run time)."""
    if plugins.is_import_path(text) and not builtin_statistics.is_builtin(text):
        return text
    try:
        builtin_statistics.parse(text, "design.statistic")
    except BootmarkError as error:
        raise ProtocolError(f"{where}: {error}; or name your own as an import path 'package.module:function'") from None
    return text


def _truth_draws(dgp, where):
    draws = _field(dgp, "truth_draws", int, where, required=False)
    if draws is not None and draws < 100:
        raise ProtocolError(f"{where}: truth_draws must be at least 100, got {draws}")
    return draws


def _true_se(dgp, where, dgp_callable):
    """[dgp] true_se: None when absent, else one of ``TRUE_SE``; a built-in process's only."""
    if "true_se" not in dgp:
        return None
    value = dgp["true_se"]
    if value not in TRUE_SE:
        raise ProtocolError(f"{where}: true_se must be one of {', '.join(map(repr, TRUE_SE))}, got {value!r}")
    if dgp_callable is not None:
        raise ProtocolError(
            f"{where}: true_se is for the built-in processes; a process of your own (callable) gives its "
            "own SE, by its true_se(statistic, n) method or a Monte Carlo truth; remove true_se"
        )
    return value


def _design_n(design, where):
    """design.n as an increasing tuple of ints >= 10 (one int is a tuple of one)."""
    ns = design.get("n")
    ns = tuple(ns) if isinstance(ns, list) else (ns,)
    if (
        not ns
        or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 10 for n in ns)
        or list(ns) != sorted(set(ns))
    ):
        raise ProtocolError(f"{where}: design.n must be an int >= 10 or an increasing list of them, got {ns}")
    return ns


def _profiles(table, where, series, names, ns):
    """{name: Profile}: the registered one (every resampler and n) and the declared ones."""
    profiles = {REGISTERED_PROFILE: Profile(REGISTERED_PROFILE, series, names, ns)}
    for name, item in table.get("profiles", {}).items():
        chosen = tuple(item.get("resamplers", list(names)))
        unknown = [r for r in chosen if r not in names]
        if unknown:
            raise ProtocolError(f"{where} [profiles.{name}]: unknown resamplers {unknown}")
        profile_ns = tuple(item.get("n", list(ns)))
        if not set(profile_ns) <= set(ns):
            raise ProtocolError(f"{where} [profiles.{name}]: n {profile_ns} not all in the study's n {ns}")
        profiles[name] = Profile(
            name,
            _positive(_field(item, "series", int, f"{where} [profiles.{name}]"), "series", where),
            chosen,
            profile_ns,
        )
    return profiles


def _check_combinations(protocol, where):
    """Refuse what each part allows alone but not together: peers or studentized
    intervals with a statistic other than the mean, a fixed design of order > 1 for the
    AR(1) slope, a trend criterion on a one-n profile, a statistic the process has no
    truth for."""
    resamplers, statistic, profiles = protocol.resamplers, protocol.statistic, protocol.profiles
    own_statistic = not builtin_statistics.is_builtin(statistic)
    fixed_higher = [
        spec.name
        for spec in resamplers
        if dict(spec.settings).get("design") == "fixed" and dict(spec.settings).get("order", 1) != 1
    ]
    if fixed_higher and statistic in ("ar1_slope", "ar_coef"):
        raise ProtocolError(
            f"{where}: the fixed-design resamplers {fixed_higher} would refit an AR(1) slope on "
            "their own paths' lags, not the observed ones; use order = 1 (whose fused refit keeps "
            'the observed lags) or design = "recursive"'
        )
    calibrated = [spec.name for spec in resamplers if spec.engine is not None and "calibrated" in spec.kinds]
    family = statistic.split(":")[0]
    if calibrated and (own_statistic or family not in _CALIBRATED_STATISTICS):
        raise ProtocolError(
            f'{where}: kind "calibrated" (resamplers {calibrated}) nests the engine\'s named statistics '
            f"({', '.join(_CALIBRATED_STATISTICS)}) only; this study's statistic is {statistic!r}"
        )
    studentized = [spec.name for spec in resamplers if spec.engine is not None and "studentized" in spec.kinds]
    if studentized and statistic != "mean":
        raise ProtocolError(
            f'{where}: kind "studentized" (resamplers {studentized}) is defined for the mean '
            f"only; this study's statistic is {statistic!r}"
        )
    trends = [c.id for c in protocol.criteria if c.test == "increases_with_n"]
    single = [name for name, profile in profiles.items() if len(profile.n) < 2]
    if trends and single:
        raise ProtocolError(
            f"{where}: profile(s) {single} have one n, but criteria {trends} (increases_with_n) "
            "need at least two; give each profile two or more n"
        )
    if protocol.dgp_callable is not None:
        return  # a user's process is imported and asked for its truths when a run starts
    _check_true_se(protocol, where)
    process = protocol.process()  # the process's own checks, before any run
    if own_statistic or not has_truth(process, statistic):
        raise ProtocolError(
            f"{where}: process {protocol.dgp_name!r} has no truth for statistic {statistic!r}; "
            f"it has one for {', '.join(process.statistics)} (a statistic of your own needs a process "
            "of your own, [dgp] callable, whose truth() knows it)"
        )


def _check_true_se(protocol, where):
    """[dgp] true_se against the process and the statistic: ``finite_n`` needs a statistic
    with an exact finite-n SE (a closed-form process's), ``large_n`` a closed-form process."""
    true_se, statistic = protocol.true_se, protocol.statistic
    if true_se is None or protocol.dgp_name not in PROCESSES:  # absent; an unknown process: make_process says so
        return
    if getattr(PROCESSES[protocol.dgp_name], "monte_carlo_truth", False):
        if true_se == "large_n":
            raise ProtocolError(
                f"{where} [dgp]: process {protocol.dgp_name!r} has no large-n SE: its SE is a Monte Carlo "
                "estimate at each n (a truth receipt), a finite-n SE already; use true_se = 'finite_n' or "
                "leave true_se out"
            )
        return
    family = statistic.split(":")[0]
    if true_se == "finite_n" and builtin_statistics.is_builtin(statistic) and family not in FINITE_N_FAMILIES:
        raise ProtocolError(
            f"{where} [dgp]: true_se = 'finite_n' gives the exact SE at n of the statistics "
            f"{', '.join(FINITE_N_FAMILIES)} only; {statistic!r} has no finite-n closed form: use "
            "true_se = 'large_n' (or leave true_se out) for this one"
        )


def load(path: str) -> Protocol | MultiplierProtocol:
    """Parse the protocol file at ``path``; an unreadable file is a :class:`ProtocolError`.

    Parameters
    ----------
    path : str
        Path of a ``<id>-v<version>.toml`` file.

    Returns
    -------
    Protocol or bootmark.studies.multipliers.MultiplierProtocol
        As :func:`parse`, with ``source_path`` set to the file's absolute path.

    Raises
    ------
    ProtocolError
        The file cannot be read, is not UTF-8, or does not parse.

    Examples
    --------
    >>> import os
    >>> protocol = load(os.path.join(PROTOCOL_DIRECTORY, "S1-v1.toml"))
    >>> protocol.id, protocol.version, protocol.source_path == os.path.join(PROTOCOL_DIRECTORY, "S1-v1.toml")
    ('S1', 1, True)
    """
    try:
        with open(path, "rb") as stream:
            text = stream.read().decode("utf-8")
    except OSError as error:
        raise ProtocolError(f"cannot read protocol {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise ProtocolError(f"protocol {path} is not UTF-8 text") from None
    return replace(parse(text, os.path.basename(path)), source_path=os.path.abspath(path))


def protocol_files(directory: str) -> list[str]:
    """The .toml files in ``directory``, sorted by name.

    Parameters
    ----------
    directory : str
        A folder of protocol files.

    Returns
    -------
    list of str
        Their paths (``directory`` joined with each name).

    Raises
    ------
    OSError
        ``directory`` cannot be listed.

    Examples
    --------
    >>> import os
    >>> "S1-v1.toml" in [os.path.basename(path) for path in protocol_files(PROTOCOL_DIRECTORY)]
    True
    """
    return [os.path.join(directory, name) for name in sorted(os.listdir(directory)) if name.endswith(".toml")]


def protocol_paths(directory: str | None = None) -> dict[str, str]:
    """{"<ID>-v<N>": path} of every registered protocol: those in ``directory`` alone when
    given, else the shipped ones plus the workspace's ``protocols/`` folder.

    Parameters
    ----------
    directory : str, optional
        The one folder to read; default the shipped protocols (``PROTOCOL_DIRECTORY``)
        and the workspace's ``protocols/``.

    Returns
    -------
    dict of str to str
        ``"<ID>-v<N>"`` -> path (a file whose name does not match keeps its name).

    Examples
    --------
    >>> "S1-v1" in protocol_paths(PROTOCOL_DIRECTORY)
    True

    Raises
    ------
    ProtocolError
        The same ``ID-vN`` is defined twice (the message names both files).
    """

    if directory is not None:
        folders = [directory]
    else:
        own = workspace.find().protocols
        folders = [PROTOCOL_DIRECTORY] + ([own] if os.path.isdir(own) else [])
    paths = {}
    for folder in folders:
        for path in protocol_files(folder):
            match = _FILE_NAME.match(os.path.basename(path))
            key = f"{match['id']}-v{int(match['version'])}" if match else os.path.basename(path)
            if key in paths:
                raise ProtocolError(
                    f"study {key} is defined twice, in {paths[key]} and in {path}; rename one "
                    "(a new version is a new file, <ID>-v<N+1>.toml)"
                )
            paths[key] = path
    return paths


def registered(directory: str | None = None) -> list[Protocol | MultiplierProtocol]:
    """All registered protocols (see :func:`protocol_paths`), sorted by id then version.

    Parameters
    ----------
    directory : str, optional
        As for :func:`protocol_paths`.

    Returns
    -------
    list of Protocol or MultiplierProtocol
        The loaded protocols (:func:`load`).

    Raises
    ------
    ProtocolError
        A protocol does not parse, or one ``ID-vN`` is defined twice.

    Examples
    --------
    >>> ids = [f"{protocol.id}-v{protocol.version}" for protocol in registered(PROTOCOL_DIRECTORY)]
    >>> "S1-v1" in ids, "S3-v1" in ids
    (True, True)
    """
    found = [load(path) for path in protocol_paths(directory).values()]
    return sorted(found, key=lambda p: (p.id, p.version))


def find(study: str, directory: str | None = None) -> Protocol | MultiplierProtocol:
    """The protocol named by ``study``: an id (newest version), ``ID-vN``, or a path to a .toml file.

    Parameters
    ----------
    study : str
        A study id (its newest version), ``"<ID>-v<N>"``, or the path of a .toml file.
    directory : str, optional
        As for :func:`protocol_paths`.

    Returns
    -------
    Protocol or MultiplierProtocol
        The loaded protocol.

    Raises
    ------
    ProtocolError
        No such file or registered study (the message lists the registered ids), or the
        protocol does not parse.

    Examples
    --------
    >>> protocol = find("S1-v1", PROTOCOL_DIRECTORY)
    >>> protocol.id, protocol.version, protocol.file_name
    ('S1', 1, 'S1-v1.toml')
    >>> find("NOPE", PROTOCOL_DIRECTORY)
    Traceback (most recent call last):
        ...
    bootmark.studies.protocol.ProtocolError: no registered study 'NOPE'; registered: ...
    """
    if study.endswith(".toml"):
        if not os.path.isfile(study):
            raise ProtocolError(
                f"no protocol file {study!r}; give an existing .toml path or a study id (see `bootmark study list`)"
            )
        return load(study)
    found = registered(directory)
    matches = [p for p in found if p.id == study or f"{p.id}-v{p.version}" == study]
    if not matches:
        known = ", ".join(sorted({p.id for p in found}))
        raise ProtocolError(f"no registered study {study!r}; registered: {known} (see `bootmark study list`)")
    return matches[-1]
