"""bootmark: a time-series bootstrap engine whose every claim is checked.

One import namespace:

* :mod:`bootmark.engine`: the production engine (NumPy + Numba);
* :mod:`bootmark.reference`: the standard-library-only twin, the executable
  specification (importing it, like importing ``bootmark``, loads no numpy);
* :mod:`bootmark.studies`: registered coverage studies;
* the harness modules (``bootmark.bench``, ``bootmark.receipts``, ``bootmark.workspace``,
  ``bootmark.cli``, ...): benchmarks, receipts, the workspace and the command line.

Nothing is imported here, so ``import bootmark`` stays cheap; import the part you use.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
