"""A gateway's start-up holds its name the whole time: the blocking steps after the name is
taken (migrations, its recovery, its bots' wallets) run in threads while the name is renewed, so
a start-up longer than the name's lease life leaves no gap for a second process with the same
name (which would run its own recovery beside it). A start-up that fails gives the name back
at once. On the machine's NATS and PostgreSQL (skips without them)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from boundless.server.cluster import processes
from boundless.server.cluster.gateway_name import GatewayName, NameHeldError
from boundless.server.cluster.processes import ClusterSettings, connect_bus, run_gateway
from tests.cluster.conftest import Services, run
from tests.cluster.nats_cluster import free_ports

NAME = "g-slow-start"
NAME_LIFE_SECONDS = 5.0  # the name's lease life on NATS (``JetStreamBus``'s default)


class StartUpFailed(Exception):
    pass


def test_a_start_up_longer_than_the_name_life_keeps_the_name(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    reached, release = threading.Event(), threading.Event()

    def slow_ledger(*_: Any) -> None:
        reached.set()
        release.wait(30)
        raise StartUpFailed("the ledger could not be opened")

    monkeypatch.setattr(processes, "open_ledger", slow_ledger)
    settings = ClusterSettings(
        database_url=services.database_url,
        nats_url=services.nats_url,
        namespace=services.namespace,
    )

    async def body() -> None:
        (port,) = free_ports(1)
        starting = asyncio.ensure_future(run_gateway(settings, port=port, name=NAME))
        try:
            assert await asyncio.to_thread(reached.wait, 15), "the start-up never got there"
            await asyncio.sleep(NAME_LIFE_SECONDS + 2)  # the loop is free: the name is renewed
            bus = await connect_bus(settings)
            rival = GatewayName(bus, settings.table, NAME, "rival-process")
            with pytest.raises(NameHeldError):
                await rival.take(wait_seconds=0)
            release.set()
            with pytest.raises(StartUpFailed):
                await starting
            await rival.take(wait_seconds=0)  # given back at once, not left to lapse
            assert rival.lease is not None
            await rival.give_back()
            await bus.close()
        finally:
            release.set()
            starting.cancel()

    run(body(), timeout=60)
