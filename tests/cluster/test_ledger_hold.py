"""The bet close waits for the coin ledger (in-memory bus, SQLite ledger): while the coordinator's
database probe fails at the end of the betting window, it holds the close (``betting_held``,
said again every notice period), then gives a short window once the database answers, and the
round plays with every gateway's stakes instead of being cancelled; a gateway whose earlier
settlement was still being written joins the held round once it lands; past the hold's limit the
round is cancelled for the ledger as before. After each: every wallet at grant plus its nets,
the books clean."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger.outage import RETRY_LONGEST_WAIT_SECONDS
from boundless.server.cluster.coordinator import NO_STAKES_REASON
from boundless.server.cluster.ledger_hold import AWAY_REASON, BACK_REASON, HoldTimers
from boundless.server.cluster.ledger_slice import ClusterLedger
from boundless.server.cluster.protocol import Public
from boundless.server.cluster.takeover import round_in_flight
from tests.cluster.conftest import run
from tests.cluster.harness import log_of
from tests.cluster.players import ledger_sessions
from tests.cluster.test_gateway_ledger_trouble import locked
from tests.cluster.test_table_without_database import TIMERS, Table, wait_for_event

HOLD = HoldTimers(hold_seconds=6.0, back_seconds=0.3, notice_seconds=0.4, probe_seconds=0.05)
HELD_TIMERS = replace(TIMERS, ledger_hold=HOLD)


@pytest.fixture
def sessions(tmp_path: Any) -> sessionmaker[Session]:
    return ledger_sessions(tmp_path)


class Cut:
    """The database as the coordinator's probe and the bots' stakes see it: away until lifted."""

    def __init__(self) -> None:
        self.lifted = asyncio.Event()

    async def answers(self) -> bool:
        return self.lifted.is_set()


def held_events(events: list[Any], round_number: int) -> list[dict[str, Any]]:
    return [
        s.event.body
        for s in events
        if s.event.kind == Public.BETTING_HELD and s.event.round_number == round_number
    ]


def test_a_bet_close_waits_for_the_ledger_and_the_round_plays(
    sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database is away through round 1's bet close for about 1.5 s: the close is held,
    said again while it lasts, then the bots stake and the round settles; nothing cancelled."""
    table = Table(sessions, "hold-1")
    cut = Cut()
    real_stake = ClusterLedger.stake
    stakes_refused: list[int] = []

    def stake(self: ClusterLedger, table_id: str, round_no: int, orders: Any) -> None:
        if not cut.lifted.is_set():
            stakes_refused.append(round_no)
            raise locked("stake")
        real_stake(self, table_id, round_no, orders)

    async def lift_later() -> None:
        await wait_for_event(table.bus, table.table_id, Public.BETTING_HELD, 1)
        await asyncio.sleep(1.5)
        cut.lifted.set()

    async def body() -> None:
        lifting = asyncio.ensure_future(lift_later())
        await table.play(2, hold=cut.answers, timers=HELD_TIMERS)
        await lifting

    monkeypatch.setattr(ClusterLedger, "stake", stake)
    run(body(), timeout=60)
    events = run(log_of(table.bus, table.table_id))
    assert not [s for s in events if s.event.kind == Public.ROUND_CANCELLED]
    assert not stakes_refused  # nothing was even tried while the database was away
    held = held_events(events, 1)
    assert [h["ledger"] for h in held[:-1]] == ["away"] * (len(held) - 1)
    assert len(held) >= 3  # said again while it lasted (every 0.4 s for about 1.5 s)
    assert held[0]["reason"] == AWAY_REASON and held[0]["timer"]["deadline_ms"] is None
    assert held[-1]["ledger"] == "back" and held[-1]["reason"] == BACK_REASON
    assert isinstance(held[-1]["timer"]["deadline_ms"], int)
    assert 1.0 <= held[-1]["held_seconds"] < HOLD.hold_seconds
    assert not held_events(events, 2)  # the database answered at round 2's close
    closed = [s.event.body for s in events if s.event.kind == Public.ROUND_CLOSED]
    assert closed == [{"settled": ["a", "b"], "dropped": []}] * 2
    table.check_coins(run(table.settled_nets()))
    # The players were told once when the hold began and once when it ended.
    for gateway in table.gateways:
        kinds = [m["kind"] for m in gateway.clients[0].seen if m["type"] == "notice"]
        assert kinds.count("ledger_away") == 1 and kinds.count("ledger_back") == 1


def test_a_gateway_whose_settlement_lands_during_the_hold_plays_the_held_round(
    sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gateway a's round-1 settlement waits for the database (reported ``settling``); round 2
    opens meanwhile and a waits it out; the database comes back during round 2's held bet close:
    a's settlement lands, a joins round 2 and both gateways play it."""
    table = Table(sessions, "hold-2")
    cut = Cut()
    real_settle = ClusterLedger.settle

    async def settle(self: ClusterLedger, table_id: str, round_no: int, *args: Any) -> None:
        if self.owner == "a" and round_no == 1:
            await cut.lifted.wait()
        await real_settle(self, table_id, round_no, *args)

    async def lift_later() -> None:
        await wait_for_event(table.bus, table.table_id, Public.BETTING_HELD, 2)
        await asyncio.sleep(0.5)
        cut.lifted.set()

    async def coordinator_answers() -> bool:
        # Round 1's close finds the database answering (it is a's write that waits); from
        # round 2 on, the probe sees the cut.
        events = await log_of(table.bus, table.table_id)
        if not any(s.event.kind == Public.ROUND_CLOSED for s in events):
            return True
        return await cut.answers()

    async def body() -> None:
        lifting = asyncio.ensure_future(lift_later())
        await table.play(3, answers=cut.answers, hold=coordinator_answers, timers=HELD_TIMERS)
        await lifting

    monkeypatch.setattr(ClusterLedger, "settle", settle)
    run(body(), timeout=60)
    events = run(log_of(table.bus, table.table_id))
    closed = {s.event.round_number: s.event.body for s in events
              if s.event.kind == Public.ROUND_CLOSED}  # fmt: skip
    assert closed[1] == {"settled": ["b"], "settling": ["a"], "dropped": []}
    assert closed[2] == {"settled": ["a", "b"], "dropped": []}
    assert closed[3] == {"settled": ["a", "b"], "dropped": []}
    assert not [s for s in events if s.event.kind == Public.ROUND_CANCELLED]
    slices = [s.event.body["gateways"] for s in events if s.event.kind == Public.SLICES]
    assert slices == [["a", "b"]] * 3
    assert held_events(events, 2)[-1]["ledger"] == "back"
    assert [f.sat_out for f in table.followers] == [0, 0]
    table.check_coins(run(table.settled_nets()))


def test_a_write_waiting_for_the_database_is_tried_again_inside_the_reopened_betting() -> None:
    """The test above lifts the cut by hand; a real write waits out the cut in the ledger's
    retry pauses. Once the database answers, the held close reopens ``back_seconds`` of betting;
    the waiting settlement lands after at most one pause and its own write, so the pause must
    leave room for that write inside the window (with 5 s pauses every gateway sat 4 rounds out
    in a 10-minute chaos run, each round then cancelled for the ledger)."""
    assert HoldTimers().back_seconds >= 2 * RETRY_LONGEST_WAIT_SECONDS


def test_past_the_hold_limit_the_round_is_cancelled_for_the_ledger(
    sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database stays away past the hold's limit at round 1's close: the close goes ahead,
    every stake is refused, the round is cancelled saying the ledger was why; round 2 plays."""
    table = Table(sessions, "hold-3")
    cut = Cut()
    real_stake = ClusterLedger.stake

    def stake(self: ClusterLedger, table_id: str, round_no: int, orders: Any) -> None:
        if round_no == 1:
            cut.lifted.set()  # the database comes back just after the stakes were refused
            raise locked("stake")
        real_stake(self, table_id, round_no, orders)

    short = replace(TIMERS, ledger_hold=replace(HOLD, hold_seconds=1.0))
    monkeypatch.setattr(ClusterLedger, "stake", stake)
    run(table.play(2, hold=cut.answers, timers=short), timeout=60)
    events = run(log_of(table.bus, table.table_id))
    cancelled = [s.event for s in events if s.event.kind == Public.ROUND_CANCELLED]
    assert [(e.round_number, e.body["reason"]) for e in cancelled] == [(1, NO_STAKES_REASON)]
    assert {h["ledger"] for h in held_events(events, 1)} == {"away"}
    closed = [s.event.body for s in events if s.event.kind == Public.ROUND_CLOSED]
    assert closed == [{"settled": ["a", "b"], "dropped": []}]
    table.check_coins(run(table.settled_nets()))


def test_a_successor_continues_a_held_bet_close_from_its_last_timer() -> None:
    """A coordinator that takes over during a hold reads the window's timer from the last
    ``betting_held`` (frozen: no deadline, so its own bet close comes at once, held again if the
    database is still away)."""
    from boundless.server.cluster.bus import RoundEvent, StoredEvent
    from boundless.server.event_codec import encode_event
    from tests.cluster.harness import dealer_maker

    opened = dealer_maker(7)(1).opened
    body = encode_event(opened) | {"timer": {"kind": "betting", "deadline_ms": 10**15}}
    held = {"ledger": "away", "timer": {"kind": "betting", "deadline_ms": None}}

    def stored(seq: int, kind: Public, payload: dict[str, Any]) -> StoredEvent:
        return StoredEvent(seq, 1, RoundEvent("t", 1, seq - 1, kind, payload))

    flight = round_in_flight([stored(1, Public.TABLE, body)])
    assert flight is not None and flight.seconds_left() > 1000
    flight = round_in_flight([stored(1, Public.TABLE, body), stored(2, Public.BETTING_HELD, held)])
    assert flight is not None and flight.seconds_left() == 0.0 and not flight.betting_closed
