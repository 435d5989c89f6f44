"""Play record: paging newest first, access control, the stored event log rebuilds the round."""

from __future__ import annotations

import orjson

from boundless.core.round import SharedRound
from boundless.ledger import make_engine
from boundless.server.event_codec import decode_events
from boundless.server.messages import player_part
from boundless.titles import load_game
from tests.server.live import LiveServer, bet, play_to_settlement


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_records_page_newest_first_and_only_for_their_player(server: LiveServer) -> None:
    ana, ben = server.sign_up("Ana"), server.sign_up("Ben")
    client = server.client(ana["token"])
    client.hello()
    client.request({"type": "join", "table_id": "boundless-1"})
    rounds = []
    for _ in range(3):
        assert bet(client, 1000)["type"] == "ack"
        rounds.append(play_to_settlement(client)["round_id"])
    first = server.http.get("/api/v1/records?limit=2", headers=_auth(ana["token"])).json()
    assert [item["round_id"] for item in first["items"]] == rounds[::-1][:2]
    second = server.http.get(
        f"/api/v1/records?limit=2&before={first['next_before']}", headers=_auth(ana["token"])
    ).json()
    assert [item["round_id"] for item in second["items"]] == [rounds[0]]
    assert second["next_before"] is None
    server.admin("pause", reason="records stay readable")
    paused = server.http.get("/api/v1/records", headers=_auth(ana["token"]))
    assert paused.status_code == 200 and len(paused.json()["items"]) == 3
    server.admin("resume")
    other = server.http.get(f"/api/v1/records/{rounds[0]}", headers=_auth(ben["token"]))
    assert other.status_code == 403 and other.json()["error"] == "forbidden"
    assert (
        server.http.get("/api/v1/records/boundless-1:999", headers=_auth(ana["token"])).status_code
        == 404
    )
    assert server.http.get(f"/api/v1/records/{rounds[0]}").status_code == 401
    assert server.http.get("/api/v1/records", headers=_auth(ben["token"])).json()["items"] == []
    client.close()


def test_the_stored_event_log_rebuilds_the_round(server: LiveServer) -> None:
    player, client = server.seated("Cleo")
    assert bet(client, 2000, pair=100)["type"] == "ack"
    settled = play_to_settlement(
        client, lambda position: "hit" if position["hands"][-1]["total"] < 13 else "stand"
    )
    table_id, round_no = settled["round_id"].rsplit(":", 1)
    engine = make_engine(server.database_url)
    with engine.connect() as connection:
        events_json = connection.exec_driver_sql(
            "SELECT events_json FROM server_rounds WHERE table_id = ? AND round_no = ?",
            (table_id, int(round_no)),
        ).scalar_one()
    engine.dispose()
    rules, chart = load_game("boundless")
    rebuilt = SharedRound.rebuild(rules, decode_events(orjson.loads(events_json)), chart)
    assert rebuilt.phase == "settled"
    assert player_part(rebuilt, player["player_id"])["positions"] == settled["results"]
    assert int(rebuilt.paid().sum()) == settled["paid"]
    client.close()


def test_shoe_endpoint_keeps_the_order_secret_until_the_shoe_is_finished(
    server: LiveServer,
) -> None:
    player, client = server.seated("Dan")
    bet(client, 1000)
    settled = play_to_settlement(client)
    detail = server.http.get(
        f"/api/v1/records/{settled['round_id']}", headers=_auth(player["token"])
    ).json()
    shoe = server.http.get(f"/api/v1/shoes/boundless-1/{detail['shoe']['number']}").json()
    assert shoe["commitment"] == detail["shoe"]["commitment"]
    assert shoe["finished"] is False and shoe["reveal"] is None
    assert detail["shoe"]["reveal"] is None
    client.close()
