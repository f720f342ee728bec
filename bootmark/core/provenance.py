"""Where and with what a receipt was made (docs/receipts.md).

``collect()`` returns a plain dict that every receipt carries under ``"provenance"``:
machine (CPU model, cores, load average at start, frequency governor if readable),
versions (Python, numpy, numba, arch, tsbootstrap, bootmark, STREAM_VERSION, the
OpenBLAS kernel), the Numba thread count and threading layer, the git SHA of bootmark's
own checkout and whether it was dirty (both null for an installed wheel), the UTC start
time and the exact command line. Nothing here reads a clock into a *result*: the
timestamp describes the run, it never feeds a number.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import platform
import subprocess
import sys

import numba

from bootmark import __version__
from bootmark.core.blas import loaded_coretype

__all__ = [
    "PEERS",
    "collect",
    "machine",
    "package_version",
    "source_checkout",
    "source_state",
    "threading_state",
    "utc_now",
    "versions",
]

PEERS = ("numpy", "numba", "pandas", "arch", "tsbootstrap")
CODE_FOLDERS = ("engine", "reference", "bootmark", "studies", "scripts", "asv")


def package_version(name: str) -> str | None:
    """Installed version of a distribution, or None when it is not installed.

    Parameters
    ----------
    name : str
        A distribution name, e.g. ``"numpy"``.

    Returns
    -------
    str or None
        Its version (``importlib.metadata.version``), None when it is not installed.

    Examples
    --------
    >>> from bootmark.core.provenance import package_version
    >>> print(package_version("no-such-distribution-bootmark"))
    None
    >>> package_version("numpy") is not None
    True
    """
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _governor():
    try:
        with open("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor") as governor:
            return governor.read().strip()
    except OSError:
        return None  # not exposed inside most virtual machines


def machine() -> dict[str, object]:
    """CPU model, logical cores, 1/5/15-minute load averages and governor (or None).

    Returns
    -------
    dict
        ``{"cpu_model", "cores", "load_average", "governor", "platform"}``
        (:class:`bootmark.core.records.Machine`).

    Examples
    --------
    >>> from bootmark.core.provenance import machine
    >>> sorted(machine())
    ['cores', 'cpu_model', 'governor', 'load_average', 'platform']
    """
    return {
        "cpu_model": _cpu_model(),
        "cores": os.cpu_count(),
        "load_average": list(os.getloadavg()),
        "governor": _governor(),
        "platform": platform.platform(),
    }


def _git(*arguments, root):
    completed = subprocess.run(["git", *arguments], cwd=root, capture_output=True, text=True, check=False)
    return completed.stdout.strip() if completed.returncode == 0 else None


def source_checkout() -> str | None:
    """The root of the git checkout bootmark's code runs from, or None.

    An editable install of the repository runs from its checkout, whose commit and
    dirtiness every receipt records; an installed wheel has no checkout (its version is in
    ``versions.bootmark``). A wheel installed into a virtual environment that happens to sit
    inside some other git repository must not record that repository's commit, so the
    candidate must be the repository's own top level and hold bootmark's source layout.

    Returns
    -------
    str or None
        The checkout's root folder, None for an installed wheel or without git.
    """
    candidate = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bootmark/core/ -> root
    if not all(
        os.path.isfile(os.path.join(candidate, *parts))
        for parts in (("pyproject.toml",), ("engine", "api.py"), ("reference", "specs.py"))
    ):
        return None
    top = _git("rev-parse", "--show-toplevel", root=candidate)
    return candidate if top and os.path.realpath(top) == os.path.realpath(candidate) else None


def source_state(root: str | None) -> dict[str, object]:
    """{"git_sha": full SHA or None, "dirty": bool or None} of the checkout at ``root``
    (both None when ``root`` is None: an installed wheel).

    Parameters
    ----------
    root : str or None
        A git checkout's root (:func:`source_checkout`), or None.

    Returns
    -------
    dict
        ``{"git_sha", "dirty"}`` (:class:`bootmark.core.records.SourceState`); ``dirty`` is
        None when git cannot say.

    Examples
    --------
    >>> from bootmark.core.provenance import source_state
    >>> source_state(None)
    {'git_sha': None, 'dirty': None}
    """
    if root is None:
        return {"git_sha": None, "dirty": None}
    sha = _git("rev-parse", "HEAD", root=root)
    tracked = _git("status", "--porcelain", "--untracked-files=no", root=root)
    # New, unignored files in the code folders count too (they could be imported); new
    # receipts and notes elsewhere do not.
    untracked = _git("status", "--porcelain", "--untracked-files=all", "--", *CODE_FOLDERS, root=root)
    if tracked is None or untracked is None:
        return {"git_sha": sha, "dirty": None}
    return {"git_sha": sha, "dirty": bool(tracked) or any(line.startswith("??") for line in untracked.splitlines())}


def versions() -> dict[str, object]:
    """Versions of Python, the peers and bootmark, the stream version, and the OpenBLAS
    kernel numpy runs (``openblas_coretype``: the peers' last bits depend on it, see
    :mod:`bootmark.core.blas`).

    Returns
    -------
    dict
        ``{"python", *PEERS, "bootmark", "stream_version", "openblas_coretype"}``; a peer
        that is not installed maps to None.

    Examples
    --------
    >>> from bootmark.core.provenance import PEERS, versions
    >>> found = versions()
    >>> [name for name in ("python", *PEERS, "bootmark", "stream_version") if name not in found]
    []
    """
    # late on purpose: `bootmark versus` workers import this module before they choose
    # which source tree's twins to load (head_to_head.import_engine)
    from bootmark.reference.indices import STREAM_VERSION

    found = {name: package_version(name) for name in PEERS}
    return {
        "python": platform.python_version(),
        **found,
        "bootmark": __version__,
        "stream_version": STREAM_VERSION,
        "openblas_coretype": loaded_coretype(),
    }


def threading_state() -> dict[str, object]:
    """Numba's thread count and threading layer (the layer is known once a parallel
    region has run; "unknown" before).

    Returns
    -------
    dict
        ``{"numba_threads": int, "threading_layer": str}``
        (:class:`bootmark.core.records.ThreadState`).

    Examples
    --------
    >>> from bootmark.core.provenance import threading_state
    >>> sorted(threading_state())
    ['numba_threads', 'threading_layer']
    """

    try:
        layer = numba.threading_layer()
    except ValueError:
        layer = "unknown"
    return {"numba_threads": numba.get_num_threads(), "threading_layer": layer}


def utc_now() -> str:
    """Current UTC time as an ISO 8601 string with a Z suffix, seconds precision.

    Returns
    -------
    str
        ``YYYY-MM-DDTHH:MM:SSZ``.

    Examples
    --------
    >>> from bootmark.core.provenance import utc_now
    >>> now = utc_now()
    >>> len(now), now[10], now[-1]
    (20, 'T', 'Z')
    """
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def collect(root: str | None = None) -> dict[str, object]:
    """The provenance block of a receipt started now.

    Parameters
    ----------
    root : str, optional
        The checkout whose commit is recorded (default: :func:`source_checkout`).

    Returns
    -------
    dict
        ``{"machine", "versions", "threads", "source", "started_utc", "command_line"}``,
        valid against the provenance schema (:class:`bootmark.core.records.Provenance`).

    See Also
    --------
    bootmark.core.receipts.seal : seal a receipt with this block.

    Examples
    --------
    >>> from bootmark.core.provenance import collect
    >>> list(collect())
    ['machine', 'versions', 'threads', 'source', 'started_utc', 'command_line']
    """
    root = root or source_checkout()
    return {
        "machine": machine(),
        "versions": versions(),
        "threads": threading_state(),
        "source": source_state(root),
        "started_utc": utc_now(),
        "command_line": [os.path.basename(sys.argv[0]), *sys.argv[1:]],
    }
