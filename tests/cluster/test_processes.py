"""The cluster's processes as an operator starts them: ``boundless cluster`` with real NATS and
PostgreSQL, a standby coordinator, kill -9 of the active one; and the command line's refusals."""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from typer.testing import CliRunner

from boundless.cli.main import app
from tests.cluster.conftest import NATS_URL, Services
from tests.cluster.launch import (
    BOOT_SECONDS,
    COMMAND,
    kill,
    launch_cluster,
    rounds_ended,
    status,
    wait_for,
)
from tests.cluster.nats_cluster import free_port_run

SQLITE_COORDINATOR = ["coordinator", "--database-url", "sqlite://", "--nats-url", NATS_URL]
ONE_GATEWAY = ["cluster", "--gateways", "1"]


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
        (
            ["coordinator", "--database-url", "mysql://u@127.0.0.1/db", "--nats-url", NATS_URL],
            "needs PostgreSQL",
        ),
        (
            [*SQLITE_COORDINATOR, "--namespace", "a b"],
            "namespace 'a b'",
        ),
        (
            [*ONE_GATEWAY, "--database-url", "sqlite:///cluster.sqlite", "--nats-url", NATS_URL],
            "a whole cluster needs PostgreSQL",
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


BOTH_URLS = ["--database-url", "sqlite://", "--nats-url", NATS_URL]


@pytest.mark.parametrize("command", [["coordinator"], [*ONE_GATEWAY]])
@pytest.mark.parametrize(
    ("timer", "expected"),
    [
        (["--timer-scale", "1e308"], "--timer-scale 1e+308: give a number from 0 to 1000"),
        (["--timer-scale", "inf"], "--timer-scale inf: give a finite number"),
        (["--betting-seconds", "1e12"], "--betting-seconds 1e+12: give a number from 0 to 86400"),
        (["--decision-seconds", "inf"], "--decision-seconds inf: give a finite number"),
        (["--round-gap-seconds", "1e9"], "--round-gap-seconds 1e+09"),
    ],
)
def test_timer_options_out_of_bounds_are_one_line_and_exit_2(
    command: list[str], timer: list[str], expected: str
) -> None:
    """``serve``'s bounds hold for the cluster's commands too, checked before anything starts
    (the URLs here are never reached)."""
    result = CliRunner().invoke(app, [*command, *BOTH_URLS, *timer])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines == [f"error: {lines[0][len('error: ') :]}"] and expected in lines[0], lines
    assert "Traceback" not in result.output


@pytest.mark.parametrize("command", [["gateway", "--port", "18999"], [*ONE_GATEWAY]])
def test_a_bad_forwarded_allow_ips_is_one_line_and_exit_2(command: list[str]) -> None:
    result = CliRunner().invoke(
        app, [*command, *BOTH_URLS, "--forwarded-allow-ips", "proxy.example"]
    )
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "--forwarded-allow-ips: 'proxy.example'" in lines[0], lines


def test_cluster_on_a_port_in_use_starts_nothing_and_says_so_in_one_line(
    services: Services,
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(
            app,
            [
                *ONE_GATEWAY,
                "--port",
                str(port),
                *services.options(),
                "--namespace",
                services.namespace,
            ],
        )
    assert result.exit_code == 2, result.output
    assert result.output.strip() == f"error: port {port} is already in use; choose another --port"


def coordinator_of(port: int) -> object:
    return (status(port) or {}).get("coordinator")


@pytest.mark.slow
def test_cluster_survives_kill_9_of_its_coordinator_and_of_a_gateway(
    services: Services, tmp_path: Path
) -> None:
    port = free_port_run(2)
    common = [*services.options(), "--namespace", services.namespace]
    timers = ["--timer-scale", "0.02", "--round-gap-seconds", "0.1"]
    # Today's behaviour kept on request: no standby, no restart.
    quiet = ["--standbys", "0", "--no-restart"]
    cluster = launch_cluster(
        services, port, 2, ["--bots", "2", *timers, *quiet], tmp_path / "cluster.err"
    )
    launcher, pids = cluster.launcher, cluster.pids
    standby = None
    try:
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
            [*COMMAND, "coordinator", *common, *timers, "--name", "standby-coordinator"],
            stderr=(tmp_path / "standby.err").open("wb"),
        )
        time.sleep(0.5)
        kill(pids[0])  # kill -9 the active coordinator, mid-round or between rounds
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
        kill(pids[2])
        before = rounds_ended(port)
        wait_for(lambda: rounds_ended(port) >= before + 2, BOOT_SECONDS, "gateway 1 to play on")
    finally:
        if standby is not None:
            kill(standby.pid)
        cluster.stop()
    assert (
        "coordinator: exited with code -9 (not restarted)" in (tmp_path / "cluster.err").read_text()
    )


def admin_status(port: int, token: str) -> int:
    """The HTTP status of the operator's table list on a gateway, asked with ``token``."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/v1/admin/tables",
        headers={"Authorization": f"Bearer {token}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def test_cluster_hands_its_admin_token_to_every_gateway(services: Services, tmp_path: Path) -> None:
    """``cluster --admin-token X``: each gateway it starts takes X on an admin route and refuses
    another token; the launcher's lines are the usual ones (the token is not printed)."""
    port = free_port_run(2)
    token = "cluster-operator-secret"
    options = ["--admin-token", token, "--standbys", "0"]
    cluster = launch_cluster(services, port, 2, options, tmp_path / "cluster.err")
    try:
        for gateway_port in (port, port + 1):
            wait_for(
                lambda p=gateway_port: status(p) is not None,
                BOOT_SECONDS,
                f"the gateway at {gateway_port} to answer",
            )
            assert admin_status(gateway_port, token) == 200
            assert admin_status(gateway_port, "not-the-token") == 401
    finally:
        cluster.stop()
    assert cluster.extra_lines == []
