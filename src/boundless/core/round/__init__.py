"""The round: public cards, per-position private play, settlement and views.

``SharedRound`` plays a whole table in one process. ``FollowerRound`` holds some of a table's
positions and follows the ``TableDealer``'s public events (a table spread over processes).
Both are a ``RoundState`` (the data) with the players' verify/can/do calls on top.
"""

from boundless.core.round.actions import Action, Source
from boundless.core.round.dealer_table import TableDealer
from boundless.core.round.follower import BetsReport, FollowerRound, StepReport
from boundless.core.round.paths import HandStatus
from boundless.core.round.phases import (
    BETTING,
    CANCELLED,
    DEALER,
    DECISIONS,
    INSURANCE,
    OVER,
    SETTLED,
    SETTLING,
    Phase,
)
from boundless.core.round.round import SharedRound
from boundless.core.round.state import PaymentStage, RoundState

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
    "BetsReport",
    "FollowerRound",
    "HandStatus",
    "PaymentStage",
    "Phase",
    "RoundState",
    "SharedRound",
    "Source",
    "StepReport",
    "TableDealer",
]
