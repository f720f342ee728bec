"""Performance measures of a simulation study, each with its Monte Carlo standard error.

The measures and their Monte Carlo (MC) SEs are those of Morris, White and Crowther,
"Using simulation studies to evaluate statistical methods", Statistics in Medicine
2019;38:2074-2102, Table 6 (doi:10.1002/sim.8086), with these bootmark conventions:

* relative measures (``relative_bias``, ``relative_error_modse``) are fractions, not the
  paper's percentages: multiply by 100 for the paper's figures;
* ``rejection`` is the share of intervals that exclude a null value (the paper counts
  p-values <= alpha; for a test that inverts the interval the two agree);
* ``relative_bias``, ``mean_width`` and ``median_width`` are not rows of Table 6. The MC SE
  of relative bias is that of bias over |theta|; of mean width, the SD of the widths over
  sqrt(n_sim); of median width, a distribution-free order-statistic estimate
  (McKean & Schrader, 1984), described in :func:`interval_measures`.

Units: ``bias``, ``empirical_se``, ``model_se`` and both widths are in the estimand's
(data) units; ``mse`` is in data units squared; every other measure is a fraction. An MC SE
is in the units of its measure. A measure that is undefined for the data (relative bias with
theta = 0, model SE with an SE missing, rejection without a null) is ``None``, as is its
MC SE; so is an MC SE whose formula divides by zero.

Every sum is a :func:`math.fsum`, so results do not depend on summation order or platform.
The functions are pure and the module keeps no state.

Examples
--------
>>> bias = point_measures([1.0, 2.0, 3.0, 6.0], [1.0, 1.0, 2.0, 2.0], truth=2.0)[0]
>>> bias.measure, bias.estimate, round(bias.mc_se, 6)
('bias', 1.0, 1.080123)
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

__all__ = [
    "CONDITIONAL_COVERAGES",
    "FORECAST_MEASURES",
    "INTERVAL_MEASURES",
    "MEASURES",
    "MEDIAN_SE_Z",
    "POINT_KIND",
    "POINT_MEASURES",
    "Estimate",
    "forecast_measures",
    "interval_measures",
    "point_measures",
]

#: The kind under which the measures of the point estimate and its SE are filed.
POINT_KIND = "point"
POINT_MEASURES: tuple[str, ...] = (
    "bias",
    "relative_bias",
    "empirical_se",
    "model_se",
    "relative_error_modse",
    "mse",
)
INTERVAL_MEASURES: tuple[str, ...] = (
    "coverage",
    "bias_eliminated_coverage",
    "rejection",
    "mean_width",
    "median_width",
)
MEASURES: tuple[str, ...] = POINT_MEASURES + INTERVAL_MEASURES
# Coverage among the series whose last observed value lies in the lowest, middle or
# highest third of that value's distribution, in that order (:func:`forecast_measures`).
CONDITIONAL_COVERAGES: tuple[str, ...] = ("coverage_low", "coverage_mid", "coverage_high")
# The measures of a prediction interval at one horizon (:func:`forecast_measures`).
FORECAST_MEASURES: tuple[str, ...] = (
    "coverage",
    "mean_width",
    "median_width",
    "winkler",
    "miss_below",
    "miss_above",
    *CONDITIONAL_COVERAGES,
)
_KNOWN = MEASURES + tuple(name for name in FORECAST_MEASURES if name not in MEASURES)

# The standard normal 0.975 quantile, Phi^-1(0.975): the z of the order-statistic ~95%
# interval for the median whose half-length / z is the MC SE of the median width.
MEDIAN_SE_Z = 1.959963984540054


@dataclass(frozen=True)
class Estimate:
    """One performance measure's estimate and its Monte Carlo SE.

    Parameters
    ----------
    measure : str
        One of :data:`MEASURES`.
    estimate : float or None
        The estimate, in the measure's units (module docstring); ``None`` when undefined.
    mc_se : float or None
        Its Monte Carlo SE, in the same units, >= 0; ``None`` when undefined (always when
        ``estimate`` is ``None``).

    Raises
    ------
    ValueError
        ``measure`` is not in :data:`MEASURES`; ``estimate`` or ``mc_se`` is not a finite
        real number or ``None``; ``mc_se`` is negative, or given without an estimate.

    Examples
    --------
    >>> Estimate("coverage", 0.95, 0.0069)
    Estimate(measure='coverage', estimate=0.95, mc_se=0.0069)
    >>> Estimate("rejection", None, None).estimate is None
    True
    """

    measure: str
    estimate: float | None
    mc_se: float | None

    def __post_init__(self) -> None:
        if self.measure not in _KNOWN:
            raise ValueError(f"measure: {self.measure!r} is not one of {_KNOWN}")
        for name in ("estimate", "mc_se"):
            value = getattr(self, name)
            if value is not None:
                # Plain Python floats only (a numpy float64 would leak into JSON as its subclass).
                object.__setattr__(self, name, _finite(f"{name} of {self.measure}", value))
        if self.mc_se is not None and (self.estimate is None or self.mc_se < 0.0):
            raise ValueError(
                f"mc_se of {self.measure}: {self.mc_se!r} must be >= 0 and needs an estimate (got {self.estimate!r})"
            )

    def to_json(self) -> dict[str, Any]:
        """The estimate as a JSON-ready dict.

        Returns
        -------
        dict
            ``{"measure": str, "estimate": float | None, "mc_se": float | None}``; floats are
            plain, finite Python floats (undefined values are ``None``, never NaN or inf).

        Examples
        --------
        >>> Estimate("mse", 4.5, 3.840573).to_json()
        {'measure': 'mse', 'estimate': 4.5, 'mc_se': 3.840573}
        """
        return {"measure": self.measure, "estimate": self.estimate, "mc_se": self.mc_se}

    @classmethod
    def from_json(cls, item: Mapping[str, Any]) -> Estimate:
        """The estimate that :meth:`to_json` wrote: its exact inverse.

        Parameters
        ----------
        item : mapping
            Exactly the keys ``measure``, ``estimate`` and ``mc_se``.

        Returns
        -------
        Estimate

        Raises
        ------
        ValueError
            ``item`` is not a mapping with exactly those keys, or its values are invalid
            (as for the constructor).

        Examples
        --------
        >>> item = Estimate("bias", -0.25, 0.01).to_json()
        >>> Estimate.from_json(item) == Estimate("bias", -0.25, 0.01)
        True
        """
        keys = ("measure", "estimate", "mc_se")
        if not hasattr(item, "keys") or sorted(item.keys()) != sorted(keys):
            raise ValueError(f"item: an estimate needs exactly the keys {keys}, got {item!r}")
        return cls(measure=item["measure"], estimate=item["estimate"], mc_se=item["mc_se"])


def point_measures(
    points: Iterable[float], standard_errors: Iterable[float | None] | None, truth: float
) -> tuple[Estimate, ...]:
    """The six :data:`POINT_MEASURES` of ``n_sim`` repetitions' point estimates and SEs.

    With theta the truth, theta_i the i-th point estimate, thbar their mean, n = n_sim and
    v_i = SE_i^2 (Morris et al. 2019, Table 6, except where noted):

    * ``bias`` = thbar - theta, MC SE sqrt(sum (theta_i - thbar)^2 / (n (n - 1)));
    * ``relative_bias`` = bias / theta (a fraction; ``None`` if theta = 0), MC SE that of
      bias / |theta| (not in Table 6);
    * ``empirical_se`` = sqrt(sum (theta_i - thbar)^2 / (n - 1)), MC SE
      EmpSE / sqrt(2 (n - 1));
    * ``model_se`` = sqrt(mean of v_i) (Morris's ModSE), MC SE
      sqrt(Var(v) / (4 n ModSE^2)), Var the sample variance (divisor n - 1);
    * ``relative_error_modse`` = ModSE / EmpSE - 1 (a fraction), MC SE
      (ModSE / EmpSE) sqrt(Var(v) / (4 n ModSE^4) + 1 / (2 (n - 1)));
    * ``mse`` = mean of (theta_i - theta)^2, MC SE
      sqrt(sum ((theta_i - theta)^2 - MSE)^2 / (n (n - 1))).

    The MC SEs of ``empirical_se``, ``model_se`` and ``relative_error_modse`` are Table 6's
    approximations (they take theta_i as near-normal and SE_i independent of theta_i).

    Parameters
    ----------
    points : iterable of float
        The point estimates theta_i, in data units; n_sim >= 2 of them, all finite.
    standard_errors : iterable of float or None, or None
        The model (here: bootstrap) SE of each point, in data units, finite and >= 0; as
        many as ``points``. An entry may be ``None`` (the SE is missing): then ``model_se``
        and ``relative_error_modse`` are ``Estimate(name, None, None)``. ``None`` in place of
        the whole sequence means every SE is missing.
    truth : float
        The true value theta of the estimand, in data units; finite.

    Returns
    -------
    tuple of Estimate
        One per name of :data:`POINT_MEASURES`, in that order. Besides the cases above, an
        estimate whose formula divides by zero is ``None`` (``relative_error_modse`` when all
        points are equal), as is an MC SE that does (``model_se``'s and
        ``relative_error_modse``'s when every SE is 0).

    Raises
    ------
    ValueError
        Fewer than 2 points; ``standard_errors`` of another length; a non-finite or
        non-numeric entry or truth; a negative SE. The message names the argument.

    Examples
    --------
    >>> measures = point_measures([1.0, 2.0, 3.0, 6.0], [1.0, 1.0, 2.0, 2.0], truth=2.0)
    >>> for e in measures:
    ...     print(e.measure, round(e.estimate, 6), round(e.mc_se, 6))
    bias 1.0 1.080123
    relative_bias 0.5 0.540062
    empirical_se 2.160247 0.881917
    model_se 1.581139 0.273861
    relative_error_modse -0.268075 0.324588
    mse 4.5 3.840573
    >>> point_measures([0.1, -0.1], [None, 0.2], truth=0.0)[1]
    Estimate(measure='relative_bias', estimate=None, mc_se=None)
    """
    thetas = _finite_list("points", points)
    n = _check_repetitions("points", thetas)
    if standard_errors is None:
        variances: list[float] | None = None
    else:
        ses = list(standard_errors)
        _check_same_length("points", n, "standard_errors", len(ses))
        variances = []
        for index, se in enumerate(ses):
            if se is None:
                variances = None
                continue
            value = _finite(f"standard_errors[{index}]", se)
            if value < 0.0:
                raise ValueError(f"standard_errors[{index}]: a standard error is >= 0, got {value!r}")
            if variances is not None:
                variances.append(value * value)
    theta = _finite("truth", truth)

    mean = math.fsum(thetas) / n
    sum_squares = math.fsum((t - mean) ** 2 for t in thetas)
    bias = mean - theta
    bias_se = math.sqrt(sum_squares / (n * (n - 1)))
    empirical_se = math.sqrt(sum_squares / (n - 1))
    squared_errors = [(t - theta) ** 2 for t in thetas]
    mse = math.fsum(squared_errors) / n
    mse_se = math.sqrt(math.fsum((e - mse) ** 2 for e in squared_errors) / (n * (n - 1)))

    if theta == 0.0:
        relative_bias = Estimate("relative_bias", None, None)
    else:
        relative_bias = _estimate("relative_bias", bias / theta, bias_se / abs(theta))

    if variances is None:
        model_se = Estimate("model_se", None, None)
        relative_error = Estimate("relative_error_modse", None, None)
    else:
        mean_variance = math.fsum(variances) / n
        modse = math.sqrt(mean_variance)
        variance_of_variances = math.fsum((v - mean_variance) ** 2 for v in variances) / (n - 1)
        modse_se = _divide(variance_of_variances, 4.0 * n * mean_variance, root=True)
        model_se = _estimate("model_se", modse, modse_se)
        if empirical_se == 0.0:
            relative_error = Estimate("relative_error_modse", None, None)
        else:
            ratio = modse / empirical_se
            first = _divide(variance_of_variances, 4.0 * n * mean_variance * mean_variance)
            relative_se = None if first is None else ratio * math.sqrt(first + 1.0 / (2.0 * (n - 1)))
            relative_error = _estimate("relative_error_modse", ratio - 1.0, relative_se)

    return (
        _estimate("bias", bias, bias_se),
        relative_bias,
        _estimate("empirical_se", empirical_se, empirical_se / math.sqrt(2.0 * (n - 1))),
        model_se,
        relative_error,
        _estimate("mse", mse, mse_se),
    )


def interval_measures(
    lowers: Iterable[float],
    uppers: Iterable[float],
    truth: float,
    mean_point: float,
    null: float | None = None,
) -> tuple[Estimate, ...]:
    """The five :data:`INTERVAL_MEASURES` of one interval kind over ``n_sim`` repetitions.

    With [L_i, U_i] the i-th interval, w_i = U_i - L_i its width and n = n_sim:

    * ``coverage`` = share of i with L_i <= theta <= U_i (Table 6), MC SE sqrt(p (1 - p) / n);
    * ``bias_eliminated_coverage`` = share with L_i <= thbar <= U_i, thbar = ``mean_point``
      (Table 6), MC SE likewise;
    * ``rejection`` = share with ``null`` < L_i or U_i < ``null``: power when the null differs
      from the truth, size (type I error) when it equals it; MC SE likewise. Table 6 counts
      p_i <= alpha; a test that inverts the interval rejects exactly when the interval
      excludes the null. ``Estimate("rejection", None, None)`` when ``null`` is ``None``;
    * ``mean_width`` = mean of w_i, MC SE sd(w) / sqrt(n), sd with divisor n - 1 (not in
      Table 6);
    * ``median_width`` = median of w_i (mean of the middle two when n is even), MC SE by the
      distribution-free order-statistic estimate of McKean & Schrader (1984) (not in
      Table 6, which gives none): with w_(1) <= ... <= w_(n) the sorted widths, z =
      :data:`MEDIAN_SE_Z` = Phi^-1(0.975) and c = (n + 1) / 2 - z sqrt(n) / 2 rounded to the
      nearest integer (halves up) and raised to at least 1, the ranks c and n + 1 - c bound a
      ~95% distribution-free interval for the median, and the MC SE is
      (w_(n+1-c) - w_(c)) / (2 z). It is 0 when those widths tie.

    Parameters
    ----------
    lowers, uppers : iterable of float
        The interval bounds L_i and U_i, in data units; finite, L_i <= U_i, as many of each,
        n_sim >= 2.
    truth : float
        The true value theta, in data units; finite.
    mean_point : float
        thbar, the mean of the repetitions' point estimates, in data units; finite.
    null : float or None, default None
        The null value whose exclusion counts as a rejection, in data units; ``None`` for no
        rejection measure.

    Returns
    -------
    tuple of Estimate
        One per name of :data:`INTERVAL_MEASURES`, in that order. Shares are fractions in
        [0, 1]; widths and their MC SEs are in data units.

    Raises
    ------
    ValueError
        Fewer than 2 intervals; ``lowers`` and ``uppers`` of different lengths; a non-finite
        or non-numeric bound, truth, mean_point or null; a lower bound above its upper bound.
        The message names the argument.

    Examples
    --------
    >>> measures = interval_measures([0.0, 1.0, 2.5, 3.0], [2.0, 3.0, 3.5, 9.0], truth=2.0, mean_point=3.0, null=0.0)
    >>> for e in measures:
    ...     print(e.measure, e.estimate, round(e.mc_se, 6))
    coverage 0.5 0.25
    bias_eliminated_coverage 0.75 0.216506
    rejection 0.75 0.216506
    mean_width 2.75 1.108678
    median_width 2.0 1.275534
    >>> interval_measures([0.0, 1.0], [2.0, 3.0], truth=1.5, mean_point=1.5)[2]
    Estimate(measure='rejection', estimate=None, mc_se=None)
    """
    lows = _finite_list("lowers", lowers)
    highs = _finite_list("uppers", uppers)
    n = _check_repetitions("lowers", lows)
    _check_same_length("lowers", n, "uppers", len(highs))
    theta = _finite("truth", truth)
    thbar = _finite("mean_point", mean_point)
    null_value = None if null is None else _finite("null", null)
    for index, (low, high) in enumerate(zip(lows, highs, strict=True)):
        if low > high:
            raise ValueError(f"lowers[{index}] = {low!r} lies above uppers[{index}] = {high!r}")

    coverage = _share("coverage", sum(1 for low, high in zip(lows, highs, strict=True) if low <= theta <= high), n)
    bias_eliminated = _share(
        "bias_eliminated_coverage", sum(1 for low, high in zip(lows, highs, strict=True) if low <= thbar <= high), n
    )
    if null_value is None:
        rejection = Estimate("rejection", None, None)
    else:
        excluded = sum(1 for low, high in zip(lows, highs, strict=True) if null_value < low or high < null_value)
        rejection = _share("rejection", excluded, n)

    return (coverage, bias_eliminated, rejection, *_widths(lows, highs))


def _widths(lows: list[float], highs: list[float]) -> tuple[Estimate, Estimate]:
    """``mean_width`` and ``median_width`` with their MC SEs (:func:`interval_measures`)."""
    n = len(lows)
    widths = sorted(high - low for low, high in zip(lows, highs, strict=True))
    mean_width = math.fsum(widths) / n
    mean_width_se = math.sqrt(math.fsum((w - mean_width) ** 2 for w in widths) / ((n - 1) * n))
    middle = n // 2
    median_width = widths[middle] if n % 2 else (widths[middle - 1] + widths[middle]) / 2.0
    rank = max(1, math.floor((n + 1) / 2.0 - MEDIAN_SE_Z * math.sqrt(n) / 2.0 + 0.5))
    median_width_se = (widths[n - rank] - widths[rank - 1]) / (2.0 * MEDIAN_SE_Z)
    return _estimate("mean_width", mean_width, mean_width_se), _estimate("median_width", median_width, median_width_se)


def forecast_measures(
    lowers: Iterable[float],
    uppers: Iterable[float],
    realised: Iterable[float],
    alpha: float,
    thirds: Iterable[int],
) -> tuple[Estimate, ...]:
    """The nine :data:`FORECAST_MEASURES` of a prediction interval at one horizon, over
    ``n_sim`` repetitions.

    With [L_i, U_i] the i-th interval, y_i the value it predicts (realised by the process
    after the history the forecaster saw), w_i = U_i - L_i and n = n_sim:

    * ``coverage`` = share of i with L_i <= y_i <= U_i, MC SE sqrt(p (1 - p) / n);
    * ``mean_width`` and ``median_width``, as in :func:`interval_measures`;
    * ``winkler`` = mean of the interval score (Winkler 1972; Gneiting & Raftery 2007)
      S_i = w_i + (2 / alpha) (L_i - y_i) 1{y_i < L_i} + (2 / alpha) (y_i - U_i) 1{y_i > U_i},
      lower is better, MC SE sd(S) / sqrt(n) (divisor n - 1);
    * ``miss_below`` / ``miss_above`` = share with y_i < L_i / y_i > U_i (a central
      interval misses each way with probability alpha / 2), MC SE as coverage's;
    * ``coverage_low``, ``coverage_mid``, ``coverage_high``: coverage among the
      repetitions whose ``thirds`` label is 0, 1 or 2 (the third of the distribution of
      the last observed value they fall in), MC SE sqrt(p (1 - p) / m) with m the
      repetitions in that third; ``None`` when a third holds none.

    Parameters
    ----------
    lowers, uppers, realised : iterable of float
        L_i, U_i and y_i, in data units; finite, L_i <= U_i, as many of each, n_sim >= 2.
    alpha : float
        The interval's two-sided tail, 0 < alpha < 1 (nominal coverage 1 - alpha).
    thirds : iterable of int
        Each repetition's third, 0, 1 or 2.

    Returns
    -------
    tuple of Estimate
        One per name of :data:`FORECAST_MEASURES`, in that order. Shares are fractions;
        widths, scores and their MC SEs are in data units.

    Raises
    ------
    ValueError
        Fewer than 2 repetitions, lengths that differ, a non-finite bound or value, a lower
        bound above its upper bound, alpha outside (0, 1), a third other than 0, 1, 2.

    Examples
    --------
    >>> found = forecast_measures([0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 2.0, 2.0], [0.5, 1.5, -1.0, 1.0], 0.5, [0, 1, 2, 0])
    >>> for e in found:
    ...     print(e.measure, e.estimate, None if e.mc_se is None else round(e.mc_se, 6))
    coverage 0.5 0.25
    mean_width 1.5 0.288675
    median_width 1.5 0.255107
    winkler 3.0 1.080123
    miss_below 0.25 0.216506
    miss_above 0.25 0.216506
    coverage_low 1.0 0.0
    coverage_mid 0.0 0.0
    coverage_high 0.0 0.0
    """
    lows = _finite_list("lowers", lowers)
    highs = _finite_list("uppers", uppers)
    values = _finite_list("realised", realised)
    n = _check_repetitions("lowers", lows)
    _check_same_length("lowers", n, "uppers", len(highs))
    _check_same_length("lowers", n, "realised", len(values))
    tail = _finite("alpha", alpha)
    if not 0.0 < tail < 1.0:
        raise ValueError(f"alpha: expected 0 < alpha < 1, got {alpha!r}")
    labels = list(thirds)
    _check_same_length("lowers", n, "thirds", len(labels))
    if any(label not in (0, 1, 2) for label in labels):
        raise ValueError(f"thirds: every label must be 0, 1 or 2, got {sorted(set(labels))}")
    for index, (low, high) in enumerate(zip(lows, highs, strict=True)):
        if low > high:
            raise ValueError(f"lowers[{index}] = {low!r} lies above uppers[{index}] = {high!r}")
    triples = list(zip(lows, highs, values, strict=True))
    covered = [low <= y <= high for low, high, y in triples]
    scores = [(high - low) + (2.0 / tail) * (max(low - y, 0.0) + max(y - high, 0.0)) for low, high, y in triples]
    winkler = math.fsum(scores) / n
    winkler_se = math.sqrt(math.fsum((score - winkler) ** 2 for score in scores) / ((n - 1) * n))
    conditional = []
    for third, name in enumerate(CONDITIONAL_COVERAGES):
        members = [hit for hit, label in zip(covered, labels, strict=True) if label == third]
        conditional.append(_share(name, sum(members), len(members)) if members else Estimate(name, None, None))
    return (
        _share("coverage", sum(covered), n),
        *_widths(lows, highs),
        _estimate("winkler", winkler, winkler_se),
        _share("miss_below", sum(y < low for low, _, y in triples), n),
        _share("miss_above", sum(y > high for _, high, y in triples), n),
        *conditional,
    )


def _finite(name: str, value: Any) -> float:
    """``value`` as a plain float, or a ValueError naming ``name`` if it is not a finite real number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name}: expected a finite real number, got {value!r}")
    result = float(value)
    if not math.isfinite(result):
        raise ValueError(f"{name}: expected a finite real number, got {value!r}")
    return result


def _finite_list(name: str, values: Iterable[Any]) -> list[float]:
    if values is None or isinstance(values, str | bytes):
        raise ValueError(f"{name}: expected a sequence of finite real numbers, got {values!r}")
    return [_finite(f"{name}[{index}]", value) for index, value in enumerate(values)]


def _check_repetitions(name: str, values: list[float]) -> int:
    if len(values) < 2:
        raise ValueError(f"{name}: a simulation study needs at least 2 repetitions (n_sim >= 2), got {len(values)}")
    return len(values)


def _check_same_length(name: str, length: int, other: str, other_length: int) -> None:
    if length != other_length:
        raise ValueError(f"{name} and {other} differ in length: {length} != {other_length}")


def _divide(numerator: float, denominator: float, root: bool = False) -> float | None:
    """numerator / denominator (its square root if ``root``), or None when the denominator is 0."""
    if denominator == 0.0:
        return None
    quotient = numerator / denominator
    return math.sqrt(quotient) if root else quotient


def _estimate(measure: str, estimate: float, mc_se: float | None) -> Estimate:
    """An Estimate, with a value that overflowed to inf (or became NaN) reported as undefined."""
    if not math.isfinite(estimate):
        return Estimate(measure, None, None)
    return Estimate(measure, estimate, mc_se if mc_se is not None and math.isfinite(mc_se) else None)


def _share(measure: str, hits: int, n: int) -> Estimate:
    p = hits / n
    return Estimate(measure, p, math.sqrt(p * (1.0 - p) / n))
