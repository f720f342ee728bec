"""The bench receipts of a workspace across its git history, in commit order, and the
change points of a series over them (for ``bootmark site``'s history page).

Receipts are gathered from two places, merged on their content hash: the workspace's
receipt folder as it is, and every version of every file git ever held under that
folder (a receipt deleted since, or rewritten by hand, is still history). Points are
ordered by the position of the commit they measured (``provenance.source.git_sha``) in
``git rev-list --topo-order`` of ``HEAD``; receipts of commits outside that history
come last, by time.

Change points are found by ruptures' PELT (Killick et al. 2012) on the logarithm of the
series (a step is a ratio, so a 30% slow-down is the same step at 1 ms and at 1 s). The
penalty is the BIC-like ``PENALTY_FACTOR * sigma^2 * log(n)``, with sigma estimated
robustly from the median absolute successive difference, and a level must hold for
three points (two in a series of fewer than six). A step is then kept only if it
moves the median by at least ``min_step`` (relative) and the mean of the logarithms by
``STEP_Z`` standard errors of the points' own scatter about their levels; the weakest
step that fails is merged away first, and the rest judged again. So a step in the
newest one or two records is named once a third record holds the new level.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bootmark.core import receipts

__all__ = [
    "HistoryReceipt",
    "PENALTY_FACTOR",
    "bench_history",
    "change_points",
    "commit_positions",
    "machine_name",
    "receipt_history",
]

PENALTY_FACTOR = 3.0
MIN_STEP = 0.10
STEP_Z = 3.0  # standard errors a step must clear (_significant_bounds)


@dataclass(frozen=True)
class HistoryReceipt:
    """One bench receipt placed in history.

    Attributes
    ----------
    name : str
        The receipt's file name.
    receipt : dict
        The loaded receipt (validated against its schema).
    commit : str
        The commit it measured (40 hex digits), or ``""`` when unknown.
    order : int
        Its commit's position in ``HEAD``'s history (0 the oldest); receipts of commits
        outside it share the last position.
    finished_utc : str
        When it was sealed (ISO 8601; its start when it records no finish), the tiebreak
        within a commit.
    path : str
        The workspace file holding this very receipt, or ``""`` when only git history
        holds it (deleted or rewritten since).
    """

    name: str
    receipt: dict
    commit: str
    order: int
    finished_utc: str
    path: str = ""

    @property
    def host(self) -> str:
        """``CPU model (N cores)``, as the receipt's provenance gives it."""
        return machine_name(self.receipt["provenance"])


def machine_name(provenance: dict) -> str:
    """A machine as the site names it, from a receipt's provenance: ``CPU model (N cores)``.

    Parameters
    ----------
    provenance : dict
        A receipt's provenance.

    Returns
    -------
    str

    Examples
    --------
    >>> machine_name({"machine": {"cpu_model": "AMD EPYC", "cores": 2}})
    'AMD EPYC (2 cores)'
    """
    machine = provenance["machine"]
    return f"{machine['cpu_model']} ({machine['cores']} cores)"


def _git(root, *arguments):
    try:
        completed = subprocess.run(["git", *arguments], cwd=root, capture_output=True, check=False)
    except FileNotFoundError:  # no git: the workspace's own files are the whole history
        return None
    return completed.stdout if completed.returncode == 0 else None


def _receipts_in_git(root, folder):
    """{file name: [receipt, ...]} for every version git holds of the JSON files in
    ``folder`` (a path relative to ``root``)."""
    listing = _git(root, "log", "--format=%H", "--name-only", "HEAD", "--", folder)
    found = {}
    if listing is None:
        return found
    commit = None
    for line in listing.decode().splitlines():
        if len(line) == 40 and all(character in "0123456789abcdef" for character in line):
            commit = line
        elif line.endswith(".json") and commit is not None:
            text = _git(root, "show", f"{commit}:{line}")
            if text is None:  # the commit deleted it
                continue
            try:
                receipt = receipts.validate(json.loads(text), f"{line} at {commit[:10]}")
            except (ValueError, receipts.ReceiptError):
                continue  # not a receipt (a README, a fixture): history keeps only receipts
            found.setdefault(os.path.basename(line), []).append(receipt)
    return found


def commit_positions(root: str) -> dict[str, int]:
    """{commit: its position in ``git rev-list --topo-order --reverse HEAD``} (0 the oldest);
    empty outside a git checkout.

    Parameters
    ----------
    root : str
        A folder (a git checkout, or not).

    Returns
    -------
    dict of str to int

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     commit_positions(folder)
    {}
    """
    commits = (_git(root, "rev-list", "--topo-order", "--reverse", "HEAD") or b"").decode().split()
    return {sha: index for index, sha in enumerate(commits)}


def bench_history(root: str, folder: str = os.path.join("receipts", "bench")) -> list[HistoryReceipt]:
    """Every bench receipt of the workspace at ``root`` and of its git history, oldest
    commit first.

    Parameters
    ----------
    root : str
        The workspace root (a git checkout, or not: then only its files count).
    folder : str, optional
        The bench receipt folder, relative to ``root``.

    Returns
    -------
    list of HistoryReceipt
        One per distinct receipt (by content hash).
    """
    return receipt_history(root, folder, "bench")


def receipt_history(root: str, folder: str, kind: str) -> list[HistoryReceipt]:
    """Every receipt of ``kind`` in ``folder`` of the workspace at ``root`` and of its git
    history, oldest commit first (a receipt that records no finish time is placed by its
    start).

    Parameters
    ----------
    root : str
        The workspace root (a git checkout, or not: then only its files count).
    folder : str
        The receipt folder, relative to ``root`` (``receipts/records``).
    kind : str
        The receipt kind kept (``bench``, ``record``).

    Returns
    -------
    list of HistoryReceipt
        One per distinct receipt (by content hash).
    """
    candidates = {}  # file name -> [(receipt, workspace path or "")], the workspace's first
    directory = os.path.join(root, folder)
    for entry in sorted(os.listdir(directory)) if os.path.isdir(directory) else ():
        if entry.endswith(".json"):
            path = os.path.join(directory, entry)
            candidates.setdefault(entry, []).append((receipts.load_receipt(path), path))
    for name, versions in _receipts_in_git(root, folder).items():
        candidates.setdefault(name, []).extend((receipt, "") for receipt in versions)
    position = commit_positions(root)
    outside = len(position)  # receipts of commits outside HEAD's history share the last place
    seen, placed = set(), []
    for name, versions in sorted(candidates.items()):
        for receipt, path in versions:
            if receipt["kind"] != kind or receipt["content_sha256"] in seen:
                continue
            seen.add(receipt["content_sha256"])
            sha = receipt["provenance"]["source"].get("git_sha") or ""
            when = receipt["provenance"].get("finished_utc") or receipt["provenance"]["started_utc"]
            placed.append(HistoryReceipt(name, receipt, sha, position.get(sha, outside), when, path))
    return sorted(placed, key=lambda point: (point.order, point.finished_utc, point.name))


def change_points(values: Sequence[float], min_step: float = MIN_STEP) -> list[int]:
    """Where a positive series steps to a new level.

    Parameters
    ----------
    values : sequence of float
        Positive values in order (times or ratios).
    min_step : float, optional
        The smallest relative step reported (0.10: a step of 10% or more).

    Returns
    -------
    list of int
        The indices at which a new level starts (the first point after each step).

    Raises
    ------
    ValueError
        A value that is not positive and finite.

    Examples
    --------
    >>> change_points([1.0, 1.01, 0.99, 1.0, 1.3, 1.31, 1.29, 1.3])
    [4]
    >>> change_points([1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.01, 1.0])
    []
    """
    import ruptures  # late: only the site's history page needs it, and it imports scipy

    series = np.asarray(values, dtype=float)
    if series.size and not (np.all(np.isfinite(series)) and np.all(series > 0)):
        raise ValueError("change_points needs positive, finite values (times or ratios)")
    if series.size < 4:
        return []
    logs = np.log(series)
    differences = np.abs(np.diff(logs))
    # The median absolute successive difference of Gaussian noise is 0.954 sigma; a floor
    # keeps a perfectly flat series from making every wiggle infinitely significant.
    sigma = max(float(np.median(differences)) / 0.954, 1e-3)
    penalty = PENALTY_FACTOR * sigma**2 * math.log(series.size)
    # a level holds for three points where there is room for two such levels: one or two
    # slow records in a row are the runner's more often than the code's
    level = 3 if series.size >= 2 * 3 else 2
    ends = ruptures.Pelt(model="l2", min_size=level, jump=1).fit(logs.reshape(-1, 1)).predict(pen=penalty)
    bounds = _significant_bounds(series, logs, [0, *ends], min_step)
    return bounds[1:-1]


def _significant_bounds(series: np.ndarray, logs: np.ndarray, bounds: list[int], min_step: float) -> list[int]:
    """Segment bounds (0, ..., len(logs)) with every step that is smaller than
    ``min_step`` or not clear of the records' scatter merged away, weakest first.

    PELT's sigma comes from successive differences, which a dozen records can leave far
    below the scatter of records of unchanged code (about 5% on the 2-core CI box, with
    pairs of records 10% apart): a bump of two slow records then passed as two steps. So
    each step must also move the mean of the logarithms by ``STEP_Z`` standard errors,
    the scatter being the pooled standard deviation about the segments' means
    (tests/test_site.py measures the wrong answers it saves on simulated histories).
    """
    bounds = list(bounds)
    while len(bounds) > 2:
        residuals = np.concatenate(
            [logs[start:end] - np.mean(logs[start:end]) for start, end in zip(bounds, bounds[1:], strict=False)]
        )
        # the pooled standard deviation, on the degrees of freedom the segments leave
        scatter = max(math.sqrt(float(residuals @ residuals) / (logs.size - len(bounds) + 1)), 1e-3)
        weakest, weakest_margin = None, 0.0
        for index in range(1, len(bounds) - 1):
            start, stop = bounds[index - 1 : index + 1], bounds[index : index + 2]
            before, after = slice(*start), slice(*stop)
            relative = abs(float(np.median(series[after]) / np.median(series[before])) - 1)
            shift = abs(float(np.mean(logs[after]) - np.mean(logs[before])))
            error = scatter * math.sqrt(1 / (start[1] - start[0]) + 1 / (stop[1] - stop[0]))
            margin = min(relative - min_step, shift - STEP_Z * error)
            if margin < weakest_margin:
                weakest, weakest_margin = index, margin
        if weakest is None:
            break
        del bounds[weakest]
    return bounds
