"""The table's bets on each spot in the public state on ``serve``: how many positions and how
much (main and side bets) each spot holds, every player's bets counted exactly, nobody's named.
A cluster gateway shows the same figures from the bet close on
(tests/cluster/test_spot_totals.py).
"""

from __future__ import annotations

from typing import Any

from boundless.core.round.views import spot_bets
from tests.server.live import LiveServer, bet, open_private_table

TABLE = "unlimited-1"  # a shared table of three spots


def _closed(message: dict[str, Any]) -> bool:
    return (message.get("public") or {}).get("phase") not in (None, "betting", "waiting")


def test_every_players_bets_on_each_spot_in_the_public_state(server: LiveServer) -> None:
    _, ana = server.seated("Ana", TABLE)
    _, ben = server.seated("Ben", TABLE)
    assert bet(ana, 1000, TABLE)["type"] == "ack"
    # Ben bets on spot 1 and spot 2, in the same betting window as Ana.
    both = ben.request(
        {
            "type": "bet",
            "table_id": TABLE,
            "bet_id": "ben-1",
            "bets": {"1": {"main": 500}, "2": {"main": 300}},
        }
    )
    assert both["type"] == "ack", both
    state = ana.wait_for("state", _closed, timeout=30)
    assert state["public"]["spot_bets"] == {
        "1": {"positions": 2, "main": 1500, "side": 0},
        "2": {"positions": 1, "main": 300, "side": 0},
    }
    # The same figures come from the round itself (the one rule both paths use).
    round_ = server.table(TABLE).round
    assert round_ is not None and spot_bets(round_) == state["public"]["spot_bets"]
    ana.close()
    ben.close()


def test_side_bets_count_in_their_spots_total(server: LiveServer) -> None:
    _, client, table_id = open_private_table(server, "boo-bucks", "Sid")
    answer = client.request(
        {
            "type": "bet",
            "table_id": table_id,
            "bet_id": "sid-1",
            "bets": {"1": {"main": 1000, "trifecta": 200}, "2": {"main": 500}},
        }
    )
    assert answer["type"] == "ack", answer
    state = client.wait_for("state", _closed, timeout=30)
    assert state["public"]["spot_bets"] == {
        "1": {"positions": 1, "main": 1000, "side": 200},
        "2": {"positions": 1, "main": 500, "side": 0},
    }
    client.close()
