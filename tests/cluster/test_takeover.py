"""A standby coordinator takes over a round in flight and continues it: the same cards, the same
steps, every slice settled; the players end exactly as in one shared round on the same shoe.

The in-memory bus, gateways and followers of ``harness``; the first coordinator is cancelled
(like kill -9: no goodbye, its lease left to lapse) when the log reaches a chosen point.
"""

from __future__ import annotations

import asyncio
import sqlite3
from dataclasses import replace

import pytest
from sqlalchemy.exc import OperationalError

from boundless.core.round.dealer_table import TableDealer
from boundless.server.cluster import MemoryBus
from boundless.server.cluster.bus import JsonBody
from boundless.server.cluster.coordinator import STOP_REASON, Coordinator
from boundless.server.cluster.protocol import Public
from boundless.server.cluster.takeover import TAKEOVER_REASON, CannotContinue
from tests.cluster.conftest import run
from tests.cluster.harness import (
    FAST,
    RULES,
    TABLE,
    ClusterRun,
    gateways_for,
    log_of,
    play_alone,
    shoe,
)

BETS = [(f"p{i}", 100 * (i + 1)) for i in range(5)]


class SeededShoes:
    """Each round's dealer on the harness's seeded shoe; dealt again from the round's mark
    (what ``StoredShoes`` does with the shoe stored in the database)."""

    def __init__(self, seed: int, *, forget: bool = False, away: int = 0) -> None:
        self.seed, self.round, self.forget = seed, 0, forget
        self.away = away
        """How many reads of the stored shoe find the database away first."""

    def __call__(self, round_number: int) -> TableDealer:
        self.round = round_number
        return TableDealer(RULES, cards=shoe(self.seed + round_number))

    def round_mark(self) -> JsonBody:
        return {"deal_round": self.round}

    def resume(self, mark: JsonBody) -> TableDealer:
        if self.forget:
            raise CannotContinue("its shoe is gone")
        if self.away:
            self.away -= 1
            raise OperationalError("shoe", {}, sqlite3.OperationalError("database is locked"))
        return TableDealer(RULES, cards=shoe(self.seed + int(str(mark["deal_round"]))))


POINTS = {
    "betting open": (Public.TABLE, "RoundOpened"),
    "bets closed": (Public.BETTING_CLOSED, None),
    "slices": (Public.SLICES, None),
    "step closed": (Public.STEP_CLOSED, None),
    "step dealt": (Public.TABLE, "StepDealt"),
    "settling": (Public.ROUND_SETTLING, None),
}


async def take_over(
    seed: int, kind: str, table_type: str | None, *, forget: bool = False, away: int = 0
) -> tuple[ClusterRun, list]:  # type: ignore[type-arg]
    bus = MemoryBus(lease_seconds=0.3)
    cluster = ClusterRun()
    names = frozenset({"a", "b"})
    dealt = SeededShoes(seed)
    first = Coordinator(bus, TABLE, "c1", dealt, FAST, gateways=names, resume=dealt)
    shoes = SeededShoes(seed, forget=forget, away=away)
    standby = Coordinator(bus, TABLE, "c2", shoes, FAST, gateways=names, resume=shoes)
    gateways = gateways_for(bus, cluster, {"a": BETS[:2], "b": BETS[2:]})
    following = [asyncio.ensure_future(g.run(rounds=1)) for g in gateways.values()]
    leading = asyncio.ensure_future(first.run())
    await first.active.wait()
    standing_by = asyncio.ensure_future(standby.run(rounds=1))
    async for stored in bus.events(TABLE, from_seq=1):
        event = stored.event
        if event.kind == kind and (table_type is None or event.body.get("type") == table_type):
            leading.cancel()  # the active coordinator dies here, its lease unreleased
            break
    await asyncio.wait_for(asyncio.gather(standing_by, *following), 60)
    return cluster, await log_of(bus)


@pytest.mark.parametrize("point", sorted(POINTS))
def test_the_standby_continues_the_round_with_the_same_cards(point: str) -> None:
    seed = 5
    cluster, log = run(take_over(seed, *POINTS[point]))
    kinds = [s.event.kind for s in log]
    assert Public.ROUND_CANCELLED not in kinds
    assert kinds[-1] == Public.ROUND_CLOSED
    assert log[-1].event.body == {"settled": ["a", "b"], "dropped": []}
    assert {s.event.round_number for s in log} == {1}
    assert cluster.results() == play_alone(BETS, seed=seed)
    for name in ("a", "b"):
        (only,) = cluster.slices[name]
        assert only.settled == 1 and only.cancelled is None


def test_the_standby_waits_for_the_ledger_to_read_the_stored_shoe() -> None:
    """The database is away when the standby takes over mid-step: it reads the stored shoe
    again until it answers and continues the round (before, the read's error stopped it)."""
    seed = 5
    cluster, log = run(take_over(seed, Public.STEP_CLOSED, None, away=3))
    kinds = [s.event.kind for s in log]
    assert Public.ROUND_CANCELLED not in kinds
    assert log[-1].event.body == {"settled": ["a", "b"], "dropped": []}
    assert cluster.results() == play_alone(BETS, seed=seed)


def test_a_round_that_cannot_be_dealt_on_is_cancelled_saying_why() -> None:
    cluster, log = run(take_over(5, Public.STEP_CLOSED, None, forget=True))
    first_round = [s.event for s in log if s.event.round_number == 1]
    (cancelled,) = [e for e in first_round if e.kind == Public.ROUND_CANCELLED]
    reason = str(cancelled.body["reason"])
    assert reason.startswith(TAKEOVER_REASON) and "its shoe is gone" in reason
    for name in ("a", "b"):
        (only,) = cluster.slices[name]
        assert only.cancelled and only.settled == 0


def test_an_orderly_stop_cancels_the_round_in_flight_and_gives_the_lease_back() -> None:
    async def body() -> tuple[ClusterRun, list, str | None]:  # type: ignore[type-arg]
        bus = MemoryBus(lease_seconds=0.3)
        cluster = ClusterRun()
        dealt = SeededShoes(5)
        timers = replace(FAST, betting_seconds=2.0)
        coordinator = Coordinator(
            bus, TABLE, "c1", dealt, timers, gateways=frozenset({"a", "b"}), resume=dealt
        )
        gateways = gateways_for(bus, cluster, {"a": BETS[:2], "b": BETS[2:]})
        following = [asyncio.ensure_future(g.run(rounds=1)) for g in gateways.values()]
        leading = asyncio.ensure_future(coordinator.run())
        async for stored in bus.events(TABLE, from_seq=1):
            if stored.event.kind == Public.TABLE:  # the betting window is open
                coordinator.stop()  # SIGTERM
                break
        await asyncio.wait_for(asyncio.gather(leading, *following), 30)
        return cluster, await log_of(bus), await bus.lease_holder(TABLE)

    cluster, log, holder = run(body())
    assert holder is None
    ended = log[-1].event
    assert ended.kind == Public.ROUND_CANCELLED and ended.body["reason"] == STOP_REASON
    for name in ("a", "b"):
        (only,) = cluster.slices[name]
        assert only.cancelled and only.settled == 0


class LateBetsLedger:
    """A ledger whose round still holds slices staked by gateways that reported too late."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def open_round(self, table: str, round_no: int) -> None:
        self.calls.append("open")

    async def end_round(self, table: str, round_no: int) -> None:
        from boundless.ledger.errors import SlicesStillOpenError

        self.calls.append("end")
        raise SlicesStillOpenError(table, round_no, ["gateway-1"])

    async def cancel_round(self, table: str, round_no: int) -> None:
        self.calls.append("cancel")

    async def cancel_slice(self, table: str, round_no: int, owner: str) -> None:
        self.calls.append("cancel_slice")


def test_a_round_without_bets_in_time_refunds_the_stakes_written_after_the_close() -> None:
    """Nobody's bets reached the close in time, but a gateway had staked them: the round is not
    left open in the ledger with those stakes in play; it is cancelled (the stakes refunded)."""

    async def body() -> tuple[list[str], list]:  # type: ignore[type-arg]
        bus = MemoryBus()
        ledger = LateBetsLedger()
        coordinator = Coordinator(bus, TABLE, "c1", SeededShoes(5), FAST, ledger=ledger)
        await coordinator.run(rounds=1)
        return ledger.calls, await log_of(bus)

    calls, log = run(body())
    assert log[-1].event.kind == Public.ROUND_CANCELLED
    assert log[-1].event.body["reason"] == "no bets were placed"
    assert calls == ["open", "end", "cancel"]
