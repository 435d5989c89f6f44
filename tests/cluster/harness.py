"""A coordinator and gateways on one bus, playing the fake round (see ``fake_round``)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from boundless.server.cluster import Bus, StoredEvent, in_sequence
from boundless.server.cluster.coordinator import Coordinator, CoordinatorTimers
from boundless.server.cluster.gateway import Gateway
from boundless.server.cluster.protocol import SliceSide
from tests.cluster.fake_round import FakePosition, FakeSlice, FakeTable

FAST = CoordinatorTimers(
    betting_seconds=0.01,
    decision_seconds=2.0,
    report_seconds=5.0,
    settle_seconds=5.0,
    round_gap_seconds=0.0,
    lease_renew_seconds=0.1,
    standby_poll_seconds=0.05,
)
TABLE = "t1"


@dataclass
class ClusterRun:
    results: dict[str, tuple[int, int]] = field(default_factory=dict)
    slices: dict[str, list[FakeSlice]] = field(default_factory=dict)

    def slice_maker(self, name: str, positions: list[FakePosition]):  # type: ignore[no-untyped-def]
        def new_slice(round_number: int) -> SliceSide:
            made = FakeSlice(list(positions), self.results)
            self.slices.setdefault(name, []).append(made)
            return made

        return new_slice


def gateways_for(
    bus: Bus, run: ClusterRun, spread: dict[str, list[FakePosition]]
) -> dict[str, Gateway]:
    return {
        name: Gateway(bus, TABLE, name, run.slice_maker(name, positions))
        for name, positions in spread.items()
    }


async def play(
    bus: Bus, spread: dict[str, list[FakePosition]], *, seed: int, rounds: int = 1
) -> ClusterRun:
    run = ClusterRun()
    coordinator = Coordinator(
        bus, TABLE, "c1", lambda n: FakeTable(seed * 1000 + n), FAST, gateways=frozenset(spread)
    )
    gateways = gateways_for(bus, run, spread)
    await asyncio.gather(
        coordinator.run(rounds=rounds), *(g.run(rounds=rounds) for g in gateways.values())
    )
    return run


async def log_of(bus: Bus) -> list[StoredEvent]:
    """Every round event of the table so far, in order."""
    last = await bus.last_event_seq(TABLE)
    out: list[StoredEvent] = []
    if not last:
        return out
    async for stored in in_sequence(bus.events(TABLE, from_seq=1)):
        out.append(stored)
        if stored.seq >= last:
            break
    return out
