"""The floor of the cluster's bus: bare JetStream round trips, with nothing of Boundless on them.

``publish_ack_ms``: one ``publish`` to a file-backed stream, waited for its acknowledgement (the
server stored it), one after another. ``step_ms``: the three hops of a decision step, bare: a
"coordinator" connection publishes to one stream, each of ``gateways`` other connections takes it
from an ordered consumer (as the bus's readers do) and publishes a reply to a second stream, the
coordinator takes every reply and publishes again, and the clock stops when the last gateway holds
that message. All connections live in this process, so a step pays no process switch; the
streams are made under a namespace of the run's own and deleted afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from typing import Any

import nats
from nats.js import api


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _streams(js: Any, prefix: str) -> tuple[str, str]:
    down, up = f"{prefix}_down", f"{prefix}_up"
    for name in (down, up):
        await js.add_stream(
            api.StreamConfig(name=name, subjects=[f"{name}.>"], storage=api.StorageType.FILE)
        )
    return down, up


async def publish_ack_ms(nats_url: str, count: int) -> list[float]:
    """``count`` bare publish-and-acknowledge round trips, in milliseconds."""
    client = await nats.connect(nats_url)
    js = client.jetstream()
    prefix = f"floor{uuid.uuid4().hex[:8]}"
    down, up = await _streams(js, prefix)
    try:
        took = []
        for number in range(count):
            start = time.perf_counter()
            await js.publish(f"{down}.t", b"%d" % number)
            took.append((time.perf_counter() - start) * 1000)
        return took
    finally:
        for name in (down, up):
            with contextlib.suppress(Exception):
                await js.delete_stream(name)
        await client.close()


async def step_ms(nats_url: str, gateways: int, steps: int) -> list[float]:
    """``steps`` bare three-hop steps over ``gateways`` reader connections, in milliseconds."""
    coordinator = await nats.connect(nats_url)
    js = coordinator.jetstream()
    prefix = f"floor{uuid.uuid4().hex[:8]}"
    down, up = await _streams(js, prefix)
    readers = [await nats.connect(nats_url) for _ in range(gateways)]
    held: dict[int, asyncio.Event] = {}
    holders: dict[int, int] = {}
    replies: dict[int, int] = {}
    replied: dict[int, asyncio.Event] = {}

    def event(table: dict[int, asyncio.Event], step: int) -> asyncio.Event:
        return table.setdefault(step, asyncio.Event())

    async def gateway(client: Any) -> None:
        reader_js = client.jetstream()
        subscription = await reader_js.subscribe(f"{down}.>", ordered_consumer=True)
        async for message in subscription.messages:
            step, hop = map(int, message.data.split(b":"))
            if hop == 0:  # the step's close: report
                await reader_js.publish(f"{up}.r", b"%d" % step)
            else:  # the step's card: held
                holders[step] = holders.get(step, 0) + 1
                if holders[step] == gateways:
                    event(held, step).set()

    async def reports() -> None:
        subscription = await js.subscribe(f"{up}.>", ordered_consumer=True)
        async for message in subscription.messages:
            step = int(message.data)
            replies[step] = replies.get(step, 0) + 1
            if replies[step] == gateways:
                event(replied, step).set()

    tasks = [asyncio.ensure_future(gateway(client)) for client in readers]
    tasks.append(asyncio.ensure_future(reports()))
    try:
        await asyncio.sleep(0.2)  # the consumers subscribe
        took = []
        for step in range(steps):
            start = time.perf_counter()
            await js.publish(f"{down}.s", b"%d:0" % step)
            await asyncio.wait_for(event(replied, step).wait(), 30)
            await js.publish(f"{down}.s", b"%d:1" % step)
            await asyncio.wait_for(event(held, step).wait(), 30)
            took.append((time.perf_counter() - start) * 1000)
        return took
    finally:
        for task in tasks:
            task.cancel()
        for client in readers:
            with contextlib.suppress(Exception):
                await client.close()
        for name in (down, up):
            with contextlib.suppress(Exception):
                await js.delete_stream(name)
        await coordinator.close()
