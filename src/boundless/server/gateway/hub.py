"""Who is connected and who watches which table; fan-out of one serialisation to many sockets."""

from __future__ import annotations

from collections.abc import Callable

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


class Hub:
    def __init__(self) -> None:
        self.watchers: dict[str, set[Connection]] = {}
        self.by_player: dict[str, set[Connection]] = {}
        self._listeners: list[PresenceListener] = []

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

    @staticmethod
    def _push_all(connections: set[Connection] | None, message: Message) -> None:
        """One serialisation for every connection (none: nothing to encode)."""
        if not connections:
            return
        frame = encode(message)
        for connection in list(connections):
            connection.push(frame)

    @staticmethod
    def send(connection: Connection, message: Message) -> None:
        connection.push(encode(message))
