"""Process studies of the block-wild multiplier stream (protocol ``kind = "multiplier_autocorrelation"``).

A block-wild bootstrap gives every residual in a block of L the same multiplier, on a
grid whose phase U is drawn per replicate. With Rademacher multipliers (v^2 = 1,
independent across blocks, mean 0), v_t v_{t+h} is 1 when t and t+h share a block and
has mean 0 otherwise, so the multiplier process has autocorrelation

    rho(h) = P(t and t+h in one block) = max(0, 1 - h / L),

the triangular law (docs/published-figures.md, S3). The study draws the engine's own
multipliers and phases (``engine.models.multipliers`` and ``block_offset``: the streams a
``BlockWild`` replicate uses) for ``replicates`` replicates of ``length`` residuals and
estimates rho(h) as the mean of v_t v_{t+h} over t and replicates. Its Monte Carlo SE is
the standard deviation of the per-replicate means over sqrt(replicates). Replicate b is
replicate b of the root seed, so the results depend only on the protocol.

Criteria: ``law_within`` (|estimate - (1 - h/L)| <= k MC SE) and ``published_within``
(|estimate - published| <= k SE, ours combined with the published figure's, estimated
from our spread over its replicate count).

Examples
--------
>>> import os
>>> from bootmark.studies.protocol import PROTOCOL_DIRECTORY, load
>>> protocol = load(os.path.join(PROTOCOL_DIRECTORY, "S3-v1.toml"))
>>> protocol.kind, protocol.block_length, protocol.lags
('multiplier_autocorrelation', 10, (1, 5, 12))
>>> triangular_law(5, protocol.block_length)
0.5
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tqdm import tqdm

from bootmark.core.receipts import canonical_json
from bootmark.engine import models
from bootmark.reference.models import block_count

from .peers import peer_versions

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

__all__ = [
    "KIND",
    "MultiplierCriterion",
    "MultiplierProtocol",
    "estimate",
    "multiplier_process",
    "parse",
    "render_table",
    "results_hash",
    "results_of",
    "run",
    "triangular_law",
]

KIND = "multiplier_autocorrelation"
CRITERION_TESTS = ("law_within", "published_within")


@dataclass(frozen=True)
class MultiplierCriterion:
    """A pass/fail rule of a process study, fixed before the run.

    Attributes
    ----------
    id : str
        The criterion's name in the protocol.
    test : {"law_within", "published_within"}
        Compare the estimate with the triangular law or with the published figure.
    lag : int
        The lag h judged (one of the study's lags).
    rationale : str
        Why the rule was registered.
    k : float, default 3.0
        Standard errors allowed.

    Examples
    --------
    >>> MultiplierCriterion("lag5", "law_within", 5, "why").statement
    'autocorrelation at lag 5 within 3 MC SE of the triangular law 1 - h/L'
    """

    id: str
    test: str
    lag: int
    rationale: str
    k: float = 3.0

    @property
    def statement(self) -> str:
        """The rule in one line of text, as verdicts and tables print it."""
        against = "the triangular law 1 - h/L" if self.test == "law_within" else "the published figure"
        return f"autocorrelation at lag {self.lag} within {self.k:g} MC SE of {against}"


@dataclass(frozen=True)
class MultiplierProtocol:
    """A parsed process-study protocol; ``text`` and ``sha256`` are the file's.

    Built by :func:`parse` (through :func:`bootmark.studies.protocol.parse`). Its design:
    ``distribution`` (``"rademacher"``), ``block_length`` L, ``length`` (residuals per
    replicate), ``replicates``, ``lags`` and ``root_seed``; ``published`` holds
    ``(lag, value, replicates, source)`` tuples. ``profiles`` has the one
    ``"registered"`` profile.
    """

    id: str
    version: int
    registered: str
    title: str
    claim: str
    distribution: str
    block_length: int
    length: int
    replicates: int
    lags: tuple
    root_seed: int
    criteria: tuple
    published: tuple  # ((lag, value, replicates, source), ...)
    file_name: str
    text: str
    sha256: str
    kind: str = KIND
    source_path: str | None = None  # the file it was loaded from (not part of its text or hash)
    statistic: str = "multiplier autocorrelation"

    @property
    def profiles(self) -> dict[str, None]:
        """``{"registered": None}``: a process study has one size."""
        return {"registered": None}


def parse(
    table: Mapping[str, Any],
    text: str,
    file_name: str,
    field: Callable[..., Any],
    positive: Callable[[int, str, str], int],
    error: type[Exception],
) -> MultiplierProtocol:
    """A :class:`MultiplierProtocol` from a parsed TOML table (helpers from ``protocol``).

    Called by :func:`bootmark.studies.protocol.parse` for ``kind =
    "multiplier_autocorrelation"``; use that function rather than this one.

    Parameters
    ----------
    table : mapping
        The protocol file as parsed by ``tomllib``.
    text : str
        The file's text (hashed into ``sha256``).
    file_name : str
        The file's base name, named in errors.
    field, positive : callable
        ``protocol``'s checked field reader and its >= 1 check.
    error : type of Exception
        The error to raise (:class:`bootmark.studies.protocol.ProtocolError`).

    Returns
    -------
    MultiplierProtocol
        The parsed protocol.

    Raises
    ------
    bootmark.studies.protocol.ProtocolError
        (``error``) A missing or mistyped field, a distribution other than Rademacher,
        lags outside [1, length), an unknown test, or a criterion on a lag the study or
        its published figures lack.
    """
    where = file_name
    design = field(table, "design", dict, where)
    distribution = field(design, "distribution", str, f"{where} [design]")
    if distribution != "rademacher":
        raise error(f"{where}: design.distribution must be 'rademacher' (the triangular law needs v^2 = 1)")
    lags = tuple(field(design, "lags", list, f"{where} [design]"))
    length = positive(field(design, "length", int, f"{where} [design]"), "length", where)
    if not lags or not all(isinstance(h, int) and 1 <= h < length for h in lags):
        raise error(f"{where}: design.lags must be ints in [1, length)")
    criteria = []
    for item in table.get("criteria", []):
        test = field(item, "test", str, f"{where} [[criteria]]")
        if test not in CRITERION_TESTS:
            raise error(f"{where}: criterion test {test!r} is not one of {CRITERION_TESTS}")
        criteria.append(
            MultiplierCriterion(
                field(item, "id", str, where),
                test,
                field(item, "lag", int, where),
                field(item, "rationale", str, where),
                field(item, "k", float, where, 3.0, required=False),
            )
        )
    published = tuple(
        (
            field(item, "lag", int, where),
            field(item, "value", float, where),
            field(item, "replicates", int, where),
            field(item, "source", str, where),
        )
        for item in table.get("published", [])
    )
    for criterion in criteria:
        if criterion.lag not in lags:
            raise error(f"{where} ({criterion.id}): lag {criterion.lag} is not one of the study's lags {lags}")
        if criterion.test == "published_within" and criterion.lag not in {lag for lag, *_ in published}:
            raise error(f"{where} ({criterion.id}): no published figure at lag {criterion.lag}")
    return MultiplierProtocol(
        id=field(table, "id", str, where),
        version=field(table, "version", int, where),
        registered=str(field(table, "registered", object, where)),
        title=field(table, "title", str, where),
        claim=field(table, "claim", str, where),
        distribution=distribution,
        block_length=positive(field(design, "block_length", int, f"{where} [design]"), "block_length", where),
        length=length,
        replicates=positive(field(design, "replicates", int, f"{where} [design]"), "replicates", where),
        lags=lags,
        root_seed=field(design, "root_seed", int, f"{where} [design]"),
        criteria=tuple(criteria),
        published=published,
        file_name=file_name,
        text=text,
        sha256=hashlib.sha256(text.encode()).hexdigest(),
    )


def multiplier_process(protocol: MultiplierProtocol, replicate: int) -> list[float]:
    """v_0 .. v_{length-1} of one replicate: the engine's block multipliers on its phase grid.

    Parameters
    ----------
    protocol : MultiplierProtocol
        Gives the distribution, block length L, length and root seed.
    replicate : int
        The replicate index b (>= 0), as in a ``BlockWild`` bootstrap.

    Returns
    -------
    list of float
        ``length`` multipliers, constant within each block of L.
    """
    length, size = protocol.length, protocol.block_length
    offset = models.block_offset(size, protocol.root_seed, replicate)
    values = models.multipliers(protocol.distribution, block_count(length, size, offset), protocol.root_seed, replicate)
    return [float(values[(j + offset) // size]) for j in range(length)]


def estimate(protocol: MultiplierProtocol, show_progress: bool = False) -> dict[int, tuple[float, float, float]]:
    """{lag: (estimate, mc_se, sd of the per-replicate means)} over all replicates.

    Parameters
    ----------
    protocol : MultiplierProtocol
        The process study.
    show_progress : bool, default False
        Show a tqdm bar over replicates.

    Returns
    -------
    dict of int to tuple of float
        lag -> (mean of v_t v_{t+h} over t and replicates, its Monte Carlo SE, the
        standard deviation of the per-replicate means).
    """
    per_replicate = {lag: [] for lag in protocol.lags}
    for replicate in tqdm(range(protocol.replicates), disable=not show_progress, desc=protocol.id, unit="replicate"):
        v = multiplier_process(protocol, replicate)
        for lag in protocol.lags:
            # the len(v) - lag products v_t v_{t+lag}: zip stops at the shorter v[lag:]
            products = math.fsum(a * b for a, b in zip(v, v[lag:], strict=False))
            per_replicate[lag].append(products / (len(v) - lag))
    out = {}
    for lag, means in per_replicate.items():
        centre = math.fsum(means) / len(means)
        spread = math.sqrt(math.fsum((m - centre) ** 2 for m in means) / (len(means) - 1))
        out[lag] = (centre, spread / math.sqrt(len(means)), spread)
    return out


def triangular_law(lag: int, block_length: int) -> float:
    """The autocorrelation of block-wild Rademacher multipliers at ``lag``: max(0, 1 - h / L).

    Parameters
    ----------
    lag : int
        The lag h (>= 0).
    block_length : int
        The block length L (>= 1).

    Returns
    -------
    float
        max(0, 1 - lag / block_length).

    Examples
    --------
    >>> triangular_law(2, 5), triangular_law(7, 5)
    (0.6, 0.0)
    """
    return max(0.0, 1.0 - lag / block_length)


def results_of(protocol: MultiplierProtocol, estimates: Mapping[int, tuple[float, float, float]]) -> dict[str, Any]:
    """Rows per lag, criterion verdicts; deterministic given the protocol.

    Parameters
    ----------
    protocol : MultiplierProtocol
        The process study.
    estimates : mapping
        :func:`estimate`'s output.

    Returns
    -------
    dict
        ``{"lags": [...], "criteria": [...]}``: per lag the ``estimate``, ``mc_se``,
        ``law``, ``z_law`` and the published figure with ``z_published`` (None when
        there is none); per criterion a verdict as
        :func:`bootmark.studies.summary.judge` gives.
    """
    published = {lag: (value, count, source) for lag, value, count, source in protocol.published}
    rows = []
    for lag in protocol.lags:
        value, mc_se, spread = estimates[lag]
        law = triangular_law(lag, protocol.block_length)
        row = {
            "lag": lag,
            "estimate": value,
            "mc_se": mc_se,
            "law": law,
            "z_law": (value - law) / mc_se if mc_se else None,
            "published": None,
            "z_published": None,
            "source": None,
        }
        if lag in published:
            figure, count, source = published[lag]
            combined = math.sqrt(mc_se**2 + spread**2 / count)
            row.update(published=figure, z_published=(value - figure) / combined if combined else None, source=source)
        rows.append(row)
    by_lag = {row["lag"]: row for row in rows}
    verdicts = []
    for criterion in protocol.criteria:
        row = by_lag[criterion.lag]
        z = row["z_law"] if criterion.test == "law_within" else row["z_published"]
        verdicts.append(
            {
                "id": criterion.id,
                "statement": criterion.statement,
                "rationale": criterion.rationale,
                "passed": z is not None and abs(z) <= criterion.k,
                "judged": True,
                "detail": f"estimate {row['estimate']:.4f} vs "
                f"{row['law'] if criterion.test == 'law_within' else row['published']:.3f}, "
                f"z = {z:+.2f}",
            }
        )
    return {"lags": rows, "criteria": verdicts}


def results_hash(results: Mapping[str, Any]) -> str:
    """The SHA-256 (hex) of ``results`` in bootmark's canonical JSON.

    Examples
    --------
    >>> len(results_hash({"lags": [], "criteria": []}))
    64
    """
    return hashlib.sha256(canonical_json(results)).hexdigest()


def run(protocol: MultiplierProtocol, show_progress: bool = True) -> dict[str, Any]:
    """The receipt body of a process study.

    Draws every replicate (:func:`estimate`), judges the criteria (:func:`results_of`)
    and records the design, peer versions and ``results_sha256``; the body is not yet
    sealed.

    Parameters
    ----------
    protocol : MultiplierProtocol
        The process study.
    show_progress : bool, default True
        Show a tqdm bar over replicates.

    Returns
    -------
    dict
        ``study``, ``design``, ``peers``, ``results`` and ``results_sha256``.

    See Also
    --------
    bootmark.studies.verify.verify : Redraws every replicate and compares.
    """
    results = results_of(protocol, estimate(protocol, show_progress))
    return {
        "study": {
            "id": protocol.id,
            "version": protocol.version,
            "title": protocol.title,
            "file": protocol.file_name,
            "protocol_sha256": protocol.sha256,
            "protocol_text": protocol.text,
            "kind": protocol.kind,
        },
        "design": {
            "distribution": protocol.distribution,
            "block_length": protocol.block_length,
            "length": protocol.length,
            "replicates": protocol.replicates,
            "lags": list(protocol.lags),
            "root_seed": protocol.root_seed,
        },
        "peers": peer_versions(),
        "results": results,
        "results_sha256": results_hash(results),
    }


def render_table(results: Mapping[str, Any]) -> str:
    """A plain-text table of :func:`results_of`'s rows and verdicts.

    Parameters
    ----------
    results : dict
        A process study's ``results``.

    Returns
    -------
    str
        The table, lines joined by newlines.
    """
    lines = [f"{'lag':>4}{'estimate':>10}{'MC SE':>9}{'law 1-h/L':>11}{'z':>7}{'published':>11}{'z':>7}"]
    for row in results["lags"]:
        published = "" if row["published"] is None else f"{row['published']:>11.3f}{row['z_published']:>+7.2f}"
        lines.append(
            f"{row['lag']:>4}{row['estimate']:>10.4f}{row['mc_se']:>9.4f}{row['law']:>11.3f}"
            f"{row['z_law']:>+7.2f}{published}"
        )
    lines += ["", "criteria (registered before the run):"]
    for verdict in results["criteria"]:
        lines.append(
            f"  {'PASS' if verdict['passed'] else 'FAIL'}  {verdict['id']}: {verdict['statement']}  "
            f"[{verdict['detail']}]"
        )
    return "\n".join(lines)
