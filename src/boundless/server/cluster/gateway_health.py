"""A gateway's health, for operators and load balancers.

``GET /healthz`` (every server's) says only that the process answers. ``GET /readyz`` says
whether this gateway can serve its table now: it follows the table's stream, the bus answers, a
coordinator holds the table's lease (renewed every 1.5 s, so one lived in the last few
seconds) and the database answers; 200 ``{"ready": true}``, else 503 ``{"ready": false,
"reasons": [...]}`` with one line per failed check. ``GET /api/cluster`` says where this gateway
stands in the round; when the bus cannot be asked who coordinates, it answers 503 with the
one-line error shape, never 500.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from sqlalchemy import text
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger.outage import one_line
from boundless.server.cluster.bus import Bus
from boundless.server.cluster.gateway import Gateway
from boundless.server.cluster.gateway_table import GatewayTable
from boundless.server.errors import CoordinatorUnavailableError

CHECK_SECONDS = 2.0
"""Each readiness check's bound: a cut network hangs, it must not hang the probe."""


def health_router(
    gateway: Gateway, bus: Bus, table: GatewayTable, sessions: sessionmaker[Session]
) -> APIRouter:
    status = APIRouter()

    @status.get("/api/cluster")
    async def where() -> dict[str, Any]:
        last = gateway.public[-1].event if gateway.public else None
        try:
            coordinator = await asyncio.wait_for(bus.lease_holder(gateway.table), CHECK_SECONDS)
        except Exception as error:
            raise CoordinatorUnavailableError(
                f"the bus cannot say who coordinates {gateway.table}: {_said(error)}"
            ) from None
        return {
            "gateway": gateway.name,
            "table": gateway.table,
            "round": gateway.round_number,
            "rounds_ended": gateway.rounds_ended,
            "rounds_sat_out": gateway.sat_out,
            "last_event": None if last is None else last.kind,
            "holding_positions": gateway.slice is not None,
            "sockets": sum(len(sockets) for sockets in table.hub.by_player.values()),
            "coordinator": coordinator,
        }

    @status.get("/readyz", include_in_schema=False)
    async def readyz() -> JSONResponse:
        reasons = await not_ready(gateway, bus, sessions)
        if reasons:
            return JSONResponse({"ready": False, "reasons": reasons}, status_code=503)
        return JSONResponse({"ready": True})

    return status


async def not_ready(gateway: Gateway, bus: Bus, sessions: sessionmaker[Session]) -> list[str]:
    """Why this gateway cannot serve its table now (empty: it can)."""
    reasons = []
    if not gateway.following:
        reasons.append("the gateway does not follow the table's stream")
    try:
        holder = await asyncio.wait_for(bus.lease_holder(gateway.table), CHECK_SECONDS)
    except Exception as error:
        reasons.append(f"the bus does not answer: {_said(error)}")
    else:
        if holder is None:
            reasons.append("no coordinator holds the table (none renewed its lease lately)")
    try:
        await asyncio.wait_for(asyncio.to_thread(_select_one, sessions), CHECK_SECONDS)
    except Exception as error:
        reasons.append(f"the database does not answer: {_said(error)}")
    return reasons


async def database_answers(sessions: sessionmaker[Session]) -> bool:
    """Whether the database answers a ``select 1`` within :data:`CHECK_SECONDS`."""
    try:
        await asyncio.wait_for(asyncio.to_thread(_select_one, sessions), CHECK_SECONDS)
    except Exception:
        return False
    return True


def _select_one(sessions: sessionmaker[Session]) -> None:
    with sessions() as session:
        session.execute(text("select 1"))


def _said(error: BaseException) -> str:
    if isinstance(error, TimeoutError):
        return f"no answer within {CHECK_SECONDS:g} s"
    return one_line(error)
