"""Server → client messages (protocol version 1) and their one serialisation.

Broadcasts are serialised once with :func:`encode` and the same text goes to every socket.
"""

from __future__ import annotations

from typing import Any

import orjson

from boundless.core.round import SharedRound
from boundless.core.round.results import position_result
from boundless.core.round.views import position_view
from boundless.server.clock import now_ms
from boundless.server.errors import ErrorReply
from boundless.server.players.service import PlayerIdentity

Message = dict[str, Any]


def encode(message: Message) -> str:
    return orjson.dumps(message).decode("utf-8")


def welcome(player: PlayerIdentity, balance: int) -> Message:
    return {
        "type": "welcome",
        "protocol": 1,
        "server_time_ms": now_ms(),
        "player": {
            "player_id": player.player_id,
            "display_name": player.display_name,
            "balance": balance,
        },
    }


def ack(request_id: str | None, **fields: Any) -> Message:
    return {"type": "ack", "request_id": request_id, **fields}


def error(request_id: str | None, reply: ErrorReply) -> Message:
    return {"type": "error", "request_id": request_id, **reply.body()}


def notice(table_id: str, kind: str, detail: Any) -> Message:
    return {"type": "notice", "table_id": table_id, "kind": kind, "detail": detail}


def player_part(round_: SharedRound, player_id: str) -> dict[str, Any]:
    """The core's ``player_view(...)["player"]`` without building the public part again."""
    index = round_.book.player_index(player_id)
    return {
        "id": player_id,
        "free_coins": None if index is None else int(round_.book.free[index]),
        "positions": [
            position_view(round_, position_result(round_, position), position)
            for position in round_.positions_of(player_id)
        ],
    }


def you(
    table_id: str, round_id: str, round_: SharedRound, player_id: str, balance: int | None
) -> Message:
    return {
        "type": "you",
        "table_id": table_id,
        "round_id": round_id,
        "player": player_part(round_, player_id),
        "balance": balance,
    }
