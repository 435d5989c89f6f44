"""A gateway never dies of the ledger (in-memory bus, SQLite ledger): a ledger failure at the bet
close makes it sit that round out (its players refunded and told once, no spot reported) and
play the next; a player seen before still signs in while the database is away; the wallet read
at a step close failing means the step's doubles and splits fall back, not a crash."""

from __future__ import annotations

import asyncio
import sqlite3
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from boundless.core.round import events as ev
from boundless.core.round.follower import FollowerRound
from boundless.ledger import LedgerService, check_books
from boundless.server.cluster import MemoryBus
from boundless.server.cluster.ledger_slice import ClusterLedger, LedgerSlice
from boundless.server.cluster.protocol import Public
from boundless.server.cluster.slices import PairSlice, SliceSide
from boundless.server.players.service import PlayerService
from boundless.server.tables.money import TableMoney
from tests.cluster.conftest import run
from tests.cluster.harness import CHART, FAST, RULES, log_of
from tests.cluster.players import (
    GRANT,
    POLICIES,
    PlayerClient,
    Style,
    gateway_players,
    ledger_sessions,
    play_cluster,
    sign_up,
    wallets,
)

TIMERS = replace(FAST, betting_seconds=0.4, decision_seconds=0.5, insurance_seconds=0.5)
BOT_GRANT = 50_000


def locked(statement: str) -> OperationalError:
    """What SQLAlchemy raises when the database cannot be had (SQLite's busy lock)."""
    return OperationalError(statement, {}, sqlite3.OperationalError("database is locked"))


@pytest.fixture
def sessions(tmp_path: Any) -> sessionmaker[Session]:
    return ledger_sessions(tmp_path)


def test_a_ledger_failure_at_the_bet_close_sits_the_round_out_and_the_next_round_plays(
    sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gateway a's players' part is staked, then its bots' stake fails (the measured crash: the
    bots' part cancelled while the players' part was in play). Gateway a reports nothing, its
    players' part is refunded once and its player told; round 2 plays on both gateways."""
    table_id = "trouble-1"
    style = Style(1000, POLICIES[0], insures=False, resends=False)
    a, b = gateway_players(sessions, table_id, "a"), gateway_players(sessions, table_id, "b")
    ids = {}
    for gateway in (a, b):
        name = f"player-{gateway.name}"
        ids[gateway.name], token = sign_up(sessions, name)
        gateway.clients.append(PlayerClient(name, token, style, gateway.handler))
    bot_ledger = ClusterLedger(sessions, "a")
    bot_ledger.grant_once(["bot-a"], BOT_GRANT)
    bots: list[LedgerSlice] = []
    real_stake = ClusterLedger.stake

    def stake(self: ClusterLedger, table: str, round_no: int, orders: Any) -> None:
        if self.owner == "a" and round_no == 1:
            raise locked("stake")
        real_stake(self, table, round_no, orders)

    monkeypatch.setattr(ClusterLedger, "stake", stake)

    def a_slice(round_number: int, opened: ev.RoundOpened) -> SliceSide:
        follower = FollowerRound(RULES, opened, chart=CHART)
        follower.place_bet("bot-a", 1, 100, {}, free_amount=BOT_GRANT)
        bot = LedgerSlice(follower, bot_ledger, table_id)
        bot.round_no = round_number
        bots.append(bot)
        return PairSlice([a.table.new_slice(round_number, opened), bot])

    a.new_slice = a_slice  # type: ignore[method-assign]
    bus = MemoryBus()
    run(play_cluster(bus, [a, b], table_id=table_id, seed=7, timers=TIMERS, rounds=2), timeout=60)
    events = run(log_of(bus, table_id))
    slices = [s.event.body["gateways"] for s in events if s.event.kind == Public.SLICES]
    assert slices == [["b"], ["a", "b"]]
    assert not [s for s in events if s.event.kind == Public.GATEWAY_DROPPED]
    (refused, played) = a.clients[0].settled
    assert refused["round_id"] == f"{table_id}:1" and refused["cancelled"]
    assert refused["staked"] == refused["paid"] == 1000 and refused["net"] == 0
    assert "cancelled" not in played and played["round_id"] == f"{table_id}:2"
    ended = wallets(sessions, [ids["a"], ids["b"]])
    assert ended[ids["a"]] == played["balance"] == GRANT + played["net"]
    assert ended[ids["b"]] == GRANT + sum(told["net"] for told in b.clients[0].settled)
    assert bots[0].cancelled is not None and "ledger is away" in bots[0].cancelled
    with sessions.begin() as session:
        ledger = LedgerService(session)
        owners = {(s.owner, s.status) for s in ledger.slices_of(table_id, 1)}
        assert owners == {("a:players", "cancelled"), ("b:players", "settled")}
        bot_net = int(bots[1].follower.final_payouts()[0]) - int(bots[1].follower.staked()[0])
        assert ledger.wallet_balances(["bot-a"])["bot-a"] == BOT_GRANT + bot_net
        report = check_books(session)
    assert report.ok, report.summary()


def test_a_player_seen_before_signs_in_while_the_database_is_away(
    sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    table_id = "trouble-2"
    gateway = gateway_players(sessions, table_id, "a")
    style = Style(1000, POLICIES[0], insures=False, resends=False)
    _, token = sign_up(sessions, "known")
    _, stranger = sign_up(sessions, "stranger")
    first = PlayerClient("known", token, style, gateway.handler)

    async def hello(client: PlayerClient) -> None:
        await client.sit(table_id)

    run(hello(first))
    (welcome,) = [m for m in first.seen if m["type"] == "welcome"]

    def away(self: PlayerService, token: str | None) -> Any:
        raise locked("authenticate")

    monkeypatch.setattr(PlayerService, "authenticate", away)
    again = PlayerClient("known", token, style, gateway.handler)
    run(hello(again))
    (back,) = [m for m in again.seen if m["type"] == "welcome"]
    assert back["player"] == welcome["player"]  # the wallet as last read
    assert [m["type"] for m in again.seen].count("state") == 1  # joined: watching the table
    unknown = PlayerClient("stranger", stranger, style, gateway.handler)
    run(hello(unknown))
    assert [e["error"] for e in unknown.errors][:1] == ["ledger_unavailable"]
    assert not [m for m in unknown.seen if m["type"] == "welcome"]


class DoublingRound:
    """The few parts of a round a step close reads: one position, its player about to double."""

    def __init__(self) -> None:
        self.free: list[tuple[list[str], list[int]]] = []

    def pending_action(self, position: int) -> int:
        from boundless.core.round import Action

        return int(Action.DOUBLE)

    def set_free_coins(self, players: list[str], amounts: list[int]) -> None:
        self.free.append((list(players), list(amounts)))


def test_the_wallet_read_at_a_step_close_failing_makes_doubles_fall_back(
    sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The measured crash (an OperationalError from the wallet read at the step close): the
    step's doubles and splits now count no free coins (they fall back as for a short wallet)."""
    table = gateway_players(sessions, "trouble-3", "a").table
    monkeypatch.setattr(TableMoney, "coins_in_doubt", lambda *_: ["p1"])

    def away(self: LedgerService, players: Any) -> Any:
        raise locked("wallets")

    monkeypatch.setattr(LedgerService, "wallet_balances", away)
    doubling = DoublingRound()
    asyncio.run(table.refresh_doubtful_coins(doubling, np.array([0])))  # type: ignore[arg-type]
    assert doubling.free == [(["p1"], [0])]
    monkeypatch.setattr(LedgerService, "wallet_balances", lambda self, players: {"p1": 700})
    monkeypatch.setattr(TableMoney, "uncredited", lambda *_: {})
    asyncio.run(table.refresh_doubtful_coins(doubling, np.array([0])))  # type: ignore[arg-type]
    assert doubling.free[-1] == (["p1"], [700])  # the database back: the wallet as it is


def test_a_refunded_part_of_a_pair_reports_and_settles_nothing() -> None:
    """The bots' part refunded while the players' part plays on: the pair's step report and
    settlement count the live part only (before, the cancelled part raised ``PhaseError``)."""
    from boundless.server.cluster.slices import FollowerSlice
    from tests.cluster.harness import dealer_maker

    dealer = dealer_maker(7)(1)
    parts = []
    for player in ("p1", "bot"):
        follower = FollowerRound(RULES, dealer.opened, chart=CHART)
        follower.place_bet(player, 1, 100, {}, free_amount=1000)
        parts.append(FollowerSlice(follower))
    pair = PairSlice(parts)

    async def play() -> None:
        reports = [await part.bets_report() for part in parts]
        await parts[1].cancel("the ledger is away")
        assert pair.seats() == (1, 1)
        for event in dealer.close_bets([reports[0]]):
            await pair.apply(event)
        while not dealer.done:
            if dealer.phase == "insurance":
                events = dealer.close_insurance()
            else:
                events = dealer.close_step([await pair.step_report()])
            for event in events:
                await pair.apply(event)
        assert await pair.settle() == {"positions": 1}

    asyncio.run(play())


def test_a_gateway_lost_during_betting_is_dropped_at_the_bet_close_and_refunded_once(
    sessions: sessionmaker[Session],
) -> None:
    """Gateway b plays round 1, then dies during round 2's betting with its player's stake
    written: the coordinator drops it at the bet close, refunds that stake once and records it;
    the player, back on gateway a, is told once; a's player plays on."""
    from boundless.server.cluster.coordinator import Coordinator
    from boundless.server.cluster.gateway import Gateway
    from boundless.server.cluster.slice_records import SliceRecords
    from tests.cluster.harness import dealer_maker

    table_id = "trouble-4"
    style = Style(1000, POLICIES[0], insures=False, resends=False)
    a, b = gateway_players(sessions, table_id, "a"), gateway_players(sessions, table_id, "b")
    ids = {}
    for gateway in (a, b):
        name = f"player-{gateway.name}"
        ids[gateway.name], token = sign_up(sessions, name)
        gateway.clients.append(PlayerClient(name, token, style, gateway.handler))
    bus = MemoryBus()

    async def body() -> PlayerClient:
        follow_a = Gateway(bus, table_id, "a", a.new_slice, watcher=a.table)
        follow_b = Gateway(bus, table_id, "b", b.new_slice, watcher=b.table)
        a.table.gateway, b.table.gateway = follow_a, follow_b
        for client in a.clients + b.clients:
            await client.sit(table_id)
        coordinator = Coordinator(
            bus, table_id, "c1", dealer_maker(3), replace(TIMERS, report_seconds=0.5),
            gateways=frozenset({"a", "b"}), ledger=ClusterLedger(sessions, "c1"),
            records=SliceRecords(sessions),
        )  # fmt: skip
        doomed = asyncio.ensure_future(follow_b.run())

        def staked_in_round_2() -> bool:
            return any(m["type"] == "ack" and m.get("round_id") == f"{table_id}:2"
                       for m in b.clients[0].seen)  # fmt: skip

        async def kill_b_during_betting() -> None:
            async for stored in bus.events(table_id, from_seq=1):
                if stored.event.round_number == 2 and not doomed.done():
                    for _ in range(100):
                        if staked_in_round_2():
                            break
                        await asyncio.sleep(0.01)
                    doomed.cancel()  # like kill -9: no goodbye, no more reports
                    for client in b.clients:
                        b.handler.forget(client)
                    return

        await asyncio.gather(coordinator.run(rounds=2), follow_a.run(rounds=2),
                             kill_b_during_betting())  # fmt: skip
        back = PlayerClient("player-b", b.clients[0].token, style, a.handler)
        await back.sit(table_id)
        await asyncio.sleep(0.1)  # what a tells at hello has gone out
        return back

    back = run(body(), timeout=60)
    events = run(log_of(bus, table_id))
    dropped = [s.event for s in events if s.event.kind == Public.GATEWAY_DROPPED]
    assert [(e.round_number, e.body["gateway"], e.body["missed"]) for e in dropped] == [
        (2, "b", "bets_closed")
    ]
    (told,) = back.settled
    assert told["round_id"] == f"{table_id}:2" and told["cancelled"]
    assert told["staked"] == told["paid"] == 1000 and told["net"] == 0
    ended = wallets(sessions, [ids["a"], ids["b"]])
    (first_b,) = b.clients[0].settled
    assert ended[ids["b"]] == GRANT + first_b["net"]
    assert ended[ids["a"]] == GRANT + sum(s["net"] for s in a.clients[0].settled)
    with sessions.begin() as session:
        ledger = LedgerService(session)
        statuses = {(s.owner, s.status) for s in ledger.slices_of(table_id, 2)}
        assert statuses == {("a:players", "settled"), ("b:players", "cancelled")}
        report = check_books(session)
    assert report.ok, report.summary()
    again = PlayerClient("player-b", b.clients[0].token, style, a.handler)

    async def hello_again() -> None:
        await again.sit(table_id)
        await asyncio.sleep(0.1)

    run(hello_again())
    assert [m["type"] for m in again.seen].count("welcome") == 1
    assert not again.settled  # told once, not at every hello


def test_a_paused_cluster_table_shows_the_pause_and_the_time_left(
    sessions: sessionmaker[Session],
) -> None:
    """``state`` while paused: ``public.paused`` true (what the web client reads) and the
    window's time left, frozen; after the resume, its new deadline."""
    from tests.cluster.test_cluster_control import Waiting, first, played, seated

    table_id = "trouble-pause"
    gateway = seated(sessions, table_id, 1, Waiting)
    client = gateway.clients[0]
    seen: dict[str, Any] = {}

    def last_state() -> dict[str, Any]:
        return [m for m in client.seen if m["type"] == "state"][-1]

    async def operate(bus: MemoryBus) -> None:
        await first(bus, table_id, "StepOpened")
        await bus.control(table_id, {"action": "pause", "reason": "tea"}, timeout=5)
        await asyncio.sleep(0.2)
        seen["paused"] = last_state()
        await bus.control(table_id, {"action": "resume"}, timeout=5)
        await asyncio.sleep(0.2)
        seen["resumed"] = last_state()
        client.send({"type": "decide", "table_id": table_id, "spot": 1,
                     "step": client.last_you["step"], "action": "stand"})  # type: ignore[attr-defined]  # fmt: skip

    played(sessions, gateway, operate, decision_seconds=2.0)
    paused, resumed = seen["paused"], seen["resumed"]
    assert paused["paused"] is True and paused["public"]["paused"] is True
    # The table's bets per spot, summed by the coordinator (tests/cluster/test_spot_totals.py).
    assert paused["public"]["spot_bets"] == {"1": {"positions": 1, "main": 1000, "side": 0}}
    assert paused["timer"]["kind"] == "decision" and paused["timer"]["deadline_ms"] is None
    assert 0 < paused["timer"]["remaining_ms"] <= 2000
    assert resumed["paused"] is False and resumed["public"]["paused"] is False
    assert resumed["timer"]["deadline_ms"] > resumed["server_ms"]


def test_a_gateway_the_coordinator_does_not_know_yet_plays_its_first_round() -> None:
    """Gateway b is new (started, or restarted after the coordinator dropped it) and slower at
    the bet close than the known gateway a: its ``joined`` report during betting makes the bet
    close wait for it, so its bets are in its first round (before, that round went without)."""
    from boundless.server.cluster.coordinator import Coordinator
    from boundless.server.cluster.gateway import Gateway
    from boundless.server.cluster.slices import FollowerSlice
    from tests.cluster.harness import TABLE, ClusterRun, dealer_maker

    class SlowAtTheClose(FollowerSlice):
        async def bets_report(self) -> Any:
            await asyncio.sleep(0.3)  # its last bets still being written
            return await super().bets_report()

    def slow_maker(round_number: int, opened: ev.RoundOpened) -> SliceSide:
        follower = FollowerRound(RULES, opened, chart=CHART)
        follower.place_bet("b1", 1, 100, {}, free_amount=10_000)
        return SlowAtTheClose(follower)

    async def body() -> list[Any]:
        bus = MemoryBus()
        known = ClusterRun().slice_maker("a", [("a1", 100)])
        coordinator = Coordinator(
            bus, TABLE, "c1", dealer_maker(5), replace(TIMERS, betting_seconds=0.3),
            gateways=frozenset({"a"}),
        )  # fmt: skip
        a = Gateway(bus, TABLE, "a", known)
        b = Gateway(bus, TABLE, "b", slow_maker)
        await asyncio.gather(coordinator.run(rounds=1), a.run(rounds=1), b.run(rounds=1))
        return list(await log_of(bus, TABLE))

    events = run(body(), timeout=30)
    (slices,) = [s.event.body for s in events if s.event.kind == Public.SLICES]
    assert slices["gateways"] == ["a", "b"]


def test_a_gateway_starting_after_the_bet_close_stakes_nothing_in_that_round(
    tmp_path: Any,
) -> None:
    """Gateway b starts while round 1 is past its bet close: it follows that round holding
    nothing (before, its bots were staked and their slice left open, their coins held until
    its next restart) and plays round 2."""
    from boundless.ledger import make_engine, make_session_factory, upgrade_database
    from boundless.server.cluster.coordinator import Coordinator
    from boundless.server.cluster.gateway import Gateway
    from tests.cluster.harness import TABLE, dealer_maker
    from tests.cluster.test_cluster_ledger import GRANT as BOOKS_GRANT
    from tests.cluster.test_cluster_ledger import Books

    url = f"sqlite:///{tmp_path / 'late.sqlite'}"
    upgrade_database(url)
    books = Books(make_session_factory(make_engine(url)))

    async def body() -> None:
        bus = MemoryBus()
        coordinator = Coordinator(
            bus, TABLE, "c1", dealer_maker(7), TIMERS, gateways=frozenset({"a"}),
            ledger=books.ledger("c1"),
        )  # fmt: skip
        a = Gateway(bus, TABLE, "a", books.maker("a", ["a1"]))
        late = Gateway(bus, TABLE, "b", books.maker("b", ["b1", "b2"]))

        async def start_b_after_the_bet_close() -> None:
            async for stored in bus.events(TABLE, from_seq=1):
                if stored.event.kind == Public.SLICES:
                    await late.run(rounds=2)  # round 1 followed, round 2 played
                    return

        await asyncio.gather(
            coordinator.run(rounds=2), a.run(rounds=2), start_b_after_the_bet_close()
        )

    run(body(), timeout=60)
    with books.sessions.begin() as session:  # type: ignore[attr-defined]
        ledger = LedgerService(session)
        assert {s.owner for s in ledger.slices_of(TABLE, 1)} == {"a"}
        assert {(s.owner, s.status) for s in ledger.slices_of(TABLE, 2)} == {
            ("a", "settled"), ("b", "settled")
        }  # fmt: skip
        assert not ledger.open_slices("b")
        nets = books.nets()
        found = ledger.wallet_balances(["b1", "b2"])
        assert found == {p: BOOKS_GRANT + nets.get(p, 0) for p in ("b1", "b2")}
        report = check_books(session)
    assert report.ok, report.summary()
