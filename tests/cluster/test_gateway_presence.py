"""The coordinator stops waiting for a gateway whose process is gone (its name lease lapsed,
released or taken by a new process), and never for one that holds its name."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace

from boundless.server.cluster import MemoryBus
from boundless.server.cluster.bus import (
    AppendResult,
    BusUnavailableError,
    GatewayReport,
    Lease,
    ReportKind,
)
from boundless.server.cluster.coordinator import Coordinator, CoordinatorTimers
from boundless.server.cluster.gateway_name import GatewayName
from boundless.server.cluster.gateway_presence import GatewayPresence, watch_gateways
from boundless.server.cluster.protocol import Public
from boundless.server.cluster.reports import ReportBox
from tests.cluster.conftest import LEASE_SECONDS, BusMaker, FakeClock, run
from tests.cluster.harness import FAST, TABLE, ClusterRun, dealer_maker, gateways_for, log_of

GRACE = 0.5


async def held(bus: MemoryBus, name: str, holder: str) -> GatewayName:
    lease = GatewayName(bus, TABLE, name, holder)
    await lease.take(wait_seconds=0)
    return lease


def test_a_name_counts_as_gone_only_once_seen_held_then_free_past_the_grace() -> None:
    async def body() -> None:
        clock = FakeClock()
        bus = MemoryBus(clock=clock, lease_seconds=LEASE_SECONDS)
        presence = GatewayPresence(bus, TABLE, clock=clock, grace_seconds=GRACE)
        killed = await held(bus, "killed", "p1")
        slow = await held(bus, "slow", "p2")
        assert await presence.gone({"killed", "slow", "nameless"}) == set()
        clock.advance(LEASE_SECONDS + 0.1)  # neither renewed: both names lapse
        assert await presence.gone({"killed", "slow", "nameless"}) == set()  # grace first
        await slow.take(wait_seconds=0)  # a live but late holder takes its name again
        clock.advance(GRACE)
        assert await presence.gone({"killed", "slow", "nameless"}) == {"killed"}
        # a gateway never seen holding a name is left to its deadlines, however long
        clock.advance(100.0)
        assert "nameless" not in await presence.gone({"nameless"})
        assert killed.lease is not None

    run(body())


def test_a_name_given_back_or_taken_by_a_new_process_means_the_old_one_is_gone() -> None:
    async def body() -> None:
        clock = FakeClock()
        bus = MemoryBus(clock=clock, lease_seconds=LEASE_SECONDS)
        presence = GatewayPresence(bus, TABLE, clock=clock, grace_seconds=GRACE)
        stopped = await held(bus, "stopped", "p1")
        restarted = await held(bus, "restarted", "p2")
        assert await presence.gone({"stopped", "restarted"}) == set()
        await stopped.give_back()
        await restarted.give_back()
        await held(bus, "restarted", "p3")  # a new process under the same name
        assert await presence.gone({"stopped", "restarted"}) == {"restarted"}
        clock.advance(GRACE)
        assert await presence.gone({"stopped", "restarted"}) == {"stopped"}

    run(body())


def test_a_restarted_gateway_is_not_taken_for_gone_in_the_round_it_joins() -> None:
    """Its old process was dropped (the name lapsed); the new one takes the name while no wait
    expects it, then joins a round: that round waits for it as for any live gateway."""

    async def body() -> None:
        clock = FakeClock()
        bus = MemoryBus(clock=clock, lease_seconds=LEASE_SECONDS)
        presence = GatewayPresence(bus, TABLE, clock=clock, grace_seconds=GRACE)
        box = ReportBox()
        known: set[str] = {"g"}
        watching = asyncio.ensure_future(watch_gateways(box, presence, lambda: known, every=0.02))
        await held(bus, "g", "old-process")
        await asyncio.sleep(0.1)
        clock.advance(LEASE_SECONDS + GRACE + 0.1)  # killed: its name lapses
        await asyncio.sleep(0.1)
        known.clear()  # dropped, no longer known (nor awaited)
        await held(bus, "g", "new-process")  # restarted
        await asyncio.sleep(0.1)
        # it joined round 2: that round's bet close expects it
        waiting = asyncio.ensure_future(
            box.wait(2, ReportKind.BETS_CLOSED, 0, expected={"g"}, seconds=600.0)
        )
        await asyncio.sleep(0.3)
        assert not waiting.done() and box.gone(2) == set()
        watching.cancel()
        waiting.cancel()

    run(body())


class Electing(MemoryBus):
    """A bus whose lease reads fail while ``reachable`` is off (a NATS election)."""

    reachable = True

    async def lease_of(self, table: str) -> Lease | None:
        if not self.reachable:
            raise BusUnavailableError("NATS is electing a leader")
        return await super().lease_of(table)


def test_a_lease_that_cannot_be_read_says_nothing() -> None:
    async def body() -> None:
        clock = FakeClock()
        bus = Electing(clock=clock, lease_seconds=LEASE_SECONDS)
        presence = GatewayPresence(bus, TABLE, clock=clock, grace_seconds=GRACE)
        await held(bus, "g", "p1")
        assert await presence.gone({"g"}) == set()
        bus.reachable = False
        clock.advance(10.0)
        assert await presence.gone({"g"}) == set()

    run(body())


def test_a_killed_gateways_lapsed_name_reads_as_gone_on_either_bus(bus_maker: BusMaker) -> None:
    async def body() -> None:
        bus = await bus_maker.make()
        clock = bus_maker.clock or time.monotonic
        presence = GatewayPresence(bus, TABLE, clock=clock, grace_seconds=GRACE)
        await GatewayName(bus, TABLE, "g-1", "p1").take(wait_seconds=0)
        assert await presence.gone({"g-1"}) == set()
        found: set[str] = set()
        for _ in range(60):  # NATS removes a lapsed entry on its own schedule
            await bus_maker.lapse(0.25)
            found = await presence.gone({"g-1"})
            if found:
                break
        assert found == {"g-1"}
        await bus.close()

    run(body())


Played = tuple[ClusterRun, list, float]  # type: ignore[type-arg]
"""The slices each gateway played, the table's log, and the coordinator's seconds."""


def _a_round_with_b_killed_mid_step(
    bus: MemoryBus,
    timers: CoordinatorTimers,
    presence: GatewayPresence,
    after_the_kill: Callable[[], Awaitable[None]] | None = None,
) -> Played:
    """One round over gateways a and b: a holds its name and renews it; b holds its name from
    before the round, renews it never, and is killed when the first step opens (like kill -9:
    no goodbye). ``after_the_kill`` runs next (a fake clock moved on)."""
    bets = [(f"p{i}", 100) for i in range(4)]

    async def body() -> Played:
        cluster = ClusterRun()
        coordinator = Coordinator(
            bus,
            TABLE,
            "c1",
            dealer_maker(7),
            timers,
            gateways=frozenset({"a", "b"}),
            presence=presence,
        )
        gateways = gateways_for(bus, cluster, {"a": bets[:2], "b": bets[2:]})
        await held(bus, "b", "gateway-b-process")
        live = GatewayName(bus, TABLE, "a", "gateway-a-process")
        await live.take(wait_seconds=0)
        keeping = asyncio.ensure_future(live.keep(every=0.05))
        doomed = asyncio.ensure_future(gateways["b"].run())

        async def kill_b_while_a_step_is_open() -> None:
            async for stored in bus.events(TABLE, from_seq=1):
                if stored.event.body.get("type") == "StepOpened":
                    doomed.cancel()
                    break
            if after_the_kill is not None:
                await after_the_kill()

        async def coordinate() -> float:
            started = time.monotonic()
            await coordinator.run(rounds=1)
            return time.monotonic() - started

        seconds, *_ = await asyncio.gather(
            coordinate(), gateways["a"].run(rounds=1), kill_b_while_a_step_is_open()
        )
        keeping.cancel()
        return cluster, await log_of(bus), seconds

    return run(body(), timeout=60.0)


def test_a_gateway_killed_mid_step_is_dropped_once_its_name_lapses_not_at_the_deadline() -> None:
    """Report and settle deadlines of ten minutes: the round ends (within the test's bound) only
    because the killed gateway's name lapsed. Its part is dropped the usual way, the other
    gateway's slice settles."""
    clock = FakeClock()

    async def lapse_b() -> None:
        await asyncio.sleep(0.3)  # the coordinator has seen both names held by now
        clock.advance(LEASE_SECONDS * 0.8)  # a renews in time, b does not
        await asyncio.sleep(0.3)
        clock.advance(LEASE_SECONDS * 0.8)
        await asyncio.sleep(0.3)
        clock.advance(LEASE_SECONDS * 0.8)  # b's name free past the grace; a renewed

    bus = MemoryBus(clock=clock, lease_seconds=LEASE_SECONDS)
    timers = replace(FAST, report_seconds=600.0, settle_seconds=600.0, presence_poll_seconds=0.05)
    presence = GatewayPresence(bus, TABLE, clock=clock, grace_seconds=GRACE)
    cluster, log, _ = _a_round_with_b_killed_mid_step(bus, timers, presence, lapse_b)
    dropped = [s.event.body for s in log if s.event.kind == Public.GATEWAY_DROPPED]
    assert [d["gateway"] for d in dropped] == ["b"]
    closed = log[-1].event
    assert closed.kind == Public.ROUND_CLOSED
    assert (closed.body["settled"], closed.body["dropped"]) == (["a"], ["b"])
    assert cluster.slices["a"][0].settled == 1
    assert cluster.slices["b"][0].settled == 0


def test_a_name_renewed_lately_or_unreadable_shows_a_live_process() -> None:
    async def body() -> None:
        clock = FakeClock()
        bus = Electing(clock=clock, lease_seconds=LEASE_SECONDS)
        presence = GatewayPresence(bus, TABLE, clock=clock, grace_seconds=GRACE, fresh_seconds=0.6)
        names = {"renewing", "killed", "nameless"}
        renewing = await held(bus, "renewing", "p1")
        await held(bus, "killed", "p2")
        await presence.gone(names)
        assert presence.alive(names) == {"renewing", "killed"}  # first sight counts as fresh
        clock.advance(0.7)  # within the lease's life, past freshness: only a renewal counts
        assert renewing.lease is not None
        renewing.lease = await bus.renew_lease(renewing.lease)
        await presence.gone(names)
        assert presence.alive(names) == {"renewing"}
        bus.reachable = False  # the bus is away: a name seen held may be alive, nothing says not
        await presence.gone(names)
        assert presence.alive(names) == {"renewing", "killed"}
        bus.reachable = True
        clock.advance(LEASE_SECONDS)  # neither renewed: both lapse; a free name is not alive
        await presence.gone(names)
        assert presence.alive(names) == set()

    run(body())


class HeldReports(MemoryBus):
    """Holds one gateway's step reports for ``delay`` seconds. ``electing``: meanwhile the
    streams do not answer either (a NATS election holds the report); else the bus is well and
    the gateway itself is slow (its database is away)."""

    def __init__(self, *, delay: float, electing: bool) -> None:
        super().__init__(lease_seconds=60.0)  # names lapse late: only renewals tell
        self.delay, self.electing, self.holding = delay, electing, False

    async def report(self, report: GatewayReport) -> AppendResult:
        if report.gateway == "a" and report.kind == ReportKind.TAKERS:
            self.holding = True
            await asyncio.sleep(self.delay)
            self.holding = False
        return await super().report(report)

    async def last_report_seq(self, table: str) -> int:
        if self.holding and self.electing:
            raise BusUnavailableError("nats: no response from stream")
        return await super().last_report_seq(table)


def _round_with_a_late_and_a_killed_gateway(bus: HeldReports) -> tuple[list, float]:  # type: ignore[type-arg]
    """One round: gateway a's step reports held by the bus, b killed mid-step (its name renewed
    no more: stale after 0.5 s). The log and how long the coordinator took over the round."""
    timers = replace(
        FAST,
        decision_seconds=0.2,
        report_seconds=0.3,
        alive_report_seconds=10.0,
        presence_poll_seconds=0.05,
    )
    presence = GatewayPresence(bus, TABLE, grace_seconds=GRACE, fresh_seconds=0.5)
    _, log, seconds = _a_round_with_b_killed_mid_step(bus, timers, presence)
    return log, seconds


def test_while_the_bus_is_electing_a_live_gateways_late_report_is_waited_for() -> None:
    """Report deadline 0.3 s; gateway a's step reports come 1.5 s late while the streams do not
    answer and a renews its name: a is not dropped and settles. b, killed mid-step in the same
    round (its name renewed no more), is dropped: being alive is proved, not assumed."""
    log, _ = _round_with_a_late_and_a_killed_gateway(HeldReports(delay=1.5, electing=True))
    dropped = [s.event.body["gateway"] for s in log if s.event.kind == Public.GATEWAY_DROPPED]
    assert dropped == ["b"]
    closed = log[-1].event
    assert closed.kind == Public.ROUND_CLOSED
    assert (closed.body["settled"], closed.body["dropped"]) == (["a"], ["b"])


def test_while_the_bus_is_well_a_silent_live_gateway_is_dropped_at_the_deadline() -> None:
    """The same late reports with the streams answering: the gateway itself is slow (its
    database), and the table does not wait on it past the deadline, alive or not."""
    log, seconds = _round_with_a_late_and_a_killed_gateway(HeldReports(delay=8.0, electing=False))
    dropped = [s.event.body["gateway"] for s in log if s.event.kind == Public.GATEWAY_DROPPED]
    assert sorted(dropped) == ["a", "b"]
    closed = log[-1].event
    assert closed.kind == Public.ROUND_CLOSED and closed.body["settled"] == []
    assert seconds < 8.0  # the coordinator did not wait for a's report
