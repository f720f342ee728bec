"""The optional extras of the ``bootmark`` distribution, and the one-line error a verb
raises when it needs a package that is not installed.

``pip install bootmark`` installs what the engine and the harness core need (numpy,
numba, pandas, jsonschema, tqdm, json5) and nothing pinned exactly. pandas is the engine's: it
returns labelled statistics (a model's coefficients) as a pandas Series, on numpy input
too. The rest is optional:

* ``peers``: ``arch``, ``tsbootstrap`` and ``statsmodels`` at the exact versions receipts
  are comparable at (:data:`PEER_PINS`; every receipt records the versions it ran with):
  the bench, the memory sweep, the studies that time or resample through a peer, and the
  forecast studies' peer forecasters (:mod:`bootmark.studies.forecasters`);
* ``site``: matplotlib and ruptures, for ``bootmark site`` and the charts of
  ``bootmark study render``;
* ``cluster``: dask.distributed, for ``bootmark study run --scheduler``;
* ``all``: every extra above.
"""

from __future__ import annotations

import importlib.util

__all__ = [
    "EXTRAS",
    "IMPORT_NAMES",
    "PEER_PINS",
    "MissingExtraError",
    "extra_for",
    "install_hint",
    "missing_message",
    "require",
]

#: The peers' exact versions, as the ``peers`` extra pins them (pyproject.toml).
PEER_PINS = {"arch": "8.0.0", "tsbootstrap": "0.7.3", "statsmodels": "0.15.0", "scikit-learn": "1.9.1"}

#: A pinned distribution whose import name differs from its name.
IMPORT_NAMES = {"scikit-learn": "sklearn"}

#: extra -> (what it adds, the import names it provides).
EXTRAS = {
    "peers": (
        "arch, tsbootstrap, statsmodels and scikit-learn, the peers of `bootmark bench`, `bootmark memory` and "
        "the studies' peer resamplers and forecasters (scikit-learn: the regressor of tsbootstrap's EnbPI)",
        ("arch", "tsbootstrap", "statsmodels", "sklearn"),
    ),
    "site": (
        "matplotlib and ruptures, for `bootmark site` and the charts of `bootmark study render`",
        ("matplotlib", "ruptures"),
    ),
    "cluster": ("`bootmark study run --scheduler ADDRESS` on a dask.distributed cluster", ("distributed",)),
}

# Import names that arrive with an extra's packages, beyond the ones it names.
_ALSO = {"dask": "cluster"}


class MissingExtraError(Exception):
    """A verb needs a package that an extra of bootmark installs, and it is not installed.

    Reported by the command line in one line, exit 2.

    Parameters
    ----------
    package : str
        The import name that is missing.
    purpose : str, optional
        What needs it, as the message's subject.

    Attributes
    ----------
    package : str
        The import name that is missing.
    extra : str
        The extra that installs it.

    Examples
    --------
    >>> from bootmark.core.extras import MissingExtraError
    >>> raise MissingExtraError("arch", "the bench")
    Traceback (most recent call last):
        ...
    bootmark.core.extras.MissingExtraError: the bench needs arch, which is not installed: pip install 'bootmark[peers]'
    """

    def __init__(self, package: str, purpose: str = "this verb"):
        self.package = package
        self.extra = extra_for(package)
        super().__init__(f"{purpose} needs {package}, which is not installed: {install_hint(package)}")


def extra_for(package: str) -> str | None:
    """The extra that installs ``package``, or None.

    Parameters
    ----------
    package : str
        An import name, e.g. ``"arch"``.

    Returns
    -------
    str or None
        The extra's name (``"peers"``), or None when no extra installs it.

    Examples
    --------
    >>> from bootmark.core.extras import extra_for
    >>> extra_for("tsbootstrap"), extra_for("matplotlib"), extra_for("numpy")
    ('peers', 'site', None)
    """
    for extra, (_, names) in EXTRAS.items():
        if package in names:
            return extra
    return _ALSO.get(package)


def install_hint(package: str) -> str:
    """The command that installs ``package``: its extra when it has one.

    Parameters
    ----------
    package : str
        An import name.

    Returns
    -------
    str
        ``pip install 'bootmark[<extra>]'``, else ``pip install <package>``.

    Examples
    --------
    >>> from bootmark.core.extras import install_hint
    >>> install_hint("ruptures")
    "pip install 'bootmark[site]'"
    """
    extra = extra_for(package)
    return f"pip install 'bootmark[{extra}]'" if extra else f"pip install {package}"


def missing_message(package: str, purpose: str = "this verb") -> str:
    """The line printed when ``package`` is missing (:class:`MissingExtraError`'s message).

    Parameters
    ----------
    package : str
        The import name that is missing.
    purpose : str, optional
        What needs it, as the message's subject.

    Returns
    -------
    str
        One line naming the package and the command that installs it.

    Examples
    --------
    >>> from bootmark.core.extras import missing_message
    >>> missing_message("matplotlib", "the site")
    "the site needs matplotlib, which is not installed: pip install 'bootmark[site]'"
    """
    return str(MissingExtraError(package, purpose))


def require(*packages: str, purpose: str = "this verb") -> None:
    """Raise :class:`MissingExtraError` for the first of ``packages`` (import names) that is
    not installed; import nothing.

    Parameters
    ----------
    *packages : str
        Import names, e.g. ``"arch"``.
    purpose : str, optional
        What needs them, as the message's subject (e.g. ``"bootmark bench"``).

    Raises
    ------
    MissingExtraError
        A package is not installed.

    Examples
    --------
    >>> from bootmark.core.extras import require
    >>> require("json")
    >>> require("no_such_pkg", purpose="a demo")
    Traceback (most recent call last):
        ...
    bootmark.core.extras.MissingExtraError: a demo needs no_such_pkg, which is not installed: pip install no_such_pkg
    """
    for package in packages:
        if importlib.util.find_spec(package) is None:
            raise MissingExtraError(package, purpose)
