"""The last rounds' dealer results of a table, for the strip above the felt.

Kept in memory by the table (a restart starts the strip afresh); the lobby rows carry them as
``recent``.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from boundless.core.round import RoundState
from boundless.core.round.views import public_view

RECENT_ROUNDS = 12


class RecentRounds:
    """The dealer's final hands of the last settled rounds, newest first."""

    def __init__(self) -> None:
        self._rounds: deque[dict[str, Any]] = deque(maxlen=RECENT_ROUNDS)

    def note_settled(self, round_no: int, round_: RoundState) -> None:
        dealer = public_view(round_)["dealer"]
        if dealer["cards"]:
            entry = {"round_no": round_no, "cards": dealer["cards"], "total": dealer["total"]}
            self._rounds.appendleft(entry)

    def rows(self) -> list[dict[str, Any]]:
        return list(self._rounds)
