"""The site's audit pages: each study led by its claim, the contender under
audit (import path, distribution, version, source hash), the process and design, the
verdict of every registered criterion, then coverage per n with its interval and the
``bootmark study verify`` command that replays the receipt; the overview's one line per
audit; and the studies over commits and machines for the history page. Every profile is
shown, the registered one first; a smaller profile is named as such.

May import: bootmark.core, bootmark.site.model, bootmark.site.charts, bootmark.site.history.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from bootmark.core import receipts
from bootmark.site.charts import forest_svg
from bootmark.site.history import machine_name
from bootmark.site.model import Bullets, Cell, Figure, Heading, Page, Publisher, Table, Text, commit_text, slug, text

__all__ = ["Audit", "audits_page", "history_blocks", "newest_audits", "overview_blocks", "study_receipts"]

CONTENDER_KEYS = ("callable", "contender", "peer")
"""The ``[[resamplers]]`` keys that name code other than bootmark's engine: the code under audit."""


@dataclass(frozen=True)
class Audit:
    """One study receipt as the audit pages show it.

    Attributes
    ----------
    path : str
        The receipt file.
    receipt : dict
        The loaded receipt.
    machine : str
        ``CPU model (N cores)``.
    anchor : str
        The id of its section on the audits page.
    claim : str
        The protocol's ``claim``, as registered (empty when the protocol text has none).
    under_audit : tuple of str
        The resamplers under audit: those the protocol names by ``callable``, ``contender``
        or ``peer``; bootmark's engine resamplers when it names none.
    resamplers : tuple of dict
        The protocol's ``[[resamplers]]`` entries, as registered.
    """

    path: str
    receipt: dict
    machine: str
    anchor: str
    claim: str
    under_audit: tuple[str, ...]
    resamplers: tuple[dict, ...] = ()

    @property
    def study(self) -> dict:
        """The receipt's ``body.study`` (id, version, title, protocol text and hash)."""
        return self.receipt["body"]["study"]

    @property
    def profile(self) -> str:
        """The profile it ran (``registered``, or a smaller one such as ``reduced``)."""
        return self.receipt["body"]["profile"]["name"]

    @property
    def name(self) -> str:
        """``ID vN``, with the profile when it is not the registered one."""
        name = f"{self.study['id']} v{self.study['version']}"
        return name if self.profile == "registered" else f"{name}, profile {self.profile}"

    @property
    def nominal(self) -> float:
        """The nominal coverage, 1 - alpha."""
        return 1.0 - self.receipt["body"]["design"]["alpha"]

    def rows_under_audit(self) -> list[dict]:
        """The coverage rows of the resamplers under audit (every row if none matches)."""
        rows = self.receipt["body"]["results"]["coverage"]
        mine = [row for row in rows if row["resampler"] in self.under_audit]
        return mine or list(rows)


def _protocol(receipt: dict) -> dict:
    """The protocol the receipt ran, parsed from the text it carries ({} if unreadable)."""
    try:
        return tomllib.loads(receipt["body"]["study"].get("protocol_text") or "")
    except tomllib.TOMLDecodeError:
        return {}


def _audit(path: str, receipt: dict) -> Audit:
    protocol = _protocol(receipt)
    resamplers = tuple(entry for entry in protocol.get("resamplers", []) if isinstance(entry, dict))
    contenders = tuple(
        entry["name"] for entry in resamplers if isinstance(entry, dict) and any(key in entry for key in CONTENDER_KEYS)
    )
    if not contenders:
        contenders = tuple(entry["name"] for entry in resamplers if isinstance(entry, dict) and "name" in entry)
    machine = machine_name(receipt["provenance"])
    study = receipt["body"]["study"]
    profile = receipt["body"]["profile"]["name"]
    return Audit(
        path,
        receipt,
        machine,
        slug(f"{study['id']}-v{study['version']}-{'' if profile == 'registered' else profile + '-'}{machine}"),
        " ".join(str(protocol.get("claim", "")).split()),
        contenders,
        resamplers,
    )


def study_receipts(directory: str) -> list[tuple[str, dict]]:
    """Every study receipt in ``directory``, as (path, receipt), oldest first: the
    registered profile's and any smaller profile's (a first audit is often a small one).

    Parameters
    ----------
    directory : str
        A study receipt folder (``receipts/studies``); a missing folder holds none.

    Returns
    -------
    list of (str, dict)
    """
    if not os.path.isdir(directory):
        return []
    return [
        (path, receipt)
        for _key, path, receipt in sorted(receipts.scan(directory, ("study",)), key=lambda item: item[0])
    ]


def newest_audits(found: Sequence[tuple[str, dict]]) -> list[Audit]:
    """The newest receipt of each (study, version, profile, machine) of ``found``, in
    that order (the registered profile first).

    Parameters
    ----------
    found : sequence of (str, dict)
        From :func:`study_receipts`, oldest first.

    Returns
    -------
    list of Audit
    """
    newest = {}
    for path, receipt in found:
        study = receipt["body"]["study"]
        profile = receipt["body"]["profile"]["name"]
        key = (study["id"], study["version"], profile != "registered", profile, machine_name(receipt["provenance"]))
        newest[key] = (path, receipt)
    return [_audit(*newest[key]) for key in sorted(newest)]


def _criteria_counts(audit: Audit) -> str:
    criteria = audit.receipt["body"]["results"]["criteria"]
    passed = sum(1 for verdict in criteria if verdict["passed"])
    failed = sum(1 for verdict in criteria if verdict["judged"] and not verdict["passed"])
    unjudged = len(criteria) - passed - failed
    words = f"{passed} of {len(criteria)} criteria passed, {failed} failed"
    return words + (f", {unjudged} not judged" if unjudged else "")


def _lowest(rows: Sequence[dict]) -> str:
    low = min(rows, key=lambda row: row["coverage"])
    return (
        f"{low['coverage']:.3f} (Wilson {low['wilson_low']:.3f}–{low['wilson_high']:.3f}) by {low['resampler']} "
        f"{low['kind']} at n = {low['n']}"
    )


def overview_blocks(audits: Sequence[Audit]) -> list:
    """The overview's section on audits: per study, the claim, the code under audit, the
    criteria's verdicts and the lowest coverage that code delivered.

    Parameters
    ----------
    audits : sequence of Audit
        From :func:`newest_audits`.

    Returns
    -------
    list
        Page blocks.
    """
    items = []
    for audit in audits:
        rows = audit.rows_under_audit()
        runs: list = [
            (f"{audit.name} on {audit.machine}", f"audits.html#{audit.anchor}"),
            f": {audit.study['title']}. ",
        ]
        if audit.claim:
            runs.append(f"Claim: “{_first_sentence(audit.claim)}” ")
        runs.append(f"Under audit: {', '.join(audit.under_audit)}; {_criteria_counts(audit)}")
        if rows:
            runs.append(f"; nominal {audit.nominal:.2f}, lowest delivered {_lowest(rows)}")
        items.append(text(*runs, "."))
    return [
        Heading(2, "Audits", "audits"),
        text(
            "Each study's newest receipt per profile and machine: the claim it checks, the code under audit and "
            "what it delivered. Each audit in full, with the command that replays it, is on the ",
            ("audits page", "audits.html"),
            ".",
        ),
        Bullets(tuple(items)),
    ]


def _first_sentence(claim: str, limit: int = 240) -> str:
    """The claim's first sentence, shortened to ``limit`` characters with an ellipsis."""
    end = claim.find(". ")
    sentence = claim if end < 0 else claim[: end + 1]
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"


def _code_text(audit: Audit, entry: Mapping) -> Text:
    """What one resampler under audit is: the code a protocol entry names and its version."""
    body, versions = audit.receipt["body"], audit.receipt["provenance"]["versions"]
    name = entry.get("name", "?")
    path = entry.get("callable") or entry.get("contender") or entry.get("peer")
    plugin = next((plugin for plugin in body.get("plugins", []) if plugin["path"] == path), None)
    if plugin is not None:  # the workspace's own code, or an installed distribution's
        where = (
            f"distribution {plugin['distribution']} {plugin['version'] or '(no version)'}"
            if plugin["distribution"]
            else "not from an installed distribution (a file of the workspace)"
        )
        source = f"source SHA-256 {plugin['file_sha256'][:16]}…" if plugin["file_sha256"] else "no source file"
        requires = ", ".join(f"{key} {value or '?'}" for key, value in sorted(plugin.get("requires", {}).items()))
        return text(
            f"{name}: ",
            (plugin["path"], None, True),
            f", {where}; {source}" + (f"; imports {requires}" if requires else "") + ".",
        )
    if path:  # an entry point bootmark ships: an adapter of a peer library
        library = path.split(".")[0]
        version = body.get("peers", {}).get(library) or versions.get(library)
        return text(
            f"{name}: entry point ",
            (path, None, True),
            f" (bootmark's adapter of {library}" + (f" {version}" if version else "") + f", bootmark "
            f"{versions.get('bootmark', '?')}).",
        )
    if entry.get("oracle"):
        return text(
            f"{name}: the oracle, the process's true conditional interval (it covers exactly the nominal level: "
            "the audit's positive control)."
        )
    return text(
        f"{name}: bootmark's engine ({entry.get('engine', '?')}), bootmark {versions.get('bootmark', '?')}, commit "
        f"{commit_text(audit.receipt['provenance'])}."
    )


def _process_text(audit: Audit) -> Text:
    design = audit.receipt["body"]["design"]
    dgp = design["dgp"]
    parameters = ", ".join(f"{key} = {value}" for key, value in sorted(dgp.get("parameters", {}).items()))
    profile = audit.receipt["body"]["profile"]
    what = (
        f"prediction intervals 1 to {design['horizon']} steps ahead (kind h1, h2, ... is the horizon; an interval "
        "covers when it holds the value the process went on to draw); "
        if design.get("target") == "forecast"
        else f"statistic {design['statistic']}; "
    )
    bootstraps = "" if design.get("target") == "forecast" else f"B = {design['n_bootstraps']}; "
    return text(
        f"Process {dgp['name']}" + (f" ({parameters})" if parameters else "") + f"; {what}"
        f"n = {', '.join(str(n) for n in profile['n'])}; {profile['series']:,} series per n; "
        f"{bootstraps}nominal {audit.nominal:.2f}; root seed {design['root_seed']}."
    )


def audits_page(publish: Publisher, charts: dict, audits: Sequence[Audit], root: str) -> Page:
    """The audits page: per study and machine, the claim first, then the code under audit,
    the process, the criteria's verdicts, coverage per n and the receipt to replay.

    Parameters
    ----------
    publish : Publisher
        Copies the receipts linked into the site.
    charts : dict
        Gains the forest plots it draws ({file name: SVG}).
    audits : sequence of Audit
        From :func:`newest_audits`.
    root : str
        The workspace root (the ``verify`` command names the receipt relative to it).

    Returns
    -------
    Page
    """
    page = Page("audits.html", "Audits")
    page.blocks.append(
        text(
            "Each study's newest receipt per profile and machine. A study states a claim, names the code it "
            "audits, and registers its criteria before it runs; coverage is the share of simulated series whose "
            "interval held the true value, with its Wilson 95% interval. A profile other than the registered one "
            "simulates fewer series: its verdicts are indicative."
        )
    )
    for audit in audits:
        study, results = audit.study, audit.receipt["body"]["results"]
        page.blocks.append(Heading(2, f"{audit.name}: {study['title']} ({audit.machine})", audit.anchor))
        if audit.claim:
            page.blocks.append(text("Claim: ", (audit.claim, None, False)))
        page.blocks.append(Heading(3, f"Under audit: {', '.join(audit.under_audit)}", f"{audit.anchor}-code"))
        page.blocks.append(
            Bullets(
                tuple(_code_text(audit, entry) for entry in audit.resamplers if entry.get("name") in audit.under_audit)
            )
        )
        page.blocks.append(_process_text(audit))
        if results["criteria"]:
            page.blocks.append(Heading(3, f"Criteria: {_criteria_counts(audit)}", f"{audit.anchor}-criteria"))
            page.blocks.append(
                Bullets(
                    tuple(
                        text(
                            ("PASS" if verdict["passed"] else "FAIL" if verdict["judged"] else "not judged") + ": ",
                            (verdict["statement"], None, True),
                            f" ({verdict['detail']})",
                        )
                        for verdict in results["criteria"]
                    )
                )
            )
        page.blocks.append(Heading(3, "Coverage", f"{audit.anchor}-coverage"))
        page.blocks.extend(_coverage_blocks(charts, audit))
        page.blocks.append(
            text(
                "Receipt ",
                (os.path.basename(audit.path), publish.link(audit.path)),
                f", content hash {audit.receipt['content_sha256'][:16]}…, commit "
                f"{commit_text(audit.receipt['provenance'])}; replay it with ",
                (f"bootmark study verify {os.path.relpath(audit.path, root)}", None, True),
                ".",
            )
        )
    return page


def _coverage_blocks(charts: dict, audit: Audit) -> list:
    rows = audit.receipt["body"]["results"]["coverage"]
    chart = f"forest-{audit.anchor}.svg"
    charts[chart] = forest_svg(
        [
            (f"n={row['n']} {row['resampler']} {row['kind']}", row["coverage"], row["wilson_low"], row["wilson_high"])
            for row in rows
        ],
        audit.nominal,
        f"{audit.name} ({audit.machine})",
    )
    published = {
        (entry["resampler"], entry["kind"], entry["n"]): entry
        for entry in audit.receipt["body"]["results"]["published"]
    }
    return [
        Figure(
            f"charts/{chart}",
            f"Forest plot of delivered coverage with Wilson 95% intervals for {audit.name} against the nominal "
            "level; the numbers are in the table below.",
            "Delivered coverage per resampler; dashed: nominal.",
        ),
        Table(
            f"Coverage of {audit.name} ({audit.machine}); rows under audit first, a row whose whole interval lies "
            "below nominal is marked",
            ("n", "resampler", "under audit", "kind", "coverage", "Wilson 95%", "MC SE", "mean width", "published (z)"),
            tuple(
                (
                    (
                        Cell(str(row["n"]), row["n"]),
                        Cell(row["resampler"]),
                        Cell("yes" if row["resampler"] in audit.under_audit else ""),
                        Cell(row["kind"]),
                        Cell(f"{row['coverage']:.3f}", row["coverage"]),
                        Cell(f"{row['wilson_low']:.3f}–{row['wilson_high']:.3f}", row["wilson_low"]),
                        Cell(f"{row['mc_se']:.3f}", row["mc_se"]),
                        Cell(f"{row['mean_width']:.4f}", row["mean_width"]),
                        Cell(_published(published.get((row["resampler"], row["kind"], row["n"])))),
                    ),
                    "loss" if row["wilson_high"] < audit.nominal else "",
                )
                for row in sorted(rows, key=lambda row: row["resampler"] not in audit.under_audit)
            ),
            frozenset({0, 4, 5, 6, 7}),
        ),
    ]


def _published(entry: Mapping | None) -> str:
    if not entry or entry.get("z") is None:
        return ""
    return f"{entry['published']:.3f} (z {entry['z']:+.1f})"


def history_blocks(publish: Publisher, found: Sequence[tuple[str, dict]], positions: Mapping[str, int]) -> list:
    """The history page's section on audits: every study receipt, by study, in
    commit order, with its machine and the lowest coverage of the code under audit.

    Parameters
    ----------
    publish : Publisher
    found : sequence of (str, dict)
        From :func:`study_receipts`.
    positions : mapping of str to int
        {commit: position in history} (``bootmark.site.history.commit_positions``).

    Returns
    -------
    list
        Page blocks.
    """
    placed = sorted(
        (_audit(path, receipt) for path, receipt in found),
        key=lambda audit: (
            audit.study["id"],
            audit.study["version"],
            positions.get(audit.receipt["provenance"]["source"].get("git_sha") or "", len(positions)),
            audit.receipt["provenance"]["finished_utc"],
        ),
    )
    rows = []
    for audit in placed:
        mine = audit.rows_under_audit()
        if not mine:
            continue
        low = min(mine, key=lambda row: row["coverage"])
        rows.append(
            (
                (
                    Cell(audit.name),
                    Cell(commit_text(audit.receipt["provenance"])),
                    Cell(audit.machine),
                    Cell(audit.receipt["provenance"]["finished_utc"]),
                    Cell(f"{low['coverage']:.3f} ({low['wilson_low']:.3f}–{low['wilson_high']:.3f})", low["coverage"]),
                    Cell(f"{low['resampler']} {low['kind']}, n = {low['n']}"),
                    Cell(os.path.basename(audit.path), href=publish.link(audit.path)),
                ),
                "",
            )
        )
    return [
        Heading(2, "Audits over commits and machines", "audits-over-commits"),
        text(
            "Every study receipt in the workspace, by study and in commit order, with the machine that "
            "ran it: the lowest coverage delivered by the code under audit (Wilson 95%) and where. The full "
            "tables are on the ",
            ("audits page", "audits.html"),
            ".",
        ),
        Table(
            "Study receipts over commits and machines",
            (
                "study",
                "commit",
                "machine",
                "finished (UTC)",
                "lowest coverage under audit (Wilson 95%)",
                "at",
                "receipt",
            ),
            tuple(rows),
            frozenset({4}),
        ),
    ]
