"""Players from an operator: ``POST /api/v1/operator/sessions`` (signed with the secret shared
with the operator) opens a game session for the operator's player and answers a one-time launch
URL; the player's browser opens it and trades the code for a token
(``POST /api/v1/operator/launch``), with no sign-up of ours. Our player id is the operator's,
so every wallet call names the player the operator knows.

Launch codes live in this process's memory for ``CODE_SECONDS`` and are used once: the URL
must open on the process that made it (the gateway the operator called, on a cluster).
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import orjson
from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from boundless.ledger import LedgerService
from boundless.server.dependencies import State
from boundless.server.errors import (
    BadMessageError,
    ConflictError,
    NotFoundError,
    UnauthorizedError,
    describe_validation,
)
from boundless.server.players.repository import PlayerRepository
from boundless.server.players.service import TOKEN_BYTES, hash_token
from boundless.wallet.signing import REQUEST_HEADER, verify

CODE_SECONDS = 600.0
PLAYER_ID_PATTERN = r"^[A-Za-z0-9_.@-]{1,64}$"


class OpenSession(BaseModel):
    model_config = ConfigDict(extra="forbid")
    player_id: str = Field(pattern=PLAYER_ID_PATTERN)
    name: str = Field(min_length=1, max_length=32, pattern=r"^[^\x00-\x1f\x7f]+$")
    currency: str = Field(pattern=r"^[A-Z]{3}$")
    language: str = Field(default="en", pattern=r"^[a-z]{2}$")


class SessionOpened(BaseModel):
    player_id: str
    launch_url: str
    expires_in: int


class Launch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    code: str = Field(min_length=16, max_length=128)


class Launched(BaseModel):
    player_id: str
    display_name: str
    token: str
    language: str


@dataclass
class OperatorLaunches:
    """The secret shared with the operator, the server's currency, and the open launch codes."""

    secret: bytes
    currency: str = "EUR"
    codes: dict[str, tuple[str, str, float]] = field(default_factory=dict)
    """code -> (player id, language, expiry on the monotonic clock)."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def issue(self, player_id: str, language: str) -> str:
        code = secrets.token_urlsafe(24)
        now = time.monotonic()
        with self.lock:
            self.codes = {k: v for k, v in self.codes.items() if v[2] > now}
            self.codes[code] = (player_id, language, now + CODE_SECONDS)
        return code

    def redeem(self, code: str) -> tuple[str, str]:
        with self.lock:
            found = self.codes.pop(code, None)
        if found is None or found[2] < time.monotonic():
            raise UnauthorizedError("this launch link is unknown, used or expired")
        return found[0], found[1]


def launches(request: Request) -> OperatorLaunches:
    found = getattr(request.app.state, "operator_launches", None)
    if found is None:
        raise NotFoundError("this server has no operator (start it with a wallet secret)")
    assert isinstance(found, OperatorLaunches)
    return found


def web_languages(web_dir: Path) -> list[str]:
    """The languages the web client speaks (its ``i18n/<language>.json`` strings: the client
    owns them); none when this server serves no client."""
    return sorted(path.stem for path in (web_dir / "i18n").glob("*.json"))


Launches = Annotated[OperatorLaunches, Depends(launches)]
router = APIRouter(prefix="/api/v1/operator", tags=["operator"])


@router.post("/sessions", status_code=201)
async def open_session(request: Request, state: State, operator: Launches) -> SessionOpened:
    data = await request.body()
    if not verify(operator.secret, data, request.headers.get(REQUEST_HEADER)):
        raise UnauthorizedError(f"the {REQUEST_HEADER} header does not sign this body")
    try:
        body = OpenSession.model_validate(orjson.loads(data))
    except orjson.JSONDecodeError:
        raise BadMessageError("the body is not JSON") from None
    except ValidationError as error:
        raise BadMessageError(describe_validation(error)) from None
    if body.currency != operator.currency:
        raise ConflictError(f"this server plays in {operator.currency}, not {body.currency}")
    languages = web_languages(state.config.web_dir)
    if languages and body.language not in languages:
        raise BadMessageError(f"language: one of {', '.join(languages)}, not {body.language!r}")
    with state.sessions.begin() as session:  # one write transaction, committed here
        players = PlayerRepository(session)
        placeholder = hash_token(secrets.token_urlsafe(TOKEN_BYTES))  # no token until launch
        if players.by_id(body.player_id) is None:
            players.add(body.player_id, body.name.strip(), placeholder, is_bot=False)
            LedgerService(session).open_wallet(body.player_id)
    code = operator.issue(body.player_id, body.language)
    base = str(request.base_url).rstrip("/")
    return SessionOpened(
        player_id=body.player_id,
        launch_url=f"{base}/?launch={code}&lang={body.language}",
        expires_in=int(CODE_SECONDS),
    )


@router.post("/launch")
def launch(body: Launch, state: State, operator: Launches) -> Launched:
    player_id, language = operator.redeem(body.code)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    with state.sessions.begin() as session:
        players = PlayerRepository(session)
        players.set_token_hash(player_id, hash_token(token))
        player = players.by_id(player_id)
        assert player is not None
        name = player.display_name
    return Launched(player_id=player_id, display_name=name, token=token, language=language)
