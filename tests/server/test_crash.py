"""Kill ``boundless serve`` (SIGKILL) in the middle of a round, restart it, count every coin."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from boundless.ledger import (
    Category,
    LedgerService,
    check_books,
    make_engine,
    make_session_factory,
)
from tests.postgres import postgres_schema
from tests.server.live import bet, free_port, serve_process, socket_client

ROUND_MIDDLE = ("insurance", "decisions")


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A SQLite file, or a fresh schema in the machine's PostgreSQL (skipped when absent)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'data' / 'boundless.sqlite'}"
        return
    with postgres_schema("crash_test") as url:
        yield url


def serve(data_dir: Path, port: int, log: Path, database_url: str) -> subprocess.Popen[bytes]:
    options = ["--admin-token", "crash-test", "--database-url", database_url]
    options += ["--betting-seconds", "0.3", "--insurance-seconds", "30", "--decision-seconds", "30"]
    return serve_process(data_dir, port, log, [*options, "--round-gap-seconds", "0.1"])


def test_a_round_in_flight_is_refunded_exactly_once_after_a_crash(
    tmp_path: Path, database_url: str
) -> None:
    port = free_port()
    log = tmp_path / "serve.log"
    process = serve(tmp_path / "data", port, log, database_url)
    base = f"http://127.0.0.1:{port}"
    players = [httpx.post(f"{base}/api/v1/players", json={"display_name": n}).json() for n in "AB"]
    clients = [socket_client(port, player["token"]) for player in players]
    in_flight = None
    for _ in range(8):  # a round that ends at the deal (blackjacks) is retried
        answers = [bet(client, 1000 * (index + 1)) for index, client in enumerate(clients)]
        assert all(answer["type"] == "ack" for answer in answers), answers
        while True:
            message = clients[0].recv(20)
            if message["type"] == "settled":
                clients[0].wait_for("state", lambda m: m["public"]["phase"] == "betting")
                break
            if message["type"] == "state" and message["public"]["phase"] in ROUND_MIDDLE:
                in_flight = message["round_id"]
                break
        if in_flight:
            break
    assert in_flight, "no round stopped for a decision in eight rounds"
    expected = {
        player["player_id"]: answer["balance"] + 1000 * (index + 1)
        for index, (player, answer) in enumerate(zip(players, answers, strict=True))
    }
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    for client in clients:
        client.close()

    database = database_url
    table_id, round_no = in_flight.rsplit(":", 1)
    for restart in range(2):
        process = serve(tmp_path / "data", port, log, database_url)
        try:
            engine = make_engine(database)
            with make_session_factory(engine).begin() as session:
                ledger = LedgerService(session)
                report = check_books(session)
                assert report.ok, report.summary()
                info = ledger.round_info(table_id, int(round_no))
                assert info is not None and info.status == "cancelled"
                cancels = [
                    t
                    for t in ledger.round_transactions(table_id, int(round_no))
                    if t.category == Category.CANCEL
                ]
                assert len(cancels) == 1, f"restart {restart}: {len(cancels)} cancellations"
                assert not ledger.rounds("open")
                for player_id, balance in expected.items():
                    assert ledger.wallet_balance(player_id) == balance
            engine.dispose()
            token = players[0]["token"]
            headers = {"Authorization": f"Bearer {token}"}
            record = httpx.get(f"{base}/api/v1/records/{in_flight}", headers=headers).json()
            assert record["status"] == "cancelled" and record["net"] == 0
            client = socket_client(port, token)
            state = next(m for m in reversed(client.seen) if m["type"] == "state")
            assert state["round_no"] > int(round_no), "the table continues after the crash"
            assert bet(client, 500)["type"] == "ack"
            client.close()
            expected[players[0]["player_id"]] -= 500
            if restart == 0:
                process.send_signal(signal.SIGKILL)
                process.wait(timeout=30)
                expected[players[0]["player_id"]] += 500  # that round is refunded too
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                process.wait(timeout=30)
