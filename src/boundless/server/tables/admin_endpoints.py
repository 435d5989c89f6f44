"""Operator actions: ``/api/v1/admin/tables/{table_id}/pause|resume|cancel`` (admin token)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from fastapi import APIRouter
from sqlalchemy import text
from sqlalchemy.orm import Session, sessionmaker

from boundless.server.admin.floor import table_row
from boundless.server.dependencies import Admin, State
from boundless.server.tables.schemas import CancelRequest, OperatorReason, TableId

router = APIRouter(prefix="/api/v1/admin", tags=["admin"])
log = logging.getLogger("boundless.server.admin")


@router.get("/tables")
async def admin_tables(state: State, _: Admin) -> list[dict[str, Any]]:
    """Every table (private ones too): phase, round, players, sockets, pause state."""
    return [table_row(table) for table in state.registry.tables.values()]


@router.post("/tables/{table_id}/pause")
async def pause(
    table_id: TableId, state: State, _: Admin, body: OperatorReason | None = None
) -> dict[str, Any]:
    table = state.registry.get(table_id)
    reason = (body or OperatorReason()).reason
    table.pause(reason)
    log.warning("operator paused %s: %s", table_id, reason)
    return table.state_message()


@router.post("/tables/{table_id}/resume")
async def resume(
    table_id: TableId, state: State, _: Admin, body: OperatorReason | None = None
) -> dict[str, Any]:
    table = state.registry.get(table_id)
    reason = None if body is None else body.reason  # the notice's detail stays null without one
    table.resume(reason)
    log.warning("operator resumed %s: %s", table_id, reason or "no reason given")
    return table.state_message()


def check_database(sessions: sessionmaker[Session]) -> None:
    """Raises the driver's error (answered 503 ``ledger_unavailable``) when the database is
    away: a cancel voids the round in play before its refund is written, so it must not begin
    when the refund cannot be written."""
    with sessions.begin() as session:
        session.execute(text("SELECT 1"))


@router.post("/tables/{table_id}/cancel")
async def cancel(
    table_id: TableId, state: State, _: Admin, body: CancelRequest | None = None
) -> dict[str, Any]:
    table = state.registry.get(table_id)
    request = body or CancelRequest()
    await asyncio.to_thread(check_database, state.sessions)
    reason = request.reason
    answer = table.cancel(reason, request.round_id)
    log.warning("operator cancelled %s: %s", answer["round_id"], reason)
    return answer
