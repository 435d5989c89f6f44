"""Ledger slices: each owner's (gateway's) part of a round, with its own in-play account.

Existing rounds become one slice each, owned by ``local`` (the single-process server), holding
their in-play account and their transactions; a whole-round cancellation stays round-level.

The foreign keys of the two big tables (entries -> transactions and accounts, transactions ->
rounds) go: PostgreSQL checks them row by row, which was half the cost of a batch of 100,000
bets. ``boundless ledger check`` proves every reference instead (``dangling_reference``).

Revision ID: 0002_ledger_slices
Revises: 0001_ledger_tables
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002_ledger_slices"
down_revision: str | None = "0001_ledger_tables"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
LEGACY_OWNER = "local"
ENTRY_TRANSACTION_FK = "fk_ledger_entries_transaction_id_ledger_transactions"
ENTRY_ACCOUNT_FK = "fk_ledger_entries_account_id_ledger_accounts"
TRANSACTION_ROUND_FK = "fk_ledger_transactions_round_id_ledger_rounds"


def upgrade() -> None:
    op.create_table(
        "ledger_slices",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("round_id", Id, nullable=False),
        sa.Column("owner", sa.String(100), nullable=False),
        sa.Column("in_play_account_id", Id, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger_slices")),
        sa.UniqueConstraint("round_id", "owner", name=op.f("uq_ledger_slices_round_id_owner")),
        sa.ForeignKeyConstraint(
            ["round_id"], ["ledger_rounds.id"], name=op.f("fk_ledger_slices_round_id_ledger_rounds")
        ),
        sa.ForeignKeyConstraint(
            ["in_play_account_id"],
            ["ledger_accounts.id"],
            name=op.f("fk_ledger_slices_in_play_account_id_ledger_accounts"),
        ),
        sa.CheckConstraint(
            "status IN ('open', 'settled', 'cancelled')", name=op.f("ck_ledger_slices_status")
        ),
    )
    op.create_index(op.f("ix_ledger_slices_owner_status"), "ledger_slices", ["owner", "status"])
    op.add_column("ledger_rounds", sa.Column("owner", sa.String(100), nullable=True))
    if op.get_bind().dialect.name == "postgresql":
        # Room on each page for the next version of a row: a balance update stays on its page
        # (a HOT update) and touches no index. Every batch updates thousands of wallets.
        op.execute("ALTER TABLE ledger_accounts SET (fillfactor = 50)")
    # SQLite rebuilds a table to drop a constraint: the entries first (nothing refers to them),
    # then the transactions, which nothing refers to any more.
    with op.batch_alter_table("ledger_entries") as batch:
        batch.drop_constraint(ENTRY_TRANSACTION_FK, type_="foreignkey")
        batch.drop_constraint(ENTRY_ACCOUNT_FK, type_="foreignkey")
    with op.batch_alter_table("ledger_transactions") as batch:
        batch.drop_constraint(TRANSACTION_ROUND_FK, type_="foreignkey")
        batch.add_column(sa.Column("owner", sa.String(100), nullable=True))
    # One index serves every per-round read (a slice's stakes, a position's share, the round).
    op.drop_index(op.f("ix_ledger_transactions_round_id_position"), "ledger_transactions")
    op.create_index(
        op.f("ix_ledger_transactions_round_id_owner_position"),
        "ledger_transactions",
        ["round_id", "owner", "position"],
    )
    # Every existing round: one 'local' slice over its in-play account and its transactions.
    op.execute(
        sa.text(
            "INSERT INTO ledger_slices (round_id, owner, in_play_account_id, status, opened_at, "
            "ended_at) SELECT id, :owner, in_play_account_id, CASE status WHEN 'closed' THEN "
            "'settled' ELSE status END, opened_at, ended_at FROM ledger_rounds"
        ).bindparams(owner=LEGACY_OWNER)
    )
    op.execute(sa.text("UPDATE ledger_rounds SET owner = :owner").bindparams(owner=LEGACY_OWNER))
    op.execute(
        sa.text(
            "UPDATE ledger_transactions SET owner = :owner "
            "WHERE round_id IS NOT NULL AND category <> 'cancel'"
        ).bindparams(owner=LEGACY_OWNER)
    )


def downgrade() -> None:
    """Drops the slices: only for a ledger whose rounds all ended (slice accounts stay)."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE ledger_accounts RESET (fillfactor)")
    op.drop_index(op.f("ix_ledger_transactions_round_id_owner_position"), "ledger_transactions")
    with op.batch_alter_table("ledger_transactions") as batch:
        batch.drop_column("owner")
        batch.create_foreign_key(TRANSACTION_ROUND_FK, "ledger_rounds", ["round_id"], ["id"])
    with op.batch_alter_table("ledger_entries") as batch:
        batch.create_foreign_key(
            ENTRY_TRANSACTION_FK, "ledger_transactions", ["transaction_id"], ["id"]
        )
        batch.create_foreign_key(ENTRY_ACCOUNT_FK, "ledger_accounts", ["account_id"], ["id"])
    op.create_index(
        op.f("ix_ledger_transactions_round_id_position"),
        "ledger_transactions",
        ["round_id", "position"],
    )
    # Plain DROP COLUMN (SQLite >= 3.35): batch mode would rebuild a table others refer to.
    op.execute("ALTER TABLE ledger_rounds DROP COLUMN owner")
    op.drop_index(op.f("ix_ledger_slices_owner_status"), "ledger_slices")
    op.drop_table("ledger_slices")
