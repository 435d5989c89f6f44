"""Tiny shoes whose exact return can be worked out by hand (the working is in each docstring).

Both implementations are checked: the fast API and the fraction reference.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from main_game_rules import boundless, unlimited_like, variant

from boundless.core.rules import RuleSet
from boundless.math.exact import analyse_main_game
from boundless.math.exact.reference import reference_analysis

TENS_ONLY = (0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 2, 2, 2)
FIVE_NINES_FIVE_TENS = (0, 0, 0, 0, 0, 0, 0, 0, 5, 2, 1, 1, 1)
ONE_ACE_NINE_TENS = (1, 0, 0, 0, 0, 0, 0, 0, 0, 3, 2, 2, 2)


def stand_or_hit_only(rules: RuleSet) -> RuleSet:
    return variant(
        rules,
        double__allowed=False,
        double__after_split=False,
        split__allowed=False,
        split__offered="any_pair",
        split__decline_refund=None,
        surrender__allowed=False,
    )


def assert_figures(
    rules: RuleSet, shoe: tuple[int, ...], mean: Fraction, variance: Fraction
) -> None:
    fast = analyse_main_game(rules, shoe=shoe)
    exact = reference_analysis(rules, shoe)
    for figures in (exact.optimal, exact.basic):
        assert figures.mean == mean
        assert figures.variance == variance
    for report in (fast.optimal, fast.basic):
        assert report.expected_value == pytest.approx(float(mean), abs=1e-12)
        assert report.variance == pytest.approx(float(variance), abs=1e-12)


def test_tens_only_every_round_pushes() -> None:
    """Ten against ten, twenty against twenty: a hit always busts and split tens make two
    twenties. Return exactly 1, no spread."""
    assert_figures(boundless(), TENS_ONLY, Fraction(0), Fraction(0))


def test_nines_and_tens_standing_is_symmetric() -> None:
    """Five nines, five tens; no double, split or surrender. A hit busts (18 + 9 > 21), so
    both sides stand on their first two cards and the game is symmetric: mean 0. The round
    pushes when both hold as many tens: with X tens for the player, Y for the dealer,
    P(X=Y) = 10/45*3/28 + 25/45*16/28 + 10/45*3/28 = 23/63, so the variance is 40/63."""
    assert_figures(
        stand_or_hit_only(boundless()), FIVE_NINES_FIVE_TENS, Fraction(0), Fraction(40, 63)
    )


@pytest.mark.parametrize("rules", [boundless(), unlimited_like()], ids=["peek", "no-hole-card"])
def test_one_ace_among_tens(rules: RuleSet) -> None:
    """One ace, nine tens; stand or hit only. Where the ace falls among the first four cards:
    the player's (2/10): blackjack, paid 3:2 (the dealer cannot have one);
    the up card or the hole card behind a ten (2/10): dealer blackjack, the player loses 1
    (peeked, or original bet only: the same here);
    later (6/10): 20 against 20, standing pushes (hitting wins only on the ace: -2/3 or -5/7).
    Mean 2/10 * 3/2 - 2/10 = 1/10; mean square 2/10 * 9/4 + 2/10 = 13/20; variance 16/25."""
    assert_figures(stand_or_hit_only(rules), ONE_ACE_NINE_TENS, Fraction(1, 10), Fraction(16, 25))
