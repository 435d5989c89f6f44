"""Ledger calls run off the event loop: while one is held (its database session blocked in a
worker thread), the coordinator goes on renewing its lease and a gateway goes on answering its
sockets. The held call waits on a threading event that only the event loop can set: had the
call blocked the loop, nobody would set it and the call would go on after its own safety wait,
with ``released_by_loop`` false."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import LedgerService
from boundless.server.cluster import MemoryBus
from boundless.server.cluster.bus import Lease
from boundless.server.cluster.coordinator import Coordinator
from boundless.server.cluster.ledger_slice import ClusterLedger
from boundless.server.gateway.handler import MessageHandler
from boundless.server.gateway.hub import Connection, Hub
from boundless.server.messages import Frame
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

    def push(self, frame: Frame) -> None:
        self.got.append(orjson.loads(frame.data))
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


def test_a_gateway_answers_a_socket_while_a_bet_batch_is_being_written(tmp_path: Path) -> None:
    sessions = ledger_sessions(tmp_path)
    gate = Gate()
    ana, ana_token = sign_up(sessions, "ana")
    _ben, ben_token = sign_up(sessions, "ben")
    table, handler = held_gateway(sessions, gate)

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
    lock): the cancellation waits for the write's commit, so it returns those stakes too, and
    the bet is answered with the cancellation. Released by a helper thread (the loop is waiting
    on the lock meanwhile); either order of release and cancellation ends the same."""
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
        players.cancel("the operator cancelled the round")
        await bet
        return socket.acks("b1")

    acks = run(body())
    assert [m["type"] for m in acks] == ["error"]
    with sessions.begin() as session:
        assert LedgerService(session).wallet_balances([ana])[ana] == 1_000_000
        assert check_books(session).ok
