"""Exact distribution of the dealer's final hand, drawn from a full shoe, by card values.

The dealer's up card, hole card and draws are a uniform ordered draw from the shoe: the other
initial cards are unseen and average out, and cards players draw in between are ignored (the
standard side-bet assumption; exact when no player draws). A hand is identified by the multiset of
its values, because a hand that has not stopped yet keeps drawing whatever order its cards came
in; each final hand keeps one real drawing order as a representative for the evaluators.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from boundless.core.cards import Card
from boundless.core.hands import BLACKJACK_TOTAL, hand_total

VALUES = tuple(range(1, 11))
DEALER_STANDS_ON = 17
# One card per value (the 10 stands for every 10-value rank); suits play no part in drawing.
VALUE_CARDS = {value: Card.of(value, 0) for value in VALUES}


@dataclass(frozen=True, slots=True)
class FinalHand:
    cards: tuple[Card, ...]
    probability: Fraction

    @property
    def is_bust(self) -> bool:
        return hand_total(self.cards)[0] > BLACKJACK_TOTAL


def dealer_stands(cards: tuple[Card, ...], hits_soft_17: bool) -> bool:
    if len(cards) < 2:
        return False
    total, soft = hand_total(cards)
    if total == DEALER_STANDS_ON and soft and hits_soft_17:
        return False
    return total >= DEALER_STANDS_ON


def value_counts(decks: int) -> dict[int, int]:
    return {value: decks * (16 if value == 10 else 4) for value in VALUES}


@cache
def dealer_final_hands(decks: int, hits_soft_17: bool) -> tuple[FinalHand, ...]:
    """Every final dealer hand (as value multisets) with its exact probability."""
    shoe = value_counts(decks)
    cards_in_shoe = sum(shoe.values())
    # Level n holds the unfinished hands of n cards: value multiset -> (ways, first order seen).
    # "ways" counts ordered draws, so a level's probabilities share the denominator N(N-1)...
    level: dict[tuple[int, ...], tuple[int, tuple[int, ...]]] = {(): (1, ())}
    finals: dict[tuple[int, ...], tuple[int, int, tuple[int, ...]]] = {}
    drawn = 0
    while level:
        following: dict[tuple[int, ...], tuple[int, tuple[int, ...]]] = {}
        for key, (ways, order) in level.items():
            for value in VALUES:
                left = shoe[value] - key.count(value)
                if left <= 0:
                    continue
                new_key = tuple(sorted((*key, value)))
                new_order = (*order, value)
                new_ways = ways * left
                cards = tuple(VALUE_CARDS[item] for item in new_order)
                if dealer_stands(cards, hits_soft_17):
                    old = finals.get(new_key)
                    finals[new_key] = (
                        drawn + 1,
                        new_ways + (old[1] if old else 0),
                        old[2] if old else new_order,
                    )
                else:
                    old_open = following.get(new_key)
                    following[new_key] = (
                        new_ways + (old_open[0] if old_open else 0),
                        old_open[1] if old_open else new_order,
                    )
        level = following
        drawn += 1
    hands = []
    for length, ways, order in finals.values():
        orderings = 1
        for index in range(length):
            orderings *= cards_in_shoe - index
        hands.append(
            FinalHand(tuple(VALUE_CARDS[value] for value in order), Fraction(ways, orderings))
        )
    return tuple(hands)
