"""Card patterns the side bets share: how the player's two cards pair, and three-card patterns
for the trio bets (player's two cards + dealer up card)."""

from __future__ import annotations

from collections.abc import Sequence

from boundless.core.cards import ACE, Card


def pairing(first: Card, second: Card) -> str | None:
    """How two cards pair: ``"suited"`` (one rank, one suit), ``"one_colour"``, ``"mixed"``;
    None when their ranks differ."""
    if first.rank != second.rank:
        return None
    if first.suit == second.suit:
        return "suited"
    return "one_colour" if first.is_red == second.is_red else "mixed"


def all_one_suit(cards: Sequence[Card]) -> bool:
    return len({card.suit for card in cards}) == 1


def all_one_rank(cards: Sequence[Card]) -> bool:
    return len({card.rank for card in cards}) == 1


def is_straight(cards: Sequence[Card]) -> bool:
    """Three consecutive ranks; the ace plays low (A-2-3) or high (Q-K-A), never K-A-2."""
    ranks = sorted(card.rank for card in cards)
    if len(set(ranks)) != len(ranks):
        return False
    if ranks[-1] - ranks[0] == len(ranks) - 1:
        return True
    if ranks[0] == ACE:
        high = sorted(14 if rank == ACE else rank for rank in ranks)
        return high[-1] - high[0] == len(high) - 1
    return False


def poker_patterns(cards: Sequence[Card]) -> set[str]:
    """Poker patterns of a three-card hand, every one that applies."""
    patterns: set[str] = set()
    suited = all_one_suit(cards)
    if all_one_rank(cards):
        patterns.add("suited_trips" if suited else "three_of_a_kind")
    if is_straight(cards):
        patterns.add("straight_flush" if suited else "straight")
    if suited:
        patterns.add("flush")
    return patterns
