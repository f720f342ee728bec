"""The Examples of the harness modules' public docstrings run, and print what they say.

The harness half of issue 17, item 7 (``tests/test_doctests.py`` is the twins' half):
every harness module whose public API got numpydoc docstrings is run through
``doctest`` by the same runner, ``run_examples``, with ELLIPSIS and NORMALIZE_WHITESPACE.
None may fail, and the modules that carry examples must have some. The examples read
committed receipts through ``bootmark.core.workspace.find().root``, so they run from the
checkout's root with no ``BOOTMARK_WORKSPACE`` set.

Each module's ``__all__`` is checked too: every name it lists exists, and every public
function and class it lists has a docstring with the numpydoc sections it promises.
"""

import importlib
import inspect
import os

import pytest
from test_doctests import _sections, module_examples, run_examples

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Harness modules with docstring examples of their public API.
WITH_EXAMPLES = (
    "bootmark.bench.grid",
    "bootmark.bench.compare",
    "bootmark.gate.report",
    "bootmark.gate.sides",
    "bootmark.bench.versus",
    "bootmark.bench.memory",
    "bootmark.core.cpus",
    "bootmark.core.provenance",
    "bootmark.core.receipts",
    "bootmark.core.records",
    "bootmark.bench.scoreboard",
    "bootmark.core.simulate",
    "bootmark.gate.suite",
    "bootmark.gate.config",
    "bootmark.gate.verdicts",
    "bootmark.gate.record",
    "bootmark.gate.headtohead",
    "bootmark.core.extras",
    "bootmark.core.sections",
    "bootmark.core.timing",
    "bootmark.core.errors",
    "bootmark.site.history",
    "bootmark.site.model",
    "bootmark.site.gates",
    "bootmark.core.workspace",
)
# Harness modules documented without examples (everything they offer times code).
# gate.run and gate.worker start and are worker processes (tests/test_gate.py runs them); gate.asv_study renders one
# committed receipt (tests/test_gatecheck.py checks RESULTS.md against it); site.build and
# site.charts build a whole site or draw a chart (tests/test_site.py builds them).
WITHOUT_EXAMPLES = (
    "bootmark.gate.run",
    "bootmark.gate.worker",
    "bootmark.gate.asv_study",
    "bootmark.site.build",
    "bootmark.site.charts",
    "bootmark.site.audits",
    "bootmark.site.engine",
    "bootmark.site.records",
    "bootmark.site.headtohead",
)
DOCUMENTED = WITH_EXAMPLES + WITHOUT_EXAMPLES


@pytest.fixture
def at_the_checkout_root(monkeypatch):
    """The examples find the checkout's workspace: run them from its root."""
    monkeypatch.delenv("BOOTMARK_WORKSPACE", raising=False)
    monkeypatch.chdir(ROOT)


@pytest.mark.usefixtures("at_the_checkout_root")
@pytest.mark.parametrize("name", DOCUMENTED)
def test_the_examples_of_each_harness_module_run_and_print_what_they_show(name):
    results, report = run_examples(module_examples(name))
    if name in WITH_EXAMPLES:
        assert results.attempted > 0, f"{name} has no docstring examples"
    assert results.failed == 0, f"{results.failed} of {results.attempted} examples of {name} failed:\n{report}"


@pytest.mark.parametrize("name", DOCUMENTED)
def test_every_name_in_all_exists_and_is_documented(name):
    module = importlib.import_module(name)
    assert module.__all__, f"{name} has an empty __all__"
    for public in module.__all__:
        assert hasattr(module, public), f"{name}.__all__ lists {public}, which it lacks"
        value = getattr(module, public)
        if not (inspect.isfunction(value) or inspect.isclass(value)):
            continue  # constants are documented by the comments beside them
        docstring = inspect.cleandoc(value.__doc__ or "")
        assert docstring, f"{name}.{public} has no docstring"
        sections = _sections(docstring)
        if inspect.isfunction(value) and inspect.signature(value).parameters:
            assert "Parameters" in sections, f"{name}.{public} lacks Parameters: {sorted(sections)}"
        if inspect.isfunction(value) and inspect.signature(value).return_annotation not in ("None", None):
            assert "Returns" in sections, f"{name}.{public} lacks Returns: {sorted(sections)}"
