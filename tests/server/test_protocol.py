"""Protocol v1 with real WebSocket clients against a running server."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import select

from boundless.ledger import LedgerService, check_books, make_engine, make_session_factory
from tests.server.live import LiveServer, bet, play_to_settlement, serving


def test_sign_up_hello_and_me(server: LiveServer) -> None:
    player = server.sign_up("Ana")
    assert player["balance"] == 100_000 and player["token"]
    me = server.http.get("/api/v1/me", headers={"Authorization": f"Bearer {player['token']}"})
    assert me.json() == {
        "player_id": player["player_id"],
        "display_name": "Ana",
        "balance": 100_000,
    }
    client = server.client(player["token"])
    welcome = client.hello()
    assert welcome["protocol"] == 1 and welcome["player"]["balance"] == 100_000
    assert abs(welcome["server_time_ms"]) > 0
    client.close()


def test_token_is_stored_hashed(server: LiveServer) -> None:
    player = server.sign_up("Ben")
    engine = make_engine(server.database_url)
    with engine.connect() as connection:
        stored = connection.exec_driver_sql(
            "SELECT token_hash FROM server_players WHERE id = ?", (player["player_id"],)
        ).scalar_one()
    engine.dispose()
    assert player["token"] not in stored and len(stored) == 64


def test_bad_token_and_missing_hello_are_refused(server: LiveServer) -> None:
    client = server.client("not-a-token")
    client.send_raw(json.dumps({"v": 1, "type": "hello", "token": "not-a-token"}))
    assert client.recv()["error"] == "unauthorized"
    client.close()
    player = server.sign_up("Cleo")
    other = server.client(player["token"])
    other.send({"type": "join", "table_id": "boundless-1"})
    assert other.recv()["error"] == "unauthorized"
    other.close()


def test_errors_over_http_have_one_shape(server: LiveServer) -> None:
    empty = server.http.post("/api/v1/players", json={"display_name": ""})
    assert empty.status_code == 422 and empty.json()["error"] == "bad_message"
    anonymous = server.http.get("/api/v1/me")
    assert anonymous.status_code == 401 and anonymous.json()["error"] == "unauthorized"
    admin = server.http.post("/api/v1/admin/tables/boundless-1/pause")
    assert admin.status_code == 401 and set(admin.json()) == {"error", "detail"}
    missing = server.http.get("/api/v1/shoes/boundless-1/999")
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"


def test_lobby_and_titles(server: LiveServer) -> None:
    tables = server.http.get("/api/v1/tables").json()
    titles = server.http.get("/api/v1/titles").json()
    shared = sorted(f"{title['key']}-1" for title in titles if title["shared"])
    assert sorted(row["table_id"] for row in tables) == shared
    assert "boundless-1" in shared and not any(row["private"] for row in tables)
    rules = server.http.get("/api/v1/titles/boundless").json()
    assert rules["timers"]["decision_seconds"] == 10


def test_a_round_from_bet_to_record(server: LiveServer) -> None:
    ana, ben = server.sign_up("Ana"), server.sign_up("Ben")
    clients = [server.client(ana["token"]), server.client(ben["token"])]
    for client in clients:
        client.hello()
        assert client.request({"type": "join", "table_id": "boundless-1"})["type"] == "ack"
    answer = bet(clients[0], 1000, bet_id="ana-1")
    assert answer["type"] == "ack" and answer["balance"] == 99_000
    retry = bet(clients[0], 1000, bet_id="ana-1")
    assert retry["type"] == "ack" and retry["balance"] == 99_000 and retry["replayed"]
    assert bet(clients[1], 2000, pair=100)["type"] == "ack"
    settled = [play_to_settlement(client) for client in clients]
    me = server.http.get("/api/v1/me", headers={"Authorization": f"Bearer {ana['token']}"})
    assert me.json()["balance"] == settled[0]["balance"] == 99_000 + settled[0]["paid"]
    assert settled[0]["staked"] == 1000
    round_id = settled[0]["round_id"]
    page = server.http.get(
        "/api/v1/records", headers={"Authorization": f"Bearer {ana['token']}"}
    ).json()
    assert page["items"][0]["round_id"] == round_id
    assert page["items"][0]["net"] == settled[0]["net"]
    detail = server.http.get(
        f"/api/v1/records/{round_id}", headers={"Authorization": f"Bearer {ana['token']}"}
    ).json()
    assert detail["balance_before"] == 100_000
    assert detail["balance_after"] == settled[0]["balance"]
    assert detail["rules_version"] and detail["shoe"]["commitment"]
    assert [card["to"] for card in detail["cards"][:4]] == ["spot", "dealer_up", "spot", "hole"]
    assert detail["decisions"], "the player's stand (or the autoplay) is in the record"
    kinds = [item["kind"] for item in detail["transactions"]]
    assert "main" in kinds and "settle" in kinds
    engine = make_engine(server.database_url)
    with make_session_factory(engine).begin() as session:
        assert check_books(session).ok
        assert LedgerService(session).wallet_balance(ana["player_id"]) == settled[0]["balance"]
        assert select(1) is not None
    engine.dispose()
    for client in clients:
        client.close()


def test_hole_card_is_not_sent_before_it_is_revealed(server: LiveServer) -> None:
    player, client = server.seated("Dan")
    bet(client, 1000)
    settled = play_to_settlement(client)
    detail = server.http.get(
        f"/api/v1/records/{settled['round_id']}",
        headers={"Authorization": f"Bearer {player['token']}"},
    ).json()
    hole = next(card["card"] for card in detail["cards"] if card["to"] == "hole")
    for message in client.seen:
        public = message.get("public") or {}
        dealer = public.get("dealer") or {}
        if public.get("phase") in ("betting", "insurance", "decisions"):
            assert len(dealer.get("cards", [])) <= 1
            assert "hole_card" not in json.dumps(message)
        if message.get("type") == "step":
            assert message["card"] != hole or message["step"] >= 1
    client.close()


def test_a_flooding_socket_is_rate_limited(tmp_path: Path) -> None:
    with serving(tmp_path, messages_per_second=5) as live:
        player = live.sign_up("Flo")
        client = live.client(player["token"])
        client.hello()
        ids = [client.send({"type": "resync", "table_id": "boundless-1"}) for _ in range(30)]
        answers = [client.answer(request_id) for request_id in ids]
        limited = [answer for answer in answers if answer.get("error") == "rate_limited"]
        assert limited and len(limited) < 30
        assert answers[0]["type"] == "ack"
        client.close()
