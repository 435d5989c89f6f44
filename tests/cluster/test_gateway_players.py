"""Players on gateways, over the cluster's own message path (in-memory bus, SQLite ledger):
players connect to gateway tables through the message handler (protocol JSON, as a socket sends
it), bet, take or decline insurance and decide from the ``you`` messages they get, beside bots.

The follower equivalence property with players: spread at random over one to three gateways,
with the bus duplicating, replaying and delaying deliveries and some clients sending every
message twice, every position ends with exactly the result and payout it gets in one shared
round on the same shoe with the same players' choices; every wallet ends at its grant plus its
net, and the books balance.
"""

from __future__ import annotations

import asyncio
import itertools
import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sqlalchemy.orm import Session, sessionmaker

from boundless.core.bots import Policy
from boundless.core.cards import ACE
from boundless.core.round.follower import BetsReport
from boundless.core.round.phases import SETTLED
from boundless.server.cluster import Faults, MemoryBus
from boundless.server.cluster.ledger_slice import ClusterLedger
from boundless.server.cluster.protocol import Public
from boundless.server.cluster.slice_records import SliceRecords
from boundless.server.tables.repository import TableRepository
from tests.cluster.conftest import run
from tests.cluster.harness import FAST, dealer_maker, log_of
from tests.cluster.players import (
    GRANT,
    POLICIES,
    GatewayPlayers,
    PlayerClient,
    Style,
    cluster_results,
    gateway_players,
    ledger_sessions,
    play_alone,
    play_cluster,
    seats_of,
    sign_up,
    wallets,
)
from tests.ledger.helpers import assert_books_balance

TIMERS = replace(FAST, betting_seconds=0.4, decision_seconds=5.0, insurance_seconds=5.0)
names = itertools.count(1)


def _ace_up(seed: int) -> bool:
    dealer = dealer_maker(seed)(1)
    dealer.close_bets([BetsReport(frozenset({1}), frozenset({1}))])
    return dealer.up_card is not None and dealer.up_card.rank == ACE


ACE_SEED = next(seed for seed in range(10_000) if _ace_up(seed))
"""A shoe whose first round shows an ace: the insurance window opens (taken and declined)."""
INSURER = Style(1000, Policy.DOUBLER, insures=True, resends=True)
DECLINER = Style(500, Policy.CAUTIOUS, insures=False, resends=False)


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> sessionmaker[Session]:
    return ledger_sessions(tmp_path_factory.mktemp("gateway-players"))


styles = st.builds(
    Style,
    stake=st.sampled_from([100, 500, 1000]),
    policy=st.sampled_from(POLICIES),
    insures=st.booleans(),
    resends=st.booleans(),
)


def spread(
    sessions: sessionmaker[Session],
    table_id: str,
    player_styles: list[Style],
    bot_stakes: list[int],
    count: int,
    chooser: random.Random,
) -> tuple[list[GatewayPlayers], dict[str, str]]:
    gateways = [gateway_players(sessions, table_id, f"g{index}") for index in range(count)]
    ids: dict[str, str] = {}
    for style in player_styles:
        name = f"ana{next(names)}"
        player_id, token = sign_up(sessions, name)
        ids[name] = player_id
        gateway = chooser.choice(gateways)
        gateway.clients.append(PlayerClient(name, token, style, gateway.handler))
    for stake in bot_stakes:
        chooser.choice(gateways).bots.append((f"bot{next(names)}", stake))
    return gateways, ids


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(
    player_styles=[INSURER, DECLINER, INSURER, DECLINER],
    bot_stakes=[100],
    count=2,
    assignment_seed=1,
    seed=ACE_SEED,
    faulty=True,
)
@given(
    player_styles=st.lists(styles, min_size=1, max_size=6),
    bot_stakes=st.lists(st.sampled_from([100, 1000]), max_size=4),
    count=st.integers(1, 3),
    assignment_seed=st.integers(0, 2**16),
    seed=st.integers(0, 2**16),
    faulty=st.booleans(),
)
def test_players_spread_over_gateways_end_as_in_one_shared_round(
    sessions: sessionmaker[Session],
    player_styles: list[Style],
    bot_stakes: list[int],
    count: int,
    assignment_seed: int,
    seed: int,
    faulty: bool,
) -> None:
    table_id = f"players-{next(names)}"
    chooser = random.Random(assignment_seed)
    gateways, ids = spread(sessions, table_id, player_styles, bot_stakes, count, chooser)
    faults = (
        Faults(seed=seed, duplicate_rate=0.2, replay_rate=0.2, delay_rate=0.2) if faulty else None
    )
    bus = MemoryBus(faults=faults)
    ledger = ClusterLedger(sessions, "c1")
    run(
        play_cluster(
            bus, gateways, table_id=table_id, seed=seed, timers=TIMERS, coordinator_ledger=ledger
        ),
        timeout=60,
    )
    seats = seats_of(gateways, ids)
    alone = play_alone(seats, seed=seed)
    assert cluster_results(gateways) == alone
    clients = [client for gateway in gateways for client in gateway.clients]
    ended = wallets(sessions, list(ids.values()))
    for client in clients:
        player = ids[client.name]
        result, payout = alone[player]
        # Each of the player's own decisions came from their client, none from autoplay.
        assert all(by == "player" for hand in result.hands for _, by, _ in hand.decisions)
        (settled,) = client.settled
        assert "cancelled" not in settled
        assert settled["net"] == payout - result.staked_amount
        assert settled["balance"] == ended[player] == GRANT + settled["net"]
        refused = {error["error"] for error in client.errors}
        # A resent message is refused, never applied twice (a resent bet replays its answer).
        assert refused <= {"illegal_action", "wrong_phase", "rules_error"}, client.errors
    for gateway in gateways:
        assert gateway.table.round is not None and gateway.table.round.phase == SETTLED
    assert_books_balance(sessions)


def two_gateways(
    sessions: sessionmaker[Session], table_id: str, style: Style
) -> tuple[GatewayPlayers, GatewayPlayers, dict[str, tuple[str, str]]]:
    """Gateways a and b with two signed-up players each; (player id, token) by name."""
    pair = (gateway_players(sessions, table_id, "a"), gateway_players(sessions, table_id, "b"))
    tokens: dict[str, tuple[str, str]] = {}
    for gateway in pair:
        for _ in range(2):
            name = f"ben{next(names)}"
            tokens[name] = sign_up(sessions, name)
            gateway.clients.append(PlayerClient(name, tokens[name][1], style, gateway.handler))
    return pair[0], pair[1], tokens


def test_a_dropped_gateways_players_are_refunded_recorded_and_told_once_elsewhere(
    sessions: sessionmaker[Session],
) -> None:
    """Gateway b stops answering mid-step: the coordinator drops it and refunds its players'
    slice; of its players, the one back on gateway a when the round closes gets ``settled`` with
    the cancellation then, the one who comes back later gets it at their ``hello``; a's players
    settle; nobody is told twice."""
    table_id = f"drop-{next(names)}"
    style = Style(1000, POLICIES[0], insures=False, resends=False)
    a, b, tokens = two_gateways(sessions, table_id, style)
    moved: list[PlayerClient] = []

    async def body() -> list[str]:
        from boundless.server.cluster.coordinator import Coordinator
        from boundless.server.cluster.gateway import Gateway
        from tests.cluster.harness import dealer_maker

        bus = MemoryBus()
        follow_a = Gateway(bus, table_id, "a", a.new_slice, watcher=a.table)
        follow_b = Gateway(bus, table_id, "b", b.new_slice, watcher=b.table)
        a.table.gateway, b.table.gateway = follow_a, follow_b
        for client in a.clients + b.clients:
            await client.sit(table_id)
        coordinator = Coordinator(
            bus,
            table_id,
            "c1",
            dealer_maker(7),  # its first round has decision steps
            replace(TIMERS, report_seconds=0.3, decision_seconds=0.3),
            gateways=frozenset({"a", "b"}),
            ledger=ClusterLedger(sessions, "c1"),
            records=SliceRecords(sessions),
        )
        doomed = asyncio.ensure_future(follow_b.run())

        async def kill_b_and_move_its_players() -> None:
            async for stored in bus.events(table_id, from_seq=1):
                if stored.event.kind == Public.STEP_CLOSED and not doomed.done():
                    doomed.cancel()  # like kill -9: no goodbye, no more reports
                    b.table.gateway = None
                    for client in b.clients:
                        b.handler.forget(client)  # its sockets die with it
                    first = b.clients[0]  # reconnected through the balancer at once: to a
                    again = PlayerClient(first.name, first.token, style, a.handler)
                    await again.sit(table_id)
                    moved.append(again)
                if stored.event.kind in (Public.ROUND_CLOSED, Public.ROUND_CANCELLED):
                    return

        await asyncio.gather(coordinator.run(rounds=1), follow_a.run(rounds=1),
                             kill_b_and_move_its_players())  # fmt: skip
        return [stored.event.kind for stored in await log_of(bus, table_id)]

    kinds = run(body(), timeout=60)
    assert kinds.count(Public.GATEWAY_DROPPED) == 1

    async def hello_again(client: PlayerClient) -> PlayerClient:
        again = PlayerClient(client.name, client.token, style, a.handler)
        await again.sit(table_id)
        await asyncio.sleep(0.1)  # what the gateway would tell at hello has gone out
        return again

    later = run(hello_again(b.clients[1]))  # back after the round closed: told at hello
    players = {name: player_id for name, (player_id, _) in tokens.items()}
    ended = wallets(sessions, list(players.values()))
    for client in (*moved, later):
        (told,) = client.settled
        assert told["cancelled"] and told["net"] == 0 and told["staked"] == told["paid"] == 1000
        assert told["balance"] == ended[players[client.name]] == GRANT
    for client in a.clients:
        (settled,) = client.settled
        assert "cancelled" not in settled
        assert settled["balance"] == ended[players[client.name]] == GRANT + settled["net"]
    for client in b.clients:
        assert not run(hello_again(client)).settled  # told once, not on every hello
    assert_books_balance(sessions)


def test_a_player_who_moves_to_another_gateway_mid_round_is_told_there(
    sessions: sessionmaker[Session],
) -> None:
    """No sticky sessions: a player's socket moves from gateway a to gateway b mid-round. Their
    position stays on a, which autoplays it from then on and settles it; b sends the player
    ``settled`` when the round closes (once: a later hello tells them nothing)."""
    table_id = f"move-{next(names)}"
    style = Style(1000, POLICIES[0], insures=False, resends=False)
    a = gateway_players(sessions, table_id, "a")
    b = gateway_players(sessions, table_id, "b")
    name = f"cy{next(names)}"
    player_id, token = sign_up(sessions, name)
    mover = PlayerClient(name, token, style, a.handler)
    a.clients.append(mover)
    b.bots.append((f"bot{next(names)}", 100))
    moved: list[PlayerClient] = []

    async def body() -> None:
        bus = MemoryBus()

        async def move_at_the_deal() -> None:
            async for stored in bus.events(table_id, from_seq=1):
                if stored.event.body.get("type") == "CardsDealt" and not moved:
                    a.handler.forget(mover)  # the socket to a closes...
                    again = PlayerClient(name, token, style, b.handler)
                    await again.sit(table_id)  # ...and the balancer sends the next one to b
                    moved.append(again)
                if stored.event.kind in (Public.ROUND_CLOSED, Public.ROUND_CANCELLED):
                    return

        await asyncio.gather(
            play_cluster(bus, [a, b], table_id=table_id, seed=7, timers=TIMERS,
                         coordinator_ledger=ClusterLedger(sessions, "c1")),
            move_at_the_deal(),
        )  # fmt: skip

    run(body(), timeout=60)
    (again,) = moved
    (told,) = again.settled
    assert "cancelled" not in told and told["round_id"] == f"{table_id}:1", told.get("cancelled")
    assert told["balance"] == wallets(sessions, [player_id])[player_id] == GRANT + told["net"]
    assert not mover.settled  # nothing reached the closed socket
    positions = told["results"]
    decisions = [d["by"] for p in positions for h in p["hands"] for d in h["decisions"]]
    assert "player" not in decisions  # from the move on, autoplayed on gateway a

    async def hello_again() -> PlayerClient:
        later = PlayerClient(name, token, style, b.handler)
        await later.sit(table_id)
        await asyncio.sleep(0.1)  # what the gateway would tell at hello has gone out
        return later

    assert not run(hello_again()).settled


def test_a_gateway_and_the_coordinator_failing_in_one_round_its_players_are_told_once(
    sessions: sessionmaker[Session],
) -> None:
    """Gateway b and the coordinator both die mid-step. The standby cancels the round: gateway
    a cancels and records its own slice, the standby cancels b's (its gateway is gone) and writes
    b's players' play record lines, untold. b's player already back on a is told when the next
    round opens; the one who comes back later at their ``hello``; each once, a's players once."""
    table_id = f"twofold-{next(names)}"
    style = Style(1000, POLICIES[0], insures=False, resends=False)
    a, b, tokens = two_gateways(sessions, table_id, style)
    moved: list[PlayerClient] = []
    # A report deadline a loaded machine meets: the gateways must not be dropped before the kill.
    timers = replace(TIMERS, report_seconds=1.5, decision_seconds=0.5)

    async def body() -> list[tuple[int, str]]:
        from boundless.server.cluster.coordinator import Coordinator
        from boundless.server.cluster.gateway import Gateway

        bus = MemoryBus(lease_seconds=0.5)
        follow_a = Gateway(bus, table_id, "a", a.new_slice, watcher=a.table)
        follow_b = Gateway(bus, table_id, "b", b.new_slice, watcher=b.table)
        a.table.gateway, b.table.gateway = follow_a, follow_b

        def coordinator(holder: str) -> Coordinator:
            return Coordinator(
                bus, table_id, holder, dealer_maker(7), timers,
                gateways=frozenset({"a", "b"}),
                ledger=ClusterLedger(sessions, holder),
                records=SliceRecords(sessions),
            )  # fmt: skip

        for client in a.clients + b.clients:
            await client.sit(table_id)
        doomed = [asyncio.ensure_future(follow_b.run()),
                  asyncio.ensure_future(coordinator("c1").run())]  # fmt: skip

        async def kill_both_and_move_a_player() -> None:
            async for stored in bus.events(table_id, from_seq=1):
                if stored.event.kind == Public.STEP_CLOSED and not doomed[0].done():
                    for task in doomed:
                        task.cancel()  # like kill -9 of both in the same round
                    b.table.gateway = None
                    for client in b.clients:
                        b.handler.forget(client)
                    first = b.clients[0]
                    again = PlayerClient(first.name, first.token, style, a.handler)
                    await again.sit(table_id)
                    moved.append(again)
                if stored.event.kind == Public.ROUND_CANCELLED:
                    return

        await asyncio.gather(follow_a.run(rounds=2), kill_both_and_move_a_player(),
                             coordinator("c2").run(rounds=1))  # fmt: skip
        return [(s.event.round_number, s.event.kind) for s in await log_of(bus, table_id)]

    log = run(body(), timeout=60)
    assert (1, Public.ROUND_CANCELLED) in log and (1, Public.GATEWAY_DROPPED) not in log
    round_one = f"{table_id}:1"

    async def hello_again(client: PlayerClient) -> PlayerClient:
        again = PlayerClient(client.name, client.token, style, a.handler)
        await again.sit(table_id)
        await asyncio.sleep(0.1)
        return again

    later = run(hello_again(b.clients[1]))
    players = {name: player_id for name, (player_id, _) in tokens.items()}
    for client in (*moved, later, *a.clients):
        (told,) = [m for m in client.settled if m["round_id"] == round_one]
        assert told["cancelled"] and told["net"] == 0 and told["staked"] == told["paid"] == 1000
    for client in (*b.clients, *a.clients):
        again = run(hello_again(client))
        assert not [m for m in again.settled if m["round_id"] == round_one]  # told once
    with sessions.begin() as session:
        row = TableRepository(session).round_row(table_id, 1)
        assert row is not None and row.status == "cancelled"
    assert_books_balance(sessions)
    lines = _round_lines(sessions, row.id)
    assert set(lines) == set(players.values())  # every player's record has the round
    assert all(status == "cancelled" and untold is None for status, untold in lines.values())
    assert wallets(sessions, [players[c.name] for c in b.clients[1:]]) == {
        players[b.clients[1].name]: GRANT
    }


def _round_lines(sessions: sessionmaker[Session], round_id: int) -> dict[str, tuple[str, object]]:
    from sqlalchemy import select

    from boundless.server.storage.models import RoundPlayer

    with sessions.begin() as session:
        rows = session.execute(
            select(RoundPlayer.player_id, RoundPlayer.status, RoundPlayer.untold).where(
                RoundPlayer.round_id == round_id
            )
        )
        return {row[0]: (row[1], row[2]) for row in rows}


def test_a_live_gateway_too_slow_for_the_takeover_tells_its_players_once(
    sessions: sessionmaker[Session],
) -> None:
    """The coordinator dies mid-step and gateway a takes longer than ``report_seconds`` to act
    on the standby's ``round_cancelled``: the standby cancels a's slice and records a's players
    (untold) itself. When a catches up it tells each connected player once, and their next
    ``hello`` tells them nothing more."""
    from boundless.server.cluster.coordinator import Coordinator
    from boundless.server.cluster.gateway import Gateway
    from boundless.server.cluster.protocol import Public as Kind

    class SlowGateway(Gateway):
        async def _take(self, stored, *, following=False):  # type: ignore[no-untyped-def]
            if stored.event.kind == Kind.ROUND_CANCELLED:
                await asyncio.sleep(1.0)  # past the standby's report deadline (0.3 s)
            await super()._take(stored, following=following)

    table_id = f"slow-{next(names)}"
    style = Style(1000, POLICIES[0], insures=False, resends=False)
    a, _, tokens = two_gateways(sessions, table_id, style)
    timers = replace(TIMERS, report_seconds=1.5, decision_seconds=0.5)  # c1 drops nobody

    async def body() -> None:
        bus = MemoryBus(lease_seconds=0.5)
        follow = SlowGateway(bus, table_id, "a", a.new_slice, watcher=a.table)
        a.table.gateway = follow
        for client in a.clients:
            await client.sit(table_id)

        def coordinator(holder: str, report_seconds: float) -> Coordinator:
            return Coordinator(bus, table_id, holder, dealer_maker(7),
                               replace(timers, report_seconds=report_seconds),
                               gateways=frozenset({"a"}), ledger=ClusterLedger(sessions, holder),
                               records=SliceRecords(sessions))  # fmt: skip

        doomed = asyncio.ensure_future(coordinator("c1", 1.5).run())

        async def kill_at_step_close() -> None:
            async for stored in bus.events(table_id, from_seq=1):
                if stored.event.kind == Public.STEP_CLOSED:
                    doomed.cancel()
                    return

        await asyncio.gather(follow.run(rounds=2), kill_at_step_close(),
                             coordinator("c2", 0.3).run(rounds=1))  # fmt: skip

    run(body(), timeout=60)
    round_one = f"{table_id}:1"
    for client in a.clients:
        (told,) = [m for m in client.settled if m["round_id"] == round_one]
        assert told["cancelled"] and told["net"] == 0
        again = PlayerClient(client.name, client.token, style, a.handler)
        run(again.sit(table_id))
        run(asyncio.sleep(0.1))
        assert not [m for m in again.settled if m["round_id"] == round_one]
    players = [player_id for name, (player_id, _) in tokens.items() if name in
               {client.name for client in a.clients}]  # fmt: skip
    with sessions.begin() as session:
        row = TableRepository(session).round_row(table_id, 1)
        assert row is not None
    assert_books_balance(sessions)
    lines = _round_lines(sessions, row.id)
    assert {player: lines[player] for player in players} == {
        p: ("cancelled", None) for p in players
    }
