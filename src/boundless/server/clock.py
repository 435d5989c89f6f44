"""The server's clock: Unix epoch milliseconds, as every message shows times."""

from __future__ import annotations

import time


def now_ms() -> int:
    return int(time.time() * 1000)


def now() -> float:
    return time.time()
