"""A table's timer: one deadline at a time, frozen by a pause and restored by the resume."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from boundless.server.clock import now


@dataclass(slots=True)
class TableClock:
    kind: str | None = None
    """``betting``, ``insurance``, ``decision`` or ``None`` (no timer running)."""
    deadline: float | None = None
    """Epoch seconds; ``None`` while paused or stopped."""
    remaining: float | None = None
    """Seconds left, kept while paused."""

    def start(self, kind: str, seconds: float, paused: bool = False) -> None:
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

    def seconds_left(self) -> float | None:
        if self.deadline is not None:
            return max(0.0, self.deadline - now())
        return self.remaining

    def describe(self) -> dict[str, Any] | None:
        if self.kind is None:
            return None
        return {
            "kind": self.kind,
            "deadline_ms": None if self.deadline is None else int(self.deadline * 1000),
            "remaining_ms": None if self.remaining is None else int(self.remaining * 1000),
        }
