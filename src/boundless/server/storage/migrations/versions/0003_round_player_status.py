"""A round player's own ending: a round shared by several gateways can settle for some players
and be cancelled for others (a gateway that stopped mid-round); and whether the player still has
to be told (they were not connected when their part was cancelled).

Revision ID: 0003_round_player_status
Revises: 0002_bet_id_index
Create Date: 2026-12-08
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_round_player_status"
down_revision: str | None = "0002_bet_id_index"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("server_round_players") as batch:
        batch.add_column(sa.Column("status", sa.String(16), nullable=True))
        batch.add_column(sa.Column("reason", sa.Text(), nullable=True))
        batch.add_column(sa.Column("untold", sa.Boolean(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("server_round_players") as batch:
        batch.drop_column("untold")
        batch.drop_column("reason")
        batch.drop_column("status")
