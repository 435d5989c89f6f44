"""The ordered event log of a round. Applying the events in order rebuilds the round exactly.

Events that carry many positions hold read-only numpy arrays, so a round with a million
positions logs a handful of events, not millions. Hidden information (the hole card) is in
the log, which stays on the server; :func:`public_event` gives what may be broadcast.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, get_args

import numpy as np

from boundless.core.arrays import IntArray
from boundless.core.cards import Card


def frozen_array(values: Any, dtype: Any = np.int64) -> IntArray:
    array = np.array(values, dtype=dtype)
    array.setflags(write=False)
    return array


@dataclass(frozen=True, slots=True, eq=False)
class RoundOpened:
    round_in_shoe: int
    rules_key: str
    rules_version: str
    offered_side_bets: tuple[str, ...]
    shoe_commitment: str | None = None


@dataclass(frozen=True, slots=True, eq=False)
class BetsPlaced:
    """One or many bets. ``free_amounts`` is each player's free coins before the bet."""

    player_ids: tuple[str, ...]
    spots: IntArray
    main_amounts: IntArray
    side_keys: tuple[str, ...]
    side_amounts: IntArray  # shape (bets, len(side_keys))
    free_amounts: IntArray


@dataclass(frozen=True, slots=True, eq=False)
class FreeCoinsSet:
    """The caller's fresh figure for players' coins outside this round (e.g. other tables)."""

    player_ids: tuple[str, ...]
    free_amounts: IntArray


@dataclass(frozen=True, slots=True, eq=False)
class CardsDealt:
    spot_cards: tuple[tuple[int, Card, Card], ...]
    up_card: Card
    hole_card: Card | None


@dataclass(frozen=True, slots=True, eq=False)
class InsuranceTaken:
    positions: IntArray
    even_money: bool


@dataclass(frozen=True, slots=True, eq=False)
class InsuranceClosed:
    pass


@dataclass(frozen=True, slots=True, eq=False)
class DecisionsMade:
    spot: int
    step: int
    positions: IntArray
    actions: IntArray


@dataclass(frozen=True, slots=True, eq=False)
class StepClosed:
    spot: int
    step: int
    card: Card | None


@dataclass(frozen=True, slots=True, eq=False)
class DealerCardsDrawn:
    """The dealer's cards after the decisions: hole/second card first, then the draws."""

    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True, eq=False)
class WheelSpun:
    """Bonus wheel features of one side bet: what each triggered position won and where."""

    side_key: str
    positions: IntArray
    payout_amounts: IntArray
    labels: tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True, eq=False)
class RoundSettled:
    pass


@dataclass(frozen=True, slots=True, eq=False)
class RoundPaused:
    reason: str


@dataclass(frozen=True, slots=True, eq=False)
class RoundResumed:
    pass


@dataclass(frozen=True, slots=True, eq=False)
class RoundCancelled:
    reason: str


# ---- the table's public stream (multi-process tables) -----------------------------------
# A table that spreads its positions over follower rounds publishes the events every follower
# applies: RoundOpened, CardsDealt (hole card None), InsuranceClosed, the four below,
# RoundPaused, RoundResumed and RoundCancelled. None of them names a position or a player.


@dataclass(frozen=True, slots=True, eq=False)
class PeekResult:
    """The dealer checked the hole card: ``hole_card`` only when it makes blackjack."""

    hole_card: Card | None


@dataclass(frozen=True, slots=True, eq=False)
class StepOpened:
    """Decisions are open for ``step`` on ``spot``."""

    spot: int
    step: int


@dataclass(frozen=True, slots=True, eq=False)
class StepDealt:
    """The step closed: its card (None if nobody took one) and how many positions took it."""

    spot: int
    step: int
    card: Card | None
    takers: int


@dataclass(frozen=True, slots=True, eq=False)
class DealerRevealed:
    """The dealer's whole hand after the decisions: up card, hole (or second) card, draws."""

    cards: tuple[Card, ...]


TableEvent = (
    RoundOpened
    | CardsDealt
    | InsuranceClosed
    | PeekResult
    | StepOpened
    | StepDealt
    | DealerRevealed
    | RoundPaused
    | RoundResumed
    | RoundCancelled
)
TABLE_EVENT_TYPES: tuple[type, ...] = get_args(TableEvent)


Event = (
    RoundOpened
    | BetsPlaced
    | FreeCoinsSet
    | CardsDealt
    | InsuranceTaken
    | InsuranceClosed
    | DecisionsMade
    | StepClosed
    | DealerCardsDrawn
    | WheelSpun
    | RoundSettled
    | RoundPaused
    | RoundResumed
    | RoundCancelled
)


def public_event(event: Event) -> Event | None:
    """What every player may see of ``event``: bets and decisions are private, hole hidden."""
    if isinstance(event, (BetsPlaced, FreeCoinsSet, InsuranceTaken, DecisionsMade)):
        return None
    if isinstance(event, CardsDealt):
        return CardsDealt(event.spot_cards, event.up_card, None)
    return event
