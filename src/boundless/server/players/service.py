"""Sign-up, authentication and balances. No commits: the caller owns the transaction."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from sqlalchemy.orm import Session

from boundless.ledger import LedgerService, grant_key
from boundless.server.errors import BadMessageError, UnauthorizedError
from boundless.server.players.repository import PlayerRepository
from boundless.server.typed_text import one_printable_line

TOKEN_BYTES = 32
MAX_DISPLAY_NAME = 32


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class PlayerIdentity:
    player_id: str
    display_name: str
    is_bot: bool = False


class PlayerService:
    def __init__(self, session: Session) -> None:
        self.session = session
        self.players = PlayerRepository(session)
        self.ledger = LedgerService(session)

    def sign_up(
        self, display_name: str, starting_grant: int, *, player_id: str | None = None
    ) -> tuple[PlayerIdentity, str]:
        """A new player with a fresh token and the starting grant; returns (identity, token)."""
        try:
            name = one_printable_line("display name", display_name)
        except ValueError as error:
            raise BadMessageError(f"display_name: {error}") from None
        if len(name) > MAX_DISPLAY_NAME:
            raise BadMessageError(f"display_name: at most {MAX_DISPLAY_NAME} characters")
        token = secrets.token_urlsafe(TOKEN_BYTES)
        new_id = player_id or f"p{secrets.token_hex(8)}"
        self.players.add(new_id, name, hash_token(token), is_bot=player_id is not None)
        self.ledger.open_wallet(new_id)
        if starting_grant > 0:
            self.ledger.grant(new_id, starting_grant, grant_key(new_id, "signup"))
        return PlayerIdentity(new_id, name), token

    def ensure_bot(self, player_id: str, display_name: str, grant: int) -> str:
        """A bot player (created once, new token each start); returns its token."""
        existing = self.players.by_id(player_id)
        if existing is None:
            return self.sign_up(display_name, grant, player_id=player_id)[1]
        token = secrets.token_urlsafe(TOKEN_BYTES)
        self.players.set_token_hash(player_id, hash_token(token))
        return token

    def authenticate(self, token: str | None) -> PlayerIdentity:
        if not token:
            raise UnauthorizedError("a bearer token is required")
        player = self.players.by_token_hash(hash_token(token))
        if player is None:
            raise UnauthorizedError("unknown or revoked token")
        return PlayerIdentity(player.id, player.display_name, player.is_bot)

    def balance(self, player_id: str) -> int:
        return self.ledger.wallet_balance(player_id)
