"""Replication by default and a lease that outlives a stream-leader election.

- On a private 3-node NATS cluster the streams and the lease bucket get 3 replicas unasked; an
  existing stream is never downgraded (asking 1 keeps 3, with one line saying so); a single
  server (the machine's) gets 1.
- Lease renewal is retried while the lease lives and no longer: a renewal that cannot get
  through fails within the lease's life; one whose answer was lost (it did renew) is found by
  reading the key back.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from boundless.server.cluster import LeaseLostError
from tests.cluster.conftest import NATS_URL, nats_unavailable, run
from tests.cluster.nats_cluster import NatsCluster


async def connect(url: str, namespace: str, replicas: int | None = None) -> Any:
    from boundless.server.cluster import BusUnavailableError
    from boundless.server.cluster.jetstream_bus import JetStreamBus

    for _ in range(60):  # the cluster elects its JetStream meta leader a moment after start
        try:
            return await JetStreamBus.connect(
                url, namespace=namespace, replicas=replicas, retry_seconds=20.0
            )
        except BusUnavailableError:
            await asyncio.sleep(0.5)
    raise AssertionError("NATS never offered JetStream")


def test_a_three_node_cluster_gets_three_replicas_and_never_fewer(
    nats_cluster: NatsCluster,
) -> None:
    async def body() -> None:
        first = await connect(nats_cluster.url, "rep")
        assert first.replicas == 3 and first.notes == ()
        for stream in (first.names.events_stream, "KV_rep_leases"):
            info = await first._js.stream_info(stream)
            assert info.config.num_replicas == 3, stream
        again = await connect(nats_cluster.url, "rep", replicas=1)
        assert again.replicas == 3
        assert again.notes[0] == (
            "stream REP_ROUNDS keeps its 3 replicas (asked 1; never downgraded)"
        )
        info = await again._js.stream_info(again.names.events_stream)
        assert info.config.num_replicas == 3
        await first.close()
        await again.close()

    run(body(), 60)


@pytest.fixture
def namespace() -> Iterator[str]:
    """A namespace of our own on the machine's NATS (one server), dropped afterwards."""
    reason = nats_unavailable()
    if reason:
        pytest.skip(reason)
    name = "l" + uuid.uuid4().hex[:10]
    yield name

    async def drop() -> None:
        bus = await connect(NATS_URL, name)
        await bus.delete_namespace()
        await bus.close()

    run(drop())


def test_a_single_server_gets_one_replica(namespace: str) -> None:
    async def body() -> int:
        bus = await connect(NATS_URL, namespace)
        await bus.close()
        return int(bus.replicas)

    assert run(body()) == 1


def test_a_renewal_that_cannot_get_through_fails_within_the_lease_life(
    namespace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import nats.errors

    async def body() -> float:
        single_bus = await connect(NATS_URL, namespace)
        lease = await single_bus.acquire_lease("t1", "c1")
        assert lease is not None

        async def no_leader(*_: object, **__: object) -> int:
            await asyncio.sleep(0.05)
            raise nats.errors.TimeoutError

        monkeypatch.setattr(single_bus._leases, "update", no_leader)
        with pytest.raises(LeaseLostError, match="not renewed within its 5 s life"):
            await single_bus.renew_lease(lease)
        spent = time.monotonic() - lease.renewed_at
        await single_bus.close()
        return spent

    assert run(body()) <= 5.0 + 1.0  # the lease's life (5 s), and a moment


def test_a_renewal_whose_answer_was_lost_is_found_and_kept(
    namespace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import nats.errors

    async def body() -> None:
        single_bus = await connect(NATS_URL, namespace)
        lease = await single_bus.acquire_lease("t1", "c1")
        real_update = single_bus._leases.update
        calls = []

        async def answer_lost(*args: Any, **kwargs: Any) -> int:
            calls.append(args)
            if len(calls) == 1:
                await real_update(*args, **kwargs)  # stored, but the answer never comes
                raise nats.errors.TimeoutError
            return int(await real_update(*args, **kwargs))

        monkeypatch.setattr(single_bus._leases, "update", answer_lost)
        renewed = await single_bus.renew_lease(lease)
        assert renewed.revision > lease.revision and len(calls) == 2
        monkeypatch.setattr(single_bus._leases, "update", real_update)
        assert (await single_bus.renew_lease(renewed)).revision > renewed.revision
        assert await single_bus.acquire_lease("t1", "c2") is None
        await single_bus.close()

    run(body())
