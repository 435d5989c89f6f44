"""The shipped Alembic migrations build the schema the models describe, from an empty database."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Connection, Engine, inspect, text
from sqlalchemy.engine import make_url

from boundless.ledger import (
    LedgerService,
    check_books,
    make_engine,
    make_session_factory,
    upgrade_database,
)
from boundless.ledger.database import (
    VERSION_TABLE,
    alembic_config,
    current_revision,
    head_revision,
    include_name,
)
from boundless.ledger.models import LedgerBase

LEDGER_TABLES = {"ledger_accounts", "ledger_rounds", "ledger_transactions", "ledger_entries"}


def test_upgrade_from_empty_and_repeat(empty_database_url: str) -> None:
    engine = make_engine(empty_database_url)
    try:
        with engine.begin() as connection:
            connection.execute(text("CREATE TABLE other_app_table (id INTEGER PRIMARY KEY)"))
        upgrade_database(empty_database_url)
        upgrade_database(empty_database_url)  # on every server start: a no-op
        with engine.connect() as connection:
            tables = set(inspect(connection).get_table_names())
            assert LEDGER_TABLES | {VERSION_TABLE, "other_app_table"} <= tables
            assert current_revision(connection) == head_revision() == "0005_round_index_by_id"
    finally:
        engine.dispose()


def test_models_match_the_migrations(empty_database_url: str) -> None:
    upgrade_database(empty_database_url)
    engine = make_engine(empty_database_url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(
                connection, opts={"include_name": include_name, "compare_type": True}
            )
            differences = compare_metadata(context, LedgerBase.metadata)
        assert differences == []
    finally:
        engine.dispose()


def test_downgrade_to_base_and_back(empty_database_url: str) -> None:
    engine = make_engine(empty_database_url)
    try:
        upgrade_database(engine)
        with engine.begin() as connection:
            command.downgrade(alembic_config(connection), "base")
        with engine.connect() as connection:
            assert not LEDGER_TABLES & set(inspect(connection).get_table_names())
            assert current_revision(connection) is None
        upgrade_database(engine)
        with engine.connect() as connection:
            assert set(inspect(connection).get_table_names()) >= LEDGER_TABLES
    finally:
        engine.dispose()


def test_two_servers_migrating_at_once(empty_database_url: str) -> None:
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(upgrade_database, [empty_database_url] * 2))
    engine = make_engine(empty_database_url)
    try:
        with engine.connect() as connection:
            assert current_revision(connection) == head_revision()
    finally:
        engine.dispose()


def test_two_connections_opening_a_new_sqlite_file_at_once(tmp_path: Path) -> None:
    """Both switch the new file to WAL at once; SQLite refuses one without waiting (about one
    try in ten before the switch was retried), so repeat the race."""
    for attempt in range(50):
        url = f"sqlite:///{tmp_path / f'race{attempt}.sqlite'}"
        engines = [make_engine(url) for _ in range(2)]
        start = threading.Barrier(2)
        try:
            with ThreadPoolExecutor(2) as pool:
                list(pool.map(_connect_when_both_ready, engines, [start] * 2))
        finally:
            for engine in engines:
                engine.dispose()


def _connect_when_both_ready(engine: Engine, start: threading.Barrier) -> None:
    start.wait()
    with engine.connect():
        pass


def _legacy_books(connection: Connection) -> None:
    """A 0001 ledger: alice granted 1,000; round 1 settled, round 2 cancelled, round 3 open."""
    now = "2026-11-30 12:00:00"

    def run(sql: str, **params: object) -> int | None:
        result = connection.execute(text(sql), params)
        return None if result.returns_rows is False else result.scalar()

    names = ["issuance", "house", "wallet:alice", "in_play:t1:1", "in_play:t1:2", "in_play:t1:3"]
    ids = {}
    for name in names:
        kind = name.split(":")[0]
        ids[name] = run(
            "INSERT INTO ledger_accounts (name, kind, player_id, balance, created_at) "
            "VALUES (:n, :k, :p, 0, :t) RETURNING id",
            n=name, k=kind, p="alice" if kind == "wallet" else None, t=now,
        )  # fmt: skip
    rounds = {}
    for round_no, status in ((1, "closed"), (2, "cancelled"), (3, "open")):
        rounds[round_no] = run(
            "INSERT INTO ledger_rounds (table_id, round_no, in_play_account_id, status, "
            "opened_at) VALUES ('t1', :r, :a, :s, :t) RETURNING id",
            r=round_no, a=ids[f"in_play:t1:{round_no}"], s=status, t=now,
        )  # fmt: skip
    moves = [
        ("grant:alice:signup", "grant", None, {"issuance": -1000, "wallet:alice": 1000}),
        ("t1:1:a:main", "stake", 1, {"wallet:alice": -100, "in_play:t1:1": 100}),
        ("t1:1:*:settle", "settle", 1, {"in_play:t1:1": -100, "wallet:alice": 200, "house": -100}),
        ("t1:2:a:main", "stake", 2, {"wallet:alice": -50, "in_play:t1:2": 50}),
        ("t1:2:*:cancel", "cancel", 2, {"in_play:t1:2": -50, "wallet:alice": 50}),
        ("t1:3:a:main", "stake", 3, {"wallet:alice": -70, "in_play:t1:3": 70}),
    ]
    for key, category, round_no, amounts in moves:
        transaction = run(
            "INSERT INTO ledger_transactions (idempotency_key, fingerprint, description, category, "
            "kind, round_id, player_id, position, created_at) VALUES (:k, 'f', 'legacy', :c, :c, "
            ":r, 'alice', 'a', :t) RETURNING id",
            k=key, c=category, r=rounds.get(round_no or 0), t=now,
        )  # fmt: skip
        for name, amount in amounts.items():
            run(
                "INSERT INTO ledger_entries (transaction_id, account_id, amount) "
                "VALUES (:x, :a, :m)",
                x=transaction, a=ids[name], m=amount,
            )  # fmt: skip
            run("UPDATE ledger_accounts SET balance = balance + :m WHERE id = :a",
                m=amount, a=ids[name])  # fmt: skip


def test_upgrade_turns_each_legacy_round_into_one_local_slice(empty_database_url: str) -> None:
    upgrade_database(empty_database_url, "0001_ledger_tables")
    engine = make_engine(empty_database_url)
    try:
        with engine.begin() as connection:
            _legacy_books(connection)
        upgrade_database(engine)
        sessions = make_session_factory(engine)
        with sessions() as session:
            ledger = LedgerService(session)
            books = check_books(session)
            assert books.ok, books.summary()
            assert books.slices == {"open": 1, "settled": 1, "cancelled": 1}
            assert [(s.round_no, s.owner, s.status, s.in_play_balance) for s in
                    ledger.open_slices("local")] == [(3, "local", "open", 70)]  # fmt: skip
            owners = {t.key: t.owner for t in ledger.round_transactions("t1", 2)}
            assert owners == {"t1:2:a:main": "local", "t1:2:*:cancel": None}
        with sessions.begin() as session:  # the server's restart after the upgrade
            recovered = LedgerService(session).recover_owner("local")
            assert [t.key for t in recovered] == ["t1:3:*local:cancel"]
        with sessions() as session:
            assert LedgerService(session).wallet_balance("alice") == 1_100
            info = LedgerService(session).round_info("t1", 3)
            assert info is not None and info.status == "cancelled"
            books = check_books(session)
            assert books.ok, books.summary()
        with engine.begin() as connection:  # every round ended: the slices may go again
            command.downgrade(alembic_config(connection), "0001_ledger_tables")
        with engine.connect() as connection:
            assert "ledger_slices" not in inspect(connection).get_table_names()
            assert current_revision(connection) == "0001_ledger_tables"
        upgrade_database(engine)
        with sessions() as session:
            books = check_books(session)
            assert books.ok, books.summary()
            assert books.slices == {"settled": 1, "cancelled": 2}
    finally:
        engine.dispose()


def test_the_intents_table_an_earlier_server_made_is_kept(empty_database_url: str) -> None:
    """Before ``0004_wallet_intents`` a PostgreSQL server made ``wallet_intents`` itself; the
    upgrade renames it into the ledger's, rows and index kept, and the models then match."""
    if make_url(empty_database_url).get_backend_name() != "postgresql":
        pytest.skip("an earlier server made the table on PostgreSQL only (SQLite: a side file)")
    upgrade_database(empty_database_url, revision="0003_wallet_calls")
    engine = make_engine(empty_database_url)
    try:
        with engine.begin() as connection:
            connection.execute(
                text(
                    "CREATE TABLE wallet_intents (transaction_id VARCHAR(40) NOT NULL, "
                    "owner VARCHAR(128) NOT NULL, player_id VARCHAR(128) NOT NULL, "
                    "round_id VARCHAR(160) NOT NULL, amount BIGINT NOT NULL, "
                    "currency VARCHAR(3) NOT NULL)"
                )
            )
            connection.execute(
                text(
                    "CREATE INDEX ix_wallet_intents_transaction_id ON wallet_intents "
                    "(transaction_id)"
                )
            )
            connection.execute(
                text("INSERT INTO wallet_intents VALUES ('d-1', 'g1', 'p1', 't:1', 100, 'EUR')")
            )
        upgrade_database(empty_database_url)
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT * FROM ledger_wallet_intents")).all()
            assert [tuple(row) for row in rows] == [("d-1", "g1", "p1", "t:1", 100, "EUR")]
            assert not inspect(connection).has_table("wallet_intents")
            context = MigrationContext.configure(
                connection, opts={"include_name": include_name, "compare_type": True}
            )
            assert compare_metadata(context, LedgerBase.metadata) == []
    finally:
        engine.dispose()
