"""The two sides ``bootmark gate`` compares, each with its own code.

* The **baseline** is a commit, exported with ``git archive`` into a temporary tree.
* The **current** side is the working tree as it is (a dirty tree is reported).

Two ways to make a side's code importable:

* **import path** (the default, for pure-Python and Numba projects): the side's tree
  (or its ``paths``, e.g. ``src``) goes first on the worker's import path, and the worker
  reports where the package came from, which must lie in that tree;
* **install** (``[tool.bootmark.gate] install = "..."``): the command runs in a copy of
  the side's tree with a fresh virtual environment first on ``PATH``, for projects that
  must be built. The environment sees this interpreter's packages behind its own, so only
  the project itself is installed. A baseline commit's environment is cached, keyed by
  commit, Python version, the interpreter whose packages it inherits (and which packages
  those are) and the install command, and reused by later gates; a dirty current tree is built each time.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import site
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass

from bootmark.gate.config import GateConfig

__all__ = [
    "BASELINE",
    "CURRENT",
    "Side",
    "SideError",
    "cache_directory",
    "current_side",
    "prepare_sides",
    "resolve_revision",
    "working_tree_state",
]

BASELINE, CURRENT = "baseline", "current"
READY_MARK = ".bootmark-ready"  # written last: an environment without it was cut short and is rebuilt


class SideError(RuntimeError):
    """A side cannot be made: no git, an unknown or missing baseline, or a failed build."""


@dataclass(frozen=True)
class Side:
    """One side of the comparison.

    Attributes
    ----------
    label : str
        ``baseline`` or ``current``.
    revision : str or None
        The full commit SHA (the current side's HEAD; None outside git history).
    dirty : bool
        Whether the current side has uncommitted changes (always False for the baseline).
    tree : str
        The folder its code comes from.
    python : str
        The interpreter its worker runs under.
    paths : tuple of str
        Absolute import roots put first on the worker's path.
    origin : str
        The folder the package must be imported from (the tree, or the environment).
    how : str
        ``import path`` or ``installed into <environment>``, for the report.
    """

    label: str
    revision: str | None
    dirty: bool
    tree: str
    python: str
    paths: tuple[str, ...]
    origin: str
    how: str


def _git(root, *arguments, binary=False):
    try:
        return subprocess.run(["git", *arguments], cwd=root, capture_output=True, text=not binary, check=False)
    except FileNotFoundError:
        raise SideError("git is not installed; bootmark gate needs it to export the baseline commit") from None


def resolve_revision(root: str, revision: str) -> str:
    """The full SHA of ``revision`` in the checkout at ``root``.

    Parameters
    ----------
    root : str
        A git checkout.
    revision : str
        Any git revision naming a commit (a SHA, a branch, ``HEAD~1``, ``origin/main``).

    Returns
    -------
    str
        The commit's 40-digit SHA.

    Raises
    ------
    SideError
        Not a git checkout, or no such commit (with the shallow-clone hint).
    """
    found = _git(root, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
    if found.returncode == 0:
        return found.stdout.strip()
    inside = _git(root, "rev-parse", "--is-inside-work-tree")
    if inside.returncode != 0:
        raise SideError(f"{root} is not a git checkout; bootmark gate compares two commits of one")
    shallow = _git(root, "rev-parse", "--is-shallow-repository").stdout.strip() == "true"
    hint = (
        " This clone is shallow: fetch the history (`git fetch --unshallow`, or actions/checkout with fetch-depth: 0)."
        if shallow
        else ""
    )
    raise SideError(f"the baseline {revision!r} is not a commit of {root}.{hint}")


def _export(root, sha, destination):
    archive = _git(root, "archive", "--format=tar", sha, binary=True)
    if archive.returncode != 0:
        raise SideError(f"git archive of {sha[:10]} failed: {archive.stderr.decode(errors='replace').strip()}")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(destination, filter="data")


def _copy_working_tree(root, destination):
    """The working tree's tracked and unignored files, as they are now."""
    listed = _git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    for relative in filter(None, listed.stdout.split("\0")):
        source = os.path.join(root, relative)
        if os.path.isfile(source):  # a deleted tracked file is still listed
            os.makedirs(os.path.dirname(os.path.join(destination, relative)), exist_ok=True)
            shutil.copy2(source, os.path.join(destination, relative))


def cache_directory() -> str:
    """Where built environments of clean commits are kept: ``$BOOTMARK_CACHE`` or
    ``$XDG_CACHE_HOME/bootmark`` (default ``~/.cache/bootmark``), then ``gate-envs``.

    Returns
    -------
    str
        The folder (it may not exist yet). Delete it to rebuild every environment.

    Examples
    --------
    >>> import os
    >>> from unittest import mock
    >>> from bootmark.gate.sides import cache_directory
    >>> with mock.patch.dict(os.environ, {"BOOTMARK_CACHE": "/ci/cache"}):
    ...     print(cache_directory())
    /ci/cache/gate-envs
    """
    base = os.environ.get("BOOTMARK_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "bootmark"
    )
    return os.path.join(base, "gate-envs")


def _environment_python(environment):
    return os.path.join(environment, "Scripts" if os.name == "nt" else "bin", "python")


def _ask(python, expression, what):
    """The JSON value of ``expression`` evaluated by the interpreter ``python`` (standard
    library only), or :class:`SideError` naming ``what`` could not be learnt."""
    asked = subprocess.run(
        [python, "-c", f"import json, site, sys; print(json.dumps({expression}))"],
        capture_output=True,
        text=True,
        check=False,
    )
    if asked.returncode != 0:
        raise SideError(f"the interpreter {python} cannot report {what}: {asked.stderr.strip()[-500:]}")
    return json.loads(asked.stdout)


def _is_this_interpreter(python):
    return python is None or os.path.realpath(python) == os.path.realpath(sys.executable)


def _inherited_site_packages(python=None):
    """The package folders of ``python`` (default this interpreter), which an environment
    built for a side sees behind its own."""
    folders = (
        site.getsitepackages()
        if _is_this_interpreter(python)
        else _ask(python, "site.getsitepackages()", "its site-packages")
    )
    return [path for path in folders if os.path.isdir(path)]


def _base_python(config):
    return config.python or sys.executable


def _environment_key(config):
    """What a cached environment depends on besides the commit: the inheriting
    interpreter, its package folders and the distributions installed there (two checkouts'
    virtual environments hold different packages, so a baseline built against one must not
    be reused from the other, nor from the same folder after its packages changed), and the
    install command."""
    folders = _inherited_site_packages(config.python)
    # what is installed there: distributions (.dist-info, and the older .egg-info and
    # .egg-link) and path hooks (.pth, which editable installs use), by name and version
    installed = sorted(
        name
        for folder in folders
        for name in os.listdir(folder)
        if name.endswith((".dist-info", ".egg-info", ".egg-link", ".pth"))
    )
    # the environment's own folder, not the interpreter's resolved path: two virtual
    # environments' pythons are often links to one interpreter
    owner = os.path.realpath(sys.prefix) if config.python is None else os.path.abspath(config.python)
    identity = "\n".join([owner, *folders, *installed, " ".join(config.install)])
    return hashlib.sha256(identity.encode()).hexdigest()[:8]


def _build(config, tree, environment, log):
    """A virtual environment at ``environment`` holding the project built from ``tree`` by
    the configured install command; this interpreter's packages are visible behind it."""
    shutil.rmtree(environment, ignore_errors=True)
    # Without its own pip and setuptools: this interpreter's (inherited below) build the
    # project, so a build needs no network and sees the same build tools on both sides.
    subprocess.run([_base_python(config), "-m", "venv", "--without-pip", environment], check=True, capture_output=True)
    python = _environment_python(environment)
    # A bare `pip` in the install command must install into this environment, not fall
    # through PATH to another one's pip.
    shim = os.path.join(os.path.dirname(python), "pip")
    with open(shim, "w", encoding="utf-8") as stream:
        stream.write(f"#!{python}\nimport sys\nfrom pip._internal.cli.main import main\nsys.exit(main())\n")
    os.chmod(shim, 0o755)
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    inherited = _inherited_site_packages(config.python)
    with open(os.path.join(purelib, "_bootmark_inherited.pth"), "w", encoding="utf-8") as stream:
        # addsitedir, not a bare path: the inherited folders' own .pth files must run too
        stream.write("".join(f"import site; site.addsitedir({path!r})\n" for path in inherited))
    environment_variables = dict(os.environ, VIRTUAL_ENV=environment, PIP_DISABLE_PIP_VERSION_CHECK="1")
    environment_variables["PATH"] = os.path.dirname(python) + os.pathsep + os.environ.get("PATH", "")
    environment_variables.pop("PYTHONHOME", None)
    completed = subprocess.run(
        list(config.install), cwd=tree, env=environment_variables, stdout=log, stderr=subprocess.STDOUT, check=False
    )
    if completed.returncode != 0:
        log.seek(0)
        raise SideError(
            f"the install command {' '.join(config.install)!r} failed in {tree} (exit {completed.returncode}):\n"
            f"{log.read()[-3000:]}"
        )
    with open(os.path.join(environment, READY_MARK), "w", encoding="utf-8") as stream:
        stream.write(" ".join(config.install) + "\n")
    return python


def _python_tag(python):
    """``pyXY`` for the interpreter ``python``."""
    major, minor = (
        sys.version_info[:2] if _is_this_interpreter(python) else _ask(python, "sys.version_info[:2]", "its version")
    )
    return f"py{major}{minor}"


def _side(config, label, revision, dirty, tree, stack, cache, say):
    if config.install is None:
        paths = tuple(os.path.normpath(os.path.join(tree, path)) for path in config.paths)
        return Side(label, revision, dirty, tree, _base_python(config), paths, tree, "import path")
    version = _python_tag(_base_python(config))
    if revision is not None and not dirty:
        environment = os.path.join(
            cache, f"{config.package or 'project'}-{revision[:12]}-{version}-{_environment_key(config)}"
        )
    else:
        environment = stack.enter_context(tempfile.TemporaryDirectory(prefix="bootmark-gate-env-"))
    python = _environment_python(environment)
    if not os.path.exists(os.path.join(environment, READY_MARK)):
        say(f"building the {label} side ({(revision or 'working tree')[:10]}) into {environment}")
        os.makedirs(os.path.dirname(environment), exist_ok=True)
        with tempfile.TemporaryFile("w+") as log:
            python = _build(config, tree, environment, log)
    else:
        say(f"reusing the {label} side's environment {environment}")
    return Side(label, revision, dirty, tree, python, (), environment, f"installed into {environment}")


def prepare_sides(
    config: GateConfig,
    baseline: str,
    stack: ExitStack,
    say: Callable[[str], None] = lambda message: None,
    own_files: str | None = None,
) -> tuple[Side, Side]:
    """The baseline (commit ``baseline``) and current (working tree) sides; temporary
    folders are closed by ``stack``.

    Parameters
    ----------
    config : GateConfig
    baseline : str
        A git revision of the checkout.
    stack : contextlib.ExitStack
        Owns the temporary trees and environments.
    say : callable, optional
        Progress messages (one line each).
    own_files : str, optional
        A folder of the checkout (relative) where the gate writes its own files; new
        files there are not a change of the code.

    Returns
    -------
    (Side, Side)
        The baseline and the current side.

    Raises
    ------
    SideError
        No git, an unknown baseline, a baseline that is the unchanged current commit, or a
        failed install.
    """
    sha = resolve_revision(config.root, baseline)
    head, dirty = working_tree_state(config.root, own_files)
    if sha == head and not dirty:
        shallow = _git(config.root, "rev-parse", "--is-shallow-repository").stdout.strip() == "true"
        raise SideError(
            f"the baseline {baseline!r} is the current commit {sha[:10]} and the working tree is unchanged, so "
            "there is nothing to compare; name the commit to compare against (e.g. --baseline origin/main in a "
            "pull request, --baseline HEAD~1 on a branch)"
            + (
                ". This clone is shallow: fetch the history first (`git fetch --unshallow`, or actions/checkout "
                "with fetch-depth: 0) and fetch the base branch (`git fetch origin main`)"
                if shallow
                else ""
            )
        )
    exported = stack.enter_context(tempfile.TemporaryDirectory(prefix="bootmark-gate-baseline-"))
    _export(config.root, sha, exported)
    return (
        _side(config, BASELINE, sha, False, exported, stack, cache_directory(), say),
        current_side(config, stack, say, own_files),
    )


def working_tree_state(root: str, own_files: str | None = None) -> tuple[str | None, bool]:
    """The checkout's HEAD commit and whether its working tree has changes.

    Parameters
    ----------
    root : str
        A git checkout.
    own_files : str, optional
        A folder of the checkout (relative) where bootmark writes its own files; new files
        there are not a change of the code.

    Returns
    -------
    (str or None, bool)
        HEAD's 40-digit SHA (None before the first commit) and whether the tree is dirty.

    Raises
    ------
    SideError
        git is not installed.
    """
    head = _git(root, "rev-parse", "--verify", "--quiet", "HEAD").stdout.strip() or None
    status = _git(root, "status", "--porcelain", "--untracked-files=all").stdout.splitlines()
    mine = None if own_files is None else own_files.rstrip("/") + "/"
    dirty = any(not (mine and line.startswith("?? ") and line[3:].startswith(mine)) for line in status if line.strip())
    return head, dirty


def current_side(
    config: GateConfig,
    stack: ExitStack,
    say: Callable[[str], None] = lambda message: None,
    own_files: str | None = None,
) -> Side:
    """The current side: the working tree as it is (built into a fresh environment when
    ``config.install`` says so, from a copy of the tree).

    Parameters
    ----------
    config : GateConfig
    stack : contextlib.ExitStack
        Owns the temporary tree and environment.
    say : callable, optional
        Progress messages (one line each).
    own_files : str, optional
        As :func:`working_tree_state` takes it.

    Returns
    -------
    Side

    Raises
    ------
    SideError
        No git, or a failed install.
    """
    head, dirty = working_tree_state(config.root, own_files)
    tree = config.root
    if config.install is not None:  # a build writes into its tree: build a copy, not the user's checkout
        tree = stack.enter_context(tempfile.TemporaryDirectory(prefix="bootmark-gate-current-"))
        _copy_working_tree(config.root, tree)
    return _side(config, CURRENT, head, dirty, tree, stack, cache_directory(), say)
