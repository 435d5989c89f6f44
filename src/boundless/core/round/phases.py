"""The phases of a round, in order; ``paused`` is a separate flag."""

from enum import StrEnum


class Phase(StrEnum):
    BETTING = "betting"
    INSURANCE = "insurance"
    DECISIONS = "decisions"
    DEALER = "dealer"
    SETTLING = "settling"
    SETTLED = "settled"
    CANCELLED = "cancelled"


BETTING = Phase.BETTING
INSURANCE = Phase.INSURANCE
DECISIONS = Phase.DECISIONS
DEALER = Phase.DEALER
SETTLING = Phase.SETTLING
SETTLED = Phase.SETTLED
CANCELLED = Phase.CANCELLED
OVER = frozenset({SETTLED, CANCELLED})
