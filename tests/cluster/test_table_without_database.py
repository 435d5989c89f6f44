"""The table does not wait for the database (in-memory bus, SQLite ledger): a gateway whose
settlement waits for a database that does not answer reports ``settling``, the round closes
without it and the next opens; that gateway sits the next round out, its settlement lands once
(its ``settled`` report follows) and it plays again; the coordinator's own ledger writes (the
round's opening) do not hold the round; a round whose every gateway sat out for the ledger is
cancelled saying so. After each: every wallet at grant plus its nets, the books clean."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker

from boundless.core.round import events as ev
from boundless.core.round.follower import FollowerRound
from boundless.ledger import LedgerService, check_books
from boundless.server.cluster import MemoryBus
from boundless.server.cluster.bus import ReportKind, in_sequence
from boundless.server.cluster.coordinator import NO_STAKES_REASON, Coordinator
from boundless.server.cluster.gateway import Gateway
from boundless.server.cluster.ledger_slice import ClusterLedger, LedgerSlice
from boundless.server.cluster.protocol import Public
from boundless.server.cluster.slices import PairSlice, SliceSide
from tests.cluster.conftest import run
from tests.cluster.harness import CHART, FAST, RULES, dealer_maker, log_of
from tests.cluster.players import (
    GRANT,
    POLICIES,
    GatewayPlayers,
    PlayerClient,
    Style,
    gateway_players,
    ledger_sessions,
    sign_up,
    wallets,
)
from tests.cluster.test_gateway_ledger_trouble import locked

TIMERS = replace(FAST, betting_seconds=0.4, decision_seconds=0.5, insurance_seconds=0.5)
BOT_GRANT = 50_000
STYLE = Style(1000, POLICIES[0], insures=False, resends=False)


@pytest.fixture
def sessions(tmp_path: Any) -> sessionmaker[Session]:
    return ledger_sessions(tmp_path)


class Table:
    """Two gateways a and b, a player and a bot on each, their bots' slices in the ledger."""

    def __init__(self, sessions: sessionmaker[Session], table_id: str) -> None:
        self.sessions, self.table_id = sessions, table_id
        self.bus = MemoryBus()
        self.gateways = [gateway_players(sessions, table_id, n) for n in ("a", "b")]
        self.players: dict[str, str] = {}
        self.bots: dict[str, list[LedgerSlice]] = {"a": [], "b": []}
        for gateway in self.gateways:
            name = f"player-{gateway.name}"
            self.players[gateway.name], token = sign_up(sessions, name)
            gateway.clients.append(PlayerClient(name, token, STYLE, gateway.handler))
            ClusterLedger(sessions, gateway.name).grant_once([f"bot-{gateway.name}"], BOT_GRANT)
            gateway.new_slice = self._slices(gateway)  # type: ignore[method-assign]

    def _slices(self, gateway: GatewayPlayers) -> Any:
        ledger = ClusterLedger(self.sessions, gateway.name)

        def new_slice(round_number: int, opened: ev.RoundOpened) -> SliceSide:
            follower = FollowerRound(RULES, opened, chart=CHART)
            follower.place_bet(f"bot-{gateway.name}", 1, 100, {}, free_amount=BOT_GRANT)
            bot = LedgerSlice(follower, ledger, self.table_id)
            bot.round_no = round_number
            self.bots[gateway.name].append(bot)
            return PairSlice([gateway.table.new_slice(round_number, opened), bot])

        return new_slice

    async def play(
        self,
        rounds: int,
        *,
        answers: Any = None,
        ledger: Any = None,
        hold: Any = None,
        timers: Any = TIMERS,
    ) -> None:
        """``answers``: the gateways' database probe; ``hold``: the coordinator's."""
        self.followers: list[Gateway] = []
        followers = self.followers
        for gateway in self.gateways:
            follower = Gateway(
                self.bus,
                self.table_id,
                gateway.name,
                gateway.new_slice,
                watcher=gateway.table,
                ledger_answers=answers,
            )
            gateway.table.gateway = follower
            followers.append(follower)
            for client in gateway.clients:
                await client.sit(self.table_id)
        coordinator = Coordinator(
            self.bus,
            self.table_id,
            "c1",
            dealer_maker(7),
            timers,
            gateways=frozenset({"a", "b"}),
            ledger=ledger,
            ledger_answers=hold,
        )
        await asyncio.gather(
            coordinator.run(rounds=rounds), *(f.run(rounds=rounds) for f in followers)
        )

    async def settled_nets(self) -> dict[str, int]:
        """Each gateway's bots' nets from its ``settled`` reports (one per round)."""
        nets: dict[str, int] = {}
        last = await self.bus.last_report_seq(self.table_id)
        async for stored in in_sequence(self.bus.reports(self.table_id, from_seq=1)):
            report = stored.report
            if report.kind == ReportKind.SETTLED:
                nets[report.gateway] = nets.get(report.gateway, 0) + int(
                    str(report.body.get("net", 0))
                )
            if stored.seq >= last:
                break
        return nets

    def check_coins(self, nets: dict[str, int]) -> None:
        ids = list(self.players.values())
        ended = wallets(self.sessions, ids)
        for gateway in self.gateways:
            player = self.players[gateway.name]
            told = gateway.clients[0].settled
            assert ended[player] == GRANT + sum(message["net"] for message in told)
        with self.sessions.begin() as session:
            ledger = LedgerService(session)
            for name in ("a", "b"):
                held = ledger.wallet_balances([f"bot-{name}"])[f"bot-{name}"]
                assert held == BOT_GRANT + nets.get(name, 0)
            report = check_books(session)
        assert report.ok, report.summary()


async def wait_for_event(bus: MemoryBus, table_id: str, kind: Public, round_number: int) -> None:
    while not any(
        s.event.kind == kind and s.event.round_number == round_number
        for s in await log_of(bus, table_id)
    ):
        await asyncio.sleep(0.01)


def test_a_settlement_waiting_for_the_database_holds_no_round(
    sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gateway a's round-1 settlement cannot be written (its database does not answer) until
    round 2's deal: round 1 closes with a ``settling``, a sits round 2 out, then its settlement
    lands once and it plays round 3."""
    table = Table(sessions, "away-1")
    written = asyncio.Event()
    real_settle = ClusterLedger.settle

    async def settle(self: ClusterLedger, table_id: str, round_no: int, *args: Any) -> None:
        if self.owner == "a" and round_no == 1:
            await wait_for_event(table.bus, table_id, Public.SLICES, 2)
            written.set()
        await real_settle(self, table_id, round_no, *args)

    async def answers() -> bool:
        return written.is_set()

    monkeypatch.setattr(ClusterLedger, "settle", settle)
    run(table.play(3, answers=answers), timeout=60)
    events = run(log_of(table.bus, table.table_id))
    closed = {s.event.round_number: s.event.body for s in events
              if s.event.kind == Public.ROUND_CLOSED}  # fmt: skip
    assert closed[1] == {"settled": ["b"], "settling": ["a"], "dropped": []}
    assert closed[2] == {"settled": ["b"], "dropped": []}
    assert closed[3] == {"settled": ["a", "b"], "dropped": []}
    slices = [s.event.body["gateways"] for s in events if s.event.kind == Public.SLICES]
    assert slices == [["a", "b"], ["b"], ["a", "b"]]
    assert not [s for s in events if s.event.kind == Public.GATEWAY_DROPPED]
    nets = run(table.settled_nets())
    a_player = table.gateways[0].clients[0].settled
    assert [m["round_id"] for m in a_player] == ["away-1:1", "away-1:3"]
    assert not any(m.get("cancelled") for m in a_player)
    table.check_coins(nets)
    with sessions.begin() as session:
        statuses = {s.owner: s.status for s in LedgerService(session).slices_of("away-1", 1)}
    assert statuses == dict.fromkeys(("a", "a:players", "b", "b:players"), "settled")


def test_the_round_opens_while_its_ledger_opening_waits_for_the_database(
    sessions: sessionmaker[Session],
) -> None:
    """The coordinator's opening of round 1 in the ledger is written only after round 1 has
    closed: round 1 plays and settles anyway (the stakes create the round), nothing is lost."""
    table = Table(sessions, "away-2")
    coordinator_ledger = ClusterLedger(sessions, "c1")
    real_open = coordinator_ledger.open_round

    async def open_round(table_id: str, round_no: int) -> None:
        if round_no == 1:
            await wait_for_event(table.bus, table_id, Public.ROUND_CLOSED, 1)
        await real_open(table_id, round_no)

    coordinator_ledger.open_round = open_round  # type: ignore[method-assign,assignment]
    run(table.play(2, ledger=coordinator_ledger), timeout=60)
    events = run(log_of(table.bus, table.table_id))
    closed = [s.event.body for s in events if s.event.kind == Public.ROUND_CLOSED]
    assert closed == [{"settled": ["a", "b"], "dropped": []}] * 2
    table.check_coins(run(table.settled_nets()))
    with sessions.begin() as session:
        ledger = LedgerService(session)
        assert [ledger.round_info("away-2", n).status for n in (1, 2)] == ["closed"] * 2  # type: ignore[union-attr]


def test_a_round_every_gateway_sat_out_for_the_ledger_says_so(
    sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every stake of round 1 is refused (the database away): both gateways sit it out, the
    round is cancelled with the ledger's reason (nothing was taken), round 2 plays."""
    table = Table(sessions, "away-3")
    real_stake = ClusterLedger.stake

    def stake(self: ClusterLedger, table_id: str, round_no: int, orders: Any) -> None:
        if round_no == 1:
            raise locked("stake")
        real_stake(self, table_id, round_no, orders)

    monkeypatch.setattr(ClusterLedger, "stake", stake)
    run(table.play(2), timeout=60)
    events = run(log_of(table.bus, table.table_id))
    cancelled = [s.event for s in events if s.event.kind == Public.ROUND_CANCELLED]
    assert [(e.round_number, e.body["reason"]) for e in cancelled] == [(1, NO_STAKES_REASON)]
    closed = [s.event.body for s in events if s.event.kind == Public.ROUND_CLOSED]
    assert closed == [{"settled": ["a", "b"], "dropped": []}]
    table.check_coins(run(table.settled_nets()))


def test_a_stop_does_not_wait_for_a_settlement_the_database_never_takes(
    sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gateway a's settlement of round 1 is never written (reported ``settling``); a stop of
    gateway a then ends anyway (the supervisor kills a child that takes 10 s), and its next
    start's recovery refunds the slice left open, once: the books balance."""
    table = Table(sessions, "away-4")
    never = asyncio.Event()
    real_settle = ClusterLedger.settle

    async def settle(self: ClusterLedger, table_id: str, round_no: int, *args: Any) -> None:
        if self.owner == "a":
            await never.wait()
        await real_settle(self, table_id, round_no, *args)

    async def answers() -> bool:
        return False

    async def body() -> None:
        await table.play(1, answers=answers)
        await table.followers[0].stop("the gateway is shutting down; every stake is returned")

    monkeypatch.setattr(ClusterLedger, "settle", settle)
    run(body(), timeout=60)
    events = run(log_of(table.bus, table.table_id))
    assert events[-1].event.body == {"settled": ["b"], "settling": ["a"], "dropped": []}
    with sessions.begin() as session:
        open_slices = LedgerService(session).open_slices("a")
    assert [(item.table_id, item.round_no) for item in open_slices] == [("away-4", 1)]
    ClusterLedger(sessions, "a").recover()
    with sessions.begin() as session:
        ledger = LedgerService(session)
        assert ledger.wallet_balances(["bot-a"])["bot-a"] == BOT_GRANT  # refunded once
        report = check_books(session)
    assert report.ok, report.summary()
