"""Debit intents: each debit about to be sent to an operator's wallet (``--wallet seamless``),
so that a restart can roll back those sent and never recorded.

On SQLite the server keeps its intents in a file of its own beside the ledger (the ledger's
write lock is held while a debit is in flight), so there this table stays empty.

Revision ID: 0004_wallet_intents
Revises: 0003_wallet_calls
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_wallet_intents"
down_revision: str | None = "0003_wallet_calls"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLE = "ledger_wallet_intents"
MADE_BY_THE_SERVER = "wallet_intents"


def upgrade() -> None:
    # Before this revision the server made the table itself at its first start, under
    # another name: such a database keeps its rows (the same columns and index).
    bind = op.get_bind()
    if sa.inspect(bind).has_table(MADE_BY_THE_SERVER):  # PostgreSQL only (see above)
        op.rename_table(MADE_BY_THE_SERVER, TABLE)
        index = "ix_{}_transaction_id"
        op.execute(
            f"ALTER INDEX {index.format(MADE_BY_THE_SERVER)} RENAME TO {index.format(TABLE)}"
        )
        return
    op.create_table(
        TABLE,
        sa.Column("transaction_id", sa.String(40), nullable=False),
        sa.Column("owner", sa.String(128), nullable=False),
        sa.Column("player_id", sa.String(128), nullable=False),
        sa.Column("round_id", sa.String(160), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
    )
    op.create_index(op.f("ix_ledger_wallet_intents_transaction_id"), TABLE, ["transaction_id"])


def downgrade() -> None:
    op.drop_table(TABLE)
