"""Sphinx configuration of bootmark's documentation site (scripts/docs builds it).

The guides are the Markdown pages of this folder (MyST); the API reference is generated
from the public API's numpydoc docstrings (numpydoc, the convention of numpy, scipy and
arch). The scoreboard site (docs/site, built by ``bootmark site``) is copied beside the
pages as ``scoreboard/``. The build must pass with warnings as errors (``-W``).
"""

import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bootmark  # noqa: E402 - after the path set-up above

project = "bootmark"
author = "the bootmark developers"
copyright = "2026, the bootmark developers"  # noqa: A001 - Sphinx's own name
release = version = bootmark.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "site", "screenshots", "README.md", "api/_templates"]

# The docstrings write absolute values as |x| (they are also the verbs' --help texts, read
# as plain text); to reST those are substitutions, each defined here as itself.
_ABSOLUTE_VALUES = (
    "NEW arch / OLD arch - 1",
    "current - baseline",
    "phi",
    "theta",
    "estimate - (1 - h/L)",
    "estimate - published",
)
rst_prolog = "\n".join(f".. |{text}| replace:: \\|{text}\\|" for text in _ABSOLUTE_VALUES) + "\n"

# MyST: heading anchors for the guides' #links, and $math$ as the guides write it.
myst_heading_anchors = 4
myst_enable_extensions = ["dollarmath"]

# autodoc: members in each module's __all__, in source order; numpydoc renders the sections.
autodoc_default_options = {"members": True, "undoc-members": True, "member-order": "bysource"}
autodoc_typehints = "none"  # the numpydoc Parameters sections say the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

html_theme = "alabaster"
html_title = f"bootmark {release}"
html_static_path = []


# The public constants of the twins, which carry no docstring of their own.
_DATA = {
    "STREAM_VERSION": "The version of the random streams (the stream contract guide), recorded in every "
    "result and receipt; golden files pin the first draws of every method.",
    "DEFAULT_MEMORY_BUDGET": "Bytes a materialized B x n tensor may take (``bootstrap``) unless the caller "
    "passes a larger ``memory_budget``.",
}


def _data_entries(package, names):
    """py:data entries for the constants ``names`` of ``package``."""
    module = __import__(package, fromlist=["__all__"])
    lines = []
    for name in names:
        lines += [
            f".. py:data:: {name}",
            f"   :module: {package}",
            f"   :value: {getattr(module, name)!r}",
            "",
            f"   {_DATA[name]}",
            "",
        ]
    return lines


def _write_if_changed(path, page):
    if not os.path.exists(path) or open(path, encoding="utf-8").read() != page:
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(page)


def _module_section(title, module, members, *text):
    """A titled section: ``text``, then ``module``'s docstring and the named ``members``
    (the public entry points are documented once, on the package's page)."""
    return [title, "-" * len(title), "", *text, "", f".. automodule:: {module}", f"   :members: {members}", ""]


def _twin_pages(app, config):
    """Write api/engine.rst and api/reference.rst from the twins' ``__all__``.

    The engine's own functions and classes by autodoc, and one entry for each name it
    re-exports from the reference twin (its specs, result records and errors are the
    twin's own objects, described once, on the reference's page); each twin's constants
    as data entries (autodoc leaves out imported constants)."""
    from bootmark import engine, reference

    shared, constants = [], []
    for name in engine.__all__:
        value = getattr(engine, name)
        if isinstance(value, type) and value.__module__.startswith("bootmark.reference"):
            shared.append(name)
        elif name in _DATA:
            constants.append(name)
    lines = [
        "bootmark.engine",
        "===============",
        "",
        ".. automodule:: bootmark.engine",
        f"   :exclude-members: {', '.join(shared + constants)}",
        "",
        *_data_entries("bootmark.engine", constants),
        *_module_section(
            "Prediction intervals",
            "bootmark.engine.forecast",
            "shock_indices, member_rows",
            "What :func:`bootmark.engine.forecast_interval` guarantees against the reference twin,",
            "whose :mod:`bootmark.reference.forecast` states every rule of both methods and their",
            "assumptions; the draws are exposed for inspection.",
        ),
        "Shared with the reference twin",
        "------------------------------",
        "",
        "The engine takes and raises the reference twin's own specs, records and errors: the",
        "same objects, described on the :mod:`bootmark.reference` page.",
        "",
    ]
    for name in shared:
        directive = "exception" if issubclass(getattr(engine, name), BaseException) else "class"
        role = "exc" if directive == "exception" else "class"
        lines += [
            f".. py:{directive}:: {name}",
            "   :module: bootmark.engine",
            "",
            f"   The reference twin's :py:{role}:`bootmark.reference.{name}`.",
            "",
        ]
    _write_if_changed(os.path.join(HERE, "api", "engine.rst"), "\n".join(lines))
    constants = [name for name in reference.__all__ if name in _DATA]
    lines = [
        "bootmark.reference",
        "==================",
        "",
        ".. automodule:: bootmark.reference",
        f"   :exclude-members: {', '.join(constants)}",
        "",
        *_data_entries("bootmark.reference", constants),
        *_module_section(
            "Prediction intervals: the specification",
            "bootmark.reference.forecast",
            "select_model, default_block_length, conformal_rank, shock_indices, member_rows",
            "Every rule of :func:`bootmark.reference.forecast_interval`'s two methods, their",
            "assumptions and their draws.",
        ),
    ]
    _write_if_changed(os.path.join(HERE, "api", "reference.rst"), "\n".join(lines))


def _copy_scoreboard(app, exception):
    """Put the scoreboard site (docs/site) beside the pages, as ``scoreboard/``."""
    source = os.path.join(HERE, "site")
    if exception is None and app.builder.format == "html" and os.path.isdir(source):
        target = os.path.join(app.outdir, "scoreboard")
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(source, target)


def setup(app):
    app.connect("config-inited", _twin_pages)
    app.connect("build-finished", _copy_scoreboard)
