"""The operator's pause, resume and cancel on a cluster (in-memory bus, SQLite ledger, players
through the gateway's message handler): sent to the coordinator over the bus, answered there,
seen by the players as ``boundless serve``'s players see them; refusals change nothing."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import LedgerService, check_books
from boundless.server.cluster import MemoryBus
from boundless.server.cluster.control import TableControl
from boundless.server.cluster.coordinator import Coordinator
from boundless.server.cluster.gateway import Gateway
from boundless.server.cluster.ledger_slice import ClusterLedger
from boundless.server.cluster.protocol import Public
from boundless.server.cluster.slice_records import SliceRecords
from tests.cluster.conftest import run
from tests.cluster.harness import FAST, dealer_maker, log_of
from tests.cluster.players import (
    GRANT,
    POLICIES,
    GatewayPlayers,
    Message,
    PlayerClient,
    Style,
    gateway_players,
    ledger_sessions,
    sign_up,
    wallets,
)

names = itertools.count(1)
player_of: dict[str, str] = {}
STYLE = Style(1000, POLICIES[0], insures=False, resends=False)


class Waiting(PlayerClient):
    """A player who bets but never decides (the window runs to its deadline)."""

    def _act(self, you: Message) -> None:
        self.last_you = you


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> sessionmaker[Session]:
    return ledger_sessions(tmp_path_factory.mktemp("cluster-control"))


def seated(
    sessions: sessionmaker[Session], table_id: str, count: int, kind: type[PlayerClient]
) -> GatewayPlayers:
    gateway = gateway_players(sessions, table_id, "a")
    for _ in range(count):
        name = f"op{next(names)}"
        player_of[name], token = sign_up(sessions, name)
        gateway.clients.append(kind(name, token, STYLE, gateway.handler))
    return gateway


def coordinator_for(
    bus: MemoryBus, sessions: sessionmaker[Session], table_id: str, **timers: float
) -> Coordinator:
    records = SliceRecords(sessions)
    return Coordinator(
        bus,
        table_id,
        "c1",
        dealer_maker(7),  # its first round has decision steps
        replace(FAST, report_seconds=1.5, **timers),  # a loaded machine drops nobody
        gateways=frozenset({"a"}),
        ledger=ClusterLedger(sessions, "c1"),
        records=records,
        control=TableControl(table_id, lambda n: records.has_bets(table_id, n)),
    )


async def started(
    sessions: sessionmaker[Session], gateway: GatewayPlayers, **timers: float
) -> tuple[MemoryBus, Gateway, Coordinator]:
    """A bus, gateway a following the table with its players seated, and the coordinator."""
    table_id = gateway.table.table_id
    bus = MemoryBus()
    follow = Gateway(bus, table_id, "a", gateway.new_slice, watcher=gateway.table)
    gateway.table.gateway = follow
    for client in gateway.clients:
        await client.sit(table_id)
    return bus, follow, coordinator_for(bus, sessions, table_id, **timers)


def played(
    sessions: sessionmaker[Session],
    gateway: GatewayPlayers,
    operate: Callable[[MemoryBus], Awaitable[None]],
    *,
    rounds: int = 1,
    **timers: float,
) -> list[tuple[str, dict[str, Any]]]:
    """``rounds`` rounds at gateway a with ``operate`` acting meanwhile; the table's log."""

    async def body() -> list[tuple[str, dict[str, Any]]]:
        bus, follow, coordinator = await started(sessions, gateway, **timers)
        await asyncio.gather(
            coordinator.run(rounds=rounds), follow.run(rounds=rounds), operate(bus)
        )
        return [(s.event.kind, s.event.body) for s in await log_of(bus, gateway.table.table_id)]

    return run(body(), timeout=60)  # type: ignore[no-any-return]


async def first(bus: MemoryBus, table_id: str, wanted: str) -> None:
    """Until the table's log holds a table event of type ``wanted``."""
    async for stored in bus.events(table_id, from_seq=1):
        if stored.event.kind == Public.TABLE and stored.event.body.get("type") == wanted:
            return


def bet_answered(client: PlayerClient) -> bool:
    return any(m["type"] == "ack" and "bet_id" in m for m in client.seen)


def notices(client: PlayerClient) -> list[tuple[str, Any]]:
    return [(m["kind"], m["detail"]) for m in client.seen if m["type"] == "notice"]


def test_a_pause_holds_the_decision_window_and_resume_lets_it_run(
    sessions: sessionmaker[Session],
) -> None:
    table_id = f"pause-{next(names)}"
    gateway = seated(sessions, table_id, 2, Waiting)
    answers: dict[str, Any] = {}

    async def operate(bus: MemoryBus) -> None:
        await first(bus, table_id, "StepOpened")
        ask = bus.control
        answers["pause"] = await ask(table_id, {"action": "pause", "reason": "tea"}, timeout=5)
        answers["again"] = await ask(table_id, {"action": "pause"}, timeout=5)
        answers["nonsense"] = await ask(table_id, {"action": "explode"}, timeout=5)
        await asyncio.sleep(1.5)  # three decision windows' worth: the step must stay open
        answers["paused_desk"] = gateway.table.paused
        client = gateway.clients[0]
        you = client.last_you  # type: ignore[attr-defined]
        client.send({"type": "decide", "table_id": table_id, "spot": 1,
                     "step": you["step"], "action": "stand"})  # fmt: skip
        await asyncio.sleep(0.2)
        answers["resume"] = await ask(table_id, {"action": "resume", "reason": "back"}, timeout=5)
        answers["resume_again"] = await ask(table_id, {"action": "resume"}, timeout=5)

    log = played(sessions, gateway, operate, decision_seconds=0.5)
    assert answers["pause"] == {"ok": True, "paused": True, "reason": "tea"}
    assert answers["again"] == {
        "ok": False, "error": "conflict", "detail": f"table {table_id!r} is already paused"
    }  # fmt: skip
    assert answers["nonsense"]["error"] == "bad_message"
    assert answers["paused_desk"] is True
    assert answers["resume"]["ok"] is True and answers["resume_again"]["error"] == "conflict"
    kinds = [kind for kind, _ in log]
    paused_at, resumed_at = kinds.index(Public.TABLE_PAUSED), kinds.index(Public.TABLE_RESUMED)
    assert Public.STEP_CLOSED not in kinds[paused_at:resumed_at]  # the window was held
    assert Public.STEP_CLOSED in kinds[resumed_at:] and kinds[-1] == Public.ROUND_CLOSED
    assert log[paused_at][1]["timer"]["remaining_ms"] <= 500
    assert log[resumed_at][1]["timer"]["deadline_ms"] > 0
    for client in gateway.clients:
        assert ("paused", "tea") in notices(client) and ("resumed", "back") in notices(client)
        (settled,) = client.settled
        assert "cancelled" not in settled
    refused = {error["error"] for error in gateway.clients[0].errors}
    assert "table_paused" in refused  # the decision sent while paused changed nothing
    assert not gateway.table.paused


def test_an_operator_cancel_refunds_every_stake_with_its_reason(
    sessions: sessionmaker[Session],
) -> None:
    table_id = f"cancel-{next(names)}"
    gateway = seated(sessions, table_id, 2, PlayerClient)
    answers: dict[str, Any] = {}

    async def operate(bus: MemoryBus) -> None:
        await first(bus, table_id, "RoundOpened")
        while not all(bet_answered(client) for client in gateway.clients):
            await asyncio.sleep(0.02)  # each bet is staked when it is answered
        body = {"action": "cancel", "reason": "maintenance"}
        answers["cancel"] = await bus.control(table_id, body, timeout=10)
        answers["again"] = await bus.control(table_id, body, timeout=10)  # between rounds

    log = played(sessions, gateway, operate, rounds=2, betting_seconds=3.0)
    players = [player_of[client.name] for client in gateway.clients]
    answer = answers["cancel"]
    assert answer["ok"] is True and answer["reason"] == "maintenance"
    assert answer["round_id"] == f"{table_id}:1"
    assert answer["refunds"] == [{"player_id": p, "amount": 1000} for p in sorted(players)]
    assert answers["again"] == {
        "ok": False, "error": "conflict",
        "detail": f"table {table_id!r} has no round with bets to cancel",
    }  # fmt: skip
    assert (Public.ROUND_CANCELLED, {"reason": "maintenance"}) in log
    assert [kind for kind, _ in log].count(Public.BETTING_CLOSED) == 1  # round 2's only
    for client in gateway.clients:
        first_round, second_round = client.settled
        assert first_round["cancelled"] == "maintenance" and first_round["net"] == 0
        assert "cancelled" not in second_round
        assert ("cancelled", {"round_id": f"{table_id}:1", "reason": "maintenance"}) in notices(
            client
        )
    ended = wallets(sessions, players)
    for client, player in zip(gateway.clients, players, strict=True):
        assert ended[player] == GRANT + client.settled[1]["net"]  # round 1 moved nothing
    with sessions.begin() as session:
        info = LedgerService(session).round_info(table_id, 1)
        assert info is not None and info.status == "cancelled"
        report = check_books(session)
        assert report.ok, report.summary()


def test_a_cancel_without_bets_and_bad_requests_change_nothing(
    sessions: sessionmaker[Session],
) -> None:
    table_id = f"nobets-{next(names)}"
    gateway = gateway_players(sessions, table_id, "a")  # nobody bets
    answers: dict[str, Any] = {}

    async def body() -> list[str]:
        bus, follow, coordinator = await started(sessions, gateway, betting_seconds=0.5)

        async def operate() -> None:
            await first(bus, table_id, "RoundOpened")
            ask = bus.control
            answers["cancel"] = await ask(table_id, {"action": "cancel"}, timeout=5)
            answers["long"] = await ask(
                table_id, {"action": "pause", "reason": "x" * 201}, timeout=5
            )
            answers["number"] = await ask(table_id, {"action": "pause", "reason": 7}, timeout=5)
            stale = {"action": "cancel", "round_no": 99}  # the round the operator confirmed
            answers["stale"] = await ask(table_id, stale, timeout=5)
            odd = {"action": "cancel", "round_no": "one"}
            answers["odd"] = await ask(table_id, odd, timeout=5)

        await asyncio.gather(coordinator.run(rounds=1), follow.run(rounds=1), operate())
        return [s.event.kind for s in await log_of(bus, table_id)]

    kinds = run(body(), timeout=30)
    assert answers["cancel"]["detail"] == f"table {table_id!r} has no round with bets to cancel"
    assert answers["long"]["error"] == answers["number"]["error"] == "bad_message"
    assert answers["stale"]["error"] == "conflict"
    assert f"{table_id}:99 is not the round in play" in answers["stale"]["detail"]
    assert answers["odd"]["error"] == "bad_message"
    assert Public.TABLE_PAUSED not in kinds and not gateway.table.paused
    assert kinds[-1] == Public.ROUND_CANCELLED  # nobody bet: the round's own ending


def test_a_pause_outlives_its_coordinator(sessions: sessionmaker[Session]) -> None:
    """The table is paused mid-betting and its coordinator dies: the standby cancels the round
    in flight, reads the pause from the stream and opens no round until it is resumed."""
    table_id = f"outlive-{next(names)}"
    gateway = seated(sessions, table_id, 1, PlayerClient)
    answers: dict[str, Any] = {}

    async def body() -> list[tuple[int, str]]:
        bus, follow, doomed = await started(sessions, gateway, betting_seconds=1.0)
        bus.lease_seconds = 0.3
        standby = coordinator_for(bus, sessions, table_id, betting_seconds=0.3)
        standby.holder = "c2"

        async def operate() -> None:
            await first(bus, table_id, "RoundOpened")
            answers["pause"] = await bus.control(table_id, {"action": "pause"}, timeout=5)
            dying.cancel()  # like kill -9, while paused
            standing = asyncio.ensure_future(standby.run(rounds=1))
            await asyncio.sleep(2.0)  # the lease lapses; the standby takes over, stays paused
            answers["paused_after"] = gateway.table.paused
            answers["log_paused"] = [s.event.kind for s in await log_of(bus, table_id)]
            answers["resume"] = await bus.control(table_id, {"action": "resume"}, timeout=5)
            await standing

        dying = asyncio.ensure_future(doomed.run())
        await asyncio.gather(follow.run(rounds=2), operate())
        return [(s.event.round_number, s.event.kind) for s in await log_of(bus, table_id)]

    log = run(body(), timeout=60)
    assert answers["pause"]["ok"] and answers["resume"]["ok"] and answers["paused_after"]
    held = answers["log_paused"]
    assert held.count(Public.ROUND_CANCELLED) == 1 and held[-1] == Public.ROUND_CANCELLED
    assert (2, Public.ROUND_CLOSED) in log  # round 2 opened only after the resume
    opened_two = log.index((2, Public.TABLE))
    assert log.index((1, Public.TABLE_RESUMED)) < opened_two
    client = gateway.clients[0]
    # Its round-1 bet came while paused: refused, nothing staked; round 2 it played.
    assert [error["error"] for error in client.errors] == ["table_paused"]
    (settled,) = client.settled
    assert settled["round_id"] == f"{table_id}:2" and "cancelled" not in settled
