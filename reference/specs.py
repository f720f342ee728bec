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

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol

from .errors import ErrorCode, InvalidParameterError, ParameterTypeError
from .validation import as_integer, as_positive_int, as_probability

AUTO: Final = "auto"
TAPER_WINDOWS = ("tukey", "bartlett", "hann")
DEFAULT_TUKEY_TAPER_FRACTION = 0.5

# ---------------------------------------------------------------------------------------
# Type aliases of the public signatures (annotations only: nothing here is checked by
# type; the checks are the typed errors of each argument). Standard library only, so the
# reference twin still imports neither numpy nor pandas.


class _HasToList(Protocol):
    """A numpy array (or a pandas Series): the reference reads it through ``tolist()``."""

    def tolist(self) -> Any: ...


class _HasToNumpy(Protocol):
    """A pandas Series or DataFrame: the reference reads it through ``to_numpy()``."""

    def to_numpy(self) -> Any: ...


#: The data ``x``: one series of n numbers, n rows of d numbers, a numpy array (1-D or 2-D)
#: or a pandas Series / DataFrame.
DataLike = Sequence[float] | Sequence[Sequence[float]] | _HasToList | _HasToNumpy
#: A block length in observations: a positive int, or ``"auto"`` (Politis-White, from the data).
BlockLength = int | Literal["auto"]


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

    As the ``innovation`` of :class:`ResidualBootstrap` or :class:`SieveAR` it draws the
    centred residuals uniformly with replacement.

    See Also
    --------
    MovingBlock, CircularBlock, StationaryBlock : block methods for dependent data.

    Examples
    --------
    >>> from bootmark import reference
    >>> x = [0.4, 1.1, 0.9, -0.2, -0.8, -0.3]
    >>> reference.bootstrap(x, reference.IID(), n_bootstraps=2, seed=7).indices()
    [[4, 2, 3, 5, 1, 4], [5, 0, 1, 0, 4, 1]]
    >>> reference.bootstrap(x, reference.MovingBlock(1), n_bootstraps=2, seed=7).indices()
    [[4, 2, 3, 5, 1, 4], [5, 0, 1, 0, 4, 1]]
    """


@dataclass(frozen=True)
class MovingBlock:
    """Kunsch's moving-block bootstrap.

    Blocks of ``block_length`` consecutive observations start uniformly on
    [0, n - block_length]; blocks are concatenated and truncated to n.

    Parameters
    ----------
    block_length : int or "auto", default "auto"
        Observations per block, a positive int (integral floats are accepted and stored
        as ints) at most n. ``"auto"`` is resolved on the data to the Politis-White
        circular estimate (:func:`~bootmark.reference.optimal_block_length`) before any
        index is drawn; the result records the length used. A length equal to n warns
        (:class:`~bootmark.reference.BlockLengthWarning`).

    Raises
    ------
    InvalidParameterError
        Code BLOCK_LENGTH: ``block_length`` is a string other than ``"auto"``, a non-integral
        or non-finite float, or below 1 (here); or, when the data are bootstrapped, above
        the series length n.
    ParameterTypeError
        Code BLOCK_LENGTH: ``block_length`` is not a number (None, a bool, a list, ...).

    See Also
    --------
    CircularBlock : blocks that wrap around the end of the series.
    optimal_block_length : the estimate ``"auto"`` resolves to.

    Examples
    --------
    >>> from bootmark import reference
    >>> reference.MovingBlock(3)
    MovingBlock(block_length=3)
    >>> x = [0.4, 1.1, 0.9, -0.2, -0.8, -0.3, 0.5, 1.2, 0.7, -0.1]
    >>> reference.bootstrap(x, reference.MovingBlock(3), n_bootstraps=2, seed=7).indices()
    [[6, 7, 8, 2, 3, 4, 5, 6, 7, 7], [7, 8, 9, 1, 2, 3, 1, 2, 3, 1]]
    >>> reference.bootstrap(x, reference.MovingBlock("auto"), n_bootstraps=2, seed=7).method
    MovingBlock(block_length=4)
    >>> reference.MovingBlock(0)
    Traceback (most recent call last):
        ...
    bootmark.reference.errors.InvalidParameterError: block_length: must be >= 1, got 0. Fix: ... [BM201]
    """

    block_length: BlockLength = AUTO

    def __post_init__(self):
        object.__setattr__(self, "block_length", _block_length(self.block_length, "block_length"))


@dataclass(frozen=True)
class CircularBlock:
    """Politis-Romano circular block bootstrap.

    Blocks start uniformly on [0, n - 1] and wrap around the end of the series, so every
    position is drawn at the same rate.

    Parameters
    ----------
    block_length : int or "auto", default "auto"
        Observations per block, a positive int at most n, or ``"auto"``: the
        Politis-White circular estimate of the data, resolved before any index is drawn.

    Raises
    ------
    InvalidParameterError
        Code BLOCK_LENGTH: ``block_length`` is a string other than ``"auto"``, a non-integral
        or non-finite float, or below 1 (here); or, when the data are bootstrapped, above
        the series length n.
    ParameterTypeError
        Code BLOCK_LENGTH: ``block_length`` is not a number (None, a bool, a list, ...).

    See Also
    --------
    MovingBlock : blocks that stay inside the series.
    StationaryBlock : circular blocks of random (geometric) length.

    Examples
    --------
    >>> from bootmark import reference
    >>> x = [0.4, 1.1, 0.9, -0.2, -0.8, -0.3, 0.5, 1.2, 0.7, -0.1]
    >>> result = reference.bootstrap(x, reference.CircularBlock(4), n_bootstraps=2, seed=7)
    >>> result.indices()
    [[8, 9, 0, 1, 3, 4, 5, 6, 6, 7], [9, 0, 1, 2, 1, 2, 3, 4, 2, 3]]
    """

    block_length: BlockLength = AUTO

    def __post_init__(self):
        object.__setattr__(self, "block_length", _block_length(self.block_length, "block_length"))


@dataclass(frozen=True)
class NonOverlappingBlock:
    """Carlstein's non-overlapping block bootstrap.

    The series is cut into floor(n / block_length) disjoint blocks (a remainder shorter
    than a block is never drawn); blocks are drawn uniformly with replacement.

    Parameters
    ----------
    block_length : int or "auto", default "auto"
        Observations per block, a positive int at most n, or ``"auto"`` (the
        Politis-White circular estimate of the data). A length above n / 2 leaves one
        block, so every replicate is the same series: it warns
        (:class:`~bootmark.reference.BlockLengthWarning`).

    Raises
    ------
    InvalidParameterError
        Code BLOCK_LENGTH: ``block_length`` is a string other than ``"auto"``, a non-integral
        or non-finite float, or below 1 (here); or, when the data are bootstrapped, above
        the series length n.
    ParameterTypeError
        Code BLOCK_LENGTH: ``block_length`` is not a number (None, a bool, a list, ...).

    See Also
    --------
    MovingBlock : overlapping blocks.

    Examples
    --------
    >>> from bootmark import reference
    >>> x = [0.4, 1.1, 0.9, -0.2, -0.8, -0.3, 0.5, 1.2, 0.7, -0.1]
    >>> reference.bootstrap(x, reference.NonOverlappingBlock(3), n_bootstraps=2, seed=7).indices()
    [[6, 7, 8, 3, 4, 5, 3, 4, 5, 6], [6, 7, 8, 0, 1, 2, 0, 1, 2, 0]]
    """

    block_length: BlockLength = AUTO

    def __post_init__(self):
        object.__setattr__(self, "block_length", _block_length(self.block_length, "block_length"))


@dataclass(frozen=True)
class StationaryBlock:
    """Politis-Romano stationary bootstrap.

    Blocks start uniformly on [0, n - 1], wrap circularly, and have geometric lengths
    with mean ``mean_block_length`` (P(L = k) = (1 - p)^(k - 1) p, p = 1 / mean).

    Parameters
    ----------
    mean_block_length : int or "auto", default "auto"
        Mean block length in observations, a positive int at most n, or ``"auto"``: the
        Politis-White *stationary* estimate of the data, resolved before any index is
        drawn.

    Raises
    ------
    InvalidParameterError
        Code BLOCK_LENGTH: ``mean_block_length`` is a string other than ``"auto"``, a non-integral
        or non-finite float, or below 1 (here); or, when the data are bootstrapped, above
        the series length n.
    ParameterTypeError
        Code BLOCK_LENGTH: ``mean_block_length`` is not a number (None, a bool, a list, ...).

    See Also
    --------
    CircularBlock : circular blocks of fixed length.
    optimal_block_length : the estimate ``"auto"`` resolves to (``stationary_length``).

    Examples
    --------
    >>> from bootmark import reference
    >>> spec = reference.StationaryBlock(3)
    >>> spec.block_length
    3
    >>> x = [0.4, 1.1, 0.9, -0.2, -0.8, -0.3, 0.5, 1.2, 0.7, -0.1]
    >>> reference.bootstrap(x, spec, n_bootstraps=2, seed=7).indices()
    [[8, 9, 3, 4, 5, 6, 6, 7, 8, 9], [9, 1, 2, 3, 4, 5, 6, 7, 8, 9]]
    """

    mean_block_length: BlockLength = AUTO

    def __post_init__(self):
        object.__setattr__(self, "mean_block_length", _block_length(self.mean_block_length, "mean_block_length"))

    @property
    def block_length(self) -> BlockLength:
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

    Parameters
    ----------
    block_length : int or "auto", default "auto"
        Observations per block, a positive int at most n, or ``"auto"`` (the
        Politis-White circular estimate of the data).
    window : {"tukey", "bartlett", "hann"}, default "tukey"
        The taper w.
    taper_fraction : float, optional
        For ``window="tukey"`` only: the fraction of the block, in (0, 1], covered by the
        two cosine tapers (None means 0.5; 1 gives the Hann window). Stored as a float.

    Raises
    ------
    InvalidParameterError
        Code BLOCK_LENGTH: a bad ``block_length`` (as for :class:`MovingBlock`). Code
        WINDOW: an unknown ``window``; a ``taper_fraction`` with a window other than
        ``"tukey"``; a ``taper_fraction`` outside (0, 1] or not finite.
    ParameterTypeError
        Code BLOCK_LENGTH: ``block_length`` is not a number. Code WINDOW: ``window`` is
        not a string, or ``taper_fraction`` is not a number.

    See Also
    --------
    MovingBlock : the same block starts, untapered.

    Examples
    --------
    >>> from bootmark import reference
    >>> reference.TaperedBlock(4)
    TaperedBlock(block_length=4, window='tukey', taper_fraction=0.5)
    >>> reference.TaperedBlock(4, window="bartlett")
    TaperedBlock(block_length=4, window='bartlett', taper_fraction=None)
    >>> x = [0.4, 1.1, 0.9, -0.2, -0.8, -0.3, 0.5, 1.2, 0.7, -0.1]
    >>> tapered = reference.bootstrap(x, reference.TaperedBlock(4), n_bootstraps=1, seed=7).values()[0]
    >>> [round(v, 6) for v in tapered]
    [-0.064772, 0.542386, 1.427824, 0.567684, 0.694175, -0.343052, -1.101999, -0.064772,
     -0.380999, -0.469543]
    """

    block_length: BlockLength = AUTO
    window: Literal["tukey", "bartlett", "hann"] = "tukey"
    taper_fraction: float | None = None

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

    An ``AR`` is not a method: it is the ``model`` of :class:`ResidualBootstrap`.

    Parameters
    ----------
    order : int
        p, the number of lags, an int >= 0 (floats and bools are refused).

    Raises
    ------
    ParameterTypeError
        Code MODEL_ORDER: ``order`` is not an int (a float, a bool, None, a string).
    InvalidParameterError
        Code MODEL_ORDER: ``order`` is negative (here), or at or above n / 2 (when the
        data are bootstrapped).

    See Also
    --------
    ResidualBootstrap : the bootstrap that fits this model.
    ModelFit : the fitted coefficients, recorded on the result.

    Examples
    --------
    >>> from bootmark import reference
    >>> reference.AR(1)
    AR(order=1)
    >>> reference.ResidualBootstrap(reference.AR(2))
    ResidualBootstrap(model=AR(order=2), innovation=IID(), explosive='raise', design='recursive')
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

    A ``Wild`` is an ``innovation`` of :class:`ResidualBootstrap` or :class:`SieveAR`,
    not a method of its own.

    Parameters
    ----------
    distribution : {"rademacher", "mammen", "gaussian"}, default "rademacher"
        The law of the multipliers v_t.

    Raises
    ------
    ParameterTypeError
        Code MODEL: ``distribution`` is not a string.
    InvalidParameterError
        Code MODEL: ``distribution`` is not one of the three names.

    See Also
    --------
    BlockWild : one multiplier per block of residuals.

    Examples
    --------
    >>> from bootmark import reference
    >>> method = reference.ResidualBootstrap(reference.AR(1), reference.Wild("mammen"))
    >>> method.innovation
    Wild(distribution='mammen')
    >>> reference.Wild("normal")
    Traceback (most recent call last):
        ...
    bootmark.reference.errors.InvalidParameterError: distribution: unknown wild distribution 'normal'. Fix: ... [BM204]
    """

    distribution: Literal["rademacher", "mammen", "gaussian"] = "rademacher"

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

    Parameters
    ----------
    distribution : {"rademacher", "mammen", "gaussian"}, default "rademacher"
        The law of the multipliers, as for :class:`Wild`.
    block_length : int or "auto", default "auto"
        Residuals per block (at most n - p when the data are bootstrapped), or
        ``"auto"``. With 1 the errors are exactly those of ``Wild(distribution)``.

    Raises
    ------
    ParameterTypeError
        Code MODEL: ``distribution`` is not a string. Code BLOCK_LENGTH:
        ``block_length`` is not a number.
    InvalidParameterError
        Code MODEL: an unknown ``distribution``. Code BLOCK_LENGTH: ``block_length`` is
        a string other than ``"auto"``, not integral, below 1, or (when the data are
        bootstrapped) above the number of residuals n - p.

    See Also
    --------
    Wild : one multiplier per residual.
    ResidualBootstrap : where the ``design`` is chosen.

    Examples
    --------
    >>> from bootmark import reference
    >>> x = [0.4, 1.1, 0.9, -0.2, -0.8, -0.3, 0.5, 1.2, 0.7, -0.1, -0.6, 0.2]
    >>> method = reference.ResidualBootstrap(reference.AR(1), reference.BlockWild("rademacher", 3), design="fixed")
    >>> result = reference.bootstrap_reduce(x, method, "ar_coef", n_bootstraps=100, seed=7)
    >>> result.labels
    ('intercept', 'phi_1')
    >>> len(result.statistics), result.skipped
    (100, ())
    """

    distribution: Literal["rademacher", "mammen", "gaussian"] = "rademacher"
    block_length: BlockLength = AUTO

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

    Parameters
    ----------
    model : AR
        The autoregression to fit, an :class:`AR` instance (its order below n / 2).
    innovation : IID, Wild or BlockWild, default IID()
        How the synthetic errors e* are drawn from the centred residuals.
    explosive : {"raise", "skip"}, default "raise"
        What a recursive ``"ar_coef"`` refit that is explosive or singular does.
    design : {"recursive", "fixed"}, default "recursive"
        How a replicate is rebuilt from its errors (above).

    Raises
    ------
    ParameterTypeError
        Code MODEL: ``model`` is not an :class:`AR` instance (or is the class itself),
        ``innovation`` is not an IID, Wild or BlockWild instance, or ``explosive`` or
        ``design`` is not a string.
    InvalidParameterError
        Code MODEL: an unknown ``explosive`` policy or ``design``.

    See Also
    --------
    SieveAR : the same bootstrap with the order chosen from the data.
    ModelFit : the fit recorded on every result (``result.fit``).

    Notes
    -----
    Model-based methods take one series. When the data are bootstrapped, more than one
    column raises InvalidDataError (code DATA_SHAPE), an order at or above n / 2
    InvalidParameterError (code MODEL_ORDER) and a fit that is singular, explosive or has
    a unit root InvalidDataError (code MODEL_FIT). Their replicates have no source
    positions: ``indices()`` raises InvalidParameterError (code METHOD).

    Examples
    --------
    >>> from bootmark import reference
    >>> x = [0.4, 1.1, 0.9, -0.2, -0.8, -0.3, 0.5, 1.2, 0.7, -0.1, -0.6, 0.2]
    >>> method = reference.ResidualBootstrap(reference.AR(1), reference.Wild())
    >>> result = reference.bootstrap(x, method, n_bootstraps=3, seed=7)
    >>> result.fit.order, round(result.fit.coefficients[0], 6)
    (1, 0.448728)
    >>> [round(v, 6) for v in result.values()[0][:4]]
    [0.4, -0.496734, -0.385014, -0.776621]
    >>> ci = reference.conf_int(x, "ar_coef", method, alpha=0.10, n_bootstraps=200, seed=7)
    >>> {name: round(bound, 6) for name, bound in ci.lower.items()}
    {'intercept': -0.30631, 'phi_1': -0.214149}
    """

    model: AR
    innovation: Innovation = IID()
    explosive: Literal["raise", "skip"] = "raise"
    design: Literal["recursive", "fixed"] = "recursive"

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

    Parameters
    ----------
    max_order : int, optional
        P, the largest order compared, an int >= 0 below n / 2 (checked against the
        data); None for the default above. The result's method records the P used.
    criterion : {"aic", "bic"}, default "aic"
        The information criterion; the smallest order of least criterion is selected.
    innovation : IID, Wild or BlockWild, default IID()
        How the synthetic errors are drawn, as in :class:`ResidualBootstrap`.
    explosive : {"raise", "skip"}, default "raise"
        What an ``"ar_coef"`` refit that is explosive or singular does.

    Raises
    ------
    ParameterTypeError
        Code MODEL_ORDER: ``max_order`` is not an int. Code MODEL: ``criterion`` or
        ``explosive`` is not a string, or ``innovation`` is not an IID, Wild or BlockWild
        instance.
    InvalidParameterError
        Code MODEL_ORDER: ``max_order`` is negative (here) or at or above n / 2 (when the
        data are bootstrapped). Code MODEL: an unknown ``criterion`` or ``explosive``.

    See Also
    --------
    ResidualBootstrap : the bootstrap run on the selected order.
    ModelFit : ``order``, ``max_order``, ``criterion_values`` of the selection.

    Examples
    --------
    >>> from bootmark import reference
    >>> x = [0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5,
    ...      -0.1, 0.4, 0.5, -0.2, 0.7, 1.4, 1.5, 1.7, 0.6, 0.8, 1.3, 1.1]
    >>> result = reference.bootstrap(x, reference.SieveAR(max_order=3, criterion="bic"), n_bootstraps=2, seed=7)
    >>> result.method
    SieveAR(max_order=3, criterion='bic', innovation=IID(), explosive='raise')
    >>> result.fit.order, [round(v, 3) for v in result.fit.criterion_values]
    (1, [-17.792, -24.443, -21.538, -19.47])
    """

    max_order: int | None = None
    criterion: Literal["aic", "bic"] = "aic"
    innovation: Innovation = IID()
    explosive: Literal["raise", "skip"] = "raise"

    def __post_init__(self):
        if self.max_order is not None:
            object.__setattr__(self, "max_order", check_order(self.max_order, "max_order"))
        _choice(self.criterion, "criterion", SIEVE_CRITERIA, "criterion")
        _innovation(self.innovation)
        _explosive(self.explosive)


MODEL_METHODS = (ResidualBootstrap, SieveAR)
MODEL_PARTS = (AR, Wild, BlockWild)

#: A method spec instance: what ``bootstrap``, ``bootstrap_reduce`` and ``conf_int`` take.
Method = (
    IID
    | MovingBlock
    | CircularBlock
    | NonOverlappingBlock
    | StationaryBlock
    | TaperedBlock
    | ResidualBootstrap
    | SieveAR
)
#: An innovation spec instance of a model-based method.
Innovation = IID | Wild | BlockWild


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


#: A statistic: a name, ``("quantile", q)`` with q a level or a sequence of levels in
#: [0, 1], or a callable mapping one resampled series to a float or a flat sequence of
#: floats (or an already parsed :class:`Statistic`).
StatisticLike = (
    Literal["mean", "var", "std", "median", "ar_coef"]
    | tuple[Literal["quantile"], float | Sequence[float]]
    | Callable[[Any], Any]
    | Statistic
)


def check_statistic(statistic: StatisticLike) -> Statistic:
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


def check_statistic_for_method(statistic: Statistic, method: Method) -> Statistic:
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
