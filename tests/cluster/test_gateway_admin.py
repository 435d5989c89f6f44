"""A gateway's operator routes are ``boundless serve``'s: the admin token, ``/metrics`` with the
same metric names, the console's table list, and pause / resume / cancel answered by the
coordinator over the bus (the app called in the coordinator's own event loop)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from sqlalchemy.orm import Session, sessionmaker

from boundless.server.cluster import MemoryBus
from boundless.server.cluster.gateway import Gateway
from boundless.server.cluster.gateway_app import create_gateway_app
from boundless.server.config import ServerConfig
from tests.cluster.conftest import run
from tests.cluster.players import gateway_players, ledger_sessions
from tests.cluster.test_cluster_control import coordinator_for, first

TOKEN = "operator-secret"
ADMIN = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def sessions(tmp_path: Path) -> sessionmaker[Session]:
    return ledger_sessions(tmp_path)


def test_a_gateway_serves_the_operator_routes_and_sends_pause_to_the_coordinator(
    sessions: sessionmaker[Session],
) -> None:
    table_id = "boundless-1"
    players = gateway_players(sessions, table_id, "a")
    bus = MemoryBus()
    gateway = Gateway(bus, table_id, "a", players.new_slice, watcher=players.table)
    players.table.gateway = gateway
    config = ServerConfig(admin_token=TOKEN, signup_rate="100/minute")
    app = create_gateway_app(gateway, bus, players.table, config, sessions, sessions)
    seen: dict[str, httpx.Response] = {}

    async def body() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as http:
            path = f"/api/v1/admin/tables/{table_id}"
            seen["no_token"] = await http.post(f"{path}/pause")
            seen["nobody"] = await http.post(f"{path}/pause", headers=ADMIN)
            seen["metrics"] = await http.get("/metrics")
            seen["unknown"] = await http.post("/api/v1/admin/tables/nope/pause", headers=ADMIN)
            seen["bad"] = await http.post(f"{path}/pause", headers=ADMIN, json={"reason": ""})
            coordinator = coordinator_for(bus, sessions, table_id, betting_seconds=1.0)

            async def operate() -> None:
                await first(bus, table_id, "RoundOpened")
                reason = {"reason": "tea"}
                seen["pause"] = await http.post(f"{path}/pause", headers=ADMIN, json=reason)
                seen["list"] = await http.get("/api/v1/admin/tables", headers=ADMIN)
                seen["again"] = await http.post(f"{path}/pause", headers=ADMIN)
                seen["resume"] = await http.post(f"{path}/resume", headers=ADMIN)
                seen["cancel"] = await http.post(f"{path}/cancel", headers=ADMIN)
                stale = {"reason": "late", "round_id": f"{table_id}:7"}  # not the round in play
                seen["stale"] = await http.post(f"{path}/cancel", headers=ADMIN, json=stale)
                seen["check"] = await http.get("/api/v1/admin/ledger-check", headers=ADMIN)
                seen["metrics_after"] = await http.get("/metrics")

            await asyncio.gather(coordinator.run(rounds=1), gateway.run(rounds=1), operate())

    run(body(), timeout=60)
    assert seen["no_token"].status_code == 401
    assert seen["nobody"].status_code == 503
    assert seen["nobody"].json()["error"] == "coordinator_unavailable"
    metrics = seen["metrics"].text
    for name in ("boundless_rounds_total", "boundless_open_sockets", "boundless_errors_total"):
        assert name in metrics
    assert seen["unknown"].status_code == 404 and seen["bad"].status_code == 422
    assert seen["pause"].status_code == 200 and seen["pause"].json()["paused"] is True
    (row,) = seen["list"].json()
    assert (row["table_id"], row["paused"], row["pause_reason"]) == (table_id, True, "tea")
    assert row["timer"]["kind"] == "betting" and row["timer"]["remaining_ms"] is not None
    assert seen["again"].status_code == 409
    assert seen["again"].json() == {
        "error": "conflict", "detail": f"table {table_id!r} is already paused"
    }  # fmt: skip
    assert seen["resume"].status_code == 200 and seen["resume"].json()["paused"] is False
    assert seen["cancel"].status_code == 409  # nobody bet
    assert "no round with bets to cancel" in seen["cancel"].json()["detail"]
    assert seen["stale"].status_code == 409
    assert f"{table_id}:7 is not the round in play" in seen["stale"].json()["detail"]
    assert seen["check"].json()["ok"] is True
    after = seen["metrics_after"].text  # serve's error counter counts the gateway's refusals
    assert 'boundless_errors_total{code="coordinator_unavailable"} 1.0' in after
    assert 'boundless_errors_total{code="conflict"} 3.0' in after
