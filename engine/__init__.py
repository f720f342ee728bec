"""bootmark's production engine (NumPy + Numba).

The same public functions, arguments, errors and random streams as the reference twin
(``reference``), bit for bit on every index row; statistics agree within the bounds
stated in ``engine/reduce.py`` (model-based methods: ``engine/models.py``). Method
specs and errors are the reference's own.

Importing this package compiles nothing: each kernel compiles on its first call and is
cached on disk, in a user cache folder named after the engine's sources, never inside the
installed package (``bootmark/engine/cache.py``; ``NUMBA_CACHE_DIR`` overrides it). Kernels release the GIL and run on
``numba.get_num_threads()`` threads; results do not depend on the thread count.
"""

from .cache import install_locator

install_locator()  # before any kernel below is decorated: the locator is chosen then

from bootmark.reference.api import ConfidenceInterval
from bootmark.reference.blocklength import BlockLengthEstimate
from bootmark.reference.errors import (
    BlockLengthWarning,
    BlockWildDesignWarning,
    BootmarkError,
    DataTypeError,
    ErrorCode,
    InvalidDataError,
    InvalidParameterError,
    ParameterTypeError,
    SkippedReplicatesWarning,
)
from bootmark.reference.models import ModelFit
from bootmark.reference.specs import (
    AR,
    IID,
    BlockWild,
    CircularBlock,
    MovingBlock,
    NonOverlappingBlock,
    ResidualBootstrap,
    SieveAR,
    StationaryBlock,
    TaperedBlock,
    Wild,
)

from .api import DEFAULT_MEMORY_BUDGET, BootstrapResult, ReduceResult, bootstrap, bootstrap_reduce, conf_int
from .blocklength import optimal_block_length
from .indices import STREAM_VERSION

__all__ = [
    "bootstrap",
    "bootstrap_reduce",
    "conf_int",
    "optimal_block_length",
    "IID",
    "MovingBlock",
    "CircularBlock",
    "NonOverlappingBlock",
    "StationaryBlock",
    "TaperedBlock",
    "ResidualBootstrap",
    "SieveAR",
    "AR",
    "Wild",
    "BlockWild",
    "BootstrapResult",
    "ReduceResult",
    "ConfidenceInterval",
    "BlockLengthEstimate",
    "ModelFit",
    "BootmarkError",
    "InvalidDataError",
    "DataTypeError",
    "InvalidParameterError",
    "ParameterTypeError",
    "ErrorCode",
    "BlockLengthWarning",
    "BlockWildDesignWarning",
    "SkippedReplicatesWarning",
    "STREAM_VERSION",
    "DEFAULT_MEMORY_BUDGET",
]
