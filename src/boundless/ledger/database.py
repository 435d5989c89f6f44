"""Engines, sessions and migrations for the ledger database (a SQLite file or PostgreSQL).

Use :func:`make_engine` for every engine that writes to the ledger: on SQLite it turns on
foreign keys, WAL and a busy timeout, and makes each transaction ``BEGIN IMMEDIATE`` so writers
queue for the write lock instead of failing, and SAVEPOINTs work.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker
from tenacity import retry, retry_if_exception, stop_after_delay, wait_random_exponential

DEFAULT_DATABASE_URL = "sqlite:///data/boundless.sqlite"
DATABASE_URL_ENV = "BOUNDLESS_DATABASE_URL"
VERSION_TABLE = "ledger_alembic_version"
"""The ledger keeps its own Alembic version table, so other parts of the app can migrate theirs."""

SQLITE_BUSY_TIMEOUT_MS = 30_000
MIGRATION_LOCK_ID = 0x1ED6E5  # PostgreSQL advisory lock held while migrating
POSTGRES_CONNECT_ARGS = {
    "connect_timeout": 5,
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
}
"""libpq settings: a database that stops answering (a host gone, not a refused connection) is
given up within seconds, not the operating system's minutes, so the caller sees the outage and
the retry policy of :mod:`boundless.ledger.outage` takes over."""


def default_database_url() -> str:
    """``$BOUNDLESS_DATABASE_URL``, else a SQLite file at ``data/boundless.sqlite``."""
    return os.environ.get(DATABASE_URL_ENV) or DEFAULT_DATABASE_URL


def make_engine(url: str, *, read_only: bool = False, **options: Any) -> Engine:
    """An engine for the ledger. ``read_only`` (reports, ``ledger check``): on SQLite its
    transactions read a WAL snapshot without taking the write lock, so they never block writers."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        # A connection the database dropped (a restart, a failover) is found at checkout and
        # replaced, so the pool recovers by itself once the database is back.
        options.setdefault("pool_pre_ping", True)
        if parsed.get_backend_name() == "postgresql":
            options["connect_args"] = {**POSTGRES_CONNECT_ARGS, **options.get("connect_args", {})}
        return create_engine(parsed, **options)
    database = parsed.database
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(parsed, **options)
    _configure_sqlite(engine, "BEGIN" if read_only else "BEGIN IMMEDIATE")
    return engine


@retry(
    retry=retry_if_exception(lambda error: "locked" in str(error)),
    stop=stop_after_delay(SQLITE_BUSY_TIMEOUT_MS / 1000),
    wait=wait_random_exponential(multiplier=0.01, max=0.5),
    reraise=True,
)
def _switch_to_wal(cursor: Any) -> None:
    # SQLite answers a journal-mode change that meets another connection's change at once with
    # "database is locked", without its busy timeout: two processes opening a new file do.
    cursor.execute("PRAGMA journal_mode = WAL")


def _configure_sqlite(engine: Engine, begin: str) -> None:
    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Hand transaction control to SQLAlchemy (pysqlite's own is what breaks SAVEPOINT).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        _switch_to_wal(cursor)
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def on_begin(connection: Connection) -> None:
        connection.exec_driver_sql(begin)


def include_name(name: str | None, type_: str, _parent: Any) -> bool:
    """Autogenerate looks at the ledger's tables only; other parts of the app own the rest."""
    if type_ != "table":
        return True
    return (name or "").startswith("ledger_") and name != VERSION_TABLE


def make_session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic config pointing at the migrations shipped inside this package."""
    config = Config()
    location = resources.files("boundless.ledger") / "migrations"
    config.set_main_option("script_location", str(location))
    config.set_main_option("version_table", VERSION_TABLE)
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def upgrade_database(url_or_engine: str | Engine, revision: str = "head") -> None:
    """Apply the ledger's migrations up to ``revision`` (run on server start; safe to repeat)."""
    engine = make_engine(url_or_engine) if isinstance(url_or_engine, str) else url_or_engine
    try:
        with engine.begin() as connection:
            if connection.dialect.name == "postgresql":
                # Two servers starting at once: the second waits, then finds nothing to do.
                connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK_ID})")
            command.upgrade(alembic_config(connection), revision)
    finally:
        if isinstance(url_or_engine, str):
            engine.dispose()


def current_revision(connection: Connection) -> str | None:
    context = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE})
    return context.get_current_revision()


def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()
