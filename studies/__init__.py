"""Coverage studies: data-generating processes with known truth, protocols and runner.

The package exports no names of its own; its modules are its public API:

* :mod:`bootmark.studies.dgp`: processes with a known truth;
* :mod:`bootmark.studies.truth`: Monte Carlo truths, cached as receipts;
* :mod:`bootmark.studies.protocol`: registered protocols, parsed and checked;
* :mod:`bootmark.studies.evaluate`: one series through one resampler;
* :mod:`bootmark.studies.peers`: the ``arch`` and ``tsbootstrap`` adapters;
* :mod:`bootmark.studies.runner`: running a protocol into a receipt body;
* :mod:`bootmark.studies.summary`: coverage summaries and criterion verdicts;
* :mod:`bootmark.studies.multipliers`: the block-wild multiplier process study;
* :mod:`bootmark.studies.verify`: checking a receipt by replay;
* :mod:`bootmark.studies.report`: the README's coverage section and charts.
"""
