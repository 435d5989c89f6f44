"""All SQL of player protection: the append-only events, the play sessions, and the ledger
figures (what a player staked and got back since a moment) the limits are counted from."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import delete, func, insert, select, text, update
from sqlalchemy.orm import Session

from boundless.ledger.accounts import wallet_account
from boundless.ledger.keys import Category
from boundless.ledger.models import Account, Entry, LedgerTransaction, Round
from boundless.server.storage.models import PlaySession, ProtectionEvent

LOCK_SPACE = 0x5170
"""First key of a player's advisory lock while their stake is checked and written."""
BLOCKS = ("time_out", "self_exclusion")


class ProtectionRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    # -- events ------------------------------------------------------------------------------
    def add_event(self, **values: object) -> None:
        self.session.execute(insert(ProtectionEvent).values(**values))

    def events(self, player_id: str, limit: int = 200) -> list[ProtectionEvent]:
        query = (
            select(ProtectionEvent)
            .where(ProtectionEvent.player_id == player_id)
            .order_by(ProtectionEvent.id.desc())
            .limit(limit)
        )
        return list(self.session.scalars(query))

    def limit_rows(
        self, player_ids: Sequence[str], field: str | None = None
    ) -> dict[str, list[ProtectionEvent]]:
        """Each player's limit rows (of one ``field`` if given), oldest first (players without
        any are absent)."""
        if not player_ids:
            return {}
        query = (
            select(ProtectionEvent)
            .where(ProtectionEvent.player_id.in_(sorted(set(player_ids))))
            .where(ProtectionEvent.kind == "limit")
            .order_by(ProtectionEvent.id)
        )
        if field is not None:
            query = query.where(ProtectionEvent.field == field)
        rows: dict[str, list[ProtectionEvent]] = {}
        for row in self.session.scalars(query):
            rows.setdefault(row.player_id, []).append(row)
        return rows

    def latest(self, player_id: str, kind: str) -> ProtectionEvent | None:
        query = (
            select(ProtectionEvent)
            .where(ProtectionEvent.player_id == player_id, ProtectionEvent.kind == kind)
            .order_by(ProtectionEvent.id.desc())
            .limit(1)
        )
        return self.session.scalars(query).first()

    def block(self, player_id: str, now: datetime) -> ProtectionEvent | None:
        """The time-out or self-exclusion in force that ends last, if any."""
        query = (
            select(ProtectionEvent)
            .where(ProtectionEvent.player_id == player_id)
            .where(ProtectionEvent.kind.in_(BLOCKS), ProtectionEvent.until_at > now)
            .order_by(ProtectionEvent.until_at.desc())
            .limit(1)
        )
        return self.session.scalars(query).first()

    def recent_events(self, limit: int) -> list[ProtectionEvent]:
        query = select(ProtectionEvent).order_by(ProtectionEvent.id.desc()).limit(limit)
        return list(self.session.scalars(query))

    def players_with(self, now: datetime) -> dict[str, set[str]]:
        """Players under a limit, a time-out or a self-exclusion (by kind)."""
        query = select(ProtectionEvent.player_id, ProtectionEvent.kind).where(
            (ProtectionEvent.kind == "limit") & ProtectionEvent.amount.is_not(None)
            | ProtectionEvent.kind.in_(BLOCKS) & (ProtectionEvent.until_at > now)
        )
        found: dict[str, set[str]] = {}
        for player_id, kind in self.session.execute(query.distinct()):
            found.setdefault(kind, set()).add(player_id)
        return found

    # -- sessions ----------------------------------------------------------------------------
    def play_session(self, player_id: str) -> PlaySession | None:
        return self.session.get(PlaySession, player_id)

    def start_session(self, player_id: str, now: datetime, due: datetime | None) -> PlaySession:
        found = self.session.get(PlaySession, player_id)
        if found is None:
            found = PlaySession(player_id=player_id, started_at=now, last_seen_at=now)
            self.session.add(found)
        found.started_at = found.last_seen_at = now
        found.check_due_at, found.check_pending = due, False
        self.session.flush()
        return found

    def any_due(self, player_ids: Sequence[str], now: datetime) -> bool:
        """(A read) whether any of these players has a reality check due and not yet shown."""
        query = (
            select(PlaySession.player_id)
            .where(PlaySession.player_id.in_(sorted(set(player_ids))))
            .where(PlaySession.check_pending.is_(False), PlaySession.check_due_at <= now)
            .limit(1)
        )
        return self.session.execute(query).first() is not None

    def seen(self, player_ids: Sequence[str], now: datetime) -> None:
        """These players are connected now: their sessions go on."""
        self.session.execute(
            update(PlaySession)
            .where(PlaySession.player_id.in_(sorted(set(player_ids))))
            .values(last_seen_at=now)
        )

    def due_checks(self, player_ids: Sequence[str], now: datetime) -> list[str]:
        """Of these players, those whose reality check falls due and is not shown yet; marked
        pending here, so only one process shows each."""
        if not player_ids:
            return []
        query = (
            update(PlaySession)
            .where(PlaySession.player_id.in_(sorted(set(player_ids))))
            .where(PlaySession.check_pending.is_(False), PlaySession.check_due_at <= now)
            .values(check_pending=True)
            .returning(PlaySession.player_id)
        )
        return [row[0] for row in self.session.execute(query)]

    def answer_check(self, player_id: str, due: datetime | None) -> None:
        self.session.execute(
            update(PlaySession)
            .where(PlaySession.player_id == player_id)
            .values(check_pending=False, check_due_at=due)
        )

    def end_session(self, player_id: str) -> None:
        found = self.session.get(PlaySession, player_id)
        if found is not None:
            self.session.delete(found)

    def end_session_begun(self, player_id: str, started_at: datetime) -> bool:
        """End the player's session if it is still the one begun at ``started_at``; whether
        this call ended it (of two processes trying at once, exactly one does)."""
        gone = self.session.execute(
            delete(PlaySession)
            .where(PlaySession.player_id == player_id, PlaySession.started_at == started_at)
            .returning(PlaySession.player_id)
        )
        return gone.first() is not None

    # -- the ledger's figures ----------------------------------------------------------------
    def lock_player(self, player_id: str) -> None:
        """(PostgreSQL) Serialise stakes of one player across processes until the commit, so a
        limit counted here holds exactly; SQLite's write lock does it there."""
        if self.session.get_bind().dialect.name == "postgresql":
            key = zlib.crc32(player_id.encode()) - 2**31
            locking = text("SELECT pg_advisory_xact_lock(:space, :key)")
            self.session.execute(locking, {"space": LOCK_SPACE, "key": key})

    def round_movements(self, player_id: str, since: datetime) -> dict[str, int]:
        """What game transactions since ``since`` moved into the player's wallet, by category
        (stakes negative)."""
        query = (
            select(LedgerTransaction.category, func.sum(Entry.amount))
            .select_from(Entry)
            .join(LedgerTransaction, Entry.transaction_id == LedgerTransaction.id)
            .join(Account, Entry.account_id == Account.id)
            .where(Account.name == wallet_account(player_id))
            .where(LedgerTransaction.round_id.is_not(None))
            .where(LedgerTransaction.created_at >= since)
            .group_by(LedgerTransaction.category)
        )
        return {str(category): int(total or 0) for category, total in self.session.execute(query)}


def in_open_round(session: Session, player_id: str, since: datetime) -> bool:
    """Whether a stake of the player's since ``since`` is in a round not yet closed or
    cancelled (a round in play: it plays on and settles before the session may end)."""
    query = (
        select(Round.id)
        .select_from(Entry)
        .join(LedgerTransaction, Entry.transaction_id == LedgerTransaction.id)
        .join(Account, Entry.account_id == Account.id)
        .join(Round, Round.id == LedgerTransaction.round_id)
        .where(Account.name == wallet_account(player_id))
        .where(LedgerTransaction.category == Category.STAKE)
        .where(LedgerTransaction.created_at >= since)
        .where(Round.status == "open")
        .limit(1)
    )
    return session.execute(query).first() is not None


def wagered_and_net(movements: dict[str, int]) -> tuple[int, int]:
    """Wagered: what was staked, less what cancellations gave back; net: everything the rounds
    moved into the wallet (negative: a loss)."""
    staked = -movements.get(Category.STAKE, 0)
    wagered = max(0, staked - movements.get(Category.CANCEL, 0))
    return wagered, sum(movements.values())
