"""Seed -> root key -> replicate key (docs/streams.md).

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
* ``stream_key(root, b, series)``: ``(k0, k1, series)``, replicate b's key words and
  the counter's series word. Series s of a panel drawn under one seed uses series = s;
  series 0 is every single-series stream, so nothing drawn before panels changed.
* ``inner_root(root, b)``: the 128-bit root of the inner (double-bootstrap) replicates
  drawn from outer replicate b's resample (``kind="calibrated"`` intervals). With
  ``key`` replicate b's 64-bit key above, ``lo = mix64(key ^ INNER_SALT)`` and
  ``hi = mix64(lo ^ INNER_HIGH_SALT)``; inner replicate c of outer replicate b then
  uses ``replicate_key(inner_root(root, b), c)``, so the existing row builders serve
  the inner draws unchanged. It depends only on (seed, b): b -> key is injective and
  both steps are bijections, so the B outer replicates of a seed get B distinct inner
  roots; across seeds two roots coincide only when two 64-bit keys do (probability
  about 2**-64 per pair: injective in practice, not by construction). The salts are
  fresh (pi's digits 33-64, used by no other mix), so inner keys have no structural
  relation to outer keys: an inner key equal to an outer one is a 2**-64 accident, as
  between seeds. ``hi`` is salted apart from ``lo`` so that inner replicate 0's key,
  ``mix64(lo) ^ mix64(lo ^ INNER_HIGH_SALT)``, is never 0 (mix64 is a bijection).

Only integer arithmetic is used, so every platform and both twins agree bit for bit.
The inner root is a new derived key: it changes no existing stream, so STREAM_VERSION
and the golden files are untouched.
"""

MASK64 = (1 << 64) - 1
ROOT_SALT = 0x243F6A8885A308D3  # hexadecimal digits 1-16 of pi: nothing-up-my-sleeve salts
HIGH_SALT = 0x13198A2E03707344  # digits 17-32
REPLICATE_STRIDE = 0x9E3779B97F4A7C15  # odd: 2**64 / golden ratio, the SplitMix64 increment
INNER_SALT = 0xA4093822299F31D0  # digits 33-48 of pi: fresh salts for the inner roots
INNER_HIGH_SALT = 0x082EFA98EC4E6C89  # digits 49-64


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


def replicate_word(root, replicate):
    """Return replicate ``replicate``'s Philox key as one 64-bit integer."""
    lo, hi = root
    return mix64((lo + replicate * REPLICATE_STRIDE) & MASK64) ^ hi


def replicate_key(root, replicate):
    """Return replicate ``replicate``'s Philox key as two 32-bit words (low word first)."""
    key = replicate_word(root, replicate)
    return (key & 0xFFFFFFFF, key >> 32)


def stream_key(root, replicate, series=0):
    """Return replicate ``replicate``'s stream key ``(k0, k1, series)``: its Philox key
    words and the counter's series word (a panel's series id; 0 for a single series),
    which together name every stream of the replicate (``draws.WordStream``)."""
    return (*replicate_key(root, replicate), series)


def inner_root(root, replicate):
    """Return the 128-bit root ``(lo, hi)`` of the inner replicates drawn from outer
    replicate ``replicate``'s resample; pass it to :func:`replicate_key` in place of
    ``root``."""
    lo = mix64(replicate_word(root, replicate) ^ INNER_SALT)
    return (lo, mix64(lo ^ INNER_HIGH_SALT))
