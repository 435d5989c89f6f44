"""Exact splitting with resplits (:mod:`boundless.math.exact.split_exact`).

The recursion settles each hand against the shoe that hand left and memoizes on the shoe;
here it is held to the plain definition (every hand dealt, then the dealer, each hand settled
against the last shoe) on small shoes, and its dealer kernel to a plain recursion.
"""

from __future__ import annotations

import numpy as np
import pytest

from boundless.math.exact.split_exact import ExactSplitRules, exact_split_value
from boundless.math.exact.split_exact_dealer import dealer_finals

# 22 cards of six values (small enough for the round-by-round definition): eights and tens
# split to four hands, and both dealer blackjacks can happen.
SMALL_SHOE = (2, 0, 0, 3, 3, 2, 0, 4, 0, 8)
FOUR_ACES = (4, *SMALL_SHOE[1:])


def plain_dealer(shoe: list[int], hard: int, ace: bool, hits_soft_17: bool) -> list[float]:
    finals = [0.0] * 6
    unseen = sum(shoe)
    for value in range(1, 11):
        if not shoe[value - 1]:
            continue
        chance = shoe[value - 1] / unseen
        new_hard, new_ace = hard + value, ace or value == 1
        soft = new_ace and new_hard <= 11
        total = new_hard + 10 if soft else new_hard
        if total < 17 or (hits_soft_17 and soft and total == 17):
            shoe[value - 1] -= 1
            below = plain_dealer(shoe, new_hard, new_ace, hits_soft_17)
            shoe[value - 1] += 1
            for index in range(6):
                finals[index] += chance * below[index]
        else:
            finals[5 if total > 21 else total - 17] += chance
    return finals


@pytest.mark.parametrize("up", [1, 6, 10])
@pytest.mark.parametrize("hits_soft_17", [False, True])
def test_dealer_kernel_matches_the_plain_recursion(up: int, hits_soft_17: bool) -> None:
    for shoe in ([4] * 9 + [16], list(SMALL_SHOE), [0, 1, 2, 0, 3, 1, 0, 2, 1, 4]):
        ours = dealer_finals(np.array(shoe, dtype=np.int64), up, hits_soft_17)
        assert list(ours) == pytest.approx(plain_dealer(shoe, up, up == 1, hits_soft_17))
        assert sum(ours) == pytest.approx(1.0)


def simple_strategy(cards: tuple[int, ...]) -> str:
    hard = sum(cards)
    soft = 1 in cards and hard <= 11
    if len(cards) == 2 and not soft and hard in (10, 11):
        return "double"
    if soft:
        return "hit" if hard < 8 else "stand"
    return "hit" if hard < 15 else "stand"


class RoundByRound:
    """The plain definition: every hand dealt in table order, then the dealer once."""

    def __init__(self, rules: ExactSplitRules, pair: int) -> None:
        self.rules, self.pair = rules, pair
        self.blackjack_card = 11 - rules.up if rules.no_dealer_blackjack else 0
        if rules.up not in (1, 10):
            self.blackjack_card = 0
        self.most = rules.max_hands if pair != 1 or rules.resplit_aces else 2

    def chances(self, shoe: list[int]) -> list[float]:
        unseen = sum(shoe)
        if not self.blackjack_card:
            return [count / unseen for count in shoe]
        # P(next card | the hole card, one of the unseen, makes no blackjack)
        kept = shoe[self.blackjack_card - 1]
        return [
            count
            * (unseen - 1 - kept + (value == self.blackjack_card))
            / ((unseen - 1) * (unseen - kept))
            for value, count in enumerate(shoe, start=1)
        ]

    def settle(self, shoe: list[int], hands: list[tuple[int, int]]) -> float:
        finals = plain_dealer(shoe, self.rules.up, self.rules.up == 1, self.rules.hits_soft_17)
        if self.blackjack_card:
            finals[4] -= shoe[self.blackjack_card - 1] / sum(shoe)
            finals = [chance / sum(finals) for chance in finals]
        value = 0.0
        for total, bet in hands:
            if total > 21:
                value -= bet
                continue
            for dealer, chance in zip(range(17, 23), finals, strict=True):
                beaten = dealer > 21 or dealer < total
                value += bet * chance * (1 if beaten else -1 if dealer > total else 0)
        return value

    def deal(
        self,
        shoe: list[int],
        done: list[tuple[int, int]],
        cards: tuple[int, ...],
        bet: int,
        out: int,
        waiting: int,
    ) -> float:
        hard = sum(cards)
        total = hard + 10 if 1 in cards and hard <= 11 else hard
        stands = len(cards) >= 2 and (
            total >= 21 or bet == 2 or self.pair == 1 or simple_strategy(cards) == "stand"
        )
        if stands:
            done = [*done, (total, bet)]
            if waiting == 1:
                return self.settle(shoe, done)
            return self.deal(shoe, done, (self.pair,), 1, out, waiting - 1)
        if len(cards) == 2 and simple_strategy(cards) == "double":
            bet = 2
        value = 0.0
        for card, chance in enumerate(self.chances(shoe), start=1):
            if not chance:
                continue
            shoe[card - 1] -= 1
            if len(cards) == 1 and card == self.pair and out < self.most:
                value += chance * self.deal(shoe, done, cards, bet, out + 1, waiting + 1)
            else:
                value += chance * self.deal(shoe, done, (*cards, card), bet, out, waiting)
            shoe[card - 1] += 1
        return value

    def value(self) -> float:
        shoe = list(self.rules.shoe)
        shoe[self.rules.up - 1] -= 1
        shoe[self.pair - 1] -= 2
        return self.deal(shoe, [], (self.pair,), 1, 2, 2)


@pytest.mark.parametrize(
    ("pair", "up", "max_hands", "hits_soft_17"),
    [(8, 6, 2, False), (8, 10, 3, False), (4, 1, 4, True), (10, 1, 3, True), (10, 6, 4, False)],
)
def test_settling_each_hand_as_it_ends_equals_settling_after_the_last(
    pair: int, up: int, max_hands: int, hits_soft_17: bool
) -> None:
    rules = ExactSplitRules(SMALL_SHOE, up, hits_soft_17, max_hands)
    ours = exact_split_value(rules, pair, simple_strategy)
    assert ours == pytest.approx(RoundByRound(rules, pair).value(), abs=1e-12)


def test_resplitting_changes_the_value_and_aces_follow_their_rule() -> None:
    once = ExactSplitRules(SMALL_SHOE, 6, False, 2)
    four = ExactSplitRules(SMALL_SHOE, 6, False, 4)
    assert exact_split_value(once, 8, simple_strategy) != exact_split_value(
        four, 8, simple_strategy
    )
    aces = {
        (hands, resplit): exact_split_value(
            ExactSplitRules(FOUR_ACES, 6, False, hands, resplit_aces=resplit), 1, simple_strategy
        )
        for hands, resplit in [(2, True), (4, True), (4, False)]
    }
    assert aces[4, False] == aces[2, True] != aces[4, True]
    assert aces[4, True] == pytest.approx(
        RoundByRound(ExactSplitRules(FOUR_ACES, 6, False, 4), 1).value()
    )


@pytest.mark.parametrize(
    ("rules", "pair", "message"),
    [
        (ExactSplitRules(SMALL_SHOE[:9], 6, False, 4), 8, "count of 0 or more"),
        (ExactSplitRules(SMALL_SHOE, 11, False, 4), 8, "card values are 1"),
        (ExactSplitRules(SMALL_SHOE, 6, False, 1), 8, "at least 2 hands"),
        (ExactSplitRules((1, *SMALL_SHOE[1:]), 6, False, 4), 1, "no pair of 1"),
        (ExactSplitRules((0, 0, 0, 0, 0, 0, 0, 3, 0, 1), 10, False, 2), 8, "runs out"),
    ],
)
def test_bad_rules_are_refused_in_one_line(rules: ExactSplitRules, pair: int, message: str) -> None:
    with pytest.raises(ValueError, match=message) as error:
        exact_split_value(rules, pair, simple_strategy)
    assert "\n" not in str(error.value)


def test_a_strategy_that_doubles_three_cards_is_refused() -> None:
    rules = ExactSplitRules(SMALL_SHOE, 6, False, 2)
    with pytest.raises(ValueError, match="chose 'double'"):
        exact_split_value(rules, 8, lambda cards: "double" if len(cards) == 3 else "hit")
