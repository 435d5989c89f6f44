"""Shared helpers for the ledger tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import LedgerService, ReconciliationReport, check_books, grant_key
from boundless.ledger.models import ACCOUNTS, ENTRIES, TRANSACTIONS

T = TypeVar("T")


class Run(Protocol):
    """The ``run`` fixture: one committed database transaction around ``work``."""

    def __call__(self, work: Callable[[LedgerService], T], /) -> T: ...


def fund(run: Run, *players: str, amount: int = 1_000) -> None:
    def work(ledger: LedgerService) -> None:
        for player in players:
            ledger.open_wallet(player)
            ledger.grant(player, amount, grant_key(player, "signup"))

    run(work)


def wallet(run: Run, player_id: str) -> int:
    return run(lambda ledger: ledger.wallet_balance(player_id))


def report(sessions: sessionmaker[Session]) -> ReconciliationReport:
    with sessions() as session:
        return check_books(session)


def assert_books_balance(sessions: sessionmaker[Session]) -> ReconciliationReport:
    result = report(sessions)
    assert result.ok, result.summary()
    assert result.balance_sum == 0
    return result


def snapshot(session: Session) -> tuple[int, int, dict[str, int]]:
    """(transactions, entries, balances by account name): to prove a refusal changed nothing."""
    transactions = session.execute(select(func.count()).select_from(TRANSACTIONS)).scalar_one()
    entries = session.execute(select(func.count()).select_from(ENTRIES)).scalar_one()
    rows = session.execute(select(ACCOUNTS.c.name, ACCOUNTS.c.balance)).all()
    balances = {str(name): int(balance) for name, balance in rows}
    return int(transactions), int(entries), balances
