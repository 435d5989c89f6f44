"""Production randomness: the operating system's CSPRNG behind the core's RandomSource."""

from __future__ import annotations

import secrets


class CryptoSource:
    """Cryptographically secure source (``secrets``) for live shuffles and wheel spins."""

    def __init__(self) -> None:
        self._system = secrets.SystemRandom()

    def randbelow(self, bound: int) -> int:
        if bound <= 0:
            raise ValueError(f"randbelow bound must be positive, got {bound}")
        return secrets.randbelow(bound)

    def token_bytes(self, count: int) -> bytes:
        return secrets.token_bytes(count)
