"""A gateway's HTTP face: what ``boundless serve`` offers a player, for the cluster's one table.

Sign-up and ``/api/v1/me``, the lobby and the titles, the shoes, the play record, ``/ws``
(protocol version 1, answered by the same message handler as ``boundless serve``'s) and the web
client; ``GET /api/cluster`` says where this gateway stands in the table's round, ``/readyz``
whether it can serve the table now (``gateway_health``). For the operator (``serve``'s admin
token): ``/metrics`` (this process's), the console's returns and ledger check, and the table's
admin routes, whose pause, resume and cancel go to the coordinator (``control_endpoints``).
Not here: private tables (refused with ``conflict``).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from boundless.server.admin.endpoints import metrics_router
from boundless.server.admin.endpoints import router as console_router
from boundless.server.admin.exact_figures import ExactFigures
from boundless.server.admin.floor import open_sockets
from boundless.server.admin.wallet_calls import router as wallet_router
from boundless.server.app import http_app
from boundless.server.cluster.bus import Bus
from boundless.server.cluster.control_endpoints import router as control_router
from boundless.server.cluster.gateway import Gateway
from boundless.server.cluster.gateway_health import health_router
from boundless.server.cluster.gateway_table import GatewayTable
from boundless.server.config import ServerConfig
from boundless.server.dependencies import ServerState
from boundless.server.errors import ConflictError
from boundless.server.gateway.handler import MessageHandler
from boundless.server.gateway.websocket import WebSocketFront
from boundless.server.metrics import ServerMetrics
from boundless.server.players.endpoints import router as players_router
from boundless.server.players.operator_sessions import OperatorLaunches
from boundless.server.players.operator_sessions import router as operator_router
from boundless.server.players.service import PlayerIdentity
from boundless.server.players.shared_signup_limit import SharedSignUpLimit
from boundless.server.protection.endpoints import router as protection_router
from boundless.server.protection.gate import ProtectionGate
from boundless.server.records.endpoints import router as records_router
from boundless.server.tables.endpoints import router as tables_router
from boundless.server.tables.registry import TableRegistry
from boundless.server.tables.table import Table
from boundless.server.titles import TitleCatalog


class ClusterLobby(TableRegistry):
    """The lobby of a gateway: the cluster's one table (its runner lives in the coordinator, so
    this registry opens no table of its own); private tables are not offered."""

    def __init__(
        self,
        table: GatewayTable,
        sessions: sessionmaker[Session],
        config: ServerConfig,
        catalog: TitleCatalog,
    ) -> None:
        super().__init__(table.hub, sessions, config, catalog)
        self.table = table

    def lobby(self, viewer: str | None = None) -> list[dict[str, object]]:
        return self.table.lobby(viewer)

    def create_private(self, owner: PlayerIdentity, title: str, side_bets: Any) -> Table:
        raise ConflictError("a cluster gateway plays its one shared table; no private tables")


def create_gateway_app(
    gateway: Gateway,
    bus: Bus,
    table: GatewayTable,
    config: ServerConfig,
    sessions: sessionmaker[Session],
    read_sessions: sessionmaker[Session],
    operator: OperatorLaunches | None = None,
) -> WebSocketFront:
    """``operator``: the secret shared with an operator that launches its players here."""
    status = health_router(gateway, bus, table, read_sessions)
    metrics = ServerMetrics()
    routers = [players_router, tables_router, records_router, status]
    routers += [control_router, console_router, metrics_router, operator_router, wallet_router]
    routers += [protection_router]
    front = http_app(config, routers, metrics, title=f"Boundless gateway {gateway.name}")
    front.app.state.operator_launches = operator
    front.app.state.wallets = table.wallets
    front.app.state.exact_figures = ExactFigures()
    front.app.state.cluster_table, front.app.state.cluster_bus = table, bus
    metrics.watch_sockets(lambda: open_sockets(table.hub))
    catalog = TitleCatalog({table.rules.key: (table.rules, table.chart)})
    lobby = ClusterLobby(table, sessions, config, catalog)
    signups = SharedSignUpLimit(config.signup_rate, sessions)
    front.app.state.server = ServerState(config, sessions, read_sessions, lobby, signups)
    front.app.state.handler = MessageHandler(
        table,
        table.hub,
        read_sessions,
        config.messages_per_second,
        config.max_sockets_per_player,
        ProtectionGate(sessions, read_sessions, config.jurisdiction),
    )
    table.metrics = metrics
    return front
