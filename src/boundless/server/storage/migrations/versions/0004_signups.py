"""Recent sign-ups by client address: the sign-up rate limit of a cluster's gateways counts them
in the shared database, so the limit holds across processes.

Revision ID: 0004_signups
Revises: 0003_round_player_status
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_signups"
down_revision: str | None = "0003_round_player_status"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "server_signups",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("address", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_server_signups")),
    )
    op.create_index("ix_server_signups_address", "server_signups", ["address", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_server_signups_address", table_name="server_signups")
    op.drop_table("server_signups")
