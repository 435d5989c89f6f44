"""The hub's outbox (a chunk of sockets per loop turn, each socket's messages in order) and the
``you`` views built for many players at once."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np
import orjson
import pytest

from boundless.core.random_source import SeededSource
from boundless.core.round import SharedRound
from boundless.core.shoe import Shoe
from boundless.server import messages
from boundless.server.gateway import hub as hub_module
from boundless.server.gateway import websocket
from boundless.server.gateway.hub import Connection, Hub
from boundless.server.messages import payload
from boundless.server.players.service import PlayerIdentity
from boundless.titles import load_game


class Recorder(Connection):
    def __init__(self, player_id: str) -> None:
        super().__init__()
        self.player = PlayerIdentity(player_id=player_id, display_name=player_id, is_bot=True)
        self.got: list[str] = []
        self.writes: list[list[str]] = []
        """What each write held, as a socket would make them (``push_many``: one write)."""
        self.closed_with: str | None = None

    def push_many(self, wires: Sequence[bytes]) -> None:
        super().push_many(wires)
        self.writes[-len(wires) :] = [self.got[-len(wires) :]]

    def push(self, wire: bytes) -> None:
        assert self.closed_with is None, "a frame after the close"
        self.got.append(orjson.loads(payload(wire))["n"])
        self.writes.append(self.got[-1:])

    def close(self, reason: str) -> None:
        self.closed_with = reason


def watched_hub(count: int) -> tuple[Hub, list[Recorder]]:
    hub = Hub()
    sockets = [Recorder(f"p{index}") for index in range(count)]
    for socket in sockets:
        hub.attach(socket)
        hub.watch(socket, "t")
    return hub, sockets


def test_a_big_broadcast_is_written_over_several_turns_each_socket_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(hub_module, "FANOUT_CHUNK", 3)

    async def scenario() -> tuple[list[int], list[Recorder]]:
        hub, sockets = watched_hub(10)
        hub.broadcast("t", {"n": "step"})
        hub.broadcast("t", {"n": "state"})
        hub.send_player("p9", {"n": "you"})
        hub.send(sockets[0], {"n": "ack"})
        # The first chunk gets step at once; state joins step for the other seven (one write
        # each) and goes alone to the first three; the you and the ack are single frames.
        pending = [hub.pending_writes()]
        await asyncio.sleep(0)
        pending.append(hub.pending_writes())
        await hub.flushed()
        pending.append(hub.pending_writes())
        return pending, sockets

    pending, sockets = asyncio.run(scenario())
    assert pending == [12, 9, 0]
    assert sockets[0].got == ["step", "state", "ack"]
    assert sockets[9].got == ["step", "state", "you"]
    assert all(socket.got[:2] == ["step", "state"] for socket in sockets)


def test_without_a_running_loop_everything_is_written_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(hub_module, "FANOUT_CHUNK", 2)
    hub, sockets = watched_hub(5)
    hub.broadcast("t", {"n": "state"})
    assert hub.pending_writes() == 0
    assert [socket.got for socket in sockets] == [["state"]] * 5


def test_a_close_waits_for_the_messages_queued_before_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hub_module, "FANOUT_CHUNK", 2)

    async def scenario() -> list[Recorder]:
        hub, sockets = watched_hub(6)
        hub.broadcast("t", {"n": "state"})
        hub.send_player("p5", {"n": "ended"})
        hub.close_after_sent([sockets[5]], "the session ended")
        assert sockets[5].closed_with is None
        await hub.flushed()
        return sockets

    sockets = asyncio.run(scenario())
    assert sockets[5].got == ["state", "ended"]
    assert sockets[5].closed_with == "the session ended"


def test_many_single_sends_in_one_turn_are_paced_like_a_broadcast(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A loop of one-player sends (answers, ``you``s) writes a chunk per turn, not all at once,
    and still in order behind what was queued before."""
    monkeypatch.setattr(hub_module, "FANOUT_CHUNK", 3)

    async def scenario() -> tuple[list[int], list[Recorder]]:
        hub, sockets = watched_hub(10)
        for socket in sockets:
            hub.send(socket, {"n": "ack"})
        pending = [hub.pending_writes()]
        hub.broadcast("t", {"n": "state"})
        hub.send_player("p0", {"n": "you"})
        await asyncio.sleep(0)
        pending.append(hub.pending_writes())
        await hub.flushed()
        return pending, sockets

    pending, sockets = asyncio.run(scenario())
    assert pending == [7, 15]
    assert sockets[0].got == ["ack", "state", "you"]
    assert all(socket.got[:2] == ["ack", "state"] for socket in sockets)


def test_messages_for_many_players_are_built_when_written(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """``send_players`` makes each message when its chunk is written; one that cannot be made
    is logged and skipped, and the rest still go."""
    monkeypatch.setattr(hub_module, "FANOUT_CHUNK", 2)
    built: list[int] = []

    def message_of(index: int) -> dict[str, str]:
        built.append(index)
        if index == 1:
            raise ValueError("broken view")
        return {"n": f"you{index}"}

    async def scenario() -> tuple[list[int], list[Recorder]]:
        hub, sockets = watched_hub(5)
        hub.attach(Recorder("p2"))  # a second socket of p2: one message made for both
        hub.send_players(["p0", "p1", "p2", "p3", "nobody"], message_of)
        seen = list(built)
        await hub.flushed()
        return seen, sockets

    seen, sockets = asyncio.run(scenario())
    assert seen == [0, 1]  # the first chunk only
    assert built == [0, 1, 2, 3]
    assert [socket.got for socket in sockets] == [["you0"], [], ["you2"], ["you3"], []]
    assert "could not be built" in caplog.text


def test_a_steps_broadcasts_go_to_each_watcher_in_one_write(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``state`` queued behind ``step`` goes in the same write to every socket ``step`` has
    not reached yet (all but the first chunk); each player's ``you`` after them is a write of
    its own (so every socket sees the card before any view is built), also for a player who
    is not watching."""
    monkeypatch.setattr(hub_module, "FANOUT_CHUNK", 2)

    async def scenario() -> tuple[list[Recorder], Recorder]:
        hub, sockets = watched_hub(5)
        away = Recorder("away")
        hub.attach(away)  # connected, watching no table
        hub.broadcast("t", {"n": "step"})
        hub.broadcast("t", {"n": "state"})
        hub.send_players(["p0", "p1", "away", "p4"], lambda index: {"n": f"you{index}"})
        await hub.flushed()
        return sockets, away

    sockets, away = asyncio.run(scenario())
    assert all(socket.got[:2] == ["step", "state"] for socket in sockets)
    joined = [socket for socket in sockets if socket.writes[0] == ["step", "state"]]
    assert len(joined) == 3  # the two of the first chunk got step alone, then state
    assert all(socket.writes[:2] == [["step"], ["state"]] for socket in sockets
               if socket not in joined)  # fmt: skip
    yous = {socket.player.player_id: socket.writes[-1] for socket in sockets if socket.player}
    assert [yous["p0"], yous["p1"], yous["p4"]] == [["you0"], ["you1"], ["you3"]]
    assert away.writes == [["you2"]]


def test_a_broadcast_joins_the_last_one_only_while_its_watchers_are_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A socket that starts watching between two broadcasts gets only the second; one that
    stops gets only the first; every socket gets its messages in order, and two broadcasts
    queued before either started go in one write."""
    monkeypatch.setattr(hub_module, "FANOUT_CHUNK", 2)

    async def scenario() -> tuple[list[Recorder], Recorder]:
        hub, sockets = watched_hub(4)
        late = Recorder("late")
        hub.attach(late)
        hub.broadcast("t", {"n": "a"})  # two sockets at once, the others in the next turn
        hub.watch(late, "t")
        hub.unwatch(sockets[3], "t")
        hub.broadcast("t", {"n": "b"})  # the watchers changed: its own entry
        hub.broadcast("t", {"n": "c"})  # joins b: nothing changed since
        while hub.pending_writes() > 2:  # a to all, then b and c to two sockets
            await asyncio.sleep(0)
        hub.broadcast("t", {"n": "d"})  # joins b and c for the two still waiting for them
        await hub.flushed()
        return sockets, late

    sockets, late = asyncio.run(scenario())
    assert [socket.got for socket in sockets] == [["a", "b", "c", "d"]] * 3 + [["a"]]
    assert late.got == ["b", "c", "d"]
    watching = [*sockets[:3], late]
    assert sorted(socket.writes[-1] for socket in watching) == [
        ["b", "c", "d"], ["b", "c", "d"], ["d"], ["d"]
    ]  # fmt: skip
    assert all(["b", "c"] in socket.writes or ["b", "c", "d"] in socket.writes
               for socket in watching)  # fmt: skip


@pytest.mark.parametrize("seed", range(8))
def test_you_views_of_many_players_are_each_players_own(seed: int) -> None:
    """The one-pass views equal the per-player reference, whatever coins each player has."""
    rules, chart = load_game("boundless")
    cards = Shoe.shuffled(rules.shoe.decks, 0.75, SeededSource(seed))
    round_ = SharedRound(rules, chart=chart, cards=cards)
    count = 60
    rng = np.random.default_rng(seed)
    players = [f"p{index}" for index in range(count)]
    main = rng.choice(np.array([100, 500, 1000]), size=count)
    balances = main + rng.choice(np.array([0, 50, 500, 100_000]), size=count)
    round_.place_bets(players, np.ones(count, dtype=np.int64), main, {}, balances)
    round_.deal()
    asked = [*players[::-1], "nobody"]
    bulk = messages.ViewCache(round_).player_parts(asked)
    reference = [
        messages.ViewCache(round_).player_part(p) if round_.has_player(p) else None for p in asked
    ]
    assert bulk == reference
    assert bulk[-1] is None


def test_client_messages_are_handled_a_few_per_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    """A burst of client messages is spread over turns of the loop, the first ones at once."""
    monkeypatch.setattr(websocket, "MESSAGES_PER_TURN", 2)

    async def scenario() -> list[int]:
        intake = websocket.Intake()
        passed: list[int] = []
        for index in range(5):
            intake.admit(lambda index=index: passed.append(index))  # type: ignore[misc]
        counts = [len(passed)]
        for _ in range(3):
            await asyncio.sleep(0)
            counts.append(len(passed))
        assert passed == [0, 1, 2, 3, 4]
        return counts

    assert asyncio.run(scenario()) == [2, 4, 5, 5]


def test_the_hub_knows_its_connected_humans_apart_from_bots() -> None:
    """What the reality-check watch asks for each second: a copy, not a walk of every socket."""
    hub = Hub()
    human, second, bot = Recorder("ann"), Recorder("ann"), Recorder("bot")
    human.player = second.player = PlayerIdentity(player_id="ann", display_name="Ann", is_bot=False)
    for connection in (human, second, bot):
        hub.attach(connection)
    assert hub.connected_humans() == ["ann"]
    hub.detach(human)
    assert hub.connected_humans() == ["ann"]  # one socket of hers is still here
    hub.detach(second)
    assert hub.connected_humans() == []
