"""The record of every call to an operator's wallet (``ledger_wallet_calls``), and our
transaction ids.

A transaction id is derived from what the call is for (a bet, a player's extra stakes at one
step, a player's settlement or a debit's rollback), so a retry, a replay after a crash or a
second process doing the same names the same call; its amount is written once with it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import case, func, select, update
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from boundless.ledger.models import WALLET_CALLS
from boundless.ledger.sql_conventions import utc_now
from boundless.ledger.staging import Stage

DEBIT, CREDIT, ROLLBACK = "debit", "credit", "rollback"
PENDING, DONE, REFUSED = "pending", "done", "refused"

_COLUMN_TYPES = {
    "transaction_id": "text",
    "kind": "text",
    "player_id": "text",
    "round_id": "text",
    "owner": "text",
    "amount": "bigint",
    "currency": "text",
    "refers_to": "text",
    "status": "text",
    "attempts": "bigint",
    "last_error": "text",
    "created_at": "timestamptz",
}
_CALL_STAGE = "wallet_call_stage"
_STAGE_DDL = (
    f"CREATE TEMPORARY TABLE IF NOT EXISTS {_CALL_STAGE} "
    f"({', '.join(f'{c} {t}' for c, t in _COLUMN_TYPES.items())}) ON COMMIT DELETE ROWS"
)
_FROM_STAGE = (
    f"INSERT INTO {WALLET_CALLS.name} ({', '.join(_COLUMN_TYPES)}) "
    f"SELECT {', '.join(_COLUMN_TYPES)} FROM {_CALL_STAGE} "
    "ON CONFLICT (transaction_id) DO NOTHING RETURNING transaction_id"
)


def transaction_id(kind: str, *parts: object) -> str:
    """``d-``, ``c-`` or ``r-`` and 32 hex digits naming the call for ``parts``."""
    text = "\x1f".join(str(part) for part in parts)
    return f"{kind[0]}-{hashlib.sha256(text.encode()).hexdigest()[:32]}"


@dataclass(frozen=True, slots=True)
class Call:
    transaction_id: str
    kind: str
    player_id: str
    round_id: str
    owner: str
    amount: int
    currency: str
    refers_to: str | None = None
    status: str = PENDING
    attempts: int = 0
    last_error: str | None = None
    created_at: datetime | None = None

    def body(self) -> dict[str, object]:
        """The call's JSON body as ``docs/wallet-api.md`` describes it."""
        body: dict[str, object] = {
            "transaction_id": self.transaction_id,
            "player_id": self.player_id,
            "round_id": self.round_id,
            "amount": self.amount,
            "currency": self.currency,
        }
        if self.refers_to is not None:
            body["debit_transaction_id"] = self.refers_to
        return body


def rollback_of(debit: Call) -> Call:
    """The rollback of ``debit`` (its id derived from the debit's: one per debit, ever)."""
    return Call(
        transaction_id=transaction_id(ROLLBACK, debit.transaction_id),
        kind=ROLLBACK,
        player_id=debit.player_id,
        round_id=debit.round_id,
        owner=debit.owner,
        amount=debit.amount,
        currency=debit.currency,
        refers_to=debit.transaction_id,
    )


def answered(call: Call, status: str, error: str | None) -> Call:
    """``call`` as its one try ended: ``status``, and the error if it failed."""
    return replace(call, status=status, attempts=1, last_error=error)


class CallBook:
    """All SQL on the calls table (in the caller's transaction)."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def add(self, calls: Iterable[Call]) -> set[str]:
        """Record ``calls``; a call already recorded (a retry, a replay) is kept as it is (its
        amount never changes). The ids of those recorded now: only these are new coins."""
        now = utc_now()
        rows = [
            (
                call.transaction_id,
                call.kind,
                call.player_id,
                call.round_id,
                call.owner,
                call.amount,
                call.currency,
                call.refers_to,
                call.status,
                call.attempts,
                call.last_error,
                now,
            )
            for call in calls
        ]
        if not rows:
            return set()
        if self.session.get_bind().dialect.name == "postgresql":
            return self._copy(rows)
        ids = [str(row[0]) for row in rows]
        fresh = set(ids) - self.known(ids)  # SQLite: one writer at a time, the file's lock
        self.session.execute(
            sqlite_insert(WALLET_CALLS).on_conflict_do_nothing(),
            [dict(zip(_COLUMN_TYPES, row, strict=True)) for row in rows],
        )
        return fresh

    def _copy(self, rows: Sequence[tuple[object, ...]]) -> set[str]:
        """A betting window's thousands of calls in one binary ``COPY`` to a stage and one
        set-based insert (bound as arrays to one statement, the driver quoted every element in
        Python: most of the cost of recording a batch)."""
        connection = self.session.connection()
        connection.exec_driver_sql(_STAGE_DDL)
        connection.exec_driver_sql(f"TRUNCATE {_CALL_STAGE}")
        stage = Stage(self.session)
        stage.copy_into(_CALL_STAGE, list(_COLUMN_TYPES), rows, list(_COLUMN_TYPES.values()))
        # A concurrent transaction recording the same call makes this one wait for its commit,
        # then skip the row: each call is new to exactly one transaction.
        return {str(row[0]) for row in connection.exec_driver_sql(_FROM_STAGE)}

    def known(self, ids: Sequence[str]) -> set[str]:
        found: set[str] = set()
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            query = select(WALLET_CALLS.c.transaction_id).where(
                WALLET_CALLS.c.transaction_id.in_(chunk)
            )
            found.update(self.session.scalars(query))
        return found

    def of_round(self, round_id: str, owner: str, kind: str) -> list[Call]:
        query = select(WALLET_CALLS).where(
            WALLET_CALLS.c.round_id == round_id,
            WALLET_CALLS.c.owner == owner,
            WALLET_CALLS.c.kind == kind,
        )
        return [_call(row) for row in self.session.execute(query).mappings()]

    def unended_rounds(self, since: datetime) -> list[tuple[str, str]]:
        """(round id, owner) of rounds with a debit taken and no credit, since ``since``: those
        a cancellation may still owe rollbacks."""
        is_debit = WALLET_CALLS.c.kind == DEBIT
        credits = func.sum(case((WALLET_CALLS.c.kind == CREDIT, 1), else_=0))
        debits = func.sum(case((is_debit & (WALLET_CALLS.c.status == DONE), 1), else_=0))
        query = (
            select(WALLET_CALLS.c.round_id, WALLET_CALLS.c.owner)
            .where(WALLET_CALLS.c.created_at >= since)
            .group_by(WALLET_CALLS.c.round_id, WALLET_CALLS.c.owner)
            .having((credits == 0) & (debits > 0))
        )
        return [(row[0], row[1]) for row in self.session.execute(query)]

    def pending(self, limit: int = 1000) -> list[Call]:
        query = (
            select(WALLET_CALLS)
            .where(WALLET_CALLS.c.status == PENDING)
            .order_by(WALLET_CALLS.c.id)
            .limit(limit)
        )
        return [_call(row) for row in self.session.execute(query).mappings()]

    def pending_count(self) -> int:
        query = select(func.count()).where(WALLET_CALLS.c.status == PENDING)
        return int(self.session.scalar(query) or 0)

    def between(self, start: datetime, end: datetime) -> list[Call]:
        query = (
            select(WALLET_CALLS)
            .where(WALLET_CALLS.c.created_at >= start, WALLET_CALLS.c.created_at < end)
            .order_by(WALLET_CALLS.c.id)
        )
        return [_call(row) for row in self.session.execute(query).mappings()]

    def by_id(self, ids: Sequence[str]) -> dict[str, Call]:
        found: dict[str, Call] = {}
        for start in range(0, len(ids), 500):
            query = select(WALLET_CALLS).where(
                WALLET_CALLS.c.transaction_id.in_(list(ids[start : start + 500]))
            )
            for row in self.session.execute(query).mappings():
                found[row["transaction_id"]] = _call(row)
        return found

    def mark_done(self, ids: Sequence[str]) -> None:
        if ids:
            self.session.execute(
                update(WALLET_CALLS)
                .where(WALLET_CALLS.c.transaction_id.in_(list(ids)))
                .values(status=DONE, done_at=utc_now(), attempts=WALLET_CALLS.c.attempts + 1)
            )

    def mark_failed(self, failures: dict[str, str]) -> None:
        for transaction, error in failures.items():
            self.session.execute(
                update(WALLET_CALLS)
                .where(WALLET_CALLS.c.transaction_id == transaction)
                .values(attempts=WALLET_CALLS.c.attempts + 1, last_error=error[:300])
            )


def _call(row: object) -> Call:
    data = dict(row)  # type: ignore[call-overload]
    return Call(
        transaction_id=data["transaction_id"],
        kind=data["kind"],
        player_id=data["player_id"],
        round_id=data["round_id"],
        owner=data["owner"],
        amount=int(data["amount"]),
        currency=data["currency"],
        refers_to=data["refers_to"],
        status=data["status"],
        attempts=int(data["attempts"]),
        last_error=data["last_error"],
        created_at=data["created_at"],
    )
