"""The shared round: public cards, per-position private play, settlement and views."""

from boundless.core.round.actions import Action, Source
from boundless.core.round.phases import (
    BETTING,
    CANCELLED,
    DEALER,
    DECISIONS,
    INSURANCE,
    OVER,
    SETTLED,
    SETTLING,
)
from boundless.core.round.round import SharedRound

__all__ = [
    "BETTING",
    "CANCELLED",
    "DEALER",
    "DECISIONS",
    "INSURANCE",
    "OVER",
    "SETTLED",
    "SETTLING",
    "Action",
    "SharedRound",
    "Source",
]
