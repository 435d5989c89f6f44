"""The largest amount of coins anything accepts as input: a bet, a balance, a grant.

Amounts are whole minor units held in 64-bit columns (the round's books, the ledger). Capping
every input at :data:`MAX_AMOUNT` (10^15 minor units, 10 trillion coins of 100 units), and
refusing a rule set where a largest stake at its odds could pay more than
:data:`MAX_PAYOUT_AMOUNT` (``boundless.core.rules``), leaves room for every payout and for the
sum of a position's hands, so no arithmetic on an accepted amount can overflow.
"""

from __future__ import annotations

MAX_AMOUNT = 10**15
# One payout, and each product on the way to it (stake x units x odds); four hands' payouts
# together stay below 2^63.
MAX_PAYOUT_AMOUNT = 2 * 10**18


def amount_problem(value: int) -> str | None:
    """Why ``value`` is not an acceptable amount, or ``None`` when it is."""
    if value < 0:
        return f"{value} is negative"
    if value > MAX_AMOUNT:
        return f"{value} is above the maximum amount {MAX_AMOUNT:,}"
    return None
