"""A per-connection temporary table that carries one batch (bets, grants, settlement lines or new
wallets) into the database, so that a batch of any size is a handful of set-based statements.

PostgreSQL loads it with ``COPY ... FROM STDIN`` and analyses it; SQLite with one executemany.
Every later statement joins it to the ledger's tables on their unique indexes: no statement binds
one parameter per row, so the cost per row stays flat however large the tables grow (an
``IN (...)`` list of thousands of keys, planned once as a generic plan, scanned the whole
transactions table for each lookup: that made ``stake_many`` superlinear).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import bindparam, column, table, text
from sqlalchemy.orm import Session
from sqlalchemy.types import TypeEngine

STAGE = "ledger_stage"
COLUMNS = (
    "seq",
    "key",
    "fingerprint",
    "description",
    "kind",
    "player_id",
    "position",
    "wallet",
    "amount",
    "paid",
)
"""``wallet`` is the wallet account's name; ``amount`` the bet or grant (or, for a settlement
line, the stake held), ``paid`` what a settlement pays."""

STAGE_TABLE = table(STAGE, *(column(name) for name in COLUMNS))

ANALYZE_FROM_ROWS = 1000
"""PostgreSQL never auto-analyses temporary tables; a large batch without statistics gets bad
join plans, a small one is not worth the ANALYZE."""

StageRow = tuple[
    int, str | None, str | None, str | None, str | None, str, str | None, str, int, int
]


def _ddl(dialect: str) -> str:
    big = "BIGINT" if dialect == "postgresql" else "INTEGER"
    tail = " ON COMMIT DELETE ROWS" if dialect == "postgresql" else ""
    return (
        f"CREATE TEMPORARY TABLE IF NOT EXISTS {STAGE} (seq {big} NOT NULL, key TEXT, "
        "fingerprint TEXT, description TEXT, kind TEXT, player_id TEXT NOT NULL, position TEXT, "
        f"wallet TEXT NOT NULL, amount {big} NOT NULL, paid {big} NOT NULL){tail}"
    )


class Stage:
    """``Stage(session).load(rows)`` then SQL over ``ledger_stage``; the rows vanish at commit
    (PostgreSQL) or at the next load."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.dialect = session.get_bind().dialect.name

    def load(self, rows: Sequence[StageRow]) -> None:
        connection = self.session.connection()
        connection.exec_driver_sql(_ddl(self.dialect))
        if self.dialect == "postgresql":
            connection.exec_driver_sql(f"TRUNCATE {STAGE}")
            raw: Any = connection.connection.driver_connection
            copy_sql = f"COPY {STAGE} ({', '.join(COLUMNS)}) FROM STDIN"
            with raw.cursor() as cursor, cursor.copy(copy_sql) as copy:
                for row in rows:
                    copy.write_row(row)
            if len(rows) >= ANALYZE_FROM_ROWS:
                connection.exec_driver_sql(f"ANALYZE {STAGE}")
            return
        connection.exec_driver_sql(f"DELETE FROM {STAGE}")
        marks = ", ".join("?" for _ in COLUMNS)
        raw_cursor: Any = connection.connection.driver_connection.cursor()  # type: ignore[union-attr]
        try:
            raw_cursor.executemany(f"INSERT INTO {STAGE} VALUES ({marks})", rows)
        finally:
            raw_cursor.close()

    def rows(self, sql: str, **params: Any) -> list[Any]:
        return list(self.session.execute(text(sql), params).all())

    def execute(
        self, sql: str, types: dict[str, TypeEngine[Any]] | None = None, **params: Any
    ) -> None:
        statement = text(sql)
        if types:
            statement = statement.bindparams(
                *(bindparam(name, type_=kind) for name, kind in types.items())
            )
        self.session.execute(statement, params)

    def lock_accounts(self, extra_ids: Iterable[int] = ()) -> None:
        """Row-lock the staged wallets and ``extra_ids`` in id order (PostgreSQL; SQLite holds
        the database write lock): the same order as every other writer, so no deadlock."""
        if self.dialect != "postgresql":
            return
        extra = sorted(set(extra_ids))
        clause = f" OR a.id IN ({', '.join(str(int(i)) for i in extra)})" if extra else ""
        self.execute(
            "SELECT count(*) FROM (SELECT a.id FROM ledger_accounts a "
            f"WHERE a.name IN (SELECT wallet FROM {STAGE}){clause} "
            "ORDER BY a.id FOR UPDATE) AS locked"
        )
