"""The workspace: the folder where a user's receipts, run directories, protocols and
rendered output live, never the installed package.

Found, in this order (the first that applies wins):

1. ``--workspace DIR`` on the command line (the CLI passes it as ``explicit``);
2. the environment variable ``BOOTMARK_WORKSPACE``;
3. the nearest folder, from the current directory upward, that holds a ``bootmark.toml``
   or a ``pyproject.toml`` with a ``[tool.bootmark]`` table;
4. the current directory.

Layout, relative to the workspace root (each folder can be renamed in the config)::

    bootmark.toml          optional config (or [tool.bootmark] in pyproject.toml)
    protocols/             the workspace's own study protocols, added to the shipped ones
    receipts/bench/        speed receipts          receipts/memory/   memory receipts
    receipts/studies/      study receipts          receipts/studies/truth/  Monte Carlo truths
    receipts/studies/charts/  charts rendered from study receipts
    runs/                  study checkpoints (resumable; not worth committing)
    README.md              where ``--readme`` renders its marked sections

The config keys are ``receipts``, ``runs`` and ``protocols``: folder paths, relative to
the workspace root; and ``readme``: the Markdown file ``--readme`` renders into (default
``README.md``). Any other key is refused, so a typo does not silently send receipts
elsewhere. ``docs/workspace.md`` in the repository says the same with examples.
"""

import os
import sys
from dataclasses import dataclass

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = [
    "ENVIRONMENT_VARIABLE",
    "CONFIG_FILE",
    "Workspace",
    "WorkspaceError",
    "find",
    "init",
    "directory_for",
    "writable_directory",
]

ENVIRONMENT_VARIABLE = "BOOTMARK_WORKSPACE"  # names the workspace folder (rule 2 above)
CONFIG_FILE = "bootmark.toml"  # marks a workspace folder and configures it
FOLDER_KEYS = {"receipts": "receipts", "runs": "runs", "protocols": "protocols"}
# The Markdown file whose marked sections `--readme` renders (a file path, not a folder).
FILE_KEYS = {"readme": "README.md"}
# Tables read by one verb each, not by the workspace: [tool.bootmark.gate] (bootmark.gate.suite).
SUBTABLES = ("gate",)
# Receipt kind -> folder under the receipts folder.
RECEIPT_FOLDERS = {
    "bench": "bench",
    "memory": "memory",
    "study": "studies",
    "process": "studies",
    "truth": os.path.join("studies", "truth"),
    "gate": "gate",
    "gatecheck": "gatecheck",
    "gatesuites": "gatesuites",
    "record": "records",
    "panel": "panel",
}

CONFIG_TEMPLATE = """\
# A bootmark workspace (see `bootmark doctor` for the one in use).
# Folders are relative to this file; these are the defaults.
receipts = "receipts"    # bench/, memory/, studies/ receipts; commit them
runs = "runs"            # study checkpoints for --resume; safe to delete after a run
protocols = "protocols"  # your study protocols (*-vN.toml), added to the shipped S1-S4
"""

README_TEMPLATE = """\
# bootmark workspace

What goes where (all paths relative to this folder):

| path | what | commit it? |
|---|---|---|
| `bootmark.toml` | marks this folder as a workspace; names the folders below | yes |
| `protocols/` | your study protocols, `<ID>-v<N>.toml`; run one with `bootmark study run <ID>` or `bootmark study run protocols/<file>` | yes |
| `receipts/bench/`, `receipts/memory/` | speed and memory receipts (`bootmark bench`, `bootmark memory`) | yes |
| `receipts/studies/` | coverage-study receipts (`bootmark study run`), truths and charts | yes |
| `runs/` | checkpoints of study runs, for `bootmark study run --resume` | no |

Receipts are JSON, written once and never overwritten; `bootmark study verify RECEIPT`
replays a study receipt, and `bootmark scoreboard` renders the newest bench receipt.
`bootmark doctor` prints the versions, the workspace in use and what each extra adds.

To render tables into this README, add the marker lines that `bootmark scoreboard --readme`
and `bootmark study render --readme` ask for.
"""

GITIGNORE_TEMPLATE = "runs/\n"


class WorkspaceError(ValueError):
    """A workspace that cannot be used: the message names the file or folder and the fix.

    A ``ValueError``, raised by :func:`find`, :func:`init` and :func:`writable_directory`.

    Examples
    --------
    >>> import os, tempfile
    >>> from bootmark.core import workspace
    >>> with tempfile.TemporaryDirectory() as scratch:
    ...     workspace.find(os.path.join(scratch, "missing"))
    Traceback (most recent call last):
        ...
    bootmark.core.workspace.WorkspaceError: workspace .../missing (--workspace) is not a folder; ...
    """


@dataclass(frozen=True)
class Workspace:
    """Where this run reads and writes; every path is absolute.

    Attributes
    ----------
    root : str
        The workspace folder.
    found_by : str
        How it was found: ``"--workspace"``, ``"BOOTMARK_WORKSPACE"``, the config file's
        path, or ``"current directory"``.
    config_file : str or None
        The ``bootmark.toml`` or ``pyproject.toml`` that configures it, if any.
    receipts, runs, protocols : str
        The receipts folder, the run-directory folder and the user-protocol folder.
    readme : str
        The Markdown file whose marked sections ``--readme`` renders (default
        ``README.md``; the config key ``readme`` names another, e.g. a docs page).

    See Also
    --------
    find : the workspace in use.

    Examples
    --------
    >>> import os, tempfile
    >>> from bootmark.core import workspace
    >>> with tempfile.TemporaryDirectory() as scratch:
    ...     used = workspace.find(scratch)
    ...     print(used.found_by, used.config_file)
    ...     print(os.path.relpath(used.receipts, used.root), os.path.relpath(used.charts, used.root))
    --workspace None
    receipts receipts/studies/charts
    """

    root: str
    found_by: str
    config_file: str | None
    receipts: str
    runs: str
    protocols: str
    readme: str

    def receipt_directory(self, kind: str) -> str:
        """The folder receipts of ``kind`` (bench, memory, study, process, truth) go in.

        Parameters
        ----------
        kind : str
            A receipt kind.

        Returns
        -------
        str
            An absolute folder under :attr:`receipts` (it may not exist yet).

        Raises
        ------
        ValueError
            ``kind`` is not a receipt kind.

        Examples
        --------
        >>> import os, tempfile
        >>> from bootmark.core import workspace
        >>> with tempfile.TemporaryDirectory() as scratch:
        ...     used = workspace.find(scratch)
        ...     print(os.path.relpath(used.receipt_directory("truth"), used.root))
        receipts/studies/truth
        """
        if kind not in RECEIPT_FOLDERS:
            raise ValueError(f"no receipt kind {kind!r}; kinds are {', '.join(RECEIPT_FOLDERS)}")
        return os.path.join(self.receipts, RECEIPT_FOLDERS[kind])

    @property
    def charts(self) -> str:
        """The folder study charts are rendered into."""
        return os.path.join(self.receipts, "studies", "charts")

    def shown(self, path: str) -> str:
        """``path`` as rendered text shows it: relative to the workspace root when inside
        it, else as given.

        Parameters
        ----------
        path : str
            Any path.

        Returns
        -------
        str
            The path relative to :attr:`root` when it lies inside, else ``path``.

        Examples
        --------
        >>> import os, tempfile
        >>> from bootmark.core import workspace
        >>> with tempfile.TemporaryDirectory() as scratch:
        ...     used = workspace.find(scratch)
        ...     print(used.shown(os.path.join(scratch, "receipts", "bench", "a.json")))
        ...     print(used.shown("/elsewhere/b.json"))
        receipts/bench/a.json
        /elsewhere/b.json
        """
        absolute = os.path.realpath(path)
        return os.path.relpath(absolute, self.root) if absolute.startswith(self.root + os.sep) else path


def _read_config(path):
    """The bootmark table of ``path`` (bootmark.toml: the whole file; pyproject.toml: its
    ``[tool.bootmark]``), or None when a pyproject.toml has no such table."""
    try:
        with open(path, "rb") as stream:
            data = tomllib.load(stream)
    except tomllib.TOMLDecodeError as error:
        raise WorkspaceError(f"{path} is not valid TOML ({error}); fix it or remove it") from None
    except OSError as error:
        raise WorkspaceError(f"cannot read {path}: {error.strerror}") from None
    if os.path.basename(path) == "pyproject.toml":
        table = data.get("tool", {}).get("bootmark")
        if table is not None and not isinstance(table, dict):
            raise WorkspaceError(f"{path}: [tool.bootmark] must be a table")
        return table
    return data


def _configured(root, found_by, config_file, table):
    table = table or {}
    unknown = sorted(set(table) - set(FOLDER_KEYS) - set(FILE_KEYS) - set(SUBTABLES))
    if unknown:
        raise WorkspaceError(
            f"{config_file}: unknown key(s) {', '.join(unknown)}; a workspace config takes only "
            f"{', '.join(FOLDER_KEYS)} (folder paths relative to the workspace), {', '.join(FILE_KEYS)} "
            f"(a file path relative to the workspace) and the tables "
            f"{', '.join(SUBTABLES)}"
        )
    folders = {}
    for key, default in {**FOLDER_KEYS, **FILE_KEYS}.items():
        value = table.get(key, default)
        if not isinstance(value, str) or not value.strip():
            what = "a folder" if key in FOLDER_KEYS else "a file"
            raise WorkspaceError(f"{config_file}: {key} must be {what} path as a string, got {value!r}")
        folders[key] = os.path.normpath(os.path.join(root, os.path.expanduser(value)))
    return Workspace(root=root, found_by=found_by, config_file=config_file, **folders)


def _config_in(directory):
    """(path, table) of the workspace config in ``directory``, or None."""
    own = os.path.join(directory, CONFIG_FILE)
    if os.path.isfile(own):
        return own, _read_config(own)
    project = os.path.join(directory, "pyproject.toml")
    if os.path.isfile(project):
        table = _read_config(project)
        if table is not None:
            return project, table
    return None


def _at(directory, found_by):
    if not os.path.isdir(directory):
        raise WorkspaceError(
            f"workspace {directory} ({found_by}) is not a folder; create it with "
            f"`bootmark init {directory}` or point {found_by} elsewhere"
        )
    root = os.path.realpath(directory)
    config = _config_in(root)
    return _configured(root, found_by, *(config or (None, None)))


def find(explicit: str | None = None, *, start: str | None = None) -> Workspace:
    """The workspace in use (module docstring: flag, environment, nearest config, cwd).

    Parameters
    ----------
    explicit : str, optional
        The ``--workspace`` folder, which wins over everything else.
    start : str, optional
        Where the upward search begins (default: the current directory).

    Returns
    -------
    Workspace
        The workspace, its folders absolute.

    Raises
    ------
    WorkspaceError
        The named folder does not exist, or its config is unreadable or has unknown keys.

    See Also
    --------
    init : make a folder a workspace.

    Examples
    --------
    >>> import os, tempfile
    >>> from bootmark.core import workspace
    >>> with tempfile.TemporaryDirectory() as scratch:
    ...     nested = os.path.join(scratch, "a", "b")
    ...     os.makedirs(nested)
    ...     with open(os.path.join(scratch, "bootmark.toml"), "w") as config:
    ...         _ = config.write('receipts = "results"')
    ...     used = workspace.find(start=nested)
    ...     print(used.root == os.path.realpath(scratch), os.path.basename(used.found_by))
    ...     print(os.path.relpath(used.receipt_directory("bench"), used.root))
    True bootmark.toml
    results/bench
    >>> with tempfile.TemporaryDirectory() as scratch:
    ...     with open(os.path.join(scratch, "bootmark.toml"), "w") as config:
    ...         _ = config.write('reciepts = "results"')
    ...     workspace.find(start=scratch)
    Traceback (most recent call last):
        ...
    bootmark.core.workspace.WorkspaceError: .../bootmark.toml: unknown key(s) reciepts; ...
    """
    if explicit:
        return _at(explicit, "--workspace")
    from_environment = os.environ.get(ENVIRONMENT_VARIABLE)
    if from_environment:
        return _at(from_environment, ENVIRONMENT_VARIABLE)
    here = os.path.realpath(start or os.getcwd())
    directory = here
    while True:
        config = _config_in(directory)
        if config is not None:
            return _configured(directory, config[0], *config)
        parent = os.path.dirname(directory)
        if parent == directory:
            return _configured(here, "current directory", None, None)
        directory = parent


def init(directory: str) -> list[str]:
    """Make ``directory`` a workspace: config, protocols/, receipts/, README and .gitignore.

    Existing files are left as they are (and not listed); returns the paths written.

    Parameters
    ----------
    directory : str
        The folder to set up; created if missing.

    Returns
    -------
    list of str
        The absolute paths written, folders ending in the path separator.

    Raises
    ------
    WorkspaceError
        ``directory`` is already configured as a workspace, or cannot be written.

    Examples
    --------
    >>> import os, tempfile
    >>> from bootmark.core import workspace
    >>> with tempfile.TemporaryDirectory() as scratch:
    ...     written = [os.path.relpath(path, scratch) for path in workspace.init(scratch)]
    ...     try:
    ...         workspace.init(scratch)
    ...     except workspace.WorkspaceError as error:
    ...         print(str(error).endswith("/bootmark.toml); nothing to do"))
    True
    >>> written
    ['protocols', 'receipts/bench', 'receipts/memory', 'receipts/studies', 'bootmark.toml', 'README.md', '.gitignore']
    """
    directory = os.path.abspath(directory)
    existing = _config_in(directory) if os.path.isdir(directory) else None
    if existing is not None:
        raise WorkspaceError(f"{directory} is already a workspace (configured by {existing[0]}); nothing to do")
    written = []
    try:
        os.makedirs(directory, exist_ok=True)
        workspace = _configured(directory, "init", None, None)
        for folder in (
            workspace.protocols,
            workspace.receipt_directory("bench"),
            workspace.receipt_directory("memory"),
            workspace.receipt_directory("study"),
        ):
            if not os.path.isdir(folder):
                os.makedirs(folder)
                written.append(folder + os.sep)
        for name, text in (
            (CONFIG_FILE, CONFIG_TEMPLATE),
            ("README.md", README_TEMPLATE),
            (".gitignore", GITIGNORE_TEMPLATE),
        ):
            path = os.path.join(directory, name)
            if not os.path.exists(path):
                with open(path, "x") as stream:
                    stream.write(text)
                written.append(path)
    except OSError as error:
        raise WorkspaceError(
            f"cannot write the workspace at {directory}: {error.strerror} ({error.filename})"
        ) from None
    return written


def directory_for(kind: str, given: str | None = None) -> str:
    """``given`` when a caller named a folder, else the workspace's folder for receipts of
    ``kind`` (resolved now, from the environment and the current directory).

    Parameters
    ----------
    kind : str
        A receipt kind (:meth:`Workspace.receipt_directory`).
    given : str, optional
        A folder the caller named (``--output-dir``), returned as is.

    Returns
    -------
    str
        The folder.

    Raises
    ------
    WorkspaceError
        No folder was given and the workspace cannot be found (:func:`find`).
    ValueError
        No folder was given and ``kind`` is not a receipt kind.

    Examples
    --------
    >>> from bootmark.core import workspace
    >>> workspace.directory_for("bench", "elsewhere/bench")
    'elsewhere/bench'
    """
    return given if given else find().receipt_directory(kind)


def writable_directory(kind: str, given: str | None = None) -> str:
    """:func:`directory_for`, created if missing and checked writable, so a long run learns
    before it starts, not after, that its receipt cannot be written.

    Parameters
    ----------
    kind : str
        A receipt kind.
    given : str, optional
        A folder the caller named, used instead of the workspace's.

    Returns
    -------
    str
        The folder, which exists and is writable.

    Raises
    ------
    WorkspaceError
        The folder cannot be created or written; the message names it and the fix.

    Examples
    --------
    >>> import os, tempfile
    >>> from bootmark.core import workspace
    >>> with tempfile.TemporaryDirectory() as scratch:
    ...     folder = workspace.writable_directory("memory", os.path.join(scratch, "memory"))
    ...     print(os.path.isdir(folder))
    True
    """
    folder = directory_for(kind, given)
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as error:
        raise WorkspaceError(
            f"cannot create the receipt folder {folder}: {error.strerror}; choose another with "
            "--output-dir or --workspace"
        ) from None
    if not os.access(folder, os.W_OK):
        raise WorkspaceError(
            f"cannot write receipts into {folder}: permission denied; choose another with --output-dir or --workspace"
        )
    return folder
