"""Seed -> root key -> replicate key, and the inner roots of a double bootstrap, as
``reference/keys.py`` defines them.

``root_key`` runs once per call in plain Python integers; ``replicate_key`` runs once per
replicate inside the kernels, in wrapping uint64 arithmetic, and so does
``inner_root_key`` once per outer replicate of a calibrated interval. ``inner_root`` is
its plain-Python face: the root that any kernel taking a ``root`` accepts in place of
``stream_root(seed, series)``. The inner root is a new derived key and changes
no existing stream (STREAM_VERSION is unchanged).

The series word (a panel's series id, the counter's fourth word) travels in the high
half of k1: ``stream_key`` ors it in, ``draws.refill_from`` splits it off. Series 0 is
every stream that existed before panels, bit for bit.
"""

import numpy as np
from numba import njit

_MASK64 = (1 << 64) - 1
_ROOT_SALT = 0x243F6A8885A308D3
_HIGH_SALT = 0x13198A2E03707344
REPLICATE_STRIDE = np.uint64(0x9E3779B97F4A7C15)
_MIX_A = np.uint64(0xBF58476D1CE4E5B9)
_MIX_B = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)
_MASK32 = np.uint64(0xFFFFFFFF)
_INNER_SALT = np.uint64(0xA4093822299F31D0)  # reference.keys.INNER_SALT: pi's digits 33-48
_INNER_HIGH_SALT = np.uint64(0x082EFA98EC4E6C89)  # reference.keys.INNER_HIGH_SALT: digits 49-64


def _mix64_int(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def root_key(seed):
    """(lo, hi) root key of a validated seed in [0, 2**128), as two np.uint64."""
    lo = _mix64_int((seed & _MASK64) ^ _ROOT_SALT)
    hi = _mix64_int((seed >> 64) ^ _mix64_int(lo ^ _HIGH_SALT))
    return np.uint64(lo), np.uint64(hi)


@njit(cache=True, inline="always")
def mix64(z):
    """SplitMix64's finaliser on a np.uint64 (multiplications wrap modulo 2**64)."""
    z = (z ^ (z >> _S30)) * _MIX_A
    z = (z ^ (z >> _S27)) * _MIX_B
    return z ^ (z >> _S31)


@njit(cache=True, inline="always")
def replicate_key(root_lo, root_hi, replicate):
    """Philox key words (k0, k1) of replicate ``replicate`` (a uint64)."""
    key = mix64(root_lo + replicate * REPLICATE_STRIDE) ^ root_hi
    return key & _MASK32, key >> _S32


@njit(cache=True, inline="always")
def inner_root_key(root_lo, root_hi, replicate):
    """(lo, hi) root of the inner replicates of outer replicate ``replicate`` (a uint64):
    ``lo = mix64(key ^ INNER_SALT)``, ``hi = mix64(lo ^ INNER_HIGH_SALT)`` with ``key``
    the outer replicate's 64-bit Philox key (its two words rejoined)."""
    k0, k1 = replicate_key(root_lo, root_hi, replicate)
    lo = mix64((k0 | (k1 << _S32)) ^ _INNER_SALT)
    return lo, mix64(lo ^ _INNER_HIGH_SALT)


@njit(cache=True, inline="always")
def stream_key(root_lo, root_hi, series, replicate):
    """(k0, k1) of replicate ``replicate`` (a uint64) of series word ``series`` (a uint64
    already shifted left by 32): the Philox key words, with the counter's series word
    carried in k1's high half (``draws.refill_from`` splits it off), so every kernel
    below the replicate loop passes one key pair and never needs a series argument."""
    k0, k1 = replicate_key(root_lo, root_hi, replicate)
    return k0, k1 | series


def stream_root(seed, series=0):
    """(root lo, root hi, series word) for a validated seed and series id in [0, 2**32):
    what every kernel taking a ``root`` reads (the series word is ``series << 32``)."""
    lo, hi = root_key(seed)
    return lo, hi, np.uint64(series) << _S32


def inner_root(root, replicate):
    """The inner root of outer replicate ``replicate`` (an int >= 0) under ``root`` (the
    pair ``root_key`` returns), as two np.uint64: pass it where a kernel takes ``root``."""
    lo, hi = inner_root_key(np.uint64(root[0]), np.uint64(root[1]), np.uint64(replicate))
    return (np.uint64(lo), np.uint64(hi), *root[2:])
