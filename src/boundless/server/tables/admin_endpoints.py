"""Operator actions: ``/api/v1/admin/tables/{table_id}/pause|resume|cancel`` (admin token)."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter

from boundless.server.admin.floor import table_row
from boundless.server.dependencies import Admin, State
from boundless.server.tables.schemas import OperatorReason

router = APIRouter(prefix="/api/v1/admin", tags=["admin"])
log = logging.getLogger("boundless.server.admin")


@router.get("/tables")
async def admin_tables(state: State, _: Admin) -> list[dict[str, Any]]:
    """Every table (private ones too): phase, round, players, sockets, pause state."""
    return [table_row(table) for table in state.registry.tables.values()]


@router.post("/tables/{table_id}/pause")
async def pause(
    table_id: str, state: State, _: Admin, body: OperatorReason | None = None
) -> dict[str, Any]:
    table = state.registry.get(table_id)
    reason = (body or OperatorReason()).reason
    table.pause(reason)
    log.warning("operator paused %s: %s", table_id, reason)
    return table.state_message()


@router.post("/tables/{table_id}/resume")
async def resume(
    table_id: str, state: State, _: Admin, body: OperatorReason | None = None
) -> dict[str, Any]:
    table = state.registry.get(table_id)
    reason = None if body is None else body.reason  # the notice's detail stays null without one
    table.resume(reason)
    log.warning("operator resumed %s: %s", table_id, reason or "no reason given")
    return table.state_message()


@router.post("/tables/{table_id}/cancel")
async def cancel(
    table_id: str, state: State, _: Admin, body: OperatorReason | None = None
) -> dict[str, Any]:
    table = state.registry.get(table_id)
    reason = (body or OperatorReason()).reason
    answer = table.cancel(reason)
    log.warning("operator cancelled %s: %s", answer["round_id"], reason)
    return answer
