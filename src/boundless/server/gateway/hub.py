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


PresenceListener = Callable[[str, bool], None]


class Hub:
    def __init__(self) -> None:
        self.watchers: dict[str, set[Connection]] = {}
        self.by_player: dict[str, set[Connection]] = {}
        self._listeners: list[PresenceListener] = []

    def on_presence(self, listener: PresenceListener) -> None:
        """``listener(player_id, connected)`` when a player's first socket opens or last closes."""
        self._listeners.append(listener)

    def attach(self, connection: Connection) -> None:
        assert connection.player is not None
        sockets = self.by_player.setdefault(connection.player.player_id, set())
        sockets.add(connection)
        if len(sockets) == 1:
            for listener in self._listeners:
                listener(connection.player.player_id, True)

    def detach(self, connection: Connection) -> None:
        for table_id in list(connection.tables):
            self.unwatch(connection, table_id)
        if connection.player is None:
            return
        player_id = connection.player.player_id
        sockets = self.by_player.get(player_id)
        if sockets is None or connection not in sockets:
            return
        sockets.discard(connection)
        if not sockets:
            del self.by_player[player_id]
            for listener in self._listeners:
                listener(player_id, False)

    def is_connected(self, player_id: str) -> bool:
        return player_id in self.by_player

    def watch(self, connection: Connection, table_id: str) -> None:
        self.watchers.setdefault(table_id, set()).add(connection)
        connection.tables.add(table_id)

    def unwatch(self, connection: Connection, table_id: str) -> None:
        self.watchers.get(table_id, set()).discard(connection)
        connection.tables.discard(table_id)

    def watcher_count(self, table_id: str) -> int:
        return len(self.watchers.get(table_id, ()))

    def broadcast(self, table_id: str, message: Message) -> None:
        """One serialisation, the same text to every socket watching the table."""
        watchers = self.watchers.get(table_id)
        if not watchers:
            return
        frame = encode(message)
        for connection in list(watchers):
            connection.push(frame)

    def send_player(self, player_id: str, message: Message) -> None:
        sockets = self.by_player.get(player_id)
        if not sockets:
            return
        frame = encode(message)
        for connection in list(sockets):
            connection.push(frame)

    @staticmethod
    def send(connection: Connection, message: Message) -> None:
        connection.push(encode(message))
