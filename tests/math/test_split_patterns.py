"""Splitting valued from pair-card states (:mod:`boundless.math.exact.split_patterns`).

Held to a published exact resplit figure to all its digits, to the every-card recursion of
:mod:`.split_exact` (a different route to the same value) on full shoes, to a plain
round-by-round definition on small shoes, and to all of J. A. Nairn's single-deck values
against every up card.
"""

from __future__ import annotations

import csv
from functools import cache
from pathlib import Path

import pytest
from main_game_rules import classic, resplitting
from nairn_basic_strategy import NairnSplitStrategy

from boundless.math.exact.main_game import first_move_values
from boundless.math.exact.split_exact import ExactSplitRules, exact_split_value, single_deck_shoe
from boundless.math.exact.split_patterns import (
    UnsplitOptimalStrategy,
    pattern_split_value,
    stand_values,
)

# Eric Farmer's strategy calculator 6.3 on a 19-card shoe (no aces; four 2s, four 3s, two 4s,
# two 7s, seven tens), S17, double any two cards and after splits, resplits to four hands,
# CDZ-: 2-2 against a 7 (https://blackjackinfo.com/community/threads/software-update-with-new-
# split-evs.22710/page-5), percent of the bet to nine decimals. A shoe chosen so that the
# split hands' decisions do not depend on the post-split convention.
FARMER_SHOE = (0, 4, 4, 2, 0, 0, 2, 0, 0, 7)
FARMER = {"stand": -61.639194139, "hit": -13.266733267, "double": -123.278388278}
FARMER_SPLIT = -76.210220335
PRINTED = 5e-12  # half a unit of the ninth decimal of a percentage


def test_farmers_small_shoe_resplit_value_to_all_its_digits() -> None:
    rules = ExactSplitRules(FARMER_SHOE, 7, False, 4, resplit_aces=False)
    split = pattern_split_value(rules, 2, UnsplitOptimalStrategy(rules))
    assert split == pytest.approx(FARMER_SPLIT / 100, abs=PRINTED)
    # the main analysis gives his other moves too; its split hands play their own convention
    main = resplitting(classic(1, double_after_split=True), 4)
    moves = first_move_values(main, 7, 2, 2, shoe=(*FARMER_SHOE, 0, 0, 0))
    for move, printed in FARMER.items():
        assert moves[move] == pytest.approx(printed / 100, abs=PRINTED)
    # Behind four hands the dealer can run out of cards here (5e-4 of the rounds); the
    # every-card recursion settles each hand after the hands before it and lands elsewhere.
    every_card = exact_split_value(rules, 2, UnsplitOptimalStrategy(rules))
    assert abs(every_card - split) > 5e-6


def test_split_once_matches_farmers_sixteen_digits() -> None:
    """2-2 against a 6, one deck, S17, split once, no double after a split, CDZ-."""
    rules = ExactSplitRules(single_deck_shoe(), 6, False, 2)
    ours = pattern_split_value(rules, 2, UnsplitOptimalStrategy(rules, double_after_split=False))
    assert ours == pytest.approx(0.1189818683947885, abs=5e-16)


CASES = [  # (up, hits soft 17, pair, most hands, resplit aces, strategy); each under 2 s
    (6, False, 8, 4, True, "nairn-any"),
    (6, False, 10, 4, True, "nairn-none"),
    (4, True, 9, 4, True, "nairn-10-11"),
    (2, True, 8, 3, True, "nairn-any"),
    (6, False, 10, 4, True, "cdz"),
    (6, True, 9, 4, True, "cdz"),
    (5, False, 2, 2, True, "cdz"),
    (3, False, 7, 3, True, "cdz-no-double"),
    (9, False, 1, 4, True, "nairn-any"),
    (9, False, 1, 4, False, "nairn-any"),
    # an ace or a ten up, given no dealer blackjack (the hole card summed over)
    (1, False, 8, 2, True, "nairn-any"),
    (10, False, 1, 4, True, "nairn-any"),
    (1, False, 1, 4, False, "cdz"),
    (10, True, 9, 2, True, "cdz"),
]


@pytest.mark.parametrize(("up", "h17", "pair", "hands", "aces", "strategy"), CASES)
def test_pair_card_states_equal_following_every_card(
    up: int, h17: bool, pair: int, hands: int, aces: bool, strategy: str
) -> None:
    """Two routes to one value on a full deck, where no shoe can run out."""
    rules = ExactSplitRules(single_deck_shoe(), up, h17, hands, resplit_aces=aces)
    if strategy.startswith("nairn"):
        played = NairnSplitStrategy(up, h17, strategy.removeprefix("nairn-"))
    else:
        played = UnsplitOptimalStrategy(rules, double_after_split=strategy == "cdz")
    ours = pattern_split_value(rules, pair, played)
    assert ours == pytest.approx(exact_split_value(rules, pair, played), abs=1e-12)


def second_cards_first(rules: ExactSplitRules, pair: int, strategy: NairnSplitStrategy) -> float:
    """The plain definition of the pattern method: every split hand's second card dealt (a
    pair card making another hand while the rules allow), then each hand played out alone from
    that shoe and settled against a dealer drawing from what it left."""
    start = list(rules.shoe)
    start[rules.up - 1] -= 1

    def draws(shoe: tuple[int, ...]) -> list[tuple[int, float, tuple[int, ...]]]:
        unseen = sum(shoe)
        return [
            (card, count / unseen, (*shoe[: card - 1], count - 1, *shoe[card:]))
            for card, count in enumerate(shoe, start=1)
            if count
        ]

    @cache
    def alone(cards: tuple[int, ...], shoe: tuple[int, ...], bet: int) -> float:
        hard = sum(cards)
        if hard > 21:
            return -bet
        total = hard + 10 if 1 in cards and hard <= 11 else hard
        move = "stand" if total == 21 or bet == 2 else strategy(cards)
        if move == "stand":
            return bet * stand_values(shoe, rules.up, rules.hits_soft_17)[total]
        after = 2 if move == "double" else 1
        return sum(p * alone((*cards, c), rest, after) for c, p, rest in draws(shoe))

    def deal(hands: tuple[tuple[int, ...], ...], shoe: tuple[int, ...]) -> float:
        waiting = next((i for i, hand in enumerate(hands) if len(hand) == 1), None)
        if waiting is None:
            return sum(alone(hand, shoe, 1) for hand in hands)
        value = 0.0
        for card, chance, rest in draws(shoe):
            if card == pair and len(hands) < rules.max_hands:
                value += chance * deal((*hands, (pair,)), rest)
            else:
                grown = (*hands[:waiting], (pair, card), *hands[waiting + 1 :])
                value += chance * deal(grown, rest)
        return value

    start[pair - 1] -= 2
    return deal(((pair,), (pair,)), tuple(start))


SMALL_SHOES = [  # (shoe, up, pair, most hands, doubling)
    (FARMER_SHOE, 7, 2, 4, "any"),
    ((1, 0, 3, 3, 0, 0, 2, 4, 0, 9), 3, 8, 4, "any"),
    ((2, 0, 0, 3, 3, 2, 0, 4, 0, 8), 6, 4, 3, "10-11"),
    ((0, 3, 0, 2, 4, 0, 3, 0, 2, 8), 5, 7, 4, "none"),
]


@pytest.mark.parametrize(("shoe", "up", "pair", "hands", "doubling"), SMALL_SHOES)
def test_pair_card_states_equal_the_plain_definition(
    shoe: tuple[int, ...], up: int, pair: int, hands: int, doubling: str
) -> None:
    """Small shoes, where the dealer may run out: the method is its own definition."""
    rules = ExactSplitRules(shoe, up, False, hands)
    strategy = NairnSplitStrategy(up, False, doubling)
    plain = second_cards_first(rules, pair, strategy)
    assert pattern_split_value(rules, pair, strategy) == pytest.approx(plain, abs=1e-13)


NAIRN_TABLE = Path(__file__).parent / "data" / "nairn_one_deck_exact_splits.csv"


@pytest.mark.slow
def test_nairns_values() -> None:
    """Every one of his values against 2 to 9 (1,170: 2 to 4 hands, S17 and H17 where he gives
    it, each doubling rule) and, against an ace and a ten, those of aces, nines and tens (81;
    all 270 there take minutes: ``benchmarks/nairn_exact_splits.py`` runs the whole table).
    Within 3.4e-6, his single precision (his own two split-once computations differ by up to
    4e-6 against a 2); within 1e-6 against a 5 and a 6 (measured 9.2e-7), 1.8e-6 against an
    ace and 1.5e-6 against a ten (the largest over all 1,440)."""
    with NAIRN_TABLE.open() as handle:
        rows = [
            row
            for row in csv.DictReader(handle)
            if 2 <= int(row["up"]) <= 9 or int(row["pair"]) in (1, 9, 10)
        ]
    assert len(rows) == 1170 + 81
    allowed = {1: 1.8e-6, 5: 1e-6, 6: 1e-6, 10: 1.5e-6}
    values: dict[tuple[object, ...], float] = {}
    for row in rows:
        up, pair, hands = int(row["up"]), int(row["pair"]), int(row["max_hands"])
        h17 = row["dealer_hits_soft_17"] == "1"
        key = (up, h17, pair, hands, row["doubling"])
        rules = ExactSplitRules(single_deck_shoe(), up, h17, hands)
        strategy = NairnSplitStrategy(up, h17, row["doubling"])
        values[key] = pattern_split_value(rules, pair, strategy)
        tolerance = allowed.get(up, 3.4e-6)
        assert values[key] == pytest.approx(float(row["value"]), abs=tolerance), row
    # resplitting moves values by far more than the tolerances
    assert values[10, False, 10, 4, "none"] - values[10, False, 10, 2, "none"] < -0.05
    assert values[6, False, 8, 4, "any"] - values[6, False, 8, 2, "any"] > 0.02


def test_refusals_name_the_problem() -> None:
    six_up = ExactSplitRules(single_deck_shoe(), 6, False, 4)
    with pytest.raises(ValueError, match=r"split hand \(8, 1\): the strategy chose 'split'"):
        pattern_split_value(six_up, 8, lambda cards: "split")
    no_pair = ExactSplitRules((4, 4, 4, 4, 4, 4, 4, 1, 4, 16), 6, False, 4)
    with pytest.raises(ValueError, match="the shoe has no pair of 8"):
        pattern_split_value(no_pair, 8, NairnSplitStrategy(6, False, "any"))
    only_tens = ExactSplitRules((1, 0, 0, 0, 0, 0, 0, 2, 0, 9), 1, False, 2)  # behind an ace
    with pytest.raises(ValueError, match="every card left makes a dealer blackjack"):
        pattern_split_value(only_tens, 8, lambda cards: "stand")
