"""Shuffle uniformity, commitments and the shoe cycle."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from boundless.core.cards import Card, fresh_decks, parse_cards
from boundless.core.errors import InvalidCardError, ShoeExhaustedError
from boundless.core.random_source import RandomSource, SeededSource
from boundless.core.shoe import Shoe, ShoeReveal, commitment_of, fisher_yates
from boundless.core.shoe_cycle import ShoeCycle
from boundless.entropy import CryptoSource
from boundless.titles import load_title

# Upper 1% points of the chi-square distribution (standard tables).
CHI2_99 = {23: 41.638, 51: 77.386}


def _chi_square(counts: list[int]) -> float:
    expected = sum(counts) / len(counts)
    return sum((count - expected) ** 2 / expected for count in counts)


def _permutation_statistic(source: RandomSource, shuffles: int) -> float:
    counts: Counter[tuple[int, ...]] = Counter()
    for _ in range(shuffles):
        items = list(range(4))
        fisher_yates(items, source)  # type: ignore[arg-type]
        counts[tuple(items)] += 1
    return _chi_square([counts[p] for p in itertools.permutations(range(4))])


def _position_statistic(source: RandomSource, shuffles: int, card: int) -> float:
    counts = [0] * 52
    for _ in range(shuffles):
        cards = list(range(52))
        fisher_yates(cards, source)  # type: ignore[arg-type]
        counts[cards.index(card)] += 1
    return _chi_square(counts)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_all_24_orders_of_four_cards_are_equally_likely(seed: int) -> None:
    assert _permutation_statistic(SeededSource(seed), 24_000) < CHI2_99[23]


@pytest.mark.parametrize("card", [0, 25, 51])
def test_a_card_lands_in_each_of_52_places_equally_often(card: int) -> None:
    assert _position_statistic(SeededSource(card + 7), 20_800, card) < CHI2_99[51]


def test_the_cryptographic_source_is_uniform_too() -> None:
    # Two independent runs must both fail at 99% before we call it biased (false alarm 1e-4).
    statistics = [_permutation_statistic(CryptoSource(), 24_000) for _ in range(2)]
    assert min(statistics) < CHI2_99[23]


def test_the_uniformity_check_detects_a_biased_shuffle() -> None:
    class Biased:
        def randbelow(self, bound: int) -> int:
            return 0

        def token_bytes(self, count: int) -> bytes:
            return bytes(count)

    assert _permutation_statistic(Biased(), 2400) > CHI2_99[23]


def test_a_shuffled_shoe_holds_every_card_of_its_decks_once_each() -> None:
    shoe = Shoe.shuffled(8, 0.75, SeededSource(5))
    assert Counter(shoe.undealt()) == Counter(fresh_decks(8))
    assert shoe.cut_index == 312


def test_commitment_verifies_and_detects_tampering() -> None:
    shoe = Shoe.shuffled(1, 0.75, SeededSource(9))
    reveal = shoe.reveal()
    assert reveal.verify()
    assert ShoeReveal.from_json(reveal.to_json()).verify()
    swapped = list(reveal.cards)
    swapped[0], swapped[1] = swapped[1], swapped[0]
    if swapped != list(reveal.cards):
        assert not ShoeReveal(reveal.commitment, reveal.salt_hex, tuple(swapped)).verify()
    assert not ShoeReveal(reveal.commitment, "00" * 16, reveal.cards).verify()
    assert commitment_of(reveal.salt_hex, reveal.cards) == shoe.commitment


@pytest.mark.parametrize(
    ("top", "burned"), [("AS", 1), ("7D", 7), ("TC", 10), ("KH", 10), ("2S", 2)]
)
def test_reveal_and_burn_discards_the_revealed_card_and_its_value(top: str, burned: int) -> None:
    cards = parse_cards([top] + ["9C"] * 12)
    shoe = Shoe.stacked(cards)
    record = shoe.burn()
    assert record.revealed == Card.parse(top)
    assert len(record.burned) == burned
    assert shoe.position == burned + 1


def test_drawing_past_the_end_raises() -> None:
    shoe = Shoe.stacked(parse_cards(["AS"]))
    shoe.draw()
    with pytest.raises(ShoeExhaustedError):
        shoe.draw()


def test_cut_card_ends_the_shoe_after_the_round_in_progress() -> None:
    rules = load_title("boundless")
    cycle = ShoeCycle(rules, SeededSource(3))
    first = cycle.start_round()
    assert first.shuffled is not None and first.round_in_shoe == 1
    assert first.shuffled.burn is not None
    shoe = cycle.shoe
    assert shoe is not None
    while not shoe.cut_card_out:
        shoe.draw()
    assert cycle.end_round() is True
    second = cycle.start_round()
    assert second.shuffled is not None and second.finished_shoe is not None
    assert second.finished_shoe.verify()
    assert second.round_in_shoe == 1 and second.shoe_number == 2


def test_rounds_are_counted_within_a_shoe() -> None:
    cycle = ShoeCycle(load_title("boundless"), SeededSource(4))
    numbers = []
    for _ in range(3):
        numbers.append(cycle.start_round().round_in_shoe)
        cycle.end_round()
    assert numbers == [1, 2, 3]


@pytest.mark.parametrize("text", ["", "1S", "AX", "A", "10", "ASD", "11H"])
def test_bad_card_codes_are_rejected_by_name(text: str) -> None:
    with pytest.raises(InvalidCardError, match="card"):
        Card.parse(text)


def test_card_notation_round_trips() -> None:
    for card in fresh_decks(1):
        assert Card.parse(str(card)) == card
    assert Card.parse("10H") == Card.parse("TH")
    assert str(Card.parse("th")) == "TH"
