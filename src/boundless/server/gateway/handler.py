"""The one handler of client messages, for WebSockets and in-process bots alike.

Text → JSON → a validated protocol message → the table's command → ``ack`` or ``error``. Every
refusal goes through :func:`boundless.server.errors.error_reply`, so the error shape is the same
whatever refused (the protocol, the rules, the ledger or the server). The handler talks to
tables as :class:`~boundless.server.tables.desk.TableDesk` (the players' side of a table), found
through :class:`Tables`: ``boundless serve``'s registry and a cluster gateway's one table alike.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger.outage import is_transient
from boundless.server import messages
from boundless.server.errors import (
    BadMessageError,
    RateLimitedError,
    TooManySocketsError,
    UnauthorizedError,
    error_reply,
    internal_reply,
    is_refusal,
)
from boundless.server.gateway.hub import Connection, Hub
from boundless.server.gateway.known_players import KnownPlayers
from boundless.server.players.service import PlayerIdentity, PlayerService
from boundless.server.protection.gate import ProtectionGate, reality_check
from boundless.server.protocol import (
    ChooseSideBets,
    ClientMessage,
    Decide,
    Hello,
    Join,
    Leave,
    PlaceBet,
    RealityCheckAnswer,
    Rebet,
    Resync,
    TakeInsurance,
    decode_text,
    parse_client_message,
    request_id_of,
)
from boundless.server.tables.desk import TableDesk
from boundless.server.tables.rebet import rebet_request
from boundless.server.tables.service import BetRequest

log = logging.getLogger("boundless.server.handler")


class Tables(Protocol):
    """Where the handler finds a table, and whom it tells that a player signed in."""

    def get(self, table_id: str) -> TableDesk:
        """The table, or :class:`~boundless.server.errors.NotFoundError`."""
        ...

    def greet(self, player_id: str) -> None:
        """A socket of the player said hello (sent ``welcome``)."""
        ...


IGNORED_BURSTS = 10
"""A socket refused this many bursts in a row is closed (a flood, not a hasty client)."""


class TokenBucket:
    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.capacity = max(1.0, 2 * rate)
        self.tokens = self.capacity
        self.stamp = time.monotonic()
        self.refused_in_a_row = 0

    def take(self) -> bool:
        moment = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (moment - self.stamp) * self.rate)
        self.stamp = moment
        if self.tokens < 1:
            self.refused_in_a_row += 1
            return False
        self.tokens -= 1
        self.refused_in_a_row = 0
        return True

    def ignored(self) -> bool:
        """The client kept sending ten bursts' worth after being told to slow down."""
        return self.refused_in_a_row > IGNORED_BURSTS * self.capacity


@dataclass(eq=False)
class MessageHandler:
    registry: Tables
    hub: Hub
    sessions: sessionmaker[Session]
    messages_per_second: float
    max_sockets_per_player: int = 0
    """0: no cap (in-process use); the app passes the configured cap."""
    gate: ProtectionGate | None = None
    """Player protection (time-outs, exclusions, reality checks); None: in-process use only."""
    _buckets: dict[int, TokenBucket] = field(default_factory=dict, init=False)
    known: KnownPlayers = field(default_factory=KnownPlayers, init=False)
    """Players who said hello here lately (``hello`` during a database blip)."""
    _loop: asyncio.AbstractEventLoop | None = field(default=None, init=False)

    def sign_out(self, player_id: str, why: str) -> None:
        """Close the player's sockets on this process (from any thread): a time-out or a
        self-exclusion began."""
        loop = self._loop
        if loop is None:
            return

        def close() -> None:
            self.known.forget_player(player_id)  # no sign-in from memory while it lasts
            for connection in list(self.hub.by_player.get(player_id, ())):
                connection.close(f"the player's {why} began")

        loop.call_soon_threadsafe(close)

    def _send_player(self, player_id: str, message: dict[str, Any]) -> None:
        self.hub.send_player(player_id, message)

    def _end_player(self, player_id: str, message: dict[str, Any]) -> None:
        """The player's session ended: the last message, then their sockets here close."""
        self.hub.send_player(player_id, message)
        sockets = list(self.hub.by_player.get(player_id, ()))
        self.hub.close_after_sent(sockets, f"the session ended ({message['reason']})")

    def forget(self, connection: Connection) -> None:
        self._buckets.pop(id(connection), None)
        self.hub.detach(connection)

    def _charge(self, connection: Connection) -> None:
        """Every frame costs a token, readable or not (garbage must not bypass the limit)."""
        bucket = self._buckets.get(id(connection))
        if bucket is None:
            bucket = self._buckets[id(connection)] = TokenBucket(self.messages_per_second)
        if bucket.take():
            return
        if bucket.ignored():
            connection.close("rate limit ignored")
        raise RateLimitedError(
            f"more than {self.messages_per_second:g} messages per second; slow down"
        )

    def receive_text(self, connection: Connection, text: str | bytes) -> asyncio.Future[Any] | None:
        """Handle one frame from a client; answers go to ``connection``. Most messages are
        answered before this returns; for a bet or insurance, whose answer waits for the ledger,
        a future done once the answer is sent (the socket's next message waits for it). No
        coroutine waits per message (see ``websocket.SocketReader``)."""
        raw: object = None
        unreadable: Exception | None = None
        try:
            raw = decode_text(text)
        except Exception as error:
            unreadable = error
        try:
            self._charge(connection)
            if unreadable is not None:
                raise unreadable
            message = parse_client_message(raw)
        except Exception as error:
            self._refuse(connection, request_id_of(raw), error)
            return None
        return self._receive(connection, message)

    async def handle_text(self, connection: Connection, text: str | bytes) -> None:
        """:meth:`receive_text`, waiting for the answer where it waits."""
        await _answered(self.receive_text(connection, text))

    async def handle(self, connection: Connection, message: ClientMessage) -> None:
        """Handle one already-validated message (in-process bots)."""
        try:
            self._charge(connection)
        except RateLimitedError as error:
            self._refuse(connection, message.request_id, error)
            return
        await _answered(self._receive(connection, message))

    def _receive(
        self, connection: Connection, message: ClientMessage
    ) -> asyncio.Future[Any] | None:
        try:
            if isinstance(message, PlaceBet | Rebet):
                return self._bet(connection, message)
            if isinstance(message, TakeInsurance):
                return asyncio.ensure_future(self._insure(connection, message))
            answer = self._dispatch(connection, message)
        except Exception as error:
            self._refuse(connection, message.request_id, error)
            return None
        if answer is not None:
            self.hub.send(connection, messages.ack(message.request_id, **answer))
        return None

    def _bet(self, connection: Connection, message: PlaceBet | Rebet) -> asyncio.Future[Any]:
        """Queue the bet for the table's next batch; the ack or refusal goes once it is written."""
        player, table = self._table(connection, message.table_id)
        if self.gate is not None:
            self.gate.check_bet(player)
        extra: dict[str, Any] = {}
        if isinstance(message, PlaceBet):
            request = _bet_request(player.player_id, message)
        else:
            request = rebet_request(table, player.player_id, message.bet_id, message.multiplier)
            extra = {"bets": request.amounts(), "multiplier": message.multiplier}
        future = table.submit_bet(request)
        future.add_done_callback(
            functools.partial(self._bet_written, connection, message.request_id, extra)
        )
        return future

    def _bet_written(
        self,
        connection: Connection,
        request_id: str | None,
        extra: dict[str, Any],
        future: asyncio.Future[dict[str, Any]],
    ) -> None:
        if future.cancelled():
            return
        error = future.exception()
        if isinstance(error, Exception):
            self._refuse(connection, request_id, error)
        elif error is not None:
            raise error
        else:
            self.hub.send(connection, messages.ack(request_id, **{**future.result(), **extra}))

    async def _insure(self, connection: Connection, message: TakeInsurance) -> None:
        try:
            player, table = self._table(connection, message.table_id)
            balance = await table.insure(player, message.spot, message.kind)
        except Exception as error:
            self._refuse(connection, message.request_id, error)
            return
        answer = {"table_id": table.table_id, "kind": message.kind, "balance": balance}
        self.hub.send(connection, messages.ack(message.request_id, **answer))

    def _refuse(self, connection: Connection, request_id: str | None, error: Exception) -> None:
        if is_refusal(error):
            reply = error_reply(error)
        else:
            log.exception("unexpected error handling a message", exc_info=error)
            reply = internal_reply()
        self.hub.send(connection, messages.error(request_id, reply))

    def _send_state(
        self, connection: Connection, table: TableDesk, player_id: str
    ) -> dict[str, Any]:
        """The table's state, then the player's own view where they have a position there."""
        self.hub.send(connection, table.state_message())
        mine = table.you_message(player_id)
        if mine is not None:
            self.hub.send(connection, mine)
        return {"table_id": table.table_id}

    @staticmethod
    def _player(connection: Connection) -> PlayerIdentity:
        if connection.player is None:
            raise UnauthorizedError('the first message must be {"v": 1, "type": "hello", ...}')
        return connection.player

    def _table(self, connection: Connection, table_id: str) -> tuple[PlayerIdentity, TableDesk]:
        """The signed-in player and the table they may use (refusals otherwise)."""
        player = self._player(connection)
        table = self.registry.get(table_id)
        table.check_access(player)
        return player, table

    def _dispatch(self, connection: Connection, message: ClientMessage) -> dict[str, Any] | None:
        """Every message answered at once (bets and insurance are not)."""
        if isinstance(message, Hello):
            self._hello(connection, message)
            return None
        if isinstance(message, RealityCheckAnswer):
            return self._reality_answer(self._player(connection), message.choice)
        player, table = self._table(connection, message.table_id)
        if isinstance(message, Join):
            if self.gate is not None:
                self.gate.check_join(player)
            self.hub.watch(connection, table.table_id)
            return self._send_state(connection, table, player.player_id)
        if isinstance(message, Leave):
            self.hub.unwatch(connection, table.table_id)
            return {"table_id": table.table_id}
        if isinstance(message, Resync):
            return self._send_state(connection, table, player.player_id)
        if isinstance(message, Decide):
            table.decide(player, message.spot, message.step, message.action)
            return {
                "table_id": table.table_id,
                "spot": message.spot,
                "step": message.step,
                "action": message.action,
            }
        if isinstance(message, ChooseSideBets):
            table.choose_side_bets(player, list(message.side_bets))
            return {"table_id": table.table_id, "side_bets": list(message.side_bets)}
        raise BadMessageError(f"unknown message type {message.type!r}")

    def _hello(self, connection: Connection, message: Hello) -> None:
        if connection.player is not None:
            raise BadMessageError("this socket is already authenticated")
        try:
            with self.sessions.begin() as session:
                service = PlayerService(session)
                player = service.authenticate(message.token)
                balance = service.balance(player.player_id)
        except Exception as error:
            known = self.known.recall(message.token) if is_transient(error) else None
            if known is None:
                raise
            # The database is away: a player seen here lately signs in as they were then.
            player, balance = known.identity, known.balance
            recalled = True
        else:
            recalled = False
        cap = self.max_sockets_per_player
        if cap and len(self.hub.by_player.get(player.player_id, ())) >= cap:
            raise TooManySocketsError(f"at most {cap} open sockets per player; close one first")
        figures = self._protected_sign_in(player, recalled)
        if not recalled:  # remembered only once protection let them in
            self.known.remember(message.token, player, balance)
        connection.player = player
        self.hub.attach(connection)
        welcome = messages.welcome(player, balance)
        if figures is not None:
            welcome["session"] = figures
        self.hub.send(connection, welcome)
        if figures is not None and figures["reality_check_pending"]:
            self.hub.send(connection, reality_check(self.gate.profile, figures))  # type: ignore[union-attr]
        self.registry.greet(player.player_id)
        if self.gate is not None:
            self._loop = asyncio.get_running_loop()
            self.gate.watch(self.hub.connected_humans, self._send_player, self._end_player)

    def _protected_sign_in(self, player: PlayerIdentity, recalled: bool) -> dict[str, Any] | None:
        """The gate's sign-in (``timed_out``, ``self_excluded``, else the session's figures).
        While the database is away a player recalled from an earlier ``hello`` (let in then) is
        let in without figures; their bets wait for the database anyway."""
        if self.gate is None:
            return None
        try:
            return self.gate.sign_in(player)
        except Exception as error:
            if recalled and is_transient(error):
                return None
            raise

    def _reality_answer(self, player: PlayerIdentity, choice: str) -> dict[str, Any]:
        """``continue``: bets are taken again; ``leave``: the session ends and the player's
        sockets here close once the answer is sent (the next sign-in begins a new session)."""
        if self.gate is None:
            raise BadMessageError("no reality checks on this server")
        figures = self.gate.answer(player, choice)
        if choice == "leave":
            # After this answer's ack is queued (the caller sends it once this returns).
            sockets = list(self.hub.by_player.get(player.player_id, ()))
            reason = "the player left after a reality check"
            asyncio.get_running_loop().call_soon(self.hub.close_after_sent, sockets, reason)
        return {"choice": choice, "session": figures}


def _bet_request(player_id: str, message: PlaceBet) -> BetRequest:
    spots: list[int] = []
    mains: list[int] = []
    sides: list[dict[str, int]] = []
    for spot, amounts in sorted(message.bets.items()):
        spots.append(int(spot))
        mains.append(amounts.get("main", 0))
        sides.append({key: value for key, value in amounts.items() if key != "main"})
    if not any(mains) and not any(any(side.values()) for side in sides):
        raise BadMessageError("a bet needs a positive amount")
    return BetRequest(player_id, message.bet_id, spots, mains, sides)


async def _answered(pending: asyncio.Future[Any] | None) -> None:
    """Wait until a message's answer is sent (a refusal is an answer, not an error here)."""
    if pending is not None:
        await asyncio.wait((pending,))
