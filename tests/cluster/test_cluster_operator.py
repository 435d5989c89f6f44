"""The operator on a running cluster (``boundless cluster`` on the machine's NATS and
PostgreSQL): a pause sent to one gateway holds the table on every gateway, a resume sent to
another lets it go on, and each gateway serves ``/metrics``."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.cluster.conftest import Services
from tests.cluster.launch import BOOT_SECONDS, launch_cluster, rounds_ended, wait_for
from tests.cluster.nats_cluster import free_port_run

TOKEN = "cluster-operator-token"


def admin(port: int, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/v1/admin/{path}",
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=40) as reply:
            return json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return {"status": error.code, **json.loads(error.read())}


def paused_on(port: int) -> bool:
    (row,) = admin(port, "GET", "tables")
    return bool(row["paused"])


@pytest.mark.slow
def test_pause_on_one_gateway_holds_the_table_and_resume_on_another_frees_it(
    services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOUNDLESS_ADMIN_TOKEN", TOKEN)  # every child reads the same token
    port = free_port_run(2)
    timers = ["--timer-scale", "0.05", "--round-gap-seconds", "0.2"]
    cluster = launch_cluster(
        services, port, 2, ["--bots", "2", "--standbys", "0", *timers], tmp_path / "err"
    )
    try:
        for gateway_port in (port, port + 1):
            wait_for(lambda p=gateway_port: rounds_ended(p) >= 1, BOOT_SECONDS, "a first round")
        paused = admin(port + 1, "POST", "tables/boundless-1/pause", {"reason": "inspection"})
        assert paused["type"] == "state" and paused["paused"] is True
        wait_for(lambda: paused_on(port), 10.0, "gateway 1 to show the pause")
        again = admin(port, "POST", "tables/boundless-1/pause")
        assert again["status"] == 409 and "is already paused" in again["detail"]
        held = rounds_ended(port)
        time.sleep(3.0)  # dozens of rounds' worth at this timer scale
        assert rounds_ended(port) <= held + 1  # at most the round that was settling
        resumed = admin(port, "POST", "tables/boundless-1/resume")
        assert resumed["paused"] is False
        wait_for(lambda: rounds_ended(port + 1) >= held + 3, BOOT_SECONDS, "rounds to go on")
        for gateway_port in (port, port + 1):
            with urllib.request.urlopen(f"http://127.0.0.1:{gateway_port}/metrics") as reply:
                text = reply.read().decode()
            assert "boundless_rounds_total" in text and "boundless_stakes_coins_total" in text
    finally:
        cluster.stop()
    errors = (tmp_path / "err").read_text()
    assert "Traceback" not in errors, errors
