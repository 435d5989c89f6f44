"""Exact distributions of the pattern sets a side-bet evaluator reports, over a full shoe.

A shoe of ``d`` decks holds ``d`` copies of each of the 52 cards. The cards a bet reads are an
ordered draw without replacement; we enumerate card identities (52 of them, whatever the deck
count) and weight each by the number of ordered draws of real cards it stands for, so every
probability is an exact fraction and the work does not grow with the number of decks.

Which cards a kind reads is declared here (:data:`KIND_SCOPES`); cards it does not read are
unseen and average out, so they are filled with fixed stand-ins that are not drawn from the
shoe. Tests check each declaration against the evaluators.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from fractions import Fraction
from functools import cache
from typing import Literal

from boundless.core.cards import ALL_CARDS, Card
from boundless.core.side_bets import SIDE_BET_KINDS
from boundless.core.side_bets.base import SideBetKind
from boundless.math.side_bets.dealer_final_hands import dealer_final_hands

Scope = Literal["player", "player_up", "dealer_two", "dealer_final"]

# What each kind reads: the player's two cards, plus the up card, plus the hole card when the
# evaluator answers PENDING ("player_up"); the dealer's first two cards; or the final dealer hand.
KIND_SCOPES: dict[str, Scope] = {
    "pair": "player",
    "hole_card_bonus": "player",
    "lucky_trio": "player_up",
    "poker_trio": "player_up",
    "trifecta": "player_up",
    "in_between": "player_up",
    "match_the_dealer": "player_up",
    "jack_a_tack": "player_up",
    "bust_bonus": "dealer_final",
}
# Bonus Spin Xtreme reads only what its trigger needs (see WHEEL_TRIGGER_BY_TARGET).
TRIGGER_SCOPES: dict[str, Scope] = {"player_blackjack": "player", "xtreme_16": "dealer_two"}

# Stand-ins for unread cards: a 2 and a 3 of clubs make no blackjack, no pair, no Xtreme 16.
STAND_IN_PLAYER = (Card.parse("2C"), Card.parse("3C"))
STAND_IN_UP = Card.parse("2C")

Distribution = dict[frozenset[str], Fraction]


def _settled(matched: object, why: str) -> frozenset[str]:
    if not isinstance(matched, frozenset):
        raise AssertionError(why)
    return matched


def scope_of(kind: str, trigger: str | None = None) -> Scope:
    if trigger is not None:
        return TRIGGER_SCOPES[trigger]
    try:
        return KIND_SCOPES[kind]
    except KeyError:
        raise ValueError(f"no exact method is declared for side-bet kind {kind!r}") from None


def _falling(count: int, steps: int) -> int:
    result = 1
    for index in range(steps):
        result *= count - index
    return result


def _player_pairs(decks: int) -> Iterator[tuple[Card, Card, int]]:
    """Unordered player pairs with the number of ordered two-card draws each stands for."""
    for first_index, first in enumerate(ALL_CARDS):
        yield first, first, decks * (decks - 1)
        for second in ALL_CARDS[first_index + 1 :]:
            yield first, second, 2 * decks * decks


def _player_scope(kind: SideBetKind, variant: str | None, decks: int) -> Distribution:
    counts: dict[frozenset[str], int] = defaultdict(int)
    for first, second, ways in _player_pairs(decks):
        if ways:
            matched = kind.evaluate((first, second), STAND_IN_UP, None, variant)
            counts[_settled(matched, f"{kind.kind} is declared to read the player only")] += ways
    total = _falling(52 * decks, 2)
    return {matched: Fraction(ways, total) for matched, ways in counts.items()}


def _player_up_scope(kind: SideBetKind, variant: str | None, decks: int) -> Distribution:
    three: dict[frozenset[str], int] = defaultdict(int)
    four: dict[frozenset[str], int] = defaultdict(int)
    for first, second, pair_ways in _player_pairs(decks):
        if not pair_ways:
            continue
        for up in ALL_CARDS:
            ways = pair_ways * (decks - (up == first) - (up == second))
            if not ways:
                continue
            matched = kind.evaluate((first, second), up, None, variant)
            if isinstance(matched, frozenset):
                three[matched] += ways
                continue
            used = (first, second, up)
            for hole in ALL_CARDS:
                hole_ways = ways * (decks - used.count(hole))
                if hole_ways:
                    final = kind.evaluate((first, second), up, (up, hole), variant)
                    four[_settled(final, f"{kind.kind} still pending with the hole")] += hole_ways
    cards = 52 * decks
    result: Distribution = defaultdict(Fraction)
    for matched, ways in three.items():
        result[matched] += Fraction(ways, _falling(cards, 3))
    for matched, ways in four.items():
        result[matched] += Fraction(ways, _falling(cards, 4))
    return dict(result)


def _dealer_two_scope(kind: SideBetKind, variant: str | None, decks: int) -> Distribution:
    counts: dict[frozenset[str], int] = defaultdict(int)
    for up in ALL_CARDS:
        for hole in ALL_CARDS:
            ways = decks * (decks - (hole == up))
            if ways:
                matched = kind.evaluate(STAND_IN_PLAYER, up, (up, hole), variant)
                counts[_settled(matched, f"{kind.kind} pending with two dealer cards")] += ways
    total = _falling(52 * decks, 2)
    return {matched: Fraction(ways, total) for matched, ways in counts.items()}


def _dealer_final_scope(
    kind: SideBetKind, variant: str | None, decks: int, hits_soft_17: bool
) -> Distribution:
    result: Distribution = defaultdict(Fraction)
    for hand in dealer_final_hands(decks, hits_soft_17):
        matched = kind.evaluate(STAND_IN_PLAYER, hand.cards[0], hand.cards, variant)
        result[_settled(matched, f"{kind.kind} pending with the final hand")] += hand.probability
    return dict(result)


@cache
def matched_distribution(
    kind: str, variant: str | None, decks: int, scope: Scope, hits_soft_17: bool = False
) -> Distribution:
    """Exact probability of each pattern set the kind's evaluator reports.

    ``hits_soft_17`` matters only for the ``dealer_final`` scope. In the ``dealer_two`` and
    ``dealer_final`` scopes the player's cards are stand-ins: only dealer patterns mean anything.
    """
    side_bet_kind = SIDE_BET_KINDS[kind]
    if scope == "player":
        return _player_scope(side_bet_kind, variant, decks)
    if scope == "player_up":
        return _player_up_scope(side_bet_kind, variant, decks)
    if scope == "dealer_two":
        return _dealer_two_scope(side_bet_kind, variant, decks)
    return _dealer_final_scope(side_bet_kind, variant, decks, hits_soft_17)
