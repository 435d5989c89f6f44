"""Crash recovery on start: every round in flight at the last stop is cancelled and refunded
exactly once (the ledger's ``cancel_round`` is keyed), recorded as cancelled in the play record,
and every shoe left unfinished is retired so its reveal becomes public.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import Category, LedgerService
from boundless.server.tables.repository import RoundPlayerLine, TableRepository
from boundless.server.tables.service import wallet_amounts

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
        open_rounds = ledger.rounds("open")
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
    transactions = ledger.round_transactions(table_id, round_no)
    staked: dict[str, int] = {}
    for transaction in transactions:
        if transaction.category == Category.STAKE and transaction.player_id is not None:
            player = transaction.player_id
            staked[player] = staked.get(player, 0) - sum(
                entry.amount for entry in transaction.entries if entry.account.startswith("wallet:")
            )
    refunds = wallet_amounts(ledger.cancel_round(table_id, round_no))
    players = sorted(set(staked) | set(refunds))
    balances = {player: ledger.wallet_balance(player) for player in players}
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
    records.end_round(
        table_id,
        round_no,
        status="cancelled",
        reason=RESTART_REASON,
        events=None,
        players=[
            RoundPlayerLine(
                player,
                staked.get(player, 0),
                refunds.get(player, 0),
                balances[player] - refunds.get(player, 0),
                balances[player],
                [],
            )
            for player in players
        ],
    )
