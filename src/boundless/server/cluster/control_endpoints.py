"""A gateway's admin routes for its table: ``boundless serve``'s paths, bodies, admin token and
answers. ``GET /api/v1/admin/tables`` is answered here; pause, resume and cancel go to the
table's coordinator over the bus (:mod:`~boundless.server.cluster.control`), which owns the
phase; its one-line refusals come back with serve's codes."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from fastapi import APIRouter, Request

from boundless.ledger.errors import LedgerUnavailableError
from boundless.server.admin.floor import open_sockets, table_row
from boundless.server.cluster.bus import Bus, JsonBody, NoCoordinatorError
from boundless.server.cluster.gateway_table import GatewayTable
from boundless.server.dependencies import Admin
from boundless.server.errors import (
    BadMessageError,
    ConflictError,
    CoordinatorUnavailableError,
    NotFoundError,
)
from boundless.server.tables.schemas import CancelRequest, OperatorReason, TableId

router = APIRouter(prefix="/api/v1/admin", tags=["admin"])
log = logging.getLogger("boundless.cluster.admin")
CONTROL_SECONDS = 30.0
"""How long a gateway waits for the coordinator's answer (a cancel waits for the gateways)."""
SEEN_SECONDS = 5.0
"""How long a pause or resume may take to reach this gateway's table before it answers."""
REFUSALS: dict[str, type[Exception]] = {
    "conflict": ConflictError,
    "bad_message": BadMessageError,
    "coordinator_unavailable": CoordinatorUnavailableError,
    "ledger_unavailable": LedgerUnavailableError,
}


def _table(request: Request, table_id: str) -> GatewayTable:
    table: GatewayTable = request.app.state.cluster_table
    if table_id != table.table_id:
        raise NotFoundError(f"no table {table_id!r}")
    return table


def gateway_table_row(table: GatewayTable) -> dict[str, Any]:
    """``boundless serve``'s console row for the cluster's table, as this gateway sees it: its
    sockets are every socket signed in here (a gateway holds one table)."""
    return {**table_row(table), "sockets": open_sockets(table.hub)}


async def ask_coordinator(bus: Bus, table_id: str, body: JsonBody) -> JsonBody:
    """The coordinator's answer; its refusal raised as serve's error."""
    try:
        answer = await bus.control(table_id, body, timeout=CONTROL_SECONDS)
    except NoCoordinatorError as error:
        raise CoordinatorUnavailableError(str(error)) from None
    if answer.get("ok") is not True:
        refused = REFUSALS.get(str(answer.get("error")), ConflictError)
        raise refused(str(answer.get("detail", "the coordinator refused")))
    return answer


async def _until_seen(table: GatewayTable, paused: bool) -> None:
    """The table's own stream carries the change: wait (briefly) until this gateway applied it,
    so the answer is the table's state after it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + SEEN_SECONDS
    while table.paused != paused and loop.time() < deadline:
        await asyncio.sleep(0.02)


@router.get("/tables")
async def admin_tables(request: Request, _: Admin) -> list[dict[str, Any]]:
    """The cluster's one table: phase, round, players, this gateway's sockets, pause state."""
    return [gateway_table_row(request.app.state.cluster_table)]


async def _operate(
    request: Request, table_id: str, action: str, reason: str | None, round_no: int | None = None
) -> JsonBody:
    table = _table(request, table_id)
    body: dict[str, object] = {"action": action, "reason": reason}
    if round_no is not None:
        body["round_no"] = round_no  # the coordinator cancels only that round
    answer = await ask_coordinator(request.app.state.cluster_bus, table.table_id, body)
    log.warning("operator %s %s: %s", action, table_id, reason or "no reason given")
    return answer


async def _pause_or_resume(
    request: Request, table_id: str, pausing: bool, reason: str | None
) -> dict[str, Any]:
    await _operate(request, table_id, "pause" if pausing else "resume", reason)
    table = _table(request, table_id)
    await _until_seen(table, pausing)
    return table.state_message()


@router.post("/tables/{table_id}/pause")
async def pause(
    table_id: TableId, request: Request, _: Admin, body: OperatorReason | None = None
) -> dict[str, Any]:
    return await _pause_or_resume(request, table_id, True, (body or OperatorReason()).reason)


@router.post("/tables/{table_id}/resume")
async def resume(
    table_id: TableId, request: Request, _: Admin, body: OperatorReason | None = None
) -> dict[str, Any]:
    # the notice's detail stays null without a reason, as serve's
    return await _pause_or_resume(request, table_id, False, None if body is None else body.reason)


@router.post("/tables/{table_id}/cancel")
async def cancel(
    table_id: TableId, request: Request, _: Admin, body: CancelRequest | None = None
) -> dict[str, Any]:
    wanted = body or CancelRequest()
    answer = await _operate(request, table_id, "cancel", wanted.reason, wanted.round_no())
    return {key: value for key, value in answer.items() if key != "ok"}
