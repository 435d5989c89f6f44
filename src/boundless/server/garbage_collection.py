"""The cyclic garbage collector set for a server that holds thousands of players' state.

Measured with 10,000 players on ``boundless serve`` (``benchmarks/live_load.py``, see
``docs/performance.md``): under CPython's default thresholds (700, 10, 10) the round's many
short-lived objects (frames waiting in the outbox, views, bet answers) outlived the youngest
generation's frequent collections and were promoted, so a collection of the oldest generation,
which scans the whole heap, ran every 5-6 s and took about a second each while finding almost
nothing to free. Each held the event loop, and every other thread, for that second: it was the
server's whole loop-lag tail.

So: what start-up made is frozen (modules, the catalogue, the app: alive for the process's life,
never worth scanning), and the youngest generation is collected after many more allocations, so
that what a turn of the loop makes is mostly freed by reference counting before any collection
looks at it and little is promoted. Cyclic garbage is still collected, in every generation.
"""

from __future__ import annotations

import gc

YOUNGEST_THRESHOLD = 50_000
"""Allocations (less deallocations) between collections of the youngest generation (default
700). A collection of that generation then takes a few tens of milliseconds at most."""
MIDDLE_THRESHOLD = 20
OLDEST_THRESHOLD = 100
"""Collections of the generation below before the next one is collected (defaults 10, 10)."""


def tune_garbage_collector() -> None:
    """Freeze what exists now and set the thresholds; call once the server is set up."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNGEST_THRESHOLD, MIDDLE_THRESHOLD, OLDEST_THRESHOLD)
