"""The side-bet kind registry."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from boundless.core.cards import Card
from boundless.core.money import Odds


class _Pending:
    """The result depends on dealer cards that are not known yet."""

    def __repr__(self) -> str:
        return "PENDING"


PENDING: Final = _Pending()

Matched = frozenset[str] | _Pending
Evaluator = Callable[[Sequence[Card], Card, Sequence[Card] | None, str | None], Matched]
NO_MATCH: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class SideBetKind:
    """One evaluator and the patterns it can report.

    ``evaluate(player_cards, dealer_up, dealer_cards, variant)`` gets the player's first two cards
    of the spot, the dealer's up card, and the dealer's final cards (``None`` while the dealer
    hand is not finished). It returns the matched patterns, or ``PENDING`` when the answer
    depends on the unfinished dealer hand.
    """

    kind: str
    patterns: tuple[str, ...]
    evaluate: Evaluator
    variants: tuple[str, ...] = ()
    uses_wheel: bool = False


SIDE_BET_KINDS: dict[str, SideBetKind] = {}


def register(kind: SideBetKind) -> SideBetKind:
    if kind.kind in SIDE_BET_KINDS:
        raise ValueError(f"side-bet kind {kind.kind!r} registered twice")
    SIDE_BET_KINDS[kind.kind] = kind
    return kind


def best_paying_pattern(matched: frozenset[str], pays: Mapping[str, Odds]) -> str | None:
    """The matched pattern with the highest pay in this table (ties: table order)."""
    best: str | None = None
    for pattern, odds in pays.items():
        if pattern in matched and (best is None or odds > pays[best]):
            best = pattern
    return best
