"""The cluster's processes as an operator starts them: ``boundless cluster`` with real NATS and
PostgreSQL, a standby coordinator, kill -9 of the active one; and the command line's refusals."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from boundless.cli.main import app
from tests.cluster.conftest import NATS_URL, nats_unavailable
from tests.cluster.nats_cluster import free_ports
from tests.postgres import postgres_schema
from tests.server.live import wait_until

BOOT_SECONDS = 90.0
"""Bound on a process starting (imports are slow on a loaded 2-core machine)."""


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["coordinator", "--database-url", "nonsense", "--nats-url", NATS_URL], "bad database"),
        (
            ["coordinator", "--database-url", "sqlite://", "--nats-url", "http://x"],
            "must be nats://",
        ),
        (
            ["gateway", "--database-url", "sqlite://", "--nats-url", "nats://127.0.0.1:1"],
            "cannot reach NATS",
        ),
        (
            [
                "cluster",
                "--gateways",
                "2",
                "--nats-url",
                NATS_URL,
                "--database-url",
                "postgresql+psycopg://postgres@127.0.0.1:1/test",
            ],
            "cannot reach the database",
        ),
        (
            [
                "cluster",
                "--gateways",
                "3",
                "--port",
                "65534",
                "--database-url",
                "sqlite://",
                "--nats-url",
                NATS_URL,
            ],
            "run past 65535",
        ),
    ],
)
def test_bad_or_unreachable_urls_are_one_line_and_exit_2(args: list[str], expected: str) -> None:
    pytest.importorskip("nats", reason="nats-py is not installed (pip install -e '.[cluster]')")
    if args[0] == "gateway":
        args = [*args, "--port", "18999"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and expected in lines[0], result.output
    assert "Traceback" not in result.output


def status(port: int) -> dict[str, object] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/cluster", timeout=2) as reply:
            return json.loads(reply.read())  # type: ignore[no-any-return]
    except OSError:
        return None


def rounds_ended(port: int) -> int:
    found = status(port) or {}
    value = found.get("rounds_ended", 0)
    return value if isinstance(value, int) else 0


def coordinator_of(port: int) -> object:
    return (status(port) or {}).get("coordinator")


def wait_for(check: Callable[[], bool], seconds: float, what: str) -> None:
    """Poll a process's status every half second (each poll is an HTTP request)."""
    wait_until(check, seconds, what, every=0.5)


@dataclass
class Services:
    namespace: str
    database_url: str


@pytest.fixture
def services() -> Iterator[Services]:
    """The machine's NATS (a namespace of our own) and PostgreSQL (a schema of our own)."""
    reason = nats_unavailable()
    if reason:
        pytest.skip(reason)
    namespace = "p" + uuid.uuid4().hex[:10]
    with postgres_schema(f"cluster_test_{namespace}") as url:
        yield Services(namespace, url)

    import asyncio

    from boundless.server.cluster.jetstream_bus import JetStreamBus

    async def drop() -> None:
        bus = await JetStreamBus.connect(NATS_URL, namespace=namespace)
        await bus.delete_namespace()
        await bus.close()

    asyncio.run(drop())


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


@pytest.mark.slow
def test_cluster_survives_kill_9_of_its_coordinator_and_of_a_gateway(
    services: Services, tmp_path: Path
) -> None:
    port = free_ports(1)[0]
    common = ["--database-url", services.database_url, "--nats-url", NATS_URL]
    common += ["--namespace", services.namespace]
    timers = ["--timer-scale", "0.02", "--round-gap-seconds", "0.1"]
    command = [sys.executable, "-m", "boundless.cli.main"]
    stderr = (tmp_path / "cluster.err").open("wb")
    launcher = subprocess.Popen(
        [
            *command,
            "cluster",
            "--gateways",
            "2",
            "--port",
            str(port),
            "--bots",
            "2",
            *common,
            *timers,
        ],
        stdout=subprocess.PIPE,
        stderr=stderr,
    )
    standby = None
    pids: list[int] = []
    try:
        assert launcher.stdout is not None
        lines = [launcher.stdout.readline().decode().rstrip("\n") for _ in range(3)]
        assert lines[0].startswith("coordinator: pid ")
        assert lines[1].startswith(f"gateway 1: http://127.0.0.1:{port}/ pid ")
        assert lines[2].startswith(f"gateway 2: http://127.0.0.1:{port + 1}/ pid ")
        pids = [int(line.rsplit(" ", 1)[1]) for line in lines]
        ports = [port, port + 1]
        for gateway_port in ports:
            wait_for(
                lambda p=gateway_port: rounds_ended(p) >= 2,
                BOOT_SECONDS,
                f"two rounds on the gateway at {gateway_port}",
            )
        first = status(port)
        assert first is not None and str(first["coordinator"]).startswith("coordinator-")
        standby = subprocess.Popen(
            [*command, "coordinator", *common, *timers, "--name", "standby-coordinator"],
            stderr=(tmp_path / "standby.err").open("wb"),
        )
        time.sleep(0.5)
        _kill(pids[0])  # kill -9 the active coordinator, mid-round or between rounds
        for gateway_port in ports:
            wait_for(
                lambda p=gateway_port: coordinator_of(p) == "standby-coordinator",
                BOOT_SECONDS,
                "the standby to take the lease",
            )
        ended = [rounds_ended(p) for p in ports]
        for gateway_port, before in zip(ports, ended, strict=True):
            wait_for(
                lambda p=gateway_port, b=before: rounds_ended(p) >= b + 2,
                BOOT_SECONDS,
                "rounds to continue under the standby",
            )
        assert launcher.poll() is None  # the launcher does not restart or follow its child
        # kill -9 gateway 2 (mid-round or between rounds): gateway 1 plays on and settles.
        _kill(pids[2])
        before = rounds_ended(port)
        wait_for(lambda: rounds_ended(port) >= before + 2, BOOT_SECONDS, "gateway 1 to play on")
    finally:
        if standby is not None:
            _kill(standby.pid)
        launcher.send_signal(signal.SIGTERM)
        try:
            launcher.wait(timeout=20)
        except subprocess.TimeoutExpired:
            launcher.kill()
        for pid in pids:
            _kill(pid)
    assert (
        "coordinator: exited with code -9 (not restarted)" in (tmp_path / "cluster.err").read_text()
    )
