"""Run a protocol: chunks of series on an executor, checkpoints, tripwires, a receipt.

* **Work.** Each cell (one n) is cut into chunks of ``chunk_series`` consecutive series
  (fixed by the protocol, never by the executor). A chunk is computed by
  :func:`run_chunk` from the protocol's text alone, so it runs the same in this process,
  in a local process pool or on a dask.distributed worker, and its outcomes depend only
  on (root seed, n, series): the results are identical, bit for bit, for any executor
  and worker count.
* **Checkpoints.** Every finished chunk is written atomically to the run directory
  (default ``runs/<id>-v<version>-<profile>-<protocol sha>/``, git-ignored) beside a
  manifest of what decides the results (protocol hash, profile, versions, stream
  version, git SHA). ``resume=True`` reuses the chunks found there and computes only
  the rest; the final receipt's results equal an uninterrupted run's. A run directory is
  never reused silently: without ``resume`` an existing one is an error.
* **Tripwires.** Once the first 20 series of a cell are in, a resampler whose intervals
  are all zero-width or all identical stops the run (the chunks so far stay on disk). A
  non-finite bound, point or SE stops it at once, naming the series.
* **Progress.** A tqdm bar over series, with the ETA and the running coverage of each
  resampler and kind.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from typing import TYPE_CHECKING

import numba
from tqdm import tqdm

from bootmark.core import blas, provenance, workspace
from bootmark.core.receipts import canonical_json

from . import forecast, summary
from .evaluate import evaluate, evaluate_engine_panel, prepare, series_seeds
from .peers import peer_versions
from .plugins import PluginFailure, origin_of
from .protocol import parse
from .truth import ensure_truths, truth_of

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

    from .protocol import Profile, Protocol

__all__ = [
    "StudyError",
    "TripwireError",
    "chunks",
    "plugin_origins",
    "plugin_versions",
    "results_hash",
    "results_of",
    "run_chunk",
    "run_study",
    "truth_settings",
]

# Test hook only: seconds each chunk waits before returning, so a test can kill a run
# midway. It changes when chunks finish, never what they hold.
TRIPWIRE_SERIES = 20
DASK_CONNECT_SECONDS = 20
MANIFEST = "manifest.json"


class StudyError(RuntimeError):
    """A study that cannot go on: bad run directory, tripwire, non-finite outcome.

    Also raised for bad ``workers``, an unreachable dask scheduler, missing chunks, and a
    worker whose OpenBLAS kernel is not the pinned one. One raised while the run computes
    chunks carries ``run_directory``, the folder whose chunks ``resume`` reuses.
    """


class TripwireError(StudyError):
    """Aggregate signals that say the run is producing garbage.

    Raised when a resampler's intervals over the first ``TRIPWIRE_SERIES`` series of a
    cell are all zero-width or all identical; the chunks so far stay on disk.
    """


def chunks(protocol: Protocol, profile: Profile) -> list[tuple[int, int, int]]:
    """(n, first, last) work units of a profile, in a fixed order.

    Parameters
    ----------
    protocol : bootmark.studies.protocol.Protocol
        Gives ``chunk_series``.
    profile : bootmark.studies.protocol.Profile
        Gives the n and the series per n.

    Returns
    -------
    list of tuple of int
        ``(n, first, last)``: series [first, last) of the cell n, n by n.

    Examples
    --------
    >>> import os
    >>> from bootmark.core import workspace
    >>> from bootmark.studies.protocol import load
    >>> protocol = load(os.path.join(workspace.find().root, "tests", "protocols", "CI-v1.toml"))
    >>> chunks(protocol, protocol.profile("tiny"))
    [(60, 0, 5), (60, 5, 10)]
    """
    return [
        (n, first, min(first + protocol.chunk_series, profile.series))
        for n in profile.n
        for first in range(0, profile.series, protocol.chunk_series)
    ]


def _empty_columns(protocol, names):
    return {
        name: {
            "point": [],
            "standard_error": [],
            "block_length": [],
            "intervals": {kind: {"lower": [], "upper": []} for kind in protocol.resampler(name).kinds},
        }
        for name in names
    }


def run_chunk(protocol_text: str, file_name: str, profile_name: str, n: int, first: int, last: int) -> dict[str, Any]:
    """Outcomes of series [first, last) of cell n, as columns per resampler (JSON-ready).

    Refuses (StudyError) in a process whose numpy runs another OpenBLAS kernel than the
    pinned one (:mod:`bootmark.core.blas`): the peers' outcomes would differ in the last bit.

    Parameters
    ----------
    protocol_text : str
        The protocol file's text (parsed here, so a worker needs nothing else).
    file_name : str
        The protocol file's base name.
    profile_name : str
        The profile whose resamplers run.
    n : int
        Series length of the cell.
    first, last : int
        The series [first, last) to compute.

    Returns
    -------
    dict
        ``n``, ``first``, ``last``, ``protocol_sha256`` and ``columns``: per resampler,
        lists ``point``, ``standard_error``, ``block_length`` and per kind ``lower`` and
        ``upper``, one entry per series (data units).

    Raises
    ------
    StudyError
        The OpenBLAS kernel is not the pinned one, or an outcome is not finite.
    bootmark.studies.protocol.ProtocolError
        The protocol text does not parse, or has no such profile.
    """
    problem = blas.kernel_problem()
    if problem:
        raise StudyError(problem)
    protocol = parse(protocol_text, file_name)
    names = protocol.profile(profile_name).resamplers
    if protocol.target == forecast.FORECAST_TARGET:
        try:  # a forecaster or process that fails: the run stops, naming the entry, series and horizon
            return forecast.run_chunk(protocol, forecast.prepare(protocol, names), names, n, first, last)
        except PluginFailure as error:
            raise StudyError(f"{error}; the run stops") from None
    process, columns = protocol.process(), _empty_columns(protocol, names)
    prepared = prepare(protocol, names)  # a user's modules are imported once per chunk
    chunk = range(first, last)
    seeds = [series_seeds(protocol.root_seed, n, series) for series in chunk]
    samples = []
    for series, seed in zip(chunk, seeds, strict=True):
        try:  # a user's process that fails: the run stops, naming the series
            samples.append(process.sample(n, seed.data))
        except PluginFailure as error:
            raise StudyError(f"{protocol.id} n={n} series {series}: {error}; the run stops") from None
    bootstrap_seeds = [seed.bootstrap for seed in seeds]
    for name in names:
        spec = protocol.resampler(name)
        outcomes = None
        if spec.engine is not None:
            try:  # the engine's arms run the chunk as one panel: bit for bit the single calls
                outcomes = evaluate_engine_panel(spec, samples, protocol, bootstrap_seeds, prepared, chunk)
            except PluginFailure:
                pass  # a user's statistic failed on some series: found and named below
        if outcomes is None:
            outcomes = []
            for series, x, seed in zip(chunk, samples, bootstrap_seeds, strict=True):
                try:  # a user's contender or statistic that fails: the run stops, naming the series
                    outcomes.append(evaluate(spec, x, protocol, seed, prepared))
                except PluginFailure as error:
                    raise StudyError(f"{protocol.id} n={n} series {series}: {error}; the run stops") from None
        _record(columns[name], name, outcomes, protocol, n, chunk)
    return {"n": n, "first": first, "last": last, "protocol_sha256": protocol.sha256, "columns": columns}


def _record(target, name, outcomes, protocol, n, chunk):
    """Append resampler ``name``'s outcomes on the series of ``chunk`` to its columns,
    refusing a non-finite one (the run stops rather than record it)."""
    for series, outcome in zip(chunk, outcomes, strict=True):
        values = [
            outcome.point,
            *(v for v in (outcome.standard_error, outcome.block_length) if v is not None),
            *(v for _, low, high in outcome.intervals for v in (low, high)),
        ]
        if not all(math.isfinite(v) for v in values):
            raise StudyError(
                f"{protocol.id} n={n} series {series}: resampler {name} returned a non-finite "
                f"value ({outcome}); the run stops rather than record it"
            )
        target["point"].append(outcome.point)
        target["standard_error"].append(outcome.standard_error)
        target["block_length"].append(outcome.block_length)
        for kind, low, high in outcome.intervals:
            target["intervals"][kind]["lower"].append(low)
            target["intervals"][kind]["upper"].append(high)


def _set_one_numba_thread():
    # Workers share the machine's cores; one Numba thread each avoids oversubscription
    # (results do not depend on the thread count).

    numba.set_num_threads(1)


def _in_process(work, protocol, profile_name):
    for unit in work:
        yield unit, run_chunk(protocol.text, protocol.file_name, profile_name, *unit)


def _process_pool(work, protocol, profile_name, workers):
    # spawn, not fork: a forked child of a process whose Numba threads have started can hang.
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn"), initializer=_set_one_numba_thread) as pool:
        futures = {
            pool.submit(run_chunk, protocol.text, protocol.file_name, profile_name, *unit): unit for unit in work
        }
        try:
            for future in as_completed(futures):
                yield futures[future], future.result()
        finally:
            for future in futures:
                future.cancel()


def _dask(work, protocol, profile_name, address):
    try:
        # optional extra (bootmark[cluster])
        from distributed import Client

        # optional extra (bootmark[cluster])
        from distributed import as_completed as dask_completed
    except ImportError:
        raise StudyError("--scheduler needs dask.distributed: pip install 'bootmark[cluster]'") from None
    try:
        client = Client(address, set_as_default=False, timeout=DASK_CONNECT_SECONDS)
    except (OSError, TimeoutError) as error:
        raise StudyError(
            f"cannot reach the dask scheduler at {address!r} within {DASK_CONNECT_SECONDS} s "
            f"({error}); check the address (e.g. tcp://host:8786) and that the scheduler runs"
        ) from None
    with client:
        futures = {
            client.submit(run_chunk, protocol.text, protocol.file_name, profile_name, *unit, pure=False): unit
            for unit in work
        }
        try:
            for future in dask_completed(list(futures), loop=client.loop):
                yield futures[future], future.result()
        finally:
            client.cancel(list(futures))


def plugin_origins(protocol: Protocol, names: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Where each piece of a user's code a protocol names comes from (import path,
    distribution and version, source file hash), loading it first; [] when it names none.
    ``names``: the resamplers run (a profile's); default all.

    Raises
    ------
    bootmark.studies.plugins.PluginError
        Code that cannot be loaded.
    """
    entries = protocol.plugin_entries(names)
    if not entries:
        return []
    if protocol.target == forecast.FORECAST_TARGET:
        contenders = forecast.prepare(protocol, names or [spec.name for spec in protocol.resamplers])
    else:
        contenders = prepare(protocol, names).contenders
    paths = {
        spec.entry: contender.path
        for spec in protocol.resamplers
        for contender in [contenders.get(spec.name)]
        if contender is not None
    }
    if protocol.dgp_callable is not None:
        protocol.process()
    return [origin_of(entry, paths.get(entry, named)).to_json() for entry, named in entries]


def plugin_versions(origins: Iterable[Mapping[str, Any]]) -> dict[str, str | None]:
    """{distribution: version} of the user's code a receipt's ``plugins`` name: each
    entry's own distribution and those it ``requires``, for the receipt's provenance.

    Examples
    --------
    >>> origin = {"distribution": None, "version": None, "requires": {"scipy": "1.17.1"}}
    >>> plugin_versions([origin, {"distribution": "mypkg", "version": "1.2", "requires": {}}])
    {'scipy': '1.17.1', 'mypkg': '1.2'}
    """
    found = {}
    for origin in origins:
        if origin["distribution"]:
            found[origin["distribution"]] = origin["version"]
        found.update(origin.get("requires", {}))
    return found


def _manifest(protocol, profile):
    versions = provenance.versions()
    return {
        "protocol_sha256": protocol.sha256,
        "profile": profile.name,
        "series": profile.series,
        "n": list(profile.n),
        "resamplers": list(profile.resamplers),
        "versions": {key: versions[key] for key in ("numpy", "numba", "arch", "tsbootstrap", "stream_version")},
        "git_sha": provenance.source_state(provenance.source_checkout())["git_sha"],
        # a resumed run must use the same code of the user's too
        "plugins": plugin_origins(protocol, profile.resamplers),
    }


def default_run_directory(protocol: Protocol, profile_name: str) -> str:
    """``<workspace>/runs/<id>-v<version>-<profile>-<protocol SHA-256 prefix>``."""
    name = f"{protocol.id}-v{protocol.version}-{profile_name}-{protocol.sha256[:12]}"
    return os.path.join(workspace.find().runs, name)


def _write_json_atomically(path, value):
    directory = os.path.dirname(path)
    handle, temporary = tempfile.mkstemp(prefix=".partial-", suffix=".json", dir=directory)
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        json.dump(value, stream, allow_nan=False)
        stream.flush()
        os.fsync(stream.fileno())
    os.replace(temporary, path)


def _chunk_path(run_directory, n, first):
    return os.path.join(run_directory, f"chunk-n{n:06d}-s{first:07d}.json")


def open_run_directory(
    run_directory: str, protocol: Protocol, profile: Profile, resume: bool
) -> dict[tuple[int, int], dict[str, Any]]:
    """Create or reopen the run directory; return the chunks already done {(n, first): chunk}."""
    manifest = _manifest(protocol, profile)
    manifest_path = os.path.join(run_directory, MANIFEST)
    if os.path.exists(manifest_path):
        if not resume:
            raise StudyError(
                f"{run_directory} holds an earlier run of {protocol.id}: pass --resume to continue it, "
                "or delete the directory to start again"
            )
        with open(manifest_path, encoding="utf-8") as stream:
            earlier = json.load(stream)
        if earlier != manifest:
            changed = sorted(key for key in manifest if earlier.get(key) != manifest[key])
            raise StudyError(
                f"{run_directory}: cannot resume, {', '.join(changed)} changed since the run began "
                "(resuming would mix results); delete the directory to start again"
            )
    else:
        os.makedirs(run_directory, exist_ok=True)
        _write_json_atomically(manifest_path, manifest)
    done = {}
    for name in sorted(os.listdir(run_directory)):
        if name.startswith("chunk-") and name.endswith(".json"):
            with open(os.path.join(run_directory, name), encoding="utf-8") as stream:
                chunk = json.load(stream)
            if chunk.get("protocol_sha256") != protocol.sha256:
                raise StudyError(f"{run_directory}/{name} comes from another protocol; delete the directory")
            done[(chunk["n"], chunk["first"])] = chunk
    return done


def check_tripwires(protocol: Protocol, profile: Profile, n: int, chunk_list: Iterable[Mapping[str, Any]]) -> None:
    """Raise TripwireError if the first TRIPWIRE_SERIES series of cell n look like garbage."""
    if protocol.target == forecast.FORECAST_TARGET:
        problem = forecast.tripwire(protocol, n, forecast.merge_cell(chunk_list, profile.resamplers), TRIPWIRE_SERIES)
        if problem:
            raise TripwireError(problem)
        return
    columns = merge_cell(protocol, chunk_list, profile.resamplers)
    for name, column in columns.items():
        for kind, bounds in column["intervals"].items():
            pairs = list(zip(bounds["lower"], bounds["upper"], strict=True))[:TRIPWIRE_SERIES]
            if all(high - low == 0.0 for low, high in pairs):
                raise TripwireError(
                    f"{protocol.id} n={n}: {name} {kind} intervals are all zero-width over the first "
                    f"{len(pairs)} series"
                )
            if len(set(pairs)) == 1:
                raise TripwireError(
                    f"{protocol.id} n={n}: {name} {kind} intervals are all identical over the first "
                    f"{len(pairs)} series ({pairs[0]})"
                )


def merge_cell(protocol: Protocol, chunk_list: Iterable[Mapping[str, Any]], names: Sequence[str]) -> dict[str, Any]:
    """The columns of one cell from its chunks, in series order, resamplers in ``names``
    order and kinds in protocol order (JSON receipts come back with sorted keys)."""
    ordered = sorted(chunk_list, key=lambda chunk: chunk["first"])
    merged = _empty_columns(protocol, names)
    for chunk in ordered:
        for name in names:
            source, target = chunk["columns"][name], merged[name]
            for key in ("point", "standard_error", "block_length"):
                target[key].extend(source[key])
            for kind in protocol.resampler(name).kinds:
                bounds = source["intervals"][kind]
                target["intervals"][kind]["lower"].extend(bounds["lower"])
                target["intervals"][kind]["upper"].extend(bounds["upper"])
    return merged


class _Progress:
    """A tqdm bar with the running coverage of each (resampler, kind)."""

    def __init__(self, protocol, profile, total, initial, show):
        self.bar = tqdm(
            total=total,
            initial=initial,
            unit="series",
            disable=not show,
            dynamic_ncols=True,
            desc=f"{protocol.id} {profile.name}",
        )
        self.forecast = protocol.target == forecast.FORECAST_TARGET
        process = protocol.process()
        self.truth = (
            {}
            if self.forecast
            else {n: truth_of(process, n, protocol.statistic, **truth_settings(protocol)).value for n in profile.n}
        )
        self.tally = {}

    def add(self, chunk, advance=True):
        for name, column in chunk["columns"].items():
            if self.forecast:  # one step ahead, against the value the process realised
                found = [
                    (low[0], high[0], future[0])
                    for low, high, future in zip(column["lower"], column["upper"], chunk["future"], strict=True)
                ]
                self._count((name, "h1"), found)
                continue
            for kind, bounds in column["intervals"].items():
                truth = self.truth[chunk["n"]]
                pairs = zip(bounds["lower"], bounds["upper"], strict=True)
                self._count((name, kind), [(low, high, truth) for low, high in pairs])
        self._show()
        if advance:
            self.bar.update(chunk["last"] - chunk["first"])

    def _count(self, key, triples):
        hits, trials = self.tally.get(key, (0, 0))
        hits += sum(1 for low, high, value in triples if low <= value <= high)
        self.tally[key] = (hits, trials + len(triples))

    def _show(self):
        self.bar.set_postfix_str(
            " ".join(
                f"{name.split('.')[-1]}/{kind[:4]} {hits / trials:.3f}"
                for (name, kind), (hits, trials) in self.tally.items()
            ),
            refresh=False,
        )

    def close(self):
        self.bar.close()


def _say(line):
    print(line, flush=True)


def _quiet(line):
    """Swallow a step's progress line (show_progress=False)."""


def _executor(workers, scheduler):
    if scheduler:
        return "dask", None
    return ("in-process", 1) if workers == 1 else ("processes", workers)


def run_study(
    protocol: Protocol,
    profile_name: str = "registered",
    *,
    workers: int = 1,
    scheduler: str | None = None,
    run_directory: str | None = None,
    resume: bool = False,
    show_progress: bool = True,
) -> dict[str, Any]:
    """Run (or finish) a protocol's profile; return the receipt body (not yet sealed).

    ``workers`` local processes (1: this process), or ``scheduler`` a dask.distributed
    address. Raises :class:`StudyError` / :class:`TripwireError`; chunks done so far stay
    in ``run_directory`` for ``resume``.

    Parameters
    ----------
    protocol : bootmark.studies.protocol.Protocol
        The coverage study.
    profile_name : str, default "registered"
        The profile to run.
    workers : int, default 1
        Local worker processes (spawned); 1 runs in this process.
    scheduler : str, optional
        A dask.distributed scheduler address (e.g. ``"tcp://host:8786"``); overrides
        ``workers``.
    run_directory : str, optional
        Where chunks and the manifest go; default :func:`default_run_directory`.
    resume : bool, default False
        Reuse the chunks of an earlier run in ``run_directory``.
    show_progress : bool, default True
        Show the tqdm bar and the truth step's lines.

    Returns
    -------
    dict
        The receipt body: ``study``, ``profile``, ``design``, ``peers``, ``execution``,
        ``results`` (:func:`results_of`) and ``results_sha256``. Its ``results`` are the
        same bits for every executor and worker count.

    Raises
    ------
    StudyError
        Bad ``workers``, a run directory that holds another or an unresumable run, an
        unreachable scheduler, a non-finite outcome, or missing chunks.
    TripwireError
        Intervals that are all zero-width or all identical.
    bootmark.studies.protocol.ProtocolError
        No such profile.
    bootmark.studies.truth.TruthMissingError
        A Monte Carlo truth that could not be read after the truth step.

    See Also
    --------
    bootmark.studies.verify.verify : Check a sealed receipt, replaying series.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise StudyError(f"workers must be an int >= 1, got {workers!r}")
    profile = protocol.profile(profile_name)
    # a user's code is loaded and checked before anything runs (PluginError names the entry)
    if protocol.target == forecast.FORECAST_TARGET:
        forecast.prepare(protocol, profile.resamplers)  # a forecast's truth is the process's own future
    else:
        prepare(protocol, profile.resamplers)
        # the explicit truth step: a Monte Carlo truth is computed (once) before the run needs it
        ensure_truths(
            protocol.process(),
            profile.n,
            protocol.statistic,
            report=_say if show_progress else _quiet,
            show_progress=show_progress,
            **truth_settings(protocol),
        )
        for n in profile.n:  # every truth is read once before the run (a process without one is refused here)
            truth_of(protocol.process(), n, protocol.statistic, **truth_settings(protocol))
    run_directory = run_directory or default_run_directory(protocol, profile_name)
    done = open_run_directory(run_directory, protocol, profile, resume)
    work = [unit for unit in chunks(protocol, profile) if (unit[0], unit[1]) not in done]
    resumed_chunks = len(done)
    executor, worker_count = _executor(workers, scheduler)
    progress = _Progress(
        protocol,
        profile,
        profile.series * len(profile.n),
        sum(c["last"] - c["first"] for c in done.values()),
        show_progress,
    )
    for chunk in done.values():
        progress.add(chunk, advance=False)
    checked = set()
    started = time.monotonic()
    try:
        _trip_if_ready(protocol, profile, done, checked)
        stream = (
            _dask(work, protocol, profile_name, scheduler)
            if scheduler
            else _in_process(work, protocol, profile_name)
            if workers == 1
            else _process_pool(work, protocol, profile_name, workers)
        )
        for (n, first, _), chunk in stream:
            _write_json_atomically(_chunk_path(run_directory, n, first), chunk)
            done[(n, first)] = chunk
            progress.add(chunk)
            _trip_if_ready(protocol, profile, done, checked)
    except StudyError as error:
        error.run_directory = os.path.abspath(run_directory)  # where the chunks done stay, for --resume
        raise
    finally:
        progress.close()
    elapsed = time.monotonic() - started
    return assemble(
        protocol,
        profile,
        done,
        {
            "executor": executor,
            "workers": worker_count,
            "scheduler": scheduler,
            "resumed_chunks": resumed_chunks,
            "chunks": len(done),
            "run_directory": os.path.abspath(run_directory),
            "elapsed_seconds": round(elapsed, 3),
        },
    )


def truth_settings(protocol: Protocol) -> dict[str, Any]:
    """The keyword arguments of :func:`~bootmark.studies.truth.truth_of` and
    :func:`~bootmark.studies.truth.ensure_truths` a protocol sets: the draws of a plugin
    process's Monte Carlo truth (``[dgp] truth_draws``)."""
    return {} if protocol.truth_draws is None else {"draws": protocol.truth_draws}


def _trip_if_ready(protocol, profile, done, checked):
    for n in profile.n:
        if n in checked:
            continue
        cell = [chunk for (cell_n, _), chunk in done.items() if cell_n == n]
        covered = {series for chunk in cell for series in range(chunk["first"], chunk["last"])}
        needed = set(range(min(TRIPWIRE_SERIES, profile.series)))
        if needed <= covered:
            check_tripwires(protocol, profile, n, [chunk for chunk in cell if chunk["first"] < TRIPWIRE_SERIES])
            checked.add(n)


def results_of(
    protocol: Protocol, profile: Profile, done: Mapping[tuple[int, int], Mapping[str, Any]]
) -> dict[str, Any]:
    """The deterministic part of a receipt: cells, summaries, verdicts and published figures.

    Parameters
    ----------
    protocol : bootmark.studies.protocol.Protocol
        The coverage study.
    profile : bootmark.studies.protocol.Profile
        The profile run.
    done : mapping
        (n, first) -> chunk (:func:`run_chunk`), covering every series of the profile.

    Returns
    -------
    dict
        ``cells`` (truth and merged columns per n), ``coverage`` and ``standard_errors``
        (:func:`bootmark.studies.summary.summarise`), ``criteria`` (verdicts) and
        ``published`` (comparisons).

    Raises
    ------
    bootmark.studies.truth.TruthMissingError
        A Monte Carlo truth that has not been computed.
    """
    if protocol.target == forecast.FORECAST_TARGET:
        return forecast.results_of(protocol, profile, done)
    process = protocol.process()
    cells = []
    for n in profile.n:
        truth = truth_of(process, n, protocol.statistic, **truth_settings(protocol))
        cells.append(
            {
                "n": n,
                "truth": {
                    "value": truth.value,
                    "standard_error": truth.standard_error,
                    "source": truth.source,
                    "monte_carlo_error": truth.monte_carlo_error,
                },
                "resamplers": merge_cell(
                    protocol, [chunk for (cell_n, _), chunk in done.items() if cell_n == n], profile.resamplers
                ),
            }
        )
    coverage, errors = summary.summarise(cells)
    performance = summary.performance(cells, protocol.null)
    return {
        "cells": cells,
        "coverage": coverage,
        "standard_errors": errors,
        "performance": performance,
        "criteria": [summary.judge(criterion, coverage, cells, performance) for criterion in protocol.criteria],
        "published": [summary.compare_published(figure, coverage, cells) for figure in protocol.published],
    }


def results_hash(results: Mapping[str, Any]) -> str:
    """The SHA-256 (hex) of ``results`` in bootmark's canonical JSON (``results_sha256``).

    Examples
    --------
    >>> len(results_hash({"cells": []}))
    64
    """
    return hashlib.sha256(canonical_json(results)).hexdigest()


def assemble(
    protocol: Protocol,
    profile: Profile,
    done: Mapping[tuple[int, int], Mapping[str, Any]],
    execution: Mapping[str, Any],
) -> dict[str, Any]:
    """The receipt body of a finished run."""
    missing = [unit for unit in chunks(protocol, profile) if (unit[0], unit[1]) not in done]
    if missing:
        raise StudyError(f"{len(missing)} chunks are missing, e.g. n={missing[0][0]} series {missing[0][1]}")
    results = results_of(protocol, profile, done)
    return {
        "study": {
            "id": protocol.id,
            "version": protocol.version,
            "title": protocol.title,
            "file": protocol.file_name,
            "protocol_sha256": protocol.sha256,
            "protocol_text": protocol.text,
        },
        "profile": {
            "name": profile.name,
            "series": profile.series,
            "n": list(profile.n),
            "resamplers": list(profile.resamplers),
        },
        "design": {
            **(
                {"target": protocol.target, "horizon": protocol.horizon}
                if protocol.target == forecast.FORECAST_TARGET
                else {}
            ),
            "statistic": protocol.statistic,
            "n_bootstraps": protocol.n_bootstraps,
            "alpha": protocol.alpha,
            "inner_bootstraps": protocol.inner_bootstraps,
            "root_seed": protocol.root_seed,
            "chunk_series": protocol.chunk_series,
            "dgp": {"name": protocol.dgp_name, "parameters": dict(protocol.dgp_parameters)},
        },
        "peers": peer_versions(),
        "plugins": plugin_origins(protocol, profile.resamplers),
        "execution": execution,
        "results": results,
        "results_sha256": results_hash(results),
    }
