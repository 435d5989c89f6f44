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

The other way round, a report deadline does not drop a gateway that shows a live process
(:meth:`GatewayPresence.alive`): its name renewed lately, or its name unreadable, which means the
bus itself is in trouble. A NATS leader election holds every report and every feed of them for
seconds while each gateway is alive and well; without this, a single node's loss dropped them
all from the round.
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
FRESH_SECONDS = 2 * NAME_RENEW_SECONDS
"""A name renewed (a new revision read) within this long has a live process behind it: a live
gateway renews every :data:`NAME_RENEW_SECONDS`, a killed one's revision stands still."""


class GatewayPresence:
    """The gateway name leases of one table, as last read."""

    def __init__(
        self,
        bus: Bus,
        table: str,
        *,
        clock: Callable[[], float] = time.monotonic,
        grace_seconds: float = LAPSE_GRACE_SECONDS,
        fresh_seconds: float = FRESH_SECONDS,
    ) -> None:
        self.bus, self.table = bus, table
        self._clock, self.grace_seconds = clock, grace_seconds
        self.fresh_seconds = fresh_seconds
        self._holders: dict[str, str] = {}
        """The holder each name was last seen held by."""
        self._free_since: dict[str, float] = {}
        self._renewed: dict[str, tuple[int, float]] = {}
        """Each held name's revision as last read, and when that revision was first read."""
        self._unread: set[str] = set()
        """Names whose last read failed (the bus is electing a leader, or cut off)."""

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
                    lease = await self.bus.lease_of(name_lease_key(self.table, gateway))
            except Exception as error:  # an unreadable lease (election, timeout) says nothing
                log.debug("table %s: name of %s not read: %s", self.table, gateway, error)
                self._unread.add(gateway)
                continue
            self._unread.discard(gateway)
            seen = self._holders.get(gateway)
            if lease is not None:
                self._free_since.pop(gateway, None)
                self._holders[gateway] = lease.holder
                self._note_revision(gateway, lease.revision)
                if seen is not None and lease.holder != seen:
                    out.add(gateway)  # another process has the name: the one in play is gone
                continue
            self._renewed.pop(gateway, None)
            if seen is None:
                continue  # never seen held: its deadlines decide
            since = self._free_since.setdefault(gateway, self._clock())
            if self._clock() - since >= self.grace_seconds:
                out.add(gateway)
        return out

    def _note_revision(self, gateway: str, revision: int) -> None:
        last = self._renewed.get(gateway)
        if last is None or last[0] != revision:
            self._renewed[gateway] = (revision, self._clock())

    def alive(self, gateways: Iterable[str]) -> set[str]:
        """Those of ``gateways`` that show a live process, as last read: a name seen held whose
        revision moved on within ``fresh_seconds``, or one that could not be read at all
        (nothing says it is gone, and the bus being away explains a late report)."""
        now = self._clock()

        def shows_life(gateway: str) -> bool:
            if gateway in self._unread:
                return gateway in self._holders
            renewed = self._renewed.get(gateway)
            return renewed is not None and now - renewed[1] < self.fresh_seconds

        return {gateway for gateway in gateways if shows_life(gateway)}


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
