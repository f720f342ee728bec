"""Model-based resampling: the AR fit, the synthetic errors, the rebuilt replicates.

This is the specification of :class:`~reference.specs.ResidualBootstrap` and
:class:`~reference.specs.SieveAR`. Units: x is in the data's units, orders and block
lengths count observations, t indexes time 0 .. n-1, and u = 2**-53.

1. **Fit** (ordinary least squares with an intercept). m = fsum(x) / n and w_t = x_t - m:
   the fit is computed on the centred series, which gives the same least-squares
   solution with far better conditioned normal equations. For order q and first equation
   s >= q, w_t is regressed on (1, w_{t-1}, .., w_{t-q}) for t = s .. n-1 (N = n - s
   equations). The normal equations A beta = b have, with every sum over t = s .. n-1
   a correctly rounded math.fsum of the rounded products:
   A[0][0] = N, A[0][k] = A[k][0] = sum w_{t-k}, A[j][k] = A[k][j] = sum w_{t-j} w_{t-k},
   b[0] = sum w_t, b[k] = sum w_t w_{t-k} (1 <= j <= k <= q). A is symmetric positive
   definite, for which Gaussian elimination in natural order (no pivoting: it is backward
   stable here, as Cholesky is) is used: for i = 0 .. q, rows r > i get
   f = A[r][i] / A[i][i], A[r][c] = A[r][c] - f A[i][c] (c > i), b[r] = b[r] - f b[i];
   then beta_i = (((b_i - A[i][i+1] beta_{i+1}) - A[i][i+2] beta_{i+2}) - ...) / A[i][i],
   i = q .. 0. The design is **singular** when a pivot A[i][i] (after the elimination of
   the earlier columns) is not above ``SINGULAR_TOLERANCE`` (2**-32) times the diagonal
   entry it started as: regressor i then keeps less than a 2**-32 share of its sum of
   squares once the earlier regressors are projected out (collinear lags, e.g. a
   constant series). beta = (c_w, phi_1 .. phi_q); the intercept in data units is
   c = c_w + m (1 - s) with s = ((phi_1 + phi_2) + ...) + phi_q summed from 0.0.
2. **Residuals.** r_t = w_t - f_t for t = p .. n-1 (M = n - p of them), with the fitted
   value f_t = (((c_w + phi_p w_{t-p}) + phi_{p-1} w_{t-p+1}) + ..) + phi_1 w_{t-1}
   accumulated from the oldest lag to the newest (so that in the rebuild below the newest
   value enters last and each step's dependency chain is one multiply and two adds,
   whatever p). They are centred, e_j = r_{p+j} - fsum(r) / M
   (least squares with an intercept leaves a mean of rounding size only), and not
   rescaled for degrees of freedom.
3. **Stationarity.** The fit is stationary iff every root of 1 - phi_1 z - .. - phi_p z^p
   lies outside the unit circle, i.e. iff the companion matrix has spectral radius < 1.
   It is decided without roots, by the step-down (Schur-Cohn, reversed Levinson-Durbin)
   recursion: a = phi; for k = p .. 1, kappa = a_k (the fitted partial autocorrelation
   at lag k) must satisfy |kappa| < 1, then a_j = (a_j + kappa a_{k-j}) / (1 - kappa^2)
   for j = 1 .. k-1. For p = 1 this is |phi_1| < 1; AR(0) is always stationary. A fit to
   the data that is singular or not stationary (companion spectral radius >= 1: unit root
   or explosive) raises InvalidDataError, code MODEL_FIT, argument ``x``: an explosive
   recursion cannot be run forward.
4. **Orders** must satisfy 2 p < n (below n / 2), else InvalidParameterError (code
   MODEL_ORDER): then N = n - p >= p + 1 equations for p + 1 unknowns.
5. **Sieve.** P = ``max_order``, or by default min(floor(10 log10 n), (n - 1) // 2), the
   first term computed exactly as (number of decimal digits of n**10) - 1. Every order
   q = 0 .. P is fitted on the common sample t = P .. n-1 (N = n - P); RSS_q = fsum of its
   squared residuals (uncentred); AIC_q = N ln(RSS_q / N) + 2 (q + 1) and
   BIC_q = N ln(RSS_q / N) + (q + 1) ln N (RSS_q = 0 gives -inf, a singular fit +inf,
   never selected). The selected order is the smallest q of least criterion; it is then
   refitted on its full sample t = q .. n-1 (items 1-3) and recorded in ``ModelFit``.
6. **Synthetic errors** e*_j, j = 0 .. M-1, of replicate b (key of (seed, b)):
   * ``IID()``: e*_j = e_{U_j}, U_j = bounded(M) (Lemire) drawn in order of j from the
     replicate's ``Purpose.RESIDUAL_INDEX`` stream;
   * ``Wild(d)``: e*_j = V_j e_j, V_k the k-th multiplier (below) of the
     ``Purpose.WILD_MULTIPLIER`` stream;
   * ``BlockWild(d, L)``: the phase U = bounded(L) is the first draw of the
     ``Purpose.BLOCK_WILD_OFFSET`` stream; residual j lies in block floor((j + U) / L)
     and e*_j = V_{floor((j + U) / L)} e_j. The first block holds L - U residuals, the
     others L, the last is cut at M. The random phase makes the multiplier process
     stationary with correlation max(0, 1 - h / L) at lag h (a fixed grid would give
     correlation 1 or 0 depending on where a pair of times falls). With L = 1 the
     errors are exactly those of ``Wild(d)``.
   Multiplier k (k = 0, 1, ..) of the ``WILD_MULTIPLIER`` stream:
   * rademacher: bit (k mod 32) (bit 0 the least significant) of word floor(k / 32):
     +1.0 if set, else -1.0. Exactly E v = 0, E v^2 = 1, E v^3 = 0.
   * mammen: word k; v = ``MAMMEN_LOW`` = (1 - sqrt 5) / 2 if word < ``MAMMEN_THRESHOLD``
     else ``MAMMEN_HIGH`` = (1 + sqrt 5) / 2. The threshold is T = floor(2**32 p) for
     p = (sqrt 5 + 1) / (2 sqrt 5) = (5 + sqrt 5) / 10, computed exactly in integers as
     (5 * 2**32 + isqrt(5 * 2**64)) // 10 = 3107867531. So P(low) = T / 2**32 = p - delta,
     delta = 1.16286e-10 (0.49945 * 2**-32), and on the exact two values
     E v = sqrt5 delta = 2.60024e-10, E v^2 = 1 + sqrt5 delta, E v^3 = 1 + 2 sqrt5 delta
     = 1 + 5.20048e-10. The stored doubles (sqrt 5 correctly rounded, then +-1 and /2, all
     exact or correctly rounded) lie within 5.5e-17 of the exact values.
   * gaussian (Box-Muller): pair i uses Philox block i of the stream (words 4i .. 4i+3):
     u1 = uniform53 of words 4i, 4i+1 and u2 = uniform53 of words 4i+2, 4i+3 (see
     draws.py); radius = sqrt(-2 ln(1 - u1)) (1 - u1 is exact and in (0, 1]),
     angle = ``TWO_PI`` * u2; V_2i = radius cos(angle), V_2i+1 = radius sin(angle).
     log, cos and sin come from libm, so these are the one draw the twins compare
     within a tolerance (docs/streams.md): within ``GAUSSIAN_TOLERANCE`` = 2**-48 absolute
     (|V| <= 8.58); every other draw here is integer arithmetic, bitwise equal.
7. **Rebuild.** Initial values: every replicate starts with the observed x_0 .. x_{p-1}
   (x*_t = x_t exactly for t < p), so replicates are conditional on the start as the
   residuals are, and no burn-in is needed: the start is a stretch of the observed
   (stationary) series, not an arbitrary value whose transient must wash out; a
   replicate has the length n of the data. With y*_t = w_t (t < p),
   y*_t = f*_t + e*_{t-p} for t = p .. n-1 in ascending order, f*_t accumulated as f_t in
   item 2 (c_w, then phi_p y*_{t-p}, .., phi_1 y*_{t-1}), and x*_t = m + y*_t.
8. **Refit** (statistic ``"ar_coef"``): item 1 with the same order p applied to x* (a
   sieve's order is not selected again), giving (c, phi_1 .. phi_p) in data units. A refit
   that is singular or not stationary is settled by the method's ``explosive`` policy:
   ``"raise"`` raises InvalidDataError (code MODEL_FIT, argument ``explosive``) naming the
   first such replicate; ``"skip"`` drops those replicates, records their numbers on the
   result (``skipped``) and warns (SkippedReplicatesWarning); if every replicate is
   dropped it raises.
9. **Fixed design** (``ResidualBootstrap(..., design="fixed")``). The regressors stay
   the observed lags. The fitted values of item 2, f_t for t = p .. n-1, are computed
   once from the observed centred series w; replicate b's synthetic errors e*_j are
   drawn as in item 6 but from the streams ``Purpose.FIXED_RESIDUAL_INDEX``,
   ``Purpose.FIXED_WILD_MULTIPLIER`` and ``Purpose.FIXED_BLOCK_WILD_OFFSET`` (same
   rules, other purposes); then x*_t = x_t for t < p and x*_t = m + (f_t + e*_{t-p})
   for t = p .. n-1. There is no recursion: x*_{t-1} never enters x*_t.
   Its refit (``"ar_coef"``) regresses x*_t on the *observed* (1, x_{t-1}, .., x_{t-p}),
   t = p .. n-1: with w*_t = x*_t - m, the normal equations are the data's A of item 1
   (start p) and b*_0 = fsum(w*_t), b*_k = fsum(w*_t w_{t-k}); beta* = solve(A, b*) and
   c* = c*_w + m (1 - s*) as in item 1. Since A is the data's, whose fit was found
   non-singular, no refit is singular, and since nothing is run forward from a refit,
   its stationarity is not asked: fixed-design refits are never skipped. With
   z_t = (1, w_{t-1}, .., w_{t-p})' the regressor row and Z the matrix of the z_t,
   linearity gives beta* - beta = A^-1 Z' e*, so Wild multipliers (E v = 0, E v^2 = 1)
   give the HC0 sandwich A^-1 (sum_t z_t z_t' e_t^2) A^-1 as the bootstrap variance
   and BlockWild the block-wise sandwich averaged over the phases
   (tests/test_fixed_design.py checks both, and the L = M enumeration).

Stream contract: replicate b's draws depend only on (seed, b). The purposes are new
(RESIDUAL_INDEX = 3, WILD_MULTIPLIER = 4, BLOCK_WILD_OFFSET = 5; for the fixed design
FIXED_RESIDUAL_INDEX = 6, FIXED_WILD_MULTIPLIER = 7, FIXED_BLOCK_WILD_OFFSET = 8), so no
existing stream shifts and STREAM_VERSION is unchanged. tests/goldens/models_v<N>.json
pins the recursive streams and tests/goldens/models_fixed_v<N>.json the fixed-design
ones. The shared procedure (``resolve_model``, ``settle_refits``, the errors) takes the
twin's arithmetic as a :class:`ModelArithmetic`, so the engine reuses the rules and
computes every number itself.
"""

import math
from dataclasses import dataclass, field, replace

from .blocklength import estimate_block_length
from .data import Series
from .draws import Purpose, WordStream
from .errors import (
    BlockWildDesignWarning,
    ErrorCode,
    InvalidDataError,
    InvalidParameterError,
    SkippedReplicatesWarning,
    warn_at_caller,
)
from .keys import root_key, stream_key
from .specs import AUTO, IID, BlockWild, SieveAR, Wild, coefficient_labels

SINGULAR_TOLERANCE = 2.0**-32  # pivot / starting diagonal at or below which a design is singular
MAMMEN_THRESHOLD = (5 * 2**32 + math.isqrt(5 * 2**64)) // 10  # floor(2**32 (5 + sqrt 5) / 10), exactly
MAMMEN_LOW = (1.0 - math.sqrt(5.0)) / 2.0  # drawn with probability MAMMEN_THRESHOLD / 2**32
MAMMEN_HIGH = (1.0 + math.sqrt(5.0)) / 2.0
TWO_PI = 2.0 * math.pi  # exact doubling of the double nearest pi
GAUSSIAN_TOLERANCE = 2.0**-48  # |engine - reference| allowed for a Gaussian multiplier (libm)
FIT_OK, FIT_EXPLOSIVE, FIT_SINGULAR = 0, 1, 2  # status of a fit or refit
RECURSIVE, FIXED = "recursive", "fixed"  # the designs of specs.DESIGNS


@dataclass(frozen=True)
class ErrorStreams:
    """The stream purposes of one design's draws (items 6 and 9): which residual each
    IID error is, the wild multipliers, and the block-wild phase."""

    residual_index: Purpose
    multiplier: Purpose
    offset: Purpose


RECURSIVE_STREAMS = ErrorStreams(Purpose.RESIDUAL_INDEX, Purpose.WILD_MULTIPLIER, Purpose.BLOCK_WILD_OFFSET)
FIXED_STREAMS = ErrorStreams(
    Purpose.FIXED_RESIDUAL_INDEX, Purpose.FIXED_WILD_MULTIPLIER, Purpose.FIXED_BLOCK_WILD_OFFSET
)


def design_of(method):
    """``"fixed"`` or ``"recursive"``: a SieveAR always rebuilds recursively."""
    return getattr(method, "design", RECURSIVE)


def error_streams(method):
    """The :class:`ErrorStreams` of a model-based method's design."""
    return FIXED_STREAMS if design_of(method) == FIXED else RECURSIVE_STREAMS


def warn_if_recursive_block_wild(method, statistic_kind):
    """Warn (:class:`BlockWildDesignWarning`) when ``"ar_coef"`` is asked of a recursive
    block-wild bootstrap, whose refit spread shrinks as the block length grows;
    ``method`` is resolved (its block length an int), and a length of 1 is Wild's."""
    if statistic_kind != "ar_coef" or not isinstance(method.innovation, BlockWild) or design_of(method) == FIXED:
        return
    if method.innovation.block_length == 1:  # one multiplier per error: the plain Wild bootstrap
        return
    fix = (
        "ResidualBootstrap(AR(p), BlockWild(...), design='fixed')"
        if hasattr(method, "design")
        else "ResidualBootstrap(AR(p), BlockWild(...), design='fixed') with the sieve's selected order"
    )
    warn_at_caller(
        "recursive block-wild refits share a multiplier between y*_{t-1} and e*_t within a block, which "
        "shrinks the AR coefficients' bootstrap spread as the block length grows (intervals too narrow); "
        f"for the coefficients' sampling spread use {fix}",
        BlockWildDesignWarning,
    )


# ---------------------------------------------------------------------------------------
# What a fit is, and the rules both twins share (their arithmetic is passed in)


@dataclass(frozen=True)
class ModelFit:
    """The AR model fitted to the data: x_t = intercept + sum_k coefficients[k-1] x_{t-k} + e_t.

    ``order`` is p (a sieve's selected order), ``intercept`` and ``coefficients``
    (phi_1 .. phi_p) are in data units, ``mean`` is the centring constant m,
    ``residual_count`` is M = n - p. A sieve also records ``max_order`` (P),
    ``criterion`` and ``criterion_values`` (orders 0 .. P, on the common sample).

    Recorded as ``fit`` on every result of a model-based method (ResidualBootstrap,
    SieveAR) by both twins; the engine's fit is bitwise the reference's. How it is
    computed (least squares on the centred series, the stationarity check, the sieve's
    criteria) is items 1-5 of this module's docstring.

    Attributes
    ----------
    order : int
        p, the number of lags (for a sieve, the selected order).
    intercept : float
        c, in the data's units.
    coefficients : tuple of float
        phi_1 .. phi_p.
    mean : float
        m, the mean of the data, around which the fit is computed.
    residual_count : int
        M = n - p, the number of residuals the synthetic errors are drawn from.
    max_order : int or None
        P, the largest order a sieve compared; None for ResidualBootstrap.
    criterion : {"aic", "bic"} or None
        The sieve's criterion; None for ResidualBootstrap.
    criterion_values : tuple of float
        The criterion of orders 0 .. P on the common sample (+inf for a singular fit,
        -inf for a perfect one); empty for ResidualBootstrap.

    See Also
    --------
    bootmark.reference.ResidualBootstrap, bootmark.reference.SieveAR : the methods that fit it.

    Examples
    --------
    >>> from bootmark import reference
    >>> x = [0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5,
    ...      -0.1, 0.4, 0.5, -0.2, 0.7, 1.4, 1.5, 1.7, 0.6, 0.8, 1.3, 1.1]
    >>> fit = reference.bootstrap(x, reference.ResidualBootstrap(reference.AR(1)), n_bootstraps=1, seed=0).fit
    >>> fit.order, fit.residual_count, fit.labels
    (1, 23, ('intercept', 'phi_1'))
    >>> [round(v, 6) for v in fit.components]
    [0.216086, 0.609403]
    >>> sieve = reference.bootstrap(x, reference.SieveAR(max_order=3), n_bootstraps=1, seed=0).fit
    >>> sieve.order, sieve.max_order, sieve.criterion, len(sieve.criterion_values)
    (1, 3, 'aic', 4)
    """

    order: int
    intercept: float
    coefficients: tuple[float, ...]
    mean: float
    residual_count: int
    max_order: int | None = None
    criterion: str | None = None
    criterion_values: tuple[float, ...] = ()

    @property
    def components(self) -> tuple[float, ...]:
        """(intercept, phi_1, .., phi_p): the ``"ar_coef"`` statistic of the data."""
        return (self.intercept,) + self.coefficients

    @property
    def labels(self) -> tuple[str, ...]:
        """("intercept", "phi_1", .., "phi_p"): the names of :attr:`components`."""
        return coefficient_labels(self.order)


@dataclass(frozen=True)
class ResolvedModel:
    """A model-based method ready to draw: the resolved spec (sieve order bound and
    ``"auto"`` block length filled in), the public fit, the intercept c_w of the centred
    recursion and the M centred residuals e_j (in the twin's own container)."""

    method: object
    fit: ModelFit
    centred_intercept: float
    residuals: object = field(repr=False)


@dataclass(frozen=True)
class ModelArithmetic:
    """One twin's arithmetic for the shared rules (each item as items 1-3 define it).

    ``centre(values) -> (m, w)``; ``normal_equations(w, q, s) -> (A, b)``;
    ``solve(A, b, size) -> beta (floats) or None`` on the leading size x size system;
    ``residuals(w, beta, s)`` (uncentred); ``sum_of_squares(r) -> float``;
    ``centred(r)``; ``stationary(phi) -> bool``; ``block_length(residuals) -> int``, the
    resolved Politis-White circular length of the residuals.
    """

    centre: object
    normal_equations: object
    solve: object
    residuals: object
    sum_of_squares: object
    centred: object
    stationary: object
    block_length: object


def intercept_in_data_units(centred_intercept, phi, mean):
    """c = c_w + m (1 - s), s the left-to-right sum of the phi_k from 0.0."""
    total = 0.0
    for coefficient in phi:
        total = total + coefficient
    return centred_intercept + mean * (1.0 - total)


def check_univariate(series):
    if series.d != 1:
        raise InvalidDataError(
            ErrorCode.DATA_SHAPE,
            "x",
            f"{series.d} columns: a model-based method fits one series",
            "pass one series (a 1-D array or one column)",
        )


def check_order_fits(order, n, argument):
    """``order`` if 2 order < n, else the MODEL_ORDER error naming ``argument``."""
    if 2 * order >= n:
        raise InvalidParameterError(
            ErrorCode.MODEL_ORDER,
            argument,
            f"{order} is at or above n / 2 = {n / 2:g}: too few equations to fit",
            f"pass an order of at most {(n - 1) // 2} for n = {n}, or a longer series",
        )
    return order


def default_max_order(n):
    """min(floor(10 log10 n), (n - 1) // 2), the first term exact: digits of n**10 - 1."""
    return min(len(str(n**10)) - 1, (n - 1) // 2)


def criterion_value(criterion, rss, count, order):
    """AIC or BIC of an AR(order) with residual sum of squares ``rss`` on ``count`` equations."""
    if rss == 0.0:
        return -math.inf
    penalty = 2.0 * (order + 1) if criterion == "aic" else (order + 1) * math.log(count)
    return count * math.log(rss / count) + penalty


def sieve_criteria(w, max_order, criterion, arithmetic):
    """Criterion values of orders 0 .. max_order on the common sample t = max_order .. n-1
    (the leading blocks of one set of normal equations)."""
    a, b = arithmetic.normal_equations(w, max_order, max_order)
    count = len(w) - max_order
    values = []
    for order in range(max_order + 1):
        beta = arithmetic.solve(a, b, order + 1)
        if beta is None:
            values.append(math.inf)
            continue
        rss = arithmetic.sum_of_squares(arithmetic.residuals(w, beta, max_order))
        values.append(criterion_value(criterion, rss, count, order))
    return tuple(values)


def fit_error(status, order, phi=()):
    """The error for a fit to the data that is singular or not stationary."""
    if status == FIT_SINGULAR:
        return InvalidDataError(
            ErrorCode.MODEL_FIT,
            "x",
            f"the AR({order}) least-squares design is singular: the lagged values are collinear "
            "(e.g. a constant series)",
            "pass a series that varies, or a lower order",
        )
    shown = ", ".join(f"{v:.6g}" for v in phi)
    return InvalidDataError(
        ErrorCode.MODEL_FIT,
        "x",
        f"the fitted AR({order}) (phi = {shown}) is not stationary: its companion spectral "
        "radius is >= 1 (a unit root or explosive), so its recursion cannot be run forward",
        "difference or detrend the series first (e.g. np.diff(x)), or use a block method",
    )


def refit_error(status, order, replicate):
    """The error for a replicate's refit under ``explosive="raise"``."""
    what = "singular" if status == FIT_SINGULAR else "explosive or unit-root (companion spectral radius >= 1)"
    return InvalidDataError(
        ErrorCode.MODEL_FIT,
        "explosive",
        f"the AR({order}) refit of replicate {replicate} is {what}",
        "pass explosive='skip' to the method to drop such replicates (they are recorded in result.skipped)",
    )


def settle_refits(statuses, policy, order):
    """Apply the ``explosive`` policy to the B refit statuses (replicate order): return the
    tuple of skipped replicate numbers, or raise."""
    bad = [replicate for replicate, status in enumerate(statuses) if status != FIT_OK]
    if not bad:
        return ()
    if policy == "raise":
        raise refit_error(statuses[bad[0]], order, bad[0])
    if len(bad) == len(statuses):
        raise InvalidDataError(
            ErrorCode.MODEL_FIT,
            "x",
            f"all {len(bad)} replicate AR({order}) refits are explosive or singular",
            "difference the series, lower the order, or use a block method",
        )
    warn_at_caller(
        f"{len(bad)} of {len(statuses)} replicates skipped: their AR({order}) refit was explosive or "
        "singular (see result.skipped)",
        SkippedReplicatesWarning,
    )
    return tuple(bad)


def no_indices_error(method):
    return InvalidParameterError(
        ErrorCode.METHOD,
        "method",
        f"{type(method).__name__} rebuilds every replicate from a fitted model, so its "
        "replicates have no source positions",
        "use values() for the replicate series",
    )


def _resolve_innovation(innovation, residuals, block_length):
    if not isinstance(innovation, BlockWild):
        return innovation
    count = len(residuals)
    length = block_length(residuals) if innovation.block_length == AUTO else innovation.block_length
    if length > count:
        raise InvalidParameterError(
            ErrorCode.BLOCK_LENGTH,
            "block_length",
            f"{length} exceeds the number of residuals n - p = {count}",
            f"pass a length between 1 and {count}, or 'auto'",
        )
    return replace(innovation, block_length=length)


def resolve_model(method, series, arithmetic):
    """Fit a model-based ``method`` to a checked ``series`` with the twin's ``arithmetic``;
    return the :class:`ResolvedModel` (items 1-6)."""
    check_univariate(series)
    n = series.n
    mean, w = arithmetic.centre(series)
    sieve = {}
    if isinstance(method, SieveAR):
        max_order = (
            default_max_order(n) if method.max_order is None else check_order_fits(method.max_order, n, "max_order")
        )
        values = sieve_criteria(w, max_order, method.criterion, arithmetic)
        order = values.index(min(values))  # the first of equal values: the smallest order
        sieve = {"max_order": max_order, "criterion": method.criterion, "criterion_values": values}
    else:
        order = check_order_fits(method.model.order, n, "order")
    a, b = arithmetic.normal_equations(w, order, order)
    beta = arithmetic.solve(a, b, order + 1)
    if beta is None:
        raise fit_error(FIT_SINGULAR, order)
    phi = tuple(beta[1:])
    if not arithmetic.stationary(phi):
        raise fit_error(FIT_EXPLOSIVE, order, phi)
    residuals = arithmetic.centred(arithmetic.residuals(w, beta, order))
    innovation = _resolve_innovation(method.innovation, residuals, arithmetic.block_length)
    fit = ModelFit(order, intercept_in_data_units(beta[0], phi, mean), phi, mean, n - order, **sieve)
    resolved = replace(method, innovation=innovation, **({"max_order": sieve["max_order"]} if sieve else {}))
    return ResolvedModel(resolved, fit, beta[0], residuals)


# ---------------------------------------------------------------------------------------
# The reference's arithmetic (lists of floats, math.fsum)


def centre_values(values):
    """(m, w): m = fsum(values) / n and w = values - m."""
    mean = math.fsum(values) / len(values)
    return mean, [v - mean for v in values]


def normal_equations(w, order, start):
    """(A, b) of item 1 for order ``order`` and equations t = start .. n-1."""
    rows = range(start, len(w))
    size = order + 1
    a = [[0.0] * size for _ in range(size)]
    b = [0.0] * size
    a[0][0] = float(len(w) - start)
    b[0] = math.fsum(w[t] for t in rows)
    for k in range(1, size):
        a[0][k] = a[k][0] = math.fsum(w[t - k] for t in rows)
        b[k] = math.fsum(w[t] * w[t - k] for t in rows)
        for j in range(1, k + 1):
            a[j][k] = a[k][j] = math.fsum(w[t - j] * w[t - k] for t in rows)
    return a, b


def solve(a, b, size):
    """beta solving the leading ``size`` x ``size`` system by elimination without pivoting
    (item 1), or None if the design is singular."""
    a = [list(row[:size]) for row in a[:size]]
    b = list(b[:size])
    diagonal = [a[i][i] for i in range(size)]
    for i in range(size):
        pivot = a[i][i]
        if not pivot > SINGULAR_TOLERANCE * diagonal[i]:
            return None
        for r in range(i + 1, size):
            factor = a[r][i] / pivot
            for c in range(i + 1, size):
                a[r][c] = a[r][c] - factor * a[i][c]
            b[r] = b[r] - factor * b[i]
    beta = [0.0] * size
    for i in range(size - 1, -1, -1):
        total = b[i]
        for c in range(i + 1, size):
            total = total - a[i][c] * beta[c]
        beta[i] = total / a[i][i]
    return beta


def fitted_residuals(w, beta, start):
    """r_t = w_t - f_t for t = start .. n-1 (item 2, uncentred)."""
    return [w[t] - f for t, f in zip(range(start, len(w)), fitted_values(w, beta, start), strict=True)]


def sum_of_squares(values):
    return math.fsum(v * v for v in values)


def centred(values):
    centre = math.fsum(values) / len(values)
    return [v - centre for v in values]


def is_stationary(phi):
    """Whether the AR with coefficients ``phi`` is stationary (item 3, step-down test)."""
    a = list(phi)
    for k in range(len(a), 0, -1):
        kappa = a[k - 1]
        if not abs(kappa) < 1.0:
            return False
        scale = 1.0 - kappa * kappa
        a = [(a[j] + kappa * a[k - 2 - j]) / scale for j in range(k - 1)]
    return True


def residual_block_length(residuals):
    """``"auto"`` for BlockWild: the resolved Politis-White circular length of the residuals."""
    return estimate_block_length(Series((list(residuals),), True)).circular_length


ARITHMETIC = ModelArithmetic(
    lambda series: centre_values(series.columns[0]),
    normal_equations,
    solve,
    fitted_residuals,
    sum_of_squares,
    centred,
    is_stationary,
    residual_block_length,
)


# ---------------------------------------------------------------------------------------
# Draws and replicates (item 6-8)


def multipliers(distribution, count, key, purpose=Purpose.WILD_MULTIPLIER):
    """The first ``count`` multipliers of replicate ``key``'s multiplier stream
    (``purpose``: WILD_MULTIPLIER, or FIXED_WILD_MULTIPLIER for the fixed design)."""
    stream = WordStream(key, purpose)
    if distribution == "rademacher":
        out, word = [], 0
        for k in range(count):
            if k % 32 == 0:
                word = stream.word()
            out.append(1.0 if (word >> (k % 32)) & 1 else -1.0)
        return out
    if distribution == "mammen":
        return [MAMMEN_LOW if stream.word() < MAMMEN_THRESHOLD else MAMMEN_HIGH for _ in range(count)]
    out = []
    while len(out) < count:
        u1 = stream.uniform53()
        u2 = stream.uniform53()
        radius = math.sqrt(-2.0 * math.log(1.0 - u1))
        angle = TWO_PI * u2
        out.extend((radius * math.cos(angle), radius * math.sin(angle)))
    return out[:count]


def residual_indices(count, key, purpose=Purpose.RESIDUAL_INDEX):
    """U_0 .. U_{count-1}: which residual each IID error is (``purpose``'s stream)."""
    stream = WordStream(key, purpose)
    return [stream.bounded(count) for _ in range(count)]


def block_offset(block_length, key, purpose=Purpose.BLOCK_WILD_OFFSET):
    """The phase U in [0, block_length) of replicate ``key``'s block-wild grid."""
    return WordStream(key, purpose).bounded(block_length)


def block_count(count, block_length, offset):
    """Blocks (so multipliers) that ``count`` residuals span at phase ``offset``."""
    return (count - 1 + offset) // block_length + 1


def synthetic_errors(innovation, residuals, key, streams=RECURSIVE_STREAMS):
    """e*_0 .. e*_{M-1} of replicate ``key`` (item 6) for a resolved innovation, drawn
    from the design's ``streams``."""
    count = len(residuals)
    if isinstance(innovation, IID):
        return [residuals[i] for i in residual_indices(count, key, streams.residual_index)]
    if isinstance(innovation, Wild):
        return [
            v * e
            for v, e in zip(
                multipliers(innovation.distribution, count, key, streams.multiplier), residuals, strict=True
            )
        ]
    length = innovation.block_length
    offset = block_offset(length, key, streams.offset)
    values = multipliers(innovation.distribution, block_count(count, length, offset), key, streams.multiplier)
    return [values[(j + offset) // length] * e for j, e in enumerate(residuals)]


def rebuild(model, x, errors):
    """The replicate series x* (item 7) from the observed ``x`` and the errors e*."""
    fit = model.fit
    order, mean, phi, intercept = fit.order, fit.mean, fit.coefficients, model.centred_intercept
    y = [v - mean for v in x[:order]]
    for t in range(order, len(x)):
        value = intercept
        for k in range(order, 0, -1):
            value = value + phi[k - 1] * y[t - k]
        y.append(value + errors[t - order])
    return list(x[:order]) + [mean + v for v in y[order:]]


def fixed_fitted(model, x):
    """f_p .. f_{n-1}: the fitted values of item 2 on the observed centred series (item 9)."""
    fit = model.fit
    w = [v - fit.mean for v in x]
    return fitted_values(w, (model.centred_intercept,) + fit.coefficients, fit.order)


def fitted_values(w, beta, start):
    """f_t for t = start .. n-1, accumulated from the oldest lag to the newest (item 2)."""
    order = len(beta) - 1
    out = []
    for t in range(start, len(w)):
        fitted = beta[0]
        for k in range(order, 0, -1):
            fitted = fitted + beta[k] * w[t - k]
        out.append(fitted)
    return out


def fixed_rebuild(model, x, fitted, errors):
    """The fixed-design replicate x* (item 9) from the observed ``x``, the ``fitted``
    values f_p .. f_{n-1} and the errors e*."""
    order, mean = model.fit.order, model.fit.mean
    return list(x[:order]) + [mean + (f + e) for f, e in zip(fitted, errors, strict=True)]


def replicate_paths(model, x, seed, n_bootstraps, first=0, series=0):
    """Yield the replicate series of replicates ``first .. n_bootstraps - 1`` of series id
    ``series``; replicate b depends only on (seed, series, b). The method's design picks
    the rebuild and the streams."""
    root = root_key(seed)
    innovation, streams = model.method.innovation, error_streams(model.method)
    fixed = design_of(model.method) == FIXED
    fitted = fixed_fitted(model, x) if fixed else None
    for replicate in range(first, n_bootstraps):
        errors = synthetic_errors(innovation, model.residuals, stream_key(root, replicate, series), streams)
        yield fixed_rebuild(model, x, fitted, errors) if fixed else rebuild(model, x, errors)


def refit(path, order):
    """(components, status): the AR(order) fit of one replicate (item 8); components is
    (c, phi_1 .. phi_p) in data units, or None when the design is singular."""
    mean, w = centre_values(path)
    a, b = normal_equations(w, order, order)
    beta = solve(a, b, order + 1)
    if beta is None:
        return None, FIT_SINGULAR
    phi = tuple(beta[1:])
    return (intercept_in_data_units(beta[0], phi, mean),) + phi, FIT_OK if is_stationary(phi) else FIT_EXPLOSIVE


def fixed_refit(path, model, design):
    """(components, FIT_OK): the fixed-design refit of one replicate (item 9): x*_t on the
    observed (1, x_{t-1} .. x_{t-p}); ``design`` is the data's (A, w) from
    :func:`fixed_design`."""
    order, mean = model.fit.order, model.fit.mean
    a, w = design
    rows = range(order, len(w))
    response = [path[t] - mean for t in rows]
    b = [math.fsum(response)] + [
        math.fsum(v * w[t - k] for v, t in zip(response, rows, strict=True)) for k in range(1, order + 1)
    ]
    beta = solve(a, b, order + 1)
    if beta is None:  # cannot happen: A is the data's, whose fit was solved
        return None, FIT_SINGULAR
    phi = tuple(beta[1:])
    return (intercept_in_data_units(beta[0], phi, mean),) + phi, FIT_OK


def fixed_design(model, x):
    """(A, w): the data's normal-equation matrix (item 1, start p) and centred series."""
    w = [v - model.fit.mean for v in x]
    return normal_equations(w, model.fit.order, model.fit.order)[0], w
