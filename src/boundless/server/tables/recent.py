"""The last rounds' dealer results of each table, for the strip above the felt.

Kept in memory (a restart starts the strip afresh); the lobby rows carry them as ``recent``.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from boundless.core.round import SharedRound
from boundless.core.round.views import public_view

RECENT_ROUNDS = 12

_recent: dict[str, deque[dict[str, Any]]] = {}


def note_settled(table_id: str, round_no: int, round_: SharedRound) -> None:
    """Remember the dealer's final hand of a settled round."""
    dealer = public_view(round_)["dealer"]
    if not dealer["cards"]:
        return
    entry = {"round_no": round_no, "cards": dealer["cards"], "total": dealer["total"]}
    _recent.setdefault(table_id, deque(maxlen=RECENT_ROUNDS)).appendleft(entry)


def recent_rounds(table_id: str) -> list[dict[str, Any]]:
    """Newest first."""
    return list(_recent.get(table_id, ()))


def forget(table_id: str) -> None:
    """The table is closed: its strip goes with it."""
    _recent.pop(table_id, None)
