"""Bot players that sit at shared tables and play through the same message handler as people.

A bot is an in-process client: it sends protocol JSON to :class:`MessageHandler` and reads the
same ``state``/``you``/``settled`` frames a browser reads. Its policies only see what a player
sees (its own hands, the dealer's up card, its legal actions).
"""

from __future__ import annotations

import asyncio
import logging
import random
import uuid
from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy.orm import Session, sessionmaker

from boundless.core.rules import RuleSet
from boundless.ledger import LedgerService, grant_key
from boundless.server.gateway.handler import MessageHandler
from boundless.server.gateway.hub import Connection
from boundless.server.messages import Frame
from boundless.server.players.service import PlayerService

log = logging.getLogger("boundless.server.bots")
BOT_NAMES = ("Ana", "Ben", "Cleo", "Dan", "Eve", "Finn", "Gus", "Hana", "Ivo", "Jun")
POLICIES = ("hit_to_17", "autoplay", "doubler", "side_bets", "cautious")
BET_IN_MINIMUMS = 10
TOP_UP_AMOUNT = 100_000


def choose_action(
    policy: str, hand: dict[str, Any], legal: list[str], up: str | None
) -> str | None:
    """What a bot does with the hand in play; ``None`` leaves it to the title's autoplay."""
    total = int(hand.get("total") or 0)
    cards = hand.get("cards") or []
    up_value = _value(up)
    choice: str | None
    if policy == "autoplay":
        return None
    if policy == "doubler":
        if "split" in legal:
            return "split"
        if "double" in legal and len(cards) == 2 and 9 <= total <= 11:
            return "double"
        choice = "hit" if total < 15 else "stand"
    elif policy == "cautious":
        if "surrender" in legal and total in (15, 16) and up_value in (9, 10):
            return "surrender"
        choice = "hit" if total < 12 else "stand"
    else:
        choice = "hit" if total < 17 else "stand"
    return choice if choice in legal else None


def _value(card: str | None) -> int:
    if not card:
        return 0
    rank = card[:-1]
    if rank == "A":
        return 1
    if rank in ("T", "10", "J", "Q", "K"):
        return 10
    return int(rank) if rank.isdigit() else 0


class BotConnection(Connection):
    def __init__(self, inbox: asyncio.Queue[dict[str, Any] | None]) -> None:
        super().__init__()
        self.inbox = inbox

    def push(self, frame: Frame) -> None:
        self.inbox.put_nowait(orjson.loads(frame.data))

    def close(self, reason: str) -> None:
        self.inbox.put_nowait(None)


@dataclass(slots=True)
class BotSeat:
    player_id: str
    name: str
    policy: str
    token: str


class Bot:
    def __init__(
        self,
        seat: BotSeat,
        table_id: str,
        rules: RuleSet,
        handler: MessageHandler,
        sessions: sessionmaker[Session],
        pace: float,
    ) -> None:
        self.seat = seat
        self.table_id = table_id
        self.rules = rules
        self.handler = handler
        self.sessions = sessions
        self.pace = pace
        self.inbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.connection = BotConnection(self.inbox)
        self.random = random.Random(seat.player_id)
        self.bet_round: str | None = None
        self.decided: set[tuple[str | None, int, int]] = set()
        self.state: dict[str, Any] = {}
        self.balance = 0
        self.rounds_settled = 0

    async def send(self, body: dict[str, Any]) -> None:
        await self.handler.handle_text(self.connection, orjson.dumps({"v": 1, **body}))

    async def run(self) -> None:
        await self.send({"type": "hello", "token": self.seat.token})
        await self.send({"type": "join", "table_id": self.table_id})
        try:
            while True:
                message = await self.inbox.get()
                if message is None:
                    break
                await self.on_message(message)
        finally:
            self.handler.forget(self.connection)

    async def _pause(self) -> None:
        await asyncio.sleep(self.random.uniform(0.2, 1.0) * self.pace)

    async def on_message(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "welcome":
            self.balance = int(message["player"]["balance"])
        elif kind == "state":
            self.state = message
            public = message.get("public") or {}
            round_id = message.get("round_id")
            betting = public.get("phase") == "betting" and not message.get("paused")
            if betting and round_id != self.bet_round:
                self.bet_round = round_id
                asyncio.get_running_loop().create_task(self._bet(round_id, public))
        elif kind == "you":
            asyncio.get_running_loop().create_task(self._decide(message))
        elif kind == "error" and message.get("error") == "table_paused":
            # a bet sent just as the table paused: bet again once the resume's state arrives
            # (else an empty round would wait for bets forever)
            if str(message.get("request_id")) == f"bet-{self.bet_round}":
                self.bet_round = None
        elif kind == "settled":
            self.rounds_settled += 1
            if message.get("balance") is not None:
                self.balance = int(message["balance"])
            self._top_up()

    def _top_up(self) -> None:
        if self.balance >= self.rules.limits.min_main_amount * BET_IN_MINIMUMS * 4:
            return
        with self.sessions.begin() as session:
            ledger = LedgerService(session)
            key = grant_key(self.seat.player_id, f"topup-{uuid.uuid4().hex[:12]}")
            ledger.grant(self.seat.player_id, TOP_UP_AMOUNT, key)
            self.balance = ledger.wallet_balance(self.seat.player_id)

    async def _bet(self, round_id: str | None, public: dict[str, Any]) -> None:
        await self._pause()
        limits = self.rules.limits
        main = min(limits.min_main_amount * BET_IN_MINIMUMS, limits.max_main_amount)
        amounts: dict[str, int] = {"main": main}
        if self.seat.policy == "side_bets":
            amounts = {}
            for key, left in (public.get("side_bets_rounds_left") or {}).items():
                bet = self.rules.side_bet(key)
                if bet is not None and (left is None or left > 0):
                    amounts[key] = bet.min_amount
            if not amounts:
                amounts = {"main": main}
        if sum(amounts.values()) > self.balance:
            return
        await self.send(
            {
                "type": "bet",
                "table_id": self.table_id,
                "bet_id": uuid.uuid4().hex,
                "bets": {"1": amounts},
                "request_id": f"bet-{round_id}",
            }
        )

    async def _decide(self, message: dict[str, Any]) -> None:
        public = self.state.get("public") or {}
        if public.get("phase") != "decisions":
            return
        step = int(public.get("step") or 0)
        round_id = message.get("round_id")
        up = ((public.get("dealer") or {}).get("cards") or [None])[0]
        for position in message["player"]["positions"]:
            legal = position.get("legal_actions") or []
            current = position.get("current_hand")
            if not legal or current is None:
                continue
            spot = int(position["spot"])
            if (round_id, spot, step) in self.decided:
                continue
            self.decided.add((round_id, spot, step))
            action = choose_action(self.seat.policy, position["hands"][current], legal, up)
            if action is None:
                continue
            await self._pause()
            await self.send(
                {
                    "type": "decide",
                    "table_id": self.table_id,
                    "spot": spot,
                    "step": step,
                    "action": action,
                }
            )


def bot_seats(
    sessions: sessionmaker[Session], table_id: str, count: int, grant: int
) -> list[BotSeat]:
    seats = []
    with sessions.begin() as session:
        service = PlayerService(session)
        for index in range(count):
            base = BOT_NAMES[index % len(BOT_NAMES)]
            name = f"Bot {base}" + ("" if index < len(BOT_NAMES) else f" {index // 10 + 1}")
            player_id = f"bot-{table_id}-{index + 1}"
            token = service.ensure_bot(player_id, name, grant)
            seats.append(BotSeat(player_id, name, POLICIES[index % len(POLICIES)], token))
    return seats
