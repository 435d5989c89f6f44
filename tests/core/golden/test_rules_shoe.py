"""Golden shoes: cut card, last round of the shoe, reshuffle, reveal-and-burn.

Boundless document, "Shuffling"; DECISIONS.md rule 15 (and rule 14's round counter).
"""

from __future__ import annotations

import json
from pathlib import Path

import golden_helpers as golden
import pytest
from typer.testing import CliRunner

from boundless.cli.main import app
from boundless.core.cards import parse_cards
from boundless.core.random_source import SeededSource
from boundless.core.round import SharedRound
from boundless.core.shoe import Shoe
from boundless.core.shoe_cycle import ShoeCycle

TAIL = "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS"


def test_cut_card_sits_at_the_default_three_quarter_penetration() -> None:
    assert golden.RULES.shoe.penetration == 0.75
    shoe = Shoe.shuffled(8, golden.RULES.shoe.penetration, SeededSource(3))
    assert shoe.cut_index == 312  # 75% of 416 cards


def test_the_penetration_is_configurable() -> None:
    rules = golden.rules_with(shoe={"penetration": 0.5})
    cycle = ShoeCycle(rules, SeededSource(3))
    cycle.start_round()
    assert cycle.shoe is not None
    assert cycle.shoe.cut_index == 208  # half of 416


def test_the_cut_card_comes_out_with_the_first_card_behind_it() -> None:
    shoe = Shoe(parse_cards(TAIL.split()), cut_index=5)
    for _ in range(5):
        shoe.draw()
    assert not shoe.cut_card_out
    shoe.draw()
    assert shoe.cut_card_out


@pytest.mark.parametrize(
    ("first", "burned"),
    [("AH", 1), ("2H", 2), ("5H", 5), ("9H", 9), ("TH", 10), ("JH", 10), ("QH", 10), ("KH", 10)],
)
def test_reveal_and_burn_discards_as_many_cards_as_the_revealed_value(
    first: str, burned: int
) -> None:
    cards = parse_cards([first, *TAIL.split()])
    shoe = Shoe(cards, cut_index=None)
    record = shoe.burn()
    assert str(record.revealed) == first
    assert record.burned == cards[1 : 1 + burned]
    # The revealed card is discarded too: play starts with the card after the burned ones.
    assert shoe.position == 1 + burned
    assert shoe.draw() == cards[1 + burned]


def _play_round(cycle: ShoeCycle) -> tuple[SharedRound, int, int]:
    """One round on the cycle's shoe; returns it with the shoe position before and after."""
    start = cycle.start_round()
    assert cycle.shoe is not None
    before = cycle.shoe.position
    round_ = SharedRound(
        golden.RULES, round_in_shoe=start.round_in_shoe, chart=golden.CHART, cards=cycle.shoe
    )
    golden.seat(round_, "p")
    round_.run_to_end()
    return round_, before, cycle.shoe.position


def test_after_a_shuffle_the_first_card_is_revealed_and_burned_before_play() -> None:
    cycle = ShoeCycle(golden.RULES, SeededSource(11))
    start = cycle.start_round()
    assert start.shuffled is not None and start.shuffled.burn is not None
    burn = start.shuffled.burn
    assert cycle.shoe is not None
    assert len(burn.burned) == burn.revealed.value
    assert cycle.shoe.dealt() == (burn.revealed, *burn.burned)
    first_card = cycle.shoe.undealt()[0]
    round_ = SharedRound(
        golden.RULES, round_in_shoe=start.round_in_shoe, chart=golden.CHART, cards=cycle.shoe
    )
    golden.seat(round_, "p")
    round_.deal()
    assert round_.path_of(round_.position("p", 1)).hands[0].cards[0] == first_card


def test_the_round_in_which_the_cut_card_comes_out_is_the_last_of_the_shoe() -> None:
    cycle = ShoeCycle(golden.RULES, SeededSource(2024))
    rounds = 0
    while True:
        round_, before, after = _play_round(cycle)
        assert cycle.shoe is not None
        if rounds == 0:
            first_commitment = cycle.shoe.commitment
            cut_index = cycle.shoe.cut_index
            assert cut_index == 312
        rounds += 1
        assert round_.round_in_shoe == rounds
        assert round_.phase == "settled"  # the round finishes normally either way
        last = cycle.end_round()
        assert last == (after > cut_index)
        if last:
            assert before <= cut_index < after  # the cut card came out during this round
            break
        assert rounds < 200
    nxt = cycle.start_round()
    assert nxt.shuffled is not None  # reshuffled before the next round
    assert (nxt.shoe_number, nxt.round_in_shoe) == (2, 1)
    assert nxt.finished_shoe is not None
    assert nxt.finished_shoe.commitment == first_commitment
    assert nxt.finished_shoe.verify()
    assert nxt.commitment != first_commitment


def test_rounds_are_counted_from_the_shuffle() -> None:
    cycle = ShoeCycle(golden.RULES, SeededSource(5))
    numbers = []
    for _ in range(4):
        start = cycle.start_round()
        numbers.append(start.round_in_shoe)
        cycle.end_round()
    assert numbers == [1, 2, 3, 4]
    cycle.finish_now()
    assert cycle.start_round().round_in_shoe == 1


def test_a_finished_shoe_can_be_checked_against_its_commitment(tmp_path: Path) -> None:
    shoe = Shoe.shuffled(1, 0.75, SeededSource(9))
    reveal = shoe.reveal().to_json()
    good = tmp_path / "good.json"
    good.write_text(json.dumps(reveal))
    runner = CliRunner()
    outcome = runner.invoke(app, ["verify-shoe", str(good)])
    assert outcome.exit_code == 0
    assert outcome.stdout.startswith("ok: 52 cards")

    cards = list(reveal["cards"])  # type: ignore[call-overload]
    cards[0], cards[1] = cards[1], cards[0]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**reveal, "cards": cards}))
    outcome = runner.invoke(app, ["verify-shoe", str(bad)])
    assert outcome.exit_code == 1
    assert outcome.stdout == ""
    assert "MISMATCH" in outcome.stderr
