"""Coins a round pays early are the player's for a later double in the same round.

Blackjack Unlimited pays a blackjack at once against a 2-9 up card. With the default seed the
Unlimited table's first round deals spot 1 AS QS, spot 2 5D 6D against a 3H: a player whose
whole balance is on the two spots can still double spot 2 with the blackjack's winnings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from boundless.server.config import TimerSettings
from tests.server.live import assert_books, play_to_settlement, serving


def test_a_blackjack_paid_at_once_pays_for_a_double_on_the_next_spot(tmp_path: Path) -> None:
    with serving(tmp_path, starting_grant=2000) as live:
        player, client = live.seated("Una", "unlimited-1")
        answer = client.request(
            {
                "type": "bet",
                "table_id": "unlimited-1",
                "bet_id": "both-spots",
                "bets": {"1": {"main": 1000}, "2": {"main": 1000}},
            }
        )
        assert answer["type"] == "ack" and answer["balance"] == 0

        def policy(position: dict[str, Any]) -> str | None:
            if position["spot"] == 2 and "double" in position["legal_actions"]:
                return "double"
            return "stand"

        settled = play_to_settlement(client, policy)
        hands = [hand for position in settled["results"] for hand in position["hands"]]
        assert [hand["cards"][:2] for hand in hands] == [["AS", "QS"], ["5D", "6D"]]
        assert hands[0]["outcome"] == "blackjack" and hands[0]["payout"] == 2500
        assert hands[1]["bet"] == 2000  # doubled with the blackjack's coins
        assert settled["staked"] == 3000 and settled["paid"] == 2500 + hands[1]["payout"]
        expected = 2000 - 3000 + 2500 + hands[1]["payout"]
        assert settled["balance"] == expected
        client.close()
    assert_books(live.database_url, {player["player_id"]: expected})


EARLY_BLACKJACK_SEED = 75
"""``start_server(seed=75)`` seeds unlimited-1 with 76: its first round, three spots, deals
spot 1 AD TD (a blackjack, paid at once against the 2H), spot 2 9D 2H (a double), spot 3 2D JC."""
SLOW_DECISIONS = TimerSettings(
    betting_seconds=0.3, insurance_seconds=0.3, decision_seconds=30.0, round_gap_seconds=0.1
)


def test_a_cancelled_round_with_an_early_payment_shows_its_true_net(tmp_path: Path) -> None:
    """Staked 3,000 and a 1,000 double, the blackjack's 2,500 paid at once: after a cancel the
    wallet is back where it started, and the record and ``settled`` say net 0, not -2,500."""
    with serving(
        tmp_path, starting_grant=3000, timers=SLOW_DECISIONS, seed=EARLY_BLACKJACK_SEED
    ) as live:
        player, client = live.seated("Una", "unlimited-1")
        headers = {"Authorization": f"Bearer {player['token']}"}
        bets = {str(spot): {"main": 1000} for spot in (1, 2, 3)}
        answer = client.request(
            {"type": "bet", "table_id": "unlimited-1", "bet_id": "three", "bets": bets}
        )
        assert answer["type"] == "ack" and answer["balance"] == 0
        step_of_spot = {}
        while 3 not in step_of_spot:
            message = client.recv(30)
            if message["type"] == "state" and message["public"]["phase"] == "decisions":
                step_of_spot[message["public"]["current_spot"]] = message["public"]["step"]
                spot = message["public"]["current_spot"]
                action = "double" if spot == 2 else "stand"
                if spot in (1, 2) and step_of_spot[spot] == 1:
                    decide = {"type": "decide", "table_id": "unlimited-1", "spot": spot}
                    client.send({**decide, "step": 1, "action": action})
        you = client.wait_for("you", lambda m: m["player"]["positions"][2]["legal_actions"])
        hands = [position["hands"] for position in you["player"]["positions"]]
        assert [hand["cards"] for hand in hands[0]] == [["AD", "TD"]]
        assert hands[1][0]["bet"] == 2000  # the double was paid with the blackjack's coins
        cancelled = live.admin("cancel", table_id="unlimited-1", reason="dealer error")
        assert cancelled.status_code == 200, cancelled.text
        settled = client.wait_for("settled")
        assert settled["cancelled"] == "dealer error"
        assert (settled["staked"], settled["paid"], settled["net"]) == (4000, 4000, 0)
        assert settled["balance"] == 3000
        record = live.http.get(f"/api/v1/records/{settled['round_id']}", headers=headers).json()
        assert record["status"] == "cancelled"
        assert (record["staked"], record["paid"], record["net"]) == (4000, 4000, 0)
        assert (record["balance_before"], record["balance_after"]) == (3000, 3000)
        client.close()
    assert_books(live.database_url, {player["player_id"]: 3000})
