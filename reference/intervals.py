"""Confidence intervals from bootstrap statistics.

With theta the statistic on the original data, s_b (b = 0 .. B-1) its bootstrap
replicates and Q the linear-interpolation quantile of the s_b (numpy's default; see
``reduce.py``):

* ``percentile``: [Q(alpha/2), Q(1 - alpha/2)];
* ``basic``: [2 theta - Q(1 - alpha/2), 2 theta - Q(alpha/2)];
* ``normal``: theta -/+ z(1 - alpha/2) se, with se the standard deviation of the s_b
  about their mean with divisor B (as ``arch`` computes it), z the standard normal
  quantile;
* ``calibrated``: the percentile interval at levels calibrated by a double (nested)
  bootstrap (Hall & Martin 1988, Biometrika 75; for block resampling Lee & Lai 2009,
  Biometrika 96, "Double block bootstrap confidence intervals for dependent data").
  With C = ``inner_bootstraps`` (default 199, at least 10):

  1. Outer level: theta and the s_b exactly as above. Replicate b's resample x*_b (n
     values, or n rows) is drawn from the key of (seed, b), the usual stream.
  2. Inner level: for every b, C resamples of x*_b drawn with the *same resolved method*:
     the same block length, ``"auto"`` being resolved once on the original data and
     never on an x*_b. Inner replicate c of outer replicate b is drawn by the usual row
     rule from the key ``replicate_key(inner_root(root, b), c)`` (``keys.py``), so it
     depends only on (seed, b, c). For a tapered method the inner resample tapers the
     deviations of x*_b's values from x*_b's own column means, as the outer one tapers
     the data's. t_bc is the statistic on inner replicate c of outer replicate b.
  3. u_b = (#{c : t_bc < theta} + 0.5 * #{c : t_bc == theta}) / C, computed in that
     order in float64: the inner-world probability that a replicate falls below the
     truth when x*_b plays the data and theta the truth. Ties count one half (mid-rank),
     so a discrete statistic such as a median is not pushed into one tail.
  4. lambda_lo = Q_u(alpha/2) and lambda_hi = Q_u(1 - alpha/2), with Q_u the same linear
     quantile rule applied to the B values u_b.
  5. The interval is [Q(lambda_lo), Q(lambda_hi)] on the outer s_b.

  Why: in the inner world the percentile interval at levels (l, h) misses the truth
  below or above about as often as u_b < l or u_b > h. If the percentile interval were
  exact the u_b would be uniform and lambda would be (alpha/2, 1 - alpha/2); step 4
  instead picks each level so that its own tail is missed in a fraction alpha/2 of the
  outer replicates: a two-sided, equal-tailed calibration, each tail separately. A
  statistic with several components (columns, quantile levels) is calibrated component
  by component: its own u_b, its own levels. Like ``percentile``, the bounds lie within
  [min s_b, max s_b]. Cost: B + B * C statistic evaluations (B * C inner resamples),
  so only named statistics are accepted; a callable would run B * C times in Python.

* ``studentized``: a bootstrap-t interval for the mean, studentized by the fixed-b
  long-run standard error of Kiefer & Vogelsang (2002, Econometric Theory 18, "Heteroskedasticity-
  autocorrelation robust standard errors using the Bartlett kernel without truncation"),
  its critical values bootstrapped as in Goncalves & Vogelsang (2011, Econometric Theory
  27, "Block bootstrap HAC robust tests: the sophistication of the naive bootstrap"):

  1. For a series v_1 .. v_n with mean m = fsum(v) / n, the partial sums
     S_t = S_{t-1} + (v_t - m) (S_0 = 0, t = 1 .. n) are accumulated left to right in
     float64, and se(v) = sqrt(Omega / n) with Omega = 2 fsum(S_t^2) / n^2: the Bartlett
     kernel with bandwidth n (b = 1) applied to the autocovariances, written through
     partial sums. It needs no bandwidth choice: Omega is not consistent for the
     long-run variance, but t = (m - mu) / se has a limit free of nuisance parameters
     (the "fixed-b" limit W(1) / sqrt(2 integral of a Brownian bridge squared)) for any
     weakly dependent series. Critical values taken from that limit are designed to
     keep the level at small n, where kernel estimators with a shrinking bandwidth
     under-estimate the spread; how close they come is measured, not promised (study
     S1-length v2: 0.862 at n = 100 for a moving-block bootstrap, 0.88 to 0.91 above).
     A series whose values are all equal (min == max) has se exactly 0: constancy is
     decided from the values, never from a rounded-off se (41 copies of 0.1 give a
     partial-sum se of about 1e-17, not 0).
  2. theta = m on the data and se = se(data). Replicate b's resample x*_b (the usual
     stream) gives s_b, its mean, and se*_b = se(x*_b) by the same rule.
  3. t*_b = (s_b - theta) / se*_b, and the interval is
     [theta - Q_t(1 - alpha/2) se, theta - Q_t(alpha/2) se], Q_t the linear quantile of
     the B values t*_b. The bootstrap replaces the non-standard fixed-b critical values
     (for alpha = 0.10 the limit's is 3.764) and adapts them to the sample.

  Defined for the statistic ``"mean"`` (each column of multivariate data on its own)
  and for resampling methods other than :class:`TaperedBlock` (whose replicates are
  tapered values); a constant replicate (se*_b = 0) or series raises InvalidDataError.
  Cost: one more pass over each replicate, about the price of materializing it.

``alpha`` is the total two-sided tail probability: alpha=0.10 gives a 90% interval.
"""

import math
from statistics import NormalDist

from .errors import ErrorCode, InvalidDataError, InvalidParameterError, ParameterTypeError
from .reduce import quantile_sorted
from .specs import TaperedBlock, check_statistic, is_model_method
from .validation import as_integer

INTERVAL_KINDS = ("percentile", "basic", "normal", "calibrated", "studentized")
CALIBRATED = "calibrated"
STUDENTIZED = "studentized"
DEFAULT_INNER_BOOTSTRAPS = 199  # inner replicates per outer replicate when inner_bootstraps=None
MIN_INNER_BOOTSTRAPS = 10  # u_b moves in steps of 1/(2C): below C = 10 too coarse to calibrate a tail


def check_kind(kind):
    """Return ``kind`` if it names an interval, else raise a typed error."""
    fix = f"pass kind= one of {', '.join(map(repr, INTERVAL_KINDS))}"
    if not isinstance(kind, str):
        raise ParameterTypeError(ErrorCode.INTERVAL_KIND, "kind", f"expected a string, got {kind!r}", fix)
    if kind not in INTERVAL_KINDS:
        raise InvalidParameterError(ErrorCode.INTERVAL_KIND, "kind", f"unknown interval kind {kind!r}", fix)
    return kind


def check_companion(kind, calibration, studentization):
    """Refuse an ``interval`` call whose kind needs data it was not given (code
    INTERVAL_KIND): "calibrated" needs the u_b, "studentized" the (se, [se*_b])."""
    needed = {CALIBRATED: ("calibration", calibration), STUDENTIZED: ("studentization", studentization)}
    if kind in needed and needed[kind][1] is None:
        argument = needed[kind][0]
        raise InvalidParameterError(
            ErrorCode.INTERVAL_KIND,
            argument,
            f"kind={kind!r} reads {argument}=, which is None",
            f"pass {argument}= as conf_int computes it, or call conf_int(kind={kind!r}) which does",
        )
    return kind


def check_inner_bootstraps(inner_bootstraps, kind):
    """Return C, the inner replicates per outer replicate, for a checked ``kind``.

    For ``"calibrated"``: an int >= 10 (numpy integers accepted, floats and bools
    refused), None giving ``DEFAULT_INNER_BOOTSTRAPS``. Every other kind has no inner
    level and returns None; a value passed with one is refused rather than silently
    ignored, since it signals a caller who expects a calibrated interval.
    Errors carry code N_BOOTSTRAPS (a replicate count, the same kind of bad input as
    ``n_bootstraps``) and name the argument ``inner_bootstraps``.
    """
    if kind != CALIBRATED:
        if inner_bootstraps is not None:
            raise InvalidParameterError(
                ErrorCode.N_BOOTSTRAPS,
                "inner_bootstraps",
                f"kind={kind!r} has no inner bootstrap, but inner_bootstraps={inner_bootstraps!r} was passed",
                "drop inner_bootstraps, or pass kind='calibrated' to use it",
            )
        return None
    if inner_bootstraps is None:
        return DEFAULT_INNER_BOOTSTRAPS
    fix = f"pass a whole number of inner replicates per outer replicate, at least {MIN_INNER_BOOTSTRAPS} (e.g. 199)"
    count = as_integer(inner_bootstraps, "inner_bootstraps", ErrorCode.N_BOOTSTRAPS, fix, integral_floats=False)
    if count < MIN_INNER_BOOTSTRAPS:
        raise InvalidParameterError(
            ErrorCode.N_BOOTSTRAPS, "inner_bootstraps", f"must be >= {MIN_INNER_BOOTSTRAPS}, got {count}", fix
        )
    return count


def check_calibrated_statistic(statistic):
    """Return the checked spec of a statistic a calibrated interval can use: a named one.

    A callable is refused (typed error, code STATISTIC): it would be called B * C times
    in Python, and the engine evaluates the inner level only in its fused kernels.
    """
    spec = check_statistic(statistic)
    if spec.kind == "callable":
        raise InvalidParameterError(
            ErrorCode.STATISTIC,
            "statistic",
            "kind='calibrated' evaluates the statistic B * inner_bootstraps times and "
            "accepts only named statistics, not a callable",
            "pass 'mean', 'var', 'std', 'median' or ('quantile', q), or use kind='percentile' with the callable",
        )
    return spec


def check_calibrated_method(method):
    """Refuse kind="calibrated" for a model-based method (code INTERVAL_KIND): its inner
    level would rebuild and refit every outer replicate's own model, which is not
    defined here."""
    if is_model_method(method):
        raise InvalidParameterError(
            ErrorCode.INTERVAL_KIND,
            "kind",
            f"kind='calibrated' resamples each replicate again and is defined for "
            f"resampling methods, not the model-based {type(method).__name__}",
            "pass kind='percentile', 'basic' or 'normal'",
        )
    return method


def check_studentized(statistic, method):
    """Refuse what kind="studentized" is not defined for: a statistic other than the
    mean (code STATISTIC), a model-based or tapered method (code INTERVAL_KIND)."""
    spec = check_statistic(statistic)
    if spec.kind != "mean":
        raise InvalidParameterError(
            ErrorCode.STATISTIC,
            "statistic",
            "kind='studentized' studentizes the mean by its fixed-b long-run standard error "
            f"and is defined for statistic='mean' only, not {spec.kind!r}",
            "pass statistic='mean', or kind='percentile', 'basic', 'normal' or 'calibrated'",
        )
    if is_model_method(method) or isinstance(method, TaperedBlock):
        raise InvalidParameterError(
            ErrorCode.INTERVAL_KIND,
            "kind",
            f"kind='studentized' needs replicates that are resampled values, which "
            f"{type(method).__name__} does not give",
            "use IID, MovingBlock, CircularBlock, NonOverlappingBlock or StationaryBlock, or kind='percentile'",
        )
    return spec


def fixed_b_standard_error(values):
    """se(v) of item 1 of ``studentized``: the Kiefer-Vogelsang b = 1 standard error of
    the mean of ``values`` (a sequence of floats, in the data's units)."""
    n = len(values)
    if min(values) == max(values):
        return 0.0  # constant: the rounding of fsum(v) / n must not make a tiny se
    mean = math.fsum(values) / n
    partial, squares = 0.0, []
    for value in values:
        partial = partial + (value - mean)
        squares.append(partial * partial)
    return math.sqrt(2.0 * math.fsum(squares) / (n * n) / n)


def constant_series_error():
    """The error for a studentized interval whose series, or a resample, is constant."""
    return InvalidDataError(
        ErrorCode.DATA_CONSTANT,
        "x",
        "the series (or one of its resamples) is constant, so its fixed-b standard error is 0 "
        "and kind='studentized' is undefined",
        "pass a series that varies, or use kind='percentile'",
    )


def studentized_bounds(replicates, point, alpha, studentization):
    """(lower, upper) of item 3 of ``studentized`` from the B means ``replicates``, theta
    ``point`` and ``studentization`` = (se, [se*_b]) of one component."""
    standard_error, replicate_errors = studentization
    if standard_error == 0.0 or min(replicate_errors) == 0.0:
        raise constant_series_error()
    ordered = sorted((s - point) / e for s, e in zip(replicates, replicate_errors, strict=True))
    low = quantile_sorted(ordered, alpha / 2.0)
    high = quantile_sorted(ordered, 1.0 - alpha / 2.0)
    return point - high * standard_error, point - low * standard_error


def calibration_point(inner_statistics, point):
    """u_b of one outer replicate and one component: the mid-rank share of its C inner
    statistics below ``point`` (theta), (less + 0.5 * equal) / C as a float."""
    less = sum(1 for t in inner_statistics if t < point)
    equal = sum(1 for t in inner_statistics if t == point)
    return (less + 0.5 * equal) / len(inner_statistics)


def calibrated_levels(calibration, alpha):
    """(lambda_lo, lambda_hi): the alpha/2 and 1 - alpha/2 linear quantiles of the B
    calibration points u_b of one component (levels in [0, 1])."""
    ordered = sorted(calibration)
    return quantile_sorted(ordered, alpha / 2.0), quantile_sorted(ordered, 1.0 - alpha / 2.0)


def tail_levels(kind, alpha, calibration=None):
    """The (lower, upper) quantile levels of the replicates that a percentile-style
    interval reads: nominal, or calibrated from ``calibration`` (the u_b)."""
    if kind == CALIBRATED:
        return calibrated_levels(calibration, alpha)
    return alpha / 2.0, 1.0 - alpha / 2.0


def bootstrap_standard_error(replicates):
    """Standard deviation of the replicates, divisor B."""
    centre = math.fsum(replicates) / len(replicates)
    return math.sqrt(math.fsum((r - centre) * (r - centre) for r in replicates) / len(replicates))


def interval(kind, replicates, point, alpha, calibration=None, studentization=None):
    """Return (lower, upper) for one scalar statistic; ``replicates`` are its B values.

    ``calibration`` holds its B calibration points u_b (kind "calibrated" only);
    ``studentization`` its (se, [se*_b]) (kind "studentized" only).
    """
    kind = check_companion(check_kind(kind), calibration, studentization)
    if kind == STUDENTIZED:
        return studentized_bounds(replicates, point, alpha, studentization)
    if kind == "normal":
        half_width = NormalDist().inv_cdf(1.0 - alpha / 2.0) * bootstrap_standard_error(replicates)
        return point - half_width, point + half_width
    ordered = sorted(replicates)
    low_level, high_level = tail_levels(kind, alpha, calibration)
    low = quantile_sorted(ordered, low_level)
    high = quantile_sorted(ordered, high_level)
    if kind in ("percentile", CALIBRATED):
        return low, high
    return 2.0 * point - high, 2.0 * point - low
