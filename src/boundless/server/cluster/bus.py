"""The cluster's message bus: what the coordinator and the gateways say to each other.

Two implementations share this contract: :class:`~boundless.server.cluster.memory_bus.MemoryBus`
(one process, tests, the embedded default) and
:class:`~boundless.server.cluster.jetstream_bus.JetStreamBus` (NATS JetStream). The contract:

- **Round events** of a table form one ordered log per table, written only by the table's
  coordinator. Every append names the log's last sequence the writer has seen; the bus refuses it
  (:class:`StaleWriterError`) when the log has moved on, so a coordinator that lost its lease
  cannot append. An append whose id was already stored within the de-duplication window is not
  stored again: the caller gets the first copy's sequence back (a retry after a lost ack is safe).
- **Gateway reports** form a second log per table; each report's id makes a resent report a no-op.
- **Replay** returns the table's current round from its first event, in order.
- **Leases** give one coordinator per table: create-if-absent, renew with the revision last seen,
  lapse after the bucket's time to live.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, TypeVar

JsonBody = Mapping[str, object]


class BusError(RuntimeError):
    """Base of the bus's refusals; the message says which table and why."""


class StaleWriterError(BusError):
    """An append named a last sequence that is no longer the log's last: another writer moved it."""


class LeaseLostError(BusError):
    """A lease renewal found the lease gone or held by someone else."""


class BusUnavailableError(BusError):
    """The bus cannot be reached (bad URL, server down)."""


class NoCoordinatorError(BusError):
    """An operator request got no answer: no coordinator holds the table, or it did not answer
    in time."""


@dataclass(frozen=True, slots=True)
class RoundEvent:
    """One public event of a table's round, as the coordinator appends it."""

    table: str
    round_number: int
    index: int
    """Position of the event within its round; 0 opens the round."""
    kind: str
    body: JsonBody

    @property
    def message_id(self) -> str:
        return f"{self.table}.{self.round_number}.{self.index}"


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """A round event as the log holds it: its sequence and where its round began."""

    seq: int
    round_start_seq: int
    event: RoundEvent


@dataclass(frozen=True, slots=True)
class AppendResult:
    seq: int
    duplicate: bool
    """True: the id was already stored; ``seq`` is the first copy's."""


class ReportKind(StrEnum):
    BETS_CLOSED = "bets_closed"
    DECIDED = "decided"
    TAKERS = "takers"
    SETTLED = "settled"
    SETTLING = "settling"
    """The slice's outcome is computed but its ledger write waits for the database (retried
    under the same keys): the round may close without it; ``settled`` follows once written."""
    CANCELLED = "cancelled"
    """After ``round_cancelled``: this gateway cancelled and recorded its slices itself."""
    JOINED = "joined"
    """A gateway's first round since it started, during betting: wait for its bets too."""


@dataclass(frozen=True, slots=True)
class GatewayReport:
    """What one gateway tells the coordinator about its slice of a round."""

    table: str
    round_number: int
    gateway: str
    kind: ReportKind
    step: int
    """The step the report is about (0 for reports about the whole round)."""
    body: JsonBody

    @property
    def message_id(self) -> str:
        return f"{self.table}.{self.round_number}.{self.gateway}.{self.kind}.{self.step}"


@dataclass(frozen=True, slots=True)
class StoredReport:
    seq: int
    report: GatewayReport


@dataclass(frozen=True, slots=True)
class Lease:
    """A held coordinator lease: who holds which table, at which revision."""

    table: str
    holder: str
    revision: int
    renewed_at: float = 0.0
    """``time.monotonic()`` when the revision was asked for: the lease lives from then."""


ControlAnswer = Callable[[JsonBody], Awaitable[JsonBody]]
"""The coordinator's answer to one operator request (:mod:`~boundless.server.cluster.control`)."""


class Bus(Protocol):
    """The operations the coordinator and the gateways use; see the module docstring."""

    async def last_event_seq(self, table: str) -> int:
        """The sequence of the table's last round event, 0 when there is none."""
        ...

    async def append_event(
        self, event: RoundEvent, *, expected_last_seq: int, round_start_seq: int | None
    ) -> AppendResult:
        """Append ``event``; ``round_start_seq`` is ``None`` for the event that opens a round."""
        ...

    async def replay_round(self, table: str) -> list[StoredEvent]:
        """The table's current round, first event to last; empty when the table has none."""
        ...

    def events(self, table: str, *, from_seq: int) -> AsyncIterator[StoredEvent]:
        """The table's round events from ``from_seq`` on, live, in order (ends when closed)."""
        ...

    async def report(self, report: GatewayReport) -> AppendResult: ...

    def reports(self, table: str, *, from_seq: int) -> AsyncIterator[StoredReport]:
        """The table's gateway reports from ``from_seq`` on, live, in order."""
        ...

    async def last_report_seq(self, table: str) -> int: ...

    async def acquire_lease(self, table: str, holder: str) -> Lease | None:
        """The lease when it was free (created now); ``None`` when someone holds it."""
        ...

    async def renew_lease(self, lease: Lease) -> Lease:
        """The lease at its new revision; :class:`LeaseLostError` when it lapsed or moved."""
        ...

    async def release_lease(self, lease: Lease) -> None:
        """Give the lease up at once (a clean shutdown), when still held at this revision."""
        ...

    async def lease_holder(self, table: str) -> str | None: ...

    async def lease_of(self, table: str) -> Lease | None:
        """The lease as it stands: its holder and revision (each renewal moves the revision on,
        so a reader can tell a live holder from one whose lease is merely not lapsed yet)."""
        ...

    async def answer_control(
        self, table: str, answer: ControlAnswer
    ) -> Callable[[], Awaitable[None]]:
        """Answer the operator's requests to ``table`` (request/reply, not stored) with
        ``answer``, until the returned call is awaited. Only the lease holder answers."""
        ...

    async def control(self, table: str, body: JsonBody, *, timeout: float) -> JsonBody:
        """One operator request to the table's coordinator and its answer;
        :class:`NoCoordinatorError` when nobody answers within ``timeout`` seconds."""
        ...

    async def close(self) -> None: ...


def check_table_name(table: str) -> str:
    """Table names become subject tokens: letters, digits, ``-`` and ``_`` only."""
    if not table or not all(ch.isalnum() or ch in "-_" for ch in table):
        raise BusError(f"table name {table!r} must be letters, digits, '-' or '_'")
    return table


class _Sequenced(Protocol):
    @property
    def seq(self) -> int: ...


S = TypeVar("S", bound=_Sequenced)


async def in_sequence(messages: AsyncIterator[S]) -> AsyncIterator[S]:
    """Each message once, in log order: drops redeliveries of a sequence already passed.

    Consumers see duplicates and replayed stretches after reconnects; the log's sequence is the
    one order everyone agrees on, so a consumer only needs to remember the last one it took.
    """
    last = 0
    async for message in messages:
        if message.seq > last:
            last = message.seq
            yield message
