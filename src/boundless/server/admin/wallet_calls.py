"""``GET /api/v1/admin/wallet-calls`` (admin token): which wallet the players' coins move
through, and the credits and rollbacks still owed to the operator's wallet (queued after their
tries, sent again at each pass), oldest first, for the console."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from boundless.server.dependencies import Admin, ReadSession
from boundless.wallet.calls import CallBook

router = APIRouter(prefix="/api/v1/admin", tags=["admin"])
SHOWN = 100


@router.get("/wallet-calls")
def wallet_calls(request: Request, session: ReadSession, _: Admin) -> dict[str, Any]:
    book = CallBook(session)
    pending = book.pending(SHOWN)
    return {
        "wallet": getattr(getattr(request.app.state, "wallets", None), "name", "internal"),
        "pending_count": book.pending_count(),
        "pending": [
            {
                "transaction_id": call.transaction_id,
                "kind": call.kind,
                "player_id": call.player_id,
                "round_id": call.round_id,
                "amount": call.amount,
                "currency": call.currency,
                "attempts": call.attempts,
                "last_error": call.last_error,
                "created_at": None if call.created_at is None else call.created_at.isoformat(),
            }
            for call in pending
        ],
    }
