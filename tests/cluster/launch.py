"""Cluster processes as an operator starts them, for the tests: ``boundless cluster`` launched on
the ``services`` fixture's NATS namespace and PostgreSQL schema, a gateway's status, waiting,
kill -9."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.cluster.conftest import Services
from tests.server.live import wait_until

BOOT_SECONDS = 90.0
"""Bound on a process starting (imports are slow on a loaded 2-core machine)."""
COMMAND = [sys.executable, "-m", "boundless.cli.main"]


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


def wait_for(check: Callable[[], bool], seconds: float, what: str) -> None:
    wait_until(check, seconds, what, every=0.5)


def kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


@dataclass
class Launched:
    """``boundless cluster`` running: the launcher and its children's pids (coordinator first)."""

    launcher: subprocess.Popen[bytes]
    pids: list[int]
    """The coordinator's, then each gateway's."""
    standby_pids: list[int]
    replicas_line: str
    extra_lines: list[str] | None = None
    """What the launcher printed after its process lines, read by :meth:`stop`."""

    def stop(self) -> None:
        self.launcher.send_signal(signal.SIGTERM)
        try:
            self.launcher.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.launcher.kill()
        for pid in [*self.pids, *self.standby_pids]:
            kill(pid)
        assert self.launcher.stdout is not None
        self.extra_lines = self.launcher.stdout.read().decode().splitlines()


def launch_cluster(
    services: Services, port: int, gateways: int, extra: list[str], errors: Path
) -> Launched:
    """``boundless cluster`` with ``gateways`` gateways from ``port``; its stderr to ``errors``."""
    launcher = subprocess.Popen(
        [
            *COMMAND,
            "cluster",
            "--gateways",
            str(gateways),
            "--port",
            str(port),
            *services.options(),
            "--namespace",
            services.namespace,
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=errors.open("wb"),
    )
    assert launcher.stdout is not None
    standbys = int(extra[extra.index("--standbys") + 1]) if "--standbys" in extra else 1
    count = 2 + standbys + gateways
    lines = [launcher.stdout.readline().decode().rstrip("\n") for _ in range(count)]
    replicas_line, lines = lines[0], lines[1:]
    assert replicas_line.startswith("replicas: "), replicas_line
    assert lines[0].startswith("coordinator: pid "), lines
    for index in range(1, standbys + 1):
        assert lines[index].startswith(f"standby {index}: pid "), lines
    gateway_lines = lines[1 + standbys :]
    for index in range(1, gateways + 1):
        assert gateway_lines[index - 1].startswith(
            f"gateway {index}: http://127.0.0.1:{port + index - 1}/ pid "
        )
    pid = [int(line.rsplit(" ", 1)[1]) for line in lines]
    return Launched(
        launcher,
        [pid[0], *pid[1 + standbys :]],
        pid[1 : 1 + standbys],
        replicas_line,
    )
