"""Every warning bootmark issues names the user's line, not a line inside bootmark.

Each public entry point of both twins (bootstrap, bootstrap_reduce, conf_int) is called
from this file in a way that triggers each warning it can issue, and the warning's
reported filename must be this file. Negative control: the old fixed ``stacklevel`` reports a file
inside bootmark, which the same check refuses.
"""

import warnings

import numpy as np
import pytest

from bootmark import engine, reference
from bootmark.reference import errors

TWINS = [pytest.param(reference, id="reference"), pytest.param(engine, id="engine")]
SERIES = [0.3, -0.1, 0.8, 1.2, 0.4, -0.6, -0.2, 0.9, 1.1, 0.5, -0.3, 0.2, 0.7, -0.4, 0.1, 0.6, 1.0, -0.5, 0.0, 0.35]
NEAR_UNIT_ROOT = [0.0, -0.45, -2.29, -0.71, 2.58, 2.96, 4.21, 5.41, 6.06, 6.67, 7.61, 6.96]


def _data(twin, values):
    return values if twin is reference else np.asarray(values)


def _recorded(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    assert caught, "the call was expected to warn"
    return caught


def _whole_length(twin):
    return twin.bootstrap(_data(twin, SERIES), twin.MovingBlock(len(SERIES)), n_bootstraps=5, seed=1)


def _whole_length_interval(twin):
    return twin.conf_int(_data(twin, SERIES), "mean", twin.MovingBlock(len(SERIES)), n_bootstraps=5, seed=1)


def _recursive_block_wild(twin):
    method = twin.ResidualBootstrap(twin.AR(1), twin.BlockWild("rademacher", 4))
    return twin.bootstrap_reduce(_data(twin, SERIES), method, "ar_coef", 5, seed=1)


def _recursive_block_wild_interval(twin):
    method = twin.ResidualBootstrap(twin.AR(1), twin.BlockWild("rademacher", 4))
    return twin.conf_int(_data(twin, SERIES), "ar_coef", method, n_bootstraps=5, seed=1)


def _skipped_refits(twin):
    method = twin.ResidualBootstrap(twin.AR(1), twin.Wild(), explosive="skip")
    return twin.bootstrap_reduce(_data(twin, NEAR_UNIT_ROOT), method, "ar_coef", 200, seed=3)


CALLS = [
    pytest.param(_whole_length, reference.BlockLengthWarning, id="bootstrap-block-length"),
    pytest.param(_whole_length_interval, reference.BlockLengthWarning, id="conf_int-block-length"),
    pytest.param(_recursive_block_wild, reference.BlockWildDesignWarning, id="bootstrap_reduce-block-wild"),
    pytest.param(_recursive_block_wild_interval, reference.BlockWildDesignWarning, id="conf_int-block-wild"),
    pytest.param(_skipped_refits, reference.SkippedReplicatesWarning, id="bootstrap_reduce-skipped"),
]


@pytest.mark.parametrize("twin", TWINS)
@pytest.mark.parametrize("call,category", CALLS)
def test_warning_names_the_callers_line(twin, call, category):
    caught = [w for w in _recorded(lambda: call(twin)) if issubclass(w.category, category)]
    assert caught, f"expected a {category.__name__}"
    assert all(w.filename == __file__ for w in caught), [w.filename for w in caught]


@pytest.mark.parametrize("twin", TWINS)
def test_a_fixed_stacklevel_is_refused_by_the_same_check(twin, monkeypatch):
    """Negative control: with the old fixed stacklevel the warning names a bootmark file."""
    from bootmark.reference import models

    def fixed_level(message, category):
        warnings.warn(message, category, stacklevel=4)

    monkeypatch.setattr(models, "warn_at_caller", fixed_level)
    caught = [
        w
        for w in _recorded(lambda: _recursive_block_wild(twin))
        if issubclass(w.category, reference.BlockWildDesignWarning)
    ]
    assert caught and caught[0].filename != __file__


def test_warn_at_caller_from_a_nested_bootmark_frame_names_this_file():
    caught = _recorded(lambda: errors.warn_at_caller("nested", reference.BlockLengthWarning))
    assert caught[0].filename == __file__


def test_skipped_refits_do_happen_for_this_series():
    """The skipped-refit case above is meaningful: some refits of the series are explosive."""
    method = reference.ResidualBootstrap(reference.AR(1), reference.Wild(), explosive="skip")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert reference.bootstrap_reduce(NEAR_UNIT_ROOT, method, "ar_coef", 200, seed=3).skipped
