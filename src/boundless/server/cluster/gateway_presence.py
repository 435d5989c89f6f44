"""Whether a gateway's process is still there, as the coordinator can tell from the bus.

Every gateway holds a lease on its name (``gateway_name``), renewed every 1.5 s with a 5 s life.
A process killed outright stops renewing, so its name lapses within a lease's life; one stopped
in order gives it back at once; one started again under the same name holds it under another
holder. The coordinator reads those leases while it waits for reports, and stops waiting for a
gateway whose process is gone (it is then dropped as one that missed its deadline) instead of
spending the whole deadline on it.

Never a live gateway that is merely slow: a name is judged only once this coordinator has seen
it held (a gateway without a name lease is left to its deadlines); a lapsed name counts only
after staying free for :data:`LAPSE_GRACE_SECONDS` (a live gateway whose renewal was late takes
its name again at its next renewal); and a lease that cannot be read says nothing.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable

from boundless.server.cluster.bus import Bus
from boundless.server.cluster.gateway_name import NAME_RENEW_SECONDS, name_lease_key
from boundless.server.cluster.reports import ReportBox

log = logging.getLogger("boundless.cluster.gateway_presence")

LAPSE_GRACE_SECONDS = NAME_RENEW_SECONDS + 1.0
"""How long a name must stay free before its gateway counts as gone: past the next renewal of
a live holder whose lease lapsed."""
READ_SECONDS = 1.0
"""A lease read slower than this (a NATS election) says nothing this time."""


class GatewayPresence:
    """The gateway name leases of one table, as last read."""

    def __init__(
        self,
        bus: Bus,
        table: str,
        *,
        clock: Callable[[], float] = time.monotonic,
        grace_seconds: float = LAPSE_GRACE_SECONDS,
    ) -> None:
        self.bus, self.table = bus, table
        self._clock, self.grace_seconds = clock, grace_seconds
        self._holders: dict[str, str] = {}
        """The holder each name was last seen held by."""
        self._free_since: dict[str, float] = {}

    def seen(self) -> set[str]:
        """Every name seen held so far (read on, so a restart under it is seen as it happens,
        not later, when the new process may already be in a round)."""
        return set(self._holders)

    async def gone(self, gateways: Iterable[str]) -> set[str]:
        """Those of ``gateways`` whose process is gone: the name this coordinator saw held is
        free for the grace period, or held by another process (a restart)."""
        out: set[str] = set()
        for gateway in sorted(set(gateways)):
            try:
                async with asyncio.timeout(READ_SECONDS):
                    holder = await self.bus.lease_holder(name_lease_key(self.table, gateway))
            except Exception as error:  # an unreadable lease (election, timeout) says nothing
                log.debug("table %s: name of %s not read: %s", self.table, gateway, error)
                continue
            seen = self._holders.get(gateway)
            if holder is not None:
                self._free_since.pop(gateway, None)
                self._holders[gateway] = holder
                if seen is not None and holder != seen:
                    out.add(gateway)  # another process has the name: the one in play is gone
                continue
            if seen is None:
                continue  # never seen held: its deadlines decide
            since = self._free_since.setdefault(gateway, self._clock())
            if self._clock() - since >= self.grace_seconds:
                out.add(gateway)
        return out


async def watch_gateways(
    box: ReportBox,
    presence: GatewayPresence,
    known: Callable[[], set[str]],
    *,
    every: float,
) -> None:
    """Until cancelled: read the names of the ``known`` gateways, of those the box's waits
    expect and of every one seen before, and tell the box which of the awaited ones are gone
    (a restart is judged when it is seen: the waits then in progress are the old process's)."""
    while True:
        awaited = box.awaited()
        names = set(known()).union(presence.seen(), *awaited.values())
        if names:
            gone = await presence.gone(names)
            for round_number, gateways in awaited.items():
                for gateway in sorted(gateways & gone):
                    log.warning(
                        "table %s round %s: gateway %s is gone (its name lease lapsed or moved)",
                        presence.table,
                        round_number,
                        gateway,
                    )
                    box.mark_gone(round_number, gateway)
        await asyncio.sleep(every)
