"""One rule for every name a person types (``boundless.server.typed_text``): a display name, a
private table's name and an operator's reason refuse control characters (NUL, newline, C1),
line separators and bidirectional overrides with 422 ``bad_message`` naming the character, and
nothing is created or changed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import func, select

from boundless.server.storage.models import Player
from tests.server.live import LiveServer, serving

REFUSED = {"\n": "U+000A", "\x00": "U+0000", "\u202e": "U+202E", "\u2028": "U+2028",
           "\x85": "U+0085"}  # fmt: skip


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with serving(tmp_path_factory.mktemp("names")) as server:
        yield server


def players(live: LiveServer) -> int:
    with live.app_state.server.read_sessions.begin() as session:
        return int(session.scalar(select(func.count()).select_from(Player)) or 0)


@pytest.mark.parametrize("character", REFUSED)
def test_a_display_name_with_a_control_or_bidi_character_is_refused(
    live: LiveServer, character: str
) -> None:
    before = players(live)
    answer = live.http.post("/api/v1/players", json={"display_name": f"Ana{character}lyst"})
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"] == "bad_message"
    assert REFUSED[character] in answer.json()["detail"]
    assert players(live) == before


@pytest.mark.parametrize("character", REFUSED)
def test_a_table_name_with_a_control_or_bidi_character_is_refused(
    live: LiveServer, character: str
) -> None:
    owner = live.sign_up("Owner")
    headers = {"Authorization": f"Bearer {owner['token']}"}
    created = live.http.post("/api/v1/tables", json={"title": "boo-bucks"}, headers=headers)
    assert created.status_code == 201, created.text
    table_id = created.json()["table_id"]
    renamed = live.http.patch(
        f"/api/v1/tables/{table_id}", json={"name": f"Friday{character}night"}, headers=headers
    )
    assert renamed.status_code == 422, renamed.text
    assert REFUSED[character] in renamed.json()["detail"]
    lobby = live.http.get("/api/v1/tables", headers=headers).json()
    assert [row["name"] for row in lobby if row["table_id"] == table_id] == [created.json()["name"]]
    live.http.delete(f"/api/v1/tables/{table_id}", headers=headers)


def test_printable_names_pass_trimmed(live: LiveServer) -> None:
    answer = live.http.post("/api/v1/players", json={"display_name": "  Zoë 🂡  "})
    assert answer.status_code == 201 and answer.json()["display_name"] == "Zoë 🂡"
