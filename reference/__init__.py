"""bootmark's reference twin: the executable specification, standard library only.

Slow and plain on purpose. It defines what every method, random stream, statistic and
interval means; the Numba engine must reproduce its index rows bit for bit and its
statistics within stated bounds.

The public API is ``__all__``: the entry points :func:`bootstrap`,
:func:`bootstrap_reduce`, :func:`conf_int`, :func:`forecast_interval` (prediction
intervals) and :func:`optimal_block_length`, the
method specs, the result classes, the typed errors and warnings and
``STREAM_VERSION``; the engine (:mod:`bootmark.engine`) takes and raises the same. The
package is typed (``py.typed``) and its annotations need nothing outside the standard
library.

May import: nothing (the standard library only).

Examples
--------
>>> from bootmark import reference
>>> x = [0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5,
...      -0.1, 0.4, 0.5, -0.2, 0.7, 1.4, 1.5, 1.7, 0.6, 0.8, 1.3, 1.1]
>>> lower, upper, point = reference.conf_int(x, "mean", reference.MovingBlock("auto"), alpha=0.10, n_bootstraps=200,
...                                          seed=1)
>>> round(lower, 6), round(upper, 6), round(point, 6)
(0.216458, 0.766875, 0.533333)
>>> len(reference.bootstrap(x, reference.MovingBlock(4), n_bootstraps=200, seed=1).values())
200
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
from .forecast import ForecastInterval, forecast_interval
from .indices import STREAM_VERSION
from .models import ModelFit
from .panel import Panel, PanelResults
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
    "forecast_interval",
    "ForecastInterval",
    "Panel",
    "PanelResults",
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
