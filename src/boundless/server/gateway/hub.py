"""Who is connected and who watches which table; fan-out of one serialisation to many sockets.

Every message out goes through one queue (the outbox), written a chunk of sockets per turn of
the event loop: a broadcast to 10,000 sockets never holds the loop for all of them at once
(other sockets' messages and HTTP requests are served between chunks), and each socket still
gets its messages in the order they were sent, whatever table or player they were for.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Sequence

from boundless.server.messages import Frame, Message, encode
from boundless.server.players.service import PlayerIdentity


class Connection:
    """One client: a WebSocket or an in-process bot. ``push`` must not block."""

    def __init__(self) -> None:
        self.player: PlayerIdentity | None = None
        self.tables: set[str] = set()

    def push(self, frame: Frame) -> None:
        raise NotImplementedError

    def close(self, reason: str) -> None:
        raise NotImplementedError


PresenceListener = Callable[[str, str, bool], None]
FANOUT_CHUNK = 512
"""Sockets written per turn of the event loop (a few milliseconds of ``send`` calls)."""


class _Fanout:
    """One frame for some sockets (None: close them, ``reason``), and how many have it."""

    __slots__ = ("frame", "reason", "sent", "targets")

    def __init__(
        self, frame: Frame | None, targets: Sequence[Connection], reason: str = ""
    ) -> None:
        self.frame = frame
        self.targets = targets
        self.reason = reason
        self.sent = 0


class Hub:
    def __init__(self) -> None:
        self.watchers: dict[str, set[Connection]] = {}
        self.by_player: dict[str, set[Connection]] = {}
        self._listeners: list[PresenceListener] = []
        self._outbox: deque[_Fanout] = deque()
        self._draining = False
        """A later turn of the loop is to write the rest of the outbox."""

    def on_presence(self, listener: PresenceListener) -> None:
        """``listener(player_id, table_id, present)`` when a player starts or stops watching a
        table with at least one socket (a closed socket stops watching everything)."""
        self._listeners.append(listener)

    def _notify(self, player_id: str, table_id: str, present: bool) -> None:
        for listener in self._listeners:
            listener(player_id, table_id, present)

    def attach(self, connection: Connection) -> None:
        assert connection.player is not None
        self.by_player.setdefault(connection.player.player_id, set()).add(connection)

    def detach(self, connection: Connection) -> None:
        for table_id in list(connection.tables):
            self.unwatch(connection, table_id)
        if connection.player is None:
            return
        player_id = connection.player.player_id
        sockets = self.by_player.get(player_id)
        if sockets is not None:
            sockets.discard(connection)
            if not sockets:
                del self.by_player[player_id]

    def is_connected(self, player_id: str) -> bool:
        return player_id in self.by_player

    def is_watching(self, player_id: str, table_id: str) -> bool:
        """Whether one of the player's sockets watches the table (their decisions are awaited)."""
        sockets = self.by_player.get(player_id, ())
        return any(table_id in socket.tables for socket in sockets)

    def watch(self, connection: Connection, table_id: str) -> None:
        player_id = None if connection.player is None else connection.player.player_id
        before = player_id is not None and self.is_watching(player_id, table_id)
        self.watchers.setdefault(table_id, set()).add(connection)
        connection.tables.add(table_id)
        if player_id is not None and not before:
            self._notify(player_id, table_id, True)

    def unwatch(self, connection: Connection, table_id: str) -> None:
        if table_id not in connection.tables:
            return
        self.watchers.get(table_id, set()).discard(connection)
        connection.tables.discard(table_id)
        player_id = None if connection.player is None else connection.player.player_id
        if player_id is not None and not self.is_watching(player_id, table_id):
            self._notify(player_id, table_id, False)

    def watcher_count(self, table_id: str) -> int:
        return len(self.watchers.get(table_id, ()))

    def broadcast(self, table_id: str, message: Message) -> None:
        """The same text to every socket watching the table."""
        self._push_all(self.watchers.get(table_id), message)

    def send_player(self, player_id: str, message: Message) -> None:
        self._push_all(self.by_player.get(player_id), message)

    def _push_all(self, connections: set[Connection] | None, message: Message) -> None:
        """One serialisation for every connection (none: nothing to encode)."""
        if connections:
            self.enqueue(encode(message), list(connections))

    def send(self, connection: Connection, message: Message) -> None:
        self.enqueue(encode(message), (connection,))

    def enqueue(self, frame: Frame, targets: Sequence[Connection]) -> None:
        """``frame`` to each of ``targets`` after everything queued before it: at once while
        the outbox is short, else in the loop's next turns."""
        self._outbox.append(_Fanout(frame, targets))
        if not self._draining:
            self._draining = True
            self._drain()

    def close_after_sent(self, connections: Sequence[Connection], reason: str) -> None:
        """Close these sockets once every message queued for them before now is written."""
        if connections:
            self._outbox.append(_Fanout(None, connections, reason))
            if not self._draining:
                self._draining = True
                self._drain()

    async def flushed(self) -> None:
        """Return once the outbox is written (a chunk per turn of the loop)."""
        while self._outbox:
            await asyncio.sleep(0)

    def pending_frames(self) -> int:
        """Frames queued for sockets and not written yet."""
        return sum(len(item.targets) - item.sent for item in self._outbox)

    def _drain(self) -> None:
        """Write up to :data:`FANOUT_CHUNK` frames; the rest in the next turn of the loop (all
        now without a running loop). A push that sends more (a bot's answer) only queues it."""
        try:
            self._write(FANOUT_CHUNK)
            if self._outbox:
                try:
                    loop = asyncio.get_running_loop()
                except RuntimeError:
                    while self._outbox:
                        self._write(FANOUT_CHUNK)
                else:
                    loop.call_soon(self._drain)
                    return
        except BaseException:
            self._draining = False
            raise
        self._draining = False

    def _write(self, budget: int) -> None:
        outbox = self._outbox
        while outbox and budget > 0:
            item = outbox[0]
            end = min(len(item.targets), item.sent + budget)
            frame = item.frame
            if frame is None:
                for connection in item.targets[item.sent : end]:
                    connection.close(item.reason)
            else:
                for connection in item.targets[item.sent : end]:
                    connection.push(frame)
            budget -= end - item.sent
            item.sent = end
            if end == len(item.targets):
                outbox.popleft()
