"""Cluster gateways on PostgreSQL while the database is briefly away (a TCP proxy between one
gateway, or the coordinator, and PostgreSQL, cut and restored by the test), over the in-memory
bus: a slice settlement is tried again under the same keys and settles exactly once; one that
outlasts the coordinator's settle deadline still settles (the coordinator never cancels it); one
that outlasts the gateway's own retry budget ends cancelled by its recovery, never both; bets
whose stake hits the outage are refused and that gateway sits the round out."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import pytest

from boundless.ledger import (
    Category,
    LedgerService,
    LedgerUnavailableError,
    RoundClosedError,
    check_books,
    make_engine,
    make_session_factory,
    upgrade_database,
)
from boundless.ledger import outage as ledger_outage
from boundless.server.cluster import MemoryBus
from boundless.server.cluster.coordinator import Coordinator, CoordinatorTimers
from boundless.server.cluster.gateway import Gateway
from boundless.server.cluster.ledger_slice import ClusterLedger
from boundless.server.cluster.protocol import Public
from tests.cluster.conftest import run
from tests.cluster.harness import FAST, TABLE, dealer_maker, log_of
from tests.cluster.test_cluster_ledger import GRANT, Books
from tests.outage_proxy import OutageProxy, outage_proxy
from tests.postgres import postgres_schema

PLAYERS = {"a": ["a1", "a2", "a3"], "b": ["b1", "b2"]}
EVERYONE = [p for group in PLAYERS.values() for p in group]


@dataclass
class Setup:
    direct: Books
    """The books as gateway b and the checks see them (never cut)."""
    proxied: Books
    """The same database through the proxy: gateway a's (and, when asked, the coordinator's)."""
    proxy: OutageProxy
    url: str


@pytest.fixture
def setup() -> Iterator[Setup]:
    with postgres_schema("gateway_outage") as url, outage_proxy(url) as (proxy, through_proxy):
        upgrade_database(url)
        engines = [make_engine(url), make_engine(through_proxy)]
        try:
            direct, proxied = (Books(make_session_factory(engine)) for engine in engines)
            yield Setup(direct, proxied, proxy, url)
        finally:
            proxy.restore()
            for engine in engines:
                engine.dispose()


def cut_on_first(
    monkeypatch: pytest.MonkeyPatch, setup: Setup, method: str, outage_seconds: float | None
) -> None:
    """Gateway a's first ``ClusterLedger.<method>`` call cuts the database just before it runs;
    it comes back ``outage_seconds`` later (never, for None)."""
    original = getattr(ClusterLedger, method)
    done: list[bool] = []

    def cut() -> None:
        setup.proxy.cut()
        if outage_seconds is None:
            return
        try:
            asyncio.get_running_loop().call_later(outage_seconds, setup.proxy.restore)
        except RuntimeError:  # a synchronous call, in the worker thread that runs it
            threading.Timer(outage_seconds, setup.proxy.restore).start()

    if asyncio.iscoroutinefunction(original):

        async def cutting(self: ClusterLedger, *args: Any) -> Any:
            if self.owner == "a" and not done:
                done.append(True)
                cut()
            return await original(self, *args)

    else:

        def cutting(self: ClusterLedger, *args: Any) -> Any:  # type: ignore[misc]
            if self.owner == "a" and not done:
                done.append(True)
                cut()
            return original(self, *args)

    monkeypatch.setattr(ClusterLedger, method, cutting)


async def play_one_round(
    setup: Setup, timers: CoordinatorTimers, *, coordinator_through_proxy: bool
) -> tuple[list[Any], BaseException | None]:
    """One round with gateways a (through the proxy) and b; the stream's events, and what
    gateway a's run ended with (None: it finished the round)."""
    bus = MemoryBus()
    ledger = (setup.proxied if coordinator_through_proxy else setup.direct).ledger("c1")
    coordinator = Coordinator(
        bus, TABLE, "c1", dealer_maker(5), timers, gateways=frozenset(PLAYERS), ledger=ledger
    )
    a = Gateway(bus, TABLE, "a", setup.proxied.maker("a", PLAYERS["a"]))
    b = Gateway(bus, TABLE, "b", setup.direct.maker("b", PLAYERS["b"]))
    a_run = asyncio.ensure_future(a.run(rounds=1))
    await asyncio.gather(coordinator.run(rounds=1), b.run(rounds=1))
    try:
        await asyncio.wait_for(a_run, 30)
        ended: BaseException | None = None
    except Exception as error:
        ended = error
    return list(await log_of(bus)), ended


def played(setup: Setup, timers: CoordinatorTimers, *, coordinator_through_proxy: bool) -> Any:
    """One round in which gateway a, outage and all, finishes its round; its events."""
    events, ended = run(
        play_one_round(setup, timers, coordinator_through_proxy=coordinator_through_proxy)
    )
    assert ended is None, ended
    return events


def books_of(setup: Setup) -> tuple[dict[str, int], Any, list[Any]]:
    """Wallets, the reconciliation, and the round's transactions, read directly."""
    with setup.direct.sessions.begin() as session:  # type: ignore[attr-defined]
        service = LedgerService(session)
        return (
            service.wallet_balances(EVERYONE),
            check_books(session),
            service.round_transactions(TABLE, 1),
        )


def nets(setup: Setup) -> dict[str, int]:
    both = {**setup.direct.nets(), **setup.proxied.nets()}
    return {player: both.get(player, 0) for player in EVERYONE}


def closing(events: list[Any]) -> dict[str, Any]:
    (closed,) = [s.event.body for s in events if s.event.kind == Public.ROUND_CLOSED]
    return dict(closed)


def test_a_settlement_during_an_outage_is_retried_and_settles_once(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    cut_on_first(monkeypatch, setup, "settle", outage_seconds=1.0)
    events = played(setup, FAST, coordinator_through_proxy=False)
    assert closing(events) == {"settled": ["a", "b"], "dropped": []}
    wallets, report, transactions = books_of(setup)
    assert report.ok, report.summary()
    assert report.rounds == {"closed": 1} and report.slices == {"settled": 2}
    settles = [t.owner for t in transactions if t.category == Category.SETTLE]
    assert sorted(settles) == ["a", "b"]  # once each
    assert wallets == {player: GRANT + net for player, net in nets(setup).items()}
    assert setup.proxy.cuts == 1


def test_an_outage_past_the_settle_deadline_still_settles_once(
    setup: Setup, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The coordinator closes the round on the stream without a's report (a is listed as not
    settled, its slice is not cancelled), and its own end of the round, through the same cut
    database, is retried too; a's settlement lands once the database is back and the ledger's
    round closes itself."""
    caplog.set_level(logging.WARNING, logger="boundless.ledger.outage")
    cut_on_first(monkeypatch, setup, "settle", outage_seconds=2.0)
    # b has 1 s to settle (0.5 s was missed once under load); a is cut for 2 s, so it is late.
    events = played(setup, replace(FAST, settle_seconds=1.0), coordinator_through_proxy=True)
    assert closing(events) == {"settled": ["b"], "dropped": ["a"]}
    assert not [s for s in events if s.event.kind == Public.GATEWAY_DROPPED]
    wallets, report, transactions = books_of(setup)
    assert report.ok, report.summary()
    assert report.rounds == {"closed": 1} and report.slices == {"settled": 2}
    assert sorted(t.owner for t in transactions if t.category == Category.SETTLE) == ["a", "b"]
    assert not [t for t in transactions if t.category == Category.CANCEL]
    assert wallets == {player: GRANT + net for player, net in nets(setup).items()}
    retried = " | ".join(r.getMessage() for r in caplog.records)
    assert "a: settlement of t1 round 1" in retried
    assert "c1: ending t1 round 1" in retried  # the coordinator's own call waited too


def test_an_outage_past_the_gateways_retry_budget_ends_cancelled_never_both(
    setup: Setup, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The gateway does not stop: it sits the round out, saying why, and its slice (its
    cancellation not writable either) is cancelled by its recovery, never settled too."""
    caplog.set_level(logging.WARNING, logger="boundless.cluster.gateway")
    monkeypatch.setattr(ledger_outage, "WRITE_RETRY_SECONDS", 0.6)
    cut_on_first(monkeypatch, setup, "settle", outage_seconds=None)
    events, ended = run(play_one_round(setup, FAST, coordinator_through_proxy=False))
    assert ended is None, ended
    (sat_out,) = [r.getMessage() for r in caplog.records if "sitting it out" in r.getMessage()]
    assert "a: settlement of t1 round 1" in sat_out and LedgerUnavailableError.__name__ in sat_out
    assert closing(events)["dropped"] == ["a"]
    setup.proxy.restore()
    setup.proxied.ledger("a").recover()  # gateway a's next start
    (a_slice,) = setup.proxied.slices["a"]
    with pytest.raises(RoundClosedError):  # its settlement can no longer be written
        run(a_slice.ledger.settle(TABLE, 1, [], [(p, 500, 0) for p in PLAYERS["a"]]))
    wallets, report, transactions = books_of(setup)
    assert report.ok, report.summary()
    assert report.slices == {"settled": 1, "cancelled": 1}
    assert [t.owner for t in transactions if t.category == Category.SETTLE] == ["b"]
    assert [t.owner for t in transactions if t.category == Category.CANCEL] == ["a"]
    b_nets = setup.direct.nets()
    assert wallets == {p: GRANT + (b_nets[p] if p in PLAYERS["b"] else 0) for p in EVERYONE}


def test_bets_whose_stake_hits_an_outage_are_refused_and_the_gateway_sits_out(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    cut_on_first(monkeypatch, setup, "stake", outage_seconds=0.5)
    events = played(setup, FAST, coordinator_through_proxy=False)
    (slices,) = [s.event.body for s in events if s.event.kind == Public.SLICES]
    assert slices["gateways"] == ["b"]
    (a_slice,) = setup.proxied.slices["a"]
    assert a_slice.cancelled is not None and "ledger is away" in a_slice.cancelled
    wallets, report, transactions = books_of(setup)
    assert report.ok, report.summary()
    assert report.slices == {"settled": 1}
    assert {t.owner for t in transactions} == {"b"}
    assert all(wallets[p] == GRANT for p in PLAYERS["a"])  # nothing taken, nothing lost
