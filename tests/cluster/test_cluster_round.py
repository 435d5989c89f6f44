"""A coordinator and gateways over the in-memory bus: the cluster's own message path.

The property: positions spread at random over K gateways, with the bus duplicating, replaying
and delaying deliveries, end with exactly the totals and nets they get on one gateway.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boundless.server.cluster import Faults, MemoryBus
from boundless.server.cluster.coordinator import Coordinator
from boundless.server.cluster.protocol import Public
from tests.cluster.conftest import run
from tests.cluster.fake_round import FakePosition, FakeTable
from tests.cluster.harness import FAST, TABLE, ClusterRun, gateways_for, log_of, play

positions_strategy = st.lists(
    st.tuples(st.integers(1, 3), st.integers(12, 20)), min_size=1, max_size=12
).map(lambda rows: [FakePosition(f"p{i}", spot, limit) for i, (spot, limit) in enumerate(rows)])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    positions=positions_strategy,
    gateways=st.integers(1, 4),
    assignment_seed=st.integers(0, 2**16),
    seed=st.integers(0, 2**16),
    faulty=st.booleans(),
)
def test_spread_over_gateways_the_positions_end_as_on_one(
    positions: list[FakePosition], gateways: int, assignment_seed: int, seed: int, faulty: bool
) -> None:
    import random

    chooser = random.Random(assignment_seed)
    spread: dict[str, list[FakePosition]] = {f"g{i}": [] for i in range(gateways)}
    for position in positions:
        spread[f"g{chooser.randrange(gateways)}"].append(position)
    faults = (
        Faults(seed=seed, duplicate_rate=0.2, replay_rate=0.2, delay_rate=0.2) if faulty else None
    )

    async def body() -> tuple[ClusterRun, ClusterRun, int]:
        alone = await play(MemoryBus(), {"solo": positions}, seed=seed)
        bus = MemoryBus(faults=faults)
        spread_run = await play(bus, spread, seed=seed)
        log = await log_of(bus)
        return alone, spread_run, len(log)

    alone, spread_run, _ = run(body())
    assert spread_run.results == alone.results
    assert set(spread_run.results) == {p.key for p in positions}
    for slices in spread_run.slices.values():
        assert [s.cancelled for s in slices] == [[]] * len(slices)
        assert all(s.settled == 1 for s in slices if s.positions)


def test_each_step_card_goes_out_once_whatever_the_takers() -> None:
    positions = [FakePosition(f"p{i}", 1, 21) for i in range(6)]  # everyone takes until bust

    async def body() -> list[str]:
        bus = MemoryBus(faults=Faults(seed=1, duplicate_rate=0.5, replay_rate=0.5))
        await play(bus, {"a": positions[:3], "b": positions[3:]}, seed=4)
        return [s.event.kind for s in await log_of(bus)]

    kinds = run(body())
    assert kinds.count(Public.STEP_CARD) == kinds.count(Public.STEP_OPENED) > 0
    assert kinds[-1] == Public.ROUND_CLOSED


def test_a_gateway_that_dies_mid_step_is_dropped_and_the_others_settle() -> None:
    positions = [FakePosition(f"p{i}", 1, 21) for i in range(4)]

    async def body() -> tuple[ClusterRun, list]:  # type: ignore[type-arg]
        bus = MemoryBus()
        cluster = ClusterRun()
        timers = replace(FAST, report_seconds=0.3)
        coordinator = Coordinator(
            bus, TABLE, "c1", lambda n: FakeTable(7), timers, gateways=frozenset({"a", "b"})
        )
        gateways = gateways_for(bus, cluster, {"a": positions[:2], "b": positions[2:]})
        doomed = asyncio.ensure_future(gateways["b"].run())

        async def kill_b_when_a_step_opens() -> None:
            async for stored in bus.events(TABLE, from_seq=1):
                if stored.event.kind == Public.STEP_CLOSED:
                    doomed.cancel()  # like kill -9: no goodbye, no more reports
                    return

        await asyncio.gather(
            coordinator.run(rounds=1), gateways["a"].run(rounds=1), kill_b_when_a_step_opens()
        )
        return cluster, await log_of(bus)

    cluster, log = run(body())
    dropped = [s.event.body for s in log if s.event.kind == Public.GATEWAY_DROPPED]
    assert [d["gateway"] for d in dropped] == ["b"]
    closed = log[-1].event
    assert closed.kind == Public.ROUND_CLOSED
    assert (closed.body["settled"], closed.body["dropped"]) == (["a"], ["b"])
    assert set(cluster.results) == {"p0", "p1"}
    assert cluster.slices["a"][0].settled == 1


def test_a_standby_takes_over_and_cancels_the_round_in_flight_once() -> None:
    positions = [FakePosition(f"p{i}", 1, 21) for i in range(4)]

    async def body() -> tuple[ClusterRun, list, Coordinator]:  # type: ignore[type-arg]
        bus = MemoryBus(lease_seconds=0.3)
        cluster = ClusterRun()
        names = frozenset({"a", "b"})
        first = Coordinator(bus, TABLE, "c1", lambda n: FakeTable(n), FAST, gateways=names)
        standby = Coordinator(bus, TABLE, "c2", lambda n: FakeTable(n), FAST, gateways=names)
        gateways = gateways_for(bus, cluster, {"a": positions[:2], "b": positions[2:]})
        following_gateways = [asyncio.ensure_future(g.run(rounds=2)) for g in gateways.values()]
        leading = asyncio.ensure_future(first.run())
        await first.active.wait()
        following = asyncio.ensure_future(standby.run(rounds=1))
        async for stored in bus.events(TABLE, from_seq=1):
            if stored.event.kind == Public.STEP_OPENED:
                leading.cancel()  # the active coordinator dies mid-round, lease unreleased
                break
        await asyncio.gather(following, *following_gateways)
        return cluster, await log_of(bus), standby

    cluster, log, standby = run(body())
    by_round: dict[int, list[str]] = {}
    for stored in log:
        by_round.setdefault(stored.event.round_number, []).append(stored.event.kind)
    assert by_round[1].count(Public.ROUND_CANCELLED) == 1
    assert by_round[1][-1] == Public.ROUND_CANCELLED
    assert Public.ROUND_SETTLING not in by_round[1]
    assert by_round[2][0] == Public.ROUND_OPENED and by_round[2][-1] == Public.ROUND_CLOSED
    assert standby.rounds_played == 1
    for name in ("a", "b"):
        first_round, second_round = cluster.slices[name]
        assert first_round.cancelled and first_round.settled == 0
        assert second_round.settled == 1 and not second_round.cancelled
