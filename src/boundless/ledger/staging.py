"""A per-connection temporary table that carries one batch (bets, grants, settlement lines or new
wallets) into the database, so that a batch of any size is a handful of set-based statements.

PostgreSQL loads it with ``COPY ... FROM STDIN`` and analyses it; SQLite with one executemany.
Every later statement joins it to the ledger's tables on their unique indexes: no statement binds
one parameter per row, so the cost per row stays flat however large the tables grow (an
``IN (...)`` list of thousands of keys, planned once as a generic plan, scanned the whole
transactions table for each lookup: that made ``stake_many`` superlinear).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy import bindparam, column, table, text
from sqlalchemy.exc import IntegrityError
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

LockedAccount = tuple[int, int, str | None, str, str]
"""A locked account's id, balance, player id, name and kind."""

StageRow = tuple[
    int, str | None, str | None, str | None, str | None, str, str | None, str, int, int
]


APPLY_IN_ID_ORDER = (
    "UPDATE ledger_accounts AS a SET balance = a.balance + c.delta FROM (SELECT l.id, "
    f"s.amount AS delta FROM {STAGE} AS s JOIN ledger_accounts AS l ON l.name = s.wallet "
    "WHERE s.key IS NULL ORDER BY l.id) AS c WHERE a.id = c.id RETURNING a.id, a.player_id"
)
"""PostgreSQL: :meth:`Stage.apply_changes`, locking and updating in id order."""


@contextmanager
def planner_settings(session: Session, **settings: str) -> Iterator[None]:
    """PostgreSQL's planner with ``settings`` (``enable_hashjoin="off"``...) for the
    statements inside, in this transaction only, put back afterwards (a failure inside must
    roll back to a savepoint taken before, as every ledger write does); nothing on SQLite."""
    if session.get_bind().dialect.name != "postgresql":
        yield
        return
    names = sorted(settings)
    reads = ", ".join(f"current_setting('{name}')" for name in names)
    before = dict(zip(names, session.execute(text(f"SELECT {reads}")).one(), strict=True))

    def put(values: dict[str, str]) -> None:
        sets = ", ".join(f"set_config('{name}', :{name}, true)" for name in names)
        session.execute(text(f"SELECT {sets}"), values)

    put(settings)
    yield  # after a failed statement the transaction is aborted: its savepoint's rollback
    put(before)  # puts the settings back (they are the savepoint's), and this is not reached


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
        connection = self._empty()
        self.copy_into(STAGE, COLUMNS, rows)
        if self.dialect == "postgresql" and len(rows) >= ANALYZE_FROM_ROWS:
            connection.exec_driver_sql(f"ANALYZE {STAGE}")

    def load_changes(self, changes: Iterable[tuple[str, str, int]]) -> None:
        """PostgreSQL: the stage as one row per account, ``(player id or '', account name,
        signed change)`` (the change in ``amount``). Not analysed: such a stage is only joined
        through the accounts' unique names, and without statistics the planner probes that
        index per staged row, a plan flat in the number of accounts."""
        self.load_lines((player, name, change, 0) for player, name, change in changes)

    def load_lines(self, lines: Iterable[tuple[str, str, int, int]]) -> None:
        """The stage as rows without a key: ``(player id or '', account name, amount, paid)``,
        ``seq`` counting from 0. On PostgreSQL each row is one line of ``COPY``'s text format
        (ids and names are validated identifiers: nothing in them to escape; under half the
        work of a row formatted field by field); SQLite: one executemany."""
        if self.dialect != "postgresql":
            self.load([(seq, None, None, None, None, player, None, name, amount, paid)
                       for seq, (player, name, amount, paid) in enumerate(lines)])  # fmt: skip
            return
        self._empty()
        text_lines = (f"{seq}\t\\N\t\\N\t\\N\t\\N\t{player}\t\\N\t{name}\t{amount}\t{paid}\n"
                      for seq, (player, name, amount, paid) in enumerate(lines))  # fmt: skip
        raw: Any = self.session.connection().connection.driver_connection
        with raw.cursor() as cursor, cursor.copy(f"COPY {STAGE} FROM STDIN") as copy:
            chunk: list[str] = []
            for line in text_lines:
                chunk.append(line)
                if len(chunk) == 1000:
                    copy.write("".join(chunk))
                    chunk.clear()
            copy.write("".join(chunk))

    def apply_changes(self) -> list[tuple[int, str | None]]:
        """Add each keyless staged row's ``amount`` to its account's balance (one row per
        account), and return the ``(id, player id)`` of every account changed. On PostgreSQL
        this one statement also takes the row locks, in id order (the order of every other
        writer: no deadlock), so the batch needs no separate ``SELECT ... FOR UPDATE`` pass
        over its wallets: the accounts are found by their unique names, sorted by id, and
        updated by a nested loop in that order, each by its primary key (hash and merge joins
        off for this statement, as a hash join would lock in the hash's order). A wallet
        going below zero fails the statement (the table's CHECK: ``IntegrityError``)."""
        connection = self.session.connection()
        raw: Any = connection.connection.driver_connection
        try:
            return self._apply_changes(raw)
        except connection.dialect.dbapi.IntegrityError as error:  # type: ignore[union-attr]
            raise IntegrityError("apply staged changes", None, error) from error

    def _apply_changes(self, raw: Any) -> list[tuple[int, str | None]]:
        if self.dialect != "postgresql":
            cursor = raw.cursor()
            try:
                cursor.execute(
                    "UPDATE ledger_accounts SET balance = balance + s.amount FROM "
                    f"{STAGE} AS s WHERE ledger_accounts.name = s.wallet AND s.key IS NULL "
                    "RETURNING id, player_id"
                )
                return list(cursor.fetchall())
            finally:
                cursor.close()
        with (
            planner_settings(self.session, enable_hashjoin="off", enable_mergejoin="off"),
            raw.cursor() as cursor,  # the driver's own rows: no processing per row
        ):
            cursor.execute(APPLY_IN_ID_ORDER)
            return list(cursor.fetchall())

    def _empty(self) -> Any:
        connection = self.session.connection()
        connection.exec_driver_sql(_ddl(self.dialect))
        connection.exec_driver_sql(
            f"TRUNCATE {STAGE}" if self.dialect == "postgresql" else f"DELETE FROM {STAGE}"
        )
        return connection

    def copy_into(
        self,
        table_name: str,
        columns: Sequence[str],
        rows: Iterable[Sequence[Any]],
        types: Sequence[str] | None = None,
    ) -> None:
        """Append rows to a table in the caller's transaction: ``COPY`` on PostgreSQL (binary
        when the columns' PostgreSQL ``types`` are given: half the client's work per row), one
        executemany on SQLite. Constraint violations raise ``IntegrityError`` as usual."""
        connection = self.session.connection()
        raw: Any = connection.connection.driver_connection
        names = ", ".join(columns)
        try:
            if self.dialect == "postgresql":
                binary = " (FORMAT BINARY)" if types else ""
                copy_sql = f"COPY {table_name} ({names}) FROM STDIN{binary}"
                with raw.cursor() as cursor, cursor.copy(copy_sql) as copy:
                    if types:
                        copy.set_types(list(types))
                    for row in rows:
                        copy.write_row(row)
                return
            marks = ", ".join("?" for _ in columns)
            cursor = raw.cursor()
            try:
                cursor.executemany(f"INSERT INTO {table_name} ({names}) VALUES ({marks})", rows)
            finally:
                cursor.close()
        except connection.dialect.dbapi.IntegrityError as error:  # type: ignore[union-attr]
            raise IntegrityError(f"copy into {table_name}", None, error) from error

    def new_ids(self, table_name: str, count: int) -> list[int]:
        """``count`` ids for rows of ``table_name`` written with explicit ids (PostgreSQL: drawn
        from the table's id sequence, so concurrent writers never collide). The sequence is
        named once: looked up per row, it cost ten times the drawing."""
        (sequence,) = self.rows(f"SELECT pg_get_serial_sequence('{table_name}', 'id')")[0]
        raw: Any = self.session.connection().connection.driver_connection
        with raw.cursor() as cursor:  # the driver's own rows: no result processing per id
            cursor.execute(
                "SELECT nextval(%s::regclass) FROM generate_series(1, %s)", (sequence, count)
            )
            return [int(value) for (value,) in cursor.fetchall()]

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

    def lock_wallets(self, extra_names: Iterable[str] = ()) -> dict[str, LockedAccount]:
        """``{wallet name: (id, balance, player id, name, kind)}`` of the staged wallets that
        exist, row-locked with the accounts ``extra_names`` in id order on PostgreSQL (SQLite
        holds the database write lock): the same order as every other writer, so concurrent
        writers never deadlock. The extra accounts are staged too (rows without a key), so one
        semi-join finds all."""
        extra = sorted(set(extra_names))
        if extra:
            rows = [(-1 - n, None, None, None, None, "", None, name, 0, 0)
                    for n, name in enumerate(extra)]  # fmt: skip
            self.copy_into(STAGE, COLUMNS, rows)
        raw: Any = self.session.connection().connection.driver_connection
        cursor = raw.cursor()
        try:  # the driver's own rows, kept as they come: no result processing per wallet
            cursor.execute(self.lock_wallets_sql())
            found: list[LockedAccount] = cursor.fetchall()
        finally:
            cursor.close()
        return {row[3]: row for row in found if row[4] == "wallet"}

    def lock_wallets_sql(self) -> str:
        # A plain semi-join on the unique name. Not ``... OR id IN (...)``: an OR keeps
        # PostgreSQL from a semi-join, and once the staged names outgrow work_mem (about
        # 100,000 wallets) the subquery is rescanned for every account: quadratic (minutes at
        # 250,000). Nor ids joined and unioned first: that scanned every account twice per
        # batch (a cost that grew with the number of accounts, not the batch).
        lock = " FOR UPDATE" if self.dialect == "postgresql" else ""
        return (
            "SELECT a.id, a.balance, a.player_id, a.name, a.kind FROM ledger_accounts a "
            f"WHERE a.name IN (SELECT wallet FROM {STAGE}) ORDER BY a.id{lock}"
        )
