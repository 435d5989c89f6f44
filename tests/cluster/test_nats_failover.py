"""Kill -9 the stream leader of a private 3-node NATS cluster mid-stream.

Nothing stored is lost or doubled and appends carry on: a publish whose ack was lost in the
election is retried with the same message id, which the new leader recognises.
"""

from __future__ import annotations

import asyncio

import pytest

from boundless.server.cluster import RoundEvent, StoredEvent, in_sequence
from tests.cluster.conftest import run
from tests.cluster.nats_cluster import NatsCluster

pytestmark = pytest.mark.slow
EVENTS = 120
KILL_AFTER = 40


async def connect_when_ready(url: str):  # type: ignore[no-untyped-def]
    from boundless.server.cluster import BusUnavailableError
    from boundless.server.cluster.jetstream_bus import JetStreamBus

    # The cluster elects its JetStream meta leader a moment after the nodes listen.
    for _ in range(60):
        try:
            return await JetStreamBus.connect(url, replicas=3, retry_seconds=20.0)
        except BusUnavailableError:
            await asyncio.sleep(0.5)
    raise AssertionError("the NATS cluster never offered JetStream")


def test_killing_the_stream_leader_loses_and_doubles_nothing(nats_cluster: NatsCluster) -> None:
    async def body() -> None:
        writer = await connect_when_ready(nats_cluster.url)
        reader = await connect_when_ready(nats_cluster.url)
        received: list[StoredEvent] = []

        async def read() -> None:
            async for stored in in_sequence(reader.events("t1", from_seq=0)):
                received.append(stored)
                if len(received) == EVENTS:
                    return

        reading = asyncio.ensure_future(read())
        last, start, killed = 0, None, None
        for index in range(EVENTS):
            if index == KILL_AFTER:
                info = await writer._js.stream_info(writer.names.events_stream)
                assert info.cluster is not None and info.cluster.leader
                killed = info.cluster.leader
                nats_cluster.node(killed).kill()
            result = await writer.append_event(
                RoundEvent("t1", 1, index, "e", {"i": index}),
                expected_last_seq=last,
                round_start_seq=start,
            )
            last, start = result.seq, start or result.seq
        await asyncio.wait_for(reading, 60)
        info = await writer._js.stream_info(writer.names.events_stream)
        assert info.cluster is not None and info.cluster.leader not in (None, killed)
        assert [s.event.index for s in received] == list(range(EVENTS))
        replayed = await writer.replay_round("t1")
        assert [s.event.index for s in replayed] == list(range(EVENTS))
        assert info.state.messages == EVENTS
        await writer.close()
        await reader.close()

    run(body(), timeout=120)
