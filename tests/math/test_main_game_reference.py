"""The fast kernels against the plain fraction reference, on small shoes, rule by rule.

Each case compares the optimal and basic-strategy means and mean squares (tolerance 1e-12
absolute, on values of order 1) and the derived charts (equal cell for cell). Each reference
run takes a few seconds (resplit rule sets, with three or four cards of a value, 20-40 s).
Resplit rule sets also compare the split's mean and mean square for every pair and up card,
whether or not a strategy splits it.
"""

from __future__ import annotations

import pytest
from main_game_rules import (
    FOUR_EIGHTS,
    SMALL_SHOE,
    THREE_ACES,
    THREE_EIGHTS,
    THREE_TENS_OF_ONE_RANK,
    boo_bucks_like,
    boundless,
    classic,
    resplitting,
    unlimited_like,
    variant,
)

from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import format_strategy_chart
from boundless.math.exact.fast import FastAnalysis, UpCard, fast_analysis
from boundless.math.exact.params import GameParams
from boundless.math.exact.reference import ReferenceAnalysis, reference_analysis

TOLERANCE = 1e-12


def assert_same(rules: RuleSet, shoe: tuple[int, ...] = SMALL_SHOE) -> None:
    exact = reference_analysis(rules, shoe)
    fast = fast_analysis(rules, shoe)
    assert fast.basic is not None
    assert format_strategy_chart(fast.chart) == format_strategy_chart(exact.chart)
    assert fast.optimal.mean == pytest.approx(float(exact.optimal.mean), abs=TOLERANCE)
    assert fast.optimal.square == pytest.approx(float(exact.optimal.square), abs=TOLERANCE)
    assert fast.basic.mean == pytest.approx(float(exact.basic.mean), abs=TOLERANCE)
    assert fast.basic.square == pytest.approx(float(exact.basic.square), abs=TOLERANCE)
    assert exact.optimal.mean >= exact.basic.mean


def test_boundless_rules() -> None:
    """Peek on ace and ten, S17, DAS, surrender 2-9, split aces one card."""
    assert_same(boundless())


def test_unlimited_rules_no_hole_card_and_chart_split_offers() -> None:
    """Original bets only against a dealer blackjack, surrender not against an ace, split
    offered only where the chart splits (else Surrender 20%)."""
    assert_same(unlimited_like())


def test_h17_no_das_hittable_split_aces_six_to_five() -> None:
    rules = variant(
        boo_bucks_like(hits_soft_17=True, double_after_split=False, split_aces_one_card=False),
        payouts__blackjack="6:5",
    )
    assert_same(rules)


def test_unchecked_hole_card_and_rank_pairs() -> None:
    """A hole card the dealer checks only behind an ace: a ten-up blackjack takes every bet.
    Pairs by rank: a ten and a king are not a pair."""
    rules = variant(
        classic(1, double_after_split=True, surrender=True, peek_up_values=(1,)),
        split__pair_by="rank",
        double__on_split_aces=True,
        split__split_aces_one_card=False,
    )
    assert_same(rules, (2, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1))


def test_no_double_no_split() -> None:
    rules = variant(classic(1, split=False), double__allowed=False, double__after_split=False)
    assert_same(rules)


@pytest.mark.slow
def test_larger_shoe_with_three_pairs() -> None:
    """17 cards with aces, deuces, eights and nines paired (about 15 s)."""
    assert_same(boo_bucks_like(), (2, 2, 1, 1, 1, 1, 1, 2, 2, 1, 1, 1, 1))


def assert_same_splits(rules: RuleSet, shoe: tuple[int, ...]) -> None:
    """Every pair's split value (optimal play) against every up card, both implementations."""
    reference = ReferenceAnalysis(GameParams.from_rules(rules, shoe))
    analysis = FastAnalysis(GameParams.from_rules(rules, shoe))
    compared = 0
    for up in range(1, 11):
        if analysis.shoe[up - 1] == 0:
            continue
        card = UpCard(analysis, up)
        card.compute_dealer()
        tables = card.evaluate(None)
        for deal in card.deals:
            if deal.hand[0] != deal.hand[1]:
                continue
            mean, square = card.root_figures(deal, "split", tables)
            continuation = reference.values.optimal_moments
            exact = reference.root_figures(up, deal.hand, "split", continuation)
            assert mean == pytest.approx(float(exact[0]), abs=TOLERANCE), (up, deal.hand)
            assert square == pytest.approx(float(exact[1]), abs=TOLERANCE), (up, deal.hand)
            compared += 1
    assert compared >= 10


@pytest.mark.slow
def test_resplits_to_four_hands() -> None:
    """Boundless with pairs split again up to four hands; four eights in the shoe (about
    40 s). The resplits change the figures (else this would test nothing)."""
    rules = resplitting(boundless())
    assert_same(rules, FOUR_EIGHTS)
    assert_same_splits(rules, FOUR_EIGHTS)
    once = fast_analysis(boundless(), FOUR_EIGHTS).optimal.mean
    assert fast_analysis(rules, FOUR_EIGHTS).optimal.mean != pytest.approx(once, abs=1e-6)


@pytest.mark.slow
def test_resplit_aces_hittable_no_hole_card_h17() -> None:
    """Aces split again (three hands), split aces hittable and doubled, H17, no hole card
    (original bets only), surrender on every up card (about 40 s)."""
    rules = variant(
        resplitting(boo_bucks_like(hits_soft_17=True, split_aces_one_card=False), 3, True),
        double__on_split_aces=True,
        dealer__hole_card="none",
        dealer__peek_up_values=[],
    )
    assert_same(rules, THREE_ACES)
    assert_same_splits(rules, THREE_ACES)


def test_resplit_one_card_aces_and_pairs_by_rank_unchecked_ten() -> None:
    """One-card aces split again; tens pair by rank (three tens of one rank, one of each other
    rank); a ten-up blackjack takes every bet (the hole card is checked only behind an ace)."""
    rules = resplitting(
        variant(classic(1, double_after_split=True, peek_up_values=(1,)), split__pair_by="rank"),
        resplit_aces=True,
    )
    assert_same(rules, THREE_TENS_OF_ONE_RANK)
    assert_same_splits(rules, THREE_TENS_OF_ONE_RANK)
    assert_same_splits(rules, THREE_ACES)


def test_resplits_where_the_chart_splits() -> None:
    """Unlimited's switches (split only where the chart splits, else Surrender 20%) with
    resplits to three hands."""
    rules = resplitting(unlimited_like(), 3)
    assert_same(rules, THREE_EIGHTS)
