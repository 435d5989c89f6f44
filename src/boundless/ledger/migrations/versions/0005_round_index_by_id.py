"""A round's transactions indexed by ``(round_id, owner, id)`` instead of by position.

Positions arrive in no order, so the position index took every stake into a random leaf page:
it was about a third of the time a stake's header took to insert. Ids come from a sequence,
so the new index only ever grows at its right edge; a slice's reads (its stakes, its net) use
its first two columns, and the one read of a single position (``settle_position``, a private
table's) filters that slice's rows. The new index is built before the old one is dropped,
holding off the table's writes while it builds: run it as part of an upgrade's stop.

Revision ID: 0005_round_index_by_id
Revises: 0004_wallet_intents
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0005_round_index_by_id"
down_revision: str | None = "0004_wallet_intents"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLE = "ledger_transactions"
BY_POSITION = ["round_id", "owner", "position"]
BY_ID = ["round_id", "owner", "id"]


def upgrade() -> None:
    op.create_index(op.f("ix_ledger_transactions_round_id_owner_id"), TABLE, BY_ID)
    op.drop_index(op.f("ix_ledger_transactions_round_id_owner_position"), TABLE)


def downgrade() -> None:
    op.create_index(op.f("ix_ledger_transactions_round_id_owner_position"), TABLE, BY_POSITION)
    op.drop_index(op.f("ix_ledger_transactions_round_id_owner_id"), TABLE)
