"""Player protection: the append-only protection events and each player's play session.

Revision ID: 0005_protection
Revises: 0004_signups
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_protection"
down_revision: str | None = "0004_signups"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
When = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "server_protection_events",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("field", sa.String(32), nullable=True),
        sa.Column("amount", sa.BigInteger(), nullable=True),
        sa.Column("until_at", When, nullable=True),
        sa.Column("actor", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("created_at", When, nullable=False),
        sa.Column("effective_at", When, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_server_protection_events")),
    )
    op.create_index(
        "ix_server_protection_events_player", "server_protection_events", ["player_id", "id"]
    )
    op.create_table(
        "server_play_sessions",
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("started_at", When, nullable=False),
        sa.Column("last_seen_at", When, nullable=False),
        sa.Column("check_due_at", When, nullable=True),
        sa.Column("check_pending", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("player_id", name=op.f("pk_server_play_sessions")),
    )


def downgrade() -> None:
    op.drop_table("server_play_sessions")
    op.drop_index("ix_server_protection_events_player", table_name="server_protection_events")
    op.drop_table("server_protection_events")
