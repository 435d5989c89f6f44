"""The phases of a round, in order; ``paused`` is a separate flag."""

BETTING = "betting"
INSURANCE = "insurance"
DECISIONS = "decisions"
DEALER = "dealer"
SETTLING = "settling"
SETTLED = "settled"
CANCELLED = "cancelled"
OVER = frozenset({SETTLED, CANCELLED})
