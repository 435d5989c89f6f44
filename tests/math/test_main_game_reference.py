"""The fast kernels against the plain fraction reference, on small shoes, rule by rule.

Each case compares the optimal and basic-strategy means and mean squares (tolerance 1e-12
absolute, on values of order 1) and the derived charts (equal cell for cell). Each reference
run takes a few seconds.
"""

from __future__ import annotations

import pytest
from main_game_rules import SMALL_SHOE, boo_bucks_like, boundless, classic, unlimited_like, variant

from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import format_strategy_chart
from boundless.math.exact.fast import fast_analysis
from boundless.math.exact.reference import reference_analysis

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
