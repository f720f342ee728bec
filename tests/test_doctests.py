"""The Examples of the twins' public docstrings run, and print what they say they print.

Every module whose docstrings document the public API of ``bootmark.engine`` and
``bootmark.reference`` (issue 17, item 7) is run through ``doctest`` by one runner,
``run_examples``, with ELLIPSIS and NORMALIZE_WHITESPACE; a module must have examples and
none may fail. A wrong example built here, run by the same function, must be reported as
a failure (negative control), and its corrected twin must pass.

The docstrings' structure is checked too: the public functions and classes carry the
numpydoc sections they promise, and both twins ship a ``py.typed`` marker.
"""

import doctest
import importlib
import importlib.resources
import inspect
import re

import pytest

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

# The modules whose docstrings hold examples of the public API.
DOCUMENTED_MODULES = (
    "bootmark.engine",
    "bootmark.engine.api",
    "bootmark.engine.blocklength",
    "bootmark.reference",
    "bootmark.reference.api",
    "bootmark.reference.blocklength",
    "bootmark.reference.errors",
    "bootmark.reference.models",
    "bootmark.reference.specs",
)
TWINS = ("bootmark.engine", "bootmark.reference")
FUNCTIONS = ("bootstrap", "bootstrap_reduce", "conf_int", "optimal_block_length")
SPECS = (
    "IID",
    "MovingBlock",
    "CircularBlock",
    "NonOverlappingBlock",
    "StationaryBlock",
    "TaperedBlock",
    "ResidualBootstrap",
    "SieveAR",
    "AR",
    "Wild",
    "BlockWild",
)
RESULTS = ("BootstrapResult", "ReduceResult", "ConfidenceInterval", "BlockLengthEstimate", "ModelFit")
RESULT_METHODS = {
    "BootstrapResult": ("indices", "values"),
    "ReduceResult": ("component", "quantile"),
}
ERRORS = (
    "BootmarkError",
    "InvalidDataError",
    "DataTypeError",
    "InvalidParameterError",
    "ParameterTypeError",
    "ErrorCode",
    "BlockLengthWarning",
    "BlockWildDesignWarning",
    "SkippedReplicatesWarning",
)


def run_examples(tests):
    """Run ``doctest.DocTest`` objects with the suite's flags: (TestResults, report)."""
    runner = doctest.DocTestRunner(optionflags=FLAGS, verbose=False)
    report = []
    for test in tests:
        runner.run(test, out=report.append)
    return doctest.TestResults(runner.failures, runner.tries), "".join(report)


def module_examples(name):
    """The doctests of one module (its own docstrings, not those of names it imports)."""
    module = importlib.import_module(name)
    return doctest.DocTestFinder().find(module, name)


@pytest.mark.parametrize("name", DOCUMENTED_MODULES)
def test_the_examples_of_each_documented_module_run_and_print_what_they_show(name):
    results, report = run_examples(module_examples(name))
    assert results.attempted > 0, f"{name} has no docstring examples"
    assert results.failed == 0, f"{results.failed} of {results.attempted} examples of {name} failed:\n{report}"


WRONG_EXAMPLE = """
>>> from bootmark import reference
>>> result = reference.bootstrap([0.5, 1.5, -0.5, 2.0], reference.IID(), n_bootstraps=3, seed=1)
>>> result.n_bootstraps
{shown}
"""


def _example(shown):
    return doctest.DocTestParser().get_doctest(
        WRONG_EXAMPLE.format(shown=shown), {}, "negative_control", "<test_doctests>", 0
    )


def test_negative_control_a_wrong_example_is_reported_as_a_failure():
    results, report = run_examples([_example("4")])
    assert results == (1, 3)
    assert "Expected:\n    4\nGot:\n    3" in report


def test_negative_control_a_wrong_exception_is_reported_as_a_failure():
    wrong = doctest.DocTestParser().get_doctest(
        ">>> from bootmark import reference\n"
        ">>> reference.MovingBlock(0)\n"
        "Traceback (most recent call last):\n"
        "    ...\n"
        "bootmark.reference.errors.ParameterTypeError: block_length: ...\n",
        {},
        "negative_control_exception",
        "<test_doctests>",
        0,
    )
    results, report = run_examples([wrong])
    assert results == (1, 2)
    assert "InvalidParameterError" in report


def test_the_corrected_example_passes_the_same_runner():
    assert run_examples([_example("3")]) == ((0, 3), "")


def _sections(docstring):
    """The numpydoc section titles of a docstring (a title underlined by dashes)."""
    return set(re.findall(r"^\s*([A-Z][A-Za-z ]+)\n\s*-{3,}\s*$", inspect.cleandoc(docstring or ""), re.MULTILINE))


@pytest.mark.parametrize("twin", TWINS)
def test_the_public_functions_have_full_numpydoc_sections(twin):
    module = importlib.import_module(twin)
    for name in FUNCTIONS:
        sections = _sections(getattr(module, name).__doc__)
        missing = {"Parameters", "Returns", "Raises", "See Also", "Examples"} - sections
        assert not missing, f"{twin}.{name} lacks {sorted(missing)}"


@pytest.mark.parametrize("twin", TWINS)
def test_the_specs_results_and_their_methods_have_examples(twin):
    module = importlib.import_module(twin)
    for name in SPECS + RESULTS:
        sections = _sections(getattr(module, name).__doc__)
        assert "Examples" in sections, f"{twin}.{name} has no Examples"
        if name in SPECS and name != "IID":  # IID takes no arguments
            assert {"Parameters", "Raises"} <= sections, f"{twin}.{name}: {sorted(sections)}"
        if name in RESULTS:
            assert "Attributes" in sections, f"{twin}.{name}: {sorted(sections)}"
    for name, methods in RESULT_METHODS.items():
        for method in methods:
            sections = _sections(getattr(getattr(module, name), method).__doc__)
            assert {"Returns", "Examples"} <= sections, f"{twin}.{name}.{method}: {sorted(sections)}"


@pytest.mark.parametrize("twin", TWINS)
def test_the_errors_and_warnings_say_what_raises_them(twin):
    module = importlib.import_module(twin)
    for name in ERRORS:
        docstring = inspect.cleandoc(getattr(module, name).__doc__ or "")
        assert docstring.splitlines(), f"{twin}.{name} has no docstring"
        assert len(docstring.splitlines()) > 1, f"{twin}.{name} has only a summary"


@pytest.mark.parametrize("package", ("bootmark", "bootmark.engine", "bootmark.reference", "bootmark.studies"))
def test_the_packages_carry_a_py_typed_marker(package):
    assert importlib.resources.files(package).joinpath("py.typed").is_file()
