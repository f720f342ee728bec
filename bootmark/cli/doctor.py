"""``bootmark doctor``: what this installation is, and what it would need for more.

One report, plain text: bootmark's version and stream version, where it runs from (a
checkout at a commit, or an installed wheel), Python, numpy and Numba with the thread
count and the engine's kernel cache folder, the OpenBLAS kernel numpy loaded against the
one studies pin, the workspace in use with its folders, the peers, and what each extra
would add. It reads and prints; it writes nothing.
"""

import importlib.util
import os
import platform
import sys

import numba

from bootmark import __version__
from bootmark.core import blas, provenance, workspace
from bootmark.core.extras import EXTRAS, PEER_PINS
from bootmark.engine.cache import cache_directory
from bootmark.reference.indices import STREAM_VERSION
from bootmark.studies import protocol

__all__ = ["report"]


def _installed(names):
    """Whether every import name in ``names`` is importable (an extra's names are import
    names: scikit-learn's is sklearn, which no distribution is called)."""
    return all(importlib.util.find_spec(name) is not None for name in names)


def _source_line():
    checkout = provenance.source_checkout()
    if checkout is None:
        package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # bootmark/cli/ -> bootmark/
        return f"installed package at {package}"
    state = provenance.source_state(checkout)
    dirty = " (dirty)" if state["dirty"] else ""
    return f"checkout {checkout} at {(state['git_sha'] or 'no commit')[:10]}{dirty}"


def _workspace_lines(found, problem):
    if problem is not None:
        return [f"workspace: UNUSABLE: {problem}"]
    if found is None:
        try:
            found = workspace.find()
        except workspace.WorkspaceError as error:
            return [f"workspace: UNUSABLE: {error}"]

    own = protocol.protocol_files(found.protocols) if os.path.isdir(found.protocols) else []
    return [
        f"workspace: {found.root} (found by {found.found_by})",
        f"  receipts:  {found.receipts}",
        f"  runs:      {found.runs}",
        f"  protocols: {found.protocols} ({len(own)} of the workspace's own, besides the shipped S1-S4)",
    ]


def report(found: "workspace.Workspace | None" = None, problem: "Exception | None" = None) -> str:
    """The doctor's report (module docstring) on the workspace ``found`` (default: the one
    :func:`bootmark.core.workspace.find` finds now), or on the ``problem`` that made the chosen
    workspace unusable."""

    lines = [
        f"bootmark {__version__} (stream version {STREAM_VERSION}): {_source_line()}",
        f"python {platform.python_version()} at {sys.executable}",
        f"numpy {provenance.package_version('numpy')}, pandas {provenance.package_version('pandas')}",
        f"numba {numba.__version__}: {numba.get_num_threads()} threads (NUMBA_NUM_THREADS="
        f"{os.environ.get('NUMBA_NUM_THREADS', 'unset')}), kernel cache {cache_directory()}",
    ]
    loaded = blas.loaded_coretype()
    pinned = os.environ.get(blas.CORETYPE_VARIABLE)
    lines.append(
        f"OpenBLAS kernel: {loaded or 'unknown'} ({blas.CORETYPE_VARIABLE}={pinned or 'unset'}; "
        f"`bootmark study run` and `verify` pin {blas.PINNED_CORETYPE} so peers replay bit for bit)"
    )
    lines += _workspace_lines(found, problem)
    for package, pin in PEER_PINS.items():
        version = provenance.package_version(package)
        status = f"{version}" + ("" if version == pin else f" (receipts pin {pin})") if version else "not installed"
        lines.append(f"peer {package}: {status}")
    for extra, (adds, names) in EXTRAS.items():
        state = "installed" if _installed(names) else f"not installed: pip install 'bootmark[{extra}]'"
        lines.append(f"extra [{extra}]: {state}; adds {adds}")
    return "\n".join(lines)
