"""Two owners writing one round at once, and a settlement retried after the database dropped the
connection: settled exactly once, never voided."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import LedgerService, RoundClosedError, grant_key
from tests.ledger.helpers import assert_books_balance, unchanged
from tests.postgres import libpq_dsn, postgres_url

OWNERS = ("gateway:a", "gateway:b")
PER_OWNER = 200
BATCHES = 4


def players_of(owner: str) -> list[str]:
    return [f"{owner[-1]}{i:03d}" for i in range(PER_OWNER)]


def fund_all(sessions: sessionmaker[Session]) -> None:
    everyone = [p for owner in OWNERS for p in players_of(owner)]
    with sessions.begin() as session:
        ledger = LedgerService(session)
        ledger.open_wallets(everyone)
        ledger.grant_many([(p, 1_000, grant_key(p, "signup")) for p in everyone])


def one_slice_staked(sessions: sessionmaker[Session]) -> tuple[str, list[str]]:
    """Everyone funded, and the first owner's players staked 10 each in round 1: (owner, its
    players)."""
    fund_all(sessions)
    owner = OWNERS[0]
    players = players_of(owner)
    with sessions.begin() as session:
        LedgerService(session, owner).stake_many(
            "t1", 1, [(p, f"{p}.0", "main", 10) for p in players]
        )
    return owner, players


def test_two_owners_stake_and_settle_one_round_at_once(sessions: sessionmaker[Session]) -> None:
    fund_all(sessions)
    barrier = threading.Barrier(len(OWNERS))

    def gateway(owner: str) -> bool:
        players = players_of(owner)
        size = PER_OWNER // BATCHES
        barrier.wait()
        for start in range(0, PER_OWNER, size):
            bets = [(p, f"{p}.0", "main", 10) for p in players[start : start + size]]
            with sessions.begin() as session:
                LedgerService(session, owner).stake_many("t1", 1, bets)
                LedgerService(session, owner).stake_many("t1", 1, bets)  # a retry, same batch
        barrier.wait()
        with sessions.begin() as session:
            settled = LedgerService(session, owner).settle_slice(
                "t1", 1, [(p, 10, 20 if i % 2 else 0) for i, p in enumerate(players)]
            )
        return settled.replayed

    with ThreadPoolExecutor(len(OWNERS)) as pool:
        replayed = list(pool.map(gateway, OWNERS))
    assert replayed == [False, False]
    with sessions() as session:
        ledger = LedgerService(session)
        info = ledger.round_info("t1", 1)
        assert info is not None and (info.status, info.in_play_balance) == ("closed", 0)
        assert {s.status for s in ledger.slices_of("t1", 1)} == {"settled"}
        balances = ledger.wallet_balances([p for o in OWNERS for p in players_of(o)])
    assert sum(balances.values()) == 2 * PER_OWNER * 1_000  # as many won 10 as lost 10
    books = assert_books_balance(sessions)
    assert books.house_balance == 0


def test_a_cancel_racing_a_settlement_leaves_one_outcome(sessions: sessionmaker[Session]) -> None:
    """The coordinator cancels a slice while its gateway settles it: whichever is first wins,
    the other is refused (or, for the same write, replays); the books always balance."""
    owner, players = one_slice_staked(sessions)
    barrier = threading.Barrier(2)

    def settle() -> str:
        barrier.wait()
        try:
            with sessions.begin() as session:
                LedgerService(session, owner).settle_slice("t1", 1, [(p, 10, 20) for p in players])
            return "settled"
        except RoundClosedError:
            return "refused"

    def cancel() -> str:
        barrier.wait()
        try:
            with sessions.begin() as session:
                LedgerService(session, "coordinator:t1").cancel_slice("t1", 1, owner)
            return "cancelled"
        except RoundClosedError:
            return "refused"

    with ThreadPoolExecutor(2) as pool:
        outcomes = sorted(f.result() for f in [pool.submit(settle), pool.submit(cancel)])
    assert outcomes in (["refused", "settled"], ["cancelled", "refused"])
    with sessions() as session:
        info = LedgerService(session).round_info("t1", 1)
        assert info is not None and info.status == (
            "closed" if "settled" in outcomes else "cancelled"
        )
        expected = 1_010 if "settled" in outcomes else 1_000
        assert set(LedgerService(session).wallet_balances(players).values()) == {expected}
    assert_books_balance(sessions)


def test_settlement_retried_after_a_lost_commit_reply(sessions: sessionmaker[Session]) -> None:
    """The settlement committed but its caller never heard (the connection dropped): the retry
    with the same keys replays it, a cancellation or a recovery of the slice is refused."""
    owner, players = one_slice_staked(sessions)
    lines = [(p, 10, 25) for p in players]
    with sessions.begin() as session:
        first = LedgerService(session, owner).settle_slice("t1", 1, lines)
    with unchanged(sessions):
        with sessions.begin() as session:
            retried = LedgerService(session, owner).settle_slice("t1", 1, lines)
        assert retried.replayed and retried.id == first.id
        with pytest.raises(RoundClosedError), sessions.begin() as session:
            LedgerService(session, "coordinator:t1").cancel_slice("t1", 1, owner)
        with sessions.begin() as session:
            assert LedgerService(session, owner).recover_owner() == []
    assert_books_balance(sessions)


def test_settlement_retried_after_postgres_dropped_it(
    sessions: sessionmaker[Session], backend: str
) -> None:
    """PostgreSQL kills the settling connection before it commits (a restart, a failover): the
    retry with the same keys writes it once; nothing half-written stays behind."""
    if backend != "postgresql":
        pytest.skip("a dropped server connection exists on PostgreSQL only (SQLite is in-process)")
    owner, players = one_slice_staked(sessions)
    lines = [(p, 10, 30) for p in players]
    with pytest.raises(DBAPIError), sessions.begin() as session:
        LedgerService(session, owner).settle_slice("t1", 1, lines)
        pid = session.execute(text("SELECT pg_backend_pid()")).scalar_one()
        with psycopg.connect(libpq_dsn(postgres_url()), autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    with sessions() as session:
        info = LedgerService(session).slices_of("t1", 1)
        assert [s.status for s in info] == ["open"]  # nothing of the settlement survived
    with sessions.begin() as session:
        settled = LedgerService(session, owner).settle_slice("t1", 1, lines)
    assert not settled.replayed
    with sessions.begin() as session:
        assert LedgerService(session, owner).settle_slice("t1", 1, lines).replayed
    with sessions() as session:
        balances = LedgerService(session).wallet_balances(players)
    assert set(balances.values()) == {1_020}
    assert_books_balance(sessions)
