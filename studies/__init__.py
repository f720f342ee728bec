"""Coverage and forecast studies: data-generating processes with known truth, protocols and runner.

The package's one name is :func:`load`, which reads a study receipt as data
(``bootmark.studies.load(path).to_frame()``, :mod:`bootmark.studies.results`); its
modules are the rest of its public API:

* :mod:`bootmark.studies.dgp`: processes with a known truth;
* :mod:`bootmark.studies.statistics`: the built-in statistics;
* :mod:`bootmark.studies.truth`: Monte Carlo truths, cached as receipts;
* :mod:`bootmark.studies.protocol`: registered protocols, parsed and checked;
* :mod:`bootmark.studies.plugins`: a user's contenders, processes and statistics by import path;
* :mod:`bootmark.studies.evaluate`: one series through one resampler;
* :mod:`bootmark.studies.peers`: the ``arch`` and ``tsbootstrap`` adapters;
* :mod:`bootmark.studies.forecast`: forecast studies, prediction intervals judged against the future;
* :mod:`bootmark.studies.oracle`: the forecast target and the oracle interval the protocols name;
* :mod:`bootmark.studies.forecasters`: statsmodels' and tsbootstrap's forecasters as entry points;
* :mod:`bootmark.studies.runner`: running a protocol into a receipt body;
* :mod:`bootmark.studies.measures`: the ADEMP performance measures with Monte Carlo SEs;
* :mod:`bootmark.studies.summary`: coverage summaries and criterion verdicts;
* :mod:`bootmark.studies.results`: a receipt as a tidy table;
* :mod:`bootmark.studies.scaffold`: ``bootmark study new``;
* :mod:`bootmark.studies.multipliers`: the block-wild multiplier process study;
* :mod:`bootmark.studies.verify`: checking a receipt by replay;
* :mod:`bootmark.studies.report`: the README's coverage section and charts.

May import: bootmark.core, bootmark.engine, bootmark.reference.
"""

from .results import load

__all__ = ["load"]
