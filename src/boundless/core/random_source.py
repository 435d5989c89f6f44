"""Where randomness comes from. The core never creates randomness of its own."""

from __future__ import annotations

import random
from typing import Protocol


class RandomSource(Protocol):
    """The only randomness the core consumes."""

    def randbelow(self, bound: int) -> int:
        """A uniform integer in ``0 .. bound-1``."""
        ...

    def token_bytes(self, count: int) -> bytes:
        """``count`` uniform random bytes (commitment salts)."""
        ...


class SeededSource:
    """Deterministic source for tests, simulations and reproducible demos.

    Holds its own ``random.Random`` instance, so it never touches global state.
    """

    def __init__(self, seed: int) -> None:
        self._generator = random.Random(seed)

    def randbelow(self, bound: int) -> int:
        if bound <= 0:
            raise ValueError(f"randbelow bound must be positive, got {bound}")
        return self._generator.randrange(bound)

    def token_bytes(self, count: int) -> bytes:
        return self._generator.getrandbits(8 * count).to_bytes(count, "big") if count else b""
