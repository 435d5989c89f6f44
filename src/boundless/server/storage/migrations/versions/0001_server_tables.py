"""Server tables: players, bets, rounds, round players, shoes.

Revision ID: 0001_server_tables
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001_server_tables"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
Moment = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "server_players",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("display_name", sa.String(64), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("is_bot", sa.Boolean(), nullable=False),
        sa.Column("created_at", Moment, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_server_players")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_server_players_token_hash")),
    )
    op.create_table(
        "server_bets",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("bet_id", sa.String(64), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("round_no", sa.BigInteger(), nullable=False),
        sa.Column("answer_json", sa.Text(), nullable=False),
        sa.Column("created_at", Moment, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_server_bets")),
        sa.UniqueConstraint("player_id", "bet_id", name=op.f("uq_server_bets_player_id_bet_id")),
    )
    op.create_table(
        "server_rounds",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("round_no", sa.BigInteger(), nullable=False),
        sa.Column("title", sa.String(64), nullable=False),
        sa.Column("rules_version", sa.String(64), nullable=False),
        sa.Column("shoe_number", sa.BigInteger(), nullable=True),
        sa.Column("round_in_shoe", sa.Integer(), nullable=True),
        sa.Column("shoe_commitment", sa.String(64), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("events_json", sa.Text(), nullable=False),
        sa.Column("ended_at", Moment, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_server_rounds")),
        sa.UniqueConstraint(
            "table_id", "round_no", name=op.f("uq_server_rounds_table_id_round_no")
        ),
    )
    op.create_table(
        "server_round_players",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("round_id", Id, nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("staked", sa.BigInteger(), nullable=False),
        sa.Column("paid", sa.BigInteger(), nullable=False),
        sa.Column("balance_before", sa.BigInteger(), nullable=True),
        sa.Column("balance_after", sa.BigInteger(), nullable=True),
        sa.Column("results_json", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_server_round_players")),
        sa.ForeignKeyConstraint(
            ["round_id"],
            ["server_rounds.id"],
            name=op.f("fk_server_round_players_round_id_server_rounds"),
        ),
        sa.UniqueConstraint(
            "round_id", "player_id", name=op.f("uq_server_round_players_round_id_player_id")
        ),
    )
    op.create_index(
        "ix_server_round_players_player_round",
        "server_round_players",
        ["player_id", "round_id"],
    )
    op.create_table(
        "server_shoes",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("shoe_number", sa.BigInteger(), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("salt", sa.String(64), nullable=False),
        sa.Column("cards", sa.Text(), nullable=False),
        sa.Column("burn_json", sa.Text(), nullable=True),
        sa.Column("finished", sa.Boolean(), nullable=False),
        sa.Column("shuffled_at", Moment, nullable=False),
        sa.Column("finished_at", Moment, nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_server_shoes")),
        sa.UniqueConstraint(
            "table_id", "shoe_number", name=op.f("uq_server_shoes_table_id_shoe_number")
        ),
    )


def downgrade() -> None:
    op.drop_table("server_shoes")
    op.drop_index("ix_server_round_players_player_round", table_name="server_round_players")
    op.drop_table("server_round_players")
    op.drop_table("server_rounds")
    op.drop_table("server_bets")
    op.drop_table("server_players")
