"""An in-process bus with JetStream's semantics, for the embedded default and the tests.

It models what the cluster relies on: per-stream sequences shared by every table's subject,
de-duplication by message id within a window, last-sequence fencing, replay from a round's first
event and leases that lapse after a time to live. The clock is injectable so lease expiry and the
de-duplication window can be tested without waiting, and :class:`Faults` makes deliveries
duplicated, replayed (an earlier stretch sent again) or delayed, the way consumers see them after
reconnects and slow links.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar, cast

import orjson

from boundless.server.cluster.bus import (
    AppendResult,
    BusError,
    ControlAnswer,
    GatewayReport,
    JsonBody,
    Lease,
    LeaseLostError,
    NoCoordinatorError,
    RoundEvent,
    StaleWriterError,
    StoredEvent,
    StoredReport,
    check_table_name,
)

Clock = Callable[[], float]
T = TypeVar("T")


@dataclass(slots=True)
class Faults:
    """What goes wrong on delivery; each rate is a probability per delivered message."""

    seed: int = 0
    duplicate_rate: float = 0.0
    replay_rate: float = 0.0
    """Rewind the consumer by up to ``replay_span`` messages it already had."""
    replay_span: int = 3
    delay_rate: float = 0.0
    max_delay_seconds: float = 0.005
    rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)


@dataclass(slots=True)
class _Log(Generic[T]):
    """One stream: its sequence counter, its messages by subject, its de-duplication ids."""

    last_seq: int = 0
    by_subject: dict[str, list[tuple[int, T]]] = field(default_factory=dict)
    seen_ids: dict[str, tuple[int, float]] = field(default_factory=dict)

    def subject_last(self, subject: str) -> int:
        items = self.by_subject.get(subject)
        return items[-1][0] if items else 0

    def duplicate_of(self, message_id: str, now: float, window: float) -> int | None:
        for known, (_, stored_at) in list(self.seen_ids.items()):
            if now - stored_at > window:
                del self.seen_ids[known]
        found = self.seen_ids.get(message_id)
        return found[0] if found else None

    def store(self, subject: str, message_id: str, now: float, make: Callable[[int], T]) -> int:
        self.last_seq += 1
        self.by_subject.setdefault(subject, []).append((self.last_seq, make(self.last_seq)))
        self.seen_ids[message_id] = (self.last_seq, now)
        return self.last_seq


@dataclass(slots=True)
class _HeldLease:
    holder: str
    revision: int
    expires_at: float


class MemoryBus:
    """The in-process :class:`~boundless.server.cluster.bus.Bus`."""

    def __init__(
        self,
        *,
        clock: Clock = time.monotonic,
        duplicate_window_seconds: float = 120.0,
        lease_seconds: float = 5.0,
        faults: Faults | None = None,
    ) -> None:
        self._clock = clock
        self._window = duplicate_window_seconds
        self.lease_seconds = lease_seconds
        self._faults = faults
        self._events: _Log[StoredEvent] = _Log()
        self._reports: _Log[StoredReport] = _Log()
        self._leases: dict[str, _HeldLease] = {}
        self._control: dict[str, ControlAnswer] = {}
        self._lease_revision = 0
        self._changed = asyncio.Event()
        self._closed = False

    # round events

    async def last_event_seq(self, table: str) -> int:
        return self._events.subject_last(check_table_name(table))

    async def append_event(
        self, event: RoundEvent, *, expected_last_seq: int, round_start_seq: int | None
    ) -> AppendResult:
        table = check_table_name(event.table)
        now = self._clock()
        # As JetStream does: a known id answers with the first copy before any fencing check.
        first = self._events.duplicate_of(event.message_id, now, self._window)
        if first is not None:
            return AppendResult(seq=first, duplicate=True)
        last = self._events.subject_last(table)
        if last != expected_last_seq:
            raise StaleWriterError(
                f"table {table}: append expected last event {expected_last_seq}, log is at {last}"
            )
        seq = self._events.store(
            table,
            event.message_id,
            now,
            lambda seq: StoredEvent(
                seq=seq,
                round_start_seq=seq if round_start_seq is None else round_start_seq,
                event=event,
            ),
        )
        self._wake()
        return AppendResult(seq=seq, duplicate=False)

    async def replay_round(self, table: str) -> list[StoredEvent]:
        items = self._events.by_subject.get(check_table_name(table), [])
        if not items:
            return []
        start = items[-1][1].round_start_seq
        return [stored for seq, stored in items if seq >= start]

    def events(self, table: str, *, from_seq: int) -> AsyncIterator[StoredEvent]:
        return self._deliver(self._events, check_table_name(table), from_seq)

    # gateway reports

    async def report(self, report: GatewayReport) -> AppendResult:
        table = check_table_name(report.table)
        now = self._clock()
        first = self._reports.duplicate_of(report.message_id, now, self._window)
        if first is not None:
            return AppendResult(seq=first, duplicate=True)
        seq = self._reports.store(
            table, report.message_id, now, lambda seq: StoredReport(seq=seq, report=report)
        )
        self._wake()
        return AppendResult(seq=seq, duplicate=False)

    def reports(self, table: str, *, from_seq: int) -> AsyncIterator[StoredReport]:
        return self._deliver(self._reports, check_table_name(table), from_seq)

    async def last_report_seq(self, table: str) -> int:
        return self._reports.subject_last(check_table_name(table))

    # leases

    def _live_lease(self, table: str) -> _HeldLease | None:
        held = self._leases.get(table)
        if held is not None and held.expires_at <= self._clock():
            del self._leases[table]
            return None
        return held

    async def acquire_lease(self, table: str, holder: str) -> Lease | None:
        table = check_table_name(table)
        if self._live_lease(table) is not None:
            return None
        return self._grant(table, holder)

    async def renew_lease(self, lease: Lease) -> Lease:
        held = self._live_lease(lease.table)
        if held is None or held.revision != lease.revision:
            raise LeaseLostError(f"table {lease.table}: lease of {lease.holder} lapsed or moved")
        return self._grant(lease.table, lease.holder)

    async def release_lease(self, lease: Lease) -> None:
        held = self._live_lease(lease.table)
        if held is not None and held.revision == lease.revision:
            del self._leases[lease.table]

    async def lease_holder(self, table: str) -> str | None:
        lease = await self.lease_of(table)
        return lease.holder if lease else None

    async def lease_of(self, table: str) -> Lease | None:
        table = check_table_name(table)
        held = self._live_lease(table)
        return Lease(table, held.holder, held.revision) if held else None

    # operator requests (request/reply: nothing stored)

    async def answer_control(
        self, table: str, answer: ControlAnswer
    ) -> Callable[[], Awaitable[None]]:
        table = check_table_name(table)
        self._control[table] = answer

        async def stop() -> None:
            if self._control.get(table) is answer:
                del self._control[table]

        return stop

    async def control(self, table: str, body: JsonBody, *, timeout: float) -> JsonBody:
        answer = self._control.get(check_table_name(table))
        if answer is None:
            raise NoCoordinatorError(f"no coordinator answers for table {table}")
        try:
            async with asyncio.timeout(timeout):
                reply = await answer(orjson.loads(orjson.dumps(body)))  # as JSON crosses NATS
        except TimeoutError:
            raise NoCoordinatorError(
                f"the coordinator of table {table} did not answer within {timeout:g} s"
            ) from None
        return cast(JsonBody, orjson.loads(orjson.dumps(reply)))

    def _grant(self, table: str, holder: str) -> Lease:
        self._lease_revision += 1
        self._leases[table] = _HeldLease(
            holder=holder,
            revision=self._lease_revision,
            expires_at=self._clock() + self.lease_seconds,
        )
        return Lease(table=table, holder=holder, revision=self._lease_revision)

    async def close(self) -> None:
        self._closed = True
        self._wake()

    # delivery

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def _deliver(self, log: _Log[T], subject: str, from_seq: int) -> AsyncIterator[T]:
        if self._closed:
            raise BusError("the bus is closed")
        delivered: list[tuple[int, T]] = []
        cursor = from_seq
        while not self._closed:
            waiter = self._changed
            pending = [item for item in log.by_subject.get(subject, []) if item[0] >= cursor]
            if not pending:
                await waiter.wait()
                continue
            for seq, item in pending:
                for copy in self._copies(delivered, (seq, item)):
                    await self._maybe_delay()
                    yield copy
                delivered.append((seq, item))
                cursor = seq + 1

    def _copies(self, delivered: list[tuple[int, T]], item: tuple[int, T]) -> list[T]:
        """The message itself, plus the faults' duplicates and replayed stretches."""
        faults = self._faults
        if faults is None:
            return [item[1]]
        out: list[T] = []
        if delivered and faults.rng.random() < faults.replay_rate:
            span = faults.rng.randint(1, min(faults.replay_span, len(delivered)))
            out.extend(old for _, old in delivered[-span:])
        out.append(item[1])
        if faults.rng.random() < faults.duplicate_rate:
            out.append(item[1])
        return out

    async def _maybe_delay(self) -> None:
        faults = self._faults
        if faults is not None and faults.rng.random() < faults.delay_rate:
            await asyncio.sleep(faults.rng.random() * faults.max_delay_seconds)
