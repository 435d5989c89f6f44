"""Ledger calls run off the event loop: while one is held (its database session blocked in a
worker thread), the coordinator goes on renewing its lease and a gateway goes on answering its
sockets. The held call waits on a threading event that only the event loop can set: had the
call blocked the loop, nobody would set it and the call would go on after its own safety wait,
with ``released_by_loop`` false."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import orjson
import pytest
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import LedgerService
from boundless.server.cluster import MemoryBus
from boundless.server.cluster.bus import Lease
from boundless.server.cluster.coordinator import Coordinator
from boundless.server.cluster.ledger_slice import ClusterLedger
from boundless.server.gateway.handler import MessageHandler
from boundless.server.gateway.hub import Connection, Hub
from boundless.server.messages import payload
from tests.cluster.conftest import run
from tests.cluster.harness import CHART, FAST, RULES, TABLE, dealer_maker
from tests.cluster.players import ledger_sessions, sign_up

BETS = {"1": {"main": 500}}
SAFETY_SECONDS = 20.0
"""How long a held call waits for the loop before it goes on anyway (a failing test ends)."""


class Gate:
    """Holds the next database session opened through :class:`HeldSessions` until released."""

    def __init__(self) -> None:
        self.armed = False
        self.skip = 0
        """Sessions to let pass once armed, before the one held."""
        self.entered = threading.Event()
        self.release = threading.Event()
        self.released_by_loop: bool | None = None

    def hold(self) -> None:
        if not self.armed:
            return
        if self.skip:
            self.skip -= 1
            return
        self.armed = False
        self.entered.set()
        self.released_by_loop = self.release.wait(SAFETY_SECONDS)

    async def entered_call(self) -> None:
        await asyncio.to_thread(self.entered.wait, SAFETY_SECONDS)


class HeldSessions:
    """A session factory whose ``begin`` waits at the gate first (in whichever thread calls)."""

    def __init__(self, sessions: sessionmaker[Session], gate: Gate) -> None:
        self.sessions, self.gate = sessions, gate

    def begin(self) -> Any:
        self.gate.hold()
        return self.sessions.begin()

    def __call__(self) -> Session:
        return self.sessions()


class CountingBus(MemoryBus):
    """Counts lease renewals and wakes whoever waits for the next one."""

    def __init__(self) -> None:
        super().__init__()
        self.renewals = 0
        self.renewed = asyncio.Event()

    async def renew_lease(self, lease: Lease) -> Lease:
        renewed = await super().renew_lease(lease)
        self.renewals += 1
        self.renewed.set()
        return renewed


def test_the_coordinator_renews_its_lease_while_a_ledger_call_is_held(tmp_path: Path) -> None:
    sessions = ledger_sessions(tmp_path)
    gate = Gate()
    ledger = ClusterLedger(HeldSessions(sessions, gate), "c1")  # type: ignore[arg-type]

    async def body() -> int:
        bus = CountingBus()
        coordinator = Coordinator(bus, TABLE, "c1", dealer_maker(3), FAST, ledger=ledger)
        gate.armed = True  # the first call: opening round 1
        playing = asyncio.ensure_future(coordinator.run(rounds=1))
        await gate.entered_call()
        seen = bus.renewals
        while bus.renewals < seen + 3:  # three renewals while the call is held
            bus.renewed.clear()
            await bus.renewed.wait()
        renewed_meanwhile = bus.renewals - seen
        gate.release.set()
        await playing
        return renewed_meanwhile

    assert run(body()) >= 3
    assert gate.released_by_loop is True
    with sessions.begin() as session:  # the held call was written, then the round ended
        info = LedgerService(session).round_info(TABLE, 1)
    assert info is not None and info.status != "open"


class Socket(Connection):
    """A socket in process: what the server sends it, decoded."""

    def __init__(self) -> None:
        super().__init__()
        self.got: list[dict[str, Any]] = []
        self.arrived = asyncio.Event()

    def push(self, wire: bytes) -> None:
        self.got.append(orjson.loads(payload(wire)))
        self.arrived.set()

    def close(self, reason: str) -> None:
        pass

    def acks(self, request_id: str) -> list[dict[str, Any]]:
        return [m for m in self.got if m.get("request_id") == request_id]


async def send(handler: MessageHandler, socket: Socket, **body: Any) -> None:
    await handler.handle_text(socket, orjson.dumps({"v": 1, **body}))


def held_gateway(sessions: sessionmaker[Session], gate: Gate) -> tuple[Any, MessageHandler]:
    """A gateway's players' table whose ledger sessions pass the gate, and its socket handler
    (whose own sessions do not)."""
    from boundless.server.cluster.gateway_table import GatewayTable

    hub = Hub()
    table = GatewayTable(
        table_id=TABLE,
        gateway="g1",
        rules=RULES,
        chart=CHART,
        hub=hub,
        sessions=HeldSessions(sessions, gate),  # type: ignore[arg-type]
    )
    return table, MessageHandler(table, hub, sessions, 1000.0)


def two_on_a_held_gateway(
    tmp_path: Path,
) -> tuple[sessionmaker[Session], Gate, Any, MessageHandler, list[tuple[str, str]]]:
    """A gateway whose ledger sessions pass a gate, and two players signed up (id, token)."""
    sessions = ledger_sessions(tmp_path)
    signed = [sign_up(sessions, name) for name in ("ana", "ben")]
    gate = Gate()
    table, handler = held_gateway(sessions, gate)
    return sessions, gate, table, handler, signed


def test_a_gateway_answers_a_socket_while_a_bet_batch_is_being_written(tmp_path: Path) -> None:
    sessions, gate, table, handler, signed = two_on_a_held_gateway(tmp_path)
    (ana, ana_token), (_ben, ben_token) = signed

    async def body() -> tuple[list[dict[str, Any]], bool, list[dict[str, Any]]]:
        players = table.new_slice(1, dealer_maker(3)(1).opened)
        betting, watching = Socket(), Socket()
        for socket, token in ((betting, ana_token), (watching, ben_token)):
            await send(handler, socket, type="hello", token=token)
            await send(handler, socket, type="join", table_id=TABLE)
        await asyncio.sleep(0)  # the hellos' greetings (what ended while away) are read
        gate.armed = True  # the bet's first write (the round's row, then its batch) is held
        bet_body = {"table_id": TABLE, "request_id": "b1", "bet_id": "b1", "bets": BETS}
        bet = asyncio.ensure_future(send(handler, betting, type="bet", **bet_body))
        await gate.entered_call()
        await send(handler, watching, type="resync", table_id=TABLE, request_id="r1")
        answered_while_held = watching.acks("r1")
        closing = asyncio.ensure_future(players.bets_report())
        await asyncio.sleep(0)
        closed_before_the_write = closing.done()
        gate.release.set()
        await bet
        report = await closing
        assert report.spots == frozenset({1})
        return answered_while_held, closed_before_the_write, betting.acks("b1")

    answered, closed_early, bet_acks = run(body())
    assert [m["type"] for m in answered] == ["ack"]
    assert not closed_early  # the bet close waits for the batch being written
    assert gate.released_by_loop is True
    assert [m["type"] for m in bet_acks] == ["ack"]
    assert table.round is not None and table.round.player_ids == [ana]
    with sessions.begin() as session:
        assert LedgerService(session).wallet_balances([ana])[ana] == 1_000_000 - 500


def test_a_cancellation_during_a_bet_batch_write_returns_those_stakes(tmp_path: Path) -> None:
    """The round is cancelled while its bets are being written (the write holds the desk's
    lock): the cancellation's write waits for the batch's commit, so it returns those stakes
    too, and the bet is answered with the cancellation. Released by a helper thread; either
    order of release and cancellation ends the same."""
    from boundless.ledger import check_books

    sessions = ledger_sessions(tmp_path)
    gate = Gate()
    ana, token = sign_up(sessions, "ana")
    table, handler = held_gateway(sessions, gate)

    async def body() -> list[dict[str, Any]]:
        players = table.new_slice(1, dealer_maker(3)(1).opened)
        socket = Socket()
        await send(handler, socket, type="hello", token=token)
        await send(handler, socket, type="join", table_id=TABLE)
        await asyncio.sleep(0)
        gate.skip, gate.armed = 1, True  # the round's row passes; its batch of bets is held
        bet_body = {"table_id": TABLE, "request_id": "b1", "bet_id": "b1", "bets": BETS}
        bet = asyncio.ensure_future(send(handler, socket, type="bet", **bet_body))
        await gate.entered_call()
        threading.Thread(target=gate.release.set).start()
        await players.cancel("the operator cancelled the round")
        await bet
        return socket.acks("b1")

    acks = run(body())
    assert [m["type"] for m in acks] == ["error"]
    with sessions.begin() as session:
        assert LedgerService(session).wallet_balances([ana])[ana] == 1_000_000
        assert check_books(session).ok


async def deal_to_the_first_step(
    handler: MessageHandler, table: Any, sockets: list[tuple[Socket, str]], seed: int
) -> tuple[Any, Any]:
    """A round on the gateway's players' table, the first socket's player betting on spot 1,
    dealt up to its first decision step (``seed``: one that offers a double and a split)."""
    dealer = dealer_maker(seed)(1)
    players = table.new_slice(1, dealer.opened)
    for socket, token in sockets:
        await send(handler, socket, type="hello", token=token)
        await send(handler, socket, type="join", table_id=TABLE)
    await asyncio.sleep(0)  # the hellos' greetings (what ended while away) are read
    betting = sockets[0][0]
    await send(handler, betting, type="bet", table_id=TABLE, request_id="b1", bet_id="b1",
               bets=BETS)  # fmt: skip
    for event in dealer.close_bets([await players.bets_report()]):
        await players.apply(event)
    assert table.round.current_spot == 1 and table.round.step == 1
    return dealer, players


async def hold_the_write(
    gate: Gate, handler: MessageHandler, watching: Socket, write: Coroutine[Any, Any, None]
) -> tuple[list[dict[str, Any]], bool]:
    """Run ``write`` with its next database session held at the gate; meanwhile another socket
    asks for a resync. Its answers while held, and whether ``write`` was done before release."""
    gate.armed = True
    writing = asyncio.ensure_future(write)
    await gate.entered_call()
    await send(handler, watching, type="resync", table_id=TABLE, request_id="r1")
    answered_while_held = watching.acks("r1")
    await asyncio.sleep(0)
    done_before_the_write = writing.done()
    gate.release.set()
    await writing
    return answered_while_held, done_before_the_write


@pytest.mark.parametrize("action", ["double", "split"])
def test_a_gateway_answers_a_socket_while_a_double_or_split_is_staked(
    tmp_path: Path, action: str
) -> None:
    """The step's extra stake is written in a worker thread: held there, the gateway answers
    another socket; the step is not done (nothing after it shown or reported) until the stake
    is written, and then the ledger and the player's wallet agree."""
    sessions, gate, table, handler, signed = two_on_a_held_gateway(tmp_path)
    (ana, ana_token), (_ben, ben_token) = signed

    async def body() -> tuple[list[dict[str, Any]], bool, bool]:
        deciding, watching = Socket(), Socket()
        sockets = [(deciding, ana_token), (watching, ben_token)]
        dealer, players = await deal_to_the_first_step(handler, table, sockets, seed=4)
        await send(handler, deciding, type="decide", table_id=TABLE, spot=1, step=1,
                   action=action, request_id="d1")  # fmt: skip
        assert [m["type"] for m in deciding.acks("d1")] == ["ack"]
        dealt = dealer.close_step([await players.step_report()])
        # The step's extra stake is the next write.
        held = await hold_the_write(gate, handler, watching, apply_all(players, dealt))
        return *held, players.voided

    answered, done_early, voided = run(body())
    assert [m["type"] for m in answered] == ["ack"]
    assert not done_early
    assert gate.released_by_loop is True
    assert not voided
    staked = int(table.round.staked_by_player()[0])
    assert staked > 500  # the main stake and the extra one
    with sessions.begin() as session:
        wallet = LedgerService(session).wallet_balances([ana])[ana]
    assert wallet == table.money.balances[ana] == 1_000_000 - staked


async def apply_all(players: Any, events: list[Any]) -> None:
    for event in events:
        await players.apply(event)


def test_a_refused_double_voids_the_players_part_and_returns_every_stake(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ledger refuses a step's extra stake (not a passing outage: no retry): as before it
    moved off the loop, the gateway's players' part is cancelled, every stake returned, and the
    player told with ``cancelled`` and a ``settled`` marked cancelled."""
    from boundless.ledger import InsufficientFundsError, check_books
    from boundless.server.tables.service import TableService

    sessions = ledger_sessions(tmp_path)
    ana, token = sign_up(sessions, "ana")
    table, handler = held_gateway(sessions, Gate())
    stake = TableService.stake

    def refuse_extras(self: TableService, table_id: str, round_no: int, orders: Any) -> None:
        if any(order.kind.startswith("double") for order in orders):
            raise InsufficientFundsError("the wallet moved elsewhere")
        stake(self, table_id, round_no, orders)

    monkeypatch.setattr(TableService, "stake", refuse_extras)

    async def body() -> tuple[list[dict[str, Any]], bool]:
        socket = Socket()
        dealer, players = await deal_to_the_first_step(handler, table, [(socket, token)], seed=4)
        await send(handler, socket, type="decide", table_id=TABLE, spot=1, step=1,
                   action="double", request_id="d1")  # fmt: skip
        await apply_all(players, dealer.close_step([await players.step_report()]))
        return socket.got, players.voided

    got, voided = run(body())
    assert voided
    notices = [m for m in got if m["type"] == "notice" and m.get("kind") == "cancelled"]
    (settled,) = [m for m in got if m["type"] == "settled"]
    assert len(notices) == 1
    assert settled["cancelled"] == "a ledger write failed on this gateway; every stake is returned"
    with sessions.begin() as session:
        assert LedgerService(session).wallet_balances([ana])[ana] == 1_000_000
        assert check_books(session).ok


def test_a_gateway_answers_a_socket_while_a_cancelled_slice_is_refunded(tmp_path: Path) -> None:
    """The refund of a cancelled players' slice is written in a worker thread: held there, the
    gateway answers another socket; the refund is written once, however often it is asked."""
    from boundless.ledger import check_books

    sessions, gate, table, handler, signed = two_on_a_held_gateway(tmp_path)
    (ana, ana_token), (_ben, ben_token) = signed

    async def body() -> tuple[list[dict[str, Any]], bool, list[dict[str, Any]]]:
        deciding, watching = Socket(), Socket()
        sockets = [(deciding, ana_token), (watching, ben_token)]
        _dealer, players = await deal_to_the_first_step(handler, table, sockets, seed=4)
        # The refund is the next write.
        cancelling = players.cancel("this gateway was dropped")
        held = await hold_the_write(gate, handler, watching, cancelling)
        await players.cancel("and again")  # the slice is refunded once
        assert await table.void_off_loop("and once more") == {}
        return *held, deciding.got

    answered, done_early, got = run(body())
    assert [m["type"] for m in answered] == ["ack"]
    assert not done_early
    assert gate.released_by_loop is True
    (settled,) = [m for m in got if m["type"] == "settled"]
    assert settled["cancelled"] == "this gateway was dropped"
    with sessions.begin() as session:
        assert LedgerService(session).wallet_balances([ana])[ana] == 1_000_000
        assert check_books(session).ok
