"""The static scoreboard site (``bootmark site``): pages built from a workspace's
receipts, their SVG charts, the receipts' history across git, and the stylesheet and
script the pages ship with (``assets/``).

Nothing is imported here: import the module you use.

May import: bootmark.bench, bootmark.core.
"""
