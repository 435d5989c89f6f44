"""``boundless cluster``'s supervisor: a child that dies is restarted with a growing back-off, one
stderr line each time; ``--no-restart`` only says so; a signal stops every child."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from boundless.server.cluster.supervisor import back_off_seconds
from tests.server.live import wait_until

SUPERVISED = textwrap.dedent(
    """
    import sys, typer
    from boundless.server.cluster.supervisor import Child, supervise
    python = sys.executable
    children = [
        Child("coordinator", [python, "-c", "import time; time.sleep(60)"], None),
        Child("gateway 1", [python, "-c", "import sys; sys.exit(3)"], None),
    ]
    children[1].url = "http://127.0.0.1:1/"
    supervise(children, restart=sys.argv[1] == "restart", say=typer.echo)
    """
)


def supervised(tmp_path: Path, mode: str) -> tuple[subprocess.Popen[bytes], Path]:
    errors = tmp_path / f"{mode}.err"
    process = subprocess.Popen(
        [sys.executable, "-c", SUPERVISED, mode],
        stdout=subprocess.PIPE,
        stderr=errors.open("wb"),
    )
    return process, errors


def test_the_back_off_doubles_from_half_a_second_to_thirty() -> None:
    assert [back_off_seconds(n) for n in range(1, 9)] == [0.5, 1, 2, 4, 8, 16, 30, 30]


def test_a_dying_child_is_restarted_with_back_off_and_a_signal_stops_all(tmp_path: Path) -> None:
    process, errors = supervised(tmp_path, "restart")
    assert process.stdout is not None
    first = process.stdout.readline().decode().strip()
    second = process.stdout.readline().decode().strip()
    assert first.startswith("coordinator: pid ")
    assert second.startswith("gateway 1: http://127.0.0.1:1/ pid ")
    wait_until(lambda: "(restart 3)" in errors.read_text(), 30, "three restarts")
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=20) == 0
    said = errors.read_text().splitlines()
    assert said[:3] == [
        "gateway 1: exited with code 3; restarting in 0.5 s (restart 1)",
        "gateway 1: exited with code 3; restarting in 1.0 s (restart 2)",
        "gateway 1: exited with code 3; restarting in 2.0 s (restart 3)",
    ]
    coordinator = int(first.rsplit(" ", 1)[1])
    deadline = time.monotonic() + 10
    while _alive(coordinator) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(coordinator)


def test_no_restart_says_so_once(tmp_path: Path) -> None:
    process, errors = supervised(tmp_path, "no-restart")
    wait_until(lambda: "not restarted" in errors.read_text(), 30, "the exit to be told")
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=20) == 0
    assert errors.read_text().splitlines() == ["gateway 1: exited with code 3 (not restarted)"]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is not alive: the supervisor has reaped it once it is gone.
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split()[2] != "Z"
