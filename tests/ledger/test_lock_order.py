"""The bulk writes lock and update their accounts in one statement, in id order (PostgreSQL):
writers that share wallets, listing them in opposite orders, never deadlock, and the statement
probes the accounts by key whatever the tables' statistics."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import LedgerService, grant_key
from boundless.ledger.staging import APPLY_IN_ID_ORDER, Stage, planner_settings
from tests.ledger.helpers import assert_books_balance

PLAYERS = [f"q{i:04d}" for i in range(2000)]
ROUNDS = 6


def _postgres_only(backend: str) -> None:
    if backend != "postgresql":
        pytest.skip("row locks and plans are PostgreSQL's; SQLite has one writer at a time")


def _funded(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        ledger = LedgerService(session)
        ledger.open_wallets(PLAYERS)
        ledger.grant_many([(p, 100_000, grant_key(p, "signup")) for p in PLAYERS])


def _at_once(*writers: Callable[[], None]) -> None:
    """Each writer in its own thread, started together; any error is raised here."""
    barrier = threading.Barrier(len(writers))

    def run(writer: Callable[[], None]) -> None:
        barrier.wait()
        writer()

    with ThreadPoolExecutor(len(writers)) as pool:
        for future in [pool.submit(run, writer) for writer in writers]:
            future.result()


def test_stakes_and_settlements_sharing_wallets_in_opposite_orders_never_deadlock(
    backend: str, sessions: sessionmaker[Session]
) -> None:
    _postgres_only(backend)
    _funded(sessions)
    backwards = PLAYERS[::-1]

    def stakes(owner: str, players: list[str], round_no: int) -> Callable[[], None]:
        def write() -> None:
            with sessions.begin() as session:
                bets = [(p, f"{p}.{owner[-1]}", "main", 10) for p in players]
                LedgerService(session, owner).stake_many("lock", round_no, bets)

        return write

    def settlement(owner: str, players: list[str], round_no: int) -> Callable[[], None]:
        def write() -> None:
            with sessions.begin() as session:
                lines = [(p, 10, 20 if i % 2 else 0) for i, p in enumerate(players)]
                LedgerService(session, owner).settle_slice("lock", round_no, lines)

        return write

    for round_no in range(ROUNDS):
        # Two gateways stake the same wallets at once, one listing them backwards.
        _at_once(stakes("gateway:a", PLAYERS, round_no), stakes("gateway:b", backwards, round_no))
    for round_no in range(0, ROUNDS, 2):
        # Settlements of two rounds (no shared round lock) pay the same wallets at once, and
        # both square with the one house account.
        _at_once(
            settlement("gateway:a", PLAYERS, round_no),
            settlement("gateway:a", backwards, round_no + 1),
            stakes("gateway:c", backwards, ROUNDS + round_no),
        )
    books = assert_books_balance(sessions)
    assert books.ok


def test_the_balance_update_probes_each_account_and_locks_in_id_order(
    backend: str, sessions: sessionmaker[Session]
) -> None:
    """With the accounts analysed (a long-running database), the one statement that locks and
    updates finds each staged account through its unique name, sorts them by id and updates
    them in that order by primary key: never a scan of every account per batch."""
    _postgres_only(backend)
    _funded(sessions)
    with sessions.begin() as session:
        session.execute(text("ANALYZE ledger_accounts"))
    with sessions.begin() as session:
        stage = Stage(session)
        stage.load_changes((p, f"wallet:{p}", -1) for p in PLAYERS[:50])
        with planner_settings(session, enable_hashjoin="off", enable_mergejoin="off"):
            rows = session.execute(text(f"EXPLAIN {APPLY_IN_ID_ORDER}"))
            plan = "\n".join(row[0] for row in rows)
        assert "Seq Scan on ledger_accounts" not in plan, plan
        assert "Index Scan using uq_ledger_accounts_name" in plan, plan
        assert "Sort Key: l.id" in plan, plan
        assert "Index Scan using pk_ledger_accounts" in plan, plan
        assert session.execute(text("SHOW enable_hashjoin")).scalar() == "on"
        changed = stage.apply_changes()
        assert sorted(changed) == changed and len(changed) == 50
        balances = LedgerService(session).wallet_balances(PLAYERS[:51])
    assert set(balances.values()) == {99_999, 100_000}
    assert balances[PLAYERS[50]] == 100_000


def test_planner_settings_hold_inside_and_are_put_back_even_after_a_failure(
    backend: str, sessions: sessionmaker[Session]
) -> None:
    """The settings (join strategies, the settlement's sort memory) hold for the statements
    inside only; a statement that fails inside a savepoint leaves them as they were once the
    savepoint is rolled back, as every ledger write's is."""
    _postgres_only(backend)

    def shown(session: Session) -> tuple[str, str]:
        row = session.execute(text("SELECT current_setting('work_mem'), "
                                   "current_setting('enable_hashjoin')")).one()  # fmt: skip
        return str(row[0]), str(row[1])

    with sessions.begin() as session:
        before = shown(session)
        with planner_settings(session, work_mem="64MB", enable_hashjoin="off"):
            assert shown(session) == ("64MB", "off")
        assert shown(session) == before
        with (
            pytest.raises(ZeroDivisionError),
            session.begin_nested(),
            planner_settings(session, work_mem="64MB", enable_hashjoin="off"),
        ):
            raise ZeroDivisionError
        assert shown(session) == before
        failed = session.begin_nested()
        with (
            pytest.raises(DBAPIError, match="division by zero"),
            planner_settings(session, work_mem="64MB"),
        ):
            session.execute(text("SELECT 1 / 0"))
        failed.rollback()
        assert shown(session) == before
