"""The engine's own speed and memory bench: the head-to-head grid against arch and
tsbootstrap (``bootmark bench``), the floors that bound it, the memory sweep
(``bootmark memory``), comparisons of two receipts (``bootmark compare``) and of two
revisions side by side (``bootmark versus``), and the scoreboard tables rendered from its
receipts.

Nothing is imported here (a ``versus`` worker imports :mod:`bootmark.bench.versus`
before the engine of the tree it times): import the module you use.

May import: bootmark.core, bootmark.engine, bootmark.reference.
"""
