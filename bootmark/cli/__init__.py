"""The ``bootmark`` command line: :mod:`bootmark.cli.main` builds the parser and sorts
errors into exit codes; each other module is one verb or verb group (as asv keeps
``asv/commands/``): ``init``, ``doctor``, ``example``, ``bench`` (bench, memory,
scoreboard), ``compare`` (compare, versus), ``gate``, ``site`` and ``study``.

A verb's module imports only light modules at its top, so ``bootmark --version``,
``--help`` and ``init`` load neither numpy, numba nor the engine; each handler imports
what it needs when it runs.

May import: bootmark.bench, bootmark.core, bootmark.engine, bootmark.gate, bootmark.reference, bootmark.site,
bootmark.studies.
"""
