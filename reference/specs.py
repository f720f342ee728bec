"""Method and statistic specs: frozen, validated-at-construction descriptions of *what*
to compute. Both twins take the same specs; only the arithmetic differs.

Block lengths are counts of observations. ``"auto"`` defers the choice to the
Politis-White estimate of the data at hand (see ``blocklength.py``); the spec is then
resolved to an integer before any index is drawn.

Model-based methods (:class:`ResidualBootstrap`, :class:`SieveAR`) do not resample
positions: they fit an autoregression (:class:`AR`) and rebuild every replicate from
its recursion with synthetic errors drawn by an innovation spec (:class:`IID`,
:class:`Wild` or :class:`BlockWild`). ``reference/models.py`` defines them exactly.
"""

from dataclasses import dataclass, field

from .errors import ErrorCode, InvalidParameterError, ParameterTypeError
from .validation import as_integer, as_positive_int, as_probability

AUTO = "auto"
TAPER_WINDOWS = ("tukey", "bartlett", "hann")
DEFAULT_TUKEY_TAPER_FRACTION = 0.5


def _block_length(value, argument):
    if isinstance(value, str):
        if value == AUTO:
            return AUTO
        raise InvalidParameterError(
            ErrorCode.BLOCK_LENGTH, argument, f"unknown string {value!r}", "pass a positive int or 'auto'"
        )
    return as_positive_int(
        value, argument, ErrorCode.BLOCK_LENGTH, "pass a positive whole number of observations or 'auto'"
    )


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
        object.__setattr__(self, "mean_block_length", _block_length(self.mean_block_length, "mean_block_length"))

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
            raise ParameterTypeError(
                ErrorCode.WINDOW,
                "window",
                f"expected a string, got {self.window!r}",
                f"pass one of {', '.join(TAPER_WINDOWS)}",
            )
        if self.window not in TAPER_WINDOWS:
            raise InvalidParameterError(
                ErrorCode.WINDOW, "window", f"unknown window {self.window!r}", f"pass one of {', '.join(TAPER_WINDOWS)}"
            )
        if self.window != "tukey":
            if self.taper_fraction is not None:
                raise InvalidParameterError(
                    ErrorCode.WINDOW,
                    "taper_fraction",
                    f"applies only to window='tukey', not {self.window!r}",
                    "drop taper_fraction or use window='tukey'",
                )
            return
        fraction = DEFAULT_TUKEY_TAPER_FRACTION if self.taper_fraction is None else self.taper_fraction
        fraction = as_probability(
            fraction,
            "taper_fraction",
            ErrorCode.WINDOW,
            "pass a fraction in (0, 1]; 1 gives the Hann window",
            open_interval=False,
        )
        if fraction == 0.0:
            raise InvalidParameterError(
                ErrorCode.WINDOW,
                "taper_fraction",
                "must be > 0",
                "use MovingBlock for an untapered block, or a fraction in (0, 1]",
            )
        object.__setattr__(self, "taper_fraction", fraction)


BLOCK_METHODS = (MovingBlock, CircularBlock, NonOverlappingBlock, StationaryBlock, TaperedBlock)
METHODS = (IID,) + BLOCK_METHODS

# ---------------------------------------------------------------------------------------
# Model-based resampling: the model, the innovations, the methods (see models.py)

WILD_DISTRIBUTIONS = ("rademacher", "mammen", "gaussian")
SIEVE_CRITERIA = ("aic", "bic")
EXPLOSIVE_POLICIES = ("raise", "skip")
DESIGNS = ("recursive", "fixed")  # how a residual bootstrap rebuilds its replicates (models.py items 7 and 9)
_FIX_MODEL_METHOD = "e.g. ResidualBootstrap(AR(1), Wild()) or SieveAR(innovation=BlockWild('rademacher', 10))"


def _choice(value, argument, choices, what):
    """``value`` if it is one of the strings ``choices``, else a typed error (code MODEL)."""
    fix = f"pass {argument}= one of {', '.join(map(repr, choices))}"
    if not isinstance(value, str):
        raise ParameterTypeError(ErrorCode.MODEL, argument, f"expected a string, got {value!r}", fix)
    if value not in choices:
        raise InvalidParameterError(ErrorCode.MODEL, argument, f"unknown {what} {value!r}", fix)
    return value


def check_order(value, argument):
    """An autoregressive order (or a sieve's largest order) as an int >= 0; floats and
    bools are refused, as for counts. The bound below n / 2 needs the data and is
    checked by ``models.check_order_fits``."""
    fix = f"pass {argument} as a whole number of lags >= 0, e.g. 1"
    number = as_integer(value, argument, ErrorCode.MODEL_ORDER, fix, integral_floats=False)
    if number < 0:
        raise InvalidParameterError(ErrorCode.MODEL_ORDER, argument, f"must be >= 0, got {number}", fix)
    return number


@dataclass(frozen=True)
class AR:
    """Autoregression of order p >= 0 with an intercept, fitted by ordinary least squares:
    x_t = c + phi_1 x_{t-1} + ... + phi_p x_{t-p} + e_t for t = p .. n-1.

    ``AR(0)`` is allowed: x_t = c + e_t, a mean plus white noise (a sieve can select it).
    The order must be below n / 2 (checked against the data).
    """

    order: int

    def __post_init__(self):
        object.__setattr__(self, "order", check_order(self.order, "order"))


@dataclass(frozen=True)
class Wild:
    """Wild innovations: the fitted residual at time t is multiplied by its own multiplier
    v_t, drawn i.i.d. with E[v] = 0 and E[v^2] = 1, so each synthetic error keeps the
    scale of its own residual (heteroskedasticity is preserved).

    ``distribution``: ``"rademacher"`` (default; v = +-1, each with probability 1/2),
    ``"mammen"`` (two points, E[v^3] = 1 as well) or ``"gaussian"`` (standard normal).
    The exact draws are in ``models.py``.
    """

    distribution: str = "rademacher"

    def __post_init__(self):
        _choice(self.distribution, "distribution", WILD_DISTRIBUTIONS, "wild distribution")


@dataclass(frozen=True)
class BlockWild:
    """Block-wild innovations: as :class:`Wild`, but the residuals are cut into blocks of
    ``block_length`` consecutive residuals that share one multiplier, so dependence left
    in the residuals survives within a block. The block grid has a random phase drawn
    per replicate (see ``models.py``), which makes the multiplier process stationary with
    autocorrelation max(0, 1 - h / block_length) at lag h.

    ``block_length`` is a positive int (at most the number of residuals, n - p) or
    ``"auto"``: the Politis-White circular estimate of the residuals, resolved once on
    the data.

    Which design to pair it with. In ``ResidualBootstrap(..., design="fixed")`` the
    regressors stay the observed lags and the refit coefficients vary by
    (X'X)^-1 X' e*: block-wild multipliers then reproduce the block-wise sandwich
    variance, the regression analogue of Shao's (2010) dependent wild bootstrap, which is
    what a question about the AR coefficients' sampling spread needs. In the default
    ``design="recursive"`` the replicate is rebuilt through the fitted recursion, so
    y*_{t-1} carries the same multiplier as e*_t inside a block: the score terms
    y*_{t-1} e*_t lose their random sign (v^2 = 1) and the refit coefficients' spread
    *shrinks* as ``block_length`` grows (the S4 v2 study's sweep over L = 1, 4, 16, 64,
    rendered in the README from its receipt). Recursive block-wild keeps
    dependence for statistics of the rebuilt path (its mean, its variance), not for the
    refit ``"ar_coef"``, for which it warns (:class:`BlockWildDesignWarning`).
    """

    distribution: str = "rademacher"
    block_length: object = AUTO

    def __post_init__(self):
        _choice(self.distribution, "distribution", WILD_DISTRIBUTIONS, "wild distribution")
        object.__setattr__(self, "block_length", _block_length(self.block_length, "block_length"))


INNOVATIONS = (IID, Wild, BlockWild)


def _innovation(value):
    fix = "pass innovation=IID(), Wild('rademacher' | 'mammen' | 'gaussian') or BlockWild(distribution, block_length)"
    if isinstance(value, INNOVATIONS):
        return value
    if isinstance(value, type) and issubclass(value, INNOVATIONS):
        raise ParameterTypeError(
            ErrorCode.MODEL, "innovation", "got the class, not an instance", f"instantiate it, e.g. {value.__name__}()"
        )
    raise ParameterTypeError(ErrorCode.MODEL, "innovation", f"expected an innovation spec, got {value!r}", fix)


def _explosive(value):
    return _choice(value, "explosive", EXPLOSIVE_POLICIES, "explosive policy")


@dataclass(frozen=True)
class ResidualBootstrap:
    """Model-based (residual) bootstrap of an autoregression.

    The ``model`` (an :class:`AR`) is fitted to the data; synthetic errors e* are drawn
    by ``innovation``: :class:`IID` (centred residuals drawn uniformly with
    replacement), :class:`Wild` or :class:`BlockWild`. A fit to the data that is
    explosive or has a unit root is refused (InvalidDataError, code MODEL_FIT).

    ``design`` says how a replicate is rebuilt from the errors (``models.py`` items 7
    and 9):

    * ``"recursive"`` (default): each replicate keeps the first p observed values and
      runs the fitted recursion forward, x*_t = c + sum_k phi_k x*_{t-k} + e*_t, so the
      replicate is a new path of the fitted AR world;
    * ``"fixed"``: the regressors stay the observed lags. x*_t = (fitted value at t) +
      e*_t for t >= p, with the fitted value c + sum_k phi_k x_{t-k} computed from the
      *observed* x, and x*_t = x_t for t < p. ``"ar_coef"`` regresses x*_t on the
      observed (1, x_{t-1}, .., x_{t-p}), so its replicates vary by exactly
      (X'X)^-1 X' e*: with :class:`Wild` multipliers the HC0 sandwich variance, with
      :class:`BlockWild` the block-wise sandwich (which keeps the residuals' serial
      correlation), with :class:`IID` the classical fixed-design residual bootstrap.
      ``values()`` returns these x*; their lags are the observed ones, not lags of x*.
      Its draws come from streams of their own, so the recursive streams are unchanged.

    ``explosive`` governs recursive refit statistics (``"ar_coef"``): ``"raise"``
    (default) raises when a replicate's refit is explosive or singular; ``"skip"`` drops
    such replicates and records them on the result (``skipped``) with a
    SkippedReplicatesWarning. A fixed-design refit runs nothing forward and its design
    matrix is the data's, which the fit already found non-singular, so it is never
    refused. Other statistics never refit and ignore ``explosive``.
    """

    model: object
    innovation: object = IID()
    explosive: str = "raise"
    design: str = "recursive"

    def __post_init__(self):
        if isinstance(self.model, type) and issubclass(self.model, AR):
            raise ParameterTypeError(
                ErrorCode.MODEL, "model", "got the class, not an instance", "instantiate it with an order, e.g. AR(1)"
            )
        if not isinstance(self.model, AR):
            raise ParameterTypeError(
                ErrorCode.MODEL,
                "model",
                f"expected an AR model, got {self.model!r}",
                "pass AR(p), e.g. ResidualBootstrap(AR(1), Wild())",
            )
        _innovation(self.innovation)
        _explosive(self.explosive)
        _choice(self.design, "design", DESIGNS, "design")


@dataclass(frozen=True)
class SieveAR:
    """Sieve bootstrap: choose the AR order by an information criterion, then run the
    residual bootstrap (:class:`ResidualBootstrap`) of the selected AR.

    Orders 0 .. ``max_order`` are compared on a common sample; ``max_order`` None means
    min(floor(10 log10 n), the largest order below n / 2). ``criterion`` is ``"aic"``
    (default) or ``"bic"``. The selected order is recorded on the result
    (``result.fit.order``). ``innovation`` and ``explosive`` are as in
    :class:`ResidualBootstrap`.
    """

    max_order: object = None
    criterion: str = "aic"
    innovation: object = IID()
    explosive: str = "raise"

    def __post_init__(self):
        if self.max_order is not None:
            object.__setattr__(self, "max_order", check_order(self.max_order, "max_order"))
        _choice(self.criterion, "criterion", SIEVE_CRITERIA, "criterion")
        _innovation(self.innovation)
        _explosive(self.explosive)


MODEL_METHODS = (ResidualBootstrap, SieveAR)
MODEL_PARTS = (AR, Wild, BlockWild)


def is_model_method(method):
    """Whether ``method`` rebuilds replicates from a fitted model instead of resampling."""
    return isinstance(method, MODEL_METHODS)


def check_method(method):
    """Return ``method`` if it is a method spec instance, else raise a typed error."""
    if isinstance(method, METHODS + MODEL_METHODS):
        return method
    part = method if isinstance(method, type) else type(method)
    if issubclass(part, MODEL_PARTS):
        raise ParameterTypeError(
            ErrorCode.METHOD,
            "method",
            f"{part.__name__} is part of a model-based method, not a method",
            f"wrap it in ResidualBootstrap or SieveAR, {_FIX_MODEL_METHOD}",
        )
    if isinstance(method, type) and issubclass(method, METHODS + MODEL_METHODS):
        if method is IID:
            fix = "instantiate it, e.g. IID()"
        elif method in MODEL_METHODS:
            fix = f"instantiate it, {_FIX_MODEL_METHOD}"
        else:
            fix = f"instantiate it, e.g. {method.__name__}(10) or {method.__name__}('auto')"
        raise ParameterTypeError(ErrorCode.METHOD, "method", "got the class, not an instance", fix)
    raise ParameterTypeError(
        ErrorCode.METHOD,
        "method",
        f"expected a method spec, got {method!r}",
        "pass IID(), MovingBlock(b), CircularBlock(b), NonOverlappingBlock(b), "
        "StationaryBlock(b), TaperedBlock(b), ResidualBootstrap(AR(p), innovation) or "
        "SieveAR()",
    )


STATISTIC_NAMES = ("mean", "var", "std", "median")
REFIT_STATISTICS = ("ar_coef",)  # refit the model on each replicate: model-based methods only


def coefficient_labels(order):
    """Names of the p + 1 components of ``"ar_coef"``: intercept, then phi_1 .. phi_p."""
    return ("intercept",) + tuple(f"phi_{k}" for k in range(1, order + 1))


@dataclass(frozen=True)
class Statistic:
    """A resolved statistic.

    ``kind`` is ``"mean"``, ``"var"`` (population variance, ddof=0), ``"std"``
    (its square root), ``"median"``, ``"quantile"`` (``levels`` holds one or more levels
    in [0, 1], interpolated linearly like numpy's default), ``"ar_coef"`` (the AR model
    refitted to each replicate: p + 1 components, intercept then phi_1 .. phi_p;
    model-based methods only) or ``"callable"`` (``function`` maps one resampled series
    to a number or a sequence of numbers).
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
    fix = "pass 'mean', 'var', 'std', 'median', ('quantile', q), a callable, or 'ar_coef' with a model-based method"
    if isinstance(statistic, Statistic):
        return statistic
    if isinstance(statistic, str):
        if statistic in STATISTIC_NAMES + REFIT_STATISTICS:
            return Statistic(statistic)
        raise InvalidParameterError(ErrorCode.STATISTIC, "statistic", f"unknown statistic {statistic!r}", fix)
    if isinstance(statistic, tuple) and len(statistic) == 2 and statistic[0] == "quantile":
        raw = statistic[1]
        levels = tuple(raw) if isinstance(raw, (tuple, list)) else (raw,)
        if not levels:
            raise InvalidParameterError(ErrorCode.QUANTILE, "statistic", "no quantile level given", fix)
        checked = tuple(
            as_probability(
                q,
                "statistic",
                ErrorCode.QUANTILE,
                "quantile levels lie in [0, 1], e.g. ('quantile', 0.95)",
                open_interval=False,
            )
            for q in levels
        )
        if len(set(checked)) != len(checked):
            raise InvalidParameterError(
                ErrorCode.QUANTILE, "statistic", f"duplicate quantile levels {checked}", "list each level once"
            )
        return Statistic("quantile", checked)
    if callable(statistic):
        return Statistic("callable", function=statistic)
    raise ParameterTypeError(ErrorCode.STATISTIC, "statistic", f"unsupported statistic {statistic!r}", fix)


def check_statistic_for_method(statistic, method):
    """Refuse a refit statistic (``"ar_coef"``) with a method that fits no model."""
    if statistic.kind in REFIT_STATISTICS and not is_model_method(method):
        raise InvalidParameterError(
            ErrorCode.STATISTIC,
            "statistic",
            f"{statistic.kind!r} refits an AR model on every replicate and needs a "
            f"model-based method, not {type(method).__name__}",
            "pass method=ResidualBootstrap(AR(p), ...) or SieveAR(...), or a statistic such as 'mean'",
        )
    return statistic
