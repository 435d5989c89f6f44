"""The optimal player's split play: post-split (the default) and CDZ- (``split_play="cdz"``).

CDZ- is checked against two published values (split once, and with resplits on a small shoe)
and, split once, against the pattern method of :mod:`boundless.math.exact.split_patterns` (a
separate implementation of the same strategy), an ace and a ten up included, with and without a
hole card. With resplits the optimal split is the pattern method's value.
"""

from __future__ import annotations

import pytest
from main_game_rules import classic, resplitting, variant

from boundless.math.exact import SPLIT_PLAYS, analyse_main_game, first_move_values
from boundless.math.exact.fast import FastAnalysis, UpCard
from boundless.math.exact.params import GameParams
from boundless.math.exact.split_cdz import exact_cdz_split_mean, pattern_rules
from boundless.math.exact.split_exact import ExactSplitRules, single_deck_shoe
from boundless.math.exact.split_patterns import UnsplitOptimalStrategy, pattern_split_value


def test_cdz_gives_farmers_published_split_value() -> None:
    """2-2 against a 6, one deck, S17, split once, no double after a split (see
    test_main_game_published): 0.1189818683947885 under CDZ-."""
    cdz = first_move_values(classic(1), 6, 2, 2, split_play="cdz")["split"]
    assert cdz == pytest.approx(0.1189818683947885, abs=2e-16)
    post_split = first_move_values(classic(1), 6, 2, 2)["split"]
    assert post_split == pytest.approx(0.12592519419167775, abs=1e-12)


@pytest.mark.parametrize(
    ("up", "pair", "double_after_split"),
    [(6, 8, True), (3, 7, True), (5, 4, True), (9, 1, False), (1, 8, True), (10, 9, True)],
)
def test_split_once_cdz_equals_the_pattern_method(
    up: int, pair: int, double_after_split: bool
) -> None:
    rules = classic(1, double_after_split=double_after_split)
    ours = first_move_values(rules, up, pair, pair, split_play="cdz")["split"]
    exact = ExactSplitRules(single_deck_shoe(), up, False, 2)
    strategy = UnsplitOptimalStrategy(exact, double_after_split=double_after_split)
    assert ours == pytest.approx(pattern_split_value(exact, pair, strategy), abs=1e-12)


def test_cdz_changes_only_the_optimal_figures_and_never_raises_them() -> None:
    """Split once, each convention is exact for its strategy, and post-split play may use
    everything CDZ- uses and the other pair card besides: it is never worth less."""
    rules = classic(1, double_after_split=True)
    post_split = analyse_main_game(rules)
    cdz = analyse_main_game(rules, split_play="cdz")
    assert cdz.basic == post_split.basic
    assert cdz.chart == post_split.chart
    gap = post_split.optimal.expected_value - cdz.optimal.expected_value
    assert 1e-7 < gap < 1e-4


def test_cdz_resplits_give_farmers_small_shoe_value_to_all_its_digits() -> None:
    """With resplits the optimal player's split is the pattern method's exact CDZ- value: the
    main analysis gives Farmer's published 2-2 against a 7 on a 19-card shoe, resplits to
    four hands (test_split_patterns), to nine decimals of a percentage; post-split play
    gives -76.262613815% there (its levels see only the pair cards put down so far)."""
    rules = resplitting(classic(1, double_after_split=True), 4)
    shoe = (0, 4, 4, 2, 0, 0, 2, 0, 0, 7, 0, 0, 0)
    cdz = first_move_values(rules, 7, 2, 2, shoe=shoe, split_play="cdz")["split"]
    assert cdz == pytest.approx(-0.76210220335, abs=5e-12)
    post_split = first_move_values(rules, 7, 2, 2, shoe=shoe)["split"]
    assert post_split == pytest.approx(-0.76262613815, abs=5e-12)


@pytest.mark.parametrize("hole_card", ["peek", "none"])
@pytest.mark.parametrize(("up", "pair"), [(1, 8), (10, 2), (6, 8), (10, 1)])
def test_the_pattern_values_scale_as_the_analysis_own_split_once(
    hole_card: str, up: int, pair: int
) -> None:
    """Split once both routes are exact: the pattern value, scaled by the chance of no
    dealer blackjack where one is settled apart (peeked, or taking only the original bet
    without a hole card), is the analysis's own split mean."""
    rules = classic(2, double_after_split=True)
    if hole_card == "none":
        rules = variant(rules, dealer__hole_card="none", dealer__peek_up_values=[])
    params = GameParams.from_rules(rules)
    card = UpCard(FastAnalysis(params, rules.key, "cdz"), up)
    card.compute_dealer()
    own = card.split_figures(pair, card.evaluate(None, unsplit_decisions=True))[0]
    exact_rules = pattern_rules(params, up, pair)
    assert exact_rules is not None
    strategy = UnsplitOptimalStrategy(
        exact_rules, double_after_split=params.can_double_split_hand(pair)
    )
    value = pattern_split_value(exact_rules, pair, strategy)
    scaled = value * (1 - card.blackjack_chance((pair, pair))) if card.excluded else value
    assert own == pytest.approx(scaled, abs=1e-12)


def test_rules_the_pattern_method_cannot_say_keep_the_analysis_value() -> None:
    resplit = resplitting(classic(1, double_after_split=True), 4)
    unpeeked_ten = GameParams.from_rules(variant(resplit, dealer__peek_up_values=[1]))
    assert pattern_rules(unpeeked_ten, 10, 8) is None  # every bet lost to a blackjack
    assert pattern_rules(unpeeked_ten, 9, 8) is not None
    ranked = GameParams.from_rules(variant(resplit, split__pair_by="rank"))
    assert pattern_rules(ranked, 6, 10) is None and pattern_rules(ranked, 6, 9) is not None
    split_once = GameParams.from_rules(classic(1))
    assert exact_cdz_split_mean(split_once, 6, 8) is None  # already exact there


def test_an_unknown_split_play_is_refused() -> None:
    with pytest.raises(ValueError, match="split play must be one of"):
        analyse_main_game(classic(1), split_play="guess")  # type: ignore[arg-type]
    assert SPLIT_PLAYS == ("post-split", "cdz")
