"""The Examples of the studies' public docstrings run, and print what they say they print.

Every module of ``bootmark.studies`` whose public API was documented (issue 17, item 7)
is run through ``doctest.testmod`` with ELLIPSIS and NORMALIZE_WHITESPACE: none of its
examples may fail, and a module listed in ``WITH_EXAMPLES`` must have some. The
examples are cheap and deterministic; those that write files do so only inside a
temporary directory they create.
"""

import doctest
import importlib

import pytest
from test_doctests import FLAGS

# The documented modules; all but the package itself carry examples.
DOCUMENTED_MODULES = (
    "bootmark.studies",
    "bootmark.studies.dgp",
    "bootmark.studies.evaluate",
    "bootmark.studies.measures",
    "bootmark.studies.multipliers",
    "bootmark.studies.peers",
    "bootmark.studies.plugins",
    "bootmark.studies.protocol",
    "bootmark.studies.report",
    "bootmark.studies.results",
    "bootmark.studies.runner",
    "bootmark.studies.scaffold",
    "bootmark.studies.statistics",
    "bootmark.studies.summary",
    "bootmark.studies.truth",
    "bootmark.studies.verify",
)
WITHOUT_EXAMPLES = ("bootmark.studies",)


@pytest.mark.parametrize("name", DOCUMENTED_MODULES)
def test_the_examples_of_each_studies_module_run_and_print_what_they_show(name):
    module = importlib.import_module(name)
    results = doctest.testmod(module, optionflags=FLAGS, verbose=False, report=False)
    assert results.failed == 0, f"{results.failed} of {results.attempted} examples of {name} failed (run pytest -s)"
    if name not in WITHOUT_EXAMPLES:
        assert results.attempted > 0, f"{name} has no docstring examples"


@pytest.mark.parametrize("name", [name for name in DOCUMENTED_MODULES if name != "bootmark.studies"])
def test_each_studies_module_declares_its_public_names(name):
    module = importlib.import_module(name)
    assert module.__all__, f"{name} has an empty __all__"
    missing = [public for public in module.__all__ if not hasattr(module, public)]
    assert not missing, f"{name}.__all__ names what it lacks: {missing}"
