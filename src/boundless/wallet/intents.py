"""Durable intents of debits: what lets a restarted process end the debits its previous life
sent to the operator but never recorded.

A debit is sent to the operator inside the database transaction that stakes it, so a process
killed after the operator took the debit and before that transaction committed leaves the
operator holding coins our ledger knows nothing about. Before a debit is sent, its intent (the
call, with its transaction id and amount) is committed to a store of its own; once the debit's
outcome is in our record of calls (its transaction committed, or its rollback queued), the intent
is forgotten. At the next start, every intent of this process's ledger owners still in the store
whose debit is not in our record of calls owes a rollback, queued like every other rollback
(delivered by the same retried path, by its transaction id). The operator may never have seen the
debit: its rollback then moves nothing and bars that debit for good (``docs/wallet-api.md``).

The store: for a SQLite ledger, a file of its own beside the ledger's (the ledger's write lock is
held by the staking transaction while the debit is in flight), its one table made here; for
PostgreSQL, the ``ledger_wallet_intents`` table of the ledger's migrations
(``0004_wallet_intents``) in the same database, written through a connection of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine, delete, insert, inspect, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from boundless.ledger import make_engine
from boundless.ledger.models import WALLET_INTENTS
from boundless.wallet.calls import DEBIT, Call

CHUNK = 1000
"""Rows per statement (SQLite's bound parameters, PostgreSQL's statement size)."""
EARLIER_NAME = "wallet_intents"
"""The table's name before it joined the ledger's migrations (its rows are kept)."""


def intents_url(database_url: str) -> str:
    """Where the intents of a ledger at ``database_url`` are kept (see the module)."""
    parsed = make_url(database_url)
    if parsed.get_backend_name() != "sqlite":
        return database_url
    database = parsed.database
    if not database or database == ":memory:" or database.startswith("file:"):
        raise ValueError(
            f"the seamless wallet needs a ledger in a file or a server, not {database_url!r}"
        )
    return str(parsed.set(database=f"{database}.wallet-intents"))


class DebitIntents:
    """All SQL on the intents' store; each method is its own committed transaction."""

    def __init__(self, url: str) -> None:
        backend = make_url(url).get_backend_name()
        options: dict[str, Any] = {} if backend == "sqlite" else {"pool_size": 2, "max_overflow": 4}
        self.engine: Engine = make_engine(url, **options)
        self.copy = backend == "postgresql"
        if self.copy:  # the ledger's migrations made the table (0004_wallet_intents)
            return
        try:  # the side file of a SQLite ledger: made here, it is nobody else's
            with self.engine.begin() as connection:
                if inspect(connection).has_table(EARLIER_NAME):  # made by an earlier version
                    connection.exec_driver_sql(
                        f"ALTER TABLE {EARLIER_NAME} RENAME TO {WALLET_INTENTS.name}"
                    )
            WALLET_INTENTS.create(self.engine, checkfirst=True)
        except DBAPIError:
            # Two processes opening a new file at once: the loser finds the table made.
            if not inspect(self.engine).has_table(WALLET_INTENTS.name):
                raise

    def write(self, calls: Sequence[Call]) -> None:
        """Commit the intents of ``calls`` (debits about to be sent)."""
        rows = [
            (c.transaction_id, c.owner, c.player_id, c.round_id, c.amount, c.currency)
            for c in calls
        ]
        if not rows:
            return
        with self.engine.begin() as connection:
            if self.copy:
                driver = connection.connection.driver_connection
                columns = ", ".join(column.name for column in WALLET_INTENTS.columns)
                statement = f"COPY {WALLET_INTENTS.name} ({columns}) FROM STDIN"
                cursor = driver.cursor()  # type: ignore[union-attr]
                with cursor, cursor.copy(statement) as copy:
                    for row in rows:
                        copy.write_row(row)
                return
            keys = [column.name for column in WALLET_INTENTS.columns]
            values = [dict(zip(keys, row, strict=True)) for row in rows]
            for first in range(0, len(values), CHUNK):
                connection.execute(insert(WALLET_INTENTS), values[first : first + CHUNK])

    def forget(self, ids: Sequence[str]) -> None:
        """The debits of ``ids`` have their outcome in our record of calls."""
        if not ids:
            return
        with self.engine.begin() as connection:
            for first in range(0, len(ids), CHUNK):
                chunk = ids[first : first + CHUNK]
                connection.execute(
                    delete(WALLET_INTENTS).where(WALLET_INTENTS.c.transaction_id.in_(chunk))
                )

    def left(self, owners: Sequence[str] | None = None) -> list[Call]:
        """Intents still here (of ``owners``' debits; every one when ``None``)."""
        query = select(WALLET_INTENTS)
        if owners is not None:
            query = query.where(WALLET_INTENTS.c.owner.in_(list(owners)))
        with self.engine.begin() as connection:
            rows = connection.execute(query).mappings().all()
        return [
            Call(
                transaction_id=row["transaction_id"],
                kind=DEBIT,
                player_id=row["player_id"],
                round_id=row["round_id"],
                owner=row["owner"],
                amount=int(row["amount"]),
                currency=row["currency"],
            )
            for row in rows
        ]

    def close(self) -> None:
        self.engine.dispose()
