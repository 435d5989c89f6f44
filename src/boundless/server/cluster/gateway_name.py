"""One process per gateway name: a lease on the name, in the bus's lease bucket.

A gateway's name owns its ledger slices (``<name>`` and ``<name>:players``) and its start-up
recovery cancels whatever that owner left open, so two live processes with one name would cancel
each other's rounds. A gateway therefore takes the lease on its name before it touches anything
(recovery included) and renews it while it runs, the way a coordinator holds its table's lease.

A second process finds the name held: it waits one lease life (a process killed a moment ago
leaves its lease to lapse), then gives up with one line (exit 2) having changed nothing. A
renewal that does not go through within the lease's life (the bus was away, or a NATS election
outlasted it) takes the name again if it is free, keeps it if the key still holds this process's
name (the renewal was written but its answer lost), else the gateway stops: someone else serves
that name now.

The other start-up and stop steps of a gateway process that must come before (or after) the
ledger are here too: its port bound before its recovery (a port in use stops the start), and an
orderly stop that lets the gateway refund its slice before the process ends.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
import time

from boundless.server.cluster.bus import Bus, BusError, Lease, LeaseLostError
from boundless.server.cluster.startup import ClusterSetupError, holder_name

log = logging.getLogger("boundless.cluster.gateway_name")

NAME_WAIT_SECONDS = 6.0
"""How long a starting gateway waits for its name: just over a lease's life (5 s on NATS)."""
NAME_POLL_SECONDS = 0.5
NAME_RENEW_SECONDS = 1.5
"""Renewed as often as a coordinator renews its table's lease (several times per life)."""


class NameHeldError(BusError):
    """Another live process holds this gateway name."""


class NameLostError(BusError):
    """A running gateway's name went to another process: this one stopped (one line, exit 1)."""


def name_lease_key(table: str, name: str) -> str:
    """The lease key of a gateway name (bus keys are letters, digits, ``-`` and ``_``): the
    name's ``_``, ``.`` and ``@`` are written ``_5f``, ``_2e`` and ``_40``, so keys never meet."""
    escaped = "".join(ch if ch.isalnum() or ch == "-" else f"_{ord(ch):02x}" for ch in name)
    return f"{table}-gateway-{escaped}"


class GatewayName:
    """The lease on one gateway name, as this process holds it (its latest revision)."""

    def __init__(self, bus: Bus, table: str, name: str, holder: str) -> None:
        self.bus, self.name, self.holder = bus, name, holder
        self.key = name_lease_key(table, name)
        self.table = table
        self.lease: Lease | None = None

    async def take(self, *, wait_seconds: float = NAME_WAIT_SECONDS) -> None:
        """Hold the name, waiting up to ``wait_seconds`` for a lapsing lease; else
        :class:`NameHeldError` naming its holder."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + wait_seconds
        while True:
            self.lease = await self.bus.acquire_lease(self.key, self.holder)
            if self.lease is not None:
                return
            if loop.time() >= give_up:
                held_by = await self.bus.lease_holder(self.key)
                raise NameHeldError(
                    f"gateway name {self.name!r} of table {self.table} is held by "
                    f"{held_by or 'another process'}; stop that gateway or choose another --name"
                )
            await asyncio.sleep(NAME_POLL_SECONDS)

    async def keep(self, *, every: float = NAME_RENEW_SECONDS) -> None:
        """Renew the lease until cancelled; returns (so the gateway stops) once the name is
        someone else's. A renewal the bus cannot answer is tried again at the next tick."""
        while self.lease is not None:
            await asyncio.sleep(every)
            try:
                self.lease = await self.bus.renew_lease(self.lease)
            except LeaseLostError as error:
                self.lease = await self._again(self.lease, error)
            except BusError as error:
                log.warning(
                    "%s: gateway name %r not renewed yet: %s", self.holder, self.name, error
                )

    async def _again(self, held: Lease, lost: LeaseLostError) -> Lease | None:
        """After a renewal that did not go through in the lease's life (a NATS election can
        outlast it): the name again if it lapsed, or as it stands if it is still ours (the
        key holds this process's name: nobody took it); ``None`` once it is someone else's."""
        try:
            lease = await self.bus.acquire_lease(self.key, self.holder)
            standing = None if lease is not None else await self.bus.lease_of(self.key)
        except Exception as error:  # the bus still electing (a timeout, no responders)
            log.warning("%s: gateway name %r not read yet: %s", self.holder, self.name, error)
            return held  # the next tick tries again
        if lease is not None:
            log.warning("%s: name %r had lapsed; taken again", self.holder, self.name)
            return lease
        if standing is not None and standing.holder == self.holder:
            log.warning("%s: name %r still ours after %s", self.holder, self.name, lost)
            return Lease(self.key, self.holder, standing.revision, time.monotonic())
        log.error("%s: gateway name %r taken by another process", self.holder, self.name)
        return None

    async def give_back(self) -> None:
        """At a clean stop: the name is free at once for the next start."""
        lease, self.lease = self.lease, None
        if lease is None:
            return
        try:
            await self.bus.release_lease(lease)
        except BusError as error:
            log.warning("%s: gateway name %r lapses by itself: %s", self.holder, self.name, error)


async def hold_gateway_name(bus: Bus, table: str, name: str) -> GatewayName:
    """Take the name for this process, or stop the start with one line (exit 2)."""
    held = GatewayName(bus, table, name, holder_name("gateway"))
    try:
        await held.take()
    except BusError as error:
        await bus.close()
        raise ClusterSetupError(str(error)) from None
    return held


def bind_port(host: str, port: int) -> socket.socket:
    """The gateway's listening socket, bound before anything else is done (the server serves on
    it later); a port in use is one line (exit 2)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind((host, port))
    except OSError as error:
        listening.close()
        raise ClusterSetupError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    listening.set_inheritable(True)
    return listening


def quiet_after_serving() -> None:
    """Let an orderly stop (SIGTERM) run the gateway's shutdown: uvicorn stops serving on the
    signal, then raises it again once it has; under the default handler that would end the
    process before the gateway refunds its slice and gives its name back."""
    signal.signal(signal.SIGTERM, lambda _signal, _frame: None)
