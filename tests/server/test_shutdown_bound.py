"""SIGTERM while a settlement waits on the database: ``boundless serve`` exits within its bound
(it used to wait as long as the lock) and says in its log that the round is left to the next
start's recovery, which then refunds it: no coin lost, the books balance. And without a lock, the
signal path of ``boundless serve`` itself tells the player of the round in flight.
"""

from __future__ import annotations

import contextlib
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import psycopg
import pytest
from sqlalchemy.engine import make_url
from websockets.exceptions import ConnectionClosed

from boundless.ledger import make_session_factory
from boundless.server.recovery import recover
from boundless.server.storage.database import migrated_engine
from boundless.server.tables.registry import SHUTDOWN_SECONDS
from boundless.server.tables.runner import SHUTDOWN_REASON
from tests.postgres import libpq_dsn, postgres_schema
from tests.server.live import assert_books, bet, free_port, serve_process, socket_client

GRANT = 100_000
LOCK_HELD_SECONDS = 60.0
"""Longer than any bound: the lock is released only after the server has exited."""


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'data' / 'boundless.sqlite'}"
        return
    with postgres_schema("shutdown_bound") as url:
        yield url


@contextmanager
def ledger_locked(database_url: str) -> Iterator[None]:
    """Another writer holding what a settlement needs: SQLite's write lock, or every ledger
    account row on PostgreSQL."""
    if database_url.startswith("sqlite"):
        connection = sqlite3.connect(make_url(database_url).database or "", timeout=5)
        connection.isolation_level = None
        connection.execute("BEGIN IMMEDIATE")
        try:
            yield
        finally:
            connection.execute("ROLLBACK")
            connection.close()
        return
    options = make_url(database_url).query["options"]
    with psycopg.connect(libpq_dsn(database_url.split("?")[0]), options=str(options)) as conn:
        conn.execute("SELECT id FROM ledger_accounts FOR UPDATE")
        yield
        conn.rollback()


def test_sigterm_while_the_settlement_waits_on_a_lock_exits_within_the_bound(
    tmp_path: Path, database_url: str
) -> None:
    port = free_port()
    log = tmp_path / "serve.log"
    options = ["--admin-token", "bound-test", "--database-url", database_url]
    options += ["--betting-seconds", "0.3", "--insurance-seconds", "0.3"]
    options += ["--decision-seconds", "0.3", "--round-gap-seconds", "30"]
    process = serve_process(tmp_path / "data", port, log, options)
    try:
        player = httpx.post(
            f"http://127.0.0.1:{port}/api/v1/players", json={"display_name": "Una"}
        ).json()
        client = socket_client(port, player["token"])
        answer = client.request(
            {"type": "bet", "table_id": "boundless-1", "bet_id": "b1", "bets": {"1": {"main": 500}}}
        )
        assert answer["type"] == "ack", answer
        with ledger_locked(database_url):  # from the bet on: the round plays on meanwhile
            state = client.wait_for("state", lambda m: m["public"]["phase"] == "settling", 30)
            wait_until_logged_or_waiting(lambda: process.poll() is None)
            started = time.monotonic()
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=SHUTDOWN_SECONDS + 20)
            except subprocess.TimeoutExpired:
                pytest.fail(f"serve still waits on the lock:\n{log.read_text()[-3000:]}")
            took = time.monotonic() - started
        client.close()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
    text = log.read_text()
    assert took < SHUTDOWN_SECONDS + 10, f"exit took {took:.1f} s:\n{text[-3000:]}"
    assert "did not stop within 5 s" in text and "recovery" in text, text[-3000:]
    assert "Traceback" not in text, text[-3000:]
    # The next start's recovery refunds the round the settlement never wrote.
    engine = migrated_engine(database_url)
    try:
        report = recover(make_session_factory(engine))
    finally:
        engine.dispose()
    assert report.cancelled_rounds == [state["round_id"]]
    assert_books(database_url, {player["player_id"]: GRANT})


def wait_until_logged_or_waiting(alive: Callable[[], bool]) -> None:
    """The settlement's write is handed to its thread right after the ``settling`` state is
    sent; give the loop that turn (a short poll, the process must stay up meanwhile)."""
    deadline = time.monotonic() + 0.5
    while time.monotonic() < deadline:
        assert alive(), "serve exited before the signal"
        time.sleep(0.05)


def test_sigterm_tells_the_player_of_the_round_in_flight_before_the_socket_closes(
    tmp_path: Path,
) -> None:
    """The signal path of ``boundless serve`` itself (its uvicorn server stops the tables
    first): the player gets ``settled`` with the cancellation, then the close."""
    port = free_port()
    log = tmp_path / "serve.log"
    options = ["--admin-token", "bound-test", "--betting-seconds", "0.3"]
    options += ["--insurance-seconds", "30", "--decision-seconds", "30"]
    process = serve_process(tmp_path / "data", port, log, options)
    try:
        player = httpx.post(
            f"http://127.0.0.1:{port}/api/v1/players", json={"display_name": "Una"}
        ).json()
        client = socket_client(port, player["token"])
        state = None
        for _ in range(8):  # a round that ends at the deal (a blackjack) is played again
            assert bet(client, 500)["type"] == "ack"
            message = client.wait_for(
                "state", lambda m: m["public"]["phase"] in ("insurance", "decisions", "settling")
            )
            if message["public"]["phase"] != "settling":
                state = message
                break
            client.wait_for("settled")
        assert state is not None, "no round stopped for a decision in eight rounds"
        process.send_signal(signal.SIGTERM)
        rest = []
        with contextlib.suppress(ConnectionClosed, TimeoutError):
            while True:
                rest.append(client.recv(SHUTDOWN_SECONDS + 10))
        process.wait(timeout=SHUTDOWN_SECONDS + 20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
    settled = [m for m in rest if m["type"] == "settled" and m["round_id"] == state["round_id"]]
    assert len(settled) == 1, [m["type"] for m in rest]
    assert settled[0]["cancelled"] == SHUTDOWN_REASON and settled[0]["net"] == 0, settled
    assert "Traceback" not in log.read_text()
    assert_books(f"sqlite:///{tmp_path / 'data' / 'boundless.sqlite'}")
