"""Hypothesis: malformed and out-of-order messages get one error each and change nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.server.live import Client, LiveServer, assert_books, serving

TYPES = ["hello", "join", "leave", "bet", "insurance", "decide", "choose_side_bets", "resync"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
bad_table = st.sampled_from(["nope-1", "", "x" * 70, "bad id", 5, None])


@st.composite
def shaped_messages(draw: st.DrawFn) -> dict[str, Any]:
    """Messages with the right keys but wrong values, versions or tables."""
    body: dict[str, Any] = {
        "v": draw(st.sampled_from([1, 1, 1, 0, 2, "1", None, True])),
        "type": draw(st.sampled_from([*TYPES, "nope", 3])),
        "table_id": draw(bad_table),
    }
    for key in draw(st.sets(st.sampled_from(["spot", "step", "action", "bets", "kind", "bet_id"]))):
        body[key] = draw(json_values)
    if draw(st.booleans()):
        body["extra"] = draw(json_values)
    return body


@st.composite
def out_of_order(draw: st.DrawFn) -> dict[str, Any]:
    """Well-formed messages for the real table that the rules refuse right now (betting, no bet)."""
    kind = draw(st.sampled_from(["decide", "insurance", "bet", "choose_side_bets"]))
    envelope = {"v": 1, "type": kind, "table_id": "boundless-1"}
    if kind == "decide":
        return envelope | {
            "spot": draw(st.integers(1, 7)),
            "step": draw(st.integers(1, 100)),
            "action": draw(st.sampled_from(["hit", "stand", "double", "split", "surrender"])),
        }
    if kind == "insurance":
        return envelope | {
            "spot": draw(st.integers(1, 7)),
            "kind": draw(st.sampled_from(["insurance", "even_money"])),
        }
    if kind == "choose_side_bets":
        return envelope | {"side_bets": ["pair"]}
    amounts = draw(
        st.sampled_from(
            [
                {"main": draw(st.integers(1, 99))},
                {"main": 150},
                {"main": draw(st.integers(100_001, 10**9))},
                {"main": 1000, "no_such_bet": 100},
                {"main": 1000, "pair": draw(st.integers(10_001, 10**6))},
                {"main": 0},
                {"main": -100},
                {"main": 10.5},
            ]
        )
    )
    spot = draw(st.sampled_from(["1", "1", "2", "0", "8"]))
    bet_id = draw(st.from_regex(r"[a-z0-9]{1,12}", fullmatch=True))
    return envelope | {"bet_id": bet_id, "bets": {spot: amounts}}


frames = st.one_of(
    st.text(max_size=40).map(lambda text: ("text", text)),
    json_values.map(lambda value: ("json", value)),
    shaped_messages().map(lambda value: ("json", value)),
    out_of_order().map(lambda value: ("json", value)),
)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with serving(tmp_path_factory.mktemp("malformed")) as server:
        yield server


@pytest.fixture(scope="module")
def player(live: LiveServer) -> Iterator[tuple[Client, str]]:
    signed, client = live.seated("Fuzz")
    yield client, signed["player_id"]
    client.close()


def _answers_until_fence(client: Client, fence: str) -> list[dict[str, Any]]:
    answers = []
    while True:
        message = client.recv(10)
        if message.get("type") in ("ack", "error"):
            if message.get("request_id") == fence:
                return answers
            answers.append(message)


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(frame=frames)
def test_bad_messages_get_an_error_and_change_nothing(
    live: LiveServer, player: tuple[Client, str], frame: tuple[str, Any]
) -> None:
    client, _ = player
    table = live.table()
    round_no, seated = table.round_no, len(table.round.book)
    kind, value = frame
    client.send_raw(value if kind == "text" else json.dumps(value))
    answers = _answers_until_fence(
        client, client.send({"type": "resync", "table_id": "boundless-1", "request_id": "fence"})
    )
    assert len(answers) == 1, answers
    assert answers[0]["type"] == "error", (value, answers)
    assert set(answers[0]) == {"type", "request_id", "error", "detail"}
    assert (table.round_no, len(table.round.book)) == (round_no, seated)
    _, player_id = player
    assert_books(live.database_url, {player_id: 100_000})
