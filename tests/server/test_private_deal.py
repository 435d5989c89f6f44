"""A private table waits for nobody: it deals on the owner's bet and closes the insurance window
once every offer is answered, whatever its timers say (here a minute each)."""

from __future__ import annotations

from typing import Any

import pytest

from boundless.server.config import TimerSettings
from tests.server.live import Client, LiveServer, Message, bet, served

SLOW_WINDOWS = TimerSettings(
    betting_seconds=60.0, insurance_seconds=60.0, decision_seconds=2.0, round_gap_seconds=0.1
)
"""Long enough that any deal or close within the test's waits is not the clock's doing."""
live = served(timers=SLOW_WINDOWS)


def _open_private(live: LiveServer) -> tuple[Client, str]:
    owner = live.sign_up("Solo")
    created = live.http.post(
        "/api/v1/tables",
        json={"title": "boo-bucks"},
        headers={"Authorization": f"Bearer {owner['token']}"},
    )
    assert created.status_code == 201, created.text
    table_id = str(created.json()["table_id"])
    client = live.client(owner["token"])
    client.hello()
    assert client.request({"type": "join", "table_id": table_id})["type"] == "ack"
    return client, table_id


def _phase(message: dict[str, Any]) -> str | None:
    return (message.get("public") or {}).get("phase")


def test_private_table_deals_on_the_bet(live: LiveServer) -> None:
    client, table_id = _open_private(live)
    assert bet(client, 1000, table_id=table_id)["type"] == "ack"
    # The 60 s betting window would still be open: the deal comes because the owner bet.
    dealt = client.wait_for("state", lambda m: _phase(m) not in (None, "betting"), timeout=10)
    assert dealt["round_id"] == f"{table_id}:1"
    client.close()


def test_private_insurance_closes_when_every_offer_is_answered(live: LiveServer) -> None:
    client, table_id = _open_private(live)
    for _ in range(60):  # rounds until the dealer shows an ace (seeded: it comes early)
        assert bet(client, 1000, table_id=table_id)["type"] == "ack"
        while True:
            message = client.recv(10)
            if message.get("type") == "you" and message["phase"] == "insurance":
                offers = [p for p in message["player"]["positions"] if p["insurance_offer"]]
                if offers:
                    break
            if message.get("type") == "settled":
                offers = []
                break
            if message.get("type") == "you" and message["phase"] == "decisions":
                for position in message["player"]["positions"]:
                    if position["legal_actions"]:
                        _stand(client, table_id, message, position)
        if not offers:
            continue
        for position in offers:
            answer = client.request(
                {
                    "type": "insurance",
                    "table_id": table_id,
                    "spot": position["spot"],
                    "kind": "decline",
                }
            )
            assert answer["type"] == "ack", answer
        closed = client.wait_for("state", lambda m: _phase(m) != "insurance", timeout=10)
        assert _phase(closed) != "insurance"
        client.close()
        return
    pytest.fail("no insurance offer in 60 rounds")


def test_decline_without_an_offer_is_refused(live: LiveServer) -> None:
    client, table_id = _open_private(live)
    refused = client.request(
        {"type": "insurance", "table_id": table_id, "spot": 1, "kind": "decline"}
    )
    assert refused["type"] == "error" and refused["error"] == "wrong_phase"
    client.close()


def test_owner_names_and_closes_a_private_table(live: LiveServer) -> None:
    client, table_id = _open_private(live)
    owner_token = client.token
    headers = {"Authorization": f"Bearer {owner_token}"}
    other = {"Authorization": f"Bearer {live.sign_up('Other')['token']}"}
    path = f"/api/v1/tables/{table_id}"

    named = live.http.patch(path, json={"name": "  Friday table "}, headers=headers)
    assert named.status_code == 200 and named.json()["name"] == "Friday table"
    assert live.http.patch(path, json={"name": "   "}, headers=headers).status_code == 422
    refused = live.http.patch(path, json={"name": "Mine now"}, headers=other)
    assert refused.status_code == 403 and refused.json()["error"] == "forbidden"
    shared = live.http.delete("/api/v1/tables/boundless-1", headers=headers)
    assert shared.status_code == 403

    # A round with a bet in play keeps the table open.
    assert bet(client, 1000, table_id=table_id)["type"] == "ack"
    in_play = live.http.delete(path, headers=headers)
    assert in_play.status_code == 409 and in_play.json()["error"] == "table_in_play"
    _play_out(client, table_id)
    client.wait_for("state", lambda m: _phase(m) == "betting", timeout=10)

    closed = live.http.delete(path, headers=headers)
    assert closed.status_code == 200, closed.text
    client.wait_for("notice", lambda m: m["kind"] == "closed", timeout=5)
    lobby = live.http.get("/api/v1/tables", headers=headers).json()
    assert table_id not in [row["table_id"] for row in lobby]
    assert live.http.delete(path, headers=headers).status_code == 404
    client.close()


def _stand(client: Client, table_id: str, you: Message, position: Message) -> None:
    """Stand the position at the step the ``you`` message asks about."""
    client.send(
        {
            "type": "decide",
            "table_id": table_id,
            "spot": position["spot"],
            "step": you["step"],
            "action": "stand",
        }
    )


def _play_out(client: Client, table_id: str) -> None:
    """Stand on every decision and decline every offer until the round settles."""
    while True:
        message = client.recv(10)
        if message.get("type") == "settled":
            return
        if message.get("type") != "you":
            continue
        for position in message["player"]["positions"]:
            if message["phase"] == "insurance" and position["insurance_offer"]:
                kind = "decline"
                client.send(
                    {
                        "type": "insurance",
                        "table_id": table_id,
                        "spot": position["spot"],
                        "kind": kind,
                    }
                )
            if message["phase"] == "decisions" and position["legal_actions"]:
                _stand(client, table_id, message, position)


def test_lobby_row_lists_the_last_dealer_results(live: LiveServer) -> None:
    client, table_id = _open_private(live)
    headers = {"Authorization": f"Bearer {client.token}"}

    def row() -> dict[str, Any]:
        rows = live.http.get("/api/v1/tables", headers=headers).json()
        return next(r for r in rows if r["table_id"] == table_id)

    assert row()["recent"] == []
    for _ in range(2):
        assert bet(client, 1000, table_id=table_id)["type"] == "ack"
        _play_out(client, table_id)
    recent = row()["recent"]
    assert [entry["round_no"] for entry in recent] == [2, 1]
    for entry in recent:
        assert len(entry["cards"]) >= 2 and 2 <= entry["total"] <= 26
    client.close()
