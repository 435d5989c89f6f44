"""A table's clock: the timer of the open window (one deadline at a time, frozen by a pause and
restored by the resume) and the doorbell that wakes the table's runner.

This is the coordinator's side of a table: it decides when a window closes. Everything that may
end a wait early (a bet, the last decision of a step, a pause, a cancellation) rings ``wake``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from boundless.core.rules import TimerRules
from boundless.server.clock import now
from boundless.server.config import TimerSettings


class TableClock:
    __slots__ = ("deadline", "kind", "remaining", "settings", "title_timers", "wake")

    def __init__(self, settings: TimerSettings, title_timers: TimerRules) -> None:
        self.settings = settings
        self.title_timers = title_timers
        self.kind: str | None = None
        """``betting``, ``insurance``, ``decision`` or ``None`` (no timer running)."""
        self.deadline: float | None = None
        """Epoch seconds; ``None`` while paused or stopped."""
        self.remaining: float | None = None
        """Seconds left, kept while paused."""
        self.wake = asyncio.Event()

    def seconds(self, kind: str) -> float:
        """The length of a ``kind`` window: the title's timer, as the server settings adjust it."""
        return self.settings.seconds(kind, getattr(self.title_timers, f"{kind}_seconds"))

    def round_gap(self) -> float:
        return self.settings.round_gap()

    def start(self, kind: str, paused: bool = False) -> None:
        seconds = self.seconds(kind)
        self.kind = kind
        if paused:
            self.deadline, self.remaining = None, seconds
        else:
            self.deadline, self.remaining = now() + seconds, None

    def stop(self) -> None:
        self.kind = self.deadline = self.remaining = None

    def freeze(self) -> None:
        if self.deadline is not None:
            self.remaining = max(0.0, self.deadline - now())
            self.deadline = None

    def thaw(self) -> None:
        if self.remaining is not None:
            self.deadline = now() + self.remaining
            self.remaining = None

    def describe(self) -> dict[str, Any] | None:
        if self.kind is None:
            return None
        return {
            "kind": self.kind,
            "deadline_ms": None if self.deadline is None else int(self.deadline * 1000),
            "remaining_ms": None if self.remaining is None else int(self.remaining * 1000),
        }
