"""The day's reconciliation: our record of every wallet call against the operator's report.

A difference is one line: a call the operator never saw (still pending here, or lost), a call
the operator holds that we have no record of (a debit taken while our database transaction
failed or the process died: it owes a rollback), the same id with another amount or kind, or
outcomes that disagree (we staked a debit the operator refused or rolled back; we refused a
debit the operator still holds).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from boundless.wallet.calls import DEBIT, DONE, PENDING, ROLLBACK, Call, transaction_id


@dataclass(frozen=True, slots=True)
class Difference:
    transaction_id: str
    problem: str
    """``not_at_operator``, ``unknown_to_us``, ``amount``, ``kind``, ``outcome``."""
    detail: str
    owed_rollback: Call | None = None
    """A rollback that ends the difference (sent by ``--repair``)."""

    def line(self) -> str:
        return f"{self.transaction_id}: {self.problem}: {self.detail}"


def compare(
    ours: Sequence[Call], theirs: Sequence[dict[str, Any]], currency: str
) -> list[Difference]:
    mine = {call.transaction_id: call for call in ours}
    there = {str(row["transaction_id"]): row for row in theirs}
    rolled_back = {
        str(row.get("debit_transaction_id"))
        for row in theirs
        if row.get("kind") == ROLLBACK and row.get("status") == "ok"
    }
    differences: list[Difference] = []
    for transaction, call in mine.items():
        row = there.get(transaction)
        if row is None:
            if call.status == DONE or (call.status == PENDING and call.kind != DEBIT):
                state = "pending here" if call.status == PENDING else "acknowledged, not reported"
                differences.append(
                    Difference(
                        transaction, "not_at_operator", f"{call.kind} of {call.amount}, {state}"
                    )
                )
            continue
        if row.get("kind") != call.kind:
            differences.append(
                Difference(transaction, "kind", f"ours {call.kind}, theirs {row.get('kind')}")
            )
        elif int(row.get("amount", -1)) != call.amount:
            differences.append(
                Difference(transaction, "amount", f"ours {call.amount}, theirs {row.get('amount')}")
            )
        elif call.kind == DEBIT:
            held = row.get("status") == "ok" and transaction not in rolled_back
            if call.status == DONE and not held:
                differences.append(
                    Difference(transaction, "outcome", "staked here, refused or rolled back there")
                )
            if call.status != DONE and held and not _rollback_pending(mine, transaction):
                differences.append(
                    Difference(
                        transaction,
                        "outcome",
                        "refused here, held there",
                        _rollback(row, currency),
                    )
                )
    for transaction, row in there.items():
        if transaction in mine:
            continue
        if transaction in rolled_back and _rollback_pending(mine, transaction):
            continue  # a debit we never recorded, rolled back by a repair: settled
        held = row.get("kind") == DEBIT and row.get("status") == "ok"
        owed = _rollback(row, currency) if held and transaction not in rolled_back else None
        differences.append(
            Difference(
                transaction,
                "unknown_to_us",
                f"{row.get('kind')} of {row.get('amount')} for {row.get('player_id')}",
                owed,
            )
        )
    return differences


def _rollback_pending(mine: dict[str, Call], debit: str) -> bool:
    return transaction_id(ROLLBACK, debit) in mine


def _rollback(row: dict[str, Any], currency: str) -> Call:
    debit = str(row["transaction_id"])
    return Call(
        transaction_id=transaction_id(ROLLBACK, debit),
        kind=ROLLBACK,
        player_id=str(row["player_id"]),
        round_id=str(row.get("round_id", "")),
        owner="reconcile",
        amount=int(row["amount"]),
        currency=str(row.get("currency") or currency),
        refers_to=debit,
    )
