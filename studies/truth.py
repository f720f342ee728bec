"""Monte Carlo truths for processes without a closed form, cached as receipts.

A truth receipt (kind ``truth``, in the workspace's ``receipts/studies/truth/``) records the process,
n, the number of draws, the generator seed, the mean and standard deviation of the
statistic over the draws, and the Monte Carlo error of that standard deviation
(sd / sqrt(2 (draws - 1)), its large-sample SE for a near-normal statistic).

Processes stay pure: a process with a closed form answers ``truth(n, statistic)``; one
without (``monte_carlo_truth = True``) computes nothing and writes nothing. Its truth is
computed and cached only by the explicit step :func:`ensure_truths` (run by
``bootmark study run`` and ``verify`` before they need it, and on its own by
``bootmark study truth STUDY``); :func:`truth_of` then reads the newest matching receipt,
so a study and its ``verify`` use the same truth.
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


class TruthMissingError(Exception):
    """A Monte Carlo truth was asked for before the step that computes it was run."""


def is_monte_carlo(process):
    """Whether ``process``'s truth is a Monte Carlo estimate (a truth receipt)."""
    return bool(getattr(process, "monte_carlo_truth", False))


def truth_of(process, n, statistic, directory=None, draws=TRUTH_DRAWS, seed=TRUTH_SEED):
    """The :class:`~bootmark.studies.dgp.Truth` of ``statistic`` at series length ``n``.

    A closed form comes from the process; a Monte Carlo truth from its cached receipt in
    ``directory`` (default: the workspace's ``receipts/studies/truth``). Reads only:
    raises :class:`TruthMissingError` if that receipt was never computed."""
    if not is_monte_carlo(process):
        return process.truth(n, statistic)
    _check_monte_carlo_statistic(process, statistic)
    path = receipts.newest_receipt(
        workspace.directory_for("truth", directory), "truth", _matches(process, n, draws, seed)
    )
    if path is None:
        raise TruthMissingError(
            f"the Monte Carlo truth of {type(process).__name__} at n = {n} has not been computed in this "
            "workspace; run `bootmark study truth <STUDY>` (or `bootmark study run`, which computes it first)"
        )
    return _truth_from(process, path)


def _check_monte_carlo_statistic(process, statistic):
    if statistic != "ar1_slope":
        process.truth(0, statistic)  # the process's own typed error for a statistic it has no truth for


def ensure_truths(process, ns, statistic, directory=None, draws=TRUTH_DRAWS, seed=TRUTH_SEED, report=print):
    """The explicit step that computes and caches the Monte Carlo truths a study needs.

    For each n in ``ns`` with no matching truth receipt, simulates ``draws`` paths and
    writes one (``report`` is told which, and how long it takes); returns the receipt
    paths, one per n. A process with a closed form needs none: returns ()."""
    if not is_monte_carlo(process):
        return ()
    _check_monte_carlo_statistic(process, statistic)
    directory = workspace.directory_for("truth", directory)
    paths = []
    for n in ns:
        path = receipts.newest_receipt(directory, "truth", _matches(process, n, draws, seed))
        if path is None:
            report(f"computing the Monte Carlo truth of {type(process).__name__} at n = {n} ({draws:,} draws)")
            path = _compute_truth(process, n, draws, seed, directory)
            report(f"  truth receipt: {path}")
        paths.append(path)
    return tuple(paths)


def heteroskedastic_slope_truth(process, n, draws=TRUTH_DRAWS, seed=TRUTH_SEED, directory=None):
    """The Truth of the OLS slope: computed first if its receipt is missing (the explicit
    step, :func:`ensure_truths`), then read (:func:`truth_of`)."""
    ensure_truths(process, (n,), "ar1_slope", directory, draws, seed, report=lambda line: None)
    return truth_of(process, n, "ar1_slope", directory, draws, seed)


def _compute_truth(process, n, draws, seed, directory):
    """Simulate the slope's truth and write its receipt; return the receipt's path."""
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
    return receipts.write_receipt(receipts.seal("truth", started, body), directory)


def _truth_from(process, path):
    """The Truth a truth receipt records: value phi (what an interval should cover), SE the
    Monte Carlo standard deviation of the slope."""
    body = receipts.load_receipt(path)["body"]
    return Truth(
        float(process.phi),
        body["standard_deviation"],
        f"Monte Carlo: {body['draws']:,} draws, receipt {os.path.basename(path)}",
        body["monte_carlo_error"],
    )
