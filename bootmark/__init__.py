"""bootmark: a time-series bootstrap engine whose every claim is checked.

One import namespace, one subpackage (a "room") per use:

* :mod:`bootmark.reference`: the standard-library-only twin, the executable
  specification (importing it, like importing ``bootmark``, loads no numpy);
* :mod:`bootmark.engine`: the production engine (NumPy + Numba);
* :mod:`bootmark.core`: the harness core: receipts, records, provenance, timing, the
  workspace, errors, child processes;
* :mod:`bootmark.studies`: registered coverage studies and audits of anyone's interval;
* :mod:`bootmark.bench`: the engine's speed and memory grid against its peers;
* :mod:`bootmark.gate`: the speed gate for any project's benchmark suite;
* :mod:`bootmark.site`: the static scoreboard site;
* :mod:`bootmark.cli`: the command line, one module per verb group.

Each room's docstring says what it may import; imports point down that list's order
(tests/test_layers.py checks it, function-local imports included).

Nothing is imported here, so ``import bootmark`` stays cheap; import the part you use.

May import: nothing.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
