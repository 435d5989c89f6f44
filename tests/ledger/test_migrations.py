"""The shipped Alembic migrations build the schema the models describe, from an empty database."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text

from boundless.ledger import make_engine, upgrade_database
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
            assert current_revision(connection) == head_revision() == "0002_ledger_slices"
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
