"""The tapered block bootstrap: weights, windows and values."""

import math

import numpy as np
import pytest

from bootmark import reference
from bootmark.reference.taper import taper_weights, window_value


@pytest.mark.parametrize("window", ["tukey", "bartlett", "hann"])
@pytest.mark.parametrize("b", [1, 2, 7, 20])
def test_weights_are_symmetric_positive_and_keep_the_variance_scale(window, b):
    weights = taper_weights(reference.TaperedBlock(b, window))
    assert len(weights) == b
    assert all(w > 0 for w in weights)
    assert weights == pytest.approx(weights[::-1], rel=1e-12)
    assert math.fsum(w * w for w in weights) == pytest.approx(b, rel=1e-12)


def test_windows_have_their_closed_forms():
    for u in np.linspace(0.01, 0.99, 37):
        assert window_value("hann", u, None) == pytest.approx(math.sin(math.pi * u) ** 2, abs=1e-15)
        assert window_value("bartlett", u, None) == pytest.approx(1 - abs(2 * u - 1), abs=1e-15)
        assert window_value("tukey", u, 1.0) == pytest.approx(math.sin(math.pi * u) ** 2, abs=1e-15)
        flat = 0.25 <= u <= 0.75
        assert (window_value("tukey", u, 0.5) == 1.0) == flat


def test_tapered_indices_are_the_moving_block_indices():
    x = np.random.default_rng(0).standard_normal(50).tolist()
    tapered = reference.bootstrap(x, reference.TaperedBlock(6, "hann"), n_bootstraps=5, seed=8)
    moving = reference.bootstrap(x, reference.MovingBlock(6), n_bootstraps=5, seed=8)
    assert tapered.indices() == moving.indices()


def test_tapered_values_shrink_block_edges_towards_the_mean():
    x = np.random.default_rng(1).standard_normal(40)
    b = 8
    result = reference.bootstrap(x.tolist(), reference.TaperedBlock(b, "bartlett"), n_bootstraps=3, seed=2)
    weights = taper_weights(reference.TaperedBlock(b, "bartlett"))
    centre = float(np.mean(x))
    for row, values in zip(result.indices(), result.values(), strict=True):
        expected = [centre + weights[p % b] * (x[i] - centre) for p, i in enumerate(row)]
        assert values == pytest.approx(expected, rel=1e-13, abs=1e-13)


def test_tapered_bootstrap_variance_of_the_mean_tracks_the_long_run_variance():
    # For i.i.d. data the long-run variance is the variance, so n Var*(mean*) should be
    # close to the sample variance for any taper; an unscaled taper (no sqrt(b)/||w||)
    # would shrink it by ||w||^2 / b (0.33 for the Bartlett window at b = 10).
    x = np.random.default_rng(5).standard_normal(400).tolist()
    result = reference.bootstrap_reduce(x, reference.TaperedBlock(10, "bartlett"), "mean", n_bootstraps=800, seed=1)
    ratio = 400 * np.var(result.statistics) / np.var(x)
    assert 0.8 < ratio < 1.25
