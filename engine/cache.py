"""Where the engine's compiled kernels are cached on disk, and why not beside the source.

Numba's default (``cache=True``) writes the cache into ``__pycache__`` beside each
module whenever that folder is writable: inside ``site-packages`` for an installed wheel,
so a virtual environment changes under the user's feet. Its cache also checks only the
file that defines a kernel, not the kernels it inlines from other files, so an edited
engine could run a stale kernel.

This module points bootmark's kernels (the engine's, and the harness's Philox floor,
which inlines the engine's), and only bootmark's, at a user cache folder named after a
hash of all the engine's sources::

    $BOOTMARK_CACHE_DIR, else $XDG_CACHE_HOME/bootmark, else ~/.cache/bootmark
        /numba-<first 16 hex of SHA-256 over engine/*.py>/

so any edit to any engine file starts a fresh cache. When ``NUMBA_CACHE_DIR`` is set,
Numba's own rule applies unchanged (the user chose a folder). Functions outside the
engine (a user's own ``@njit(cache=True)``) keep Numba's default.

It works through Numba's cache-locator list (``numba.core.caching``); if a future Numba
renames those classes, the engine falls back to Numba's default cache rules.
"""

import hashlib
import os
import sys

from numba.core import config

__all__ = ["CACHE_VARIABLE", "cache_directory", "install_locator"]

CACHE_VARIABLE = "BOOTMARK_CACHE_DIR"
ENGINE_DIRECTORY = os.path.dirname(os.path.abspath(__file__))


def _bootmark_directories():
    """The engine's folder, and the ``bootmark`` package's folder with its subpackages'
    (the harness's kernels: the bench's Philox floors)."""
    package = sys.modules.get(__name__.rsplit(".", 2)[0])
    if not getattr(package, "__file__", None):
        return frozenset([ENGINE_DIRECTORY])
    root = os.path.dirname(os.path.abspath(package.__file__))
    rooms = (entry.path for entry in os.scandir(root) if entry.is_dir() and not entry.name.startswith(("_", ".")))
    return frozenset([ENGINE_DIRECTORY, root, *rooms])


def _sources_hash():
    digest = hashlib.sha256()
    for name in sorted(os.listdir(ENGINE_DIRECTORY)):
        if name.endswith(".py"):
            with open(os.path.join(ENGINE_DIRECTORY, name), "rb") as source:
                digest.update(name.encode() + b"\0" + source.read() + b"\0")
    return digest.hexdigest()[:16]


def cache_directory() -> str:
    """The folder the engine's kernels are cached in (module docstring), or Numba's
    ``NUMBA_CACHE_DIR`` when the user set one."""
    if config.CACHE_DIR:
        return config.CACHE_DIR
    base = os.environ.get(CACHE_VARIABLE) or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "bootmark"
    )
    return os.path.join(base, f"numba-{_sources_hash()}")


def install_locator() -> bool:
    """Put the engine's locator first in Numba's list (once); False when Numba lacks the
    classes it builds on, and the default rules apply."""
    try:
        # probed, not assumed: numba.core.caching's locator classes are private API
        from numba.core import caching
    except ImportError:  # pragma: no cover - every supported Numba has numba.core.caching
        return False
    base = getattr(caching, "UserProvidedCacheLocator", None) or getattr(caching, "_UserProvidedCacheLocator", None)
    implementation = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    if (
        base is None
        or implementation is None
        or not isinstance(getattr(implementation, "_locator_classes", None), list)
    ):
        return False
    if any(getattr(cls, "bootmark_engine", False) for cls in implementation._locator_classes):
        return True
    directory = cache_directory()
    owned = _bootmark_directories()

    class EngineCacheLocator(base):
        """Numba's user-directory locator, aimed at :func:`cache_directory`, for bootmark's files only."""

        bootmark_engine = True

        def __init__(self, py_func, py_file):
            super().__init__(py_func, py_file)
            self._cache_path = os.path.join(directory, self.get_suitable_cache_subpath(py_file))

        @classmethod
        def from_function(cls, py_func, py_file):
            inside = os.path.dirname(os.path.abspath(py_file)) in owned
            if config.CACHE_DIR or not inside:
                return None
            # Skip the base's own CACHE_DIR test: the mixin above it checks the file exists
            # and that the folder can be written.
            return super(base, cls).from_function(py_func, py_file)

    implementation._locator_classes.insert(0, EngineCacheLocator)
    return True
