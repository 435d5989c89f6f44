"""A playing policy as the kernel's decision tables.

Every decision the simulator makes is a function of few things: a spot's first decision of the
ranks of its two cards and the up card; a split hand's decision at two cards of its hard sum,
whether it holds an ace, whether it is a split ace, and the up card (split again or not: a
pair the rules let split again has its own table, by the pair's value and the up card); any
later decision of the hard sum, the ace and the up card (only hit or stand are left). Each
table entry is the reference policy's answer (:meth:`ReferenceGame.choose`: the engine's legal
actions, read plainly, and :meth:`StrategyChart.choose`) for a representative hand of that
kind. States no hand can reach hold ``STAND`` and are never read.
"""

from __future__ import annotations

from itertools import combinations_with_replacement

import numpy as np
import numpy.typing as npt

from boundless.core.cards import Card
from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart
from boundless.math.simulation.kernels import (
    DOUBLE,
    HIT,
    MV_FIRST,
    MV_LATER,
    MV_RESPLIT,
    MV_SIZE,
    MV_SPLIT,
    SPLIT,
    STAND,
    SURRENDER,
    SURRENDER20,
)
from boundless.math.simulation.reference import Hand, Policy, ReferenceGame

ACTION_CODES = {
    "hit": HIT,
    "stand": STAND,
    "double": DOUBLE,
    "split": SPLIT,
    "surrender": SURRENDER,
    "surrender20": SURRENDER20,
}
MAX_HARD = 32


def _card(value: int, suit: int = 0) -> Card:
    """A card of blackjack value ``value`` (1..10)."""
    return Card.of(value, suit)


def _values_with(hard: int, ace: bool, count: int) -> tuple[int, ...] | None:
    """Card values (1..10), ``count`` of them, summing to ``hard``, with an ace or none."""
    values = range(1, 11) if ace else range(2, 11)
    for combo in combinations_with_replacement(values, count):
        if sum(combo) == hard and (1 in combo) == ace:
            return combo
    return None


def decision_tables(rules: RuleSet, chart: StrategyChart | None, policy: Policy) -> (
    npt.NDArray[np.int8]
):  # fmt: skip
    """The ``moves`` array of :mod:`boundless.math.simulation.kernels` for this policy."""
    game = ReferenceGame(rules, chart, policy, 1)
    full = rules.split.max_hands  # split hands read here have no room left to split again
    moves = np.full(MV_SIZE, STAND, dtype=np.int8)
    ups = [_card(value, 2) for value in range(1, 11)]
    for up in ups:
        for value in range(1, 11):
            pair = Hand([_card(value), _card(value, 1)], from_split=True, split_aces=value == 1)
            moves[MV_RESPLIT + value * 11 + up.value] = ACTION_CODES[
                game.choose(pair, up, False, 2)
            ]
        for first in range(13):
            for second in range(13):
                hand = Hand([Card.of(first + 1, 0), Card.of(second + 1, 1)])
                index = MV_FIRST + (first * 13 + second) * 11 + up.value
                moves[index] = ACTION_CODES[game.choose(hand, up, True)]
        for hard in range(2, MAX_HARD):
            for ace in (False, True):
                for split_aces in (False, True):
                    cards = _split_hand(hard, ace, split_aces)
                    if cards is not None:
                        hand = Hand(cards, from_split=True, split_aces=split_aces)
                        slot = ((int(split_aces) * MAX_HARD + hard) * 2 + int(ace)) * 11
                        moves[MV_SPLIT + slot + up.value] = ACTION_CODES[
                            game.choose(hand, up, False, full)
                        ]
                later = _values_with(hard, ace, 3) or _values_with(hard, ace, 4)
                if later is not None:
                    hand = Hand([_card(value) for value in later])
                    index = MV_LATER + (hard * 2 + int(ace)) * 11 + up.value
                    moves[index] = ACTION_CODES[game.choose(hand, up, False)]
    return moves


def _split_hand(hard: int, ace: bool, split_aces: bool) -> list[Card] | None:
    """A split hand's two cards: the pair card first, then the card it drew."""
    if split_aces:
        rest = hard - 1
        return [_card(1), _card(rest, 1)] if ace and 1 <= rest <= 10 else None
    if ace:
        rest = hard - 1
        return [_card(rest), _card(1, 1)] if 2 <= rest <= 10 else None
    values = _values_with(hard, False, 2)
    return None if values is None else [_card(values[0]), _card(values[1], 1)]
