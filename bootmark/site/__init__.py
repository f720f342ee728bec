"""The static site (``bootmark site``): pages built from whatever receipts a workspace
holds (a suite's records, gate runs, audits, bootmark's engine grid and memory), their SVG charts, the
receipts' history across git, and the stylesheet and script the pages ship with
(``assets/``). ``model`` renders pages and copies linked receipts; ``records``,
``headtohead``, ``gates``, ``audits`` and ``engine`` draw the pages of each receipt kind; ``build``
decides which pages a workspace gets.

Nothing is imported here: import the module you use.

May import: bootmark.bench, bootmark.gate (its records and wording), bootmark.core.
"""
