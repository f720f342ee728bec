"""Random words and the exact distributions built on them (docs/streams.md).

A *stream* is identified by (replicate key, purpose, series). Its t-th 32-bit word is
lane ``t % 4`` of ``philox4x32_10(counter, key)`` with the counter
``(p & 0xFFFFFFFF, p >> 32, purpose, series)`` and ``p = t // 4``. Words are consumed
strictly in order, and each purpose has its own stream, so adding a purpose never shifts
an existing one.

Distributions (integer arithmetic only, so both twins agree bit for bit):

* ``bounded(s)``: uniform on [0, s) for 1 <= s <= 2**32, by Lemire's multiply-shift
  with rejection (one word per attempt).
* ``word64()``: two consecutive words, the first one the high half.
* ``geometric(table)``: an exact Geometric(1/m) length on {1, 2, ...}; see
  :func:`geometric_table`.
* ``uniform53()``: a double on [0, 1) with 53 random bits, from two words:
  ``((a >> 5) * 2**26 + (b >> 6)) / 2**53``.
"""

from dataclasses import dataclass
from enum import IntEnum

from .philox import philox4x32_10

MASK32 = 0xFFFFFFFF


class Purpose(IntEnum):
    """Counter word 2: which stream of a replicate a word belongs to. Never renumber."""

    BLOCK_START = 1  # block starts; i.i.d. positions are blocks of length 1
    BLOCK_LENGTH = 2  # stationary-bootstrap block lengths
    RESIDUAL_INDEX = 3  # model-based methods, IID innovations: which residual each error is (models.py)
    WILD_MULTIPLIER = 4  # model-based methods: wild and block-wild multipliers (models.py)
    BLOCK_WILD_OFFSET = 5  # model-based methods: the random phase of the block-wild grid (models.py)
    # The same three draws for design="fixed" (models.py item 9): their own streams, so a
    # fixed-design replicate never shares draws with the recursive replicate of its key
    # and the recursive streams above are unchanged.
    FIXED_RESIDUAL_INDEX = 6
    FIXED_WILD_MULTIPLIER = 7
    FIXED_BLOCK_WILD_OFFSET = 8
    FORECAST_SHOCK = 9  # forecast.py, method="bootstrap": which residual each future step's shock is
    CONFORMAL_BLOCK_START = 10  # forecast.py, method="conformal": an ensemble member's block starts


@dataclass(frozen=True)
class GeometricTable:
    """Integer inverse-CDF table of Geometric(1/m) for an integer mean m >= 2.

    j is the largest count with m**j <= 2**58, c = (2**64 - 1) // m**j (so c >= 64) and
    ``span`` = c * m**j < 2**64. A 64-bit word u is used if u < span and redrawn
    otherwise, which happens for at most 1/64 of words, so u is uniform on [0, span).
    The length is the smallest k <= j with ``u < thresholds[k - 1]``, where
    ``thresholds[k - 1] = span - c * (m - 1)**k * m**(j - k)``, so P(L > k) =
    ((m - 1)/m)**k exactly. If u passes every threshold, j failures are banked and a
    fresh u is drawn (memorylessness), so the tail is never truncated.
    """

    mean: int
    span: int
    thresholds: tuple


def geometric_table(mean):
    """Build the :class:`GeometricTable` of an integer mean >= 2 by multiplications only."""
    trials, power = 0, 1
    while power * mean <= 1 << 58:
        power *= mean
        trials += 1
    scale = ((1 << 64) - 1) // power
    span = scale * power
    thresholds = tuple(span - scale * (mean - 1) ** k * mean ** (trials - k) for k in range(1, trials + 1))
    return GeometricTable(mean, span, thresholds)


class WordStream:
    """The ordered 32-bit words of one (key, purpose, series) stream, and draws from them."""

    __slots__ = ("_key", "_purpose", "_series", "_block", "_buffer", "_lane")

    def __init__(self, key, purpose, series=0):
        # key: (k0, k1), or a stream key (k0, k1, series) from keys.stream_key, whose
        # series word then overrides ``series``
        self._key = tuple(key[:2])
        self._purpose = int(purpose)
        self._series = key[2] if len(key) > 2 else series
        self._block = 0
        self._buffer = ()
        self._lane = 4

    def word(self):
        """Next 32-bit word."""
        if self._lane == 4:
            block = self._block
            self._buffer = philox4x32_10((block & MASK32, block >> 32, self._purpose, self._series), self._key)
            self._block = block + 1
            self._lane = 0
        value = self._buffer[self._lane]
        self._lane += 1
        return value

    def word64(self):
        """Next 64-bit word: two 32-bit words, the first one the high half."""
        high = self.word()
        return (high << 32) | self.word()

    def bounded(self, bound):
        """Uniform integer on [0, bound), 1 <= bound <= 2**32: Lemire's multiply-shift,
        rejecting the 2**32 mod bound low products that would bias it (one word per
        attempt)."""
        product = self.word() * bound
        low = product & MASK32
        if low < bound:
            threshold = ((1 << 32) - bound) % bound
            while low < threshold:
                product = self.word() * bound
                low = product & MASK32
        return product >> 32

    def geometric(self, table):
        """Exact Geometric(1 / table.mean) length on {1, 2, ...}; see GeometricTable."""
        banked = 0
        thresholds = table.thresholds
        while True:
            u = self.word64()
            while u >= table.span:  # plain rejection: span >= (63/64) 2**64
                u = self.word64()
            for k, threshold in enumerate(thresholds, start=1):
                if u < threshold:
                    return banked + k
            banked += len(thresholds)

    def uniform53(self):
        """Double on [0, 1) with 53 random bits."""
        high = self.word() >> 5
        low = self.word() >> 6
        return (high * 67108864 + low) / 9007199254740992.0
