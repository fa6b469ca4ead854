"""splitmix64 in plain Python: the twin of ``ext/brett_rng.h``.

Every core draws its random numbers with these steps, so a seeded playout or
roll gives the same result on the Cython and the plain-Python core.
"""

from __future__ import annotations

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


class SplitMix64:
    """A 64-bit generator; ``state`` is the whole state (an int)."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK64

    def next(self) -> int:
        self.state = (self.state + GOLDEN) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A value in [0, n) for 0 < n < 2**32 (high 32 bits scaled by n)."""
        return ((self.next() >> 32) * n) >> 32


def zobrist_table(seed: int, size: int) -> list[int]:
    """``size`` 64-bit Zobrist keys drawn from ``seed``; both cores use this."""
    rng = SplitMix64(seed)
    return [rng.next() for _ in range(size)]
