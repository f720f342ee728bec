"""bootmark's production engine (NumPy + Numba).

The same public functions, arguments, errors and random streams as the reference twin
(``reference``), bit for bit on every index row; statistics agree within the bounds
stated in ``engine/reduce.py`` (model-based methods: ``engine/models.py``). Method
specs and errors are the reference's own.

Importing this package compiles nothing: each kernel compiles on its first call and is
cached on disk, in a user cache folder named after the engine's sources, never inside the
installed package (``bootmark/engine/cache.py``; ``NUMBA_CACHE_DIR`` overrides it). Kernels release the GIL and run on
``numba.get_num_threads()`` threads; results do not depend on the thread count.

The public API is ``__all__``: the entry points :func:`bootstrap`,
:func:`bootstrap_reduce`, :func:`conf_int`, :func:`forecast_interval` (prediction
intervals) and :func:`optimal_block_length`, the
method specs, the result classes, the typed errors and warnings, ``STREAM_VERSION`` and
``DEFAULT_MEMORY_BUDGET``. The package is typed (``py.typed``).

May import: bootmark.reference (its specs and errors, never its arithmetic).

Examples
--------
>>> import numpy as np
>>> from bootmark import engine
>>> x = np.array([0.7, 0.9, 0.4, -0.2, -0.1, -0.3, 0.4, -0.1, -0.1, 0.1, 0.9, 0.5,
...               -0.1, 0.4, 0.5, -0.2, 0.7, 1.4, 1.5, 1.7, 0.6, 0.8, 1.3, 1.1])
>>> lower, upper, point = engine.conf_int(x, "mean", engine.MovingBlock("auto"), alpha=0.10, n_bootstraps=200, seed=1)
>>> round(lower, 6), round(upper, 6), round(point, 6)
(0.216458, 0.766875, 0.533333)
>>> engine.bootstrap(x, engine.MovingBlock(4), n_bootstraps=200, seed=1).values().shape
(200, 24)
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
from .forecast import ForecastInterval, forecast_interval
from .indices import STREAM_VERSION
from .panel import Panel, PanelBootstraps, PanelInterval, PanelReduceResult

__all__ = [
    "bootstrap",
    "bootstrap_reduce",
    "conf_int",
    "forecast_interval",
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
    "ForecastInterval",
    "Panel",
    "PanelReduceResult",
    "PanelInterval",
    "PanelBootstraps",
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
