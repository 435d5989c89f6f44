"""``/api/v1/me/...`` (the player's own tools) and ``/api/v1/admin/protection`` (operators):
thin, :class:`ProtectionService` does the work."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request

from boundless.server.dependencies import Admin, CurrentPlayer, ReadSession, ServerState, State
from boundless.server.errors import NotFoundError
from boundless.server.players.repository import PlayerRepository
from boundless.server.protection import clock
from boundless.server.protection.clock import epoch_ms
from boundless.server.protection.repository import ProtectionRepository
from boundless.server.protection.schemas import (
    LimitsIn,
    OperatorExclusionIn,
    OperatorLimitsIn,
    OperatorTimeOutIn,
    RealityCheckIn,
    SelfExclusionIn,
    TimeOutIn,
)
from boundless.server.protection.service import ProtectionService, event_row

router = APIRouter(prefix="/api/v1", tags=["protection"])
audit = logging.getLogger("boundless.audit")


@router.get("/me/limits")
def my_limits(player: CurrentPlayer, state: State, session: ReadSession) -> dict[str, Any]:
    return ProtectionService(session, state.config.jurisdiction).limits(player.player_id)


@router.put("/me/limits")
def set_my_limits(body: LimitsIn, player: CurrentPlayer, state: State) -> dict[str, Any]:
    with state.sessions.begin() as session:
        service = ProtectionService(session, state.config.jurisdiction)
        return service.set_limits(player.player_id, body.wanted(), "player", None)


@router.post("/me/time-out")
def take_time_out(
    request: Request, body: TimeOutIn, player: CurrentPlayer, state: State
) -> dict[str, Any]:
    player_id = player.player_id
    return _stop_play(
        request, state, player_id, "time-out",
        lambda service: service.time_out(player_id, body.hours, "player", None),
    )  # fmt: skip


@router.post("/me/self-exclusion")
def self_exclude(
    request: Request, body: SelfExclusionIn, player: CurrentPlayer, state: State
) -> dict[str, Any]:
    player_id = player.player_id
    return _stop_play(
        request, state, player_id, "self-exclusion",
        lambda service: service.self_exclude(player_id, body.months, "player", None),
    )  # fmt: skip


@router.get("/me/session")
def my_session(player: CurrentPlayer, state: State, session: ReadSession) -> dict[str, int]:
    return ProtectionService(session, state.config.jurisdiction).session_figures(player.player_id)


@router.put("/me/reality-check")
def set_reality_check(body: RealityCheckIn, player: CurrentPlayer, state: State) -> dict[str, int]:
    with state.sessions.begin() as session:
        service = ProtectionService(session, state.config.jurisdiction)
        service.set_reality_minutes(player.player_id, body.minutes)
    return {"minutes": body.minutes}


@router.get("/me/protection")
def my_protection(player: CurrentPlayer, state: State, session: ReadSession) -> dict[str, Any]:
    """The player's profile page: the profile's figures and every protection row of theirs."""
    profile = state.config.jurisdiction
    return {
        "jurisdiction": profile.key,
        "name": profile.name,
        "always_show": sorted(profile.always_show),
        "reality_check": profile.reality_check.model_dump(),
        "time_out": profile.time_out.model_dump(),
        "self_exclusion": profile.self_exclusion.model_dump(),
        "mandatory": sorted(profile.mandatory),
        "history": ProtectionService(session, profile).history(player.player_id),
    }


# -- operators -----------------------------------------------------------------------------
@router.get("/admin/protection", tags=["admin"])
def protection_console(_: Admin, session: ReadSession, limit: int = 100) -> dict[str, Any]:
    """Recent protection events and the players under a limit, time-out or self-exclusion."""
    repository = ProtectionRepository(session)
    under = repository.players_with(clock.utc_now())
    return {
        "events": [event_row(row) for row in repository.recent_events(max(1, min(limit, 1000)))],
        "players": {kind: sorted(players) for kind, players in sorted(under.items())},
    }


def _sign_out(request: Request, player_id: str, why: str) -> None:
    """Close the player's sockets on this process (another gateway refuses their next bet)."""
    handler = getattr(request.app.state, "handler", None)
    if handler is not None:
        handler.sign_out(player_id, why)


def _stop_play(
    request: Request,
    state: ServerState,
    player_id: str,
    why: str,
    start: Callable[[ProtectionService], datetime],
    known: bool = False,
) -> dict[str, Any]:
    """A time-out or an exclusion (``start`` writes it; ``known``: the operator names a player
    who must exist), then the player's sockets here closed: when it ends."""
    with state.sessions.begin() as session:
        if known:
            _known(session, player_id)
        until = start(ProtectionService(session, state.config.jurisdiction))
    _sign_out(request, player_id, why)
    return {"until_ms": epoch_ms(until)}


def _known(session: Any, player_id: str) -> None:
    if PlayerRepository(session).by_id(player_id) is None:
        raise NotFoundError(f"no player {player_id!r}")


@router.put("/admin/players/{player_id}/limits", tags=["admin"])
def operator_limits(
    player_id: str, body: OperatorLimitsIn, _: Admin, state: State
) -> dict[str, Any]:
    with state.sessions.begin() as session:
        _known(session, player_id)
        service = ProtectionService(session, state.config.jurisdiction)
        answer = service.set_limits(player_id, body.wanted(), "operator", body.reason)
    audit.info("operator set limits of %s: %s (%s)", player_id, body.wanted(), body.reason)
    return answer


@router.post("/admin/players/{player_id}/time-out", tags=["admin"])
def operator_time_out(
    request: Request, player_id: str, body: OperatorTimeOutIn, _: Admin, state: State
) -> dict[str, Any]:
    answer = _stop_play(
        request, state, player_id, "time-out",
        lambda service: service.time_out(player_id, body.hours, "operator", body.reason),
        known=True,
    )  # fmt: skip
    audit.info("operator timed out %s for %s h (%s)", player_id, body.hours, body.reason)
    return answer


@router.post("/admin/players/{player_id}/self-exclusion", tags=["admin"])
def operator_exclusion(
    request: Request, player_id: str, body: OperatorExclusionIn, _: Admin, state: State
) -> dict[str, Any]:
    answer = _stop_play(
        request, state, player_id, "self-exclusion",
        lambda service: service.self_exclude(player_id, body.months, "operator", body.reason),
        known=True,
    )  # fmt: skip
    audit.info("operator excluded %s for %s months (%s)", player_id, body.months, body.reason)
    return answer
