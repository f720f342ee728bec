"""Politis-White block lengths against arch.bootstrap.optimal_block_length (arch 8.0.0).

arch is an independent implementation of the same estimator; we follow its conventions
(see reference/blocklength.py) and must agree with it to 1e-9 relative on the raw
estimates. The one deliberate difference: "auto" resolves to ceil(estimate) floored at
1, where arch's raw estimate can be a fraction below 1.
"""

import math

import numpy as np
import pandas as pd
import pytest
from arch.bootstrap import optimal_block_length as arch_optimal_block_length

from bootmark import reference


def _ar1(phi, n, seed):
    rng = np.random.default_rng(seed)
    e = rng.standard_normal(n + 300)
    x = np.empty_like(e)
    x[0] = e[0]
    for t in range(1, len(e)):
        x[t] = phi * x[t - 1] + e[t]
    return x[300:]


def _arma11(n, seed):
    rng = np.random.default_rng(seed)
    e = rng.standard_normal(n + 1)
    x = np.zeros(n + 1)
    for t in range(1, n + 1):
        x[t] = 0.6 * x[t - 1] + e[t] + 0.4 * e[t - 1]
    return x[1:]


SERIES = {
    "ar1_phi0.2_n500": _ar1(0.2, 500, 1),
    "ar1_phi0.5_n1000": _ar1(0.5, 1000, 2),
    "ar1_phi0.7_n200": _ar1(0.7, 200, 3),
    "ar1_phi0.9_n2000": _ar1(0.9, 2000, 4),
    "ar1_phi-0.5_n400": _ar1(-0.5, 400, 5),
    "white_noise_n300": np.random.default_rng(13).standard_normal(300),
    "random_walk_differences_n800": np.diff(np.cumsum(np.random.default_rng(7).standard_normal(801))),
    "arma11_n600": _arma11(600, 8),
    "short_n12": _ar1(0.5, 12, 9),
}


@pytest.mark.parametrize("name", SERIES)
def test_univariate_estimates_match_arch(name):
    x = SERIES[name]
    ours = reference.optimal_block_length(x.tolist())
    theirs = arch_optimal_block_length(x)
    assert ours.stationary == pytest.approx(theirs["stationary"].iloc[0], rel=1e-9, abs=0)
    assert ours.circular == pytest.approx(theirs["circular"].iloc[0], rel=1e-9, abs=0)
    assert ours.stationary_length == max(1, math.ceil(theirs["stationary"].iloc[0]))
    assert ours.circular_length == max(1, math.ceil(theirs["circular"].iloc[0]))


def test_multivariate_frame_matches_arch_column_by_column():
    frame = pd.DataFrame(
        {
            "slow": SERIES["ar1_phi0.9_n2000"][:700],
            "fast": _ar1(0.2, 700, 10),
            "noise": np.random.default_rng(11).standard_normal(700),
        }
    )
    ours = reference.optimal_block_length(frame)
    theirs = arch_optimal_block_length(frame)
    assert ours.labels == ("slow", "fast", "noise")
    assert list(ours.stationary) == pytest.approx(theirs["stationary"].tolist(), rel=1e-9, abs=0)
    assert list(ours.circular) == pytest.approx(theirs["circular"].tolist(), rel=1e-9, abs=0)
    # The resolved length serves the most persistent column.
    assert ours.circular_length == max(math.ceil(v) for v in theirs["circular"])


def test_white_noise_estimate_below_one_is_floored_only_when_resolved():
    x = SERIES["white_noise_n300"]
    ours = reference.optimal_block_length(x.tolist())
    assert ours.stationary < 1.0  # arch agrees on the fraction (tested above)
    assert ours.stationary_length == 1


def test_auto_resolves_to_the_estimate():
    x = SERIES["ar1_phi0.7_n200"].tolist()
    estimate = reference.optimal_block_length(x)
    assert (
        reference.bootstrap(x, reference.MovingBlock("auto"), 2, seed=0).method.block_length == estimate.circular_length
    )
    assert (
        reference.bootstrap(x, reference.StationaryBlock("auto"), 2, seed=0).method.mean_block_length
        == estimate.stationary_length
    )


def test_negative_control_bandwidth_one_lag_short_disagrees_with_arch(monkeypatch):
    """The agreement test has teeth: reading m-hat as the paper's "last significant lag"
    (one lag less than arch's convention) moves the estimates off arch's."""
    from bootmark.reference import blocklength

    correct = blocklength.flat_top_bandwidth
    monkeypatch.setattr(blocklength, "flat_top_bandwidth", lambda m_hat, m_max: correct(m_hat, m_max) - 1)
    moved = 0
    for name in ("ar1_phi0.5_n1000", "ar1_phi0.9_n2000", "arma11_n600"):
        x = SERIES[name]
        theirs = arch_optimal_block_length(x)["circular"].iloc[0]
        ours = reference.optimal_block_length(x.tolist()).circular
        moved += abs(ours - theirs) > 1e-9 * theirs
    assert moved == 3
