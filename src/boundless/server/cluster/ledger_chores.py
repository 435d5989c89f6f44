"""The coordinator's ledger writes that the table need not wait for, written in order.

Opening a round in the ledger, ending it, refunding a dropped gateway's slices: each is tried
again under the same key while the database is away (``write_until_done``). Awaited in the
round's path, a database cut held the whole table for the cut's length (measured: 18-19 s
stalls in the chaos benchmark). Here each write waits for the ones queued before it (a round is
opened before it is ended, a dropped slice refunded before the round's end is tried), the round
waits for it a moment (``wait_seconds``: with the database up it is written by then, so the
order of things is what it always was), and past that the round goes on while the write goes
on being tried. Nothing is lost by not waiting: every write is idempotent by its key, a stake
creates a round the coordinator has not opened yet, and a round whose slices all settled or
were cancelled ends itself in the ledger. A write given up because the database stayed away
past its retry budget (120 s) is queued again ahead of the next one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

from boundless.ledger.errors import RoundClosedError, SlicesStillOpenError
from boundless.ledger.outage import is_transient, one_line
from boundless.server.cluster.protocol import DROPPED_REASON, slice_owners
from boundless.server.cluster.reports import ReportBox

Unplayed = tuple[ReportBox, str, float]
"""A round cancelled for want of bets: its reports, the reason, how long to wait for them."""


class RoundLedger(Protocol):
    """What the coordinator writes to the ledger (``ClusterLedger`` in ``ledger_slice``: each
    call tried again under the same key while the database is away)."""

    async def open_round(self, table: str, round_no: int) -> None: ...

    async def end_round(self, table: str, round_no: int) -> None: ...

    async def cancel_round(self, table: str, round_no: int) -> None: ...

    async def cancel_slice(self, table: str, round_no: int, owner: str) -> None: ...


class DroppedRecords(Protocol):
    """Cancels slices whose gateway is gone and records their players in the same transaction
    (``SliceRecords``)."""

    async def cancel_dropped(
        self, table: str, round_no: int, gateway: str, reason: str
    ) -> None: ...

    async def cancel_in_flight(
        self, box: ReportBox, table: str, round_no: int, reason: str, seconds: float
    ) -> list[str]: ...

    def refunds(self, table: str, round_no: int) -> dict[str, int]:
        """What the round's cancellations put back into each wallet."""
        ...


log = logging.getLogger("boundless.cluster.coordinator")


Write = Callable[[], Awaitable[object]]


class LedgerChores:
    def __init__(self, wait_seconds: float) -> None:
        self.wait_seconds = wait_seconds
        self._last: asyncio.Task[None] | None = None
        self.pending = 0
        """Writes queued and not yet done (for the logs and the tests)."""
        self.again: list[tuple[str, Write]] = []
        """Writes given up while the database stayed away past their retry budget: queued
        again, in their order, ahead of the next write (each is idempotent by its key)."""

    async def do(self, what: str, write: Write) -> bool:
        """Queue ``write`` after the earlier ones and wait up to ``wait_seconds`` for it; True
        when it is done by then (written, or failed: logged), False when it goes on meanwhile."""
        self._queue_again()
        task = self._queue(what, write)
        done, _ = await asyncio.wait({task}, timeout=self.wait_seconds)
        if not done:
            log.warning("%s: the ledger is slow or away; the table goes on meanwhile", what)
        return bool(done)

    def _queue_again(self) -> None:
        again, self.again = self.again, []
        for earlier in again:
            self._queue(*earlier)

    def _queue(self, what: str, write: Write) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(self._after(self._last, what, write))
        self._last = task
        self.pending += 1
        return task

    async def _after(self, before: asyncio.Task[None] | None, what: str, write: Write) -> None:
        try:
            if before is not None:
                await asyncio.wait({before})  # its outcome is its own (logged there)
            await write()
        except asyncio.CancelledError:
            raise
        except Exception as error:
            if is_transient(error):
                # The database away past the retry budget: kept, and tried again with the next
                # write (a dropped gateway's slices would otherwise hold their coins until that
                # gateway started again).
                log.warning("%s: given up for now, tried again with the next ledger write: %s",
                            what, one_line(error))  # fmt: skip
                self.again.append((what, write))
                return
            # Refused: a round with slices ends when its last slice does, a dropped gateway's
            # restart cancels its own.
            log.exception("%s failed", what)
        finally:
            self.pending -= 1

    async def drain(self, seconds: float) -> None:
        """Wait up to ``seconds`` for every queued write, those given up for now tried once
        more (an orderly stop)."""
        self._queue_again()
        last = self._last
        if last is not None and not last.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(last), seconds)


class RoundBooks:
    """The coordinator's ledger calls for its rounds, through :class:`LedgerChores`."""

    def __init__(
        self,
        table: str,
        ledger: RoundLedger | None,
        records: DroppedRecords | None,
        wait_seconds: float,
    ) -> None:
        self.table, self.ledger, self.records = table, ledger, records
        self.chores = LedgerChores(wait_seconds)

    async def open(self, number: int) -> None:
        ledger, table = self.ledger, self.table
        if ledger is None:
            return

        async def write() -> None:
            # Written late: its slices (a stake creates the round) may have ended it already.
            with contextlib.suppress(RoundClosedError):
                await ledger.open_round(table, number)

        await self.chores.do(f"{table} round {number}: opening it in the ledger", write)

    async def refund_dropped(self, number: int, gateway: str) -> None:
        """Cancel a dropped gateway's slices and record its players (one transaction, once by
        its key)."""
        records, ledger, table = self.records, self.ledger, self.table
        if records is None and ledger is None:
            return

        async def write() -> None:
            if records is not None:
                await records.cancel_dropped(table, number, gateway, DROPPED_REASON)
            elif ledger is not None:
                for owner in slice_owners(gateway):
                    await ledger.cancel_slice(table, number, owner)

        await self.chores.do(f"{table} round {number}: refunding dropped {gateway}", write)

    async def end(self, number: int, *, unplayed: Unplayed | None = None) -> None:
        """End the round in the ledger. ``unplayed``: a round cancelled for want of bets, whose
        slices staked by gateways that reported too late are cancelled here."""
        if self.ledger is not None:
            await self.chores.do(
                f"{self.table} round {number}: ending it in the ledger",
                lambda: self._end(number, unplayed),
            )

    async def _end(self, number: int, unplayed: Unplayed | None) -> None:
        assert self.ledger is not None
        try:
            await self.ledger.end_round(self.table, number)
        except SlicesStillOpenError as error:
            if unplayed is not None:
                # Bets staked but reported after the close: refunded (their gateways cancel
                # their own; what is left after the report deadline is cancelled here, once).
                box, reason, seconds = unplayed
                if self.records is not None:
                    await self.records.cancel_in_flight(box, self.table, number, reason, seconds)
                else:
                    await self.ledger.cancel_round(self.table, number)
                return
            # A slow gateway's settlement is still coming (retried under the same keys); the
            # round ends in the ledger when its last slice does.
            log.warning("table %s round %s: %s", self.table, number, error)

    async def drain(self, seconds: float) -> None:
        await self.chores.drain(seconds)
