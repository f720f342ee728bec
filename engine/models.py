"""Model-based resampling in NumPy + Numba: ``reference/models.py`` defines every rule.

Two kinds of arithmetic, and what each guarantees against the reference (u = 2**-53):

* **The fit to the data** (coefficients, residuals, criterion values, the selected
  sieve order, the stationarity verdict, the ``"auto"`` block-wild length up to the
  Politis-White caveat of ``blocklength.py``) runs once per call, in Python: its sums
  are math.fsum over numpy products and every other operation is the reference's, in
  its order (numpy element-wise + - * / and the Numba solver below are the same IEEE
  operations, and Numba contracts nothing into fused multiply-adds without fastmath, as
  the bitwise tests confirm). It is therefore **bitwise** the reference's fit.
* **Per replicate**, in Numba kernels (one replicate per work item, on
  ``parallel.run_replicates``): the draws, the rebuilt series and, for ``"ar_coef"``, the
  refit.
  - Residual indices, block phases and Rademacher and Mammen multipliers are integer
    arithmetic: bitwise. So are the rebuilt series under IID, Rademacher and Mammen
    innovations (wild and block-wild): the same fit, the same errors e*_j = V e_j and the
    same recursion in the same order.
  - Gaussian multipliers use libm log/cos/sin (numpy's in Numba, the C library's in the
    reference): within ``GAUSSIAN_TOLERANCE`` = 2**-48 absolute (equal bit for bit on the
    machine measured). A rebuilt Gaussian series then agrees within
    ``GAUSSIAN_PATH_BOUND`` = 2**-40 (9.1e-13) times (1 + max_t |x*_t - m|) in the tested
    stationary fits: a multiplier's error enters through one residual and decays along
    the stable recursion.
  - The fixed design (item 9) takes its draws from its own three streams by the same
    rules, and its x*_t = m + (f_t + e*_{t-p}) adds the same doubles in the same order
    (f_t built once in Python by the reference's element-wise rule): bitwise under
    IID, Rademacher and Mammen errors. Its refit sums only b* (the normal matrix is
    the data's, built once with the fit's fsums) and carries the refit bound below.
  - Refits sum the normal equations with ``reduce.accurate_sum`` (pairwise blocks and
    TwoSum: within 6 u S of exact, S the sum of the magnitudes) instead of math.fsum,
    then solve them with the same elimination. At order 1 the sums come in one pass
    over the rebuild's centred series (``refit_ar1_centred``: blocks of 32 plain
    additions joined by TwoSum, within 31 u S). Coefficients agree within
    ``REFIT_BOUND`` = 1e-10 times max(1, max |coefficient|), stated for normal matrices
    whose condition is below about 1e4 (every stationary fit the tests draw; the
    difference grows with the condition number, as any solver's does). A refit whose
    stationarity verdict lies within that bound of the boundary may be judged
    differently by the two twins.

Named statistics of the rebuilt series (mean, var, std, median, quantiles) run in the
same kernel (``reduce.reduce_column``) and carry that module's bounds; callables get the
series materialized in chunks. Results depend only on (seed, replicate): identical for
any thread count and chunking, and the first B' replicates of a run equal a run of B'.
"""

import math

import numpy as np
from numba import njit

from bootmark.reference.models import (
    FIT_EXPLOSIVE,
    FIT_OK,
    FIT_SINGULAR,
    FIXED,
    GAUSSIAN_TOLERANCE,
    MAMMEN_HIGH,
    MAMMEN_LOW,
    MAMMEN_THRESHOLD,
    SINGULAR_TOLERANCE,
    TWO_PI,
    ModelArithmetic,
    design_of,
    resolve_model,
)
from bootmark.reference.specs import IID, WILD_DISTRIBUTIONS, Wild

from .blocklength import estimate_block_length
from .data import Series
from .draws import (
    BLOCK_WILD_OFFSET,
    FIXED_BLOCK_WILD_OFFSET,
    FIXED_RESIDUAL_INDEX,
    FIXED_WILD_MULTIPLIER,
    RESIDUAL_INDEX,
    WILD_MULTIPLIER,
    bounded,
    refill_from,
)
from .indices import iid_row, stream_words
from .keys import stream_key, stream_root
from .parallel import run_replicates
from .reduce import MEAN, STD, VAR, _two_sum, accurate_sum, reduce_column

__all__ = [
    "GAUSSIAN_TOLERANCE",
    "GAUSSIAN_PATH_BOUND",
    "REFIT_BOUND",
    "resolve",
    "paths",
    "refits",
    "statistics",
    "multipliers",
    "residual_indices",
    "block_offset",
    "synthetic_errors",
]

GAUSSIAN_PATH_BOUND = 2.0**-40  # relative to 1 + max |x* - m|: rebuilt Gaussian series, engine vs reference
REFIT_BOUND = 1e-10  # relative to max(1, max |coefficient|): refit coefficients, engine vs reference
IID_ERRORS, WILD_ERRORS, BLOCK_WILD_ERRORS = 0, 1, 2
REFIT_BLOCK = 32  # plain additions per block of an AR(1) refit's sums (refit_ar1_centred)
RADEMACHER, MAMMEN, GAUSSIAN = (WILD_DISTRIBUTIONS.index(name) for name in ("rademacher", "mammen", "gaussian"))
_THRESHOLD = np.uint64(MAMMEN_THRESHOLD)
_S5, _S6 = np.uint64(5), np.uint64(6)
_TWO_POW_26, _TWO_POW_53 = np.uint64(1 << 26), 9007199254740992.0
_FIRST_BLOCK = np.int64(0)  # typed, not literal: a literal 0 would compile refill_from once more


# ---------------------------------------------------------------------------------------
# Linear algebra shared by the fit (called from Python) and the refits (in the kernels)


@njit(cache=True)
def solve_leading(a, b, size, work, rhs, diagonal, beta):
    """Solve the leading ``size`` x ``size`` normal equations into beta[:size] by
    elimination without pivoting (reference.models, item 1); False if singular.
    ``work``, ``rhs`` and ``diagonal`` are scratch of at least that size."""
    for i in range(size):
        diagonal[i] = a[i, i]
        rhs[i] = b[i]
        for c in range(size):
            work[i, c] = a[i, c]
    for i in range(size):
        pivot = work[i, i]
        if not pivot > SINGULAR_TOLERANCE * diagonal[i]:
            return False
        for r in range(i + 1, size):
            factor = work[r, i] / pivot
            for c in range(i + 1, size):
                work[r, c] = work[r, c] - factor * work[i, c]
            rhs[r] = rhs[r] - factor * rhs[i]
    for i in range(size - 1, -1, -1):
        total = rhs[i]
        for c in range(i + 1, size):
            total = total - work[i, c] * beta[c]
        beta[i] = total / work[i, i]
    return True


@njit(cache=True)
def is_stationary(phi, work):
    """The step-down test of reference.models (item 3) on ``phi``; ``work`` holds at least
    len(phi) floats. The update of a_j and a_{k-2-j} is done in pairs, in place."""
    p = phi.shape[0]
    for j in range(p):
        work[j] = phi[j]
    for k in range(p, 0, -1):
        kappa = work[k - 1]
        if not abs(kappa) < 1.0:
            return False
        scale = 1.0 - kappa * kappa
        for j in range(k // 2):
            mirror = k - 2 - j
            low, high = work[j], work[mirror]
            work[j] = (low + kappa * high) / scale
            if mirror != j:
                work[mirror] = (high + kappa * low) / scale
    return True


# ---------------------------------------------------------------------------------------
# The fit to the data, bitwise the reference's (math.fsum over numpy products)


def _fsum(values):
    return math.fsum(values.tolist())


def _centre(values):
    mean = _fsum(values) / values.shape[0]
    return mean, values - mean


def normal_equations(w, order, start):
    """(A, b) of reference.models item 1, each sum a math.fsum of the same products."""
    n, size = w.shape[0], order + 1
    a, b = np.zeros((size, size)), np.zeros(size)
    a[0, 0] = float(n - start)
    b[0] = _fsum(w[start:])
    for k in range(1, size):
        lagged = w[start - k : n - k]
        a[0, k] = a[k, 0] = _fsum(lagged)
        b[k] = _fsum(w[start:] * lagged)
        for j in range(1, k + 1):
            a[j, k] = a[k, j] = _fsum(w[start - j : n - j] * lagged)
    return a, b


def solve(a, b, size):
    """beta as a list of floats, or None if the design is singular."""
    beta = np.empty(size)
    solved = solve_leading(a, b, size, np.empty((size, size)), np.empty(size), np.empty(size), beta)
    return beta.tolist() if solved else None


def fitted_values(w, beta, start):
    """f_t for t = start .. n-1, accumulated from the oldest lag to the newest, as the
    reference does (element-wise, so bitwise its values)."""
    n = w.shape[0]
    fitted = np.full(n - start, beta[0])
    for k in range(len(beta) - 1, 0, -1):
        fitted = fitted + beta[k] * w[start - k : n - k]
    return fitted


def fitted_residuals(w, beta, start):
    """r_t = w_t - f_t for t = start .. n-1 (uncentred)."""
    return w[start:] - fitted_values(w, beta, start)


def _stationary(phi):
    return bool(is_stationary(np.asarray(phi, dtype=np.float64), np.empty(max(len(phi), 1))))


def _residual_block_length(residuals):
    return estimate_block_length(Series(np.ascontiguousarray(residuals).reshape(-1, 1), True)).circular_length


ARITHMETIC = ModelArithmetic(
    lambda series: _centre(series.values[:, 0]),
    normal_equations,
    solve,
    fitted_residuals,
    lambda r: _fsum(r * r),
    lambda r: _centre(r)[1],
    _stationary,
    _residual_block_length,
)


def resolve(method, series):
    """The reference's :func:`~reference.models.resolve_model` on an engine Series."""
    return resolve_model(method, series, ARITHMETIC)


# ---------------------------------------------------------------------------------------
# Draws, rebuilt series and refits of one replicate (Numba)


@njit(cache=True)
def _rademacher(words, count, out):
    # Bit k mod 32 of word k // 32 -> +1 / -1, a word at a time: the 32-bit inner loop
    # vectorises (the flat loop over k did not, at 4 ns a multiplier).
    full = count >> 5
    for w in range(full):
        word = np.int64(words[w])
        base = w << 5
        for bit in range(32):
            out[base + bit] = np.float64((word >> bit) & 1) * 2.0 - 1.0
    for k in range(full << 5, count):
        out[k] = np.float64((np.int64(words[full]) >> (k & 31)) & 1) * 2.0 - 1.0


@njit(cache=True)
def fill_multipliers(distribution, count, k0, k1, words, out, purpose):
    """out[:count] = the first ``count`` multipliers of the ``purpose`` stream
    (WILD_MULTIPLIER or FIXED_WILD_MULTIPLIER; reference.models item 6); ``words``
    holds at least 4 ceil(count / 2) + 4 words."""
    if distribution == RADEMACHER:
        needed = (count + 31) // 32
    elif distribution == MAMMEN:
        needed = count
    else:
        needed = 4 * ((count + 1) // 2)
    refill_from(words[: 4 * ((needed + 3) // 4)], _FIRST_BLOCK, k0, k1, purpose)
    if distribution == RADEMACHER:
        _rademacher(words, count, out)
    elif distribution == MAMMEN:
        for k in range(count):
            out[k] = MAMMEN_LOW if words[k] < _THRESHOLD else MAMMEN_HIGH
    else:
        for pair in range((count + 1) // 2):
            base = 4 * pair
            u1 = np.float64((words[base] >> _S5) * _TWO_POW_26 + (words[base + 1] >> _S6)) / _TWO_POW_53
            u2 = np.float64((words[base + 2] >> _S5) * _TWO_POW_26 + (words[base + 3] >> _S6)) / _TWO_POW_53
            radius = np.sqrt(-2.0 * np.log(1.0 - u1))
            angle = TWO_PI * u2
            out[2 * pair] = radius * np.cos(angle)
            if 2 * pair + 1 < count:
                out[2 * pair + 1] = radius * np.sin(angle)


@njit(cache=True)
def draw_block_offset(block_length, k0, k1, small, state, purpose):
    """The block-wild phase U = bounded(block_length), first draw of the ``purpose``
    stream (BLOCK_WILD_OFFSET or FIXED_BLOCK_WILD_OFFSET)."""
    state[0] = small.shape[0]
    state[1] = 0
    return np.int64(bounded(small, state, k0, k1, purpose, np.uint64(block_length)))


@njit(cache=True)
def fill_errors(innovation, distribution, block_length, iid_words, residuals, fixed, k0, k1, scratch):
    """scratch's errors[:M] = e*_0 .. e*_{M-1} of replicate (k0, k1) (item 6), from the
    fixed design's streams when ``fixed`` (item 9)."""
    words, small, state, index_row, values, errors = scratch[:6]
    count = residuals.shape[0]
    if innovation == IID_ERRORS:
        state[0] = iid_words
        state[1] = 0
        iid_row(
            count,
            np.uint64(count),
            k0,
            k1,
            index_row,
            words[:iid_words],
            state,
            FIXED_RESIDUAL_INDEX if fixed else RESIDUAL_INDEX,
        )
        for j in range(count):
            errors[j] = residuals[index_row[j]]
    elif innovation == WILD_ERRORS:
        fill_multipliers(
            distribution, count, k0, k1, words, values, FIXED_WILD_MULTIPLIER if fixed else WILD_MULTIPLIER
        )
        for j in range(count):
            errors[j] = values[j] * residuals[j]
    else:
        offset = draw_block_offset(
            block_length, k0, k1, small, state, FIXED_BLOCK_WILD_OFFSET if fixed else BLOCK_WILD_OFFSET
        )
        fill_multipliers(
            distribution,
            (count - 1 + offset) // block_length + 1,
            k0,
            k1,
            words,
            values,
            FIXED_WILD_MULTIPLIER if fixed else WILD_MULTIPLIER,
        )
        for j in range(count):
            errors[j] = values[(j + offset) // block_length] * residuals[j]


@njit(cache=True)
def rebuild(order, mean, intercept, phi, x, errors, y, out):
    """out[:n] = x*: the observed start, then the recursion in ascending t (item 7);
    ``y`` receives the centred series y*. The newest value is carried in a register, so
    the step's dependency chain is one multiply and two adds (the reference's order of
    operations, unchanged)."""
    n = x.shape[0]
    for t in range(order):
        y[t] = x[t] - mean
        out[t] = x[t]
    last = y[order - 1] if order > 0 else 0.0
    for t in range(order, n):
        value = intercept
        for k in range(order, 1, -1):
            value = value + phi[k - 1] * y[t - k]
        if order > 0:
            value = value + phi[0] * last
        last = value + errors[t - order]
        y[t] = last
        out[t] = mean + last


@njit(cache=True)
def rebuild_fixed(order, mean, fitted, x, errors, y, out):
    """out[:n] = the fixed-design x* (item 9): the observed start, then the fitted value
    on the observed lags plus the error; ``y`` receives the centred series y*."""
    n = x.shape[0]
    for t in range(order):
        y[t] = x[t] - mean
        out[t] = x[t]
    for t in range(order, n):
        y[t] = fitted[t - order] + errors[t - order]
        out[t] = mean + y[t]


@njit(cache=True)
def replicate_series(
    innovation,
    distribution,
    block_length,
    iid_words,
    order,
    mean,
    intercept,
    phi,
    residuals,
    x,
    fixed,
    fitted,
    w,
    design_a,
    k0,
    k1,
    scratch,
):
    """Replicate (k0, k1)'s x* in scratch (returned), by the design's rebuild."""
    fill_errors(innovation, distribution, block_length, iid_words, residuals, fixed, k0, k1, scratch)
    series = scratch[7]
    if fixed:
        rebuild_fixed(order, mean, fitted, x, scratch[5], scratch[6], series)
    else:
        rebuild(order, mean, intercept, phi, x, scratch[5], scratch[6], series)
    return series


@njit(cache=True)
def _normal_sums(w, order, products, a, b):
    # Item 1's sums over t = order .. n-1 with accurate_sum instead of fsum.
    n, size = w.shape[0], order + 1
    count = n - order
    a[0, 0] = np.float64(count)
    b[0] = accurate_sum(w[order:], count)
    for k in range(1, size):
        a[0, k] = accurate_sum(w[order - k : n - k], count)
        a[k, 0] = a[0, k]
        for t in range(count):
            products[t] = w[order + t] * w[order + t - k]
        b[k] = accurate_sum(products, count)
        for j in range(1, k + 1):
            for t in range(count):
                products[t] = w[order + t - j] * w[order + t - k]
            a[j, k] = accurate_sum(products, count)
            a[k, j] = a[j, k]


@njit(cache=True)
def refit_series(series, order, scratch, out):
    """The AR(order) refit of one replicate (item 8) into out[:order + 1]; its status."""
    w, products, a, b, work, rhs, diagonal, beta, phi_work = scratch[8:17]
    n = series.shape[0]
    mean = accurate_sum(series, n) / n
    for t in range(n):
        w[t] = series[t] - mean
    size = order + 1
    _normal_sums(w, order, products, a, b)
    if not solve_leading(a, b, size, work, rhs, diagonal, beta):
        return FIT_SINGULAR
    total = 0.0
    for k in range(1, size):
        total = total + beta[k]
        out[k] = beta[k]
    out[0] = beta[0] + mean * (1.0 - total)
    return FIT_OK if is_stationary(beta[1:size], phi_work) else FIT_EXPLOSIVE


@njit(cache=True, nogil=True)
def _paths_task(
    begin,
    end,
    scratch,
    innovation,
    distribution,
    block_length,
    iid_words,
    order,
    mean,
    intercept,
    phi,
    residuals,
    x,
    fixed,
    fitted,
    w,
    design_a,
    root_lo,
    root_hi,
    series_word,
    first,
    out,
):
    for r in range(begin, end):
        k0, k1 = stream_key(root_lo, root_hi, series_word, np.uint64(first + r))
        series = replicate_series(
            innovation,
            distribution,
            block_length,
            iid_words,
            order,
            mean,
            intercept,
            phi,
            residuals,
            x,
            fixed,
            fitted,
            w,
            design_a,
            k0,
            k1,
            scratch,
        )
        target = out[r]
        for t in range(series.shape[0]):
            target[t] = series[t]


@njit(cache=True, nogil=True)
def _statistics_task(
    begin,
    end,
    scratch,
    innovation,
    distribution,
    block_length,
    iid_words,
    order,
    mean,
    intercept,
    phi,
    residuals,
    x,
    fixed,
    fitted,
    w,
    design_a,
    root_lo,
    root_hi,
    series_word,
    first,
    kind,
    levels,
    out,
):
    for r in range(begin, end):
        k0, k1 = stream_key(root_lo, root_hi, series_word, np.uint64(first + r))
        series = replicate_series(
            innovation,
            distribution,
            block_length,
            iid_words,
            order,
            mean,
            intercept,
            phi,
            residuals,
            x,
            fixed,
            fitted,
            w,
            design_a,
            k0,
            k1,
            scratch,
        )
        reduce_column(kind, levels, series, out[r], 0)  # overwrites the series: it is rebuilt next time


@njit(cache=True)
def refit_ar1_centred(y, centre, scratch, out):
    """The AR(1) refit of one replicate from the rebuild's y* = x* - centre; its status.

    One pass, no copies: the four sums of the normal equations (y_t, y_{t-1}, y_t y_{t-1},
    y_{t-1}**2 over t = 1..n-1) are taken in blocks of ``REFIT_BLOCK`` plain additions,
    each block total added with TwoSum. Error: within (REFIT_BLOCK - 1) u S + 2 u |sum| of
    exact, S the sum of magnitudes, the same order as ``accurate_sum``'s 6 u S; the
    intercept maps back as beta_0 + centre (1 - phi_1). Replaces refit_series at order 1,
    where the refit's eight passes cost as much as generating the replicate.
    """
    a, b, work, rhs, diagonal, beta, phi_work = scratch[10:17]
    n = y.shape[0]
    s0 = e0 = s1 = e1 = s2 = e2 = s3 = e3 = 0.0
    for start in range(1, n, REFIT_BLOCK):
        p0 = p1 = p2 = p3 = 0.0
        for t in range(start, min(start + REFIT_BLOCK, n)):
            current, lagged = y[t], y[t - 1]
            p0 += current
            p1 += lagged
            p2 += current * lagged
            p3 += lagged * lagged
        s0, e0 = _two_sum(s0, e0, p0)
        s1, e1 = _two_sum(s1, e1, p1)
        s2, e2 = _two_sum(s2, e2, p2)
        s3, e3 = _two_sum(s3, e3, p3)
    a[0, 0] = np.float64(n - 1)
    a[0, 1] = s1 + e1
    a[1, 0] = a[0, 1]
    a[1, 1] = s3 + e3
    b[0] = s0 + e0
    b[1] = s2 + e2
    if not solve_leading(a, b, 2, work, rhs, diagonal, beta):
        return FIT_SINGULAR
    out[1] = beta[1]
    out[0] = beta[0] + centre * (1.0 - beta[1])
    return FIT_OK if is_stationary(beta[1:2], phi_work) else FIT_EXPLOSIVE


@njit(cache=True)
def refit_fixed(series, w, order, design_a, mean, scratch, out):
    """The fixed-design refit of one replicate (item 9) into out[:order + 1]: x*_t on the
    observed (1, x_{t-1} .. x_{t-p}), whose normal matrix ``design_a`` is the data's
    (bitwise the reference's, built once in Python); only b* is summed here, with
    ``accurate_sum`` (within REFIT_BOUND of the reference's fsum). Never singular."""
    response, products = scratch[8], scratch[9]
    b, work, rhs, diagonal, beta = scratch[11:16]
    count = series.shape[0] - order
    for t in range(count):
        response[t] = series[order + t] - mean
    b[0] = accurate_sum(response, count)
    for k in range(1, order + 1):
        for t in range(count):
            products[t] = response[t] * w[order + t - k]
        b[k] = accurate_sum(products, count)
    if not solve_leading(design_a, b, order + 1, work, rhs, diagonal, beta):
        return FIT_SINGULAR  # cannot happen: the fit solved this matrix
    total = 0.0
    for k in range(1, order + 1):
        total = total + beta[k]
        out[k] = beta[k]
    out[0] = beta[0] + mean * (1.0 - total)
    return FIT_OK


@njit(cache=True)
def refit_recursive(series, order, mean, scratch, out):
    """The recursive design's refit (item 8) of the replicate just rebuilt in ``scratch``
    into out[:order + 1]; its status. Order 1 takes the one-pass path on the rebuild's
    y* (``refit_ar1_centred``), every other order ``refit_series``."""
    if order == 1:
        return refit_ar1_centred(scratch[6], mean, scratch, out)
    return refit_series(series, order, scratch, out)


@njit(cache=True, nogil=True)
def _refits_task(
    begin,
    end,
    scratch,
    innovation,
    distribution,
    block_length,
    iid_words,
    order,
    mean,
    intercept,
    phi,
    residuals,
    x,
    fixed,
    fitted,
    w,
    design_a,
    root_lo,
    root_hi,
    series_word,
    first,
    out,
    status,
):
    for r in range(begin, end):
        k0, k1 = stream_key(root_lo, root_hi, series_word, np.uint64(first + r))
        series = replicate_series(
            innovation,
            distribution,
            block_length,
            iid_words,
            order,
            mean,
            intercept,
            phi,
            residuals,
            x,
            fixed,
            fitted,
            w,
            design_a,
            k0,
            k1,
            scratch,
        )
        if fixed:
            status[r] = refit_fixed(series, w, order, design_a, mean, scratch, out[r])
        else:
            status[r] = refit_recursive(series, order, mean, scratch, out[r])


# ---------------------------------------------------------------------------------------
# Python faces: the kernels' arguments, scratch and schedules


class ModelPlan:
    """The kernel arguments of a resolved model and the data ``x`` (float64, n)."""

    __slots__ = (
        "innovation",
        "distribution",
        "block_length",
        "iid_words",
        "order",
        "mean",
        "intercept",
        "phi",
        "residuals",
        "x",
        "fixed",
        "fitted",
        "w",
        "design_a",
    )

    def __init__(self, model, x):
        innovation = model.method.innovation
        self.innovation = (
            IID_ERRORS
            if isinstance(innovation, IID)
            else WILD_ERRORS
            if isinstance(innovation, Wild)
            else BLOCK_WILD_ERRORS
        )
        self.distribution = WILD_DISTRIBUTIONS.index(getattr(innovation, "distribution", "rademacher"))
        self.block_length = np.int64(getattr(innovation, "block_length", 1))
        self.residuals = np.ascontiguousarray(model.residuals, dtype=np.float64)
        self.iid_words = np.int64(stream_words(self.residuals.shape[0], 1))
        self.order = model.fit.order
        self.mean = float(model.fit.mean)
        self.intercept = float(model.centred_intercept)
        self.phi = np.array(model.fit.coefficients, dtype=np.float64)
        self.x = np.ascontiguousarray(x, dtype=np.float64)
        # Fixed design (item 9): the fitted values and the normal matrix on the observed
        # lags, each bitwise the reference's; empty (same types, one compilation) if recursive.
        self.fixed = design_of(model.method) == FIXED
        self.w, self.fitted, self.design_a = np.empty(0), np.empty(0), np.empty((1, 1))
        if self.fixed:
            self.w = self.x - self.mean
            beta = [self.intercept] + list(model.fit.coefficients)
            self.fitted = fitted_values(self.w, beta, self.order)
            self.design_a = normal_equations(self.w, self.order, self.order)[0]

    def arguments(self):
        return (
            self.innovation,
            self.distribution,
            self.block_length,
            self.iid_words,
            self.order,
            self.mean,
            self.intercept,
            self.phi,
            self.residuals,
            self.x,
            self.fixed,
            self.fitted,
            self.w,
            self.design_a,
        )

    def scratch(self):
        """One thread's work space: words, offset words and cursor, index row,
        multipliers, errors, y*, x*, then the refit's centred series, products, A, b,
        elimination copies, beta and the stationarity work array."""
        n, count, size = self.x.shape[0], self.residuals.shape[0], self.order + 1
        words = max(int(self.iid_words), 4 * ((count + 1) // 2) + 4)
        return (
            np.empty(words, dtype=np.uint64),
            np.empty(4, dtype=np.uint64),
            np.zeros(2, dtype=np.int64),
            np.empty(count, dtype=np.int32),
            np.empty(count + 1),
            np.empty(count),
            np.empty(n),
            np.empty(n),
            np.empty(n),
            np.empty(n),
            np.empty((size, size)),
            np.empty(size),
            np.empty((size, size)),
            np.empty(size),
            np.empty(size),
            np.empty(size),
            np.empty(max(self.order, 1)),
        )

    def nanoseconds(self, replicates, per_value):
        """A rough single-thread estimate (it only picks the schedule): draws and recursion
        (about 6 ns a value at p = 1 here, 30 more for Gaussian multipliers' libm calls),
        plus ``per_value`` ns a value for what the kernel does with the series."""
        draws = 30 if self.distribution == GAUSSIAN and self.innovation != IID_ERRORS else 0
        return replicates * self.x.shape[0] * (5 + self.order + draws + per_value)


def paths(model, x, seed, n_bootstraps, first=0, dtype=np.float64, series=0):
    """(n_bootstraps - first, n) rebuilt series of replicates first .. n_bootstraps - 1,
    computed in float64 and stored in ``dtype``."""
    plan = ModelPlan(model, x)
    out = np.empty((n_bootstraps - first, plan.x.shape[0]), dtype=dtype)
    root = stream_root(seed, series)
    run_replicates(
        _paths_task,
        out.shape[0],
        plan.nanoseconds(out.shape[0], 1),
        plan.scratch,
        *plan.arguments(),
        root[0],
        root[1],
        root[2],
        first,
        out,
    )
    return out


def statistics(model, x, seed, n_bootstraps, kind, levels, width, series=0):
    """(B, width) named statistic (``reduce.KIND_CODES``) of every rebuilt series."""
    plan = ModelPlan(model, x)
    out = np.empty((n_bootstraps, width))
    root = stream_root(seed, series)
    per_value = 2 if kind in (MEAN, VAR, STD) else 20  # ns per value; order statistics sort
    run_replicates(
        _statistics_task,
        n_bootstraps,
        plan.nanoseconds(n_bootstraps, per_value),
        plan.scratch,
        *plan.arguments(),
        root[0],
        root[1],
        root[2],
        0,
        kind,
        np.asarray(levels, dtype=np.float64),
        out,
    )
    return out


def refits(model, x, seed, n_bootstraps, series=0):
    """((B, p + 1) refit coefficients, (B,) int8 statuses FIT_OK / FIT_EXPLOSIVE /
    FIT_SINGULAR); rows of singular refits are unspecified."""
    plan = ModelPlan(model, x)
    out = np.zeros((n_bootstraps, plan.order + 1))
    status = np.zeros(n_bootstraps, dtype=np.int8)
    root = stream_root(seed, series)
    per_value = 2 + (plan.order + 1) * (plan.order + 2)  # ns a value: the normal equations' passes
    run_replicates(
        _refits_task,
        n_bootstraps,
        plan.nanoseconds(n_bootstraps, per_value),
        plan.scratch,
        *plan.arguments(),
        root[0],
        root[1],
        root[2],
        0,
        out,
        status,
    )
    return out, status


# ---------------------------------------------------------------------------------------
# The draws of one replicate, for tests and inspection


def _key(seed, replicate, series=0):
    root = stream_root(seed, series)
    k0, k1 = stream_key(root[0], root[1], root[2], np.uint64(replicate))
    return np.uint64(k0), np.uint64(k1)  # called from Python the key words come back as ints


def multipliers(distribution, count, seed, replicate, fixed=False):
    """The first ``count`` multipliers of replicate ``replicate`` of ``seed`` (the fixed
    design's stream if ``fixed``)."""
    out = np.empty(count)
    k0, k1 = _key(seed, replicate)
    words = np.empty(4 * ((count + 1) // 2) + 4, np.uint64)
    fill_multipliers(
        WILD_DISTRIBUTIONS.index(distribution),
        count,
        k0,
        k1,
        words,
        out,
        FIXED_WILD_MULTIPLIER if fixed else WILD_MULTIPLIER,
    )
    return out


def residual_indices(count, seed, replicate, fixed=False):
    """U_0 .. U_{count-1} of replicate ``replicate`` (IID innovations), int32."""
    words = stream_words(count, 1)
    row, state = np.empty(count, dtype=np.int32), np.array([words, 0], dtype=np.int64)
    k0, k1 = _key(seed, replicate)
    _iid_indices(
        count, k0, k1, row, np.empty(words, dtype=np.uint64), state, FIXED_RESIDUAL_INDEX if fixed else RESIDUAL_INDEX
    )
    return row


@njit(cache=True)
def _iid_indices(count, k0, k1, row, words, state, purpose):
    iid_row(count, np.uint64(count), k0, k1, row, words, state, purpose)


def block_offset(block_length, seed, replicate, fixed=False):
    """The block-wild phase of replicate ``replicate``."""
    k0, k1 = _key(seed, replicate)
    return int(
        draw_block_offset(
            block_length,
            k0,
            k1,
            np.empty(4, dtype=np.uint64),
            np.zeros(2, dtype=np.int64),
            FIXED_BLOCK_WILD_OFFSET if fixed else BLOCK_WILD_OFFSET,
        )
    )


def synthetic_errors(model, x, seed, replicate):
    """e*_0 .. e*_{M-1} of replicate ``replicate`` of a resolved model."""
    plan = ModelPlan(model, x)
    scratch = plan.scratch()
    k0, k1 = _key(seed, replicate)
    fill_errors(
        plan.innovation,
        plan.distribution,
        plan.block_length,
        plan.iid_words,
        plan.residuals,
        plan.fixed,
        k0,
        k1,
        scratch,
    )
    return scratch[5].copy()
