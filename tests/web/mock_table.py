"""A scripted table for the browser: the page's WebSocket is answered by the test (Playwright's
``route_web_socket``), while titles and the account come from the real server. Each test sets
the moment it needs (a decision on three spots, an insurance offer, the dealer's draws) and
pushes the server's messages in the order the server sends them."""

from __future__ import annotations

import json
import time
from typing import Any

TABLE_ID = "boo-bucks-mock"
TITLE = "boo-bucks"
Message = dict[str, Any]


def now_ms() -> int:
    return int(time.time() * 1000)


def round_id(round_no: int, table: str = TABLE_ID) -> str:
    return f"{table}:{round_no}"


def state(
    phase: str,
    round_no: int,
    dealer: list[str],
    spots: dict[int, list[str]],
    *,
    hole_hidden: bool = False,
    timer: str | None = None,
    current_spot: int = 0,
    step: int = 0,
    side_bets: tuple[str, ...] = ("trifecta", "in_between"),
    table: str = TABLE_ID,
    title: str = TITLE,
) -> Message:
    total = None
    if dealer:
        values = [1 if c[0] == "A" else 10 if c[0] in "TJQK" else int(c[0]) for c in dealer]
        total = sum(values) + (10 if 1 in values and sum(values) + 10 <= 21 else 0)
    return {
        "type": "state",
        "table_id": table,
        "round_id": round_id(round_no, table),
        "round_no": round_no,
        "shoe_number": round_no,
        "public": {
            "phase": phase,
            "paused": False,
            "title": title,
            "rules_version": "mock",
            "round_in_shoe": 1,
            "current_spot": current_spot,
            "step": step,
            "dealer": {"cards": dealer, "hole_hidden": hole_hidden, "total": total},
            "spots": {
                str(spot): {"cards": cards, "step_cards": [], "step_takers": []}
                for spot, cards in spots.items()
            },
            "side_bets_rounds_left": {key: None for key in side_bets},
            "positions": len(spots),
        },
        "timer": None
        if timer is None
        else {"kind": timer, "deadline_ms": now_ms() + 600_000, "remaining_ms": None},
        "seated": 1,
        "paused": False,
        "server_ms": now_ms(),
    }


def position(
    spot: int,
    cards: list[str],
    *,
    legal: tuple[str, ...] = (),
    offer: str | None = None,
    outcome: str | None = None,
    payout: int | None = None,
    side_bets: dict[str, Message] | None = None,
    status: str = "deciding",
) -> Message:
    sides = side_bets or {}
    staked = 1000 + sum(side["stake"] for side in sides.values())
    paid = (payout or 0) + sum(side.get("payout") or 0 for side in sides.values())
    return {
        "spot": spot,
        "main": 1000,
        "current_hand": 0 if legal else None,
        "legal_actions": list(legal),
        "hands": [
            {
                "cards": cards,
                "total": 17,
                "bet": 1000,
                "status": status,
                "outcome": outcome,
                "payout": payout,
                "autoplayed": False,
                "rounded_off": "0",
                "decisions": [],
            }
        ],
        "insurance": None,
        "insurance_offer": offer,
        "side_bets": sides,
        "staked": staked,
        "paid": paid if outcome else 0,
    }


def you(
    phase: str, round_no: int, positions: list[Message], step: int = 0, table: str = TABLE_ID
) -> Message:
    return {
        "type": "you",
        "table_id": table,
        "round_id": round_id(round_no, table),
        "phase": phase,
        "step": step,
        "player": {"id": "mock", "free_coins": 90_000, "positions": positions},
        "balance": 90_000,
    }


def settled(
    round_no: int, positions: list[Message], balance: int = 91_000, table: str = TABLE_ID
) -> Message:
    staked = sum(p["staked"] for p in positions)
    paid = sum(p["paid"] for p in positions)
    return {
        "type": "settled",
        "table_id": table,
        "round_id": round_id(round_no, table),
        "results": positions,
        "staked": staked,
        "paid": paid,
        "net": paid - staked,
        "balance": balance,
    }


class MockSocket:
    """Answers the page's socket: welcome, acks, and ``initial`` on each resync."""

    def __init__(self, page: Any) -> None:
        self.initial: list[Message] = []
        self.sent: list[Message] = []  # what the page sent (after hello)
        self.route: Any = None
        page.route_web_socket("**/ws", self._connect)

    def _connect(self, route: Any) -> None:
        self.route = route
        route.on_message(lambda text: self._answer(json.loads(text)))

    def _send(self, message: Message) -> None:
        self.route.send(json.dumps(message))

    def _answer(self, message: Message) -> None:
        kind = message.get("type")
        if kind == "hello":
            player = {"player_id": "mock", "display_name": "Mock", "balance": 90_000}
            self._send(
                {"type": "welcome", "protocol": 1, "server_time_ms": now_ms(), "player": player}
            )
            return
        self.sent.append(message)
        table = message.get("table_id", TABLE_ID)
        self._send({"type": "ack", "request_id": message.get("request_id"), "table_id": table})
        if kind == "resync":
            for item in self.initial:
                self._send(item)

    def push(self, *messages: Message) -> None:
        for message in messages:
            self._send(message)
