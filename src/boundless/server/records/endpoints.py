"""``/api/v1/records``: the caller's own play record."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from boundless.server.dependencies import CurrentPlayer, ReadSession
from boundless.server.records.service import RecordService
from boundless.server.tables.schemas import TABLE_ID_PATTERN

router = APIRouter(prefix="/api/v1", tags=["records"])


@router.get("/records")
def records(
    player: CurrentPlayer,
    session: ReadSession,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    before: str | None = None,
    table_id: Annotated[str | None, Query(pattern=TABLE_ID_PATTERN)] = None,
) -> dict[str, Any]:
    """The caller's rounds, newest first; ``table_id``: at that table only (its history)."""
    return RecordService(session).page(player.player_id, limit, before, table_id)


@router.get("/records/{round_id}")
def record(round_id: str, player: CurrentPlayer, session: ReadSession) -> dict[str, Any]:
    return RecordService(session).detail(player.player_id, round_id)
