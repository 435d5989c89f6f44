"""The bus contract, on the in-memory bus and on JetStream alike."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from boundless.server.cluster import (
    Bus,
    BusError,
    GatewayReport,
    LeaseLostError,
    ReportKind,
    RoundEvent,
    StaleWriterError,
    in_sequence,
)
from tests.cluster.conftest import LEASE_SECONDS, BusMaker, run, take


def on_every_bus(
    body: Callable[[BusMaker], Coroutine[Any, Any, None]],
) -> Callable[[BusMaker], None]:
    """The test ``body`` run to its end on each bus (bounded by ``run``); every bus it made is
    closed afterwards, whether it passed or not."""

    @functools.wraps(body)
    def test(bus_maker: BusMaker) -> None:
        made: dict[int, Bus] = {}

        async def make() -> Bus:
            bus = await bus_maker.make()
            made[id(bus)] = bus
            return bus

        async def whole() -> None:
            try:
                await body(BusMaker(bus_maker.kind, bus_maker.clock, make))
            finally:
                for bus in made.values():
                    await bus.close()

        run(whole())

    return test


def event(round_number: int, index: int, table: str = "t1") -> RoundEvent:
    return RoundEvent(
        table, round_number, index, f"kind{index}", {"round": round_number, "i": index}
    )


async def append_round(bus, round_number: int, count: int, table: str = "t1") -> list[int]:
    seqs: list[int] = []
    last = await bus.last_event_seq(table)
    start: int | None = None
    for index in range(count):
        result = await bus.append_event(
            event(round_number, index, table), expected_last_seq=last, round_start_seq=start
        )
        assert not result.duplicate
        last = result.seq
        start = start or result.seq
        seqs.append(result.seq)
    return seqs


@on_every_bus
async def test_a_resent_event_is_stored_once(bus_maker: BusMaker) -> None:
    bus = await bus_maker.make()
    first = await bus.append_event(event(1, 0), expected_last_seq=0, round_start_seq=None)
    again = await bus.append_event(event(1, 0), expected_last_seq=0, round_start_seq=None)
    assert (again.seq, again.duplicate) == (first.seq, True)
    assert await bus.last_event_seq("t1") == first.seq
    assert [s.event for s in await bus.replay_round("t1")] == [event(1, 0)]


@on_every_bus
async def test_a_stale_writer_cannot_append(bus_maker: BusMaker) -> None:
    old = await bus_maker.make()
    new = await bus_maker.make()
    seqs = await append_round(old, 1, 2)
    # The new coordinator reads the log's end and appends; the old one still believes seqs[-1].
    taken_over = await new.last_event_seq("t1")
    await new.append_event(event(2, 0), expected_last_seq=taken_over, round_start_seq=None)
    with pytest.raises(StaleWriterError, match="t1"):
        await old.append_event(event(1, 2), expected_last_seq=seqs[-1], round_start_seq=seqs[0])
    assert [s.event for s in await new.replay_round("t1")] == [event(2, 0)]


@on_every_bus
async def test_fencing_is_per_table(bus_maker: BusMaker) -> None:
    bus = await bus_maker.make()
    await append_round(bus, 1, 2, table="a")
    # Table b's log is empty even though the stream's sequence has moved on.
    assert await bus.last_event_seq("b") == 0
    await append_round(bus, 1, 1, table="b")
    with pytest.raises(StaleWriterError):
        await bus.append_event(event(1, 1, "b"), expected_last_seq=0, round_start_seq=None)


@on_every_bus
async def test_replay_returns_the_current_round_from_its_first_event(bus_maker: BusMaker) -> None:
    bus = await bus_maker.make()
    await append_round(bus, 1, 3)
    second = await append_round(bus, 2, 5)
    await append_round(bus, 1, 2, table="other")
    replayed = await bus.replay_round("t1")
    assert [s.seq for s in replayed] == second
    assert [s.event for s in replayed] == [event(2, i) for i in range(5)]
    assert {s.round_start_seq for s in replayed} == {second[0]}
    assert await bus.replay_round("empty") == []


@on_every_bus
async def test_live_events_arrive_in_order_from_a_sequence(bus_maker: BusMaker) -> None:
    writer = await bus_maker.make()
    reader = await bus_maker.make()
    first = await append_round(writer, 1, 2)
    listening = asyncio.ensure_future(take(reader.events("t1", from_seq=first[1]), 3))
    later = await append_round(writer, 2, 2)
    got = await listening
    assert [s.seq for s in got] == [first[1], *later]


@on_every_bus
async def test_reports_are_deduplicated_by_their_id(bus_maker: BusMaker) -> None:
    bus = await bus_maker.make()
    takers = GatewayReport("t1", 1, "g1", ReportKind.TAKERS, 2, {"takers": 7})
    other_step = GatewayReport("t1", 1, "g1", ReportKind.TAKERS, 3, {"takers": 1})
    other_gateway = GatewayReport("t1", 1, "g2", ReportKind.TAKERS, 2, {"takers": 7})
    results = [await bus.report(r) for r in (takers, takers, other_step, other_gateway)]
    assert [r.duplicate for r in results] == [False, True, False, False]
    assert results[1].seq == results[0].seq
    got = await take(bus.reports("t1", from_seq=0), 3)
    assert [s.report for s in got] == [takers, other_step, other_gateway]
    assert await bus.last_report_seq("t1") == results[-1].seq


@on_every_bus
async def test_one_lease_holder_and_a_standby_takes_over_when_it_lapses(
    bus_maker: BusMaker,
) -> None:
    active = await bus_maker.make()
    standby = await bus_maker.make()
    lease = await active.acquire_lease("t1", "coordinator-a")
    assert lease is not None
    assert await standby.acquire_lease("t1", "coordinator-b") is None
    lease = await active.renew_lease(lease)
    assert await standby.lease_holder("t1") == "coordinator-a"
    # The active one stops renewing (killed); within the time to live plus a poll, the
    # standby holds the lease and the old holder's renewal is refused.
    await bus_maker.lapse(LEASE_SECONDS * 1.5)
    taken = None
    for _ in range(40):
        taken = await standby.acquire_lease("t1", "coordinator-b")
        if taken is not None:
            break
        await bus_maker.lapse(0.25)
    assert taken is not None and taken.holder == "coordinator-b"
    with pytest.raises(LeaseLostError, match="coordinator-a"):
        await active.renew_lease(lease)
    assert await active.lease_holder("t1") == "coordinator-b"
    await standby.release_lease(taken)
    assert await active.lease_holder("t1") is None
    assert await active.acquire_lease("t1", "coordinator-a") is not None


@on_every_bus
async def test_a_renewed_lease_does_not_lapse(bus_maker: BusMaker) -> None:
    active = await bus_maker.make()
    lease = await active.acquire_lease("t1", "a")
    assert lease is not None
    revisions = [lease.revision]
    for _ in range(4):
        await bus_maker.lapse(LEASE_SECONDS * 0.4)
        lease = await active.renew_lease(lease)
        revisions.append(lease.revision)
        read = await active.lease_of("t1")  # a reader sees each renewal as a new revision
        assert read is not None and (read.holder, read.revision) == ("a", lease.revision)
    assert revisions == sorted(set(revisions))
    assert await active.lease_holder("t1") == "a"
    await active.release_lease(lease)
    assert await active.lease_holder("t1") is None


@on_every_bus
async def test_table_names_must_be_subject_tokens(bus_maker: BusMaker) -> None:
    bus = await bus_maker.make()
    with pytest.raises(BusError, match="table name"):
        await bus.last_event_seq("a.b")
    with pytest.raises(BusError, match="table name"):
        await bus.report(GatewayReport("a*", 1, "g", ReportKind.SETTLED, 0, {}))


def test_in_sequence_drops_redeliveries() -> None:
    from boundless.server.cluster import Faults, MemoryBus

    async def body() -> None:
        bus = MemoryBus(faults=Faults(seed=3, duplicate_rate=0.5, replay_rate=0.5))
        seqs = await append_round(bus, 1, 30)
        raw = await take(bus.events("t1", from_seq=0), 45)
        assert [s.seq for s in raw] != seqs[: len(raw)]  # the faults did redeliver
        clean = await take(in_sequence(bus.events("t1", from_seq=0)), 30)
        assert [s.seq for s in clean] == seqs

    run(body())


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://127.0.0.1:4222", "must be nats://"),
        ("", "must be nats://"),
        ("nats://127.0.0.1:1", "cannot reach NATS at nats://127.0.0.1:1"),
    ],
)
def test_a_bad_or_unreachable_nats_url_is_one_clear_error(url: str, expected: str) -> None:
    pytest.importorskip("nats", reason="nats-py is not installed (pip install -e '.[cluster]')")
    from boundless.server.cluster import BusUnavailableError
    from boundless.server.cluster.jetstream_bus import JetStreamBus

    with pytest.raises(BusUnavailableError, match=expected):
        run(JetStreamBus.connect(url, connect_timeout=0.5))


@on_every_bus
async def test_an_operator_request_reaches_the_one_answering_coordinator(
    bus_maker: BusMaker,
) -> None:
    """Request/reply, nothing stored: no answerer is ``NoCoordinatorError``; the answerer's
    reply comes back as JSON; once it stops answering, nobody does."""
    from boundless.server.cluster.bus import JsonBody, NoCoordinatorError

    coordinator, gateway = await bus_maker.make(), await bus_maker.make()
    with pytest.raises(NoCoordinatorError, match="t1"):
        await gateway.control("t1", {"action": "pause"}, timeout=0.5)
    asked: list[JsonBody] = []

    async def answer(body: JsonBody) -> JsonBody:
        asked.append(body)
        return {"ok": True, "echo": body.get("action")}

    stop = await coordinator.answer_control("t1", answer)
    reply = await gateway.control("t1", {"action": "pause", "reason": "tea"}, timeout=5.0)
    assert reply == {"ok": True, "echo": "pause"}
    assert asked == [{"action": "pause", "reason": "tea"}]
    await stop()
    with pytest.raises(NoCoordinatorError):
        await gateway.control("t1", {"action": "resume"}, timeout=0.5)


@pytest.mark.parametrize("code", [10071, 10164])
def test_both_wrong_last_sequence_codes_are_a_stale_writer(code: int) -> None:
    """A single server answers a failed expected-sequence check with 10071; a clustered stream
    (nats-server 2.11 and later) may answer 10164, the constant form. Both are a stale writer,
    not a bus failure (measured: a stale coordinator exited on ``BusError`` instead of standing
    down)."""
    errors = pytest.importorskip("nats.js.errors")
    from boundless.server.cluster.jetstream_bus import JetStreamBus, Names

    class RefusingJetStream:
        async def publish(self, *args: Any, **kwargs: Any) -> None:
            raise errors.APIError(code=400, err_code=code, description="wrong last sequence")

    bus = JetStreamBus(
        None,  # type: ignore[arg-type]
        RefusingJetStream(),  # type: ignore[arg-type]
        None,  # type: ignore[arg-type]
        names=Names("t"),
        retry_seconds=1.0,
    )
    with pytest.raises(StaleWriterError, match="t1"):
        run(bus.append_event(event(1, 0), expected_last_seq=3, round_start_seq=None))
