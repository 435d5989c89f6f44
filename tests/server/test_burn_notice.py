"""The shuffle notice shows the revealed card and how many were burned, never which: the burned
cards' identities reach a watcher only with the shoe's reveal, as part of its card order."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from boundless.core.cards import parse_cards
from boundless.core.shoe import BurnRecord
from boundless.server.tables.shoe_notices import public_burn
from boundless.server.titles import TitleCatalog
from boundless.titles import load_game
from tests.server.live import LiveServer, serving


def test_public_burn_has_the_count_only() -> None:
    revealed, *burned = parse_cards(["5H", "2C", "3D", "4S", "6H", "7C"])
    body = public_burn(BurnRecord(revealed=revealed, burned=tuple(burned)))
    assert body == {"revealed": "5H", "burned_count": 5}
    assert public_burn(None) is None


def one_deck_catalog() -> TitleCatalog:
    """Boundless from a single deck cut early: shoes finish every few rounds, and every card
    code is unique in its shoe (so a burned card seen anywhere would be a leak)."""
    rules, chart = load_game("boundless")
    shoe = rules.shoe.model_copy(update={"decks": 1, "penetration": 0.5, "min_cards_behind_cut": 0})
    return TitleCatalog({"boundless": (rules.model_copy(update={"shoe": shoe}), chart)})


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    with serving(tmp_path, bots=2, catalog=one_deck_catalog()) as server:
        yield server


def test_no_frame_before_the_reveal_names_a_burned_card(live: LiveServer) -> None:
    watcher = live.client(live.sign_up("Watcher")["token"])
    watcher.hello()
    assert watcher.request({"type": "join", "table_id": "boundless-1"})["type"] == "ack"
    frames: list[str] = []
    shuffled: dict[int, dict[str, object]] = {}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        text = watcher.socket.recv(timeout=30)
        assert isinstance(text, str)
        frames.append(text)
        message = json.loads(text)
        if message.get("type") != "notice":
            continue
        detail = message["detail"]
        if message["kind"] == "shuffle":
            assert set(detail["burn"]) == {"revealed", "burned_count"}
            shuffled[detail["shoe_number"]] = {"burn": detail["burn"], "from": len(frames)}
        if message["kind"] == "shoe_finished" and detail["shoe_number"] in shuffled:
            seen = shuffled[detail["shoe_number"]]
            burn = seen["burn"]
            assert isinstance(burn, dict)
            cards = detail["cards"]
            assert cards[0] == burn["revealed"]
            burned = cards[1 : 1 + burn["burned_count"]]
            assert len(burned) == burn["burned_count"]
            start = seen["from"]
            assert isinstance(start, int)
            before_reveal = frames[start - 1 : -1]
            leaked = [code for code in burned for frame in before_reveal if f'"{code}"' in frame]
            assert leaked == []
            watcher.close()
            return
    pytest.fail("no shoe was shuffled and finished while watching")
