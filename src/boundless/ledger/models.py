"""Ledger tables (SQLAlchemy 2 typed ORM). Amounts are BIGINT minor units, never floats."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    Column,
    DateTime,
    ForeignKey,
    Index,
    MetaData,
    String,
    Table,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from boundless.ledger.sql_conventions import NAMING_CONVENTION, IdType, utc_now


class LedgerBase(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Account(LedgerBase):
    __tablename__ = "ledger_accounts"
    __table_args__ = (
        CheckConstraint("kind IN ('wallet', 'in_play', 'house', 'issuance')", name="kind"),
        CheckConstraint("kind <> 'wallet' OR balance >= 0", name="wallet_not_negative"),
    )

    id: Mapped[int] = mapped_column(IdType, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    kind: Mapped[str] = mapped_column(String(16))
    player_id: Mapped[str | None] = mapped_column(String(64))
    balance: Mapped[int] = mapped_column(BigInteger, default=0)
    """Cached sum of the account's entries; ``boundless ledger check`` proves it."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class Round(LedgerBase):
    __tablename__ = "ledger_rounds"
    __table_args__ = (
        UniqueConstraint("table_id", "round_no"),
        CheckConstraint("status IN ('open', 'closed', 'cancelled')", name="status"),
    )

    id: Mapped[int] = mapped_column(IdType, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(String(64))
    round_no: Mapped[int] = mapped_column(BigInteger)
    in_play_account_id: Mapped[int] = mapped_column(ForeignKey("ledger_accounts.id"))
    """The round's own in-play account: slices hold the stakes; it stays at zero since slices."""
    status: Mapped[str] = mapped_column(String(16), default="open")
    opened_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    owner: Mapped[str | None] = mapped_column(String(100))
    """The process that opened the round (its coordinator); its recovery cancels the round."""


class Slice(LedgerBase):
    """One owner's part of a round (a gateway's players), with its own in-play account."""

    __tablename__ = "ledger_slices"
    __table_args__ = (
        UniqueConstraint("round_id", "owner"),
        CheckConstraint("status IN ('open', 'settled', 'cancelled')", name="status"),
        Index(None, "owner", "status"),
    )

    id: Mapped[int] = mapped_column(IdType, primary_key=True, autoincrement=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("ledger_rounds.id"))
    owner: Mapped[str] = mapped_column(String(100))
    in_play_account_id: Mapped[int] = mapped_column(ForeignKey("ledger_accounts.id"))
    status: Mapped[str] = mapped_column(String(16), default="open")
    opened_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class LedgerTransaction(LedgerBase):
    __tablename__ = "ledger_transactions"
    # By id, not position: ids grow, so a stake adds at the index's right edge (migration 0005).
    __table_args__ = (Index(None, "round_id", "owner", "id"),)

    id: Mapped[int] = mapped_column(IdType, primary_key=True, autoincrement=True)
    idempotency_key: Mapped[str] = mapped_column(String(240), unique=True)
    fingerprint: Mapped[str] = mapped_column(String(64))
    """SHA-256 of the request that made this transaction; a replay must match it."""
    description: Mapped[str] = mapped_column(String(300))
    category: Mapped[str] = mapped_column(String(16))
    kind: Mapped[str] = mapped_column(String(64))
    round_id: Mapped[int | None] = mapped_column(IdType)
    """A ``ledger_rounds`` id. No foreign keys on the two big tables: PostgreSQL checks them row
    by row (half the cost of a 100,000-bet batch); ``ledger check`` proves every reference."""
    player_id: Mapped[str | None] = mapped_column(String(64))
    position: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    owner: Mapped[str | None] = mapped_column(String(100))
    """With ``round_id``, the slice this transaction belongs to (a ``ledger_slices`` row; SQLite
    cannot add that composite foreign key to an existing table, so ``ledger check`` proves it).
    NULL for grants and for a whole-round cancellation."""


class Entry(LedgerBase):
    __tablename__ = "ledger_entries"
    __table_args__ = (
        CheckConstraint("amount <> 0", name="amount_not_zero"),
        Index(None, "account_id", "id"),
        Index(None, "transaction_id", "account_id"),
    )

    id: Mapped[int] = mapped_column(IdType, primary_key=True, autoincrement=True)
    transaction_id: Mapped[int] = mapped_column(IdType)
    account_id: Mapped[int] = mapped_column(IdType)
    """Ids of a transaction and an account (no foreign keys, see ``round_id`` above)."""
    amount: Mapped[int] = mapped_column(BigInteger)


def _table(model: type[LedgerBase]) -> Table:
    table = model.__table__
    assert isinstance(table, Table)
    return table


ACCOUNTS = _table(Account)
ROUNDS = _table(Round)
SLICES = _table(Slice)
TRANSACTIONS = _table(LedgerTransaction)
ENTRIES = _table(Entry)


class WalletCall(LedgerBase):
    """One call to an operator's wallet (the ``seamless`` wallet): our transaction id, what it
    moves, and where its delivery stands. Written in the same database transaction as the
    ledger write it mirrors, so a credit or rollback owed is never lost; ``amount`` never
    changes once written, so a call is never sent twice with different amounts."""

    __tablename__ = "ledger_wallet_calls"
    __table_args__ = (
        CheckConstraint("kind IN ('debit', 'credit', 'rollback')", name="kind"),
        CheckConstraint("status IN ('pending', 'done', 'refused')", name="status"),
        CheckConstraint("amount >= 0", name="amount_not_negative"),
        Index(None, "status", "id"),
        Index(None, "created_at"),
        Index(None, "round_id", "owner"),
    )

    id: Mapped[int] = mapped_column(IdType, primary_key=True, autoincrement=True)
    transaction_id: Mapped[str] = mapped_column(String(64), unique=True)
    kind: Mapped[str] = mapped_column(String(16))
    player_id: Mapped[str] = mapped_column(String(64))
    round_id: Mapped[str] = mapped_column(String(100))
    owner: Mapped[str] = mapped_column(String(100))
    """The ledger owner that made the call (``local``, a gateway's slice owner)."""
    amount: Mapped[int] = mapped_column(BigInteger)
    currency: Mapped[str] = mapped_column(String(8))
    refers_to: Mapped[str | None] = mapped_column(String(64))
    """A rollback's debit transaction id."""
    status: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[int] = mapped_column(BigInteger, default=0)
    last_error: Mapped[str | None] = mapped_column(String(300))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    done_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


WALLET_CALLS = _table(WalletCall)


WALLET_INTENTS = Table(
    "ledger_wallet_intents",
    LedgerBase.metadata,
    # No key: a debit sent again (the same id) may have two intents; both go with it. Without
    # a unique index PostgreSQL takes them by COPY, the cheapest write there is.
    Column("transaction_id", String(40), nullable=False, index=True),
    Column("owner", String(128), nullable=False),
    Column("player_id", String(128), nullable=False),
    Column("round_id", String(160), nullable=False),
    Column("amount", BigInteger, nullable=False),
    Column("currency", String(3), nullable=False),
)
"""Each debit about to be sent to an operator's wallet (:mod:`boundless.wallet.intents`); on
PostgreSQL here, beside a SQLite ledger in a file of its own (this table then stays empty)."""
