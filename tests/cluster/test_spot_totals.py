"""The table's bets on each spot on a cluster: each gateway's ``bets_closed`` report carries its
positions' totals, the coordinator sums the reports it counted and publishes them in ``slices``,
and every gateway's ``state`` then shows the same ``public.spot_bets`` as one ``serve`` round
holding every position (on the in-memory bus and on NATS JetStream)."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import replace
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from boundless.core.random_source import SeededSource
from boundless.core.round.dealer_table import TableDealer
from boundless.core.round.round import SharedRound
from boundless.core.round.views import spot_bets
from boundless.core.shoe import Shoe
from boundless.server.cluster.coordinator import Coordinator
from boundless.server.cluster.gateway import Gateway
from boundless.server.cluster.gateway_table import GatewayTable
from boundless.server.cluster.protocol import Public
from boundless.server.cluster.spot_totals import (
    published_spot_bets,
    report_spot_bets,
    table_spot_bets,
)
from boundless.server.gateway.handler import MessageHandler
from boundless.server.gateway.hub import Hub
from boundless.titles import load_game
from tests.cluster.conftest import BusMaker, run
from tests.cluster.harness import FAST, log_of
from tests.cluster.players import (
    GRANT,
    POLICIES,
    GatewayPlayers,
    PlayerClient,
    Style,
    ledger_sessions,
    sign_up,
)

UNLIMITED, UNLIMITED_CHART = load_game("unlimited")  # a shared table of three spots
TIMERS = replace(FAST, betting_seconds=1.5, decision_seconds=5.0, insurance_seconds=5.0)
STYLE = Style(100, POLICIES[0], insures=False, resends=False)
names = itertools.count(1)


class SpotPlayer(PlayerClient):
    """A player who bets the given stakes on the given spots."""

    stakes: dict[str, int]

    def _bet(self, round_id: str) -> None:
        if self._once("bet", round_id):
            bets = {spot: {"main": stake} for spot, stake in self.stakes.items()}
            bet_id = f"{round_id.replace(':', '-')}-{self.name}"
            self.send({"type": "bet", "table_id": self.table_id, "bet_id": bet_id, "bets": bets})


def _gateway(sessions: sessionmaker[Session], table_id: str, name: str) -> GatewayPlayers:
    hub = Hub()
    table = GatewayTable(table_id=table_id, gateway=name, rules=UNLIMITED, chart=UNLIMITED_CHART,
                         hub=hub, sessions=sessions, bet_batch_seconds=0.01)  # fmt: skip
    return GatewayPlayers(name, table, MessageHandler(table, hub, sessions, 1000.0))


def _player(
    sessions: sessionmaker[Session], gateway: GatewayPlayers, stakes: dict[str, int]
) -> str:
    name = f"spots{next(names)}"
    player_id, token = sign_up(sessions, name)
    client = SpotPlayer(name, token, STYLE, gateway.handler)
    client.stakes = stakes
    gateway.clients.append(client)
    return player_id


def _dealer(round_number: int) -> TableDealer:
    shoe = Shoe.shuffled(UNLIMITED.shoe.decks, 0.75, SeededSource(5 + round_number))
    return TableDealer(UNLIMITED, cards=shoe)


def _closed_states(client: PlayerClient) -> list[dict[str, Any]]:
    """The client's ``state`` messages after the bet close (the round dealt)."""
    return [
        m
        for m in client.seen
        if m["type"] == "state"
        and (m.get("public") or {}).get("phase") not in (None, "betting", "waiting")
    ]


def test_every_gateway_shows_the_tables_bets_on_each_spot_as_serve_would(
    bus_maker: BusMaker, tmp_path_factory: Any
) -> None:
    sessions = ledger_sessions(tmp_path_factory.mktemp("spot-totals"))
    table_id = f"spots-{bus_maker.kind}"
    a, b = _gateway(sessions, table_id, "a"), _gateway(sessions, table_id, "b")
    seats = {
        _player(sessions, a, {"1": 1000, "2": 300}): {"1": 1000, "2": 300},
        _player(sessions, a, {"2": 200}): {"2": 200},
        _player(sessions, b, {"3": 500, "1": 100}): {"3": 500, "1": 100},
    }

    async def body() -> list[tuple[str, dict[str, Any]]]:
        bus = await bus_maker.make()
        try:
            followers = []
            for gateway in (a, b):
                follow = Gateway(bus, table_id, gateway.name, gateway.new_slice,
                                 watcher=gateway.table)  # fmt: skip
                gateway.table.gateway = follow
                followers.append(follow)
                for client in gateway.clients:
                    await client.sit(table_id)
            coordinator = Coordinator(bus, table_id, "c1", _dealer, TIMERS,
                                      gateways=frozenset({"a", "b"}))  # fmt: skip
            await asyncio.gather(coordinator.run(rounds=1), *(f.run(rounds=1) for f in followers))
            return [(s.event.kind, s.event.body) for s in await log_of(bus, table_id)]
        finally:
            await bus.close()

    log = run(body(), timeout=60)
    # What one serve round holding every position publishes (the same pure function).
    alone = SharedRound(UNLIMITED, chart=UNLIMITED_CHART)
    for player, stakes in seats.items():
        for spot, stake in stakes.items():
            alone.place_bet(player, int(spot), stake, {}, free_amount=GRANT)
    expected = spot_bets(alone)
    assert expected == {
        "1": {"positions": 2, "main": 1100, "side": 0},
        "2": {"positions": 2, "main": 500, "side": 0},
        "3": {"positions": 1, "main": 500, "side": 0},
    }
    slices = [body for kind, body in log if kind == Public.SLICES]
    assert len(slices) == 1 and slices[0]["spot_bets"] == expected
    assert "spot_bets_partial" not in slices[0]
    for client in a.clients + b.clients:
        states = _closed_states(client)
        assert states, f"{client.name} saw no state after the bet close"
        for state in states:
            assert state["public"]["spot_bets"] == expected, client.name
            assert "spot_bets_partial" not in state["public"]


def test_an_older_report_counts_as_zero_and_the_totals_say_they_are_partial() -> None:
    new = {"spots": [1], "spot_bets": {"1": {"positions": 2, "main": 700, "side": 100}}}
    one = {"positions": 1, "main": 100, "side": 0}
    also = {"spots": [1, 2], "spot_bets": {"1": one, "2": {**one, "main": 300}}}
    older = {"spots": [2], "players": 1, "positions": 1}
    published = table_spot_bets({"a": new, "b": also, "c": older}, {"a", "b", "c"})
    assert published == {
        "spot_bets": {
            "1": {"positions": 3, "main": 800, "side": 100},
            "2": {"positions": 1, "main": 300, "side": 0},
        },
        "spot_bets_partial": True,
    }
    # Only the counted gateways are summed (one dropped at the bet close is not among them).
    assert table_spot_bets({"a": new, "b": also}, {"a"}) == {"spot_bets": new["spot_bets"]}
    assert table_spot_bets({}, set()) == {"spot_bets": {}}
    # A gateway shows the partial flag; a coordinator of an older release publishes nothing.
    assert published_spot_bets(published) == published
    assert published_spot_bets({"gateways": ["a"], "players": 1, "positions": 1}) is None


def test_a_malformed_report_is_not_summed() -> None:
    good = {"positions": 1, "main": 100, "side": 0}
    for bad in (
        [],
        {"x": good},
        {"1": {"positions": 1, "main": 100}},
        {"1": {**good, "main": -5}},
        {"1": {**good, "main": 1.5}},
        {"1": {**good, "main": True}},
        {"1": "100"},
    ):
        assert report_spot_bets({"spot_bets": bad}) is None, bad
        assert table_spot_bets({"a": {"spot_bets": bad}}, {"a"}) == {
            "spot_bets": {},
            "spot_bets_partial": True,
        }
    assert report_spot_bets({"spot_bets": {"1": good}}) == {"1": good}
