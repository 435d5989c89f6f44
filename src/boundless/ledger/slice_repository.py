"""SQL for slices: one owner's part of a round, with its own in-play account."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, func, select, text, union, update
from sqlalchemy.orm import Session

from boundless.ledger.models import ACCOUNTS, ROUNDS, SLICES
from boundless.ledger.records import SliceInfo
from boundless.ledger.repository import LedgerRepository
from boundless.ledger.sql_conventions import utc_now

ROUND_END_LOCK_SPACE = 0x51E7
"""First key of a round's round-end advisory lock (the second: the round's id modulo 2**31; two
rounds sharing it only wait for each other)."""


def slice_balances() -> Select[str, int, str, str, int]:
    """Each slice as (table, round, owner, status, in-play balance): listings and the check."""
    return select(
        ROUNDS.c.table_id,
        ROUNDS.c.round_no,
        SLICES.c.owner,
        SLICES.c.status,
        ACCOUNTS.c.balance,
    ).select_from(
        SLICES.join(ROUNDS, SLICES.c.round_id == ROUNDS.c.id).join(
            ACCOUNTS, SLICES.c.in_play_account_id == ACCOUNTS.c.id
        )
    )


@dataclass(frozen=True, slots=True)
class SliceRow:
    id: int
    round_id: int
    owner: str
    status: str
    in_play_account_id: int


_SLICE_COLUMNS = (
    SLICES.c.id,
    SLICES.c.round_id,
    SLICES.c.owner,
    SLICES.c.status,
    SLICES.c.in_play_account_id,
)


def _slice(row: Any) -> SliceRow:
    return SliceRow(row[0], row[1], row[2], row[3], row[4])


class SliceRepository:
    def __init__(self, session: Session, repository: LedgerRepository) -> None:
        self.session = session
        self.repository = repository

    def slice_row(self, round_id: int, owner: str, *, lock: str | None = None) -> SliceRow | None:
        stmt = select(*_SLICE_COLUMNS).where(SLICES.c.round_id == round_id, SLICES.c.owner == owner)
        if lock == "write":
            stmt = stmt.with_for_update(read=True)
        elif lock == "end":
            stmt = stmt.with_for_update()
        row = self.session.execute(stmt).first()
        return None if row is None else _slice(row)

    def ensure_slice(self, round_id: int, owner: str, in_play_account_id: int) -> None:
        self.repository.insert_ignoring_duplicates(
            SLICES,
            {
                "round_id": round_id,
                "owner": owner,
                "in_play_account_id": in_play_account_id,
                "status": "open",
                "opened_at": utc_now(),
            },
        )

    def lock_open_slices(self, round_id: int) -> list[SliceRow]:
        """The round's open slices, locked in id order (``end``)."""
        stmt = (
            select(*_SLICE_COLUMNS)
            .where(SLICES.c.round_id == round_id, SLICES.c.status == "open")
            .order_by(SLICES.c.id)
            .with_for_update()
        )
        return [_slice(row) for row in self.session.execute(stmt)]

    def set_status(self, slice_ids: list[int], status: str) -> None:
        if slice_ids:
            stmt = update(SLICES).where(SLICES.c.id.in_(slice_ids))
            self.session.execute(stmt.values(status=status, ended_at=utc_now()))

    def lock_round_end(self, round_id: int) -> None:
        """The round-end lock of a slice settlement (PostgreSQL: an advisory lock held to the
        commit; SQLite holds its one write lock already). Slice settlements hold only the
        round's ``write`` lock, so two may end their slices at once; each takes this lock after
        its slice and accounts, then counts the open slices: the last to take it sees every
        other settlement committed, so the round ends exactly once, never missed. While holding
        it a settlement only updates its own slice and the round row (``FOR NO KEY UPDATE``,
        which no ``write`` lock blocks, and no ``end`` lock is held beside a ``write`` one)."""
        if self.repository.dialect == "postgresql":
            self.session.execute(
                text("SELECT pg_advisory_xact_lock(:space, :key)"),
                {"space": ROUND_END_LOCK_SPACE, "key": round_id % 2**31},
            )

    def end_round_if_done(self, round_id: int) -> str | None:
        """Close the round when none of its slices is open any more: ``closed`` if one was
        settled, ``cancelled`` if every one was cancelled. Returns the new status, if any.
        The caller holds the round's ``end`` lock or its round-end lock (see
        :meth:`lock_round_end`), so two last slices cannot both miss it, nor both end it."""
        rows = self.session.execute(
            select(SLICES.c.status, func.count())
            .where(SLICES.c.round_id == round_id)
            .group_by(SLICES.c.status)
        )
        counts: dict[str, int] = {str(status): int(number) for status, number in rows}
        if counts.get("open", 0) or not counts:
            return None
        status = "closed" if counts.get("settled", 0) else "cancelled"
        self.repository.set_round_status(round_id, status)
        return status

    def listings(
        self,
        *,
        owner: str | None = None,
        round_id: int | None = None,
        status: str | None = None,
    ) -> list[SliceInfo]:
        stmt = slice_balances().order_by(ROUNDS.c.table_id, ROUNDS.c.round_no, SLICES.c.owner)
        if owner is not None:
            stmt = stmt.where(SLICES.c.owner == owner)
        if round_id is not None:
            stmt = stmt.where(SLICES.c.round_id == round_id)
        if status is not None:
            stmt = stmt.where(SLICES.c.status == status)
        return [
            SliceInfo(row[0], int(row[1]), row[2], row[3], int(row[4]))
            for row in self.session.execute(stmt)
        ]

    def in_play_total(self, round_id: int) -> int:
        """What the round's in-play accounts hold: its slices' and its own (pre-slice) one."""
        accounts = union(
            select(SLICES.c.in_play_account_id).where(SLICES.c.round_id == round_id),
            select(ROUNDS.c.in_play_account_id).where(ROUNDS.c.id == round_id),
        ).subquery()
        stmt = select(func.coalesce(func.sum(ACCOUNTS.c.balance), 0)).where(
            ACCOUNTS.c.id.in_(select(accounts.c[0]))
        )
        return int(self.session.execute(stmt).scalar_one())
