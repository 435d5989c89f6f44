"""A gateway's HTTP face is ``boundless serve``'s for its one table: the web client, sign-up,
the lobby, titles, the play record, ``/ws`` (protocol v1), the same error shape; private tables
are refused. And the coordinator's shoes are stored and published as ``serve``'s are."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from sqlalchemy.orm import Session, sessionmaker
from websockets.sync.client import connect

from boundless.core.round.phases import BETTING
from boundless.server.cluster import MemoryBus
from boundless.server.cluster.gateway import Gateway
from boundless.server.cluster.gateway_app import create_gateway_app
from boundless.server.cluster.processes import StoredShoes
from boundless.server.config import ServerConfig, default_web_dir, transport_options
from boundless.server.tables.repository import TableRepository
from tests.cluster.harness import RULES
from tests.cluster.players import gateway_players, ledger_sessions
from tests.server.live import Client, free_port, wait_until


@pytest.fixture
def sessions(tmp_path: Path) -> sessionmaker[Session]:
    return ledger_sessions(tmp_path)


@contextmanager
def serving(app: Any) -> Iterator[int]:
    """The app on uvicorn (``boundless serve``'s transport settings) in a thread; its port."""
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, port=port, log_level="warning", lifespan="off", **transport_options())
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_until(lambda: server.started, 30.0, "the gateway app to start")
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=15)


def test_a_gateway_serves_what_serve_serves_a_player(sessions: sessionmaker[Session]) -> None:
    players = gateway_players(sessions, "boundless-1", "gateway-1")
    bus = MemoryBus()
    gateway = Gateway(bus, "boundless-1", "gateway-1", players.new_slice, watcher=players.table)
    config = ServerConfig(web_dir=default_web_dir(), signup_rate="100/minute")
    app = create_gateway_app(gateway, bus, players.table, config, sessions, sessions)
    with serving(app) as port, httpx.Client(base_url=f"http://127.0.0.1:{port}") as http:
        assert "<html" in http.get("/").text.lower()  # the web client
        ana = http.post("/api/v1/players", json={"display_name": "Ana"}).json()
        auth = {"Authorization": f"Bearer {ana['token']}"}
        assert http.get("/api/v1/me", headers=auth).json()["balance"] == ana["balance"]
        (row,) = http.get("/api/v1/tables").json()
        assert (row["table_id"], row["title"], row["private"]) == (
            "boundless-1",
            "boundless",
            False,
        )
        assert [t["key"] for t in http.get("/api/v1/titles").json()] == ["boundless"]
        refused = http.post("/api/v1/tables", json={"title": "boundless"}, headers=auth)
        assert refused.status_code == 409 and refused.json()["error"] == "conflict"
        assert http.get("/api/v1/records", headers=auth).json() == {
            "items": [],
            "next_before": None,
        }
        assert http.get("/api/v1/records").json()["error"] == "unauthorized"
        assert http.get("/api/cluster").json()["gateway"] == "gateway-1"
        client = Client(connect(f"ws://127.0.0.1:{port}/ws").__enter__(), ana["token"])
        client.hello()
        joined = client.request({"type": "join", "table_id": "boundless-1"})
        assert joined["type"] == "ack"
        state = next(m for m in client.seen if m["type"] == "state")
        assert (state["table_id"], state["public"]) == ("boundless-1", None)
        assert client.request({"type": "join", "table_id": "other-1"})["error"] == "not_found"
        late = client.request(
            {
                "type": "bet",
                "table_id": "boundless-1",
                "bet_id": "b1",
                "bets": {"1": {"main": 1000}},
            }
        )
        assert late["type"] == "error"  # no round open yet
        # Repeat/Double, the table's history and its statistics are the gateway's too.
        rebet = {"type": "rebet", "table_id": "boundless-1", "bet_id": "r1", "multiplier": 2}
        assert client.request(rebet)["error"] == "wrong_phase"
        here = http.get("/api/v1/records?table_id=boundless-1", headers=auth).json()
        assert here == {"items": [], "next_before": None}
        stats = http.get("/api/v1/tables/boundless-1/stats", headers=auth).json()
        assert (stats["table_id"], stats["rounds"], stats["bust_rate"]) == ("boundless-1", 0, None)
        client.close()


def test_the_coordinators_shoes_are_stored_and_published(sessions: sessionmaker[Session]) -> None:
    shoes = StoredShoes("boundless-1", RULES, sessions)
    shoes.lead()
    dealer = shoes(1)
    assert dealer.phase == BETTING and dealer.opened.round_in_shoe == 1
    ((kind, shuffle),) = shoes.take_notices()
    assert kind == "shuffle" and shuffle["shoe_number"] == shoes.shoe_number == 1
    with sessions.begin() as session:
        stored = TableRepository(session).shoe("boundless-1", 1)
        assert stored is not None and stored.commitment == dealer.opened.shoe_commitment
        assert not stored.finished  # its order stays secret while it is dealt from
    successor = StoredShoes("boundless-1", RULES, sessions)
    successor.lead()  # a new coordinator never deals on its predecessor's shoe: published
    successor(1)
    assert successor.shoe_number == 2
    with sessions.begin() as session:
        first = TableRepository(session).shoe("boundless-1", 1)
        assert first is not None and first.finished
