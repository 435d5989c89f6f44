"""FastAPI dependencies: the app's services, the authenticated player, the operator."""

from __future__ import annotations

import hmac
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header, Request
from sqlalchemy.orm import Session, sessionmaker

from boundless.server.config import ServerConfig
from boundless.server.errors import ForbiddenError, UnauthorizedError
from boundless.server.players.service import PlayerIdentity, PlayerService
from boundless.server.players.signup_limit import SignUpLimit
from boundless.server.protection.service import ProtectionService
from boundless.server.tables.registry import TableRegistry


@dataclass(slots=True)
class ServerState:
    config: ServerConfig
    sessions: sessionmaker[Session]
    """Writes. On SQLite each transaction takes the write lock, so a write transaction never
    spans an ``await``: endpoints that write open and commit it themselves, in one block."""
    read_sessions: sessionmaker[Session]
    """Reads: a snapshot that never takes the write lock (safe across awaits)."""
    registry: TableRegistry
    signup_limit: SignUpLimit


def server_state(request: Request) -> ServerState:
    state: ServerState = request.app.state.server
    return state


State = Annotated[ServerState, Depends(server_state)]


def read_transaction(state: State) -> Iterator[Session]:
    """A read-only snapshot for the request (never the write lock)."""
    with state.read_sessions.begin() as session:
        yield session


ReadSession = Annotated[Session, Depends(read_transaction)]


def bearer(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise UnauthorizedError("use 'Authorization: Bearer <token>'")
    return token.strip()


def current_player(
    state: State, session: ReadSession, authorization: Annotated[str | None, Header()] = None
) -> PlayerIdentity:
    """The signed-in player; a timed-out or self-excluded one is refused (403)."""
    player = PlayerService(session).authenticate(bearer(authorization))
    if not player.is_bot:
        ProtectionService(session, state.config.jurisdiction).check_sign_in(player.player_id)
    return player


def optional_player(
    state: State, authorization: Annotated[str | None, Header()] = None
) -> PlayerIdentity | None:
    token = bearer(authorization)
    if token is None:
        return None
    with state.read_sessions.begin() as session:
        return PlayerService(session).authenticate(token)


def require_admin(state: State, authorization: Annotated[str | None, Header()] = None) -> None:
    """The admin token, or 401; a player's own token is known but not allowed here: 403."""
    token = bearer(authorization)
    expected = state.config.admin_token
    # As bytes: compare_digest refuses str with non-ASCII characters (a TypeError, a 500), and
    # header bytes arrive as Latin-1 text, so any client could send such a token.
    if token and expected and hmac.compare_digest(token.encode(), expected.encode()):
        return
    if token:
        with state.read_sessions.begin() as session:
            PlayerService(session).authenticate(token)  # an unknown token: 401
        raise ForbiddenError("a player's token cannot administer the server")
    raise UnauthorizedError("the admin token is required")


CurrentPlayer = Annotated[PlayerIdentity, Depends(current_player)]
OptionalPlayer = Annotated[PlayerIdentity | None, Depends(optional_player)]
Admin = Annotated[None, Depends(require_admin)]
