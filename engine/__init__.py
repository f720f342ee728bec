"""bootmark's production engine (NumPy + Numba): work in progress (issue 3).

What stands: the stream layer (philox, keys, draws) and the index-row builder
(``index_matrix``), bit for bit equal to the reference twin on every method and
independent of thread count and chunking. The public functions (``bootstrap``,
``bootstrap_reduce``, ``conf_int``, ``optimal_block_length``) and the fused reduce
kernels are not here yet; use ``reference`` for them until they are.

Importing this package compiles nothing: kernels compile on first call and are cached
on disk (``cache=True``, in ``__pycache__`` beside each module unless
``NUMBA_CACHE_DIR`` points elsewhere).
"""

from .indices import STREAM_VERSION, index_matrix

__all__ = ["STREAM_VERSION", "index_matrix"]
