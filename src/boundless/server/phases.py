"""The round's phase names as the core reports them (``SharedRound.phase``, ``public_view``).

Kept here as plain strings: they are part of the wire protocol, whatever module of the core
defines them.
"""

BETTING = "betting"
INSURANCE = "insurance"
DECISIONS = "decisions"
DEALER = "dealer"
SETTLING = "settling"
SETTLED = "settled"
CANCELLED = "cancelled"
