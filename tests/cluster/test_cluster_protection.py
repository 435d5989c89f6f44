"""Player protection on a real cluster (``boundless cluster --jurisdiction uk``: a coordinator and
two gateways on the machine's NATS and PostgreSQL): a wager limit counts the stakes taken on
both gateways, and a time-out taken on one gateway refuses sign-in on the other."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from tests.cluster.conftest import Services
from tests.cluster.launch import BOOT_SECONDS, launch_cluster, status, wait_for
from tests.cluster.nats_cluster import free_port_run
from tests.server.live import bet, play_to_settlement, socket_client

pytestmark = pytest.mark.slow


def test_limits_and_time_out_hold_across_two_gateways(services: Services, tmp_path: Path) -> None:
    port = free_port_run(2)
    timers = ["--timer-scale", "0.3", "--round-gap-seconds", "0.3"]
    cluster = launch_cluster(
        services, port, 2, ["--jurisdiction", "uk", *timers], tmp_path / "err.log"
    )
    try:
        for gateway_port in (port, port + 1):
            wait_for(lambda p=gateway_port: status(p) is not None, BOOT_SECONDS, "a gateway")
        one = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=20)
        two = httpx.Client(base_url=f"http://127.0.0.1:{port + 1}", timeout=20)
        player = one.post("/api/v1/players", json={"display_name": "Jo"}).json()
        auth = {"Authorization": f"Bearer {player['token']}"}
        limits = two.put("/api/v1/me/limits", json={"wager": {"day": 1500}}, headers=auth)
        assert limits.status_code == 200 and limits.json()["wager"]["day"] == 1500
        first = socket_client(port, player["token"])
        assert bet(first, 1000)["type"] == "ack"  # on gateway 1
        play_to_settlement(first)
        first.close()
        second = socket_client(port + 1, player["token"])
        over = bet(second, 600)  # on gateway 2: 1000 + 600 > 1500
        assert over["error"] == "limit_reached", over
        assert "day wager limit of 1500 (1000 wagered)" in over["detail"]
        assert bet(second, 500)["type"] == "ack"  # exactly at the limit
        play_to_settlement(second)
        second.close()
        taken = two.post("/api/v1/me/time-out", json={"hours": 24}, headers=auth)
        assert taken.status_code == 200
        refused = one.get("/api/v1/me", headers=auth)
        assert refused.status_code == 403 and refused.json()["error"] == "timed_out"
        with connect(f"ws://127.0.0.1:{port}/ws") as socket:  # hello: timed_out, not welcome
            socket.send(json.dumps({"v": 1, "type": "hello", "token": player["token"]}))
            answer = json.loads(socket.recv(timeout=20))
        assert answer["type"] == "error" and answer["error"] == "timed_out"
        one.close()
        two.close()
    finally:
        cluster.stop()
    errors = (tmp_path / "err.log").read_text()
    assert "Traceback" not in errors, errors
