"""The optimal player's split play: post-split (the default) and CDZ- (``split_play="cdz"``).

CDZ- is checked against a published value and, split once, against the pattern method of
:mod:`boundless.math.exact.split_patterns` (a separate implementation of the same strategy),
including an ace and a ten up under a peek.
"""

from __future__ import annotations

import pytest
from main_game_rules import classic, resplitting

from boundless.math.exact import SPLIT_PLAYS, analyse_main_game, first_move_values
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


def test_cdz_resplits_stay_near_the_pattern_method() -> None:
    """With resplits the main analysis's hands see only the pair cards put down so far
    (docs/math.md): against the pattern method's exact CDZ- value it is close, not equal
    (4.96e-4 low for 8-8 against a 6 to four hands on one deck, the worst kind of case: one
    deck, four hands that draw; weighted by how often the pair is dealt it is 1.8e-7)."""
    rules = resplitting(classic(1, double_after_split=True), 4)
    ours = first_move_values(rules, 6, 8, 8, split_play="cdz")["split"]
    exact = ExactSplitRules(single_deck_shoe(), 6, False, 4, resplit_aces=False)
    value = pattern_split_value(exact, 8, UnsplitOptimalStrategy(exact))
    assert ours == pytest.approx(value, abs=6e-4)


def test_an_unknown_split_play_is_refused() -> None:
    with pytest.raises(ValueError, match="split play must be one of"):
        analyse_main_game(classic(1), split_play="guess")  # type: ignore[arg-type]
    assert SPLIT_PLAYS == ("post-split", "cdz")
