"""A resplit title served from an operator's folder (issue 12): ``docs/examples/rules`` read as
``serve --titles-dir`` reads it, a private Boo Bucks table with resplits to four hands, and one
round played through the protocol from a shoe whose shuffle puts the worked eights scenario on
top (``tests/core/golden/test_rules_resplit.py``). The ``you`` views, the ``settled`` message,
the play record and the ledger all carry the four hands."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from boundless.cli.rule_files import titles_catalog
from boundless.core.cards import Card, fresh_decks, parse_cards
from tests.server.live import (
    LiveServer,
    Message,
    assert_books,
    bet,
    open_private_table,
    play_to_settlement,
    start_server,
)

FOLDER = Path(__file__).parents[2] / "docs" / "examples" / "rules"
TITLE = "boo-bucks-resplit"
STEPS = "8H 3C TD 8C 8S 2D 9S 8H"  # the eights scenario: 8S 8D against 6H (hole TC), dealer 2H
EIGHTS = parse_cards(f"8S 6H 8D TC {STEPS} 2H".split())
DECISIONS = ["split", "split", "double", "split", "stand", "double", "stand"]


class StackedShuffle:
    """A random source whose Fisher-Yates answers put ``top`` first in every shoe it shuffles.

    The shuffle swaps position i (from the last down) with an answer j <= i, so position i is
    final once answered: the answers keep ``top``'s cards below i until the first positions,
    which are answered last, take them in order. Other draws (none in this round) get 0.
    """

    def __init__(self, decks: int, top: list[Card]) -> None:
        self.size = 52 * decks
        self.top = top
        self.answers: list[int] = []

    def _plan(self) -> list[int]:
        cards = fresh_decks(self.size // 52)
        needed = Counter(self.top)
        answers: list[int] = []
        for index in range(self.size - 1, 0, -1):
            if index < len(self.top):
                other = cards.index(self.top[index], 0, index + 1)
            else:
                left = Counter(cards[: index + 1])
                other = next(j for j in range(index, -1, -1) if left[cards[j]] > needed[cards[j]])
            cards[index], cards[other] = cards[other], cards[index]
            answers.append(other)
        assert cards[: len(self.top)] == self.top
        return answers

    def randbelow(self, bound: int) -> int:
        if bound == self.size:
            self.answers = self._plan()
        return self.answers.pop(0) if self.answers else 0

    def token_bytes(self, count: int) -> bytes:
        return bytes(count)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    catalog = titles_catalog(FOLDER)  # what serve --titles-dir does, chart derived in memory
    assert catalog is not None
    rules, chart = catalog.get(TITLE)
    assert (rules.split.max_hands, rules.split.resplit_aces, chart is not None) == (4, True, True)
    server = start_server(
        tmp_path_factory.mktemp("resplit"),
        catalog=catalog,
        randomness=lambda: StackedShuffle(rules.shoe.decks, list(EIGHTS)),
    )
    yield server
    server.stop()


def test_a_round_with_resplits_to_four_hands_plays_through_the_protocol(live: LiveServer) -> None:
    player, client, table_id = open_private_table(live, TITLE, "Rosa")
    headers = {"Authorization": f"Bearer {player['token']}"}
    assert bet(client, 1000, table_id=table_id)["type"] == "ack"
    queue = list(DECISIONS)
    settled = play_to_settlement(client, lambda position: queue.pop(0))
    assert queue == []
    (result,) = settled["results"]
    assert [hand["cards"] for hand in result["hands"]] == [
        ["8S", "3C", "TD"],
        ["8H", "8S"],
        ["8C", "2D", "9S"],
        ["8D", "8H"],
    ]
    assert [(hand["bet"], hand["outcome"], hand["payout"]) for hand in result["hands"]] == [
        (2000, "win", 4000),
        (1000, "lose", 0),
        (2000, "win", 4000),
        (1000, "lose", 0),
    ]
    assert (settled["staked"], settled["paid"], settled["net"]) == (6000, 8000, 2000)
    assert settled["balance"] == player["balance"] + 2000
    views = [m for m in client.seen if m.get("type") == "you" and m["player"]["positions"]]
    assert max(len(m["player"]["positions"][0]["hands"]) for m in views) == 4
    _check_record(live, settled["round_id"], headers)
    client.close()
    assert_books(live.database_url, {player["player_id"]: player["balance"] + 2000})


def _check_record(live: LiveServer, round_id: str, headers: dict[str, str]) -> None:
    detail: Message = live.http.get(f"/api/v1/records/{round_id}", headers=headers).json()
    decisions: list[dict[str, Any]] = detail["decisions"]
    assert [(d["hand"], d["step"], d["action"]) for d in decisions if d["by"] == "player"] == [
        (1, 1, "split"),
        (1, 2, "split"),
        (1, 3, "double"),
        (2, 5, "split"),
        (2, 6, "stand"),
        (3, 7, "double"),
        (4, 9, "stand"),
    ]
    steps = [card["card"] for card in detail["cards"] if card["to"] == "step"]
    assert steps == STEPS.split()
    (position,) = detail["positions"]
    assert len(position["hands"]) == 4
