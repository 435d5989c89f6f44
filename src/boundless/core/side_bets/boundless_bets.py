"""Pair, Bust Bonus, Lucky Trio and Poker Trio."""

from __future__ import annotations

from collections.abc import Sequence

from boundless.core.cards import Card
from boundless.core.hands import best_total
from boundless.core.side_bets.base import NO_MATCH, PENDING, Matched, SideBetKind, register
from boundless.core.side_bets.three_card import all_one_suit, pairing, poker_patterns

# Every description that holds: a perfect pair is also a pair of one colour.
PAIR_PATTERNS: dict[str | None, frozenset[str]] = {
    "suited": frozenset({"perfect_pair", "colored_pair"}),
    "one_colour": frozenset({"colored_pair"}),
    "mixed": frozenset({"mixed_pair"}),
    None: NO_MATCH,
}


def _pair(
    player: Sequence[Card], up: Card, dealer: Sequence[Card] | None, variant: str | None
) -> Matched:
    return PAIR_PATTERNS[pairing(player[0], player[1])]


MAX_BUST_CARDS = 8


def _bust_bonus(
    player: Sequence[Card], up: Card, dealer: Sequence[Card] | None, variant: str | None
) -> Matched:
    if dealer is None:
        return PENDING
    if best_total(dealer) <= 21:
        return NO_MATCH
    return frozenset({f"bust_{min(len(dealer), MAX_BUST_CARDS)}"})


def _lucky_trio(
    player: Sequence[Card], up: Card, dealer: Sequence[Card] | None, variant: str | None
) -> Matched:
    cards = (player[0], player[1], up)
    suited = all_one_suit(cards)
    ranks = sorted(card.rank for card in cards)
    total = best_total(cards)
    matched: set[str] = set()
    # "Unsuited" 7-7-7 and 6-7-8 mean any suits, so a suited one matches both lines.
    if ranks == [7, 7, 7]:
        matched.update({"suited_777", "unsuited_777"} if suited else {"unsuited_777"})
    if ranks == [6, 7, 8]:
        matched.update({"suited_678", "unsuited_678"} if suited else {"unsuited_678"})
    if total == 21:
        matched.add("suited_21" if suited else "unsuited_21")
    if total in (19, 20):
        matched.add("total_19_20")
    return frozenset(matched)


def _poker_trio(
    player: Sequence[Card], up: Card, dealer: Sequence[Card] | None, variant: str | None
) -> Matched:
    return frozenset(poker_patterns((player[0], player[1], up)))


PAIR = register(SideBetKind("pair", ("perfect_pair", "colored_pair", "mixed_pair"), _pair))
BUST_BONUS = register(
    SideBetKind(
        "bust_bonus",
        tuple(f"bust_{count}" for count in range(MAX_BUST_CARDS, 2, -1)),
        _bust_bonus,
    )
)
LUCKY_TRIO = register(
    SideBetKind(
        "lucky_trio",
        (
            "suited_777",
            "suited_678",
            "unsuited_777",
            "unsuited_678",
            "suited_21",
            "unsuited_21",
            "total_19_20",
        ),
        _lucky_trio,
    )
)
POKER_TRIO = register(
    SideBetKind(
        "poker_trio",
        ("suited_trips", "straight_flush", "three_of_a_kind", "straight", "flush"),
        _poker_trio,
    )
)
