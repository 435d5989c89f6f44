"""A gateway's side of a table: follow the coordinator's events, run this gateway's slice, report.

Each round gets a fresh :class:`~boundless.server.cluster.slices.SliceSide` (this gateway's
follower round). The gateway answers every close with a report whose id names the gateway,
round, kind and key, so a resend is harmless; it takes each event once, in log order, however
often the bus delivers it. A gateway that starts while a round is in flight replays that round
from its first event: while betting is open it joins the round; later it only follows it (it
holds no positions in it: a previous life's slice is cancelled by that owner's recovery) and
joins from the next round.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, cast

from boundless.core.round import events as ev
from boundless.core.round.phases import INSURANCE
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


class Gateway:
    def __init__(self, bus: Bus, table: str, name: str, new_slice: SliceMaker) -> None:
        self.bus, self.table, self.name = bus, table, name
        self._new_slice = new_slice
        self.round_number = 0
        self.slice: SliceSide | None = None
        """This gateway's positions in the round in progress; ``None`` between rounds."""
        self.public: list[StoredEvent] = []
        """The current round's events so far (what a newly connected player is shown)."""
        self.rounds_ended = 0
        self._holding = False
        self._decision_key: int | None = None

    async def run(self, *, rounds: int | None = None) -> None:
        """Follow the table (``rounds``: stop after this many rounds have ended)."""
        replayed = await self.bus.replay_round(self.table)
        from_seq = 1
        if replayed:
            from_seq = replayed[0].seq
            if len(replayed) > 1 or replayed[-1].event.kind in ROUND_ENDS:
                # Too late to bet in this round: show it, hold no positions, join the next.
                self.public = replayed
                self.round_number = replayed[-1].event.round_number
                from_seq = replayed[-1].seq + 1
        async for stored in in_sequence(self.bus.events(self.table, from_seq=from_seq)):
            await self._take(stored)
            if rounds is not None and self.rounds_ended >= rounds:
                return

    async def decision_made(self) -> None:
        """A player of this gateway acted: tell the coordinator once all of them have."""
        key = self._decision_key
        if self.slice is not None and key is not None and self.slice.all_decided():
            await self._report(ReportKind.DECIDED, key, {})

    async def _take(self, stored: StoredEvent) -> None:
        event = stored.event
        kind = Public(event.kind)
        body = event.body
        table_event: ev.TableEvent | None = None
        if kind is Public.TABLE:
            decoded = decode_event(cast(dict[str, Any], body))
            if not isinstance(decoded, ev.TABLE_EVENT_TYPES):
                raise ValueError(f"{type(decoded).__name__} is not a table event")
            table_event = cast(ev.TableEvent, decoded)
            if isinstance(table_event, ev.RoundOpened):
                self.round_number, self.public = event.round_number, []
                self.slice = self._new_slice(event.round_number, table_event)
                self._holding = False
                self._decision_key = None
        self.public.append(stored)
        if event.round_number != self.round_number:
            return
        if kind in ROUND_ENDS:
            self._end(kind, body)
            return
        mine = self.slice
        if mine is None:
            return  # following a round this gateway holds no positions in
        if table_event is not None and not isinstance(table_event, ev.RoundOpened):
            await self._apply(mine, table_event)
        elif kind is Public.BETTING_CLOSED:
            bets = mine.bets_report()
            self._holding = bool(bets.spots)
            await self._report(
                ReportKind.BETS_CLOSED,
                0,
                {"spots": sorted(bets.spots), "seated_spots": sorted(bets.seated_spots)},
            )
        elif kind is Public.SLICES:
            if self.name not in cast(list[str], body.get("gateways", [])):
                if self._holding:
                    self._drop("this gateway's bets were not in the deal")
                self.slice = None  # nothing of ours in this round
        elif kind is Public.STEP_CLOSED:
            report = mine.step_report()
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
            await self._report(ReportKind.SETTLED, 0, await mine.settle())
            self.slice = None
        elif kind is Public.GATEWAY_DROPPED and body.get("gateway") == self.name:
            self._drop(f"this gateway missed its {body.get('missed')} report")

    async def _apply(self, mine: SliceSide, table_event: ev.TableEvent) -> None:
        mine.apply(table_event)
        if isinstance(table_event, ev.StepOpened):
            self._decision_key = step_key(table_event.spot, table_event.step)
            await self.decision_made()
        elif isinstance(table_event, ev.CardsDealt) and _in_insurance(mine):
            self._decision_key = INSURANCE_KEY
            await self.decision_made()

    def _end(self, kind: Public, body: JsonBody) -> None:
        if self.slice is not None:
            reason = str(body.get("reason", "the round closed without this gateway's slice"))
            self._drop(reason)
        self.rounds_ended += 1
        self._decision_key = None

    def _drop(self, reason: str) -> None:
        if self.slice is not None:
            log.warning(
                "gateway %s: round %s slice cancelled: %s", self.name, self.round_number, reason
            )
            self.slice.cancel(reason)
            self.slice = None

    async def _report(self, kind: ReportKind, key: int, body: JsonBody) -> None:
        await self.bus.report(
            GatewayReport(self.table, self.round_number, self.name, kind, key, body)
        )


def _in_insurance(mine: SliceSide) -> bool:
    follower = getattr(mine, "follower", None)
    return follower is not None and follower.phase == INSURANCE
