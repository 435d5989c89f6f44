"""SIGTERM stops ``boundless serve --bots 3`` in every phase of a round (and Ctrl-C, SIGINT, in a
decision step), and the books hold.

A table with bots used to hang at shutdown in a decision step: the bots disconnect first and wake
the table, and on Python 3.11 ``asyncio.wait_for`` can swallow the cancel that arrives as the
inner wait finishes, so the table played on forever. The timeout below is a hang guard, not a
speed check.
"""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from boundless.ledger import LedgerService, check_books, make_engine, make_session_factory
from tests.server.live import free_port, serve_process, socket_client

HANG_GUARD_SECONDS = 30.0
LONG = "30"
SHORT = "0.3"
PHASE_TIMERS = {
    # the phase to stop in: (betting, insurance, decision) seconds, so that phase lasts
    "betting": (LONG, SHORT, SHORT),
    "insurance": (SHORT, LONG, SHORT),
    "decisions": (SHORT, SHORT, LONG),
    "dealer": (SHORT, SHORT, SHORT),
}


def serve(
    data_dir: Path, port: int, log: Path, timers: tuple[str, str, str]
) -> subprocess.Popen[bytes]:
    betting, insurance, decision = timers
    options = ["--admin-token", "shutdown-test", "--bots", "3", "--round-gap-seconds", "0.05"]
    options += ["--betting-seconds", betting, "--insurance-seconds", insurance]
    return serve_process(data_dir, port, log, [*options, "--decision-seconds", decision])


def table_in(port: int, phase: str) -> str | None:
    """A shared table whose round is in ``phase`` right now (with bets on it), else None."""
    try:
        rows = httpx.get(f"http://127.0.0.1:{port}/api/v1/tables", timeout=2).json()
    except httpx.HTTPError:
        return None
    for row in rows:
        if row["phase"] == phase and row["players"] > 0:
            return str(row["table_id"])
    return None


@pytest.mark.parametrize(
    ("phase", "stop"),
    [*((phase, signal.SIGTERM) for phase in PHASE_TIMERS), ("decisions", signal.SIGINT)],
)
def test_a_stop_signal_ends_the_server_in_every_phase(
    tmp_path: Path, phase: str, stop: signal.Signals
) -> None:
    port = free_port()
    log = tmp_path / "serve.log"
    process = serve(tmp_path / "data", port, log, PHASE_TIMERS[phase])
    watcher = None
    try:
        # A person watching, too: an open socket must not hold the shutdown either.
        token = httpx.post(
            f"http://127.0.0.1:{port}/api/v1/players", json={"display_name": "Watcher"}
        ).json()["token"]
        watcher = socket_client(port, token)
        found: list[str] = []

        def in_phase() -> bool:
            table = table_in(port, phase)
            if table is not None:
                found.append(table)
            return table is not None

        deadline = time.monotonic() + 90
        while not in_phase():
            assert time.monotonic() < deadline, f"no table reached {phase!r} in 90 s"
            time.sleep(0.005 if phase == "dealer" else 0.05)
        process.send_signal(stop)
        try:
            code = process.wait(timeout=HANG_GUARD_SECONDS)
        except subprocess.TimeoutExpired:
            pytest.fail(f"serve hung after SIGTERM in {phase!r}:\n{log.read_text()[-3000:]}")
        # uvicorn re-raises the signal once it has shut down cleanly: -SIGTERM is a clean stop;
        # a re-raised SIGINT reaches Typer as KeyboardInterrupt, which exits 130 (128 + SIGINT).
        assert code in (0, -stop, 128 + stop), log.read_text()[-3000:]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
        if watcher is not None:
            watcher.close()
    engine = make_engine(f"sqlite:///{tmp_path / 'data' / 'boundless.sqlite'}")
    try:
        with make_session_factory(engine).begin() as session:
            report = check_books(session)
            assert report.ok, report.summary()
            # Nothing left for the crash recovery: the round in flight ended at shutdown.
            assert LedgerService(session).rounds("open") == []
    finally:
        engine.dispose()
    assert "Traceback" not in log.read_text(), log.read_text()[-3000:]
