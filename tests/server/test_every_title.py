"""Every shipped title plays a round through the protocol: shared ones at their table, the others
at a private table. The server reads rule sets only; nothing here names a title."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from boundless.titles import load_game, shipped_title_keys
from tests.server.live import LiveServer, bet, play_to_settlement, serving, wait_until


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with serving(tmp_path_factory.mktemp("titles")) as server:
        yield server


@pytest.mark.parametrize("key", shipped_title_keys())
def test_a_round_of_each_title(live: LiveServer, key: str) -> None:
    rules, _ = load_game(key)
    player = live.sign_up("Tess")
    headers = {"Authorization": f"Bearer {player['token']}"}
    if rules.table.shared:
        table_id = f"{key}-1"
    else:
        created = live.http.post("/api/v1/tables", json={"title": key}, headers=headers)
        assert created.status_code == 201, created.text
        table_id = created.json()["table_id"]
    client = live.client(player["token"])
    client.hello()
    assert client.request({"type": "join", "table_id": table_id})["type"] == "ack"
    amount = rules.limits.min_main_amount * 5
    answer = bet(client, amount, table_id=table_id)
    assert answer["type"] == "ack", answer
    settled = play_to_settlement(client)
    assert settled["table_id"] == table_id
    assert settled["staked"] >= amount
    assert settled["balance"] == player["balance"] - settled["staked"] + settled["paid"]
    client.close()
    if rules.shoe.reshuffle_every_round:  # the shoe ends with the round: its reveal is public

        def revealed() -> dict[str, Any] | None:
            detail = live.http.get(f"/api/v1/records/{settled['round_id']}", headers=headers)
            shoe: dict[str, Any] = detail.json()["shoe"]
            return shoe if shoe["finished"] else None

        wait_until(lambda: revealed() is not None, 10, "the shoe's reveal")
        shoe = revealed()
        assert shoe is not None and shoe["reveal"]["verified"] is True
        public = live.http.get(f"/api/v1/shoes/{table_id}/{shoe['number']}").json()
        assert public["reveal"]["cards"] == shoe["reveal"]["cards"]
