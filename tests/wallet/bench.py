"""A reference operator wallet in a background thread, a server playing on it, and the
operator's side of a launch (a signed session, the launch code traded for a token)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import httpx
import orjson
import uvicorn

from boundless.server.players.operator_sessions import OperatorLaunches
from boundless.wallet.demo_operator import Faults, Store, create_demo_operator
from boundless.wallet.operator_client import ClientSettings
from boundless.wallet.seamless import SeamlessWallets
from boundless.wallet.signing import REQUEST_HEADER, sign
from tests.server.live import Client, LiveServer, free_port, start_server, wait_until

SECRET = b"a-test-secret-shared-with-the-operator"


@dataclass
class Operator:
    url: str
    store: Store
    faults: Faults
    server: uvicorn.Server
    thread: threading.Thread

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)


@contextmanager
def operator_wallet(starting_balance: int = 100_000, **switches: Any) -> Iterator[Operator]:
    """The reference wallet; ``switches`` set its faults from the start (``debit_batch=False``
    for an operator without it: asked once when a server starts)."""
    store, faults = Store(starting_balance=starting_balance), Faults(**switches)
    app = create_demo_operator(SECRET, store, faults)
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_until(lambda: server.started, 30.0, "the operator wallet to start")
    operator = Operator(f"http://127.0.0.1:{port}", store, faults, server, thread)
    try:
        yield operator
    finally:
        operator.stop()


def seamless(operator: Operator, **settings: Any) -> SeamlessWallets:
    options = {"timeout_seconds": 1.0, "tries": 3, **settings}
    return SeamlessWallets(
        ClientSettings(operator.url, SECRET, **options), currency="EUR", delivery_seconds=0.1
    )


def seamless_server(data_dir: Path, wallets: SeamlessWallets, **options: Any) -> LiveServer:
    return start_server(
        data_dir,
        wallets=wallets,
        operator=OperatorLaunches(SECRET, "EUR"),
        starting_grant=0,
        **options,
    )


def launch(live: LiveServer, player_id: str, name: str = "Op") -> tuple[str, Client]:
    """The operator opens a session for its player; the player's browser trades the code."""
    body = orjson.dumps({"player_id": player_id, "name": name, "currency": "EUR", "language": "en"})
    opened = live.http.post(
        "/api/v1/operator/sessions",
        content=body,
        headers={REQUEST_HEADER: sign(SECRET, body), "Content-Type": "application/json"},
    )
    assert opened.status_code == 201, opened.text
    code = parse_qs(urlparse(opened.json()["launch_url"]).query)["launch"][0]
    launched = live.http.post("/api/v1/operator/launch", json={"code": code})
    assert launched.status_code == 200, launched.text
    again = live.http.post("/api/v1/operator/launch", json={"code": code})
    assert again.status_code == 401  # one time only
    client = live.client(launched.json()["token"])
    client.send_raw(orjson.dumps({"v": 1, "type": "hello", "token": client.token}).decode())
    client.wait_for("welcome", timeout=60)  # generous: the machine may be loaded
    return player_id, client


def settled_calls(wallets: SeamlessWallets, timeout: float = 60.0) -> None:
    """Wait until no credit or rollback is pending."""
    wait_until(lambda: wallets.pending_count() == 0, timeout, "pending wallet calls to go")


def post_faults(operator: Operator, **switches: Any) -> None:
    answer = httpx.post(f"{operator.url}/admin/faults", json=switches, timeout=5)
    assert answer.status_code == 200 and "error" not in answer.json(), answer.text


def bet_when_open(client: Client, amount: int, timeout: float = 30.0) -> dict[str, Any]:
    """A bet on spot 1, sent again (same id) until the betting window is open."""
    body = {"type": "bet", "table_id": "boundless-1", "bet_id": f"b{time.monotonic_ns()}"}
    body["bets"] = {"1": {"main": amount}}
    deadline = time.monotonic() + timeout
    while True:
        answer = client.request(body, timeout=timeout)
        if answer.get("error") != "wrong_phase" or time.monotonic() > deadline:
            return answer
        time.sleep(0.1)
