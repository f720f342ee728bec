"""The harness core: what every use of bootmark shares.

Receipts (written atomically, validated, never overwritten) and the typed records that
read them; provenance; settled, interleaved timing and the interval of a median ratio; the
workspace; the errors and exit codes every verb shares; the optional extras; child
processes spoken to one line at a time, and the one CPU both sides of a comparison share;
the BLAS kernel pin; the simulated series that the bench times and the studies sample;
marked sections of rendered Markdown.

Nothing is imported here: import the module you use.

May import: bootmark.engine, bootmark.reference.
"""
