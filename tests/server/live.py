"""A live server in a background thread, and a small WebSocket + REST client for the tests."""

from __future__ import annotations

import itertools
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from websockets.sync.client import ClientConnection, connect

from boundless.core.random_source import RandomSource, SeededSource
from boundless.jurisdictions import JurisdictionProfile
from boundless.ledger import LedgerService, check_books, make_engine, make_session_factory
from boundless.server.app import create_app
from boundless.server.config import (
    ServerConfig,
    TimerSettings,
    forwarded_options,
    transport_options,
)
from boundless.server.players.operator_sessions import OperatorLaunches
from boundless.server.serving import TablesFirstServer
from boundless.server.titles import TitleCatalog
from boundless.wallet import INTERNAL, WalletProvider

ADMIN_TOKEN = "test-admin-token"
FAST_TIMERS = TimerSettings(
    betting_seconds=0.5,
    insurance_seconds=0.3,
    decision_seconds=2.0,
    round_gap_seconds=0.1,
)
# The timers of the tests that seat bots.
BOT_TIMERS = TimerSettings(
    scale=0.2,
    betting_seconds=1.0,
    insurance_seconds=0.5,
    decision_seconds=2.0,
    round_gap_seconds=0.5,
)
Message = dict[str, Any]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until(
    condition: Callable[[], bool], timeout: float = 10.0, what: str = "", every: float = 0.02
) -> None:
    """Poll ``condition`` every ``every`` seconds until it holds; fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what or condition}")


@dataclass
class LiveServer:
    base_url: str
    ws_url: str
    database_url: str
    config: ServerConfig
    server: uvicorn.Server
    thread: threading.Thread
    http: httpx.Client = field(init=False)

    def __post_init__(self) -> None:
        self.http = httpx.Client(base_url=self.base_url, timeout=10.0)

    @property
    def app_state(self) -> Any:
        return self.server.config.app.state  # type: ignore[attr-defined]

    def table(self, table_id: str = "boundless-1") -> Any:
        return self.app_state.server.registry.get(table_id)

    def sign_up(self, name: str = "Ana") -> Message:
        answer = self.http.post("/api/v1/players", json={"display_name": name})
        assert answer.status_code == 201, answer.text
        return dict(answer.json())

    def admin(self, action: str, table_id: str = "boundless-1", **body: Any) -> httpx.Response:
        return self.http.post(
            f"/api/v1/admin/tables/{table_id}/{action}",
            json=body or None,
            headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        )

    def client(self, token: str) -> Client:
        return Client(connect(self.ws_url, max_size=2**24, compression=None).__enter__(), token)

    def seated(self, name: str, table_id: str = "boundless-1") -> tuple[Message, Client]:
        """A new player (as signed up) and their socket: said hello and joined ``table_id``."""
        player = self.sign_up(name)
        client = self.client(player["token"])
        client.hello()
        client.request({"type": "join", "table_id": table_id})
        return player, client

    def stop(self) -> None:
        self.http.close()
        self.server.should_exit = True
        self.thread.join(timeout=15)


@contextmanager
def serving(data_dir: Path, **options: Any) -> Iterator[LiveServer]:
    """A live server (``options``: :func:`start_server`'s) for the ``with`` block, stopped after
    it however it ends."""
    live = start_server(data_dir, **options)
    try:
        yield live
    finally:
        live.stop()


def served(**options: Any) -> Any:
    """A pytest fixture: a live server for each test (``options``: :func:`start_server`'s) in
    the test's ``tmp_path``. Name it by assignment: ``live = served(bots=2)``."""

    @pytest.fixture
    def live_server(tmp_path: Path) -> Iterator[LiveServer]:
        with serving(tmp_path, **options) as live:
            yield live

    return live_server


def start_server(
    data_dir: Path,
    *,
    database_url: str | None = None,
    bots: int = 0,
    timers: TimerSettings = FAST_TIMERS,
    seed: int | None = 7,
    catalog: TitleCatalog | None = None,
    starting_grant: int = 100_000,
    messages_per_second: float = 1000.0,
    signup_rate: str = "1000/minute",
    max_sockets_per_player: int = 8,
    randomness: Callable[[], RandomSource] | None = None,
    jurisdiction: JurisdictionProfile | None = None,
    web_dir: Path | None = None,
    forwarded_allow_ips: str | None = None,
    wallets: WalletProvider = INTERNAL,
    operator: OperatorLaunches | None = None,
) -> LiveServer:
    port = free_port()
    config = ServerConfig(
        port=port,
        data_dir=data_dir,
        database_url=database_url,
        bots=bots,
        admin_token=ADMIN_TOKEN,
        timers=timers,
        web_dir=web_dir or data_dir / "no-web",
        starting_grant=starting_grant,
        messages_per_second=messages_per_second,
        signup_rate=signup_rate,
        max_sockets_per_player=max_sockets_per_player,
        forwarded_allow_ips=forwarded_allow_ips,
    )
    if jurisdiction is not None:
        config = replace(config, jurisdiction=jurisdiction)
    if randomness is not None:
        app = create_app(config, catalog, randomness, wallets, operator)
    elif seed is None:
        app = create_app(config, catalog, wallets=wallets, operator=operator)
    else:
        seeds = itertools.count(seed)
        app = create_app(config, catalog, lambda: SeededSource(next(seeds)), wallets, operator)
    server = TablesFirstServer(
        uvicorn.Config(
            app,
            host="127.0.0.1",
            port=port,
            log_level="warning",
            lifespan="on",
            **transport_options(),
            **forwarded_options(config.forwarded_allow_ips),
        ),
        app,
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_until(lambda: server.started, 30.0, "the server to start")
    return LiveServer(
        f"http://127.0.0.1:{port}",
        f"ws://127.0.0.1:{port}/ws",
        config.resolved_database_url(),
        config,
        server,
        thread,
    )


def serve_process(
    data_dir: Path, port: int, log: Path, options: list[str]
) -> subprocess.Popen[bytes]:
    """``boundless serve`` in its own process (output appended to ``log``), once it answers."""
    command = [sys.executable, "-m", "boundless.cli.main", "serve", "--port", str(port)]
    command += ["--data-dir", str(data_dir), "--log-level", "warning", *options]
    env = {key: value for key, value in os.environ.items() if key != "BOUNDLESS_DATABASE_URL"}
    process = subprocess.Popen(command, stdout=log.open("ab"), stderr=subprocess.STDOUT, env=env)

    def up() -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    wait_until(up, 60, "boundless serve to answer")
    return process


def socket_client(port: int, token: str, table_id: str = "boundless-1") -> Client:
    """A player's socket to a server on ``port``: said hello and joined ``table_id``."""
    client = Client(connect(f"ws://127.0.0.1:{port}/ws").__enter__(), token)
    client.hello()
    client.request({"type": "join", "table_id": table_id})
    return client


def assert_books(database_url: str, wallets: dict[str, int] | None = None) -> None:
    """The ledger balances (``check_books``) and each named wallet holds exactly its coins."""
    engine = make_engine(database_url)
    try:
        with make_session_factory(engine).begin() as session:
            report = check_books(session)
            assert report.ok, report.summary()
            ledger = LedgerService(session)
            for player_id, balance in (wallets or {}).items():
                assert ledger.wallet_balance(player_id) == balance, player_id
    finally:
        engine.dispose()


class Client:
    """One player's socket: send protocol messages, read what comes back (kept in order)."""

    def __init__(self, socket: ClientConnection, token: str) -> None:
        self.socket = socket
        self.token = token
        self.seen: list[Message] = []
        self._counter = itertools.count(1)

    def send(self, body: Message) -> str:
        request_id = body.get("request_id") or f"r{next(self._counter)}"
        self.socket.send(json.dumps({"v": 1, "request_id": request_id, **body}))
        return str(request_id)

    def send_raw(self, text: str) -> None:
        self.socket.send(text)

    def recv(self, timeout: float = 10.0) -> Message:
        message: Message = json.loads(self.socket.recv(timeout=timeout))
        self.seen.append(message)
        return message

    def wait_for(
        self, kind: str, where: Callable[[Message], bool] = lambda _: True, timeout: float = 15.0
    ) -> Message:
        return self._first(
            lambda message: message.get("type") == kind and where(message),
            timeout,
            f"no {kind!r} message within {timeout}s",
        )

    def answer(self, request_id: str, timeout: float = 10.0) -> Message:
        return self._first(
            lambda message: (
                message.get("type") in ("ack", "error") and message.get("request_id") == request_id
            ),
            timeout,
            f"no answer to {request_id!r}",
        )

    def _first(self, where: Callable[[Message], bool], timeout: float, failure: str) -> Message:
        """The first message received that ``where`` accepts; AssertionError(failure) on time."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(failure)
            message = self.recv(left)
            if where(message):
                return message

    def hello(self) -> Message:
        self.socket.send(json.dumps({"v": 1, "type": "hello", "token": self.token}))
        return self.wait_for("welcome")

    def request(self, body: Message, timeout: float = 10.0) -> Message:
        return self.answer(self.send(body), timeout)

    def close(self) -> None:
        self.socket.close()


def open_private_table(live: LiveServer, title: str, name: str) -> tuple[Message, Client, str]:
    """A new player opens a private table of ``title`` and joins it: (player, socket, table)."""
    player = live.sign_up(name)
    headers = {"Authorization": f"Bearer {player['token']}"}
    created = live.http.post("/api/v1/tables", json={"title": title}, headers=headers)
    assert created.status_code == 201, created.text
    table_id = str(created.json()["table_id"])
    client = live.client(player["token"])
    client.hello()
    assert client.request({"type": "join", "table_id": table_id})["type"] == "ack"
    return player, client, table_id


def bet(client: Client, amount: int = 1000, table_id: str = "boundless-1", **extra: Any) -> Message:
    """Bet on spot 1; between rounds, wait for the next betting window and bet there."""
    bet_id = extra.pop("bet_id", f"b{time.monotonic_ns()}")
    body = {
        "type": "bet",
        "table_id": table_id,
        "bet_id": bet_id,
        "bets": {"1": {"main": amount, **extra}},
    }
    for _ in range(3):
        answer = client.request(body)
        if answer.get("error") != "wrong_phase":
            return answer
        client.wait_for("state", lambda m: (m.get("public") or {}).get("phase") == "betting")
    return answer


def play_to_settlement(
    client: Client,
    policy: Callable[[Message], str | None] = lambda _: "stand",
    since: int | None = None,
) -> Message:
    """Answer insurance (decline) and decisions with ``policy`` until ``settled`` arrives.

    ``since`` is an index into ``client.seen``: a ``settled`` received from there on while the
    test waited for something else (a request's answer) is returned at once.
    """
    if since is not None:
        for message in client.seen[since:]:
            if message.get("type") == "settled":
                return message
    state: Message = {}
    decided: set[tuple[str, int]] = set()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        message = client.recv(30)
        kind = message.get("type")
        if kind == "settled":
            return message
        if kind == "state":
            state = message
        if kind != "you" or not state.get("public"):
            continue
        public = state["public"]
        if public["phase"] != "decisions":
            continue
        for position in message["player"]["positions"]:
            key = (str(message["round_id"]), int(public["step"]))
            if position["legal_actions"] and key not in decided:
                action = policy(position)
                if action is None:
                    continue
                decided.add(key)
                client.send(
                    {
                        "type": "decide",
                        "table_id": message["table_id"],
                        "spot": position["spot"],
                        "step": public["step"],
                        "action": action if action in position["legal_actions"] else "stand",
                    }
                )
    raise AssertionError("the round did not settle in time")
