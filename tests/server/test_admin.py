"""Operator pause / resume / cancel through the admin API (and the CLI against a live server)."""

from __future__ import annotations

import subprocess
import sys
import time

from boundless.server.config import TimerSettings
from tests.server.live import ADMIN_TOKEN, Client, LiveServer, Message, bet, served

SLOW_STEPS = TimerSettings(
    betting_seconds=0.3, insurance_seconds=0.3, decision_seconds=6.0, round_gap_seconds=0.1
)
slow_server = served(timers=SLOW_STEPS)


def until_decision(client: Client) -> Message:
    """Bet each round until a decision step is open for this player; its ``state``."""
    for _ in range(6):
        assert bet(client, 1000)["type"] == "ack"
        while True:
            message = client.recv(15)
            if message["type"] == "settled":
                break
            timer = message.get("timer") or {}
            if message["type"] == "state" and timer.get("kind") == "decision":
                return message
        client.wait_for("state", lambda m: (m.get("public") or {}).get("phase") == "betting")
    raise AssertionError("no decision step in six rounds")


def test_pause_freezes_the_timer_and_resume_restores_it(slow_server: LiveServer) -> None:
    _, client = slow_server.seated("Ana")
    state = until_decision(client)
    paused = slow_server.admin("pause", reason="maintenance")
    assert paused.status_code == 200, paused.text
    frozen = paused.json()
    assert frozen["paused"] and frozen["timer"]["deadline_ms"] is None
    remaining = frozen["timer"]["remaining_ms"]
    assert 0 < remaining <= 6000
    step = state["public"]["step"]
    refused = client.request(
        {"type": "decide", "table_id": "boundless-1", "spot": 1, "step": step, "action": "stand"}
    )
    assert refused["error"] == "table_paused"
    assert slow_server.admin("pause").json()["error"] == "conflict"
    time.sleep(1.0)
    resumed = slow_server.admin("resume").json()
    left = resumed["timer"]["deadline_ms"] - resumed["server_ms"]
    assert remaining - 300 <= left <= remaining + 50, (remaining, left)
    answer = client.request(
        {"type": "decide", "table_id": "boundless-1", "spot": 1, "step": step, "action": "stand"}
    )
    assert answer["type"] == "ack"
    client.close()


def test_cancel_refunds_every_stake_and_is_recorded(slow_server: LiveServer) -> None:
    player, client = slow_server.seated("Ben")
    headers = {"Authorization": f"Bearer {player['token']}"}
    until_decision(client)
    before = slow_server.http.get("/api/v1/me", headers=headers).json()["balance"]
    cancelled = slow_server.admin("cancel", reason="dealer error")
    assert cancelled.status_code == 200, cancelled.text
    refunds = cancelled.json()["refunds"]
    assert refunds == [{"player_id": player["player_id"], "amount": 1000}]
    notice = client.wait_for("notice", lambda m: m["kind"] == "cancelled")
    assert notice["detail"]["reason"] == "dealer error"
    settled = client.wait_for("settled")
    assert settled["net"] == 0 and settled["balance"] == before + 1000
    record = slow_server.http.get(f"/api/v1/records/{settled['round_id']}", headers=headers)
    assert record.json()["status"] == "cancelled" and record.json()["net"] == 0
    again = slow_server.admin("cancel")
    assert again.status_code == 409 and again.json()["error"] == "conflict"
    client.close()


def test_admin_needs_the_token(slow_server: LiveServer) -> None:
    wrong = slow_server.http.post(
        "/api/v1/admin/tables/boundless-1/pause", headers={"Authorization": "Bearer nope"}
    )
    assert wrong.status_code == 401
    unknown = slow_server.admin("pause", table_id="nowhere-1")
    assert unknown.status_code == 404 and unknown.json()["error"] == "not_found"


def test_admin_cli_against_a_running_server(slow_server: LiveServer) -> None:
    def admin(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "boundless.cli.main",
                "admin",
                *args,
                "--url",
                slow_server.base_url,
                "--token",
                ADMIN_TOKEN,
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )

    listed = admin("tables")
    assert listed.returncode == 0 and "boundless-1" in listed.stdout
    paused = admin("pause", "boundless-1", "--reason", "cli check")
    assert paused.returncode == 0 and "paused" in paused.stdout
    assert "PAUSED" in admin("tables").stdout
    assert admin("resume", "boundless-1").returncode == 0
    nothing = admin("cancel", "boundless-1")
    assert nothing.returncode == 1 and "conflict" in nothing.stderr
