"""Insurance through the protocol, with a seeded shoe whose first round has an Ace up."""

from __future__ import annotations

from pathlib import Path

from tests.server.live import assert_books, bet, play_to_settlement, serving

ACE_UP_DEALER_BLACKJACK = 28
"""First round of this seed's shoe: the spot gets 6S KD, the dealer AC with TH in the hole."""


def test_insurance_is_staked_and_pays_two_to_one(tmp_path: Path) -> None:
    with serving(tmp_path, seed=ACE_UP_DEALER_BLACKJACK) as live:
        player, client = live.seated("Ivy")
        assert bet(client, 1000)["type"] == "ack"
        offer = client.wait_for(
            "you", lambda m: m["player"]["positions"][0]["insurance_offer"] == "insurance"
        )
        assert offer["player"]["positions"][0]["legal_actions"] == []
        wrong = client.request(
            {"type": "insurance", "table_id": "boundless-1", "spot": 1, "kind": "even_money"}
        )
        assert wrong["error"] == "illegal_action"
        # The only decision of the window closes it early: with the dealer's blackjack the round
        # may settle before the next answers arrive.
        mark = len(client.seen)
        taken = client.request(
            {"type": "insurance", "table_id": "boundless-1", "spot": 1, "kind": "insurance"}
        )
        assert taken["type"] == "ack" and taken["balance"] == 98_500
        again = client.request(
            {"type": "insurance", "table_id": "boundless-1", "spot": 1, "kind": "insurance"}
        )
        assert again["type"] == "error"
        settled = play_to_settlement(client, since=mark)
        assert settled["staked"] == 1500 and settled["paid"] == 1500
        assert settled["balance"] == 100_000
        insurance = settled["results"][0]["insurance"]
        assert insurance == {"kind": "insurance", "stake": 500, "outcome": "win", "payout": 1500}
        detail = live.http.get(
            f"/api/v1/records/{settled['round_id']}",
            headers={"Authorization": f"Bearer {player['token']}"},
        ).json()
        assert "insurance" in [item["kind"] for item in detail["transactions"]]
        assert [card["card"] for card in detail["cards"]] == ["6S", "AC", "KD", "TH"]
        client.close()
    assert_books(live.database_url, {player["player_id"]: 100_000})
