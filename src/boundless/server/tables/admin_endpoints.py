"""Operator actions: ``/api/v1/admin/tables/{table_id}/pause|resume|cancel`` (admin token)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from boundless.server.dependencies import Admin, State
from boundless.server.tables.schemas import OperatorReason

router = APIRouter(prefix="/api/v1/admin", tags=["admin"])


@router.get("/tables")
async def admin_tables(state: State, _: Admin) -> list[dict[str, Any]]:
    return [table.lobby_row() for table in state.registry.tables.values()]


@router.post("/tables/{table_id}/pause")
async def pause(
    table_id: str, state: State, _: Admin, body: OperatorReason | None = None
) -> dict[str, Any]:
    table = state.registry.get(table_id)
    table.pause((body or OperatorReason()).reason)
    return table.state_message()


@router.post("/tables/{table_id}/resume")
async def resume(table_id: str, state: State, _: Admin) -> dict[str, Any]:
    table = state.registry.get(table_id)
    table.resume()
    return table.state_message()


@router.post("/tables/{table_id}/cancel")
async def cancel(
    table_id: str, state: State, _: Admin, body: OperatorReason | None = None
) -> dict[str, Any]:
    table = state.registry.get(table_id)
    return table.cancel((body or OperatorReason()).reason)
