"""Hand arithmetic shared by the engine, the side bets and the math."""

from __future__ import annotations

from collections.abc import Sequence

from boundless.core.cards import ACE, TEN_VALUE, Card

BLACKJACK_TOTAL = 21


def hand_total(cards: Sequence[Card]) -> tuple[int, bool]:
    """Best total not over 21 where possible, and whether an ace counts 11 in it (soft)."""
    hard = sum(card.value for card in cards)
    if hard <= 11 and any(card.rank == ACE for card in cards):
        return hard + 10, True
    return hard, False


def best_total(cards: Sequence[Card]) -> int:
    return hand_total(cards)[0]


def is_bust(cards: Sequence[Card]) -> bool:
    return best_total(cards) > BLACKJACK_TOTAL


def is_natural(cards: Sequence[Card]) -> bool:
    """Ace plus a 10-value card as two cards (the caller excludes split hands)."""
    return len(cards) == 2 and {cards[0].value, cards[1].value} == {ACE, TEN_VALUE}


def is_pair(cards: Sequence[Card], by: str) -> bool:
    """Two cards of the same value (``by="value"``) or the same rank (``by="rank"``)."""
    if len(cards) != 2:
        return False
    if by == "rank":
        return cards[0].rank == cards[1].rank
    return cards[0].value == cards[1].value
