"""A gateway's side of a table: follow the coordinator's events, run this gateway's slice, report.

Each round gets a fresh :class:`~boundless.server.cluster.slices.SliceSide` (this gateway's
follower round). The gateway answers every close with a report whose id names the gateway,
round, kind and key, so a resend is harmless; it takes each event once, in log order, however
often the bus delivers it. A gateway that starts while a round is in flight replays that round
from its first event: while betting is open it joins the round; later it only follows it (it
holds no positions in it: a previous life's slice is cancelled by that owner's recovery) and
joins from the next round. A round this gateway holds no positions in (too late, or nobody here
bet) is still followed to its end, so its players see it; it only reports nothing.

A :class:`GatewayWatcher` (the gateway's player table) sees every event before the slice does:
the timers, shoe notices and table-wide counts the coordinator puts in the bodies are for it.

The ledger or its database failing while the gateway acts on an event never stops the gateway:
it sits that round out (:meth:`Gateway._sit_out`). At the bet close it reports that it holds
nothing (the deal does not wait for it); later in the round it simply stops reporting (the
coordinator drops it at that close's deadline and cancels its slices too; the ledger cancels a
slice once, whoever asks). Its slice is refunded in the background while it goes on following
the round for its players.

Nor does the table wait for this gateway's database: a settlement whose write waits for it
(the database does not answer) is reported ``settling`` (the outcome is fixed; the round
closes without waiting) and written in the background under its keys, then reported
``settled``. While such a refund or settlement of an earlier round is still being written, the
gateway sits the rounds that open out (it follows them and reports at once that it holds
nothing: the desk's players see the earlier round end first) and plays again from the next
round that opens once it is written, or from the round it is waiting out if the write lands
before that round's bet close (the coordinator holds a bet close while the ledger is away:
``ledger_hold``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, cast

from sqlalchemy.exc import SQLAlchemyError

from boundless.core.round import events as ev
from boundless.ledger.errors import LedgerError
from boundless.ledger.outage import is_transient, one_line
from boundless.server.cluster.bus import (
    Bus,
    GatewayReport,
    JsonBody,
    ReportKind,
    StoredEvent,
    in_sequence,
)
from boundless.server.cluster.protocol import INSURANCE_KEY, ROUND_ENDS, Public, step_key
from boundless.server.cluster.slices import SliceSide
from boundless.server.event_codec import decode_event

log = logging.getLogger("boundless.cluster.gateway")
SliceMaker = Callable[[int, ev.RoundOpened], SliceSide]
"""Makes this gateway's slice of round N from the round's opening event."""
SIT_OUT_REASON = "the coin ledger failed on this gateway; every stake of this round is returned"
NOTHING_HELD: JsonBody = {
    "spots": [],
    "seated_spots": [],
    "players": 0,
    "positions": 0,
    "spot_bets": {},
}
"""A ``bets_closed`` report of a gateway that holds no position in the round."""
SAT_OUT: JsonBody = {**NOTHING_HELD, "sat_out": True}
"""The same, from a gateway that sits the round out for the ledger (the round's reason says so)."""
SETTLE_PROBE_SECONDS = 1.0
"""How often a settlement still being written asks whether the database answers at all."""
CATCH_UP_WAIT_SECONDS = 0.5
"""How long a round's opening waits for an earlier round's write before sitting the round out."""
STOP_WAIT_SECONDS = 5.0
"""How long a stopping gateway waits for an earlier round's write still going on (a supervisor
kills a child that takes 10 s to stop; what is left open, its next start's recovery ends)."""


def ledger_trouble(error: BaseException) -> bool:
    """A failure of the ledger or its database (connection lost, a write refused or given up),
    as opposed to a defect of the gateway itself: the gateway sits the round out for it."""
    return isinstance(error, LedgerError | SQLAlchemyError) or is_transient(error)


class GatewayWatcher(Protocol):
    def seen(self, stored: StoredEvent) -> None:
        """An event of the table's log, before the gateway acts on it."""
        ...

    def taken(self, stored: StoredEvent) -> None:
        """The same event once the gateway has acted on it (its own writes for it done)."""
        ...


class Gateway:
    def __init__(
        self,
        bus: Bus,
        table: str,
        name: str,
        new_slice: SliceMaker,
        watcher: GatewayWatcher | None = None,
        *,
        ledger_answers: Callable[[], Awaitable[bool]] | None = None,
    ) -> None:
        self.bus, self.table, self.name = bus, table, name
        self.ledger_answers = ledger_answers
        """Whether the ledger's database answers now (a settlement that does not land is then
        reported ``settling``); without it a settlement is always awaited."""
        self._new_slice = new_slice
        self.watcher = watcher
        self.round_number = 0
        self.slice: SliceSide | None = None
        """This gateway's positions in the round in progress; ``None`` between rounds."""
        self.public: list[StoredEvent] = []
        """The current round's events so far (what a newly connected player is shown)."""
        self.rounds_ended = 0
        self._holding = False
        self._listed = True
        """False once the round is known to go on without this gateway: follow, report nothing."""
        self._decision_key: int | None = None
        self._catching_up: asyncio.Task[None] | None = None
        """The write of an earlier round's refund or settlement (while it goes on, new rounds
        are sat out: they would take the desk's round state from under it)."""
        self._waiting_out = False
        """This round is sat out while an earlier round's write goes on (nothing held)."""
        self._late_opening: ev.RoundOpened | None = None
        """That round's opening: it is joined if the write lands before its bet close."""
        self.sat_out = 0
        """Rounds this gateway sat out because the ledger failed (for ``/api/cluster``)."""
        self.following = False
        """True while :meth:`run` follows the table's stream."""
        self._joining: asyncio.Future[None] | None = None
        """This process's ``joined`` report (sent once, in its first round it can bet in)."""

    async def run(self, *, rounds: int | None = None) -> None:
        """Follow the table (``rounds``: stop after this many rounds have ended)."""
        self.following = True
        try:
            await self._follow(rounds)
        finally:
            self.following = False

    async def _follow(self, rounds: int | None) -> None:
        replayed = await self.bus.replay_round(self.table)
        from_seq = 1
        if replayed:
            from_seq = replayed[0].seq
            if len(replayed) > 1 or replayed[-1].event.kind in ROUND_ENDS:
                # Too late to bet in this round: show it, hold no positions, join the next.
                for stored in replayed:
                    await self._take(stored, following=True)
                from_seq = replayed[-1].seq + 1
        async for stored in in_sequence(self.bus.events(self.table, from_seq=from_seq)):
            await self._take(stored)
            if rounds is not None and self.rounds_ended >= rounds:
                return

    async def stop(self, reason: str) -> None:
        """The gateway is shutting down: refund its slice of the round in play, if any."""
        writing = self._catching_up
        if writing is not None:
            await asyncio.wait({writing}, timeout=STOP_WAIT_SECONDS)
            if not writing.done():
                log.warning("gateway %s: stopping with an earlier round's write not done; its "
                            "next start's recovery ends that slice", self.name)  # fmt: skip
                writing.cancel()
            self._catching_up = None
        if self.slice is not None and self._listed:
            await self._drop(reason)

    async def decision_made(self) -> None:
        """A player of this gateway acted: tell the coordinator once all of them have."""
        key = self._decision_key
        mine = self.slice
        if mine is not None and key is not None and self._listed and mine.all_decided():
            await self._report(ReportKind.DECIDED, key, {})

    async def _take(self, stored: StoredEvent, *, following: bool = False) -> None:
        try:
            await self._act(stored, following)
        except Exception as error:
            if not ledger_trouble(error):
                raise
            await self._sit_out(stored, error)
        if self.watcher is not None:
            self.watcher.taken(stored)

    async def _sit_out(self, stored: StoredEvent, error: Exception) -> None:
        """The ledger failed while this gateway acted on ``stored``: hold nothing in this round
        (say so at once at the bet close), refund its slice once in the background, follow on."""
        reason = f"{SIT_OUT_REASON} ({one_line(error)})"
        log.warning(
            "gateway %s: round %s: sitting it out: %s", self.name, self.round_number, reason
        )
        reporting = self._listed and Public(stored.event.kind) is Public.BETTING_CLOSED
        self._listed, self._holding, self._decision_key = False, False, None
        self.sat_out += 1
        mine, self.slice = self.slice, None  # dropped once: no later event reaches it
        if reporting:
            await self._report(ReportKind.BETS_CLOSED, 0, SAT_OUT)
        if mine is not None:
            self._catching_up = asyncio.get_running_loop().create_task(self._refund(mine, reason))

    async def _refund(self, mine: SliceSide, reason: str) -> None:
        try:
            await mine.cancel(reason)
        except Exception as error:
            if not ledger_trouble(error):
                log.exception("gateway %s: a sat-out slice's refund failed", self.name)
                return
            # Still open in the ledger: the coordinator's drop, or this gateway's next start,
            # cancels it under the same key.
            log.warning("gateway %s: refund left to the ledger's recovery: %s", self.name, error)

    async def _caught_up(self) -> None:
        """Wait for an earlier round's refund or settlement (it uses the table's round state)."""
        writing, self._catching_up = self._catching_up, None
        if writing is not None:
            await writing

    async def _behind(self) -> bool:
        """Whether an earlier round's write still goes on (after a short wait for it)."""
        writing = self._catching_up
        if writing is None:
            return False
        await asyncio.wait({writing}, timeout=CATCH_UP_WAIT_SECONDS)
        if not writing.done():
            return True
        await self._caught_up()
        return False

    def _join_late(self, number: int) -> None:
        """The earlier round's write landed while round ``number`` still takes bets (the
        coordinator holds its bet close while the ledger is away): play it after all."""
        opened, writing = self._late_opening, self._catching_up
        if not self._waiting_out or opened is None or self.round_number != number:
            return
        if writing is None or not writing.done() or writing.cancelled():
            return  # another write, or stopping
        writing.exception()  # its failures are logged inside it; nothing is left to raise
        self._catching_up, self._late_opening, self._waiting_out = None, None, False
        self.slice, self._listed = self._new_slice(number, opened), True
        self.sat_out -= 1
        log.warning("gateway %s: round %s: joined late, the earlier round's write landed",
                    self.name, number)  # fmt: skip
        if self._joining is None:
            self._joining = asyncio.ensure_future(self._report(ReportKind.JOINED, 0, {}))

    async def _settle(self, mine: SliceSide) -> None:
        """Settle this slice and report ``settled``; if its write waits for a database that
        does not answer, report ``settling`` and let the write go on in the background."""
        number = self.round_number
        writing = asyncio.ensure_future(self._settle_and_report(mine, number))
        while True:
            done, _ = await asyncio.wait({writing}, timeout=SETTLE_PROBE_SECONDS)
            if done:
                writing.result()
                return
            answers = self.ledger_answers
            if answers is not None and not await answers():
                log.warning("gateway %s: round %s: settlement written in the background, the "
                            "ledger's database does not answer", self.name, number)  # fmt: skip
                self._catching_up = asyncio.ensure_future(self._settled_late(writing, mine))
                await self._report(ReportKind.SETTLING, 0, {}, number=number)
                return

    async def _settle_and_report(self, mine: SliceSide, number: int) -> None:
        await self._report(ReportKind.SETTLED, 0, await mine.settle(), number=number)

    async def _settled_late(self, writing: asyncio.Future[None], mine: SliceSide) -> None:
        try:
            await writing
        except Exception as error:
            if not ledger_trouble(error):
                log.exception("gateway %s: a settlement written late failed", self.name)
                return
            await self._refund(mine, f"{SIT_OUT_REASON} ({one_line(error)})")

    async def _act(self, stored: StoredEvent, following: bool) -> None:
        event = stored.event
        kind = Public(event.kind)
        body = event.body
        table_event: ev.TableEvent | None = None
        if kind is Public.TABLE:
            decoded = decode_event(cast(dict[str, Any], body))
            if not isinstance(decoded, ev.TABLE_EVENT_TYPES):
                raise ValueError(f"{type(decoded).__name__} is not a table event")
            table_event = cast(ev.TableEvent, decoded)
        behind = isinstance(table_event, ev.RoundOpened) and await self._behind()
        if self.watcher is not None:
            self.watcher.seen(stored)
        if isinstance(table_event, ev.RoundOpened):
            self.round_number, self.public = event.round_number, []
            self._holding, self._decision_key = False, None
            self._waiting_out = behind and not following
            if behind:
                # The desk's players still have the earlier round (its write goes on): this one
                # is only followed; its bet close is answered at once with nothing held.
                self.slice, self._listed = None, False
                self.sat_out += not following
                log.warning("gateway %s: round %s: waiting out, an earlier round's ledger write "
                            "goes on", self.name, event.round_number)  # fmt: skip
                self.public.append(stored)
                writing = self._catching_up
                if self._waiting_out and writing is not None:
                    self._late_opening = table_event
                    number = event.round_number
                    writing.add_done_callback(lambda _done: self._join_late(number))
                return
            self.slice = self._new_slice(event.round_number, table_event)
            self._listed = not following
            if following:
                await self.slice.follow_only()  # too late to bet here: nothing staked or reported
            elif self._joining is None:
                # New here (a start or a restart): the coordinator may not know this gateway
                # yet; this makes its bet close wait for this gateway's bets too. Sent beside
                # the round's events, which need not wait for it.
                self._joining = asyncio.ensure_future(self._report(ReportKind.JOINED, 0, {}))
        self.public.append(stored)
        if event.round_number != self.round_number:
            return
        if kind in ROUND_ENDS:
            holding = self.slice is not None and self._listed
            await self._end(kind, body, counted=not following)
            if holding and kind is Public.ROUND_CANCELLED:
                # A new coordinator cancels what no live gateway cancelled itself (slice_records).
                await self._report(ReportKind.CANCELLED, 0, {})
            return
        mine = self.slice
        if mine is None:
            if self._waiting_out and kind is Public.BETTING_CLOSED:
                self._waiting_out = False
                await self._report(ReportKind.BETS_CLOSED, 0, SAT_OUT)
            return  # this gateway's slice of the round was cancelled, or it sits it out
        if table_event is not None and not isinstance(table_event, ev.RoundOpened):
            await self._apply(mine, table_event)
        elif not self._listed:
            return  # a round this gateway only follows
        elif kind is Public.BETTING_CLOSED:
            bets = await mine.bets_report()
            self._holding = bool(bets.spots)
            players, positions = mine.seats()
            await self._report(
                ReportKind.BETS_CLOSED,
                0,
                {
                    "spots": sorted(bets.spots),
                    "seated_spots": sorted(bets.seated_spots),
                    "players": players,
                    "positions": positions,
                    "spot_bets": mine.spot_bets(),
                },
            )
        elif kind is Public.SLICES:
            if self.name not in cast(list[str], body.get("gateways", [])):
                if self._holding:
                    await self._drop("this gateway's bets were not in the deal")
                self._listed = False  # nothing of ours in this round: follow it, report nothing
        elif kind is Public.STEP_CLOSED:
            report = await mine.step_report()
            self._decision_key = None
            await self._report(
                ReportKind.TAKERS,
                step_key(report.spot, report.step),
                {
                    "spot": report.spot,
                    "step": report.step,
                    "takers": report.takers,
                    "in_play_if": list(report.in_play_if),
                },
            )
        elif kind is Public.ROUND_SETTLING:
            await self._settle(mine)
            self.slice = None
        elif kind is Public.GATEWAY_DROPPED and body.get("gateway") == self.name:
            await self._drop(f"this gateway missed its {body.get('missed')} report")

    async def _apply(self, mine: SliceSide, table_event: ev.TableEvent) -> None:
        await mine.apply(table_event)
        if isinstance(table_event, ev.StepOpened):
            self._decision_key = step_key(table_event.spot, table_event.step)
            await self.decision_made()
        elif isinstance(table_event, ev.CardsDealt) and mine.in_insurance():
            self._decision_key = INSURANCE_KEY
            await self.decision_made()

    async def _end(self, kind: Public, body: JsonBody, *, counted: bool) -> None:
        if self.slice is not None and self._listed:
            reason = str(body.get("reason", "the round closed without this gateway's slice"))
            await self._drop(reason)
        self.slice = None
        self.rounds_ended += counted
        self._decision_key = None
        self._waiting_out, self._late_opening = False, None

    async def _drop(self, reason: str) -> None:
        mine = self.slice
        if mine is not None:
            log.warning(
                "gateway %s: round %s slice cancelled: %s", self.name, self.round_number, reason
            )
            self.slice = None  # before the refund's write: this slice is dropped once
            await mine.cancel(reason)

    async def _report(
        self, kind: ReportKind, key: int, body: JsonBody, *, number: int | None = None
    ) -> None:
        number = self.round_number if number is None else number
        await self.bus.report(GatewayReport(self.table, number, self.name, kind, key, body))
