"""The sign-up rate limit across a cluster's gateways: recent sign-ups by client address are
rows in the shared database (``server_signups``), counted over each window of the rate.

Each check is one transaction: on PostgreSQL an advisory lock on the address (held to the
commit) makes concurrent sign-ups from one address on several gateways count one after the
other, so the limit is exact; on SQLite the database's write lock does the same. Rows older than
the rate's longest window are deleted as the address signs up again.
"""

from __future__ import annotations

import zlib
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, func, insert, select, text
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger.sql_conventions import utc_now
from boundless.server.players.signup_limit import SignUpLimit, refusal
from boundless.server.storage.models import SignUp

LOCK_SPACE = 0x5167
"""The first key of the address's advisory lock (the second is a hash of the address)."""


class SharedSignUpLimit(SignUpLimit):
    def __init__(self, rate: str, sessions: sessionmaker[Session]) -> None:
        super().__init__(rate)  # a bad rate fails here, with serve's words
        self.sessions = sessions
        self.longest = max(item.get_expiry() for item in self.items)

    def check(self, address: str) -> None:
        """Count one sign-up from ``address`` in the database; ``rate_limited`` (and nothing
        counted) once any window is full."""
        address = address[:64]
        with self.sessions.begin() as session:
            repository = SignUpCounts(session)
            repository.lock(address)
            now = utc_now()
            for item in self.items:
                window = timedelta(seconds=item.get_expiry())
                count, oldest = repository.since(address, now - window)
                if count >= item.amount and oldest is not None:
                    raise refusal(item, (oldest + window - now).total_seconds())
            repository.add(address, now, now - timedelta(seconds=self.longest))


class SignUpCounts:
    """All SQL on ``server_signups``."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def lock(self, address: str) -> None:
        if self.session.get_bind().dialect.name == "postgresql":
            key = zlib.crc32(address.encode()) - 2**31
            locking = text("SELECT pg_advisory_xact_lock(:space, :key)")
            self.session.execute(locking, {"space": LOCK_SPACE, "key": key})

    def since(self, address: str, cutoff: datetime) -> tuple[int, datetime | None]:
        """How many sign-ups from ``address`` after ``cutoff``, and the oldest of them."""
        row = self.session.execute(
            select(func.count(), func.min(SignUp.created_at)).where(
                SignUp.address == address, SignUp.created_at > cutoff
            )
        ).one()
        oldest = row[1]
        if oldest is not None and oldest.tzinfo is None:  # SQLite keeps no zone: it is UTC
            oldest = oldest.replace(tzinfo=UTC)
        return int(row[0]), oldest

    def add(self, address: str, now: datetime, forget_before: datetime) -> None:
        self.session.execute(
            delete(SignUp).where(SignUp.address == address, SignUp.created_at <= forget_before)
        )
        self.session.execute(insert(SignUp).values(address=address, created_at=now))
