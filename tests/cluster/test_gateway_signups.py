"""The sign-up rate limit holds across a cluster's gateways: they count recent sign-ups by
client address in the shared database, and refuse with ``boundless serve``'s error and words."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import make_engine, make_session_factory
from boundless.ledger.database import upgrade_database
from boundless.server.cluster import MemoryBus
from boundless.server.cluster.gateway import Gateway
from boundless.server.cluster.gateway_app import create_gateway_app
from boundless.server.cluster.processes import GatewaySettings, gateway_server_config
from boundless.server.config import ServerConfig
from boundless.server.errors import RateLimitedError
from boundless.server.players.shared_signup_limit import SharedSignUpLimit
from boundless.server.storage.database import upgrade_server_database
from boundless.server.storage.models import Player
from tests.cluster.players import gateway_players, ledger_sessions
from tests.cluster.test_gateway_app import serving
from tests.postgres import postgres_schema


@pytest.fixture
def sessions(tmp_path: Path) -> sessionmaker[Session]:
    return ledger_sessions(tmp_path)


@pytest.fixture
def pg_sessions() -> Iterator[sessionmaker[Session]]:
    with postgres_schema("signups") as url:
        engine = make_engine(url)
        upgrade_database(engine)
        upgrade_server_database(engine)
        yield make_session_factory(engine)
        engine.dispose()


def test_two_gateways_share_one_sign_up_limit(sessions: sessionmaker[Session]) -> None:
    config = ServerConfig(signup_rate="3/minute")
    bus = MemoryBus()
    with ExitStack() as stack:
        https = []
        for name in ("gateway-1", "gateway-2"):
            players = gateway_players(sessions, "boundless-1", name)
            gateway = Gateway(bus, "boundless-1", name, players.new_slice, watcher=players.table)
            app = create_gateway_app(gateway, bus, players.table, config, sessions, sessions)
            port = stack.enter_context(serving(app))
            https.append(stack.enter_context(httpx.Client(base_url=f"http://127.0.0.1:{port}")))
        with sessions.begin() as session:
            before = session.scalar(select(func.count()).select_from(Player))
        for http, name in ((https[0], "A"), (https[1], "B"), (https[0], "C")):
            assert http.post("/api/v1/players", json={"display_name": name}).status_code == 201
        refused = https[1].post("/api/v1/players", json={"display_name": "D"})
        assert refused.status_code == 429
        body = refused.json()
        assert body["error"] == "rate_limited"
        assert body["detail"].startswith("at most 3 sign-ups per minute from one address; try")
        with sessions.begin() as session:  # the refused sign-up made nobody
            assert session.scalar(select(func.count()).select_from(Player)) == before + 3


def test_concurrent_sign_ups_from_one_address_count_exactly_on_postgres(
    pg_sessions: sessionmaker[Session],
) -> None:
    """Two limits (two gateways) on one PostgreSQL, eight sign-ups at once from one address:
    exactly the rate passes, the rest are refused, another address is untouched."""
    limits = [SharedSignUpLimit("5/minute;50/day", pg_sessions) for _ in range(2)]
    passed: list[int] = []
    refused: list[str] = []
    start = threading.Barrier(8)

    def sign_up(index: int) -> None:
        start.wait()
        try:
            limits[index % 2].check("10.0.0.7")
            passed.append(index)
        except RateLimitedError as error:
            refused.append(str(error))

    threads = [threading.Thread(target=sign_up, args=(index,)) for index in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(passed) == 5 and len(refused) == 3
    assert all("at most 5 sign-ups per minute from one address" in text for text in refused)
    limits[0].check("10.0.0.8")


def test_a_bad_rate_is_refused_with_serve_words(sessions: sessionmaker[Session]) -> None:
    with pytest.raises(ValueError, match="sign-up rate 'lots' is not a rate"):
        SharedSignUpLimit("lots", sessions)


@pytest.mark.parametrize(("allow_ips", "passed"), [(None, 2), ("127.0.0.1", 4)])
def test_a_gateway_believes_forwarded_addresses_only_from_named_proxies(
    sessions: sessionmaker[Session], allow_ips: str | None, passed: int
) -> None:
    """The gateway's own uvicorn settings (``--forwarded-allow-ips``, default none): spoofed
    ``X-Forwarded-For`` from one peer shares that peer's sign-up limit; a named proxy is
    believed."""
    config = ServerConfig(signup_rate="2/minute")
    bus = MemoryBus()
    players = gateway_players(sessions, "boundless-1", "gateway-1")
    gateway = Gateway(bus, "boundless-1", "gateway-1", players.new_slice, watcher=players.table)
    app = create_gateway_app(gateway, bus, players.table, config, sessions, sessions)
    uvicorn_config = gateway_server_config(
        app, GatewaySettings(forwarded_allow_ips=allow_ips), port=0
    )
    uvicorn_config.load()  # wraps the app as the gateway's server does

    async def sign_ups() -> list[int]:
        transport = httpx.ASGITransport(app=uvicorn_config.loaded_app, client=("127.0.0.1", 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as http:
            return [
                (
                    await http.post(
                        "/api/v1/players",
                        json={"display_name": f"P{n}"},
                        headers={"X-Forwarded-For": f"203.0.113.{n}"},
                    )
                ).status_code
                for n in range(4)
            ]

    answers = asyncio.run(sign_ups())
    assert answers.count(201) == passed, answers
    assert answers.count(429) == 4 - passed, answers
