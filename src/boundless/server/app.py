"""The ASGI app: migrations and recovery at start, tables and bots, REST, ``/ws``, web client."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import DataError, DBAPIError
from starlette.exceptions import HTTPException as StarletteHTTPException

from boundless.core.errors import RulesError
from boundless.core.random_source import RandomSource
from boundless.entropy import CryptoSource
from boundless.ledger import LedgerError, make_engine, make_session_factory
from boundless.server.admin.endpoints import metrics_router
from boundless.server.admin.endpoints import router as console_router
from boundless.server.admin.exact_figures import ExactFigures
from boundless.server.admin.floor import open_sockets
from boundless.server.admin.wallet_calls import router as wallet_router
from boundless.server.bots import Bot, bot_seats
from boundless.server.config import ServerConfig, quiet_transport_logs
from boundless.server.dependencies import ServerState
from boundless.server.errors import (
    BadMessageError,
    NotFoundError,
    ServerError,
    error_reply,
    http_reply,
    internal_reply,
    is_refusal,
)
from boundless.server.gateway.handler import MessageHandler
from boundless.server.gateway.hub import Hub
from boundless.server.gateway.websocket import WebSocketFront
from boundless.server.http_guards import BodyLimit, FaultGuard
from boundless.server.metrics import ServerMetrics
from boundless.server.openapi import document_errors
from boundless.server.players.endpoints import router as players_router
from boundless.server.players.operator_sessions import OperatorLaunches
from boundless.server.players.operator_sessions import router as operator_router
from boundless.server.players.signup_limit import SignUpLimit
from boundless.server.protection.endpoints import router as protection_router
from boundless.server.protection.gate import ProtectionGate
from boundless.server.protection.limited_wallet import LimitedWallets
from boundless.server.records.endpoints import router as records_router
from boundless.server.recovery import recover
from boundless.server.storage.database import migrated_engine
from boundless.server.tables.admin_endpoints import router as admin_router
from boundless.server.tables.endpoints import router as tables_router
from boundless.server.tables.private_endpoints import router as private_tables_router
from boundless.server.tables.registry import SHUTDOWN_SECONDS, TableRegistry
from boundless.server.titles import TitleCatalog
from boundless.wallet import INTERNAL, WalletProvider, close_wallets, start_wallets

log = logging.getLogger("boundless.server")
NUMERIC_OUT_OF_RANGE = "22003"
BODY_NOT_PARSED = 400
"""The only 400 the web framework answers by itself: "There was an error parsing the body"."""

PLACEHOLDER_PAGE = """<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Boundless</title></head>
<body><h1>Boundless server</h1><p>The web client is not installed in <code>web/</code> yet.</p>
<p>API: <a href="/api/v1/tables">/api/v1/tables</a>, <a href="/docs">/docs</a>;
WebSocket: <code>/ws</code> (see docs/protocol.md).</p></body></html>"""


def create_app(
    config: ServerConfig,
    catalog: TitleCatalog | None = None,
    randomness: Callable[[], RandomSource] = CryptoSource,
    wallets: WalletProvider = INTERNAL,
    operator: OperatorLaunches | None = None,
) -> WebSocketFront:
    """The server app. ``catalog`` and ``randomness`` are for tests (extra titles, seeded shoes);
    production uses the shipped titles and the OS CSPRNG. ``wallets``: the wallet port every
    player's coins move through (``internal``: our own ledger); ``operator``: the secret shared
    with an operator that opens its players' sessions (``/api/v1/operator/sessions``)."""
    titles = catalog or TitleCatalog.shipped(config.titles)
    signup_limit = SignUpLimit(config.signup_rate)  # a bad rate fails here, before serving
    metrics = ServerMetrics()  # this app's own registry, never the process-wide default

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        config.data_dir.mkdir(parents=True, exist_ok=True)
        engine = migrated_engine(config.resolved_database_url())
        sessions = make_session_factory(engine)
        read_engine = make_engine(config.resolved_database_url(), read_only=True)
        read_sessions = make_session_factory(read_engine)
        report = recover(sessions)
        if report.cancelled_rounds:
            log.warning("recovered: cancelled and refunded %s", ", ".join(report.cancelled_rounds))
        start_wallets(wallets, sessions)
        hub = Hub()
        # A bet passes the limits, then the wallet: one bet path whatever the wallet.
        limited = LimitedWallets(wallets)
        registry = TableRegistry(hub, sessions, config, titles, randomness, metrics, limited)
        metrics.watch_sockets(lambda: open_sockets(hub))
        gate = ProtectionGate(sessions, read_sessions, config.jurisdiction)
        handler = MessageHandler(
            registry,
            hub,
            read_sessions,
            config.messages_per_second,
            config.max_sockets_per_player,
            gate,
        )
        app.state.server = ServerState(config, sessions, read_sessions, registry, signup_limit)
        app.state.handler = handler
        app.state.recovery = report
        shared = registry.open_shared_tables()
        bot_tasks: list[asyncio.Task[None]] = []
        bots: list[Bot] = []
        pace = max(config.timers.scale, 0.01)
        for table in shared:
            for seat in bot_seats(sessions, table.table_id, config.bots, config.starting_grant):
                bot = Bot(seat, table.table_id, table.rules, handler, sessions, pace)
                bots.append(bot)
                bot_tasks.append(asyncio.get_running_loop().create_task(bot.run()))
        app.state.bots = bots
        stopping: list[asyncio.Task[None]] = []

        async def stop_tables() -> None:
            # Once, whoever asks first: the server before it closes the sockets (the players
            # are told of the refund), or the lifespan's end.
            if not stopping:
                stopping.append(asyncio.ensure_future(_stop(bot_tasks, registry)))
            await asyncio.shield(stopping[0])

        app.state.stop_tables = stop_tables
        try:
            yield
        finally:
            await gate.stop()
            await stop_tables()
            close_wallets(wallets)  # after the tables: their refunds are queued calls too
            engine.dispose()
            read_engine.dispose()

    routers = [players_router, tables_router, private_tables_router, records_router]
    routers += [admin_router, console_router, metrics_router, operator_router, wallet_router]
    routers += [protection_router]
    front = http_app(config, routers, metrics, lifespan)
    front.app.state.operator_launches = operator
    front.app.state.wallets = wallets
    front.app.state.exact_figures = ExactFigures()
    return front


async def _stop(bot_tasks: list[asyncio.Task[None]], registry: TableRegistry) -> None:
    for task in bot_tasks:
        task.cancel()
    await asyncio.gather(*bot_tasks, return_exceptions=True)
    await registry.stop(SHUTDOWN_SECONDS)


def http_app(
    config: ServerConfig,
    routers: Sequence[APIRouter],
    metrics: ServerMetrics,
    lifespan: Callable[[FastAPI], AbstractAsyncContextManager[None]] | None = None,
    title: str = "Boundless",
) -> WebSocketFront:
    """The HTTP side every Boundless server shares: the error shape, the body limit, the
    routers, ``/healthz``, the web client at ``/`` and ``/ws`` in front (``app.state.handler``
    answers the sockets). ``boundless serve`` and a cluster gateway differ only in routers and
    in what their lifespan (or their caller) puts in ``app.state``."""
    app = FastAPI(title=title, version="1", lifespan=lifespan)
    quiet_transport_logs()
    app.state.metrics = metrics
    install_error_handlers(app)
    app.add_middleware(BodyLimit, max_bytes=config.max_body_bytes)
    app.add_middleware(FaultGuard)  # added last: the outermost, it sees every fault
    for router in routers:
        app.include_router(router)
    document_errors(app)

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    web_dir = config.web_dir
    if (web_dir / "index.html").is_file():
        app.mount("/", StaticFiles(directory=web_dir, html=True), name="web")
    else:

        @app.get("/", include_in_schema=False)
        async def placeholder() -> HTMLResponse:
            return HTMLResponse(PLACEHOLDER_PAGE)

        if web_dir.is_dir():
            app.mount("/", StaticFiles(directory=web_dir), name="web")
    return WebSocketFront(app, count_error=metrics.count_error)


def install_error_handlers(app: FastAPI) -> None:
    """Every refusal becomes ``{"error", "detail"}`` with its status, mapped in errors.py."""

    async def refusal(_request: Request, error: Exception) -> JSONResponse:
        reply = error_reply(error)
        return JSONResponse(reply.body(), status_code=reply.status)

    async def malformed(_request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, RequestValidationError)
        parts = [
            f"{'.'.join(str(p) for p in item['loc'])}: {item['msg']}" for item in error.errors()[:5]
        ]
        reply = error_reply(BadMessageError("; ".join(parts)))
        return JSONResponse(reply.body(), status_code=reply.status)

    async def http_error(_request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, StarletteHTTPException)
        if error.status_code == BODY_NOT_PARSED:
            # FastAPI's own 400 for a body it could not read (bytes that are not UTF-8): a
            # malformed body, answered 422 like every other (docs/protocol.md)
            reply = error_reply(BadMessageError("the body is not valid JSON text (UTF-8)"))
            return JSONResponse(reply.body(), status_code=reply.status)
        reply = http_reply(error.status_code, str(error.detail))
        return JSONResponse(reply.body(), status_code=reply.status)

    async def beyond_range(request: Request, error: Exception) -> JSONResponse:
        # a lookup by a number the database cannot hold finds nothing; anything else is a fault
        if request.method not in ("GET", "HEAD") or not integer_out_of_range(error):
            log.error("unexpected error answering %s", request.url.path, exc_info=error)
            reply = internal_reply()
            return JSONResponse(reply.body(), status_code=reply.status)
        path = request.url.path
        shown = path if len(path) <= 120 else f"{path[:120]}... ({len(path)} characters)"
        reply = error_reply(NotFoundError(f"nothing at {shown}: a number is too large"))
        return JSONResponse(reply.body(), status_code=reply.status)

    async def database_error(request: Request, error: Exception) -> JSONResponse:
        # the ledger's database away is a refusal (503 ledger_unavailable); the rest a fault
        if not is_refusal(error):
            log.error("unexpected error answering %s", request.url.path, exc_info=error)
            reply = internal_reply()
            return JSONResponse(reply.body(), status_code=reply.status)
        return await refusal(request, error)

    for kind in (ServerError, RulesError, LedgerError):
        app.add_exception_handler(kind, refusal)
    app.add_exception_handler(DBAPIError, database_error)
    app.add_exception_handler(RequestValidationError, malformed)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(OverflowError, beyond_range)
    app.add_exception_handler(DataError, beyond_range)


def integer_out_of_range(error: Exception) -> bool:
    """A query parameter beyond the 64-bit integer columns: SQLite cannot bind it (Python's
    OverflowError), PostgreSQL refuses the cast (SQLSTATE 22003)."""
    if isinstance(error, OverflowError):
        return "too large to convert" in str(error)
    return getattr(getattr(error, "orig", None), "sqlstate", None) == NUMERIC_OUT_OF_RANGE
