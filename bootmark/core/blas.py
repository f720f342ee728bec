"""The BLAS kernel under study results, and how a study process pins it.

numpy's wheels bundle OpenBLAS built for many CPUs and pick the kernel at load time. The
kernels round differently: on the same inputs ``np.dot`` and matrix products from the
Haswell and SkylakeX kernels differ in the last bit, and so do the peers' results that go
through them (``arch``'s covariance and ``optimal_block_length``, hence its standard
errors, normal intervals and block lengths). A study receipt made on an AMD EPYC (whose
OpenBLAS picks the Haswell kernel) did not replay bit for bit on an Intel Xeon (which
picks SkylakeX) until the kernel was pinned.

bootmark's own arithmetic calls no BLAS; the peers' does. So every process that computes
study outcomes runs OpenBLAS's ``PINNED_CORETYPE`` kernel, chosen through the
``OPENBLAS_CORETYPE`` environment variable, which OpenBLAS reads once, when numpy first
loads it:

* ``bootmark study run | verify`` re-executes itself with the variable set when it is
  not (:func:`pinned_environment`); worker processes inherit it;
* a dask worker or any other process must be started with it;
* :func:`kernel_problem` says, in words, why a process cannot compute study outcomes.

Haswell is the newest kernel every x86-64 CPU with AVX2 and FMA can run.
"""

import ctypes
import glob
import os

CORETYPE_VARIABLE = "OPENBLAS_CORETYPE"
PINNED_CORETYPE = "Haswell"
_CORENAME_SYMBOLS = (
    "scipy_openblas_get_corename64_",
    "scipy_openblas_get_corename",
    "openblas_get_corename64_",
    "openblas_get_corename",
)


def _numpy_openblas_libraries():
    # late on purpose: loading numpy fixes the OpenBLAS kernel this module pins first
    import numpy

    site = os.path.dirname(os.path.dirname(os.path.abspath(numpy.__file__)))
    return sorted(
        glob.glob(os.path.join(site, "numpy.libs", "*openblas*"))
        + glob.glob(os.path.join(site, "numpy", ".dylibs", "*openblas*"))
    )


def loaded_coretype():
    """Name of the OpenBLAS kernel numpy runs in this process (e.g. "Haswell"), or None
    when numpy does not bundle OpenBLAS or the name cannot be read."""
    for path in _numpy_openblas_libraries():
        try:
            library = ctypes.CDLL(path)  # already loaded by numpy: the same handle
        except OSError:
            continue
        for symbol in _CORENAME_SYMBOLS:
            function = getattr(library, symbol, None)
            if function is not None:
                function.restype = ctypes.c_char_p
                name = function()
                return name.decode().strip() if name else None
    return None


def pinned_environment(environment=None):
    """A copy of ``environment`` (default ``os.environ``) with the kernel pinned."""
    return {**(os.environ if environment is None else environment), CORETYPE_VARIABLE: PINNED_CORETYPE}


def kernel_problem():
    """None when this process runs the pinned kernel, else what is wrong and the fix."""
    loaded = loaded_coretype()
    if loaded is not None and loaded.lower() == PINNED_CORETYPE.lower():
        return None
    if loaded is None:
        return (
            "cannot read which OpenBLAS kernel numpy uses here; study outcomes replay bit for bit only on "
            f"numpy's bundled OpenBLAS with its {PINNED_CORETYPE} kernel (x86-64 with AVX2): install numpy "
            "from its PyPI wheel"
        )
    return (
        f"numpy's OpenBLAS runs its {loaded} kernel in this process, but study outcomes are defined on the "
        f"{PINNED_CORETYPE} kernel (kernels round differently, so a receipt would not replay): start the "
        f"process with {CORETYPE_VARIABLE}={PINNED_CORETYPE} (bootmark study run and verify set it "
        f"themselves; dask workers need it in their environment)"
    )
