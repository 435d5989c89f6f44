"""The cluster's ledger slices on a SQLite ledger, over the in-memory bus: each gateway stakes and
settles its own slice, a dropped gateway's slice is refunded exactly once, and every wallet ends
at its grant plus the nets of its settled rounds."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from boundless.core.round import events as ev
from boundless.core.round.follower import FollowerRound
from boundless.ledger import LedgerService, check_books, make_engine, make_session_factory
from boundless.ledger.database import upgrade_database
from boundless.server.cluster import MemoryBus
from boundless.server.cluster.coordinator import Coordinator
from boundless.server.cluster.gateway import Gateway, SliceMaker
from boundless.server.cluster.ledger_slice import ClusterLedger, LedgerSlice
from boundless.server.cluster.protocol import Public
from boundless.server.cluster.slices import SliceSide
from tests.cluster.conftest import run
from tests.cluster.harness import CHART, FAST, RULES, TABLE, dealer_maker

GRANT = 10_000


@dataclass
class Books:
    sessions: object
    slices: dict[str, list[LedgerSlice]] = field(default_factory=dict)

    def ledger(self, owner: str) -> ClusterLedger:
        return ClusterLedger(self.sessions, owner)  # type: ignore[arg-type]

    def maker(self, gateway: str, players: list[str]) -> SliceMaker:
        ledger = self.ledger(gateway)
        ledger.grant_once(players, GRANT)

        def new_slice(round_number: int, opened: ev.RoundOpened) -> SliceSide:
            follower = FollowerRound(RULES, opened, chart=CHART)
            balances = ledger.balances(players)
            for player in players:
                follower.place_bet(player, 1, 500, {}, free_amount=balances[player])
            made = LedgerSlice(follower, ledger, TABLE)
            made.round_no = round_number
            self.slices.setdefault(gateway, []).append(made)
            return made

        return new_slice

    def nets(self) -> dict[str, int]:
        """Each player's net over the slices that settled (cancelled ones net zero)."""
        out: dict[str, int] = {}
        for slices in self.slices.values():
            for made in slices:
                if not made.settled:
                    continue
                follower = made.follower
                owed, staked = follower.final_payouts(), follower.staked()
                for position in range(follower.position_count()):
                    player = follower.player_of(position)
                    net = int(owed[position]) - int(staked[position])
                    out[player] = out.get(player, 0) + net
        return out


@pytest.fixture
def books(tmp_path: Path) -> Books:
    url = f"sqlite:///{tmp_path / 'ledger.sqlite'}"
    upgrade_database(url)
    return Books(make_session_factory(make_engine(url)))


def balances_and_report(books: Books, players: list[str]):  # type: ignore[no-untyped-def]
    with books.sessions.begin() as session:  # type: ignore[attr-defined]
        service = LedgerService(session)
        return service.wallet_balances(players), check_books(session)


PLAYERS = {"a": ["a1", "a2", "a3"], "b": ["b1", "b2"]}
EVERYONE = [p for group in PLAYERS.values() for p in group]


def test_two_gateways_settle_their_own_slices_and_the_books_balance(books: Books) -> None:
    async def body() -> None:
        bus = MemoryBus()
        coordinator = Coordinator(
            bus,
            TABLE,
            "c1",
            dealer_maker(5),
            FAST,
            gateways=frozenset(PLAYERS),
            ledger=books.ledger("c1"),
        )
        gateways = [Gateway(bus, TABLE, g, books.maker(g, ps)) for g, ps in PLAYERS.items()]
        await asyncio.gather(coordinator.run(rounds=3), *(g.run(rounds=3) for g in gateways))

    run(body())
    wallets, report = balances_and_report(books, EVERYONE)
    assert report.ok, report.summary()
    assert report.rounds == {"closed": 3}
    assert report.slices == {"settled": 6}
    nets = books.nets()
    assert wallets == {player: GRANT + nets[player] for player in EVERYONE}
    assert any(nets.values())  # the rounds did move coins


def test_a_dropped_gateway_is_refunded_once_and_the_other_settles(books: Books) -> None:
    async def body() -> list[str]:
        bus = MemoryBus()
        from dataclasses import replace

        coordinator = Coordinator(
            bus,
            TABLE,
            "c1",
            dealer_maker(7),  # a shoe whose first round has decision steps
            replace(FAST, report_seconds=0.3),
            gateways=frozenset(PLAYERS),
            ledger=books.ledger("c1"),
        )
        a, b = (Gateway(bus, TABLE, g, books.maker(g, ps)) for g, ps in PLAYERS.items())
        doomed = asyncio.ensure_future(b.run())

        async def kill_b() -> None:
            async for stored in bus.events(TABLE, from_seq=1):
                # At the step's opening: b is gone before the close, whichever consumer of
                # the log the loop wakes first (b's takers report can never be sent).
                if stored.event.kind == Public.TABLE and stored.event.body.get("type") == (
                    "StepOpened"
                ):
                    doomed.cancel()  # like kill -9: no goodbye, no more reports
                if stored.event.kind in (Public.ROUND_CLOSED, Public.ROUND_CANCELLED):
                    return

        await asyncio.gather(coordinator.run(rounds=1), a.run(rounds=1), kill_b())
        return [s.event.kind for s in await _all(bus)]

    kinds = run(body())
    assert kinds.count(Public.GATEWAY_DROPPED) == 1
    # b's own restart recovery finds nothing left to cancel: the coordinator did it, once.
    with books.sessions.begin() as session:  # type: ignore[attr-defined]
        assert LedgerService(session, "b").recover_owner() == []
    wallets, report = balances_and_report(books, EVERYONE)
    assert report.ok, report.summary()
    assert report.slices == {"settled": 1, "cancelled": 1}
    nets = books.nets()
    for player in PLAYERS["b"]:
        assert wallets[player] == GRANT  # refunded in full
    for player in PLAYERS["a"]:
        assert wallets[player] == GRANT + nets[player]


async def _all(bus: MemoryBus):  # type: ignore[no-untyped-def]
    from tests.cluster.harness import log_of

    return await log_of(bus)


def test_a_takeover_cancel_that_loses_the_race_to_the_gateways_is_done_not_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The standby coordinator checks the round is open, then every gateway cancels its slice
    (the round closes itself as cancelled) before the coordinator writes its cancel: that is the
    outcome it wanted, so it must not crash the coordinator (it did, under load, in CI)."""
    engine = make_engine(f"sqlite:///{tmp_path / 'race.sqlite'}")
    upgrade_database(engine)
    sessions = make_session_factory(engine)
    books = Books(sessions)
    coordinator = books.ledger("coordinator:standby")
    run(coordinator.open_round(TABLE, 4))
    for gateway, player in (("gateway:a", "ana"), ("gateway:b", "ben")):
        ledger = books.ledger(gateway)
        ledger.grant_once([player], GRANT)
        with sessions.begin() as session:
            LedgerService(session, gateway).stake(TABLE, 4, player, f"{player}@1", "main", 500)
    with sessions.begin() as session:
        stale = LedgerService(session).round_info(TABLE, 4)  # what the check saw: open
    assert stale is not None and stale.status == "open"
    for gateway in ("gateway:a", "gateway:b"):
        run(books.ledger(gateway).cancel_slice(TABLE, 4, gateway))
    monkeypatch.setattr(LedgerService, "round_info", lambda self, table, number: stale)
    run(coordinator.cancel_round(TABLE, 4))  # no RoundClosedError
    monkeypatch.undo()
    with sessions.begin() as session:
        service = LedgerService(session)
        info = service.round_info(TABLE, 4)
        assert info is not None and info.status == "cancelled"
        assert service.wallet_balance("ana") == GRANT
        assert service.wallet_balance("ben") == GRANT
        assert check_books(session).ok
    engine.dispose()
