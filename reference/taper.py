"""Taper weights of the tapered block bootstrap (Paparoditis & Politis, 2001).

Weights are data, not random draws: they use libm's cos, so the twins agree on them
within a few ulps rather than bit for bit.
"""

import math


def window_value(window, u, taper_fraction):
    """The taper window w(u) on u in (0, 1); w is 1 in the middle of the block."""
    if window == "bartlett":
        return 1.0 - abs(2.0 * u - 1.0)
    if window == "hann":
        return 0.5 - 0.5 * math.cos(2.0 * math.pi * u)
    edge = min(u, 1.0 - u)
    if edge >= taper_fraction / 2.0:
        return 1.0
    return 0.5 - 0.5 * math.cos(2.0 * math.pi * edge / taper_fraction)


def taper_weights(method):
    """Scaled weights ``c * w((j + 0.5) / b)`` for j in [0, b), ``c = sqrt(b) / ||w||_2``.

    The scale makes the sum of squared weights equal b, so a tapered block has the
    variance scale of an untapered one.
    """
    b = method.block_length
    raw = [window_value(method.window, (j + 0.5) / b, method.taper_fraction) for j in range(b)]
    scale = math.sqrt(b / math.fsum(w * w for w in raw))
    return [scale * w for w in raw]
