"""A gateway's side of a table: follow the coordinator's events, run this gateway's slice, report.

Each round gets a fresh :class:`~boundless.server.cluster.protocol.SliceSide` (this gateway's
positions). The gateway answers every close with a report whose id names the gateway, round,
kind and step, so a resend is harmless; it takes each event once, in log order, however often the
bus delivers it. A gateway that starts while a round is in flight replays that round from its
first event: while betting is open it joins the round; later it only shows the round (it holds
no positions in it; a previous life's slice is cancelled by that owner's recovery) and joins
from the next.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import cast

from boundless.server.cluster.bus import (
    Bus,
    GatewayReport,
    JsonBody,
    ReportKind,
    StoredEvent,
    in_sequence,
)
from boundless.server.cluster.protocol import ROUND_ENDS, Public, SliceSide, StepPlan

log = logging.getLogger("boundless.cluster.gateway")


class Gateway:
    def __init__(
        self, bus: Bus, table: str, name: str, new_slice: Callable[[int], SliceSide]
    ) -> None:
        self.bus, self.table, self.name = bus, table, name
        self._new_slice = new_slice
        self.round_number = 0
        self.slice: SliceSide | None = None
        """This gateway's positions in the round in progress; ``None`` between rounds."""
        self.step: int | None = None
        self.public: list[StoredEvent] = []
        """The current round's public events so far (what a newly connected player is shown)."""
        self.rounds_ended = 0
        self._holding = False

    async def run(self, *, rounds: int | None = None) -> None:
        """Follow the table (``rounds``: stop after this many rounds have ended)."""
        replayed = await self.bus.replay_round(self.table)
        from_seq = 1
        if replayed:
            from_seq = replayed[0].seq
            if replayed[-1].event.kind not in (*ROUND_ENDS, Public.ROUND_OPENED):
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
        if self.slice is not None and self.step is not None and self.slice.all_decided(self.step):
            await self._report(ReportKind.DECIDED, self.step, {})

    async def _take(self, stored: StoredEvent) -> None:
        event = stored.event
        kind = Public(event.kind)
        body = event.body
        if kind is Public.ROUND_OPENED:
            self.round_number, self.public = event.round_number, []
            self.slice, self.step = self._new_slice(event.round_number), None
        self.public.append(stored)
        if event.round_number != self.round_number:
            return
        if kind in ROUND_ENDS:
            self._end(kind, body)
            return
        mine = self.slice
        if mine is None:
            return  # following a round this gateway holds no positions in
        if kind is Public.BETTING_CLOSED:
            positions = mine.close_bets()
            self._holding = any(positions.values())
            report = {"positions": {str(spot): n for spot, n in positions.items() if n}}
            await self._report(ReportKind.BETS_CLOSED, 0, report)
        elif kind is Public.DEALT:
            if self.name in cast(list[str], body.get("gateways", [])):
                mine.deal(body)
            elif self._holding:
                self._drop("this gateway's bets were not in the deal")
            else:
                self.slice = None  # no positions this round: nothing to play or refund
        elif kind is Public.STEP_OPENED:
            step = _int(body, "step")
            self.step = step
            mine.open_step(StepPlan(step=step, spot=_int(body, "spot"), body=body))
            await self.decision_made()
        elif kind is Public.STEP_CLOSED:
            step = _int(body, "step")
            takers, playing = mine.close_step(step)
            await self._report(ReportKind.TAKERS, step, {"takers": takers, "playing": playing})
        elif kind is Public.STEP_CARD:
            step = _int(body, "step")
            if _int(body, "takers"):
                mine.apply_card(step, cast(JsonBody, body.get("card", {})))
                await self._report(ReportKind.APPLIED, step, {})
            self.step = None
        elif kind is Public.DEALER_PLAYED:
            mine.dealer_played(body)
        elif kind is Public.ROUND_SETTLING:
            await self._report(ReportKind.SETTLED, 0, mine.settle())
            self.slice = None
        elif kind is Public.GATEWAY_DROPPED and body.get("gateway") == self.name:
            self._drop(f"this gateway missed its {body.get('missed')} report")

    def _end(self, kind: Public, body: JsonBody) -> None:
        if self.slice is not None:
            reason = str(body.get("reason", "the round was cancelled"))
            self._drop(reason if kind is Public.ROUND_CANCELLED else "the round closed without it")
        self.rounds_ended += 1
        self.step = None

    def _drop(self, reason: str) -> None:
        if self.slice is not None:
            log.warning(
                "gateway %s: round %s slice cancelled: %s", self.name, self.round_number, reason
            )
            self.slice.cancel(reason)
            self.slice = None

    async def _report(self, kind: ReportKind, step: int, body: JsonBody) -> None:
        await self.bus.report(
            GatewayReport(self.table, self.round_number, self.name, kind, step, body)
        )


def _int(body: JsonBody, name: str) -> int:
    value = body.get(name)
    if not isinstance(value, int):
        raise ValueError(f"round event field {name!r} must be an integer, got {value!r}")
    return value
