"""``rebet``: the last bets at this table again (x1, Repeat) or doubled (x2, Double), capped at
the limits and the balance, closed side bets left out, ``wrong_phase`` outside the betting
window; the rule itself (``repeated_bets``) on its own, then over the protocol on ``serve``."""

from __future__ import annotations

import time
from typing import Any

import pytest

from boundless.core.errors import InsufficientCoinsError
from boundless.server.tables.rebet import bets_of_positions, repeated_bets
from boundless.server.tables.stats import card_value, dealer_result
from boundless.titles import load_title
from tests.server.live import Client, LiveServer, bet, open_private_table, play_to_settlement

RULES = load_title("boundless")  # main 1.00-1,000.00, each side bet 1.00-100.00, unit 1.00
OPEN = {"pair": 3, "bust_bonus": 8, "lucky_trio": 8, "poker_trio": 8}
RICH = 10**9


def test_once_and_twice_within_the_limits() -> None:
    last = {1: {"main": 1000, "pair": 500}}
    assert repeated_bets(last, RULES, OPEN, RICH, 1) == last
    assert repeated_bets(last, RULES, OPEN, RICH, 2) == {1: {"main": 2000, "pair": 1000}}
    top = {1: {"main": 80_000, "pair": 8000}}
    assert repeated_bets(top, RULES, OPEN, RICH, 2) == {1: {"main": 100_000, "pair": 10_000}}


def test_closed_or_unoffered_side_bets_are_left_out() -> None:
    last = {1: {"main": 1000, "pair": 500, "lucky_trio": 200}}
    closed = {**OPEN, "pair": 0}
    assert repeated_bets(last, RULES, closed, RICH, 1) == {1: {"main": 1000, "lucky_trio": 200}}
    unoffered = {"bust_bonus": None}
    assert repeated_bets(last, RULES, unoffered, RICH, 2) == {1: {"main": 2000}}


def test_the_balance_scales_every_amount_down_in_whole_units() -> None:
    last = {1: {"main": 3000, "pair": 1000}}
    # x2 asks 8,000 of a 5,000 balance: 5/8 of each, rounded down to whole 1.00 units.
    assert repeated_bets(last, RULES, OPEN, 5000, 2) == {1: {"main": 3700, "pair": 1200}}
    # A side bet scaled under its minimum is left out; the main bet stays.
    assert repeated_bets({1: {"main": 9000, "pair": 100}}, RULES, OPEN, 900, 1) == {
        1: {"main": 800}
    }
    with pytest.raises(InsufficientCoinsError):
        repeated_bets(last, RULES, OPEN, 50, 1)


def test_a_recorded_round_reads_back_as_its_bets() -> None:
    positions = [
        {"spot": 2, "main": 1500, "side_bets": {"pair": {"stake": 100}, "bust": {"stake": 0}}},
        {"spot": 1, "main": 0, "side_bets": {"pair": {"stake": 200}}},
    ]
    assert bets_of_positions(positions) == {2: {"main": 1500, "pair": 100}, 1: {"pair": 200}}


def _rebet(client: Client, multiplier: int | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": "rebet",
        "table_id": "boundless-1",
        "bet_id": f"r{time.monotonic_ns()}",
    }
    if multiplier is not None:
        body["multiplier"] = multiplier
    return client.request(body)


def _in_betting(client: Client, multiplier: int | None = None) -> dict[str, Any]:
    """A rebet in the next betting window (the round gap is short, the window too)."""
    for _ in range(4):
        answer = _rebet(client, multiplier)
        if answer.get("error") != "wrong_phase":
            return answer
        client.wait_for("state", lambda m: (m.get("public") or {}).get("phase") == "betting")
    return answer


def test_rebet_over_the_protocol_and_the_table_history(server: LiveServer) -> None:
    player, client = server.seated("Rebecca")
    nothing = _in_betting(client)
    assert nothing["type"] == "error" and nothing["error"] == "not_found", nothing
    first = bet(client, 1000, pair=200)
    assert first["type"] == "ack", first
    play_to_settlement(client)
    doubled = _in_betting(client, 2)
    assert doubled["type"] == "ack", doubled
    assert doubled["bets"] == {"1": {"main": 2000, "pair": 400}}
    assert doubled["multiplier"] == 2
    settled = play_to_settlement(client)
    assert settled["staked"] == 2400
    # The last round is now the doubled one: x1 repeats it as it was.
    again = _in_betting(client)
    assert again["type"] == "ack" and again["bets"] == {"1": {"main": 2000, "pair": 400}}
    client.wait_for("state", lambda m: (m.get("public") or {}).get("phase") != "betting")
    late = _rebet(client)
    assert late["type"] == "error" and late["error"] == "wrong_phase", late
    bad = _rebet(client, 3)
    assert bad["type"] == "error" and bad["error"] == "bad_message", bad
    client.close()
    # The table's history for this player: their rounds here, newest first, with the outcomes.
    headers = {"Authorization": f"Bearer {player['token']}"}
    here = server.http.get("/api/v1/records?table_id=boundless-1&limit=20", headers=headers)
    items = here.json()["items"]
    # The third round (the last x1) may have settled by now, played on by the autoplay.
    stakes = [item["staked"] for item in items]
    assert stakes in ([2400, 1200], [2400, 2400, 1200]), items
    assert all(item["outcomes"] and item["table_id"] == "boundless-1" for item in items)
    assert items[-2]["net"] == settled["net"]
    elsewhere = server.http.get("/api/v1/records?table_id=unlimited-1", headers=headers)
    assert elsewhere.json()["items"] == []
    odd = server.http.get("/api/v1/records?table_id=no%20such", headers=headers)
    assert odd.status_code == 422 and odd.json()["error"] == "bad_message", odd.text


def test_the_table_statistics(server: LiveServer) -> None:
    player, client = server.seated("Stella")
    headers = {"Authorization": f"Bearer {player['token']}"}
    empty = server.http.get("/api/v1/tables/boundless-1/stats", headers=headers).json()
    assert (empty["rounds"], empty["bust_rate"], empty["shoe_number"]) == (0, None, None)
    assert bet(client, 1000)["type"] == "ack"
    settled = play_to_settlement(client)
    client.close()
    stats = server.http.get("/api/v1/tables/boundless-1/stats", headers=headers).json()
    assert stats["rounds"] == 1 and sum(stats["dealer_results"].values()) == 1
    # Every card of the round was shown by its end: the player's and the dealer's.
    hands = settled["results"][0]["hands"]
    shown = sum(len(hand["cards"]) for hand in hands)
    assert sum(stats["cards_this_shoe"].values()) >= shown + 2
    assert list(stats["cards_this_shoe"]) == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10"]
    missing = server.http.get("/api/v1/tables/nowhere-9/stats", headers=headers)
    assert missing.status_code == 404
    anonymous = server.http.get("/api/v1/tables/boundless-1/stats")
    assert anonymous.status_code == 401
    # Someone else's private table is not there for this player; its owner reads it.
    owner, other_client, private_id = open_private_table(server, "boo-bucks", "Olga")
    other_client.close()
    hidden = server.http.get(f"/api/v1/tables/{private_id}/stats", headers=headers)
    assert hidden.status_code == 404
    own = {"Authorization": f"Bearer {owner['token']}"}
    assert server.http.get(f"/api/v1/tables/{private_id}/stats", headers=own).json()["rounds"] == 0


def test_a_dealer_hand_and_a_card_as_the_statistics_count_them() -> None:
    assert dealer_result(["AS", "KD"]) == "blackjack"
    assert dealer_result(["TS", "6D", "9C"]) == "bust"
    assert dealer_result(["TS", "7D"]) == "17"
    assert dealer_result(["5S", "AD", "AC"]) == "17"
    assert dealer_result(["9H"]) is None
    assert [card_value(code) for code in ("AS", "TD", "KC", "9H")] == ["A", "10", "10", "9"]
