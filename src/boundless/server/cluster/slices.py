"""A gateway's slice of a round: its follower rounds, and what the coordinator needs from them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from boundless.core.round import events as ev
from boundless.core.round.follower import BetsReport, FollowerRound, StepReport
from boundless.core.round.phases import INSURANCE
from boundless.core.round.views import add_spot_bets, spot_bets
from boundless.server.cluster.bus import JsonBody

IN_PLAY_COUNTS = 14
"""Entries of a step report's ``in_play_if`` (one per card rank the step may deal)."""


class SliceSide(Protocol):
    """One gateway's positions in one round (its follower round and its ledger slice)."""

    async def apply(self, event: ev.TableEvent) -> None:
        """Follow one table event (may wait for the ledger: a step's doubles and splits)."""
        ...

    async def bets_report(self) -> BetsReport:
        """Close this slice's bets (waiting for their ledger writes) and say which spots it
        holds."""
        ...

    async def follow_only(self) -> None:
        """Too late to bet in this round (the gateway joined it after its bet close): close
        this slice's betting without staking anything; it only follows the round."""
        ...

    def seats(self) -> tuple[int, int]:
        """Players and positions held (after the bets closed)."""
        ...

    def spot_bets(self) -> dict[str, dict[str, int]]:
        """The positions and stakes held on each spot (after the bets closed; ``spot_bets``)."""
        ...

    def in_insurance(self) -> bool:
        """Whether the insurance window is open here."""
        ...

    def all_decided(self) -> bool:
        """True when every watching player with a decision open has made it."""
        ...

    async def step_report(self) -> StepReport:
        """Close the step here (may read wallets, off the loop) and report its takers."""
        ...

    async def settle(self) -> JsonBody:
        """Settle this slice (and write it to the ledger); a summary for the coordinator. May
        wait for the ledger's database (tried again under the same keys while it is away)."""
        ...

    async def cancel(self, reason: str) -> None:
        """Refund this slice: the round was cancelled, or this gateway was dropped from it
        (the refund written off the event loop, once)."""
        ...


class FollowerSlice:
    """A slice that is just a follower round (bots and tests; the ledger-backed one wraps it)."""

    def __init__(self, follower: FollowerRound) -> None:
        self.follower = follower
        self.cancelled: str | None = None
        self.settled = 0

    async def apply(self, event: ev.TableEvent) -> None:
        if self.cancelled is None:  # a refunded slice (refused stakes, dropped) follows no more
            self.follower.apply_public(event)

    async def bets_report(self) -> BetsReport:
        return self.follower.bets_report()

    async def follow_only(self) -> None:
        await self.bets_report()

    def seats(self) -> tuple[int, int]:
        if self.cancelled is not None:
            return 0, 0
        return self.follower.player_count(), self.follower.position_count()

    def spot_bets(self) -> dict[str, dict[str, int]]:
        return {} if self.cancelled is not None else spot_bets(self.follower)

    def in_insurance(self) -> bool:
        return self.cancelled is None and self.follower.phase == INSURANCE

    def all_decided(self) -> bool:
        # No watching players here: every position is autoplayed at the close.
        return True

    async def step_report(self) -> StepReport:
        if self.cancelled is not None:  # a refunded part holds nothing in the step
            return empty_step_report(self.follower)
        return self.follower.step_report()

    async def settle(self) -> JsonBody:
        if self.cancelled is not None:
            return {"positions": 0}
        self.follower.settle()
        self.settled += 1
        return {"positions": self.follower.position_count()}

    async def cancel(self, reason: str) -> None:
        self.cancelled = self.cancelled or reason  # the first reason is the one that counts
        if not self.follower.over:
            self.follower.cancel(reason)


def empty_step_report(follower: FollowerRound) -> StepReport:
    """The report of a part that holds no position in the step (cancelled, or sitting out)."""
    return StepReport(follower.current_spot, follower.step, 0, (0,) * IN_PLAY_COUNTS)


class PairSlice:
    """A gateway's slice made of parts that follow the same round, each its own ledger owner
    (its bots' positions and its players'): one report to the coordinator for all of them."""

    def __init__(self, parts: Sequence[SliceSide]) -> None:
        self.parts = tuple(parts)

    async def apply(self, event: ev.TableEvent) -> None:
        for part in self.parts:
            await part.apply(event)

    async def bets_report(self) -> BetsReport:
        reports = [await part.bets_report() for part in self.parts]
        return BetsReport(
            frozenset().union(*(report.spots for report in reports)),
            frozenset().union(*(report.seated_spots for report in reports)),
        )

    async def follow_only(self) -> None:
        for part in self.parts:
            await part.follow_only()

    def seats(self) -> tuple[int, int]:
        counts = [part.seats() for part in self.parts]
        return sum(players for players, _ in counts), sum(positions for _, positions in counts)

    def spot_bets(self) -> dict[str, dict[str, int]]:
        return add_spot_bets(part.spot_bets() for part in self.parts)

    def in_insurance(self) -> bool:
        return any(part.in_insurance() for part in self.parts)

    def all_decided(self) -> bool:
        return all(part.all_decided() for part in self.parts)

    async def step_report(self) -> StepReport:
        reports = [await part.step_report() for part in self.parts]
        first = reports[0]
        return StepReport(
            first.spot,
            first.step,
            sum(report.takers for report in reports),
            tuple(sum(counts) for counts in zip(*(r.in_play_if for r in reports), strict=True)),
        )

    async def settle(self) -> JsonBody:
        summaries = [await part.settle() for part in self.parts]
        totals: dict[str, int] = {}
        for summary in summaries:
            for key, value in summary.items():
                if isinstance(value, int):
                    totals[key] = totals.get(key, 0) + value
        return totals

    async def cancel(self, reason: str) -> None:
        """Every part is cancelled, even when an earlier part's refund failed (raised after)."""
        failed: Exception | None = None
        for part in self.parts:
            try:
                await part.cancel(reason)
            except Exception as error:
                failed = failed or error
        if failed is not None:
            raise failed
