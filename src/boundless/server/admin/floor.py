"""The console's view of the floor: every table's phase, round, players and sockets."""

from __future__ import annotations

from typing import Any

from boundless.server.gateway.hub import Hub
from boundless.server.gateway.websocket import SocketConnection
from boundless.server.tables.desk import TableDesk


def open_sockets(hub: Hub) -> int:
    """WebSockets signed in (in-process bots are connections too, but not sockets)."""
    return sum(
        1
        for connections in hub.by_player.values()
        for connection in connections
        if isinstance(connection, SocketConnection)
    )


def table_row(table: TableDesk) -> dict[str, Any]:
    """A table's console row (``boundless serve``'s tables and a gateway's)."""
    round_ = table.round
    watchers = table.hub.watchers.get(table.table_id, set())
    return {
        "table_id": table.table_id,
        "title": table.rules.key,
        "name": table.name,
        "private": table.private,
        "owner": table.owner,
        "phase": None if round_ is None else round_.phase,
        "round_id": table.round_id,
        "round_no": table.round_no,
        "players": table.seated(),
        "sockets": sum(1 for c in watchers if isinstance(c, SocketConnection)),
        "watchers": len(watchers),
        "paused": table.paused,
        "pause_reason": table.pause_reason,
        "timer": table.timer(),
        "rounds_played": table.rounds_played,
    }
