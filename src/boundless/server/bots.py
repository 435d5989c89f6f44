"""Bot players that sit at shared tables and play through the same message handler as people.

A bot is an in-process client: it sends protocol JSON to :class:`MessageHandler` and reads the
same ``state``/``you``/``settled`` frames a browser reads. Its policy is one of the core's
(:mod:`boundless.core.bots`) and only sees what a player sees (its own hands, the dealer's up
card, its legal actions).
"""

from __future__ import annotations

import asyncio
import logging
import random
import uuid
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy.orm import Session, sessionmaker

from boundless.core.bots import BASE_BET_IN_MINIMUMS, TRAITS, Policy, decide, lineup, parse_sight
from boundless.core.rules import RuleSet
from boundless.ledger import LedgerService, grant_key
from boundless.server.gateway.handler import MessageHandler
from boundless.server.gateway.hub import Connection
from boundless.server.messages import payload
from boundless.server.players.service import PlayerService

log = logging.getLogger("boundless.server.bots")
TOP_UP_AMOUNT = 100_000


class BotConnection(Connection):
    def __init__(self, inbox: asyncio.Queue[dict[str, Any] | None]) -> None:
        super().__init__()
        self.inbox = inbox

    def push(self, wire: bytes) -> None:
        self.inbox.put_nowait(orjson.loads(payload(wire)))

    def close(self, reason: str) -> None:
        self.inbox.put_nowait(None)


@dataclass(slots=True)
class BotSeat:
    player_id: str
    name: str
    policy: Policy
    token: str


@dataclass(eq=False)
class Bot:
    seat: BotSeat
    table_id: str
    rules: RuleSet
    handler: MessageHandler
    sessions: sessionmaker[Session]
    pace: float
    inbox: asyncio.Queue[dict[str, Any] | None] = field(init=False, default_factory=asyncio.Queue)
    connection: BotConnection = field(init=False)
    random: random.Random = field(init=False)
    bet_round: str | None = field(init=False, default=None)
    decided: set[tuple[str | None, int, int]] = field(init=False, default_factory=set)
    insured: set[tuple[str | None, int]] = field(init=False, default_factory=set)
    tasks: set[asyncio.Task[None]] = field(init=False, default_factory=set)
    state: dict[str, Any] = field(init=False, default_factory=dict)
    balance: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        self.connection = BotConnection(self.inbox)
        self.random = random.Random(self.seat.player_id)

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
            for task in list(self.tasks):
                task.cancel()
            self.handler.forget(self.connection)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` beside the inbox loop (a pause must not hold the next frame); kept
        referenced until done, and cancelled when the bot stops."""
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

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
                self._spawn(self._bet(round_id, public))
        elif kind == "you":
            if message.get("phase") == "insurance":
                self._spawn(self._insure(message))
            else:
                self._spawn(self._decide(message))
        elif kind == "error" and message.get("error") == "table_paused":
            # a bet sent just as the table paused: bet again once the resume's state arrives
            # (else an empty round would wait for bets forever)
            if str(message.get("request_id")) == f"bet-{self.bet_round}":
                self.bet_round = None
        elif kind == "settled":
            if message.get("balance") is not None:
                self.balance = int(message["balance"])
            self._top_up()

    def _top_up(self) -> None:
        if self.balance >= self.rules.limits.min_main_amount * BASE_BET_IN_MINIMUMS * 4:
            return
        with self.sessions.begin() as session:
            ledger = LedgerService(session)
            key = grant_key(self.seat.player_id, f"topup-{uuid.uuid4().hex[:12]}")
            ledger.grant(self.seat.player_id, TOP_UP_AMOUNT, key)
            self.balance = ledger.wallet_balance(self.seat.player_id)

    async def _bet(self, round_id: str | None, public: dict[str, Any]) -> None:
        await self._pause()
        limits, traits = self.rules.limits, TRAITS[self.seat.policy]
        main = min(
            limits.min_main_amount * BASE_BET_IN_MINIMUMS * max(traits.main_multiple, 1),
            limits.max_main_amount,
        )
        amounts: dict[str, int] = {"main": main}
        if self.seat.policy is Policy.SIDE_BETS:
            amounts = {}
            for key, left in (public.get("side_bets_rounds_left") or {}).items():
                bet = self.rules.side_bet(key)
                if bet is not None and (left is None or left > 0):
                    amounts[key] = bet.min_amount
            if not amounts:
                amounts = {"main": main}
        spots = min(
            traits.spots_wanted, self.rules.table.spots, self.rules.table.max_spots_per_player
        )
        if sum(amounts.values()) * spots > self.balance:
            spots = 1
        if sum(amounts.values()) * spots > self.balance:
            return
        await self.send(
            {
                "type": "bet",
                "table_id": self.table_id,
                "bet_id": uuid.uuid4().hex,
                "bets": {str(spot): amounts for spot in range(1, spots + 1)},
                "request_id": f"bet-{round_id}",
            }
        )

    async def _insure(self, message: dict[str, Any]) -> None:
        """Policies that insure take every insurance or even money they are offered."""
        if not TRAITS[self.seat.policy].insures:
            return
        round_id = message.get("round_id")
        for position in message["player"]["positions"]:
            offer, spot = position.get("insurance_offer"), int(position["spot"])
            if offer is None or (round_id, spot) in self.insured:
                continue
            self.insured.add((round_id, spot))
            await self._pause()
            await self.send(
                {"type": "insurance", "table_id": self.table_id, "spot": spot, "kind": offer}
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
            sight = parse_sight(position["hands"][current]["cards"], up, legal)
            action = decide(self.seat.policy, sight)
            if action is None:
                continue
            await self._pause()
            await self.send(
                {
                    "type": "decide",
                    "table_id": self.table_id,
                    "spot": spot,
                    "step": step,
                    "action": action.word,
                }
            )


def bot_seats(
    sessions: sessionmaker[Session], table_id: str, count: int, grant: int
) -> list[BotSeat]:
    seats = []
    with sessions.begin() as session:
        service = PlayerService(session)
        for index, (name, policy) in enumerate(lineup(count)):
            player_id = f"bot-{table_id}-{index + 1}"
            token = service.ensure_bot(player_id, f"Bot {name}", grant)
            seats.append(BotSeat(player_id, f"Bot {name}", policy, token))
    return seats
