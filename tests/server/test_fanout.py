"""The hub's outbox (a chunk of sockets per loop turn, each socket's messages in order) and the
``you`` views built for many players at once."""

from __future__ import annotations

import asyncio

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
from boundless.server.messages import Frame
from boundless.server.players.service import PlayerIdentity
from boundless.titles import load_game


class Recorder(Connection):
    def __init__(self, player_id: str) -> None:
        super().__init__()
        self.player = PlayerIdentity(player_id=player_id, display_name=player_id, is_bot=True)
        self.got: list[str] = []
        self.closed_with: str | None = None

    def push(self, frame: Frame) -> None:
        assert self.closed_with is None, "a frame after the close"
        self.got.append(orjson.loads(frame.data)["n"])

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
        pending = [hub.pending_frames()]  # only the first chunk went at once
        await asyncio.sleep(0)
        pending.append(hub.pending_frames())
        await hub.flushed()
        pending.append(hub.pending_frames())
        return pending, sockets

    pending, sockets = asyncio.run(scenario())
    assert pending == [19, 16, 0]
    assert sockets[0].got == ["step", "state", "ack"]
    assert sockets[9].got == ["step", "state", "you"]
    assert all(socket.got[:2] == ["step", "state"] for socket in sockets)


def test_without_a_running_loop_everything_is_written_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(hub_module, "FANOUT_CHUNK", 2)
    hub, sockets = watched_hub(5)
    hub.broadcast("t", {"n": "state"})
    assert hub.pending_frames() == 0
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

        async def message(index: int) -> None:
            await intake.turn()
            passed.append(index)

        tasks = [asyncio.ensure_future(message(index)) for index in range(5)]
        counts = []
        for _ in range(4):
            await asyncio.sleep(0)
            counts.append(len(passed))
        await asyncio.gather(*tasks)
        return counts

    counts = asyncio.run(scenario())
    assert counts[0] == 2 and counts[-1] == 5
    assert counts == sorted(counts) and len(set(counts)) > 2
