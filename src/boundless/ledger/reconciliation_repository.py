"""The SQL behind ``check_books``: each query returns the rows that break one rule."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from boundless.ledger.models import ACCOUNTS, ENTRIES, ROUNDS, TRANSACTIONS

PROBLEM_ROWS_LIMIT = 1000
"""Rows fetched per broken rule; the count of the rest is still reported."""


class ReconciliationRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def _rows(self, stmt: Any) -> list[tuple[Any, ...]]:
        return [tuple(row) for row in self.session.execute(stmt.limit(PROBLEM_ROWS_LIMIT + 1))]

    def counts(self) -> dict[str, int]:
        def count(table: Any) -> int:
            return int(self.session.execute(select(func.count()).select_from(table)).scalar_one())

        return {
            "accounts": count(ACCOUNTS),
            "transactions": count(TRANSACTIONS),
            "entries": count(ENTRIES),
        }

    def balance_totals(self) -> dict[str, int]:
        """Sum of cached balances per account kind, and the sum of every entry."""
        stmt = select(ACCOUNTS.c.kind, func.sum(ACCOUNTS.c.balance)).group_by(ACCOUNTS.c.kind)
        totals = {kind: int(total) for kind, total in self.session.execute(stmt)}
        entries_sum = self.session.execute(
            select(func.coalesce(func.sum(ENTRIES.c.amount), 0))
        ).scalar_one()
        totals["entries"] = int(entries_sum)
        return totals

    def rounds_by_status(self) -> dict[str, int]:
        stmt = select(ROUNDS.c.status, func.count()).group_by(ROUNDS.c.status)
        return {status: int(number) for status, number in self.session.execute(stmt)}

    def unbalanced_transactions(self) -> list[tuple[Any, ...]]:
        total = func.sum(ENTRIES.c.amount)
        stmt = (
            select(TRANSACTIONS.c.id, TRANSACTIONS.c.idempotency_key, total)
            .join(ENTRIES, ENTRIES.c.transaction_id == TRANSACTIONS.c.id)
            .group_by(TRANSACTIONS.c.id, TRANSACTIONS.c.idempotency_key)
            .having(total != 0)
            .order_by(TRANSACTIONS.c.id)
        )
        return self._rows(stmt)

    def stale_balances(self) -> list[tuple[Any, ...]]:
        """Accounts whose cached balance differs from the sum of their entries."""
        total = func.coalesce(func.sum(ENTRIES.c.amount), 0)
        stmt = (
            select(ACCOUNTS.c.name, ACCOUNTS.c.balance, total)
            .outerjoin(ENTRIES, ENTRIES.c.account_id == ACCOUNTS.c.id)
            .group_by(ACCOUNTS.c.id, ACCOUNTS.c.name, ACCOUNTS.c.balance)
            .having(ACCOUNTS.c.balance != total)
            .order_by(ACCOUNTS.c.id)
        )
        return self._rows(stmt)

    def negative_wallets(self) -> list[tuple[Any, ...]]:
        stmt = (
            select(ACCOUNTS.c.name, ACCOUNTS.c.balance)
            .where(ACCOUNTS.c.kind == "wallet", ACCOUNTS.c.balance < 0)
            .order_by(ACCOUNTS.c.id)
        )
        return self._rows(stmt)

    def ended_rounds_holding_coins(self) -> list[tuple[Any, ...]]:
        """Closed or cancelled rounds whose in-play account is not at zero."""
        stmt = (
            select(ROUNDS.c.table_id, ROUNDS.c.round_no, ROUNDS.c.status, ACCOUNTS.c.balance)
            .join(ACCOUNTS, ROUNDS.c.in_play_account_id == ACCOUNTS.c.id)
            .where(ROUNDS.c.status != "open", ACCOUNTS.c.balance != 0)
            .order_by(ROUNDS.c.id)
        )
        return self._rows(stmt)

    def cancelled_rounds_not_netting_zero(self) -> list[tuple[Any, ...]]:
        """(table, round, account, net) for every account whose net over a cancelled round is not
        zero: a player who won or lost coins in a round that did not happen."""
        net = func.sum(ENTRIES.c.amount)
        stmt = (
            select(ROUNDS.c.table_id, ROUNDS.c.round_no, ACCOUNTS.c.name, net)
            .select_from(
                ROUNDS.join(TRANSACTIONS, TRANSACTIONS.c.round_id == ROUNDS.c.id)
                .join(ENTRIES, ENTRIES.c.transaction_id == TRANSACTIONS.c.id)
                .join(ACCOUNTS, ENTRIES.c.account_id == ACCOUNTS.c.id)
            )
            .where(ROUNDS.c.status == "cancelled")
            .group_by(
                ROUNDS.c.id, ROUNDS.c.table_id, ROUNDS.c.round_no, ACCOUNTS.c.id, ACCOUNTS.c.name
            )
            .having(net != 0)
            .order_by(ROUNDS.c.id, ACCOUNTS.c.id)
        )
        return self._rows(stmt)
