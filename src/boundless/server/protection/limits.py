"""Which limits are in force: replayed from a player's append-only limit rows (pure).

Each row asks for one limit (``loss.day`` ... ``session_minutes``) to become ``amount`` (None: no
limit) at ``effective_at``: at once for a decrease, after the profile's cooling-off for an
increase or a removal. A later request replaces a change still pending when it is made, so a
player who asks for more and then thinks better of it keeps the lower limit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from boundless.server.protection.clock import aware

WINDOWS: dict[str, timedelta] = {
    "day": timedelta(days=1),
    "week": timedelta(days=7),
    "month": timedelta(days=30),
}
"""Each limit counts over the last day, 7 days or 30 days before the stake (moving windows)."""
MONEY_FIELDS = tuple(f"{kind}.{window}" for kind in ("loss", "wager") for window in WINDOWS)
SESSION_FIELD = "session_minutes"
FIELDS = (*MONEY_FIELDS, SESSION_FIELD)


class LimitRow(Protocol):
    field: str | None
    amount: int | None
    created_at: datetime
    effective_at: datetime


@dataclass(frozen=True, slots=True)
class Pending:
    amount: int | None
    effective_at: datetime


@dataclass(frozen=True, slots=True)
class LimitState:
    amount: int | None = None
    pending: Pending | None = None


def replay(rows: Iterable[LimitRow], now: datetime) -> dict[str, LimitState]:
    """Every field's limit in force at ``now`` and its pending change (rows oldest first)."""
    in_force: dict[str, int | None] = {}
    pending: dict[str, Pending] = {}
    for row in rows:
        field = row.field or ""
        made = aware(row.created_at)
        waiting = pending.pop(field, None)
        if waiting is not None and waiting.effective_at <= made:
            in_force[field] = waiting.amount
        effective = aware(row.effective_at)
        if effective <= made:
            in_force[field] = row.amount
        else:
            pending[field] = Pending(row.amount, effective)
    states = {}
    for field in FIELDS:
        amount = in_force.get(field)
        waiting = pending.get(field)
        if waiting is not None and waiting.effective_at <= now:
            amount, waiting = waiting.amount, None
        states[field] = LimitState(amount, waiting)
    return states


def is_decrease(current: int | None, wanted: int | None) -> bool:
    """Whether ``wanted`` is no looser than ``current`` (None: no limit): it applies at once."""
    if wanted is None:
        return current is None
    return current is None or wanted <= current
