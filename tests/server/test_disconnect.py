"""A player who disconnects mid-round is autoplayed by the rules and settled normally."""

from __future__ import annotations

import httpx

from tests.server.live import LiveServer, bet, wait_until


def test_a_disconnected_players_round_plays_on_and_settles(server: LiveServer) -> None:
    player = server.sign_up("Gone")
    headers = {"Authorization": f"Bearer {player['token']}"}
    client = server.client(player["token"])
    client.hello()
    client.request({"type": "join", "table_id": "boundless-1"})
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
