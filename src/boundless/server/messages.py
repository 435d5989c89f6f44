"""Server → client messages (protocol version 1) and their one serialisation.

Broadcasts are serialised and framed once with :func:`encode` and the same bytes go to every
socket.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import orjson

from boundless.core.round import RoundState
from boundless.core.round.results import position_result
from boundless.core.round.views import position_view
from boundless.server.clock import now_ms
from boundless.server.errors import ErrorReply
from boundless.server.players.service import PlayerIdentity

Message = dict[str, Any]


def encode(message: Message) -> bytes:
    """The message as the RFC 6455 text frame a server sends (FIN, opcode 1, unmasked),
    serialised and framed once for every socket that receives it. Plain ``bytes``: thousands of
    frames waiting in the outbox are nothing the garbage collector has to look at."""
    data = orjson.dumps(message)
    length = len(data)
    if length < 126:
        header = bytes((0x81, length))
    elif length < 1 << 16:
        header = bytes((0x81, 126)) + length.to_bytes(2, "big")
    else:
        header = bytes((0x81, 127)) + length.to_bytes(8, "big")
    return header + data


def payload(wire: bytes) -> bytes:
    """The JSON text inside a frame made by :func:`encode`."""
    marker = wire[1]
    return wire[2 if marker < 126 else 4 if marker == 126 else 10 :]


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


def state(
    table_id: str,
    round_id: str | None,
    round_no: int,
    shoe_number: int,
    public: dict[str, Any] | None,
    timer: dict[str, Any] | None,
    seated: int,
    paused: bool,
) -> Message:
    """The table's public state (broadcast to every watcher after each change)."""
    return {
        "type": "state",
        "table_id": table_id,
        "round_id": round_id,
        "round_no": round_no,
        "shoe_number": shoe_number,
        "public": public,
        "timer": timer,
        "seated": seated,
        "paused": paused,
        "server_ms": now_ms(),
    }


def step(
    table_id: str,
    round_id: str | None,
    spot: int,
    step: int,
    card: str | None,
    takers: int,
    closed_ms: int,
) -> Message:
    """A closed step's card (``None``: nobody took one), sent before the new state."""
    return {
        "type": "step",
        "table_id": table_id,
        "round_id": round_id,
        "spot": spot,
        "step": step,
        "card": card,
        "takers": takers,
        "closed_ms": closed_ms,
        "sent_ms": now_ms(),
    }


def settled(
    table_id: str,
    round_id: str | None,
    results: list[dict[str, Any]],
    staked: int,
    paid: int,
    balance: int | None,
    cancelled: str | None = None,
) -> Message:
    """A player's end of a round; ``cancelled`` (the reason) only when it was cancelled."""
    message: Message = {
        "type": "settled",
        "table_id": table_id,
        "round_id": round_id,
        "results": results,
        "staked": staked,
        "paid": paid,
        "net": paid - staked,
        "balance": balance,
    }
    if cancelled is not None:
        message["cancelled"] = cancelled
    return message


def player_part(round_: RoundState, player_id: str) -> dict[str, Any]:
    """The core's ``player_view(...)["player"]`` without building the public part again."""
    return ViewCache(round_).player_part(player_id)


class ViewCache:
    """Position views of one moment of a round, shared by positions that look the same.

    At a shared table thousands of positions share a path, a stake and enough coins; their
    views are equal, so each distinct one is built once (by the core's ``position_view``). The
    key holds everything a view depends on: the path node, stakes, insurance, payments, the
    pending decision, wheel results, and the free coins up to twice the main bet (the most any
    legal-action or insurance check compares them with). Build a new cache after any change.
    """

    def __init__(self, round_: RoundState) -> None:
        self.round = round_
        self.views: dict[tuple[Any, ...], dict[str, Any]] = {}
        self.wheel_keys = [bet.key for bet in round_.rules.side_bets if bet.wheel is not None]

    def _key(self, position: int) -> tuple[Any, ...]:
        return self.round.view_key(position, self.wheel_keys)

    def position(self, position: int) -> dict[str, Any]:
        key = self._key(position)
        view = self.views.get(key)
        if view is None:
            view = position_view(self.round, position_result(self.round, position), position)
            self.views[key] = view
        return view

    def player_part(self, player_id: str) -> dict[str, Any]:
        round_ = self.round
        return {
            "id": player_id,
            "free_coins": round_.player_free_coins(player_id),
            "positions": [self.position(p) for p in round_.positions_of(player_id)],
        }

    def positions(self, positions: np.ndarray) -> list[dict[str, Any]]:
        """:meth:`position` of many positions at once: their keys compared as rows of the
        round's columns (one numpy pass), each distinct view built once by :meth:`position`."""
        if self.wheel_keys or not len(positions):  # wheel results live outside the columns
            return [self.position(p) for p in positions.tolist()]
        book = self.round.book
        main = book.main[positions].astype(np.int64)
        free = book.free[book.player[positions]].astype(np.int64)
        rows = np.column_stack(
            [
                book.spot[positions],
                book.node[positions],
                main,
                book.sides[positions].reshape(len(positions), -1),
                book.insurance[positions],
                book.even_money[positions],
                book.extra[positions],
                book.paid[positions],
                book.pending[positions],
                np.minimum(free, 2 * main),
            ]
        ).astype(np.int64)
        _, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
        distinct = [self.position(p) for p in positions[first].tolist()]
        return [distinct[k] for k in inverse.reshape(-1).tolist()]

    def player_parts(self, player_ids: Sequence[str]) -> list[dict[str, Any] | None]:
        """:meth:`player_part` of many players at once (None: a player without a position)."""
        book = self.round.book
        indices = [book.player_index(player_id) for player_id in player_ids]
        known = np.array([i for i in indices if i is not None], dtype=np.int64)
        table = book.position_table()[known]
        held = table >= 0
        views = iter(self.positions(table[held]))  # row by row, in spot order
        counts = held.sum(axis=1).tolist()
        free = book.free[known].tolist()
        parts: list[dict[str, Any] | None] = []
        row = 0
        for player_id, index in zip(player_ids, indices, strict=True):
            if index is None:
                parts.append(None)
                continue
            positions = [next(views) for _ in range(counts[row])]
            parts.append({"id": player_id, "free_coins": free[row], "positions": positions})
            row += 1
        return parts


def you(
    table_id: str,
    round_id: str,
    part: dict[str, Any],
    balance: int | None,
    phase: str,
    step: int,
) -> Message:
    """A player's own part; ``phase`` and ``step`` say which step its legal actions are for."""
    return {
        "type": "you",
        "table_id": table_id,
        "round_id": round_id,
        "phase": phase,
        "step": step,
        "player": part,
        "balance": balance,
    }
