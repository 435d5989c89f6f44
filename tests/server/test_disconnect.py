"""A player who disconnects mid-round is autoplayed by the rules and settled normally."""

from __future__ import annotations

from pathlib import Path

import httpx

from boundless.server.config import TimerSettings
from tests.server.live import LiveServer, bet, serving, wait_until


def test_a_disconnected_players_round_plays_on_and_settles(server: LiveServer) -> None:
    player, client = server.seated("Gone")
    headers = {"Authorization": f"Bearer {player['token']}"}
    placed = bet(client, 1000)
    assert placed["type"] == "ack"
    client.close()

    def recorded() -> bool:
        items = server.http.get("/api/v1/records", headers=headers).json()["items"]
        return bool(items) and items[0]["round_id"] == placed["round_id"]

    wait_until(recorded, 20, "the abandoned round to settle")
    detail = server.http.get(f"/api/v1/records/{placed['round_id']}", headers=headers).json()
    assert detail["status"] == "settled" and detail["staked"] == 1000
    assert all(decision["by"] != "player" for decision in detail["decisions"])
    me = httpx.get(f"{server.base_url}/api/v1/me", headers=headers).json()
    assert me["balance"] == detail["balance_after"] == 99_000 + detail["paid"]


def test_a_player_who_leaves_is_not_waited_for(tmp_path: Path) -> None:
    with serving(
        tmp_path,
        timers=TimerSettings(betting_seconds=0.3, decision_seconds=300, round_gap_seconds=0.1),
        seed=100,  # the first round stops for decisions (4C 4D against 2D)
    ) as live:
        _, client = live.seated("Lea")
        assert bet(client, 1000)["type"] == "ack"
        client.wait_for("state", lambda m: (m.get("timer") or {}).get("kind") == "decision")
        assert client.request({"type": "leave", "table_id": "boundless-1"})["type"] == "ack"
        settled = client.wait_for("settled", timeout=20)  # not the 300 s decision timer
        decisions = [d for hand in settled["results"][0]["hands"] for d in hand["decisions"]]
        assert decisions and all(d["by"] == "autoplay" for d in decisions)
        client.close()
