"""bootmark's reference twin: the executable specification, standard library only.

Slow and plain on purpose. It defines what every method, random stream, statistic and
interval means; the Numba engine must reproduce its index rows bit for bit and its
statistics within stated bounds.
"""

from .api import BootstrapResult, ConfidenceInterval, ReduceResult, bootstrap, bootstrap_reduce, conf_int
from .blocklength import BlockLengthEstimate, optimal_block_length
from .errors import (BlockLengthWarning, BootmarkError, DataTypeError, ErrorCode, InvalidDataError,
                     InvalidParameterError, ParameterTypeError)
from .indices import STREAM_VERSION
from .specs import IID, CircularBlock, MovingBlock, NonOverlappingBlock, StationaryBlock, TaperedBlock

__all__ = [
    "bootstrap", "bootstrap_reduce", "conf_int", "optimal_block_length",
    "IID", "MovingBlock", "CircularBlock", "NonOverlappingBlock", "StationaryBlock", "TaperedBlock",
    "BootstrapResult", "ReduceResult", "ConfidenceInterval", "BlockLengthEstimate",
    "BootmarkError", "InvalidDataError", "DataTypeError", "InvalidParameterError", "ParameterTypeError",
    "ErrorCode", "BlockLengthWarning", "STREAM_VERSION",
]
