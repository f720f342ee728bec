"""bootmark's production engine (NumPy + Numba).

The same public functions, arguments, errors and random streams as the reference twin
(``reference``), bit for bit on every index row; statistics agree within the bounds
stated in ``engine/reduce.py`` (model-based methods: ``engine/models.py``). Method
specs and errors are the reference's own.

Importing this package compiles nothing: each kernel compiles on its first call and is
cached on disk (``cache=True``: in ``__pycache__`` beside each module, or under
``NUMBA_CACHE_DIR`` when that is set). Kernels release the GIL and run on
``numba.get_num_threads()`` threads; results do not depend on the thread count.
"""

from reference.errors import (BlockLengthWarning, BootmarkError, DataTypeError, ErrorCode, InvalidDataError,
                              InvalidParameterError, ParameterTypeError, SkippedReplicatesWarning)
from reference.specs import (AR, IID, BlockWild, CircularBlock, MovingBlock, NonOverlappingBlock, ResidualBootstrap,
                             SieveAR, StationaryBlock, TaperedBlock, Wild)

from reference.api import ConfidenceInterval
from reference.blocklength import BlockLengthEstimate
from reference.models import ModelFit

from .api import DEFAULT_MEMORY_BUDGET, BootstrapResult, ReduceResult, bootstrap, bootstrap_reduce, conf_int
from .blocklength import optimal_block_length
from .indices import STREAM_VERSION

__all__ = [
    "bootstrap", "bootstrap_reduce", "conf_int", "optimal_block_length",
    "IID", "MovingBlock", "CircularBlock", "NonOverlappingBlock", "StationaryBlock", "TaperedBlock",
    "ResidualBootstrap", "SieveAR", "AR", "Wild", "BlockWild",
    "BootstrapResult", "ReduceResult", "ConfidenceInterval", "BlockLengthEstimate", "ModelFit",
    "BootmarkError", "InvalidDataError", "DataTypeError", "InvalidParameterError", "ParameterTypeError",
    "ErrorCode", "BlockLengthWarning", "SkippedReplicatesWarning", "STREAM_VERSION", "DEFAULT_MEMORY_BUDGET",
]
