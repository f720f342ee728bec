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

Examples
--------
>>> from bootmark.studies.dgp import AR1, HeteroskedasticAR1
>>> is_monte_carlo(AR1(0.5)), is_monte_carlo(HeteroskedasticAR1())
(False, True)
>>> truth_of(AR1(0.5), 200, "mean").value
0.0
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict
from typing import TYPE_CHECKING

import numpy as np
from tqdm import tqdm

from bootmark.core import provenance, receipts, workspace

from .dgp import Truth, ols_ar1_slope
from .plugins import PluginProcess, origin_of, study_statistic

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

__all__ = [
    "TruthMissingError",
    "ensure_truths",
    "heteroskedastic_slope_truth",
    "is_monte_carlo",
    "simulate_slope_truth",
    "simulate_statistic_truth",
    "truth_of",
]

TRUTH_DRAWS = 200_000  # as the published S2 truth (docs/published-figures.md)
TRUTH_SEED = 20260701
CHUNK_DRAWS = 10_000  # keeps a chunk of n = 600 paths under 50 MB


def _identity(process, statistic):
    """What a truth receipt must match: a built-in process by class name and fields (its
    one statistic, the slope, is implied, as in the receipts made before plugins); a
    user's process by import path, parameters and statistic."""
    if isinstance(process, PluginProcess):
        # the module's source hash too: an edited simulate() must not reuse an old truth
        source = origin_of("[dgp] callable", process.path).file_sha256
        return {
            "process": process.path,
            "parameters": dict(process.parameters),
            "statistic": statistic,
            "source_sha256": source,
        }
    return {"process": type(process).__name__, "parameters": asdict(process)}


def _matches(process, n, draws, seed, statistic="ar1_slope"):
    wanted = {**_identity(process, statistic), "n": n, "draws": draws, "seed": seed}
    return lambda receipt: {key: receipt["body"].get(key) for key in wanted} == wanted


def simulate_statistic_truth(
    process: PluginProcess,
    n: int,
    statistic: str,
    draws: int = TRUTH_DRAWS,
    seed: int = TRUTH_SEED,
    show_progress: bool = False,
) -> tuple[float, float]:
    """(mean, sd) of ``statistic`` over ``draws`` paths of a user's process (writes nothing).

    The paths come from ``process.simulate(n, generator)`` called ``draws`` times on one
    ``numpy.random.default_rng(seed)``, so the figures are a function of the process,
    n, draws and seed alone.

    Parameters
    ----------
    process : bootmark.studies.plugins.PluginProcess
        A user's process.
    n : int
        Series length (observations).
    statistic : str
        The study's statistic (a built-in name or an import path).
    draws : int, default TRUTH_DRAWS
        Simulated paths, >= 2.
    seed : int, default TRUTH_SEED
        Seed of the numpy generator.
    show_progress : bool, default False
        A tqdm bar over the draws on stderr (a user's ``simulate`` is Python, and
        200,000 calls of it can take minutes).

    Returns
    -------
    tuple of float
        (mean, standard deviation with ddof=1) of the statistic over the draws.
    """
    function = study_statistic(statistic)
    generator = np.random.default_rng(seed)
    bar = tqdm(range(draws), disable=not show_progress, unit="draw", desc=f"truth n={n}", dynamic_ncols=True)
    values = np.array([function(process.simulate(n, generator)) for _ in bar])
    return float(np.mean(values)), float(np.std(values, ddof=1))


def simulate_slope_truth(process: Any, n: int, draws: int = TRUTH_DRAWS, seed: int = TRUTH_SEED) -> tuple[float, float]:
    """(mean, sd) of the OLS AR(1) slope over ``draws`` paths of length n.

    The paths come from ``process.sample_many`` in chunks of ``CHUNK_DRAWS``, all from
    one ``numpy.random.default_rng(seed)``; writes nothing.

    Parameters
    ----------
    process : HeteroskedasticAR1
        A process with ``sample_many(n, draws, generator)``.
    n : int
        Series length (observations).
    draws : int, default TRUTH_DRAWS (200,000)
        Number of simulated paths.
    seed : int, default TRUTH_SEED
        Seed of the numpy generator.

    Returns
    -------
    tuple of float
        (mean, standard deviation with ddof=1) of the slope over the draws
        (dimensionless).

    See Also
    --------
    ensure_truths : Runs this and caches the result as a truth receipt.

    Examples
    --------
    >>> from bootmark.studies.dgp import HeteroskedasticAR1
    >>> mean, sd = simulate_slope_truth(HeteroskedasticAR1(), 50, draws=200, seed=1)
    >>> round(mean, 4), round(sd, 4)
    (0.4465, 0.1646)
    """
    generator = np.random.default_rng(seed)
    done, slopes = 0, []
    while done < draws:
        size = min(CHUNK_DRAWS, draws - done)
        slopes.append(ols_ar1_slope(process.sample_many(n, size, generator)))
        done += size
    slopes = np.concatenate(slopes)
    return float(np.mean(slopes)), float(np.std(slopes, ddof=1))


class TruthMissingError(Exception):
    """A Monte Carlo truth was asked for before the step that computes it was run.

    Raised by :func:`truth_of` when no truth receipt matches the process, n, draws and
    seed; the message says to run ``bootmark study truth <STUDY>`` (or ``bootmark study
    run``, which computes it first).
    """


def is_monte_carlo(process: Any) -> bool:
    """Whether ``process``'s truth is a Monte Carlo estimate (a truth receipt).

    Parameters
    ----------
    process : object
        A process of :mod:`bootmark.studies.dgp`; one whose class sets
        ``monte_carlo_truth = True`` has no closed form.

    Returns
    -------
    bool
        True for a Monte Carlo truth, False for a closed form.

    Examples
    --------
    >>> from bootmark.studies.dgp import AR1, HeteroskedasticAR1
    >>> is_monte_carlo(AR1(0.5))
    False
    >>> is_monte_carlo(HeteroskedasticAR1())
    True
    """
    return bool(getattr(process, "monte_carlo_truth", False))


def truth_of(
    process: Any,
    n: int,
    statistic: str,
    directory: str | os.PathLike | None = None,
    draws: int = TRUTH_DRAWS,
    seed: int = TRUTH_SEED,
) -> Truth:
    """The :class:`~bootmark.studies.dgp.Truth` of ``statistic`` at series length ``n``.

    A closed form comes from the process; a Monte Carlo truth from its cached receipt in
    ``directory`` (default: the workspace's ``receipts/studies/truth``). Reads only:
    raises :class:`TruthMissingError` if that receipt was never computed.

    Parameters
    ----------
    process : object
        A process of :mod:`bootmark.studies.dgp`.
    n : int
        Series length (observations).
    statistic : str
        The study's statistic: a built-in name (:mod:`bootmark.studies.statistics`) or,
        for a user's process, an import path its ``truth`` knows.
    directory : str or os.PathLike, optional
        Folder of truth receipts; default the workspace's ``receipts/studies/truth``.
    draws : int, default TRUTH_DRAWS (200,000)
        Draws of the receipt to read (Monte Carlo truths only).
    seed : int, default TRUTH_SEED
        Seed of the receipt to read (Monte Carlo truths only).

    Returns
    -------
    Truth
        The true value and standard error (data units); for a Monte Carlo truth the value
        is ``phi`` and ``monte_carlo_error`` is the receipt's.

    Raises
    ------
    TruthMissingError
        A Monte Carlo truth whose receipt has not been computed.
    bootmark.reference.errors.InvalidParameterError
        A statistic the process has no truth for.

    See Also
    --------
    ensure_truths : The explicit step that computes the Monte Carlo truths.

    Examples
    --------
    >>> import tempfile
    >>> from bootmark.studies.dgp import AR1, HeteroskedasticAR1
    >>> round(truth_of(AR1(0.5), 200, "mean").standard_error, 6)
    0.141421
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     truth_of(HeteroskedasticAR1(), 50, "ar1_slope", folder, draws=200)
    Traceback (most recent call last):
        ...
    bootmark.studies.truth.TruthMissingError: the Monte Carlo truth of HeteroskedasticAR1 at n = 50 has not been...
    """
    if not is_monte_carlo(process):
        return process.truth(n, statistic)
    _check_monte_carlo_statistic(process, statistic, n)
    path = receipts.newest_receipt(
        workspace.directory_for("truth", directory), "truth", _matches(process, n, draws, seed, statistic)
    )
    if path is None:
        raise TruthMissingError(
            f"the Monte Carlo truth of {_label(process)} at n = {n} has not been computed in this "
            "workspace; run `bootmark study truth <STUDY>` (or `bootmark study run`, which computes it first)"
        )
    return _truth_from(process, path, n, statistic)


def _label(process):
    return process.path if isinstance(process, PluginProcess) else type(process).__name__


def _check_monte_carlo_statistic(process, statistic, n):
    if isinstance(process, PluginProcess):
        process.truth_value(n, statistic)  # a user's process must still give the true value
    elif statistic not in ("ar1_slope", "ar_coef"):
        process.truth(n, statistic)  # the process's own typed error for a statistic it has no truth for


def ensure_truths(
    process: Any,
    ns: Iterable[int],
    statistic: str,
    directory: str | os.PathLike | None = None,
    draws: int = TRUTH_DRAWS,
    seed: int = TRUTH_SEED,
    report: Callable[[str], object] = print,
    show_progress: bool = False,
) -> tuple[str, ...]:
    """The explicit step that computes and caches the Monte Carlo truths a study needs.

    For each n in ``ns`` with no matching truth receipt, simulates ``draws`` paths and
    writes one (``report`` is told which, and how long it takes); returns the receipt
    paths, one per n. A process with a closed form needs none: returns ().

    Parameters
    ----------
    process : object
        A process of :mod:`bootmark.studies.dgp`.
    ns : iterable of int
        The series lengths the study needs.
    statistic : str
        The study's statistic: a built-in name (:mod:`bootmark.studies.statistics`) or,
        for a user's process, an import path its ``truth`` knows.
    directory : str or os.PathLike, optional
        Folder of truth receipts; default the workspace's ``receipts/studies/truth``.
    draws : int, default TRUTH_DRAWS (200,000)
        Simulated paths per truth.
    seed : int, default TRUTH_SEED
        Seed of the numpy generator.
    report : callable, default print
        Called with one line of text before and after each truth it computes.
    show_progress : bool, default False
        A progress bar over the draws of a user's process (:func:`simulate_statistic_truth`).

    Returns
    -------
    tuple of str
        The truth receipt paths, one per n (empty for a closed form).

    Raises
    ------
    bootmark.reference.errors.InvalidParameterError
        A statistic the process has no truth for.

    See Also
    --------
    truth_of : Reads a truth this step cached.

    Examples
    --------
    >>> import tempfile
    >>> from bootmark.studies.dgp import AR1, HeteroskedasticAR1
    >>> ensure_truths(AR1(0.5), (60, 120), "mean")
    ()
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     paths = ensure_truths(HeteroskedasticAR1(), (50,), "ar1_slope", folder, draws=200)
    ...     again = ensure_truths(HeteroskedasticAR1(), (50,), "ar1_slope", folder, draws=200)
    computing the Monte Carlo truth of HeteroskedasticAR1 at n = 50 (200 draws)
      truth receipt: ...json
    >>> again == paths
    True
    """
    if not is_monte_carlo(process):
        return ()
    directory = workspace.directory_for("truth", directory)
    paths = []
    for n in ns:
        _check_monte_carlo_statistic(process, statistic, n)
        path = receipts.newest_receipt(directory, "truth", _matches(process, n, draws, seed, statistic))
        if path is None:
            report(f"computing the Monte Carlo truth of {_label(process)} at n = {n} ({draws:,} draws)")
            path = _compute_truth(process, n, draws, seed, directory, statistic, show_progress)
            report(f"  truth receipt: {path}")
        paths.append(path)
    return tuple(paths)


def heteroskedastic_slope_truth(
    process: Any,
    n: int,
    draws: int = TRUTH_DRAWS,
    seed: int = TRUTH_SEED,
    directory: str | os.PathLike | None = None,
) -> Truth:
    """The Truth of the OLS slope: computed first if its receipt is missing (the explicit
    step, :func:`ensure_truths`), then read (:func:`truth_of`).

    Parameters
    ----------
    process : HeteroskedasticAR1
        A process with a Monte Carlo truth.
    n : int
        Series length (observations).
    draws : int, default TRUTH_DRAWS (200,000)
        Simulated paths.
    seed : int, default TRUTH_SEED
        Seed of the numpy generator.
    directory : str or os.PathLike, optional
        Folder of truth receipts; default the workspace's ``receipts/studies/truth``.

    Returns
    -------
    Truth
        Value ``phi``; standard error the Monte Carlo standard deviation of the slope.

    Examples
    --------
    >>> import tempfile
    >>> from bootmark.studies.dgp import HeteroskedasticAR1
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     truth = heteroskedastic_slope_truth(HeteroskedasticAR1(), 50, draws=200, directory=folder)
    >>> truth.value, round(truth.standard_error, 4), truth.source
    (0.5, 0.1584, 'Monte Carlo: 200 draws, receipt truth-...json')
    """
    ensure_truths(process, (n,), "ar1_slope", directory, draws, seed, report=lambda line: None)
    return truth_of(process, n, "ar1_slope", directory, draws, seed)


def _compute_truth(process, n, draws, seed, directory, statistic="ar1_slope", show_progress=False):
    """Simulate the truth's SE and write its receipt; return the receipt's path."""
    started = provenance.collect()
    if isinstance(process, PluginProcess):
        mean, sd = simulate_statistic_truth(process, n, statistic, draws, seed, show_progress)
    else:
        mean, sd = simulate_slope_truth(process, n, draws, seed)
    body = {
        **_identity(process, statistic),
        "n": n,
        "draws": draws,
        "seed": seed,
        "statistic": statistic if isinstance(process, PluginProcess) else "ols_ar1_slope",
        "mean": mean,
        "standard_deviation": sd,
        "monte_carlo_error": sd / math.sqrt(2.0 * (draws - 1)),
        "generator": "numpy PCG64 default_rng",
    }
    started["finished_utc"] = provenance.utc_now()
    return receipts.write_receipt(receipts.seal("truth", started, body), directory)


def _truth_from(process, path, n, statistic):
    """The Truth a truth receipt records: the true value (phi for the built-in slope; the
    user's ``truth(statistic, n)`` for a user's process), SE the Monte Carlo standard
    deviation of the statistic."""
    body = receipts.load_receipt(path)["body"]
    value = process.truth_value(n, statistic) if isinstance(process, PluginProcess) else float(process.phi)
    return Truth(
        value,
        body["standard_deviation"],
        f"Monte Carlo: {body['draws']:,} draws, receipt {os.path.basename(path)}",
        body["monte_carlo_error"],
    )
