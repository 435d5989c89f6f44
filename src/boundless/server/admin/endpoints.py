"""The console's read-only REST endpoints (admin token) and the Prometheus scrape at ``/metrics``.

* ``GET /api/v1/admin/returns``: each title's house result and realised return against its
  exact figure, with the 95% band (:mod:`boundless.server.admin.returns`);
* ``GET /api/v1/admin/ledger-check``: the ledger's reconciliation, as ``boundless ledger check``;
* ``GET /metrics``: this app's metrics in the Prometheus text format.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from boundless.ledger.reconciliation import check_books
from boundless.server.admin.exact_figures import ExactFigures, TitleFigures
from boundless.server.admin.ledger_figures import title_ledgers
from boundless.server.admin.returns import title_return
from boundless.server.dependencies import Admin, ReadSession, State
from boundless.server.metrics import CONTENT_TYPE, ServerMetrics

router = APIRouter(prefix="/api/v1/admin", tags=["admin"])
metrics_router = APIRouter()


def app_metrics(request: Request) -> ServerMetrics:
    metrics: ServerMetrics = request.app.state.metrics
    return metrics


@router.get("/returns")
async def returns(request: Request, state: State, _: Admin) -> list[dict[str, Any]]:
    """Per title over settled rounds: stakes, payouts, house result, realised and exact
    return with its 95% band. A title's first call computes its exact figures (seconds)."""

    def read() -> dict[str, Any]:
        with state.read_sessions.begin() as session:
            return title_ledgers(session)

    ledgers = await asyncio.to_thread(read)
    cache: ExactFigures = request.app.state.exact_figures
    rows = []
    for title, ledger in sorted(ledgers.items()):
        figures: TitleFigures | None = None
        game = state.registry.catalog.games.get(title)
        if game is not None:
            figures = await asyncio.to_thread(cache.of, *game)
        rows.append(title_return(ledger, figures))
    return rows


@router.get("/ledger-check")
def ledger_check(session: ReadSession, _: Admin) -> dict[str, Any]:
    """The ledger's invariants, checked in a read-only snapshot (what ``boundless ledger
    check`` prints)."""
    report = check_books(session)
    return {
        "ok": report.ok,
        "problems": [{"code": p.code, "detail": p.detail} for p in report.problems],
        "accounts": report.accounts,
        "transactions": report.transactions,
        "entries": report.entries,
        "rounds": report.rounds,
        "issued_total": report.issued_total,
        "wallets_total": report.wallets_total,
        "in_play_total": report.in_play_total,
        "house_balance": report.house_balance,
        "receivable_total": report.receivable_total,
        "receivable_players": report.receivable_players,
        "balance_sum": report.balance_sum,
        "summary": report.summary(),
    }


@metrics_router.get("/metrics", include_in_schema=False)
async def metrics(request: Request) -> Response:
    return Response(app_metrics(request).exposition(), media_type=CONTENT_TYPE)
