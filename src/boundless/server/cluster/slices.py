"""A gateway's slice of a round: its follower round, and what the coordinator needs from it."""

from __future__ import annotations

from typing import Protocol

from boundless.core.round import events as ev
from boundless.core.round.follower import BetsReport, FollowerRound, StepReport
from boundless.server.cluster.bus import JsonBody


class SliceSide(Protocol):
    """One gateway's positions in one round (its follower round and its ledger slice)."""

    def apply(self, event: ev.TableEvent) -> None: ...

    def bets_report(self) -> BetsReport: ...

    def all_decided(self) -> bool:
        """True when every watching player with a decision open has made it."""
        ...

    def step_report(self) -> StepReport: ...

    async def settle(self) -> JsonBody:
        """Settle this slice (and write it to the ledger); a summary for the coordinator. May
        wait for the ledger's database (tried again under the same keys while it is away)."""
        ...

    def cancel(self, reason: str) -> None:
        """Refund this slice: the round was cancelled, or this gateway was dropped from it."""
        ...


class FollowerSlice:
    """A slice that is just a follower round (bots and tests; the ledger-backed one wraps it)."""

    def __init__(self, follower: FollowerRound) -> None:
        self.follower = follower
        self.cancelled: str | None = None
        self.settled = 0

    def apply(self, event: ev.TableEvent) -> None:
        self.follower.apply_public(event)

    def bets_report(self) -> BetsReport:
        return self.follower.bets_report()

    def all_decided(self) -> bool:
        # No watching players here: every position is autoplayed at the close.
        return True

    def step_report(self) -> StepReport:
        return self.follower.step_report()

    async def settle(self) -> JsonBody:
        self.follower.settle()
        self.settled += 1
        return {"positions": self.follower.position_count()}

    def cancel(self, reason: str) -> None:
        self.cancelled = reason
        if not self.follower.over:
            self.follower.cancel(reason)
