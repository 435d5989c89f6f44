"""``boundless cluster --wallet seamless`` on the machine's NATS and PostgreSQL, against the
reference operator wallet: the operator launches its player into the table through a gateway's
``POST /api/v1/operator/sessions``; the player bets and plays a round there; afterwards the
operator's balance is what the round says, and our record of the calls (PostgreSQL) says the same
with nothing pending. Then the gateway is killed with SIGKILL while the operator holds a debit
it has not answered yet, and the launcher's restart of it rolls that debit back by itself."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from boundless.ledger import make_engine, make_session_factory
from boundless.wallet.calls import CREDIT, DEBIT, DONE, CallBook
from boundless.wallet.signing import REQUEST_HEADER, SECRET_VARIABLE, sign
from tests.cluster.conftest import Services
from tests.cluster.launch import BOOT_SECONDS, kill, launch_cluster, status, wait_for
from tests.cluster.nats_cluster import free_port_run
from tests.server.live import Client, socket_client
from tests.wallet.bench import SECRET, operator_wallet, post_faults

START = 100_000
PLAYER = "op-cluster-kit"


def _launch(port: int) -> Client:
    """What the operator's site and its player's browser do: a signed session, the code traded
    for a token, the player's socket on the table."""
    body = orjson.dumps({"player_id": PLAYER, "name": "Kit", "currency": "EUR", "language": "en"})
    base = f"http://127.0.0.1:{port}"
    opened = httpx.post(
        f"{base}/api/v1/operator/sessions",
        content=body,
        headers={REQUEST_HEADER: sign(SECRET, body), "Content-Type": "application/json"},
        timeout=30,
    )
    assert opened.status_code == 201, opened.text
    code = opened.json()["launch_url"].split("launch=")[1].split("&")[0]
    launched = httpx.post(f"{base}/api/v1/operator/launch", json={"code": code}, timeout=30)
    assert launched.status_code == 200, launched.text
    return socket_client(port, launched.json()["token"])


def _bet(client: Client, amount: int, timeout: float = 60.0) -> dict[str, Any]:
    """A bet on spot 1, sent again (same id) until a betting window takes it."""
    body = {"type": "bet", "table_id": "boundless-1", "bet_id": f"b{time.monotonic_ns()}"}
    body["bets"] = {"1": {"main": amount}}
    deadline = time.monotonic() + timeout
    while True:
        answer = client.request(body, timeout=timeout)
        if answer.get("error") not in ("wrong_phase", "no_round") or time.monotonic() > deadline:
            return answer
        time.sleep(0.2)


def _moved_by_our_calls(database_url: str) -> tuple[int, int]:
    """What our record of the calls says the operator's balance moved by, and how many are not
    acknowledged yet."""
    engine = make_engine(database_url)
    try:
        with make_session_factory(engine).begin() as session:
            book = CallBook(session)
            pending = book.pending_count()
            calls = book.between(*_all_time())
    finally:
        engine.dispose()
    mine = [call for call in calls if call.player_id == PLAYER and call.status == DONE]
    staked = {call.transaction_id for call in mine if call.kind == DEBIT}
    moved = 0
    for call in mine:
        if call.kind == DEBIT:
            moved -= call.amount
        elif call.kind == CREDIT or call.refers_to in staked:
            moved += call.amount  # (a rollback of a debit we never recorded moves nothing here)
    return moved, pending


def _all_time() -> tuple[datetime, datetime]:
    return datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC)


@pytest.mark.slow
def test_an_operator_launches_its_player_into_a_cluster_and_the_books_agree(
    services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SECRET_VARIABLE, SECRET.decode())  # every child reads the same secret
    port = free_port_run(1)
    timers = ["--timer-scale", "0.2", "--betting-seconds", "4", "--round-gap-seconds", "0.1"]
    with operator_wallet(START) as operator:
        wallet = ["--wallet", "seamless", "--wallet-url", operator.url]
        cluster = launch_cluster(
            services, port, 1, [*wallet, "--standbys", "0", *timers], tmp_path / "cluster.err"
        )
        try:
            wait_for(lambda: status(port) is not None, BOOT_SECONDS, "the gateway to answer")
            client = _launch(port)
            answer = _bet(client, 1000)
            assert answer.get("type") == "ack", answer
            settled = client.wait_for("settled", lambda m: True, 120)
            expected = START + int(settled["net"])
            wait_for(
                lambda: operator.store.balances.get(PLAYER) == expected, 60, "the round's credit"
            )
            # The operator applies a credit before our record marks it acknowledged: wait for
            # the record, as after the kill below.
            wait_for(
                lambda: _moved_by_our_calls(services.database_url) == (expected - START, 0),
                60,
                "our record of the round's calls to agree",
            )
            client.close()

            # kill -9 the gateway while the operator holds a debit it has not answered.
            client = _launch(port)
            post_faults(operator, timeout_next={"debit_batch": 1, "debit": 1}, hang_seconds=60.0)
            bet = {"type": "bet", "table_id": "boundless-1", "bet_id": "b-killed"}
            client.send({**bet, "bets": {"1": {"main": 700}}})
            wait_for(
                lambda: operator.store.balances.get(PLAYER) == expected - 700,
                60,
                "the operator to take the debit",
            )
            kill(cluster.pids[1])  # the gateway; the launcher restarts it
            wait_for(
                lambda: operator.store.balances.get(PLAYER) == expected,
                BOOT_SECONDS,
                "the restarted gateway to roll the debit back",
            )
            wait_for(
                lambda: _moved_by_our_calls(services.database_url) == (expected - START, 0),
                60,
                "our record to agree",
            )
        finally:
            cluster.stop()
