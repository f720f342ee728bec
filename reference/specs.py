"""Method and statistic specs: frozen, validated-at-construction descriptions of *what*
to compute. Both twins take the same specs; only the arithmetic differs.

Block lengths are counts of observations. ``"auto"`` defers the choice to the
Politis-White estimate of the data at hand (see ``blocklength.py``); the spec is then
resolved to an integer before any index is drawn.
"""

from dataclasses import dataclass, field

from .errors import ErrorCode, InvalidParameterError, ParameterTypeError
from .validation import as_positive_int, as_probability

AUTO = "auto"
TAPER_WINDOWS = ("tukey", "bartlett", "hann")
DEFAULT_TUKEY_TAPER_FRACTION = 0.5


def _block_length(value, argument):
    if isinstance(value, str):
        if value == AUTO:
            return AUTO
        raise InvalidParameterError(ErrorCode.BLOCK_LENGTH, argument,
                                    f"unknown string {value!r}", "pass a positive int or 'auto'")
    return as_positive_int(value, argument, ErrorCode.BLOCK_LENGTH,
                           "pass a positive whole number of observations or 'auto'")


@dataclass(frozen=True)
class IID:
    """Efron's i.i.d. bootstrap: n positions drawn uniformly with replacement.

    It ignores serial dependence and so understates the uncertainty of dependent data;
    it is here as the baseline. Bitwise it equals every block method with length 1.
    """


@dataclass(frozen=True)
class MovingBlock:
    """Kunsch's moving-block bootstrap.

    Blocks of ``block_length`` consecutive observations start uniformly on
    [0, n - block_length]; blocks are concatenated and truncated to n.
    """

    block_length: object = AUTO

    def __post_init__(self):
        object.__setattr__(self, "block_length", _block_length(self.block_length, "block_length"))


@dataclass(frozen=True)
class CircularBlock:
    """Politis-Romano circular block bootstrap.

    Blocks start uniformly on [0, n - 1] and wrap around the end of the series, so every
    position is drawn at the same rate.
    """

    block_length: object = AUTO

    def __post_init__(self):
        object.__setattr__(self, "block_length", _block_length(self.block_length, "block_length"))


@dataclass(frozen=True)
class NonOverlappingBlock:
    """Carlstein's non-overlapping block bootstrap.

    The series is cut into floor(n / block_length) disjoint blocks (a remainder shorter
    than a block is never drawn); blocks are drawn uniformly with replacement.
    """

    block_length: object = AUTO

    def __post_init__(self):
        object.__setattr__(self, "block_length", _block_length(self.block_length, "block_length"))


@dataclass(frozen=True)
class StationaryBlock:
    """Politis-Romano stationary bootstrap.

    Blocks start uniformly on [0, n - 1], wrap circularly, and have geometric lengths
    with mean ``mean_block_length`` (P(L = k) = (1 - p)^(k - 1) p, p = 1 / mean).
    """

    mean_block_length: object = AUTO

    def __post_init__(self):
        object.__setattr__(self, "mean_block_length",
                           _block_length(self.mean_block_length, "mean_block_length"))

    @property
    def block_length(self):
        """The mean block length, under the name every block spec shares."""
        return self.mean_block_length


@dataclass(frozen=True)
class TaperedBlock:
    """Paparoditis-Politis (2001) tapered block bootstrap.

    Block starts are those of :class:`MovingBlock`. Within a block, observation j (of
    ``block_length``) is replaced by ``mean + c * w((j + 0.5) / block_length) *
    (x - mean)`` with ``c = sqrt(block_length) / ||w||_2``, so the taper shrinks the
    block edges towards the sample mean while keeping the bootstrap variance of the mean
    on scale. The theory covers smooth functions of means; for other statistics the
    method is allowed but carries no guarantee.

    ``window`` is ``"tukey"`` (cosine tapers over ``taper_fraction`` of the block, flat
    in between; default fraction 0.5), ``"bartlett"`` (triangle) or ``"hann"``.
    """

    block_length: object = AUTO
    window: str = "tukey"
    taper_fraction: object = None

    def __post_init__(self):
        object.__setattr__(self, "block_length", _block_length(self.block_length, "block_length"))
        if not isinstance(self.window, str):
            raise ParameterTypeError(ErrorCode.WINDOW, "window", f"expected a string, got {self.window!r}",
                                     f"pass one of {', '.join(TAPER_WINDOWS)}")
        if self.window not in TAPER_WINDOWS:
            raise InvalidParameterError(ErrorCode.WINDOW, "window", f"unknown window {self.window!r}",
                                        f"pass one of {', '.join(TAPER_WINDOWS)}")
        if self.window != "tukey":
            if self.taper_fraction is not None:
                raise InvalidParameterError(ErrorCode.WINDOW, "taper_fraction",
                                            f"applies only to window='tukey', not {self.window!r}",
                                            "drop taper_fraction or use window='tukey'")
            return
        fraction = DEFAULT_TUKEY_TAPER_FRACTION if self.taper_fraction is None else self.taper_fraction
        fraction = as_probability(fraction, "taper_fraction", ErrorCode.WINDOW,
                                  "pass a fraction in (0, 1]; 1 gives the Hann window", open_interval=False)
        if fraction == 0.0:
            raise InvalidParameterError(ErrorCode.WINDOW, "taper_fraction", "must be > 0",
                                        "use MovingBlock for an untapered block, or a fraction in (0, 1]")
        object.__setattr__(self, "taper_fraction", fraction)


BLOCK_METHODS = (MovingBlock, CircularBlock, NonOverlappingBlock, StationaryBlock, TaperedBlock)
METHODS = (IID,) + BLOCK_METHODS


def check_method(method):
    """Return ``method`` if it is a method spec instance, else raise a typed error."""
    if isinstance(method, METHODS):
        return method
    if isinstance(method, type) and issubclass(method, METHODS):
        fix = f"instantiate it, e.g. {method.__name__}()" if method is IID else \
            f"instantiate it, e.g. {method.__name__}(10) or {method.__name__}('auto')"
        raise ParameterTypeError(ErrorCode.METHOD, "method", "got the class, not an instance", fix)
    raise ParameterTypeError(ErrorCode.METHOD, "method", f"expected a method spec, got {method!r}",
                             "pass IID(), MovingBlock(b), CircularBlock(b), NonOverlappingBlock(b), "
                             "StationaryBlock(b) or TaperedBlock(b)")


STATISTIC_NAMES = ("mean", "var", "std", "median")


@dataclass(frozen=True)
class Statistic:
    """A resolved statistic.

    ``kind`` is ``"mean"``, ``"var"`` (population variance, ddof=0), ``"std"``
    (its square root), ``"median"``, ``"quantile"`` (``levels`` holds one or more levels
    in [0, 1], interpolated linearly like numpy's default) or ``"callable"``
    (``function`` maps one resampled series to a number or a sequence of numbers).
    """

    kind: str
    levels: tuple = ()
    function: object = field(default=None, compare=False)

    @property
    def label(self):
        if self.kind == "quantile":
            return "quantile" + repr(self.levels if len(self.levels) > 1 else self.levels[0])
        if self.kind == "callable":
            return getattr(self.function, "__name__", "callable")
        return self.kind


def check_statistic(statistic):
    """Parse the user's ``statistic`` argument into a :class:`Statistic`."""
    fix = "pass 'mean', 'var', 'std', 'median', ('quantile', q) or a callable"
    if isinstance(statistic, Statistic):
        return statistic
    if isinstance(statistic, str):
        if statistic in STATISTIC_NAMES:
            return Statistic(statistic)
        raise InvalidParameterError(ErrorCode.STATISTIC, "statistic", f"unknown statistic {statistic!r}", fix)
    if isinstance(statistic, tuple) and len(statistic) == 2 and statistic[0] == "quantile":
        raw = statistic[1]
        levels = tuple(raw) if isinstance(raw, (tuple, list)) else (raw,)
        if not levels:
            raise InvalidParameterError(ErrorCode.QUANTILE, "statistic", "no quantile level given", fix)
        checked = tuple(as_probability(q, "statistic", ErrorCode.QUANTILE,
                                       "quantile levels lie in [0, 1], e.g. ('quantile', 0.95)",
                                       open_interval=False) for q in levels)
        if len(set(checked)) != len(checked):
            raise InvalidParameterError(ErrorCode.QUANTILE, "statistic", f"duplicate quantile levels {checked}",
                                        "list each level once")
        return Statistic("quantile", checked)
    if callable(statistic):
        return Statistic("callable", function=statistic)
    raise ParameterTypeError(ErrorCode.STATISTIC, "statistic", f"unsupported statistic {statistic!r}", fix)
