"""Ledger tables: accounts, rounds, transactions, entries.

Revision ID: 0001_ledger_tables
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001_ledger_tables"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "ledger_accounts",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=True),
        sa.Column("balance", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger_accounts")),
        sa.UniqueConstraint("name", name=op.f("uq_ledger_accounts_name")),
        sa.CheckConstraint(
            "kind IN ('wallet', 'in_play', 'house', 'issuance')",
            name=op.f("ck_ledger_accounts_kind"),
        ),
        sa.CheckConstraint(
            "kind <> 'wallet' OR balance >= 0", name=op.f("ck_ledger_accounts_wallet_not_negative")
        ),
    )
    op.create_table(
        "ledger_rounds",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("round_no", sa.BigInteger(), nullable=False),
        sa.Column("in_play_account_id", Id, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger_rounds")),
        sa.UniqueConstraint(
            "table_id", "round_no", name=op.f("uq_ledger_rounds_table_id_round_no")
        ),
        sa.ForeignKeyConstraint(
            ["in_play_account_id"],
            ["ledger_accounts.id"],
            name=op.f("fk_ledger_rounds_in_play_account_id_ledger_accounts"),
        ),
        sa.CheckConstraint(
            "status IN ('open', 'closed', 'cancelled')", name=op.f("ck_ledger_rounds_status")
        ),
    )
    op.create_table(
        "ledger_transactions",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("idempotency_key", sa.String(240), nullable=False),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("description", sa.String(300), nullable=False),
        sa.Column("category", sa.String(16), nullable=False),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("round_id", Id, nullable=True),
        sa.Column("player_id", sa.String(64), nullable=True),
        sa.Column("position", sa.String(64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger_transactions")),
        sa.UniqueConstraint("idempotency_key", name=op.f("uq_ledger_transactions_idempotency_key")),
        sa.ForeignKeyConstraint(
            ["round_id"],
            ["ledger_rounds.id"],
            name=op.f("fk_ledger_transactions_round_id_ledger_rounds"),
        ),
    )
    op.create_index(
        op.f("ix_ledger_transactions_round_id_position"),
        "ledger_transactions",
        ["round_id", "position"],
    )
    op.create_table(
        "ledger_entries",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("transaction_id", Id, nullable=False),
        sa.Column("account_id", Id, nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger_entries")),
        sa.ForeignKeyConstraint(
            ["transaction_id"],
            ["ledger_transactions.id"],
            name=op.f("fk_ledger_entries_transaction_id_ledger_transactions"),
        ),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["ledger_accounts.id"],
            name=op.f("fk_ledger_entries_account_id_ledger_accounts"),
        ),
        sa.CheckConstraint("amount <> 0", name=op.f("ck_ledger_entries_amount_not_zero")),
    )
    op.create_index(
        op.f("ix_ledger_entries_transaction_id_account_id"),
        "ledger_entries",
        ["transaction_id", "account_id"],
    )
    op.create_index(op.f("ix_ledger_entries_account_id_id"), "ledger_entries", ["account_id", "id"])


def downgrade() -> None:
    op.drop_table("ledger_entries")
    op.drop_table("ledger_transactions")
    op.drop_table("ledger_rounds")
    op.drop_table("ledger_accounts")
