"""Monte Carlo truths for processes without a closed form, cached as receipts.

A truth receipt (kind ``truth``, in the workspace's ``receipts/studies/truth/``) records the process,
n, the number of draws, the generator seed, the mean and standard deviation of the
statistic over the draws, and the Monte Carlo error of that standard deviation
(sd / sqrt(2 (draws - 1)), its large-sample SE for a near-normal statistic). The first
request computes and writes it; later requests read the newest matching receipt, so a
study and its ``verify`` use the same truth.
"""

import math
import os
from dataclasses import asdict

import numpy as np

from bootmark import provenance, receipts, workspace

from .dgp import Truth, ols_ar1_slope

TRUTH_DRAWS = 200_000  # as the published S2 truth (docs/published-figures.md)
TRUTH_SEED = 20260701
CHUNK_DRAWS = 10_000  # keeps a chunk of n = 600 paths under 50 MB


def _matches(process, n, draws, seed):
    wanted = {"process": type(process).__name__, "parameters": asdict(process), "n": n, "draws": draws, "seed": seed}
    return lambda receipt: {key: receipt["body"][key] for key in wanted} == wanted


def simulate_slope_truth(process, n, draws=TRUTH_DRAWS, seed=TRUTH_SEED):
    """(mean, sd) of the OLS AR(1) slope over ``draws`` paths of length n."""
    generator = np.random.default_rng(seed)
    done, slopes = 0, []
    while done < draws:
        size = min(CHUNK_DRAWS, draws - done)
        slopes.append(ols_ar1_slope(process.sample_many(n, size, generator)))
        done += size
    slopes = np.concatenate(slopes)
    return float(np.mean(slopes)), float(np.std(slopes, ddof=1))


def heteroskedastic_slope_truth(process, n, draws=TRUTH_DRAWS, seed=TRUTH_SEED, directory=None):
    """The :class:`~studies.dgp.Truth` of the OLS slope, from the cache or a new run.

    Its value is the process's phi (what an interval should cover); its SE is the Monte
    Carlo standard deviation of the slope. ``directory`` holds the truth receipts (default:
    the workspace's ``receipts/studies/truth``)."""
    directory = workspace.directory_for("truth", directory)
    path = receipts.newest_receipt(directory, "truth", _matches(process, n, draws, seed))
    if path is None:
        started = provenance.collect()
        mean, sd = simulate_slope_truth(process, n, draws, seed)
        body = {
            "process": type(process).__name__,
            "parameters": asdict(process),
            "n": n,
            "draws": draws,
            "seed": seed,
            "statistic": "ols_ar1_slope",
            "mean": mean,
            "standard_deviation": sd,
            "monte_carlo_error": sd / math.sqrt(2.0 * (draws - 1)),
            "generator": "numpy PCG64 default_rng",
        }
        started["finished_utc"] = provenance.utc_now()
        path = receipts.write_receipt(receipts.seal("truth", started, body), directory)
    body = receipts.load_receipt(path)["body"]
    return Truth(
        float(process.phi),
        body["standard_deviation"],
        f"Monte Carlo: {body['draws']:,} draws, receipt {os.path.basename(path)}",
        body["monte_carlo_error"],
    )
