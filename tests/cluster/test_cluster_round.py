"""A coordinator and gateways over the in-memory bus: the cluster's own message path.

The follower equivalence property over the bus: players spread at random over K gateways, with
the bus duplicating, replaying and delaying deliveries, end with exactly the results and payouts
they get in one shared round on the same shoe.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boundless.server.cluster import Faults, MemoryBus
from boundless.server.cluster.coordinator import Coordinator
from boundless.server.cluster.protocol import Public
from tests.cluster.conftest import BusMaker, run
from tests.cluster.harness import (
    FAST,
    TABLE,
    Bet,
    ClusterRun,
    dealer_maker,
    gateways_for,
    log_of,
    play,
    play_alone,
)

bets_strategy = st.lists(st.sampled_from([100, 500, 1000]), min_size=1, max_size=10).map(
    lambda stakes: [(f"p{i}", stake) for i, stake in enumerate(stakes)]
)


def spread_over(bets: list[Bet], gateways: int, seed: int) -> dict[str, list[Bet]]:
    chooser = random.Random(seed)
    spread: dict[str, list[Bet]] = {f"g{i}": [] for i in range(gateways)}
    for bet in bets:
        spread[f"g{chooser.randrange(gateways)}"].append(bet)
    return spread


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    bets=bets_strategy,
    gateways=st.integers(1, 4),
    assignment_seed=st.integers(0, 2**16),
    seed=st.integers(0, 2**16),
    faulty=st.booleans(),
)
def test_spread_over_gateways_the_players_end_as_in_one_shared_round(
    bets: list[Bet], gateways: int, assignment_seed: int, seed: int, faulty: bool
) -> None:
    faults = (
        Faults(seed=seed, duplicate_rate=0.2, replay_rate=0.2, delay_rate=0.2) if faulty else None
    )
    spread = spread_over(bets, gateways, assignment_seed)
    cluster = run(play(MemoryBus(faults=faults), spread, seed=seed))
    assert cluster.results() == play_alone(bets, seed=seed)
    for name, slices in cluster.slices.items():
        (only,) = slices
        assert only.cancelled is None
        assert only.settled == (1 if spread[name] else 0)


def test_a_gateway_that_dies_mid_step_is_dropped_and_the_others_settle() -> None:
    bets = [(f"p{i}", 100) for i in range(4)]

    async def body() -> tuple[ClusterRun, list]:  # type: ignore[type-arg]
        bus = MemoryBus()
        cluster = ClusterRun()
        coordinator = Coordinator(
            bus,
            TABLE,
            "c1",
            dealer_maker(7),
            replace(FAST, report_seconds=0.3),
            gateways=frozenset({"a", "b"}),
        )
        gateways = gateways_for(bus, cluster, {"a": bets[:2], "b": bets[2:]})
        doomed = asyncio.ensure_future(gateways["b"].run())

        async def kill_b_while_a_step_is_open() -> None:
            async for stored in bus.events(TABLE, from_seq=1):
                # The step is open: b dies before it can report its takers at the close.
                if stored.event.body.get("type") == "StepOpened":
                    doomed.cancel()  # like kill -9: no goodbye, no more reports
                    return

        await asyncio.gather(
            coordinator.run(rounds=1), gateways["a"].run(rounds=1), kill_b_while_a_step_is_open()
        )
        return cluster, await log_of(bus)

    cluster, log = run(body())
    dropped = [s.event.body for s in log if s.event.kind == Public.GATEWAY_DROPPED]
    assert [d["gateway"] for d in dropped] == ["b"]
    closed = log[-1].event
    assert closed.kind == Public.ROUND_CLOSED
    assert (closed.body["settled"], closed.body["dropped"]) == (["a"], ["b"])
    assert cluster.slices["a"][0].settled == 1
    assert cluster.slices["a"][0].follower.phase == "settled"
    assert cluster.slices["b"][0].settled == 0  # b's own recovery refunds it


def test_a_standby_takes_over_and_cancels_the_round_in_flight_once() -> None:
    bets = [(f"p{i}", 100) for i in range(4)]

    async def body() -> tuple[ClusterRun, list, Coordinator]:  # type: ignore[type-arg]
        bus = MemoryBus(lease_seconds=0.3)
        cluster = ClusterRun()
        names = frozenset({"a", "b"})
        first = Coordinator(bus, TABLE, "c1", dealer_maker(1), FAST, gateways=names)
        standby = Coordinator(bus, TABLE, "c2", dealer_maker(2), FAST, gateways=names)
        gateways = gateways_for(bus, cluster, {"a": bets[:2], "b": bets[2:]})
        following_gateways = [asyncio.ensure_future(g.run(rounds=2)) for g in gateways.values()]
        leading = asyncio.ensure_future(first.run())
        await first.active.wait()
        following = asyncio.ensure_future(standby.run(rounds=1))
        async for stored in bus.events(TABLE, from_seq=1):
            if stored.event.kind == Public.SLICES:
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
    assert by_round[2][0] == Public.TABLE and by_round[2][-1] == Public.ROUND_CLOSED
    assert standby.rounds_played == 1
    for name in ("a", "b"):
        first_round, second_round = cluster.slices[name]
        assert first_round.cancelled and first_round.settled == 0
        assert first_round.follower.over
        assert second_round.settled == 1 and second_round.cancelled is None


def test_a_table_where_nobody_bet_cancels_the_round() -> None:
    async def body() -> list[str]:
        bus = MemoryBus()
        await play(bus, {"a": [], "b": []}, seed=3)
        return [s.event.kind for s in await log_of(bus)]

    assert run(body()) == [Public.TABLE, Public.BETTING_CLOSED, Public.ROUND_CANCELLED]


def test_two_gateways_on_either_bus_match_one_shared_round(bus_maker: BusMaker) -> None:
    bets = [(f"p{i}", 100 * (i + 1)) for i in range(6)]

    async def body() -> ClusterRun:
        bus = await bus_maker.make()
        try:
            return await play(bus, {"a": bets[::2], "b": bets[1::2]}, seed=11, rounds=2)
        finally:
            await bus.close()

    cluster = run(body(), timeout=60)
    assert cluster.results(0) == play_alone(bets, seed=11)
    assert all(s.settled == 1 for slices in cluster.slices.values() for s in slices)
