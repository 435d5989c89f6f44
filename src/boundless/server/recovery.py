"""Crash recovery on start: every round this process had in flight at the last stop is cancelled
and refunded exactly once (the ledger's ``cancel_slice`` is keyed), recorded as cancelled in the
play record, and every shoe left unfinished is retired so its reveal becomes public.

Recovery is owner-scoped: only the slices of this process's ledger owner (``local`` for
``boundless serve``) are cancelled, so a restart never voids rounds that other processes sharing
the database (a cluster's gateways) are still playing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import LedgerService
from boundless.server.tables.repository import RoundPlayerLine, TableRepository
from boundless.server.tables.service import round_lines

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
        open_rounds = ledger.open_slices()
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
            records.end_round(
                row.table_id,
                row.round_no,
                status="cancelled",
                reason=RESTART_REASON,
                events=None,
                players=[],
            )
        retired = records.finish_shoes()
    return RecoveryReport(cancelled, retired)


def _cancel(session: Session, table_id: str, round_no: int) -> None:
    ledger = LedgerService(session)
    records = TableRepository(session)
    ledger.cancel_slice(table_id, round_no, ledger.owner)
    lines = round_lines(ledger, table_id, round_no)  # net zero once reversed, early pay included
    if records.round_row(table_id, round_no) is None:
        records.open_round(
            table_id=table_id,
            round_no=round_no,
            title=table_id.rsplit("-", 1)[0],
            rules_version="unknown",
            shoe_number=None,
            round_in_shoe=None,
            shoe_commitment=None,
        )
    players = []
    for line in lines.values():
        after = ledger.wallet_balance(line.player_id)
        players.append(
            RoundPlayerLine(line.player_id, line.staked, line.paid, after - line.net, after, [])
        )
    records.end_round(
        table_id, round_no, status="cancelled", reason=RESTART_REASON, events=None, players=players
    )
