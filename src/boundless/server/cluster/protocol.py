"""The round as it crosses processes: the coordinator's public events and what each side supplies.

A round on the bus, in order (each a :class:`~boundless.server.cluster.bus.RoundEvent`):

``round_opened`` → ``betting_closed`` → (gateways report ``bets_closed`` with their positions per
spot) → ``dealt`` → per step: ``step_opened`` → (gateways report ``decided`` once their watching
players have acted) → ``step_closed`` at the deadline or when every gateway decided → (gateways
autoplay the rest and report ``takers``) → ``step_card`` (the card, once, or none when nobody
takes one) → (gateways report ``applied``) → ... → ``dealer_played`` → ``round_settling`` →
(gateways settle their slices and report ``settled``) → ``round_closed``.

``gateway_dropped`` says a gateway missed a report deadline: its slice is out of the round (its
owner's recovery cancels and refunds it) and the others play on. ``round_cancelled`` ends a round
that a new coordinator found in flight.

The rules themselves stay in the core: the coordinator asks a :class:`TableSide` (shoe, hole card,
dealer, step plan) and each gateway a :class:`SliceSide` (its own positions), so the same protocol
runs whatever round engine fills those two in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from boundless.server.cluster.bus import JsonBody


class Public(StrEnum):
    ROUND_OPENED = "round_opened"
    BETTING_CLOSED = "betting_closed"
    DEALT = "dealt"
    STEP_OPENED = "step_opened"
    STEP_CLOSED = "step_closed"
    STEP_CARD = "step_card"
    DEALER_PLAYED = "dealer_played"
    ROUND_SETTLING = "round_settling"
    ROUND_CLOSED = "round_closed"
    ROUND_CANCELLED = "round_cancelled"
    GATEWAY_DROPPED = "gateway_dropped"


ROUND_ENDS = frozenset({Public.ROUND_CLOSED, Public.ROUND_CANCELLED})


@dataclass(frozen=True, slots=True)
class StepPlan:
    """The next step the table runs: which spot, plus what the gateways need to know of it."""

    step: int
    spot: int
    body: JsonBody


@dataclass(frozen=True, slots=True)
class StepTotals:
    """The gateways' reports for one closed step, added up."""

    step: int
    spot: int
    takers: int
    """Positions that take the step's card."""
    playing: int
    """Positions on the spot with a hand still in play after this step's decisions."""


class TableSide(Protocol):
    """The coordinator's half of a round: the shoe, the hole card, the dealer, the step plan."""

    def deal(self, positions_by_spot: Mapping[int, int]) -> JsonBody:
        """Deal the round's public initial cards for the spots that have positions."""
        ...

    def next_step(self, last: StepTotals | None) -> StepPlan | None:
        """The step after ``last`` (``None``: the first); ``None`` when the players are done."""
        ...

    def card(self, plan: StepPlan, takers: int) -> JsonBody:
        """The step's public card (drawn once however many take it); ``{}`` when none take it."""
        ...

    def play_dealer(self) -> JsonBody:
        """The hole card and the dealer's draws, public."""
        ...


class SliceSide(Protocol):
    """One gateway's positions in one round (its follower round and its ledger slice)."""

    def close_bets(self) -> Mapping[int, int]:
        """Stop taking bets; this slice's positions per spot."""
        ...

    def deal(self, body: JsonBody) -> None: ...

    def open_step(self, plan: StepPlan) -> None: ...

    def all_decided(self, step: int) -> bool:
        """True when every watching player with a decision at this step has made it."""
        ...

    def close_step(self, step: int) -> tuple[int, int]:
        """Autoplay the undecided; ``(takers, playing)`` for this slice."""
        ...

    def apply_card(self, step: int, body: JsonBody) -> None: ...

    def dealer_played(self, body: JsonBody) -> None: ...

    def settle(self) -> JsonBody:
        """Settle this slice (its ledger writes); a summary for the coordinator."""
        ...

    def cancel(self, reason: str) -> None:
        """Refund this slice (the round was cancelled or this gateway dropped)."""
        ...
