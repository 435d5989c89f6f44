"""Properties of the exact figures that hold whatever the numbers: equivalences between
rules, and the size of the one approximation (the split hands' cross term)."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

import pytest
from main_game_rules import SMALL_SHOE, boundless, variant

from boundless.math.exact import analyse_main_game
from boundless.math.exact.params import DEALER_BLACKJACK, OUTCOME_COUNT, GameParams
from boundless.math.exact.reference import ReferenceAnalysis
from boundless.math.exact.reference_values import State, add_card, draws, hand_total, settle, take


def test_original_bets_only_equals_peek_without_surrender_against_ace_or_ten() -> None:
    """With no hole card, losing only the original bet to a dealer blackjack is worth what
    a peek is: the doubles and splits it refunds are exactly those a peek would have
    prevented (surrender, settled at once, is not offered against an ace or a ten here)."""
    peek = analyse_main_game(boundless())
    no_hole_card = analyse_main_game(
        variant(boundless(), dealer__hole_card="none", dealer__peek_up_values=[])
    )
    assert no_hole_card.optimal.expected_value == pytest.approx(
        peek.optimal.expected_value, abs=1e-12
    )
    assert no_hole_card.basic.variance == pytest.approx(peek.basic.variance, abs=1e-12)
    assert no_hole_card.chart == peek.chart


def test_losing_every_bet_to_a_dealer_blackjack_costs_more() -> None:
    peek = analyse_main_game(boundless())
    unchecked = analyse_main_game(variant(boundless(), dealer__peek_up_values=[2]))
    assert unchecked.optimal.expected_value < peek.optimal.expected_value - 5e-4


def split_hand_paths(
    analysis: ReferenceAnalysis, shoe: tuple[int, ...], state: State, chance: Fraction, stake: int
) -> Iterator[tuple[Fraction, tuple[int, ...], State, int, bool]]:
    """Every way one split hand ends, drawing from ``shoe`` but deciding as the optimal
    split hand does (by its own cards): (chance, cards drawn, final state, stake, bust)."""
    values = analysis.values
    moves = values.moves(state)
    means = {move: values.move_moments(state, move, values.optimal_moments).mean for move in moves}
    move = max(moves, key=lambda name: (means[name], -moves.index(name)))
    if move == "stand":
        yield chance, (), state, stake, False
        return
    for value, drawn in draws(shoe):
        after: State = (state[0], state[1], add_card(state[2], value))
        bust = sum(after[2]) > 21
        if bust or move == "double":
            yield chance * drawn, (value,), after, stake * (2 if move == "double" else 1), bust
            continue
        for end in split_hand_paths(analysis, take(shoe, (value,)), after, chance * drawn, stake):
            yield end[0], (value, *end[1]), end[2], end[3], end[4]


def exact_cross_term(analysis: ReferenceAnalysis, up: int, pair: int) -> Fraction:
    """E[result of hand 1 x result of hand 2], blackjack-free part, by full enumeration."""
    values = analysis.values
    start: State = (up, pair, (pair,))
    shoe = values.shoe_of(start)
    total = Fraction(0)
    for chance_one, drawn_one, end_one, stake_one, bust_one in split_hand_paths(
        analysis, shoe, start, Fraction(1), 1
    ):
        rest = take(shoe, drawn_one)
        for chance_two, drawn_two, end_two, stake_two, bust_two in split_hand_paths(
            analysis, rest, start, Fraction(1), 1
        ):
            outcomes = values.dealer_outcomes(take(rest, drawn_two), up)
            for outcome in range(OUTCOME_COUNT):
                if outcome == DEALER_BLACKJACK:
                    continue
                first = (
                    -stake_one
                    if bust_one
                    else stake_one
                    * settle(hand_total(end_one[2])[0], outcome, analysis.params.win_pays)
                )
                second = (
                    -stake_two
                    if bust_two
                    else stake_two
                    * settle(hand_total(end_two[2])[0], outcome, analysis.params.win_pays)
                )
                total += chance_one * chance_two * outcomes[outcome] * first * second
    return total


@pytest.mark.parametrize(("up", "pair"), [(6, 8), (10, 8), (9, 1), (5, 10)])
def test_split_cross_term_approximation_on_a_small_shoe(up: int, pair: int) -> None:
    """The second moment treats the two split hands as independent given the dealer's
    outcome. On this 15-card shoe that overstates their product moment by 1-15%; the gap
    shrinks about as one over the shoe's size (about 60 times smaller at 8 decks)."""
    rules = boundless()
    analysis = ReferenceAnalysis(GameParams.from_rules(rules, SMALL_SHOE), rules.key)
    one = analysis.values.optimal_moments((up, pair, (pair,)))
    chances = analysis.values.dealer_outcomes(analysis.values.shoe_of((up, pair, (pair,))), up)
    approximate = sum(
        (
            part * part / chance
            for part, chance in zip(one.by_outcome, chances, strict=True)
            if chance
        ),
        Fraction(0),
    )
    exact = exact_cross_term(analysis, up, pair)
    assert exact <= approximate <= exact * Fraction(6, 5)
