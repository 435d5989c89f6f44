"""``check_books`` names every broken rule precisely (books tampered with behind the ledger)."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Engine, insert, text, update
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger.models import ACCOUNTS, ENTRIES, ROUNDS, SLICES
from tests.ledger.helpers import Run, assert_books_balance, fund, report


def played(run: Run) -> None:
    fund(run, "alice", "bob")
    run(lambda ledger: ledger.stake("t1", 1, "alice", "a", "main", 100))
    run(lambda ledger: ledger.stake("t1", 1, "bob", "b", "main", 100))
    run(lambda ledger: ledger.settle_round("t1", 1, [("alice", 100, 200), ("bob", 100, 0)]))
    run(lambda ledger: ledger.stake("t1", 2, "alice", "a", "main", 50))
    run(lambda ledger: ledger.cancel_round("t1", 2))


def tamper(sessions: sessionmaker[Session], change: Callable[[Session], object]) -> None:
    with sessions.begin() as session:
        change(session)


def account_id(session: Session, name: str) -> int:
    return int(session.execute(text("SELECT id FROM ledger_accounts WHERE name = :n"), {"n": name})
               .scalar_one())  # fmt: skip


def test_clean_books_report(run: Run, sessions: sessionmaker[Session]) -> None:
    played(run)
    books = assert_books_balance(sessions)
    assert books.issued_total == 2_000
    assert books.wallets_total == 2_000
    assert books.house_balance == 0
    assert books.rounds == {"closed": 1, "cancelled": 1}
    assert "books balance: no problems" in books.summary()


def test_stale_cached_balance(run: Run, sessions: sessionmaker[Session]) -> None:
    played(run)
    bob = ACCOUNTS.c.name == "wallet:bob"
    tamper(sessions, lambda s: s.execute(
        update(ACCOUNTS).where(bob).values(balance=ACCOUNTS.c.balance + 7)
    ))  # fmt: skip
    problems = [str(p) for p in report(sessions).problems]
    assert "[stale_balance] account 'wallet:bob' shows balance 907 but its entries sum to 900" in (
        problems
    )
    assert "[coins_not_conserved] balances of all accounts sum to 7, not 0" in problems


def test_unbalanced_transaction_and_cancelled_round(
    run: Run, sessions: sessionmaker[Session]
) -> None:
    played(run)

    def extra_entry(session: Session) -> None:
        wallet = account_id(session, "wallet:alice")
        transaction = session.execute(
            text("SELECT id FROM ledger_transactions WHERE idempotency_key = 't1:2:a:main'")
        ).scalar_one()
        session.execute(insert(ENTRIES).values(transaction_id=transaction, account_id=wallet,
                                               amount=-5))  # fmt: skip
        session.execute(update(ACCOUNTS).where(ACCOUNTS.c.id == wallet)
                        .values(balance=ACCOUNTS.c.balance - 5))  # fmt: skip

    tamper(sessions, extra_entry)
    books = report(sessions)
    codes = {problem.code for problem in books.problems}
    assert codes == {
        "unbalanced_transaction",
        "cancelled_round_not_reversed",
        "coins_not_conserved",
    }
    details = "\n".join(str(p) for p in books.problems)
    assert "('t1:2:a:main') entries sum to -5, not 0" in details
    assert (
        "cancelled part of round 2 of table 't1': account 'wallet:alice' nets -5, not 0" in details
    )


def test_closed_round_still_holding_coins(run: Run, sessions: sessionmaker[Session]) -> None:
    """A round from before slices holds its stakes in its own in-play account."""
    fund(run, "alice")
    run(lambda ledger: ledger.stake("t1", 1, "alice", "a", "main", 100))

    def move_into_the_round_account(session: Session) -> None:
        round_account = account_id(session, "in_play:t1:1")
        slice_account = account_id(session, "in_play:t1:1:local")
        session.execute(update(ENTRIES).where(ENTRIES.c.account_id == slice_account)
                        .values(account_id=round_account))  # fmt: skip
        session.execute(update(ACCOUNTS).where(ACCOUNTS.c.id == round_account).values(balance=100))
        session.execute(update(ACCOUNTS).where(ACCOUNTS.c.id == slice_account).values(balance=0))
        session.execute(update(SLICES).values(status="settled"))
        session.execute(update(ROUNDS).values(status="closed"))

    tamper(sessions, move_into_the_round_account)
    problems = [str(p) for p in report(sessions).problems]
    assert problems == [
        "[round_holds_coins] round 1 of table 't1' is closed but its in-play account holds 100"
    ]


def test_negative_wallet(run: Run, sessions: sessionmaker[Session], engine: Engine) -> None:
    fund(run, "alice", amount=10)

    def overdraw(session: Session) -> None:
        # get past the database's own guard first, as only a tamperer would
        if engine.dialect.name == "postgresql":
            session.execute(text(
                "ALTER TABLE ledger_accounts DROP CONSTRAINT ck_ledger_accounts_wallet_not_negative"
            ))  # fmt: skip
        else:
            session.execute(text("PRAGMA ignore_check_constraints = ON"))
        session.execute(
            update(ACCOUNTS).where(ACCOUNTS.c.name == "wallet:alice").values(balance=-3)
        )

    tamper(sessions, overdraw)
    problems = [str(p) for p in report(sessions).problems]
    assert "[negative_wallet] wallet 'wallet:alice' is negative: -3" in problems
