"""Exact CDZ- resplits for the main analysis: the pattern method's value of a split.

Under ``split_play = "cdz"`` the main analysis decides split hands as CDZ- does; split once,
its split values are then exact, but with resplits its levels see only the pair cards put
down so far (:mod:`.split_rounds`). Where the pattern method (:mod:`.split_patterns`) can
express the rules, the optimal player's split is valued by it instead, as the public
analysers value it. It cannot express: a win paying other than 1:1, every bet lost to an
unpeeked dealer blackjack, and pairs of tens that split only by rank. There the main
analysis's own value stands (:func:`exact_cdz_split_mean` gives ``None``).
"""

from __future__ import annotations

from fractions import Fraction

from boundless.math.exact.params import GameParams
from boundless.math.exact.split_exact import ExactSplitRules
from boundless.math.exact.split_patterns import UnsplitOptimalStrategy, pattern_split_value


def pattern_rules(params: GameParams, up: int, pair: int) -> ExactSplitRules | None:
    """The pattern method's rules for splitting ``pair`` against ``up``, or ``None`` where
    they cannot say what ``params`` say."""
    if params.win_pays != Fraction(1) or params.dealer_blackjack_rule(up) == "all_bets":
        return None
    if pair == 10 and params.pair_by_rank:
        return None
    # A peeked blackjack, or one that takes only the original bet: either way the split
    # hands' results count only where there is none (no_dealer_blackjack).
    return ExactSplitRules(
        params.value_counts, up, params.dealer_hits_soft_17, params.max_hands,
        params.resplit_aces, params.split_aces_one_card, no_dealer_blackjack=True,
    )  # fmt: skip


def exact_cdz_split_mean(params: GameParams, up: int, pair: int) -> float | None:
    """Splitting ``pair`` against ``up`` under CDZ-, per initial unit, given no dealer
    blackjack where one is settled apart; ``None`` where the main analysis is already exact
    (one split only) or the pattern method cannot express the rules."""
    if params.hands_limit(pair) <= 2:
        return None
    rules = pattern_rules(params, up, pair)
    if rules is None:
        return None
    strategy = UnsplitOptimalStrategy(rules, double_after_split=params.can_double_split_hand(pair))
    return pattern_split_value(rules, pair, strategy)
