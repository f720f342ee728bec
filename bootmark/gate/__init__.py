"""The speed gate for any project's benchmark suite (``bootmark gate``): its
configuration, the suite and the worker process that runs it, the two sides under
comparison, the interleaved measurement and its verdicts, the report and receipt, and the
study of the gate against ``asv continuous``.

Nothing is imported here: import the module you use. :mod:`bootmark.gate.worker` and its
sibling adapters (``asv_worker``, ``pytest_worker``, ``pyperf_worker``: one per framework) run
by file path in the gated project's environment and imports the standard library only.

May import: bootmark.core.
"""
