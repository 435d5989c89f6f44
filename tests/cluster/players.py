"""Players on gateways in one process: each gateway a GatewayTable behind the same message
handler a socket talks to, each player an in-process connection that sends the protocol's JSON
text and plays from the ``state``/``you`` messages it gets, as a browser would; and the same
players' decisions replayed in one shared round, for comparison."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy.orm import Session, sessionmaker

from boundless.core.bots import Policy, decide, parse_sight
from boundless.core.round import events as ev
from boundless.core.round.follower import FollowerRound
from boundless.core.round.results import PositionResult, position_result
from boundless.core.round.round import SharedRound
from boundless.core.round.views import player_view
from boundless.ledger import LedgerService, make_engine, make_session_factory, upgrade_database
from boundless.server.cluster import Bus
from boundless.server.cluster.coordinator import Coordinator, CoordinatorTimers
from boundless.server.cluster.gateway import Gateway
from boundless.server.cluster.gateway_table import GatewayTable
from boundless.server.cluster.slices import FollowerSlice, PairSlice, SliceSide
from boundless.server.gateway.handler import MessageHandler
from boundless.server.gateway.hub import Connection, Hub
from boundless.server.messages import payload
from boundless.server.players.service import PlayerService
from boundless.server.storage.database import upgrade_server_database
from tests.cluster.harness import CHART, FREE_COINS, RULES, dealer_maker, finish_alone, shoe

GRANT = 1_000_000
POLICIES = (Policy.HIT_TO_17, Policy.DOUBLER, Policy.CAUTIOUS)
Message = dict[str, Any]


def ledger_sessions(folder: Path) -> sessionmaker[Session]:
    engine = make_engine(f"sqlite:///{folder / 'cluster.sqlite'}")
    upgrade_database(engine)
    upgrade_server_database(engine)
    return make_session_factory(engine)


@dataclass(frozen=True)
class Style:
    """How a player plays: stake, decision policy, insurance, and whether their client resends
    each message once (a retrying client: the copies must change nothing)."""

    stake: int
    policy: Policy
    insures: bool
    resends: bool


def choose(style: Style, position: Message, up_card: str | None) -> str:
    """The player's action for their position's hand in play (always a legal one)."""
    legal = position["legal_actions"]
    hand = position["hands"][position["current_hand"]]
    action = decide(style.policy, parse_sight(hand["cards"], up_card, legal))
    if action is not None:
        return action.word
    return "stand" if "stand" in legal else sorted(legal)[0]


def insurance_answer(style: Style, offer: str) -> str:
    return offer if style.insures else "decline"


class PlayerClient(Connection):
    """A signed-up player's socket, in process: every message it sends is protocol JSON text
    through the handler, exactly what a WebSocket would carry."""

    def __init__(self, name: str, token: str, style: Style, handler: MessageHandler) -> None:
        super().__init__()
        self.name, self.token, self.style, self.handler = name, token, style, handler
        self.seen: list[Message] = []
        self.settled: list[Message] = []
        self.errors: list[Message] = []
        self.table_id = ""
        self._done: set[tuple[Any, ...]] = set()
        self._up_card: str | None = None
        self._counter = itertools.count(1)
        self._tasks: set[asyncio.Task[None]] = set()

    def send(self, body: Message) -> None:
        text = orjson.dumps({"v": 1, "request_id": f"r{next(self._counter)}", **body}).decode()
        copies = 2 if self.style.resends and body["type"] != "hello" else 1
        for _ in range(copies):
            task = asyncio.get_running_loop().create_task(self.handler.handle_text(self, text))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def sit(self, table_id: str) -> None:
        self.table_id = table_id
        await self.handler.handle_text(
            self, orjson.dumps({"v": 1, "type": "hello", "token": self.token})
        )
        await self.handler.handle_text(
            self, orjson.dumps({"v": 1, "type": "join", "table_id": table_id})
        )

    def push(self, wire: bytes) -> None:
        message: Message = orjson.loads(payload(wire))
        self.seen.append(message)
        kind = message["type"]
        if kind == "state":
            public = message.get("public") or {}
            self._up_card = ((public.get("dealer") or {}).get("cards") or [None])[0]
            if public.get("phase") == "betting":
                self._bet(str(message["round_id"]))
        elif kind == "you":
            self._act(message)
        elif kind == "settled":
            self.settled.append(message)
        elif kind == "error":
            self.errors.append(message)

    def close(self, reason: str) -> None:
        self.handler.forget(self)

    def _once(self, *key: Any) -> bool:
        if key in self._done:
            return False
        self._done.add(key)
        return True

    def _bet(self, round_id: str) -> None:
        if self._once("bet", round_id):
            bet_id = f"{round_id.replace(':', '-')}-{self.name}"
            bets = {"1": {"main": self.style.stake}}
            self.send({"type": "bet", "table_id": self.table_id, "bet_id": bet_id, "bets": bets})

    def _act(self, you: Message) -> None:
        round_id, phase, step = you["round_id"], you["phase"], you["step"]
        for position in you["player"]["positions"]:
            spot = position["spot"]
            offer = position.get("insurance_offer")
            if phase == "insurance" and offer and self._once("insurance", round_id, spot):
                kind = insurance_answer(self.style, offer)
                self.send({"type": "insurance", "table_id": self.table_id, "spot": spot,
                           "kind": kind})  # fmt: skip
            elif (
                phase == "decisions"
                and position["legal_actions"]
                and position["current_hand"] is not None
                and self._once("decide", round_id, step, spot)
            ):
                action = choose(self.style, position, self._up_card)
                self.send({"type": "decide", "table_id": self.table_id, "spot": spot,
                           "step": step, "action": action})  # fmt: skip


@dataclass
class GatewayPlayers:
    """One gateway in process: its table, its handler, its players, its bots' slices."""

    name: str
    table: GatewayTable
    handler: MessageHandler
    clients: list[PlayerClient] = field(default_factory=list)
    bots: list[tuple[str, int]] = field(default_factory=list)
    bot_slices: list[FollowerSlice] = field(default_factory=list)

    def new_slice(self, round_number: int, opened: ev.RoundOpened) -> SliceSide:
        parts: list[SliceSide] = [self.table.new_slice(round_number, opened)]
        if self.bots:
            follower = FollowerRound(RULES, opened, chart=CHART)
            for bot, stake in self.bots:
                follower.place_bet(bot, 1, stake, {}, free_amount=FREE_COINS)
            self.bot_slices.append(FollowerSlice(follower))
            parts.append(self.bot_slices[-1])
        return PairSlice(parts)


def gateway_players(
    sessions: sessionmaker[Session], table_id: str, name: str, bet_batch_seconds: float = 0.01
) -> GatewayPlayers:
    hub = Hub()
    table = GatewayTable(table_id=table_id, gateway=name, rules=RULES, chart=CHART, hub=hub,
                         sessions=sessions, bet_batch_seconds=bet_batch_seconds)  # fmt: skip
    return GatewayPlayers(name, table, MessageHandler(table, hub, sessions, 1000.0))


def sign_up(sessions: sessionmaker[Session], name: str) -> tuple[str, str]:
    with sessions.begin() as session:
        player, token = PlayerService(session).sign_up(name, GRANT)
    return player.player_id, token


async def play_cluster(
    bus: Bus,
    gateways: list[GatewayPlayers],
    *,
    table_id: str,
    seed: int,
    timers: CoordinatorTimers,
    rounds: int = 1,
    coordinator_ledger: Any = None,
) -> None:
    """A coordinator and the gateways, their players seated, for ``rounds`` rounds."""
    followers = []
    for gateway in gateways:
        follower = Gateway(bus, table_id, gateway.name, gateway.new_slice, watcher=gateway.table)
        gateway.table.gateway = follower
        followers.append(follower)
        for client in gateway.clients:
            await client.sit(table_id)
    names = frozenset(gateway.name for gateway in gateways)
    coordinator = Coordinator(
        bus, table_id, "c1", dealer_maker(seed), timers, gateways=names, ledger=coordinator_ledger
    )
    await asyncio.gather(coordinator.run(rounds=rounds), *(g.run(rounds=rounds) for g in followers))


Seat = tuple[str, int, Style | None]
"""A player or bot id, its stake, its style (``None``: a bot, autoplayed)."""


def play_alone(seats: list[Seat], *, seed: int) -> dict[str, tuple[PositionResult, int]]:
    """The same round in one shared round on the same shoe: the players' decisions by the same
    choices from their own views, the bots autoplayed."""
    single = SharedRound(RULES, chart=CHART, cards=shoe(seed + 1))
    styles = {seat: style for seat, _, style in seats if style is not None}
    for seat, stake, _ in seats:
        single.place_bet(seat, 1, stake, {}, free_amount=GRANT if seat in styles else FREE_COINS)

    def insure(single: SharedRound) -> None:
        for player, style in styles.items():
            offer = player_view(single, player)["player"]["positions"][0]["insurance_offer"]
            answer = None if offer is None else insurance_answer(style, offer)
            if answer == "insurance":
                single.take_insurance(player, 1)
            elif answer == "even_money":
                single.take_even_money(player, 1)

    def choose_all(single: SharedRound) -> None:
        up = str(single.up_card)
        for position in single.positions_awaiting_decision().tolist():
            player = single.player_of(position)
            if player in styles:
                view = player_view(single, player)["player"]["positions"][0]
                single.decide(player, 1, choose(styles[player], view, up))

    return finish_alone(single, insure, choose_all)


def cluster_results(gateways: list[GatewayPlayers]) -> dict[str, tuple[PositionResult, int]]:
    out: dict[str, tuple[PositionResult, int]] = {}
    for gateway in gateways:
        followers = [gateway.table.round, *(s.follower for s in gateway.bot_slices[-1:])]
        for follower in followers:
            assert follower is not None
            payouts = follower.final_payouts()
            for position in range(follower.position_count()):
                out[follower.player_of(position)] = (
                    position_result(follower, position),
                    int(payouts[position]),
                )
    return out


def wallets(sessions: sessionmaker[Session], players: list[str]) -> dict[str, int]:
    with sessions.begin() as session:
        return LedgerService(session).wallet_balances(players)


def seats_of(gateways: list[GatewayPlayers], ids: dict[str, str]) -> list[Seat]:
    """Every seat in the order the shared round places them (players by id, then bots)."""
    seats: list[Seat] = []
    for gateway in gateways:
        seats += [(ids[c.name], c.style.stake, c.style) for c in gateway.clients]
        seats += [(bot, stake, None) for bot, stake in gateway.bots]
    return seats
