"""The bus on NATS JetStream (nats-py): streams for round events and reports, a KV bucket of leases.

Only this module imports ``nats``; it is loaded when a cluster process starts, so the embedded
``boundless serve`` never needs the ``cluster`` extra. Transient failures (a stream leader being
re-elected, a reconnect) are retried by tenacity with the same message id, which JetStream's
de-duplication turns into exactly one stored copy.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, replace
from typing import TypeVar

import nats.errors
import nats.js.errors
import orjson
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js import JetStreamContext, api
from nats.js.kv import KeyValue
from tenacity import (
    AsyncRetrying,
    retry_if_exception,
    stop_after_delay,
    wait_exponential,
)

from boundless.server.cluster.bus import (
    AppendResult,
    BusError,
    BusUnavailableError,
    ControlAnswer,
    GatewayReport,
    JsonBody,
    Lease,
    LeaseLostError,
    NoCoordinatorError,
    ReportKind,
    RoundEvent,
    StaleWriterError,
    StoredEvent,
    StoredReport,
    check_table_name,
)

ROUND_START_HEADER = "Boundless-Round-Start"
WRONG_LAST_SEQUENCE = 10071
"""JetStream's error code for a failed expected-last-(subject-)sequence check."""
WRONG_LAST_SEQUENCES = frozenset({WRONG_LAST_SEQUENCE, 10164})
"""Both codes servers give it: 2.11 and later also answer 10164 (the text without the
sequence); a stale coordinator measured on 2.15 exited on it instead of standing down."""
STREAM_MAX_AGE_SECONDS = 24 * 3600.0
DEFAULT_NAMESPACE = "boundless"
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Names:
    """Streams, subjects and the lease bucket of one namespace (tests use their own)."""

    namespace: str = DEFAULT_NAMESPACE

    @property
    def events_stream(self) -> str:
        return f"{self.namespace.upper()}_ROUNDS"

    @property
    def reports_stream(self) -> str:
        return f"{self.namespace.upper()}_REPORTS"

    @property
    def lease_bucket(self) -> str:
        return f"{self.namespace}_leases"

    def events_subject(self, table: str) -> str:
        return f"{self.namespace}.rounds.{table}"

    def reports_subject(self, table: str) -> str:
        return f"{self.namespace}.reports.{table}"

    def control_subject(self, table: str) -> str:
        """Operator requests to the table's coordinator (plain NATS request/reply)."""
        return f"{self.namespace}.control.{table}"


def _transient(error: BaseException) -> bool:
    if isinstance(error, nats.js.errors.KeyValueError):
        return False
    if isinstance(error, nats.js.errors.APIError):
        # 503: no stream leader at the moment (an election is under way).
        return getattr(error, "code", None) == 503
    return isinstance(
        error,
        nats.errors.TimeoutError
        | nats.js.errors.NoStreamResponseError
        | nats.errors.NoRespondersError
        | nats.errors.ConnectionReconnectingError,
    )


class JetStreamBus:
    """The JetStream :class:`~boundless.server.cluster.bus.Bus`; make one with :meth:`connect`."""

    def __init__(
        self,
        client: Client,
        js: JetStreamContext,
        leases: KeyValue,
        *,
        names: Names,
        retry_seconds: float,
        lease_seconds: float = 5.0,
        replicas: int = 1,
        notes: tuple[str, ...] = (),
    ) -> None:
        self.names = names
        self.lease_seconds = lease_seconds
        self.replicas = replicas
        """Copies each stream and the lease bucket keep (what the streams have, not the ask)."""
        self.notes = notes
        """One line per stream whose replicas differ from what was asked (never downgraded)."""
        self._client = client
        self._js = js
        self._leases = leases
        self._retry_seconds = retry_seconds

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        replicas: int | None = None,
        lease_seconds: float = 5.0,
        duplicate_window_seconds: float = 120.0,
        connect_timeout: float = 2.0,
        retry_seconds: float = 20.0,
        namespace: str = DEFAULT_NAMESPACE,
    ) -> JetStreamBus:
        """Connect to ``url`` (comma-separated for a cluster) and make the streams if missing.

        ``replicas``: copies of each stream and of the lease bucket; ``None``: 3 when the
        servers form a cluster of at least 3, else 1 (:func:`default_replicas`)."""
        servers = [part.strip() for part in url.split(",") if part.strip()]
        if not servers or not all(part.startswith(("nats://", "tls://")) for part in servers):
            raise BusUnavailableError(f"NATS URL {url!r} must be nats://host:port[,nats://...]")
        client = Client()
        errors: list[BaseException] = []

        async def remember(error: Exception) -> None:
            # Connection trouble is reported through our own error, not the client's log.
            errors.append(error)

        try:
            # The client retries forever once connected (a cluster node may go); the first
            # connection gets a bounded wait, so a wrong URL fails fast with one clear line.
            await asyncio.wait_for(
                client.connect(
                    servers=servers,
                    connect_timeout=max(1, round(connect_timeout)),
                    max_reconnect_attempts=-1,
                    reconnect_time_wait=1,
                    allow_reconnect=True,
                    error_cb=remember,
                ),
                timeout=connect_timeout * 2 + 1,
            )
        except (OSError, TimeoutError, nats.errors.Error) as error:
            with contextlib.suppress(Exception):
                await client.close()
            cause = errors[-1] if errors else error
            reason = str(cause) or type(cause).__name__
            raise BusUnavailableError(f"cannot reach NATS at {url}: {reason}") from None
        names = Names(namespace)
        js = client.jetstream(timeout=connect_timeout)
        wanted = default_replicas(cluster_size(client)) if replicas is None else replicas
        if wanted < 1:
            await client.close()
            raise BusUnavailableError(f"--replicas must be at least 1, got {wanted}")
        streams = [
            api.StreamConfig(
                name=name,
                subjects=[subject],
                duplicate_window=duplicate_window_seconds,
                num_replicas=wanted,
                storage=api.StorageType.FILE,
                max_age=STREAM_MAX_AGE_SECONDS,
            )
            for name, subject in (
                (names.events_stream, names.events_subject("*")),
                (names.reports_stream, names.reports_subject("*")),
            )
        ]
        notes: list[str] = []
        kept: list[int] = []

        async def setup() -> KeyValue:
            notes.clear()
            kept.clear()
            for config in streams:
                have, note = await _ensure_stream(js, config)
                kept.append(have)
                notes.extend([note] if note else [])
            try:
                bucket = await js.key_value(names.lease_bucket)
            except nats.js.errors.BucketNotFoundError:
                return await js.create_key_value(
                    bucket=names.lease_bucket, ttl=lease_seconds, history=1, replicas=wanted
                )
            have, note = await _keep_replicas(js, f"KV_{names.lease_bucket}", wanted)
            kept.append(have)
            notes.extend([note] if note else [])
            return bucket

        try:
            # A fresh cluster answers "no leader" for a moment: retried like any transient.
            leases = await _retry(setup, retry_seconds)
        except nats.errors.Error as error:
            await client.close()
            reason = str(error) or type(error).__name__
            raise BusUnavailableError(f"NATS at {url} has no usable JetStream: {reason}") from None
        return cls(
            client,
            js,
            leases,
            names=names,
            retry_seconds=retry_seconds,
            lease_seconds=lease_seconds,
            replicas=min(kept or [wanted]),
            notes=tuple(notes),
        )

    async def _retrying(self, call: Callable[[], Awaitable[T]]) -> T:
        return await _retry(call, self._retry_seconds)

    # round events

    async def last_event_seq(self, table: str) -> int:
        last = await self._last_message(
            self.names.events_stream, self.names.events_subject(check_table_name(table))
        )
        return 0 if last is None else int(last.seq or 0)

    async def append_event(
        self, event: RoundEvent, *, expected_last_seq: int, round_start_seq: int | None
    ) -> AppendResult:
        subject = self.names.events_subject(check_table_name(event.table))
        headers: dict[str, str] = {
            api.Header.MSG_ID.value: event.message_id,
            api.Header.EXPECTED_LAST_SUBJECT_SEQUENCE.value: str(expected_last_seq),
        }
        if round_start_seq is not None:
            headers[ROUND_START_HEADER] = str(round_start_seq)
        payload = orjson.dumps(
            {
                "round": event.round_number,
                "index": event.index,
                "kind": event.kind,
                "body": event.body,
            }
        )
        try:
            ack = await self._retrying(
                lambda: self._js.publish(
                    subject, payload, stream=self.names.events_stream, headers=dict(headers)
                )
            )
        except nats.js.errors.APIError as error:
            if error.err_code in WRONG_LAST_SEQUENCES:
                raise StaleWriterError(
                    f"table {event.table}: append expected last event {expected_last_seq}, "
                    f"the log has moved on ({error.description})"
                ) from None
            raise BusError(f"table {event.table}: append refused: {error}") from None
        return AppendResult(seq=ack.seq, duplicate=bool(ack.duplicate))

    async def replay_round(self, table: str) -> list[StoredEvent]:
        subject = self.names.events_subject(check_table_name(table))
        last = await self._last_message(self.names.events_stream, subject)
        if last is None or last.seq is None:
            return []
        start = int((last.headers or {}).get(ROUND_START_HEADER, last.seq))
        out: list[StoredEvent] = []
        async for stored in self.events(table, from_seq=start):
            out.append(stored)
            if stored.seq >= last.seq:
                break
        return out

    def events(self, table: str, *, from_seq: int) -> AsyncIterator[StoredEvent]:
        return self._ordered(
            self.names.events_subject(check_table_name(table)), from_seq, _stored_event
        )

    # gateway reports

    async def report(self, report: GatewayReport) -> AppendResult:
        subject = self.names.reports_subject(check_table_name(report.table))
        payload = orjson.dumps(
            {
                "round": report.round_number,
                "gateway": report.gateway,
                "kind": report.kind.value,
                "step": report.step,
                "body": report.body,
            }
        )
        ack = await self._retrying(
            lambda: self._js.publish(
                subject,
                payload,
                stream=self.names.reports_stream,
                headers={api.Header.MSG_ID.value: report.message_id},
            )
        )
        return AppendResult(seq=ack.seq, duplicate=bool(ack.duplicate))

    def reports(self, table: str, *, from_seq: int) -> AsyncIterator[StoredReport]:
        return self._ordered(
            self.names.reports_subject(check_table_name(table)), from_seq, _stored_report
        )

    async def last_report_seq(self, table: str) -> int:
        last = await self._last_message(
            self.names.reports_stream, self.names.reports_subject(check_table_name(table))
        )
        return 0 if last is None else int(last.seq or 0)

    # leases

    async def acquire_lease(self, table: str, holder: str) -> Lease | None:
        key = check_table_name(table)
        try:
            revision = await self._retrying(lambda: self._leases.create(key, holder.encode()))
        except nats.js.errors.KeyWrongLastSequenceError:
            return None
        return Lease(table=key, holder=holder, revision=revision, renewed_at=time.monotonic())

    async def renew_lease(self, lease: Lease) -> Lease:
        """Renew while the lease lives: a stream-leader election is retried (tenacity) until
        the lease's life is spent, never longer, so a holder that cannot renew in time stops
        before its successor may start. A renewal whose answer was lost in the election is
        found by reading the key back (still ours, one revision on)."""
        deadline = lease.renewed_at + self.lease_seconds
        left = max(0.1, deadline - time.monotonic())
        renewed_at = time.monotonic()
        try:
            revision = await _retry(
                lambda: self._leases.update(
                    lease.table, lease.holder.encode(), last=lease.revision
                ),
                left,
            )
        except nats.js.errors.KeyWrongLastSequenceError:
            revision = await self._renewed_meanwhile(lease, left)
        except (nats.errors.Error, TimeoutError) as error:
            raise LeaseLostError(
                f"table {lease.table}: lease of {lease.holder} not renewed within its "
                f"{self.lease_seconds:g} s life: {error or type(error).__name__}"
            ) from None
        return Lease(lease.table, lease.holder, revision, renewed_at)

    async def _renewed_meanwhile(self, lease: Lease, seconds: float) -> int:
        try:
            entry = await _retry(lambda: self._leases.get(lease.table), seconds)
        except (nats.errors.Error, TimeoutError):
            entry = None
        ours = entry is not None and entry.value == lease.holder.encode()
        if ours and entry is not None and (entry.revision or 0) > lease.revision:
            return int(entry.revision or 0)
        raise LeaseLostError(f"table {lease.table}: lease of {lease.holder} lapsed or moved")

    async def release_lease(self, lease: Lease) -> None:
        try:
            await self._leases.delete(lease.table, last=lease.revision)
        except nats.js.errors.APIError as error:
            if error.err_code not in WRONG_LAST_SEQUENCES:
                raise  # someone else holds it now: nothing of ours to release

    async def lease_holder(self, table: str) -> str | None:
        lease = await self.lease_of(table)
        return lease.holder if lease else None

    async def lease_of(self, table: str) -> Lease | None:
        key = check_table_name(table)
        try:
            entry = await self._leases.get(key)
        except nats.js.errors.NotFoundError:
            return None
        if not entry.value:
            return None
        return Lease(key, entry.value.decode(), int(entry.revision or 0))

    async def answer_control(
        self, table: str, answer: ControlAnswer
    ) -> Callable[[], Awaitable[None]]:
        subject = self.names.control_subject(check_table_name(table))

        async def on_request(message: Msg) -> None:
            try:
                reply = await answer(orjson.loads(message.data))
            except Exception as error:  # a request we cannot read: its one-line refusal
                reply = {"ok": False, "error": "bad_message", "detail": str(error)[:200]}
            with contextlib.suppress(nats.errors.Error):
                await message.respond(orjson.dumps(reply))

        subscription = await self._client.subscribe(subject, cb=on_request)
        await self._client.flush()  # the server knows the subscription before we say we answer

        async def stop() -> None:
            with contextlib.suppress(nats.errors.Error):
                await subscription.unsubscribe()

        return stop

    async def control(self, table: str, body: JsonBody, *, timeout: float) -> JsonBody:
        subject = self.names.control_subject(check_table_name(table))
        try:
            message = await self._client.request(subject, orjson.dumps(body), timeout=timeout)
        except nats.errors.NoRespondersError:
            raise NoCoordinatorError(f"no coordinator answers for table {table}") from None
        except nats.errors.TimeoutError:
            raise NoCoordinatorError(
                f"the coordinator of table {table} did not answer within {timeout:g} s"
            ) from None
        reply: JsonBody = orjson.loads(message.data)
        return reply

    async def close(self) -> None:
        if not self._client.is_closed:
            await self._client.close()

    async def delete_namespace(self) -> None:
        """Drop this namespace's streams and lease bucket (tests clean up after themselves)."""
        for stream in (self.names.events_stream, self.names.reports_stream):
            with contextlib.suppress(nats.js.errors.NotFoundError):
                await self._js.delete_stream(stream)
        with contextlib.suppress(nats.js.errors.NotFoundError):
            await self._js.delete_key_value(self.names.lease_bucket)

    # helpers

    async def _last_message(self, stream: str, subject: str) -> api.RawStreamMsg | None:
        try:
            return await self._retrying(lambda: self._js.get_last_msg(stream, subject))
        except nats.js.errors.NotFoundError:
            return None

    async def _ordered(
        self, subject: str, from_seq: int, decode: Callable[[Msg], T]
    ) -> AsyncIterator[T]:
        # An ordered consumer: ephemeral, flow-controlled, and the client recreates it from the
        # next sequence after a gap or a lost server, so the stream order is kept.
        if from_seq > 1:
            config = api.ConsumerConfig(opt_start_seq=from_seq)
            policy = api.DeliverPolicy.BY_START_SEQUENCE
        else:
            config, policy = api.ConsumerConfig(), api.DeliverPolicy.ALL
        subscription = await self._retrying(
            lambda: self._js.subscribe(
                subject,
                ordered_consumer=True,
                config=config,
                deliver_policy=policy,
                idle_heartbeat=1.0,
            )
        )
        try:
            async for message in subscription.messages:
                yield decode(message)
        finally:
            with contextlib.suppress(nats.errors.Error):
                await subscription.unsubscribe()


async def _retry(call: Callable[[], Awaitable[T]], seconds: float) -> T:
    async for attempt in AsyncRetrying(
        retry=retry_if_exception(_transient),
        stop=stop_after_delay(seconds),
        wait=wait_exponential(multiplier=0.05, max=1.0),
        reraise=True,
    ):
        with attempt:
            return await call()
    raise AssertionError("unreachable: tenacity reraises")


def cluster_size(client: Client) -> int:
    """How many servers the connected one's cluster has: the client URLs its INFO advertises
    (every member advertises its own) or the servers the client knows, whichever is more (a
    cluster just formed may not advertise them all yet); 1 for a server outside any cluster."""
    info: dict[str, object] = getattr(client, "_server_info", None) or {}
    if not info.get("cluster"):
        return 1
    urls = info.get("connect_urls")
    advertised = len(set(urls)) if isinstance(urls, list) else 1
    known = len({server.netloc for server in client.servers})
    return max(1, advertised, known)


def default_replicas(servers: int) -> int:
    """3 copies on a cluster of at least 3 servers (one may go), else 1."""
    return 3 if servers >= 3 else 1


async def _ensure_stream(js: JetStreamContext, config: api.StreamConfig) -> tuple[int, str]:
    """Make the stream, or bring an existing one to ``config`` except for its replicas when it
    has more than asked (never downgraded). Returns its replicas and a line when they differ."""
    try:
        info = await js.stream_info(str(config.name))
    except nats.js.errors.NotFoundError:
        await js.add_stream(config)
        return config.num_replicas or 1, ""
    have = info.config.num_replicas or 1
    wanted = config.num_replicas or 1
    kept = replace(config, num_replicas=max(have, wanted))
    await js.update_stream(kept)
    return kept.num_replicas or 1, _replica_note(str(config.name), have, wanted)


async def _keep_replicas(js: JetStreamContext, stream: str, wanted: int) -> tuple[int, str]:
    """An existing bucket's stream: raised to ``wanted`` copies, never lowered."""
    info = await js.stream_info(stream)
    have = info.config.num_replicas or 1
    if have < wanted:
        await js.update_stream(replace(info.config, num_replicas=wanted))
    return max(have, wanted), _replica_note(stream, have, wanted)


def _replica_note(stream: str, have: int, wanted: int) -> str:
    if have > wanted:
        return f"stream {stream} keeps its {have} replicas (asked {wanted}; never downgraded)"
    if have < wanted:
        return f"stream {stream} raised from {have} to {wanted} replicas"
    return ""


def _stored_event(message: Msg) -> StoredEvent:
    seq = message.metadata.sequence.stream
    data = orjson.loads(message.data)
    table = message.subject.rsplit(".", 1)[-1]
    start = (message.headers or {}).get(ROUND_START_HEADER)
    return StoredEvent(
        seq=seq,
        round_start_seq=int(start) if start else seq,
        event=RoundEvent(
            table=table,
            round_number=int(data["round"]),
            index=int(data["index"]),
            kind=str(data["kind"]),
            body=data["body"],
        ),
    )


def _stored_report(message: Msg) -> StoredReport:
    data = orjson.loads(message.data)
    return StoredReport(
        seq=message.metadata.sequence.stream,
        report=GatewayReport(
            table=message.subject.rsplit(".", 1)[-1],
            round_number=int(data["round"]),
            gateway=str(data["gateway"]),
            kind=ReportKind(data["kind"]),
            step=int(data["step"]),
            body=data["body"],
        ),
    )
