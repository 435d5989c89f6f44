"""Resplits in the exact math: how a split's hands come out, and checks of the kernels'
resplit levels by other routes (the convention is in ``boundless.math.exact.split_rounds``)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from main_game_rules import (
    FOUR_EIGHTS,
    SMALL_SHOE,
    THREE_ACES,
    boundless,
    classic,
    resplitting,
)

from boundless.math.exact import analyse_main_game, derive_basic_strategy, first_move_values
from boundless.math.exact.fast import MEAN, SQUARE, FastAnalysis, UpCard
from boundless.math.exact.params import GameParams, split_context, standard_shoe
from boundless.math.exact.split_rounds import SplitShoe, expected_draws, expected_hands


def shoe_of(pair_cards: int, cards: int, most_hands: int) -> SplitShoe:
    return SplitShoe(cards, pair_cards, pair_cards, most_hands, None, False)


def test_three_hands_worked_by_hand() -> None:
    """Four pair cards among ten (two dealt): a second card pairs with chance 2/8 at two
    hands. Hand 1 pairs (1/4): three hands, none can split again. Hand 1 does not, hand 2
    does (3/4 * 1/4): three hands, one of them a non-pair hand of two. Neither (9/16): two
    non-pair hands."""
    shoe = shoe_of(4, 10, 3)
    rounds = {split_round.hands: split_round.chance for split_round in shoe.rounds()}
    assert rounds == {
        (((3, True), 3),): Fraction(1, 4),
        (((2, False), 1), ((3, True), 2)): Fraction(3, 16),
        (((2, False), 2),): Fraction(9, 16),
    }
    assert expected_hands(shoe.rounds()) == {
        (2, False): Fraction(21, 16),
        (3, True): Fraction(18, 16),
    }
    # Second cards drawn at two hands: two unless hand 1 pairs (then one); at three hands
    # one per hand there.
    assert expected_draws(shoe.rounds()) == {2: Fraction(7, 4), 3: Fraction(18, 16)}


@pytest.mark.parametrize(("pair_cards", "cards", "most"), [(2, 40, 4), (3, 9, 4), (8, 50, 4),
                                                          (32, 410, 3), (4, 4, 4)])  # fmt: skip
def test_rounds_cover_every_chance_once(pair_cards: int, cards: int, most: int) -> None:
    shoe = shoe_of(pair_cards, cards, min(most, pair_cards))
    rounds = shoe.rounds()
    assert sum(split_round.chance for split_round in rounds) == 1
    for split_round in rounds:
        hands = sum(count for _, count in split_round.hands)
        assert 2 <= hands <= shoe.most_hands
        assert sum(count for _, count in split_round.draws) >= hands
    once = shoe_of(pair_cards, cards, 2).rounds()
    assert [(r.chance, r.hands) for r in once] == [(1, (((2, True), 2),))]


def test_without_a_third_pair_card_resplits_change_nothing() -> None:
    """Two aces and two eights, one card of each other rank: no pair can split again."""
    once = analyse_main_game(boundless(), shoe=SMALL_SHOE)
    again = analyse_main_game(resplitting(boundless(), resplit_aces=True), shoe=SMALL_SHOE)
    assert again.optimal.expected_value == once.optimal.expected_value
    assert again.basic.expected_value == once.basic.expected_value
    assert again.basic.variance == once.basic.variance
    assert again.chart == once.chart


@pytest.mark.parametrize("up", [1, 6, 10])
@pytest.mark.parametrize("pair", [2, 8, 10])
def test_a_level_is_a_split_once_hand_on_a_shorter_shoe(up: int, pair: int) -> None:
    """A split hand at three or four hands knows of two or three other split cards: its
    values are those of a split-once hand dealt from the shoe with one or two pair cards
    fewer (every state's mean and mean square, optimal play; one deck, S17, DAS)."""
    rules = resplitting(classic(1, double_after_split=True))
    card = UpCard(FastAnalysis(GameParams.from_rules(rules)), up)
    card.compute_dealer()
    tables = card.evaluate(None)
    for level in (3, 4):
        shoe = list(standard_shoe(1))
        shoe[pair - 1] -= level - 2
        shorter = UpCard(
            FastAnalysis(GameParams.from_rules(classic(1, double_after_split=True), shoe)), up
        )
        shorter.compute_dealer()
        expected = shorter.evaluate(None)
        context = split_context(pair, level - 1)
        for figure in (MEAN, SQUARE):
            ours = tables.figures[context, :, figure][tables.valid[context]]
            theirs = expected.figures[pair, :, figure][tables.valid[context]]
            assert ours == pytest.approx(theirs, abs=1e-13)


def test_resplits_add_to_the_split_and_the_game() -> None:
    """Eights against a six, six decks: splitting again is worth more than splitting once,
    and aces split again add more."""
    base = classic(6, double_after_split=True)
    once = first_move_values(base, 6, 8, 8)["split"]
    four = first_move_values(resplitting(base), 6, 8, 8)["split"]
    assert four > once
    games = [analyse_main_game(rules).optimal.expected_value for rules in
             (base, resplitting(base), resplitting(base, resplit_aces=True))]  # fmt: skip
    assert games[0] < games[1] < games[2]


def test_pair_cells_use_the_split_value_with_resplits() -> None:
    """On a 16-card shoe with four eights, 8-8 against an ace is hit when it splits once and
    split when it may split again; with three aces, A-A against a ten becomes a split once
    the aces may split again (the reference derivation agrees: test_main_game_reference)."""
    once = derive_basic_strategy(boundless(), shoe=FOUR_EIGHTS)
    again = derive_basic_strategy(resplitting(boundless()), shoe=FOUR_EIGHTS)
    assert (once.pairs[(8, 1)], again.pairs[(8, 1)]) == ("H", "P")
    aces_once = derive_basic_strategy(resplitting(boundless()), shoe=THREE_ACES)
    aces_again = derive_basic_strategy(resplitting(boundless(), resplit_aces=True), shoe=THREE_ACES)
    assert (aces_once.pairs[(1, 10)], aces_again.pairs[(1, 10)]) == ("H", "P")
