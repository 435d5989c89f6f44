"""The SQL behind ``check_books``: each query returns the rows that break one rule."""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, case, exists, func, literal, or_, select
from sqlalchemy.orm import Session

from boundless.ledger.models import ACCOUNTS, ENTRIES, ROUNDS, SLICES, TRANSACTIONS
from boundless.ledger.slice_repository import slice_balances
from boundless.ledger.voids import RECEIVABLE_PREFIX

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

    def slices_by_status(self) -> dict[str, int]:
        stmt = select(SLICES.c.status, func.count()).group_by(SLICES.c.status)
        return {status: int(number) for status, number in self.session.execute(stmt)}

    def ended_slices_holding_coins(self) -> list[tuple[Any, ...]]:
        """Settled or cancelled slices whose in-play account is not at zero."""
        stmt = (
            slice_balances()
            .where(SLICES.c.status != "open", ACCOUNTS.c.balance != 0)
            .order_by(SLICES.c.id)
        )
        return self._rows(stmt)

    def rounds_with_wrong_status(self) -> list[tuple[Any, ...]]:
        """(table, round, status, open slices, slices): an ended round with a slice still open,
        or an open round whose slices have all ended (it should have closed with the last)."""
        open_slices = func.sum(case((SLICES.c.status == "open", 1), else_=0))
        stmt = (
            select(
                ROUNDS.c.table_id,
                ROUNDS.c.round_no,
                ROUNDS.c.status,
                open_slices,
                func.count(SLICES.c.id),
            )
            .select_from(ROUNDS.join(SLICES, SLICES.c.round_id == ROUNDS.c.id))
            .group_by(ROUNDS.c.id, ROUNDS.c.table_id, ROUNDS.c.round_no, ROUNDS.c.status)
            .having(
                or_(
                    and_(ROUNDS.c.status != "open", open_slices > 0),
                    and_(ROUNDS.c.status == "open", open_slices == 0),
                )
            )
            .order_by(ROUNDS.c.id)
        )
        return self._rows(stmt)

    def transactions_outside_slices(self) -> list[tuple[Any, ...]]:
        """Transactions naming a slice owner that has no slice in their round."""
        slice_exists = exists().where(
            SLICES.c.round_id == TRANSACTIONS.c.round_id, SLICES.c.owner == TRANSACTIONS.c.owner
        )
        stmt = (
            select(TRANSACTIONS.c.id, TRANSACTIONS.c.idempotency_key, TRANSACTIONS.c.owner)
            .where(TRANSACTIONS.c.owner.is_not(None), ~slice_exists)
            .order_by(TRANSACTIONS.c.id)
        )
        return self._rows(stmt)

    def dangling_references(self) -> list[tuple[Any, ...]]:
        """(what, id, missing id): entries naming a transaction or an account that does not
        exist, transactions naming a round that does not exist (no foreign keys on these)."""
        no_transaction = select(
            literal("entry"), ENTRIES.c.id, literal("transaction"), ENTRIES.c.transaction_id
        ).where(~exists().where(TRANSACTIONS.c.id == ENTRIES.c.transaction_id))
        no_account = select(
            literal("entry"), ENTRIES.c.id, literal("account"), ENTRIES.c.account_id
        ).where(~exists().where(ACCOUNTS.c.id == ENTRIES.c.account_id))
        no_round = select(
            literal("transaction"), TRANSACTIONS.c.id, literal("round"), TRANSACTIONS.c.round_id
        ).where(
            TRANSACTIONS.c.round_id.is_not(None),
            ~exists().where(ROUNDS.c.id == TRANSACTIONS.c.round_id),
        )
        rows: list[tuple[Any, ...]] = []
        for stmt in (no_transaction, no_account, no_round):
            rows.extend(self._rows(stmt))
        return rows

    def duplicate_keys(self) -> list[tuple[Any, ...]]:
        """Keys written more than once (the unique index forbids it; this proves it)."""
        stmt = (
            select(TRANSACTIONS.c.idempotency_key, func.count())
            .group_by(TRANSACTIONS.c.idempotency_key)
            .having(func.count() > 1)
            .order_by(TRANSACTIONS.c.idempotency_key)
        )
        return self._rows(stmt)

    def cancellations_not_netting_zero(self) -> list[tuple[Any, ...]]:
        """(table, round, account, net) for every account whose net over the cancelled part of a
        round is not zero: the transactions of its cancelled slices plus its round-wide
        cancellation. A player who won or lost coins in a part of a round that did not happen."""
        in_cancelled_slice = exists().where(
            SLICES.c.round_id == TRANSACTIONS.c.round_id,
            SLICES.c.owner == TRANSACTIONS.c.owner,
            SLICES.c.status == "cancelled",
        )
        round_wide_cancel = and_(
            TRANSACTIONS.c.owner.is_(None), TRANSACTIONS.c.category == "cancel"
        )
        net = func.sum(ENTRIES.c.amount)
        # A player's receivable counts with the wallet (ruling 38): what the void could not take
        # from the wallet it booked there, so the two together net zero.
        party = case(
            (ACCOUNTS.c.name.like(f"{RECEIVABLE_PREFIX}:%"),
             literal("wallet:") + func.substr(ACCOUNTS.c.name, len(RECEIVABLE_PREFIX) + 2)),
            else_=ACCOUNTS.c.name,
        )  # fmt: skip
        stmt = (
            select(ROUNDS.c.table_id, ROUNDS.c.round_no, party, net)
            .select_from(
                ROUNDS.join(TRANSACTIONS, TRANSACTIONS.c.round_id == ROUNDS.c.id)
                .join(ENTRIES, ENTRIES.c.transaction_id == TRANSACTIONS.c.id)
                .join(ACCOUNTS, ENTRIES.c.account_id == ACCOUNTS.c.id)
            )
            .where(or_(in_cancelled_slice, round_wide_cancel))
            .group_by(ROUNDS.c.id, ROUNDS.c.table_id, ROUNDS.c.round_no, party)
            .having(net != 0)
            .order_by(ROUNDS.c.id, party)
        )
        return self._rows(stmt)

    def receivables(self) -> tuple[int, int]:
        """(players owing, total owed): the receivable accounts below zero (ruling 38)."""
        stmt = select(func.count(), func.coalesce(-func.sum(ACCOUNTS.c.balance), 0)).where(
            ACCOUNTS.c.name.like(f"{RECEIVABLE_PREFIX}:%"), ACCOUNTS.c.balance != 0
        )
        players, owed = self.session.execute(stmt).one()
        return int(players), int(owed)

    def receivables_broken(self) -> list[tuple[Any, ...]]:
        """(account, what): a receivable above zero (the house owing a player through it), or
        one moved by anything but a void: only a void may book what a player owes."""
        receivable = ACCOUNTS.c.name.like(f"{RECEIVABLE_PREFIX}:%")
        positive = select(ACCOUNTS.c.name, literal("is above zero")).where(
            receivable, ACCOUNTS.c.balance > 0
        )
        not_void = (
            select(ACCOUNTS.c.name, TRANSACTIONS.c.idempotency_key)
            .select_from(
                ENTRIES.join(ACCOUNTS, ENTRIES.c.account_id == ACCOUNTS.c.id).join(
                    TRANSACTIONS, ENTRIES.c.transaction_id == TRANSACTIONS.c.id
                )
            )
            .where(receivable, TRANSACTIONS.c.category != "cancel")
        )
        rows = self._rows(positive.order_by(ACCOUNTS.c.id))
        rows.extend(
            (name, f"is moved by {key!r}, which is not a void")
            for name, key in self._rows(not_void.order_by(ENTRIES.c.id))
        )
        return rows
