"""Crash recovery on start: every round this process had in flight at the last stop is cancelled
and refunded exactly once (the ledger's ``cancel_slice`` is keyed; it never fails on a wallet's
balance: what a player spent of an early payment is booked to their receivable, ruling 38),
recorded as cancelled in the play record, and every shoe left unfinished is retired so its
reveal becomes public.

Recovery is owner-scoped: only the slices of this process's ledger owner (``local`` for
``boundless serve``) are cancelled, so a restart never voids rounds that other processes sharing
the database (a cluster's gateways) are still playing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import LedgerService
from boundless.server.tables.repository import TableRepository
from boundless.server.tables.service import TableService

log = logging.getLogger("boundless.server.recovery")
RESTART_REASON = "the server stopped during this round; every stake was returned"


@dataclass(frozen=True, slots=True)
class RecoveryReport:
    cancelled_rounds: list[str]
    retired_shoes: int


def recover(sessions: sessionmaker[Session]) -> RecoveryReport:
    cancelled: list[str] = []
    with sessions.begin() as session:
        ledger = LedgerService(session)
        # refunds first, so that a void taking back an early payment finds them (ruling 38)
        open_rounds = sorted(
            ledger.open_slices(), key=lambda s: ledger.void_takes_back(s.table_id, s.round_no)
        )
    for info in open_rounds:
        with sessions.begin() as session:
            _cancel(session, info.table_id, info.round_no)
        cancelled.append(f"{info.table_id}:{info.round_no}")
        log.warning(
            "round %s:%s was in flight: cancelled and refunded", info.table_id, info.round_no
        )
    with sessions.begin() as session:
        records = TableRepository(session)
        for row in records.open_rounds():  # open in the server, never staked in the ledger
            records.cancel_without_players(row.table_id, row.round_no, RESTART_REASON)
        retired = records.finish_shoes()
    return RecoveryReport(cancelled, retired)


def _cancel(session: Session, table_id: str, round_no: int) -> None:
    ledger = LedgerService(session)
    ledger.cancel_slice(table_id, round_no, ledger.owner)
    # net zero once reversed, early pay included
    TableService(session).record_reversed(table_id, round_no, RESTART_REASON)
