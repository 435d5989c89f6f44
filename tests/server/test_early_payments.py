"""Coins a round pays early are the player's for a later double in the same round.

Blackjack Unlimited pays a blackjack at once against a 2-9 up card. With the default seed the
Unlimited table's first round deals spot 1 AS QS, spot 2 5D 6D against a 3H: a player whose
whole balance is on the two spots can still double spot 2 with the blackjack's winnings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from boundless.ledger import LedgerService, check_books, make_engine, make_session_factory
from tests.server.live import play_to_settlement, start_server


def test_a_blackjack_paid_at_once_pays_for_a_double_on_the_next_spot(tmp_path: Path) -> None:
    live = start_server(tmp_path, starting_grant=2000)
    try:
        player = live.sign_up("Una")
        client = live.client(player["token"])
        client.hello()
        client.request({"type": "join", "table_id": "unlimited-1"})
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
    finally:
        live.stop()
    engine = make_engine(live.database_url)
    with make_session_factory(engine).begin() as session:
        assert check_books(session).ok
        assert LedgerService(session).wallet_balance(player["player_id"]) == expected
    engine.dispose()
