"""All SQL of the ledger's writes and lookups. Never commits: the caller owns the transaction."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy import Select, and_, bindparam, func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from boundless.ledger.models import ACCOUNTS, ENTRIES, ROUNDS, TRANSACTIONS
from boundless.ledger.sql_conventions import utc_now
from boundless.ledger.staging import planner_settings

CHUNK = 2000
"""Most ids bound into one ``IN (...)`` list (well inside SQLite's and psycopg's limits)."""

T = TypeVar("T")


def chunked(items: Sequence[T], size: int = CHUNK) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


@dataclass(frozen=True, slots=True)
class AccountRow:
    id: int
    name: str
    kind: str
    player_id: str | None
    balance: int


@dataclass(frozen=True, slots=True)
class RoundRow:
    id: int
    table_id: str
    round_no: int
    status: str
    in_play_account_id: int
    owner: str | None = None


@dataclass(frozen=True, slots=True)
class TransactionRow:
    id: int
    key: str
    fingerprint: str
    description: str
    category: str
    kind: str
    table_id: str | None
    round_no: int | None
    player_id: str | None
    position: str | None
    created_at: datetime
    owner: str | None = None


@dataclass(frozen=True, slots=True)
class NewTransaction:
    key: str
    fingerprint: str
    description: str
    category: str
    kind: str
    round_id: int | None
    player_id: str | None
    position: str | None
    owner: str | None = None


@dataclass(frozen=True, slots=True)
class StatementRow:
    entry_id: int
    amount: int
    balance_after: int
    transaction: TransactionRow


_ACCOUNT_COLUMNS = (
    ACCOUNTS.c.id,
    ACCOUNTS.c.name,
    ACCOUNTS.c.kind,
    ACCOUNTS.c.player_id,
    ACCOUNTS.c.balance,
)
_ROUND_COLUMNS = (
    ROUNDS.c.id,
    ROUNDS.c.table_id,
    ROUNDS.c.round_no,
    ROUNDS.c.status,
    ROUNDS.c.in_play_account_id,
    ROUNDS.c.owner,
)
TRANSACTION_COLUMNS = (
    TRANSACTIONS.c.id,
    TRANSACTIONS.c.idempotency_key,
    TRANSACTIONS.c.fingerprint,
    TRANSACTIONS.c.description,
    TRANSACTIONS.c.category,
    TRANSACTIONS.c.kind,
    ROUNDS.c.table_id,
    ROUNDS.c.round_no,
    TRANSACTIONS.c.player_id,
    TRANSACTIONS.c.position,
    TRANSACTIONS.c.created_at,
    TRANSACTIONS.c.owner,
)
_TRANSACTIONS_WITH_ROUND = TRANSACTIONS.outerjoin(ROUNDS, TRANSACTIONS.c.round_id == ROUNDS.c.id)


def as_utc(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes; every stored time is UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _account(row: Any) -> AccountRow:
    return AccountRow(row[0], row[1], row[2], row[3], int(row[4]))


def _round(row: Any) -> RoundRow:
    return RoundRow(row[0], row[1], int(row[2]), row[3], row[4], row[5])


def transaction_row(row: Any) -> TransactionRow:
    return TransactionRow(
        id=row[0],
        key=row[1],
        fingerprint=row[2],
        description=row[3],
        category=row[4],
        kind=row[5],
        table_id=row[6],
        round_no=None if row[7] is None else int(row[7]),
        player_id=row[8],
        position=row[9],
        created_at=as_utc(row[10]),
        owner=row[11],
    )


def with_lock(stmt: Select[Any], lock: str | None) -> Select[Any]:
    """Row locks on PostgreSQL (SQLite holds its database write lock anyway).

    ``write``: a write into the row's round or slice; many may hold it (``FOR KEY SHARE`` on a
    round, so gateways stake and settle their slices at once). ``end``: a write that may end it;
    one at a time, and not while a ``write`` lock is held (``FOR UPDATE``: on a round it waits for
    every stake and settlement in flight, so a cancellation never waits for a slice that a
    settlement holds while that settlement ends the round). Locks are always taken round first,
    then slices in id order, then accounts in id order, then the round-end lock of a slice
    settlement (:meth:`SliceRepository.lock_round_end`), so concurrent writers never deadlock."""
    if lock == "write":
        return stmt.with_for_update(read=True, key_share=True)
    if lock == "end":
        return stmt.with_for_update()
    return stmt


class LedgerRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    @property
    def dialect(self) -> str:
        return self.session.get_bind().dialect.name

    def insert_ignoring_duplicates(self, table: Any, values: dict[str, Any]) -> None:
        """``INSERT ... ON CONFLICT DO NOTHING``: get-or-create that is safe under concurrency."""
        if self.dialect == "postgresql":
            stmt: Any = postgresql.insert(table).values(**values).on_conflict_do_nothing()
        else:
            stmt = sqlite.insert(table).values(**values).on_conflict_do_nothing()
        self.session.execute(stmt)

    # -- accounts ---------------------------------------------------------------------------

    def account_by_name(self, name: str) -> AccountRow | None:
        row = self.session.execute(select(*_ACCOUNT_COLUMNS).where(ACCOUNTS.c.name == name)).first()
        return None if row is None else _account(row)

    def account_by_id(self, account_id: int) -> AccountRow:
        row = self.session.execute(
            select(*_ACCOUNT_COLUMNS).where(ACCOUNTS.c.id == account_id)
        ).one()
        return _account(row)

    def accounts_by_names(self, names: Sequence[str]) -> dict[str, AccountRow]:
        found: dict[str, AccountRow] = {}
        for part in chunked(names):
            rows = self.session.execute(select(*_ACCOUNT_COLUMNS).where(ACCOUNTS.c.name.in_(part)))
            found.update((row[1], _account(row)) for row in rows)
        return found

    def ensure_account(self, name: str, kind: str, player_id: str | None = None) -> AccountRow:
        existing = self.account_by_name(name)
        if existing is not None:
            return existing
        self.insert_ignoring_duplicates(
            ACCOUNTS,
            {
                "name": name,
                "kind": kind,
                "player_id": player_id,
                "balance": 0,
                "created_at": utc_now(),
            },
        )
        created = self.account_by_name(name)
        assert created is not None
        return created

    def lock_accounts(self, account_ids: Iterable[int]) -> dict[int, AccountRow]:
        """Read and row-lock the accounts in id order (PostgreSQL ``FOR UPDATE``; SQLite holds the
        database write lock already). A fixed lock order keeps concurrent writers deadlock-free."""
        ids = sorted(set(account_ids))
        locked: dict[int, AccountRow] = {}
        for part in chunked(ids):
            stmt = (
                select(*_ACCOUNT_COLUMNS)
                .where(ACCOUNTS.c.id.in_(part))
                .order_by(ACCOUNTS.c.id)
                .with_for_update()
            )
            locked.update((row[0], _account(row)) for row in self.session.execute(stmt))
        return locked

    def add_to_balances(self, deltas: dict[int, int]) -> None:
        """One executemany: ``balance = balance + delta`` for each account, in id order."""
        params = [
            {"account_id": account_id, "delta": delta}
            for account_id, delta in sorted(deltas.items())
            if delta != 0
        ]
        if not params:
            return
        stmt = (
            update(ACCOUNTS)
            .where(ACCOUNTS.c.id == bindparam("account_id"))
            .values(balance=ACCOUNTS.c.balance + bindparam("delta"))
        )
        self.session.execute(stmt, params)

    # -- rounds -----------------------------------------------------------------------------

    def round_row(
        self, table_id: str, round_no: int, *, lock: str | None = None
    ) -> RoundRow | None:
        """``lock``: ``"write"`` for writes into the round, ``"end"`` for writes that end a slice
        or the round (see :func:`with_lock`)."""
        stmt = select(*_ROUND_COLUMNS).where(
            ROUNDS.c.table_id == table_id, ROUNDS.c.round_no == round_no
        )
        row = self.session.execute(with_lock(stmt, lock)).first()
        return None if row is None else _round(row)

    def ensure_round(
        self, table_id: str, round_no: int, in_play_account_id: int, owner: str | None
    ) -> None:
        self.insert_ignoring_duplicates(
            ROUNDS,
            {
                "table_id": table_id,
                "round_no": round_no,
                "in_play_account_id": in_play_account_id,
                "status": "open",
                "opened_at": utc_now(),
                "owner": owner,
            },
        )

    def set_round_owner(self, round_id: int, owner: str) -> None:
        self.session.execute(update(ROUNDS).where(ROUNDS.c.id == round_id).values(owner=owner))

    def set_round_status(self, round_id: int, status: str) -> None:
        self.session.execute(
            update(ROUNDS).where(ROUNDS.c.id == round_id).values(status=status, ended_at=utc_now())
        )

    def rounds_with_status(
        self, status: str, table_id: str | None = None, owner: str | None = None
    ) -> list[RoundRow]:
        stmt = select(*_ROUND_COLUMNS).where(ROUNDS.c.status == status)
        if table_id is not None:
            stmt = stmt.where(ROUNDS.c.table_id == table_id)
        if owner is not None:
            stmt = stmt.where(ROUNDS.c.owner == owner)
        stmt = stmt.order_by(ROUNDS.c.table_id, ROUNDS.c.round_no)
        return [_round(row) for row in self.session.execute(stmt)]

    # -- transactions -----------------------------------------------------------------------

    def _transactions(self) -> Select[Any]:
        return select(*TRANSACTION_COLUMNS).select_from(_TRANSACTIONS_WITH_ROUND)

    def find_transaction(self, key: str) -> TransactionRow | None:
        row = self.session.execute(
            self._transactions().where(TRANSACTIONS.c.idempotency_key == key)
        ).first()
        return None if row is None else transaction_row(row)

    def round_transactions(self, round_id: int) -> list[TransactionRow]:
        stmt = self._transactions().where(TRANSACTIONS.c.round_id == round_id)
        return [
            transaction_row(row) for row in self.session.execute(stmt.order_by(TRANSACTIONS.c.id))
        ]

    def insert_transaction(self, new: NewTransaction) -> int:
        """Insert the header; the unique key raises ``IntegrityError`` if another writer won."""
        stmt = (
            insert(TRANSACTIONS)
            .values(
                idempotency_key=new.key,
                fingerprint=new.fingerprint,
                description=new.description[:300],
                category=new.category,
                kind=new.kind,
                round_id=new.round_id,
                player_id=new.player_id,
                position=new.position,
                created_at=utc_now(),
                owner=new.owner,
            )
            .returning(TRANSACTIONS.c.id)
        )
        return int(self.session.execute(stmt).scalar_one())

    def insert_entries(self, transaction_id: int, amounts: dict[int, int]) -> None:
        rows = [
            {"transaction_id": transaction_id, "account_id": account_id, "amount": amount}
            for account_id, amount in sorted(amounts.items())
            if amount != 0
        ]
        if rows:
            self.session.execute(insert(ENTRIES), rows)

    def entries_of(self, transaction_ids: Sequence[int]) -> dict[int, list[tuple[str, int]]]:
        """``{transaction id: [(account name, amount), ...]}`` in entry order."""
        found: dict[int, list[tuple[str, int]]] = {tid: [] for tid in transaction_ids}
        for part in chunked(sorted(set(transaction_ids))):
            stmt = (
                select(ENTRIES.c.transaction_id, ACCOUNTS.c.name, ENTRIES.c.amount)
                .join(ACCOUNTS, ENTRIES.c.account_id == ACCOUNTS.c.id)
                .where(ENTRIES.c.transaction_id.in_(part))
                .order_by(ENTRIES.c.id)
            )
            for tid, name, amount in self.session.execute(stmt):
                found[tid].append((name, int(amount)))
        return found

    # -- sums over a round ------------------------------------------------------------------

    def net_by_account(self, round_id: int, owners: Sequence[str]) -> list[tuple[AccountRow, int]]:
        """Every account the transactions of these slices of the round touched, with its net."""
        net = func.sum(ENTRIES.c.amount)
        stmt = (
            select(*_ACCOUNT_COLUMNS, net)
            .select_from(
                ENTRIES.join(TRANSACTIONS, ENTRIES.c.transaction_id == TRANSACTIONS.c.id).join(
                    ACCOUNTS, ENTRIES.c.account_id == ACCOUNTS.c.id
                )
            )
            .where(TRANSACTIONS.c.round_id == round_id, TRANSACTIONS.c.owner.in_(list(owners)))
            .group_by(*_ACCOUNT_COLUMNS)
            .order_by(ACCOUNTS.c.id)
        )
        return [(_account(row), int(row[5])) for row in self.session.execute(stmt)]

    def in_play_net(
        self, round_id: int, owner: str, in_play_account_id: int, *, position: str
    ) -> int:
        """What the transactions of one position of a slice put into (minus took out of) its
        in-play account."""
        stmt = (
            select(func.coalesce(func.sum(ENTRIES.c.amount), 0))
            .select_from(ENTRIES.join(TRANSACTIONS, ENTRIES.c.transaction_id == TRANSACTIONS.c.id))
            .where(
                TRANSACTIONS.c.round_id == round_id,
                TRANSACTIONS.c.owner == owner,
                TRANSACTIONS.c.position == position,
                ENTRIES.c.account_id == in_play_account_id,
            )
        )
        return int(self.session.execute(stmt).scalar_one())

    def stakes_by_player(
        self, round_id: int, owner: str, in_play_account_id: int
    ) -> dict[str, int]:
        """Total staked into one slice's in-play account by each player.

        On PostgreSQL this runs with nested loops off: the round's stakes were written in this
        or a recent transaction, after the tables' statistics were taken, so the planner
        expects one stake and one in-play entry and joins them by a nested loop that filters
        every pair (20,000 stakes: 200 million comparisons, minutes). A hash join is linear
        whatever the statistics say."""
        stmt = self.stakes_by_player_statement(round_id, owner, in_play_account_id)
        with self.without_nested_loops():
            rows = self.session.execute(stmt).all()
        return {player: int(total) for player, total in rows}

    @contextmanager
    def without_nested_loops(self) -> Iterator[None]:
        """PostgreSQL's planner without nested-loop joins for the statements inside (this
        transaction's setting, put back afterwards); nothing elsewhere."""
        with planner_settings(self.session, enable_nestloop="off"):
            yield

    def stakes_by_player_statement(
        self, round_id: int, owner: str, in_play_account_id: int
    ) -> Select[tuple[str, Any]]:
        return (
            select(TRANSACTIONS.c.player_id, func.sum(ENTRIES.c.amount))
            .select_from(ENTRIES.join(TRANSACTIONS, ENTRIES.c.transaction_id == TRANSACTIONS.c.id))
            .where(
                TRANSACTIONS.c.round_id == round_id,
                TRANSACTIONS.c.owner == owner,
                TRANSACTIONS.c.category == "stake",
                ENTRIES.c.account_id == in_play_account_id,
            )
            .group_by(TRANSACTIONS.c.player_id)
        )

    # -- statements -------------------------------------------------------------------------

    def statement(
        self, account_id: int, limit: int, before_entry_id: int | None
    ) -> list[StatementRow]:
        """The account's entries newest first, each with the balance right after it."""
        running = (
            func.sum(ENTRIES.c.amount).over(order_by=ENTRIES.c.id, rows=(None, 0)).label("after")
        )
        history = (
            select(ENTRIES.c.id, ENTRIES.c.transaction_id, ENTRIES.c.amount, running)
            .where(ENTRIES.c.account_id == account_id)
            .subquery()
        )
        stmt = (
            select(history.c.id, history.c.amount, history.c.after, *TRANSACTION_COLUMNS)
            .select_from(
                history.join(TRANSACTIONS, history.c.transaction_id == TRANSACTIONS.c.id).outerjoin(
                    ROUNDS, TRANSACTIONS.c.round_id == ROUNDS.c.id
                )
            )
            .order_by(history.c.id.desc())
            .limit(limit)
        )
        if before_entry_id is not None:
            stmt = stmt.where(and_(history.c.id < before_entry_id))
        return [
            StatementRow(row[0], int(row[1]), int(row[2]), transaction_row(row[3:]))
            for row in self.session.execute(stmt)
        ]
