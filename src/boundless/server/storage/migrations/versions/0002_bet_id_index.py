"""Index bets by their client id (a retry is looked up by it).

Revision ID: 0002_bet_id_index
Revises: 0001_server_tables
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0002_bet_id_index"
down_revision: str | None = "0001_server_tables"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_server_bets_bet_id", "server_bets", ["bet_id"])


def downgrade() -> None:
    op.drop_index("ix_server_bets_bet_id", table_name="server_bets")
