"""bootmark's reference twin: the executable specification, standard library only.

Slow and plain on purpose. It defines what every method, random stream, statistic and
interval means; the Numba engine must reproduce its index rows bit for bit and its
statistics within stated bounds.
"""

from .api import BootstrapResult, ConfidenceInterval, ReduceResult, bootstrap, bootstrap_reduce, conf_int
from .blocklength import BlockLengthEstimate, optimal_block_length
from .errors import (
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
from .indices import STREAM_VERSION
from .models import ModelFit
from .specs import (
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
]
