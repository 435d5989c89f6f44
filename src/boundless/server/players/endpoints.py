"""``/api/v1/players`` and ``/api/v1/me``: thin, the service does the work."""

from __future__ import annotations

from fastapi import APIRouter, Request

from boundless.server.dependencies import CurrentPlayer, ReadSession, State
from boundless.server.players.schemas import PlayerOut, SignedUp, SignUp
from boundless.server.players.service import PlayerService

router = APIRouter(prefix="/api/v1", tags=["players"])


@router.post("/players", status_code=201)
def sign_up(body: SignUp, state: State, request: Request) -> SignedUp:
    state.signup_limit.check(request.client.host if request.client else "unknown")
    with state.sessions.begin() as session:  # one write transaction, committed here
        service = PlayerService(session)
        player, token = service.sign_up(body.display_name, state.config.starting_grant)
        balance = service.balance(player.player_id)
    return SignedUp(
        player_id=player.player_id, display_name=player.display_name, token=token, balance=balance
    )


@router.get("/me")
def me(player: CurrentPlayer, session: ReadSession) -> PlayerOut:
    return PlayerOut(
        player_id=player.player_id,
        display_name=player.display_name,
        balance=PlayerService(session).balance(player.player_id),
    )
