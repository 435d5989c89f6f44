"""Whether the bus itself was in trouble lately, as the coordinator sees it.

A late report has one of two causes. The gateway is in trouble (its database is away and it
waits on a write): it is dropped at the deadline, since the table never waits on one gateway.
Or the bus is in trouble (a NATS leader election holds every report, and every feed of them,
for seconds while each gateway is well): dropping then would drop every gateway of the table
for one node's loss. The coordinator tells them apart by what it sees of the bus itself: one of
its own appends that took long (retried through an election), or a probe of the two streams
that fails or is slow. Only while it saw such trouble lately does it wait on for late gateways
that show a live process (:meth:`~boundless.server.cluster.gateway_presence.GatewayPresence.alive`).
"""

from __future__ import annotations

import asyncio
import logging
import time

from boundless.server.cluster.bus import Bus

log = logging.getLogger("boundless.cluster.bus_trouble")

SLOW_SECONDS = 1.0
"""A bus call slower than this was held up by the bus (a healthy one answers in milliseconds)."""
MEMORY_SECONDS = 6.0
"""How long trouble counts once seen: after an election the clients' feeds are recreated on a
two-second activity check, so reports lag the stream's recovery by a few seconds."""


class BusTrouble:
    """When this coordinator last saw its bus in trouble."""

    def __init__(self, bus: Bus, table: str) -> None:
        self.bus, self.table = bus, table
        self._seen_at: float | None = None

    def note(self, why: str) -> None:
        if not self.recent():
            log.warning("table %s: the bus is in trouble: %s", self.table, why)
        self._seen_at = time.monotonic()

    def timed(self, what: str, started: float) -> None:
        """A call that began at ``started`` (``time.monotonic``) just ended: trouble if slow."""
        took = time.monotonic() - started
        if took > SLOW_SECONDS:
            self.note(f"{what} took {took:.1f} s")

    def recent(self) -> bool:
        seen = self._seen_at
        return seen is not None and time.monotonic() - seen < MEMORY_SECONDS

    async def probe(self) -> bool:
        """Read the end of both streams; trouble if either read fails or is slow. Whether trouble
        was seen lately, this probe included."""
        started = time.monotonic()
        try:
            async with asyncio.timeout(SLOW_SECONDS):
                await self.bus.last_event_seq(self.table)
                await self.bus.last_report_seq(self.table)
        except Exception as error:  # an election, a lost server: that is what we look for
            self.note(f"the streams did not answer ({str(error) or type(error).__name__})")
        else:
            self.timed("reading the streams' ends", started)
        return self.recent()
