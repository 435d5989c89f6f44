"""A gateway's name lease (one process per name) on the in-memory bus and on NATS, and its health
routes: ``/readyz`` says why it cannot serve, ``/api/cluster`` never answers 500."""

from __future__ import annotations

import socket
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError

from boundless.server.app import install_error_handlers
from boundless.server.cluster import MemoryBus
from boundless.server.cluster.bus import BusUnavailableError, Lease, LeaseLostError
from boundless.server.cluster.gateway import Gateway
from boundless.server.cluster.gateway_health import health_router
from boundless.server.cluster.gateway_name import (
    GatewayName,
    NameHeldError,
    bind_port,
    name_lease_key,
)
from boundless.server.cluster.startup import ClusterSetupError
from tests.cluster.conftest import BusMaker, run
from tests.cluster.players import gateway_players, ledger_sessions


def test_name_keys_are_bus_keys_and_never_meet() -> None:
    names = ["g1", "g_1", "g.1", "g@1", "g-1", "g_2e1"]
    keys = {name_lease_key("t1", name) for name in names}
    assert len(keys) == len(names)
    assert all(ch.isalnum() or ch in "-_" for key in keys for ch in key)


def test_a_held_gateway_name_is_refused_and_free_once_given_back(bus_maker: BusMaker) -> None:
    async def body() -> None:
        first_bus, second_bus = await bus_maker.make(), await bus_maker.make()
        first = GatewayName(first_bus, "t1", "g.1", "gateway-host-101")
        second = GatewayName(second_bus, "t1", "g.1", "gateway-host-202")
        await first.take(wait_seconds=0)
        with pytest.raises(NameHeldError, match="held by gateway-host-101"):
            await second.take(wait_seconds=0.3)
        other = GatewayName(second_bus, "t1", "g.2", "gateway-host-202")
        await other.take(wait_seconds=0)  # another name is another lease
        await first.give_back()
        await second.take(wait_seconds=0)
        assert await second_bus.lease_holder(second.key) == "gateway-host-202"
        for bus in {id(b): b for b in (first_bus, second_bus)}.values():
            await bus.close()

    run(body())


def test_a_lapsed_name_is_taken_again_unless_someone_else_has_it() -> None:
    async def body() -> None:
        bus = MemoryBus(lease_seconds=0.2)
        held = GatewayName(bus, "t1", "g1", "gateway-host-1")
        await held.take(wait_seconds=0)
        assert held.lease is not None
        await bus.release_lease(held.lease)  # as if it lapsed while the bus was away
        keeping = held.keep(every=0.05)
        import asyncio

        task = asyncio.ensure_future(keeping)
        await asyncio.sleep(0.2)
        assert not task.done() and await bus.lease_holder(held.key) == "gateway-host-1"
        assert held.lease is not None
        await bus.release_lease(held.lease)
        assert await bus.acquire_lease(held.key, "gateway-host-2") is not None
        await asyncio.wait_for(task, 1)  # the name went elsewhere: keeping it ends
        assert held.lease is None

    run(body())


def test_a_renewal_lost_in_an_election_keeps_a_name_still_ours() -> None:
    """A renewal that did not go through within the lease's life (a NATS election outlasting
    it) while the key still holds this process's name: the gateway keeps its name and runs
    on (it used to stop, taking the name for someone else's)."""

    async def body() -> None:
        import asyncio

        bus = MemoryBus(lease_seconds=5.0)
        held = GatewayName(bus, "t1", "g1", "gateway-host-1")
        await held.take(wait_seconds=0)
        real_renew, lost = bus.renew_lease, [0]

        async def renew_lost_once(lease: Lease) -> Lease:
            if not lost[0]:
                lost[0] = 1
                await real_renew(lease)  # written, but its answer never came
                raise LeaseLostError("not renewed within its life")
            return await real_renew(lease)

        bus.renew_lease = renew_lost_once  # type: ignore[method-assign]
        task = asyncio.ensure_future(held.keep(every=0.05))
        await asyncio.sleep(0.3)
        assert lost[0] and not task.done()
        assert held.lease is not None and await bus.lease_holder(held.key) == "gateway-host-1"
        current = await bus.lease_of(held.key)
        assert current is not None and held.lease.revision == current.revision
        task.cancel()

    run(body())


def test_a_port_in_use_is_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ClusterSetupError, match=f"cannot listen on 127.0.0.1:{port}"):
            bind_port("127.0.0.1", port)


class AwayBus(MemoryBus):
    async def lease_holder(self, table: str) -> str | None:
        raise BusUnavailableError("nats: no servers available for connection")


def client_for(bus: MemoryBus, tmp_path: Path, sessions: Any = None) -> tuple[TestClient, Gateway]:
    sessions = sessions or ledger_sessions(tmp_path)
    table = gateway_players(sessions, "t1", "g1").table
    gateway = Gateway(bus, "t1", "g1", table.new_slice, watcher=table)
    app = FastAPI()
    install_error_handlers(app)
    app.include_router(health_router(gateway, bus, table, sessions))
    return TestClient(app), gateway


def test_readyz_names_every_reason_and_is_ready_when_all_hold(tmp_path: Path) -> None:
    bus = MemoryBus()
    client, gateway = client_for(bus, tmp_path)
    reply = client.get("/readyz")
    assert reply.status_code == 503
    assert reply.json()["reasons"] == [
        "the gateway does not follow the table's stream",
        "no coordinator holds the table (none renewed its lease lately)",
    ]
    run(bus.acquire_lease("t1", "coordinator-1"))
    gateway.following = True
    assert client.get("/readyz").json() == {"ready": True}
    assert client.get("/api/cluster").json()["coordinator"] == "coordinator-1"


def test_the_bus_and_the_database_away_are_503s_never_500(tmp_path: Path) -> None:
    def broken() -> Any:
        raise OperationalError("select 1", {}, sqlite3.OperationalError("database is locked"))

    client, gateway = client_for(AwayBus(), tmp_path, sessions=None)
    gateway.following = True
    reply = client.get("/api/cluster")
    assert reply.status_code == 503
    assert reply.json() == {
        "error": "coordinator_unavailable",
        "detail": "the bus cannot say who coordinates t1: "
        "BusUnavailableError: nats: no servers available for connection",
    }
    table = gateway_players(ledger_sessions(tmp_path / "b"), "t1", "g1").table
    app = FastAPI()
    install_error_handlers(app)
    app.include_router(health_router(gateway, AwayBus(), table, broken))  # type: ignore[arg-type]
    reasons = TestClient(app).get("/readyz").json()["reasons"]
    assert reasons[0].startswith("the bus does not answer: BusUnavailableError")
    assert reasons[1].startswith("the database does not answer: OperationalError")
    assert len(reasons) == 2
