"""Wallet calls: every call made to an operator's wallet (``--wallet seamless``).

Revision ID: 0003_wallet_calls
Revises: 0002_ledger_slices
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_wallet_calls"
down_revision: str | None = "0002_ledger_slices"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TABLE = "ledger_wallet_calls"


def upgrade() -> None:
    op.create_table(
        TABLE,
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("transaction_id", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("round_id", sa.String(100), nullable=False),
        sa.Column("owner", sa.String(100), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("currency", sa.String(8), nullable=False),
        sa.Column("refers_to", sa.String(64), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.BigInteger(), nullable=False),
        sa.Column("last_error", sa.String(300), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("done_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger_wallet_calls")),
        sa.UniqueConstraint("transaction_id", name=op.f("uq_ledger_wallet_calls_transaction_id")),
        sa.CheckConstraint(
            "kind IN ('debit', 'credit', 'rollback')", name=op.f("ck_ledger_wallet_calls_kind")
        ),
        sa.CheckConstraint(
            "status IN ('pending', 'done', 'refused')", name=op.f("ck_ledger_wallet_calls_status")
        ),
        sa.CheckConstraint("amount >= 0", name=op.f("ck_ledger_wallet_calls_amount_not_negative")),
    )
    op.create_index(op.f("ix_ledger_wallet_calls_status_id"), TABLE, ["status", "id"])
    op.create_index(op.f("ix_ledger_wallet_calls_created_at"), TABLE, ["created_at"])
    op.create_index(op.f("ix_ledger_wallet_calls_round_id_owner"), TABLE, ["round_id", "owner"])


def downgrade() -> None:
    op.drop_table(TABLE)
