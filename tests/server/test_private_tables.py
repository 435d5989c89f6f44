"""Private tables on demand for titles that are not shared (tested with a solo variant)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from boundless.server.titles import TitleCatalog
from boundless.titles import load_game
from tests.server.live import LiveServer, bet, play_to_settlement, serving


def solo_catalog() -> TitleCatalog:
    rules, chart = load_game("boundless")
    solo = rules.model_copy(
        update={
            "title": rules.title.model_copy(update={"key": "solo", "name": "Solo test table"}),
            "table": rules.table.model_copy(update={"shared": False}),
        }
    )
    return TitleCatalog({"boundless": (rules, chart), "solo": (solo, chart)})


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    with serving(tmp_path, catalog=solo_catalog()) as server:
        yield server


def test_private_table_for_its_owner_only(live: LiveServer) -> None:
    owner, other = live.sign_up("Owner"), live.sign_up("Other")
    headers = {"Authorization": f"Bearer {owner['token']}"}
    shared = live.http.post("/api/v1/tables", json={"title": "boundless"}, headers=headers)
    assert shared.status_code == 409 and shared.json()["error"] == "shared_title"
    created = live.http.post("/api/v1/tables", json={"title": "solo"}, headers=headers)
    assert created.status_code == 201, created.text
    table_id = created.json()["table_id"]
    assert created.json()["private"] is True
    anonymous = [row["table_id"] for row in live.http.get("/api/v1/tables").json()]
    assert table_id not in anonymous
    mine = [row["table_id"] for row in live.http.get("/api/v1/tables", headers=headers).json()]
    assert table_id in mine

    intruder = live.client(other["token"])
    intruder.hello()
    assert intruder.request({"type": "join", "table_id": table_id})["error"] == "forbidden"
    intruder.close()

    client = live.client(owner["token"])
    client.hello()
    assert client.request({"type": "join", "table_id": table_id})["type"] == "ack"
    chosen = client.request(
        {"type": "choose_side_bets", "table_id": table_id, "side_bets": ["pair"]}
    )
    assert chosen["type"] == "ack", chosen
    assert bet(client, 1000, table_id=table_id)["type"] == "ack"
    settled = play_to_settlement(client)
    assert settled["table_id"] == table_id and settled["staked"] == 1000
    client.close()
