"""The largest amount of coins anything accepts as input: a bet, a balance, a grant.

Amounts are whole minor units held in 64-bit columns (the round's books, the ledger). Capping
every input at :data:`MAX_AMOUNT` (10^15 minor units, 10 trillion coins of 100 units) leaves
room for any payout of any title (at most a few thousand times the stake) and for sums over
many positions, so no arithmetic on an accepted amount can overflow.
"""

from __future__ import annotations

MAX_AMOUNT = 10**15


def amount_problem(value: int) -> str | None:
    """Why ``value`` is not an acceptable amount, or ``None`` when it is."""
    if value < 0:
        return f"{value} is negative"
    if value > MAX_AMOUNT:
        return f"{value} is above the maximum amount {MAX_AMOUNT:,}"
    return None
