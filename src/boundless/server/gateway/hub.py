"""Who is connected and who watches which table; fan-out of one serialisation to many sockets.

Every message out goes through one queue (the outbox), written a chunk of sockets per turn of
the event loop: a broadcast to 10,000 sockets never holds the loop for all of them at once
(other sockets' messages and HTTP requests are served between chunks), and each socket still
gets its messages in the order they were sent, whatever table or player they were for.

What waits in the outbox is kept to a few lists of sockets and of plain ``bytes``: a message for
one socket joins the last entry when that entry is already one of single messages, so the
``you``, ``ack`` and ``error`` of thousands of players are two growing lists, not thousands of
objects the garbage collector would look at on every collection while they wait.

Broadcasts queued one after another to the same watchers go out in one write per socket: a
step's ``state`` joins its ``step`` for every socket the ``step`` has not reached yet (all but
the first chunk, which is written at once). A write is a system call, about 20 µs; three per
socket per step were a third of the loop's time at 10,000 sockets. The step's ``you`` messages
stay a write of their own, after: joined to the broadcast, each chunk of sockets waited for its
players' views to be built, and the last sockets saw the step's card 0.5 s later
(``live_load.py`` step latency p99 285 → 760 ms).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from boundless.server.messages import Message, encode
from boundless.server.players.service import PlayerIdentity


class Connection:
    """One client: a WebSocket or an in-process bot. ``push`` must not block."""

    def __init__(self) -> None:
        self.player: PlayerIdentity | None = None
        self.tables: set[str] = set()

    def push(self, wire: bytes) -> None:
        """Send one frame made by :func:`~boundless.server.messages.encode`."""
        raise NotImplementedError

    def push_many(self, wires: Sequence[bytes]) -> None:
        """Send these frames in order (a socket writes them at once)."""
        for wire in wires:
            self.push(wire)

    def close(self, reason: str) -> None:
        raise NotImplementedError


log = logging.getLogger("boundless.server.hub")
PresenceListener = Callable[[str, str, bool], None]
FANOUT_CHUNK = 256
"""Frames written per turn of the event loop (a few milliseconds of ``send`` calls)."""


class _Fanout:
    """What some sockets are to get, and how many of them have it: ``frames`` to every one of
    ``targets``, ``wires[i]`` or ``make(i)`` to ``targets[i]``; none of these: close them
    (``reason``). ``source`` and ``version``: the watcher set a broadcast was made from and the
    hub's membership version then (a later broadcast to the same unchanged set joins it)."""

    __slots__ = ("frames", "make", "reason", "sent", "source", "targets", "version", "wires")

    def __init__(
        self,
        targets: list[Connection],
        frames: tuple[bytes, ...] | None = None,
        wires: list[bytes] | None = None,
        make: Callable[[int], bytes] | None = None,
        reason: str = "",
        source: set[Connection] | None = None,
        version: int = -1,
    ) -> None:
        self.targets = targets
        self.frames = frames
        self.wires = wires
        self.make = make
        self.reason = reason
        self.source = source
        self.version = version
        self.sent = 0


class Hub:
    def __init__(self) -> None:
        self.watchers: dict[str, set[Connection]] = {}
        self.by_player: dict[str, set[Connection]] = {}
        self._humans: set[str] = set()
        """Players with a socket here who are not bots (what the reality-check watch looks at)."""
        self._listeners: list[PresenceListener] = []
        self._outbox: deque[_Fanout] = deque()
        self._draining = False
        """A later turn of the loop is to write the rest of the outbox."""
        self._budget = FANOUT_CHUNK
        """Sockets this turn of the loop may still write to at once (renewed each later turn)."""
        self._version = 0
        """Counts changes of who watches what: a broadcast joins the one queued before it only
        while its watchers are the same."""

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
        if not connection.player.is_bot:
            self._humans.add(connection.player.player_id)

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
                self._humans.discard(player_id)

    def connected_humans(self) -> list[str]:
        """The ids of the connected players who are not bots, in no order (a copy)."""
        return list(self._humans)

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
        self._version += 1
        if player_id is not None and not before:
            self._notify(player_id, table_id, True)

    def unwatch(self, connection: Connection, table_id: str) -> None:
        if table_id not in connection.tables:
            return
        self.watchers.get(table_id, set()).discard(connection)
        connection.tables.discard(table_id)
        self._version += 1
        player_id = None if connection.player is None else connection.player.player_id
        if player_id is not None and not self.is_watching(player_id, table_id):
            self._notify(player_id, table_id, False)

    def watcher_count(self, table_id: str) -> int:
        return len(self.watchers.get(table_id, ()))

    def broadcast(self, table_id: str, message: Message) -> None:
        """The same text to every socket watching the table."""
        self._push_all(self.watchers.get(table_id), message)

    def _push_all(self, connections: set[Connection] | None, message: Message) -> None:
        """One serialisation for every connection (none: nothing to encode). When the last
        entry of the outbox is a broadcast to the same, unchanged set, the message joins it
        for the sockets it has not reached yet (one write each) and is queued alone for the
        ones it has."""
        if not connections:
            return
        wire = encode(message)
        last = self._outbox[-1] if self._outbox else None
        if (
            last is not None
            and last.source is connections
            and last.version == self._version
            and last.frames is not None
        ):
            written = last.targets[: last.sent]
            last.frames += (wire,)
            if written:
                self._outbox.append(_Fanout(written, frames=(wire,)))
        else:
            self._outbox.append(
                _Fanout(list(connections), frames=(wire,), source=connections,
                        version=self._version)
            )  # fmt: skip
        self._start()

    def send_player(self, player_id: str, message: Message) -> None:
        """The message to each of the player's sockets, queued like :meth:`send`."""
        connections = self.by_player.get(player_id)
        if connections:
            wire = encode(message)
            for connection in connections:
                self._queue_one(connection, wire)

    def send(self, connection: Connection, message: Message) -> None:
        self._queue_one(connection, encode(message))

    def send_players(self, player_ids: Sequence[str], message_of: Callable[[int], Message]) -> None:
        """Each connected player ``player_ids[i]`` the message ``message_of(i)``, queued now
        like :meth:`send_player` but built and serialised only when its turn to be written
        comes: a round's thousands of ``you`` or ``settled`` messages are made a chunk per turn
        of the loop, not all in one."""
        targets: list[Connection] = []
        owners: list[int] = []
        for index, player_id in enumerate(player_ids):
            for connection in self.by_player.get(player_id, ()):
                targets.append(connection)
                owners.append(index)
        if not targets:
            return
        last: list[Any] = [-1, b""]  # a player's sockets share one serialisation

        def make(position: int) -> bytes:
            owner = owners[position]
            if owner != last[0]:
                last[0], last[1] = owner, encode(message_of(owner))
            return last[1]  # type: ignore[no-any-return]

        self._outbox.append(_Fanout(targets, make=make))
        self._start()

    def _queue_one(self, connection: Connection, wire: bytes) -> None:
        """One socket's frame: onto the last entry when it holds single frames (still after
        everything queued before), else a new such entry."""
        outbox = self._outbox
        last = outbox[-1] if outbox else None
        if last is not None and last.wires is not None:
            last.targets.append(connection)
            last.wires.append(wire)
        else:
            outbox.append(_Fanout([connection], wires=[wire]))
        self._start()

    def _start(self) -> None:
        """Write what this turn's budget allows now, unless a later turn is to write the outbox
        (a loop of single sends is paced like one broadcast)."""
        if not self._draining:
            self._draining = True
            self._drain(renew=False)

    def close_after_sent(self, connections: Sequence[Connection], reason: str) -> None:
        """Close these sockets once every message queued for them before now is written."""
        if connections:
            self._outbox.append(_Fanout(list(connections), reason=reason))
            self._start()

    async def flushed(self) -> None:
        """Return once the outbox is written (a chunk per turn of the loop)."""
        while self._outbox:
            await asyncio.sleep(0)

    def pending_writes(self) -> int:
        """Socket writes queued and not made yet (one per socket per entry of the outbox)."""
        return sum(len(item.targets) - item.sent for item in self._outbox)

    def _drain(self, renew: bool = True) -> None:
        """Write to up to :data:`FANOUT_CHUNK` sockets in this turn of the loop (what is left
        of this turn's budget where ``renew`` is false); the rest in the next turns (all now
        without a running loop). A push that sends more (a bot's answer) only queues it."""
        if renew:
            self._budget = FANOUT_CHUNK
        try:
            self._budget -= self._write(self._budget)
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

    def _write(self, budget: int) -> int:
        """Write to up to ``budget`` sockets; how many were written."""
        outbox = self._outbox
        written = 0
        while outbox and written < budget:
            item = outbox[0]
            start = item.sent
            end = min(len(item.targets), start + budget - written)
            targets, frames, wires, make = item.targets, item.frames, item.wires, item.make
            if frames is not None:
                _push_frames(targets, start, end, frames)
            elif wires is not None:
                for index in range(start, end):
                    targets[index].push(wires[index])
            elif make is not None:
                for index in range(start, end):
                    _push_made(targets[index], make, index)
            else:
                for index in range(start, end):
                    targets[index].close(item.reason)
            written += end - start
            item.sent = end
            if end == len(item.targets):
                outbox.popleft()
        return written


def _push_frames(
    targets: list[Connection], start: int, end: int, frames: tuple[bytes, ...]
) -> None:
    """A broadcast's frames to ``targets[start:end]``, in one write per socket."""
    if len(frames) == 1:
        wire = frames[0]
        for index in range(start, end):
            targets[index].push(wire)
    else:
        for index in range(start, end):
            targets[index].push_many(frames)


def _push_made(connection: Connection, make: Callable[[int], bytes], index: int) -> None:
    try:
        wire = make(index)
    except Exception:  # one message that cannot be built must not stop the outbox
        log.exception("a queued message could not be built; that socket misses it")
        return
    connection.push(wire)
