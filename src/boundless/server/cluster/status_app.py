"""A gateway's HTTP face for now: where it stands in the table's round (operators, tests)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from boundless.server.cluster.bus import Bus
from boundless.server.cluster.gateway import Gateway


def create_status_app(gateway: Gateway, bus: Bus) -> FastAPI:
    app = FastAPI(title=f"Boundless gateway {gateway.name}")

    @app.get("/api/cluster")
    async def status() -> dict[str, Any]:
        last = gateway.public[-1].event if gateway.public else None
        return {
            "gateway": gateway.name,
            "table": gateway.table,
            "round": gateway.round_number,
            "rounds_ended": gateway.rounds_ended,
            "last_event": None if last is None else last.kind,
            "holding_positions": gateway.slice is not None,
            "coordinator": await bus.lease_holder(gateway.table),
        }

    return app
