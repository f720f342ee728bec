"""``scipy.stats.bootstrap`` as a contender: the worked example of README "Audit your own interval".

bootmark calls :func:`interval` once per series and interval kind (the contract of
``bootmark.studies.plugins``). It asks SciPy for the interval exactly as a SciPy user
would: one ``scipy.stats.bootstrap`` call on the series, with

* ``method`` "percentile", "basic" or "BCa" (bootmark's kinds ``percentile``, ``basic``
  and ``bca``);
* ``n_resamples`` the study's B, ``confidence_level`` 1 - alpha;
* ``rng = numpy.random.default_rng(seed)``: the series' bootstrap seed, the only source of
  randomness, so every interval replays bit for bit;
* the study's statistic, which bootmark passes as a callable with an ``axis`` argument
  (SciPy's vectorised form).

SciPy resamples single observations, i.i.d.: its intervals assume independent data,
which is what the audit puts to the test on an autocorrelated series.
"""

import numpy as np

_METHODS = {"percentile": "percentile", "basic": "basic", "bca": "BCa"}


def interval(series, *, statistic, alpha, kind, n_bootstraps, seed):
    """The ``1 - alpha`` interval ``scipy.stats.bootstrap`` gives for ``statistic`` of ``series``.

    Returns ``lower``, ``upper`` (data units) and ``se``, SciPy's bootstrap standard error
    (the standard deviation of its B replicates, ddof=1).
    """
    # late: SciPy is this example's dependency, not bootmark's
    from scipy import stats

    result = stats.bootstrap(
        (np.asarray(series, dtype=np.float64),),
        statistic,
        n_resamples=n_bootstraps,
        confidence_level=1.0 - alpha,
        method=_METHODS[kind],
        vectorized=True,
        axis=-1,
        rng=np.random.default_rng(seed),
    )
    low, high = result.confidence_interval
    return {"lower": float(low), "upper": float(high), "se": float(result.standard_error)}


# bootmark refuses a protocol that asks for another kind, and records SciPy's version
interval.kinds = tuple(_METHODS)
interval.requires = ("scipy",)
