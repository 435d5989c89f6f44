"""Boo Bucks side bets: Trifecta, Jack A-Tack, In Between, Match the Dealer, Hole Card Bonus and
Bonus Spin Xtreme (DECISIONS.md rules 26-30).

Every evaluator returns every pattern whose description holds ("two suited matches" also holds
"suited match"); the pay table then pays the highest one (DECISIONS.md rule 4).
"""

from __future__ import annotations

from collections.abc import Sequence

from boundless.core.cards import ACE, Card
from boundless.core.hands import best_total, is_natural
from boundless.core.side_bets.base import NO_MATCH, PENDING, Matched, SideBetKind, register
from boundless.core.side_bets.three_card import (
    all_one_rank,
    all_one_suit,
    is_straight,
    pairing,
)

FIVE = 5
SIX = 6
JACK = 11
SPADES, HEARTS = 0, 1
ONE_EYED_JACK_SUITS = frozenset({SPADES, HEARTS})
JACK_A_TACK_TOTAL = 20


def _trifecta(
    player: Sequence[Card], up: Card, dealer: Sequence[Card] | None, variant: str | None
) -> Matched:
    # Unlike Poker Trio, the Trifecta table has no suited-trips line and no "different suits"
    # wording: suited trips are three of a kind (and a flush), a straight flush is also a straight.
    cards = (player[0], player[1], up)
    matched: set[str] = set()
    if all_one_rank(cards):
        matched.add("three_of_a_kind")
        if cards[0].rank == FIVE:
            matched.add("three_fives")
    if is_straight(cards):
        matched.add("straight")
    if all_one_suit(cards):
        matched.add("flush")
        if "straight" in matched:
            matched.add("straight_flush")
    return frozenset(matched)


def _is_one_eyed_jack(card: Card) -> bool:
    return card.rank == JACK and card.suit in ONE_EYED_JACK_SUITS


def _jack_a_tack(
    player: Sequence[Card], up: Card, dealer: Sequence[Card] | None, variant: str | None
) -> Matched:
    if variant not in JACK_A_TACK.variants:
        raise ValueError(
            f"jack_a_tack needs variant one of {JACK_A_TACK.variants}, got {variant!r}"
        )
    first, second = player[0], player[1]
    # Aces count as in blackjack, so A-9 (soft 20) is "any 20".
    if best_total((first, second)) != JACK_A_TACK_TOTAL:
        return NO_MATCH
    matched = {"any_20"}
    if first.rank == second.rank == JACK:
        matched.add("any_two_jacks")
        if first.suit == second.suit:
            matched.add("two_suited_jacks")
    if _is_one_eyed_jack(first) and _is_one_eyed_jack(second):
        matched.add("any_two_one_eyed_jacks")
        if first.suit == second.suit:
            matched.add("suited_one_eyed_jacks")
        if variant == "with_dealer" and _is_one_eyed_jack(up):
            # The four-jack pays wait for the hole card (DECISIONS.md rule 30).
            if dealer is None:
                return PENDING
            hole = dealer[1]
            if _is_one_eyed_jack(hole):
                matched.add("any_four_one_eyed_jacks")
                if first == second == up == hole:
                    matched.add("four_identical_one_eyed_jacks")
    return frozenset(matched)


def _ace_high_rank(card: Card) -> int:
    return 14 if card.rank == ACE else card.rank


SPREAD_PATTERNS = {1: "spread_1", 2: "spread_2", 3: "spread_3"}


def _in_between(
    player: Sequence[Card], up: Card, dealer: Sequence[Card] | None, variant: str | None
) -> Matched:
    low, high = sorted((_ace_high_rank(player[0]), _ace_high_rank(player[1])))
    middle = _ace_high_rank(up)
    if low == high == middle:
        return frozenset({"triple_match"})
    if not low < middle < high:
        return NO_MATCH
    spread = high - low - 1
    return frozenset({SPREAD_PATTERNS.get(spread, "spread_over_3")})


def _match_the_dealer(
    player: Sequence[Card], up: Card, dealer: Sequence[Card] | None, variant: str | None
) -> Matched:
    same_rank = [card for card in player[:2] if card.rank == up.rank]
    suited = sum(1 for card in same_rank if card.suit == up.suit)
    unsuited = len(same_rank) - suited
    matched: set[str] = set()
    if suited:
        matched.add("suited_match")
    if unsuited:
        matched.add("one_unsuited_match")
    if suited == 2:
        matched.add("two_suited_matches")
    if unsuited == 2:
        matched.add("two_unsuited_matches")
    if suited and unsuited:
        matched.add("suited_plus_unsuited")
    return frozenset(matched)


def _hole_card_bonus(
    player: Sequence[Card], up: Card, dealer: Sequence[Card] | None, variant: str | None
) -> Matched:
    paired = pairing(player[0], player[1])
    if paired is None:
        return NO_MATCH
    return frozenset({"suited_pair" if paired == "suited" else "non_suited_pair"})


def _is_xtreme_16(first: Card, second: Card) -> bool:
    # A 6 and a 10, J, Q or K: exactly the 10-value cards other than aces.
    values = sorted((first.value, second.value))
    return values == [SIX, 10]


def _bonus_spin_xtreme(
    player: Sequence[Card], up: Card, dealer: Sequence[Card] | None, variant: str | None
) -> Matched:
    matched: set[str] = set()
    if is_natural(player[:2]):
        matched.add("player_blackjack")
    if dealer is None:
        # Only an up card of 6 or 10-value can start an Xtreme 16; then it waits for the hole.
        if up.value in (SIX, 10):
            return PENDING
    elif _is_xtreme_16(dealer[0], dealer[1]):
        matched.add("xtreme_16")
    return frozenset(matched)


TRIFECTA = register(
    SideBetKind(
        "trifecta",
        ("three_fives", "straight_flush", "three_of_a_kind", "straight", "flush"),
        _trifecta,
    )
)
JACK_A_TACK = register(
    SideBetKind(
        "jack_a_tack",
        (
            "four_identical_one_eyed_jacks",
            "any_four_one_eyed_jacks",
            "suited_one_eyed_jacks",
            "any_two_one_eyed_jacks",
            "two_suited_jacks",
            "any_two_jacks",
            "any_20",
        ),
        _jack_a_tack,
        variants=("player_only", "with_dealer"),
    )
)
IN_BETWEEN = register(
    SideBetKind(
        "in_between",
        ("triple_match", "spread_1", "spread_2", "spread_3", "spread_over_3"),
        _in_between,
    )
)
MATCH_THE_DEALER = register(
    SideBetKind(
        "match_the_dealer",
        (
            "two_suited_matches",
            "suited_plus_unsuited",
            "suited_match",
            "two_unsuited_matches",
            "one_unsuited_match",
        ),
        _match_the_dealer,
    )
)
HOLE_CARD_BONUS = register(
    SideBetKind("hole_card_bonus", ("suited_pair", "non_suited_pair"), _hole_card_bonus)
)
BONUS_SPIN_XTREME = register(
    SideBetKind(
        "bonus_spin_xtreme",
        ("player_blackjack", "xtreme_16"),
        _bonus_spin_xtreme,
        uses_wheel=True,
    )
)

# Which pattern triggers the wheel for a bet placed on the spot or on the dealer's hand.
WHEEL_TRIGGER_BY_TARGET = {"spot": "player_blackjack", "dealer": "xtreme_16"}
