"""One side bet evaluated on explicit cards, paid by a title's own pay table (not a test module)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from boundless.core.cards import Card, parse_cards
from boundless.core.side_bets import PENDING, SIDE_BET_KINDS, best_paying_pattern
from boundless.titles import load_title


def evaluate(
    kind: str, player: str, up: str, dealer: str | None = None, variant: str | None = None
) -> object:
    """The patterns that hold (or PENDING): ``player`` and ``dealer`` are card strings."""
    dealer_cards = parse_cards(dealer.split()) if dealer is not None else None
    return SIDE_BET_KINDS[kind].evaluate(
        parse_cards(player.split()), Card.parse(up), dealer_cards, variant
    )


def paid(
    title: str,
    key: str,
    player: str,
    up: str,
    dealer: str | None = None,
    *,
    variant: str | None = None,
) -> str | None:
    """The pattern the title pays for this bet on these cards (``variant``: other than the
    title's own)."""
    bet = load_title(title).side_bet(key)
    assert bet is not None
    matched = evaluate(bet.kind, player, up, dealer, variant or bet.variant)
    assert matched is not PENDING
    return best_paying_pattern(matched, bet.pays)  # type: ignore[arg-type]


Hands = Mapping[str, Mapping[str | None, Sequence[str]]]


def cases(table: Hands) -> list[tuple[str, str, str, str | None]]:
    """``{key: {pattern: ["P1 P2 UP", ...]}}`` (None: no pattern pays) as parameters
    ``(key, "P1 P2", "UP", pattern)``: the player's two cards, then the dealer's up card."""
    found = []
    for key, by_pattern in table.items():
        for pattern, hands in by_pattern.items():
            for hand in hands:
                first, second, up = hand.split()
                found.append((key, f"{first} {second}", up, pattern))
    return found
