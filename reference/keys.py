"""Seed -> root key -> replicate key (DESIGN.md section 3, steps 1-2).

* ``root_key(seed)``: an integer seed in [0, 2**128) becomes a 128-bit root key
  (two 64-bit halves). With ``mix64`` the SplitMix64 finaliser (a bijection of 64-bit
  words), ``lo = mix64(seed_lo ^ ROOT_SALT)`` and
  ``hi = mix64(seed_hi ^ mix64(lo ^ HIGH_SALT))``, where seed_lo and seed_hi are the
  seed's low and high 64 bits. Both steps are invertible, so distinct seeds give
  distinct root keys. (``hi`` must not be ``mix64(seed_hi ^ lo)``: replicate 0's key
  would then cancel to 0 for every seed below 2**64.)
* ``replicate_key(root, b)``: replicate b's 64-bit Philox key is
  ``mix64((lo + b * REPLICATE_STRIDE) mod 2**64) ^ hi``. An odd stride, a bijective
  mix and an xor make it injective in b for b < 2**64.

Only integer arithmetic is used, so every platform and both twins agree bit for bit.
"""

MASK64 = (1 << 64) - 1
ROOT_SALT = 0x243F6A8885A308D3  # hexadecimal digits 1-16 of pi: nothing-up-my-sleeve salts
HIGH_SALT = 0x13198A2E03707344  # digits 17-32
REPLICATE_STRIDE = 0x9E3779B97F4A7C15  # odd: 2**64 / golden ratio, the SplitMix64 increment


def mix64(z):
    """SplitMix64's finaliser: a bijective avalanche of one 64-bit word."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def root_key(seed):
    """Return the 128-bit root key ``(lo, hi)`` of a validated seed in [0, 2**128)."""
    lo = mix64((seed & MASK64) ^ ROOT_SALT)
    hi = mix64((seed >> 64) ^ mix64(lo ^ HIGH_SALT))
    return (lo, hi)


def replicate_key(root, replicate):
    """Return replicate ``replicate``'s Philox key as two 32-bit words (low word first)."""
    lo, hi = root
    key = mix64((lo + replicate * REPLICATE_STRIDE) & MASK64) ^ hi
    return (key & 0xFFFFFFFF, key >> 32)
