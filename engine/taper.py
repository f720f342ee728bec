"""Taper weights of the tapered block bootstrap (Paparoditis & Politis, 2001), vectorised.

Same definition as ``reference/taper.py``: for a block of b observations, weight j is
``c * w((j + 0.5) / b)`` with ``c = sqrt(b) / ||w||_2``, so the squared weights sum to b
and a tapered block keeps the variance scale of an untapered one. The window w is 1 in
the middle of the block; ``"tukey"`` tapers a cosine over ``taper_fraction`` of the
block (half at each end), ``"bartlett"`` is a triangle, ``"hann"`` a raised cosine.

The arguments of cos are computed with the same operations in the same order as the
reference, and the sum of squares inside c is the same correctly rounded fsum, so the
twins differ only where numpy's cos differs from libm's: nowhere on this machine (the
weights are equal bit for bit), and the test allows 4 ulps for builds whose numpy uses
its own SIMD cos.
"""

import math

import numpy as np


def window_values(window, u, taper_fraction):
    """The taper window w(u) at each u in (0, 1) (a float64 array)."""
    if window == "bartlett":
        return 1.0 - np.abs(2.0 * u - 1.0)
    if window == "hann":
        return 0.5 - 0.5 * np.cos(2.0 * math.pi * u)
    edge = np.minimum(u, 1.0 - u)
    cosine = 0.5 - 0.5 * np.cos(2.0 * math.pi * edge / taper_fraction)
    return np.where(edge >= taper_fraction / 2.0, 1.0, cosine)


def taper_weights(method):
    """Scaled weights of a :class:`~reference.specs.TaperedBlock` with an integer
    ``block_length`` b: a float64 array of length b whose squares sum to b."""
    b = method.block_length
    raw = window_values(method.window, (np.arange(b) + 0.5) / b, method.taper_fraction)
    # An O(b) fsum is cheap next to the resampling that uses the weights, and it makes c
    # the reference's bit for bit (a dot product's rounding moved c by 1-2 ulps).
    scale = math.sqrt(b / math.fsum((raw * raw).tolist()))
    return scale * raw
