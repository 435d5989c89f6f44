"""All SQL about players."""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from boundless.server.storage.models import Player


class PlayerRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def add(self, player_id: str, display_name: str, token_hash: str, is_bot: bool) -> Player:
        player = Player(
            id=player_id, display_name=display_name, token_hash=token_hash, is_bot=is_bot
        )
        self.session.add(player)
        self.session.flush()
        return player

    def by_id(self, player_id: str) -> Player | None:
        return self.session.get(Player, player_id)

    def by_token_hash(self, token_hash: str) -> Player | None:
        return self.session.scalars(select(Player).where(Player.token_hash == token_hash)).first()

    def names(self, player_ids: list[str]) -> dict[str, str]:
        rows = self.session.execute(
            select(Player.id, Player.display_name).where(Player.id.in_(player_ids))
        )
        return {row[0]: row[1] for row in rows}

    def set_token_hash(self, player_id: str, token_hash: str) -> None:
        self.session.execute(
            update(Player).where(Player.id == player_id).values(token_hash=token_hash)
        )
