"""The floor of the ledger's bulk writes: the same rows written the plainest way the database has.

For a round's stakes: per batch, one transaction header and two entries per bet ``COPY``-ed into
tables without indexes, constraints or defaults, each wallet's change ``COPY``-ed into a scratch
table and applied with one set-based ``UPDATE ... FROM``, then a commit. For each slice's
settlement: one header, one entry per paid player and the two squaring entries the same way, and
one ``UPDATE ... FROM`` for the paid wallets, the slice's in-play and the house. SQLite's
equivalent: one ``executemany`` of plain ``INSERT``s per table and the same ``UPDATE ... FROM``.

The accounts table keeps only its primary key: the ``UPDATE`` has to find each wallet's row, and
without a key it would read every account once per batch (a cost no real ledger pays). Nothing
else is checked: no idempotency key, no balance test, no lock order. The rows (keys,
fingerprints, descriptions) are made before the clock starts, so the floor is the database's
work plus handing it the rows; the ratio of the ledger's time to it is what the ledger adds.

Used by ``ledger_settlement.py`` and ``cluster_round.py`` in the same run and database as the
figure they are compared with.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from itertools import count
from typing import Any

import psycopg
from sqlalchemy.engine import make_url

HEADER_COLUMNS = ("id", "idempotency_key", "fingerprint", "description", "category", "kind",
                  "round_id", "player_id", "position", "created_at", "owner")  # fmt: skip
HEADER_TYPES = ("int8", "text", "text", "text", "text", "text", "int8", "text", "text",
                "timestamptz", "text")  # fmt: skip
Outcome = Callable[[int], tuple[int, int]]
"""A player's index → (staked, paid)."""


def _ddl(postgres: bool) -> list[str]:
    big = "BIGINT" if postgres else "INTEGER"
    stamp = "TIMESTAMPTZ" if postgres else "TEXT"
    temporary = "TEMPORARY " if postgres else ""
    return [
        f"CREATE TABLE floor_transactions (id {big}, idempotency_key TEXT, fingerprint TEXT, "
        f"description TEXT, category TEXT, kind TEXT, round_id {big}, player_id TEXT, "
        f"position TEXT, created_at {stamp}, owner TEXT)",
        f"CREATE TABLE floor_entries (id {big}, transaction_id {big}, account_id {big}, "
        f"amount {big})",
        f"CREATE TABLE floor_accounts (id {big} PRIMARY KEY, balance {big})",
        f"CREATE {temporary}TABLE floor_changes (id {big}, delta {big})",
    ]


LEDGER_INDEXES = (
    "CREATE UNIQUE INDEX floor_transactions_id ON floor_transactions (id)",
    "CREATE UNIQUE INDEX floor_transactions_key ON floor_transactions (idempotency_key)",
    "CREATE INDEX floor_transactions_slice ON floor_transactions (round_id, owner, id)",
    "CREATE UNIQUE INDEX floor_entries_id ON floor_entries (id)",
    "CREATE INDEX floor_entries_account ON floor_entries (account_id, id)",
    "CREATE INDEX floor_entries_legs ON floor_entries (transaction_id, account_id)",
)
"""The ledger's indexes on its two big tables (``models.py``), for the indexed floor: the same
plain writes with only the cost of keeping these up added. Each serves a guarantee or a read:
the primary keys, the idempotency key, a slice's transactions, an account's statement and a
transaction's legs. Whatever the ledger does beyond them costs on top of this floor."""


def _libpq(url: str) -> str:
    """A SQLAlchemy PostgreSQL URL as psycopg takes it."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


class _Writer:
    """One connection writing the floor's rows: psycopg ``COPY`` or sqlite3 ``executemany``."""

    def __init__(self, url: str) -> None:
        parsed = make_url(url)
        self.postgres = parsed.get_backend_name() == "postgresql"
        if self.postgres:
            self.pg = psycopg.connect(_libpq(url))
        else:
            self.lite = sqlite3.connect(parsed.database or ":memory:", isolation_level=None)

    def run(self, sql: str, rows: Sequence[Sequence[Any]] | None = None) -> None:
        if self.postgres:
            self.pg.execute(sql)
        elif rows is None:
            self.lite.execute(sql)
        else:
            self.lite.executemany(sql, rows)

    def copy(self, table: str, columns: Sequence[str], types: Sequence[str],
             rows: Sequence[Sequence[Any]]) -> None:  # fmt: skip
        names = ", ".join(columns)
        if not self.postgres:
            marks = ", ".join("?" for _ in columns)
            self.lite.executemany(f"INSERT INTO {table} ({names}) VALUES ({marks})", rows)
            return
        with (
            self.pg.cursor() as cursor,
            cursor.copy(f"COPY {table} ({names}) FROM STDIN (FORMAT BINARY)") as copy,
        ):
            copy.set_types(list(types))
            for row in rows:
                copy.write_row(row)

    def begin(self) -> None:
        if not self.postgres:
            self.lite.execute("BEGIN IMMEDIATE")

    def commit(self) -> None:
        if self.postgres:
            self.pg.commit()
        elif self.lite.in_transaction:
            self.lite.execute("COMMIT")

    def close(self) -> None:
        if self.postgres:
            self.pg.close()
        else:
            self.lite.close()


Transaction = tuple[list[tuple[Any, ...]], list[tuple[int, int, int, int]], list[tuple[int, int]]]
"""One committed write of the floor: its headers, its entries and each account's change."""
ENTRY_COLUMNS = ("id", "transaction_id", "account_id", "amount")


def _write(writer: _Writer, transaction: Transaction) -> None:
    headers, entries, changes = transaction
    writer.begin()
    writer.copy("floor_transactions", HEADER_COLUMNS, HEADER_TYPES, headers)
    writer.copy("floor_entries", ENTRY_COLUMNS, ("int8",) * 4, entries)
    writer.copy("floor_changes", ("id", "delta"), ("int8", "int8"), changes)
    writer.run(
        "UPDATE floor_accounts SET balance = floor_accounts.balance + c.delta "
        "FROM floor_changes AS c WHERE floor_accounts.id = c.id"
    )
    writer.run("DELETE FROM floor_changes")
    writer.commit()


def _run_jobs(url: str, jobs: list[list[Transaction]], parallel: bool) -> float:
    """Wall seconds to write each job's transactions in order, the jobs one after the other or
    (``parallel``, PostgreSQL) each on its own connection at once, as gateways write slices."""
    writers = [_Writer(url) for _ in (jobs if parallel else jobs[:1])]
    try:
        for writer in writers:
            if writer.postgres:  # a temporary table is each connection's own
                writer.run("CREATE TEMPORARY TABLE IF NOT EXISTS floor_changes "
                           "(id BIGINT, delta BIGINT)")  # fmt: skip
                # The update probes each changed account by its key: without these the
                # planner may hash the whole accounts table once per batch (a floor that grows
                # with the accounts, 120 s for 1,000,000 players' stakes).
                writer.run("SET enable_hashjoin = off")
                writer.run("SET enable_mergejoin = off")
                writer.commit()
        start = time.perf_counter()
        if parallel and len(jobs) > 1:
            with ThreadPoolExecutor(len(jobs)) as pool:
                done = [pool.submit(lambda w, j: [_write(w, t) for t in j], writer, job)
                        for writer, job in zip(writers, jobs, strict=True)]  # fmt: skip
                for future in done:
                    future.result()
        else:
            for job in jobs:
                for transaction in job:
                    _write(writers[0], transaction)
        return time.perf_counter() - start
    finally:
        for writer in writers:
            writer.close()


def stake_header(
    tid: int, player_index: int, kind: str, amount: int, owner: int, created: Any, suffix: str = ""
) -> tuple[Any, ...]:
    """A stake's header as the ledger writes one: its key (``suffix``: a position's second
    stake of a kind), a fingerprint, its text."""
    player = f"p{player_index:07d}"
    position = f"{player}.0"
    text = f"{kind}{suffix}:{amount}:{owner}:{player}"
    return (tid, f"bench:1:{position}:{kind}{suffix}", hashlib.sha256(text.encode()).hexdigest(),
            f"{kind} stake of {amount} by player '{player}' on position '{position}' at table "
            f"'bench' round 1", "stake", kind, 1, player, position, created,
            f"gateway:g{owner}")  # fmt: skip


EXTRA_STAKE = 100
"""The amount of each extra stake the floor writes (the amounts do not change its cost)."""


def extra_stake_rows(
    slice_lines: list[tuple[int, int, int]],
    count: int,
    owner: int,
    in_play: int,
    ids: Iterator[int],
    created: Any,
) -> Transaction:
    """``count`` extra stakes of a slice, its players taking them in turn: their headers,
    entries and account changes (one per leg, summed per account by the caller)."""
    headers: list[tuple[Any, ...]] = []
    entries: list[tuple[int, int, int, int]] = []
    changes: list[tuple[int, int]] = []
    for number in range(count if slice_lines else 0):
        wallet = slice_lines[number % len(slice_lines)][0]
        tid = next(ids)
        headers.append(
            stake_header(tid, wallet - 1, "extra", EXTRA_STAKE, owner, created, f":{number}")
        )
        entries.append((next(ids), tid, wallet, -EXTRA_STAKE))
        entries.append((next(ids), tid, in_play, EXTRA_STAKE))
        changes += [(wallet, -EXTRA_STAKE), (in_play, EXTRA_STAKE)]
    return headers, entries, changes


def start_clean(url: str) -> bool:
    """``CHECKPOINT`` on PostgreSQL before a timed part, so that neither the ledger nor its
    floor starts with pages left dirty by what ran before it (with the default 128 MB of shared
    buffers a backend must otherwise write them out itself, inside the timed statements).
    False where it could not be done (SQLite; a role without the right to checkpoint)."""
    if make_url(url).get_backend_name() != "postgresql":
        return False
    try:
        with psycopg.connect(_libpq(url), autocommit=True) as connection:
            connection.execute("CHECKPOINT")
    except psycopg.Error:
        return False
    return True


def measure_floor(
    url: str,
    players: int,
    batches: Sequence[range],
    owners: int,
    outcome: Outcome,
    parallel: bool = False,
    indexed: bool = False,
    extra_stakes: Sequence[int] = (),
) -> dict[str, float]:
    """Seconds the floor takes for the stakes (every batch, batch ``n`` in slice ``n % owners``)
    and the settlements (one per slice) of ``players`` players; the floor's tables are made in
    ``url``'s database and dropped afterwards. ``parallel``: each slice's writes on its own
    connection, all slices at once (the stakes, then the settlements). ``indexed``: the tables
    carry the ledger's indexes (:data:`LEDGER_INDEXES`). ``extra_stakes``: for each slice, how
    many more stakes (doubles, splits, insurance) are written in its settlement's transaction,
    one header and two entries each, spread over its players in turn, as a cluster's gateways
    write them."""
    setup = _Writer(url)
    postgres = setup.postgres
    try:
        setup.begin()
        for sql in _ddl(postgres) + (list(LEDGER_INDEXES) if indexed else []):
            setup.run(sql)
        # Accounts 1..players are the wallets; then each slice's in-play and house account
        # (the floor has no shared row for slices to queue on).
        in_play = players + 1
        house = in_play + owners
        accounts = [(index, 1_000_000) for index in range(1, house + owners)]
        setup.copy("floor_accounts", ("id", "balance"), ("int8", "int8"), accounts)
        if postgres:
            setup.run("ANALYZE floor_accounts")
        setup.commit()
    finally:
        setup.close()
    created: Any = datetime.now(UTC) if postgres else datetime.now(UTC).isoformat()
    ids = count(1)
    stakes: list[list[Transaction]] = [[] for _ in range(owners)]
    lines: list[list[tuple[int, int, int]]] = [[] for _ in range(owners)]
    for number, part in enumerate(batches):
        owner = number % owners
        headers: list[tuple[Any, ...]] = []
        entries: list[tuple[int, int, int, int]] = []
        changes: list[tuple[int, int]] = []
        total = 0
        for i in part:
            staked, paid = outcome(i)
            tid = next(ids)
            headers.append(stake_header(tid, i, "main", staked, owner, created))
            entries.append((next(ids), tid, i + 1, -staked))
            entries.append((next(ids), tid, in_play + owner, staked))
            changes.append((i + 1, -staked))
            total += staked
            lines[owner].append((i + 1, staked, paid))
        changes.append((in_play + owner, total))
        stakes[owner].append((headers, entries, changes))
    settles: list[list[Transaction]] = []
    for owner, slice_lines in enumerate(lines):
        extra_headers, extra_entries, extra_changes = extra_stake_rows(
            slice_lines, extra_stakes[owner] if extra_stakes else 0, owner, in_play + owner, ids,
            created,
        )  # fmt: skip
        tid = next(ids)
        held = sum(staked for _, staked, _ in slice_lines) + EXTRA_STAKE * len(extra_headers)
        header = (tid, f"bench:1:gateway:g{owner}:settle", "0" * 64,
                  f"settlement of the slice of 'gateway:g{owner}' for {len(slice_lines)} players",
                  "settle", "settle", 1, None, None, created, f"gateway:g{owner}")  # fmt: skip
        paid_lines = [(wallet, paid) for wallet, _, paid in slice_lines if paid > 0]
        squares = [(in_play + owner, -held), (house + owner, held - sum(p for _, p in paid_lines))]
        entries = [(next(ids), tid, account, amount) for account, amount in paid_lines + squares]
        # One change per account: the update joins each account once.
        changes: dict[int, int] = {}
        for account, amount in extra_changes + paid_lines + squares:
            changes[account] = changes.get(account, 0) + amount
        settles.append([([*extra_headers, header], extra_entries + entries,
                         list(changes.items()))])  # fmt: skip
    if not parallel:  # the batches in the order the ledger wrote them
        stakes = [[stakes[n % owners][n // owners] for n in range(len(batches))]]
    stake_seconds = _run_jobs(url, stakes, parallel and postgres)
    settle_seconds = _run_jobs(url, settles, parallel and postgres)
    cleanup = _Writer(url)
    try:
        cleanup.begin()
        for table in ("floor_transactions", "floor_entries", "floor_accounts", "floor_changes"):
            cleanup.run(f"DROP TABLE IF EXISTS {table}")
        cleanup.commit()
    finally:
        cleanup.close()
    return {"stake_seconds": stake_seconds, "settle_seconds": settle_seconds}
