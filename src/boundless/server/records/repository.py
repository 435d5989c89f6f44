"""All SQL of the play record."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from boundless.server.storage.models import Round, RoundPlayer, Shoe


class RecordRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def round_by_key(self, table_id: str, round_no: int) -> Round | None:
        return self.session.scalars(
            select(Round).where(Round.table_id == table_id, Round.round_no == round_no)
        ).first()

    def player_rounds(
        self, player_id: str, limit: int, before_id: int | None, table_id: str | None = None
    ) -> list[tuple[Round, RoundPlayer]]:
        """The player's rounds, newest first (at one table where ``table_id`` is given)."""
        query = (
            select(Round, RoundPlayer)
            .join(RoundPlayer, RoundPlayer.round_id == Round.id)
            .where(RoundPlayer.player_id == player_id)
        )
        if table_id is not None:
            query = query.where(Round.table_id == table_id)
        if before_id is not None:
            query = query.where(Round.id < before_id)
        query = query.order_by(Round.id.desc()).limit(limit)
        return [(row[0], row[1]) for row in self.session.execute(query)]

    def player_line(self, round_id: int, player_id: str) -> RoundPlayer | None:
        return self.session.scalars(
            select(RoundPlayer).where(
                RoundPlayer.round_id == round_id, RoundPlayer.player_id == player_id
            )
        ).first()

    def shoe(self, table_id: str, shoe_number: int | None) -> Shoe | None:
        if shoe_number is None:
            return None
        return self.session.scalars(
            select(Shoe).where(Shoe.table_id == table_id, Shoe.shoe_number == shoe_number)
        ).first()
