"""Hypothesis: with a decision step open, messages out of order or not the player's to make are
refused, and the round (its event log), the open step and the coins stay exactly as they were."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boundless.server.config import TimerSettings
from tests.server.live import Client, LiveServer, assert_books, bet, serving

SPLITTABLE_FOURS_AGAINST_TWO = 100
"""First round of this seed's shoe: the spot gets 4C 4D, the dealer shows 2D (no insurance)."""
LONG_STEP = TimerSettings(
    betting_seconds=0.3, insurance_seconds=0.3, decision_seconds=300, round_gap_seconds=0.1
)


@st.composite
def refused(draw: st.DrawFn) -> dict[str, Any]:
    table = "boundless-1"
    choice = draw(st.integers(0, 6))
    if choice == 0:  # a step that is not open
        return {
            "type": "decide",
            "table_id": table,
            "spot": 1,
            "step": draw(st.integers(2, 100)),
            "action": draw(st.sampled_from(["hit", "stand", "double", "split", "surrender"])),
        }
    if choice == 1:  # a spot the player has no bet on
        return {
            "type": "decide",
            "table_id": table,
            "spot": draw(st.integers(2, 7)),
            "step": 1,
            "action": draw(st.sampled_from(["hit", "stand"])),
        }
    if choice == 2:  # an action this title never offers
        return {"type": "decide", "table_id": table, "spot": 1, "step": 1, "action": "surrender20"}
    if choice == 3:  # betting is closed
        return {
            "type": "bet",
            "table_id": table,
            "bet_id": draw(st.from_regex(r"[a-z0-9]{1,16}", fullmatch=True)),
            "bets": {"1": {"main": draw(st.integers(1, 10).map(lambda n: n * 100))}},
        }
    if choice == 4:  # the insurance window is not open
        return {
            "type": "insurance",
            "table_id": table,
            "spot": 1,
            "kind": draw(st.sampled_from(["insurance", "even_money"])),
        }
    if choice == 5:
        return {"type": "choose_side_bets", "table_id": table, "side_bets": ["pair"]}
    return {"type": "hello", "token": draw(st.text(min_size=1, max_size=20))}


@pytest.fixture(scope="module")
def round_in_decisions(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[LiveServer, Client, str]]:
    with serving(
        tmp_path_factory.mktemp("order"), timers=LONG_STEP, seed=SPLITTABLE_FOURS_AGAINST_TWO
    ) as live:
        player, client = live.seated("Otto")
        assert bet(client, 1000)["type"] == "ack"
        client.wait_for("state", lambda m: (m.get("timer") or {}).get("kind") == "decision")
        yield live, client, player["player_id"]
        client.close()


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(body=refused())
def test_refused_messages_change_nothing(
    round_in_decisions: tuple[LiveServer, Client, str], body: dict[str, Any]
) -> None:
    live, client, player_id = round_in_decisions
    table = live.table()
    round_ = table.round
    before = (len(round_.events), round_.phase, round_.step, table.round_no)
    legal = sorted(action.word for action in round_.legal_actions(player_id, 1))
    answer = client.request(body)
    assert answer["type"] == "error", (body, answer)
    assert set(answer) == {"type", "request_id", "error", "detail"}
    assert (len(round_.events), round_.phase, round_.step, table.round_no) == before
    assert sorted(action.word for action in round_.legal_actions(player_id, 1)) == legal
    assert legal == ["double", "hit", "split", "stand", "surrender"]
    assert_books(live.database_url, {player_id: 99_000})
