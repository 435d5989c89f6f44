"""Migrations of the server's tables: their own Alembic environment and version table."""

from __future__ import annotations

from importlib import resources
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine

from boundless.ledger import make_engine, upgrade_database
from boundless.ledger.database import alembic_config as ledger_alembic_config

VERSION_TABLE = "server_alembic_version"
MIGRATION_LOCK_ID = 0x1ED6E6  # PostgreSQL advisory lock held while migrating (ledger: ...E5)


def include_name(name: str | None, type_: str, _parent: Any) -> bool:
    """Autogenerate looks at the server's tables only."""
    if type_ != "table":
        return True
    return (name or "").startswith("server_") and name != VERSION_TABLE


def alembic_config(connection: Connection | None = None) -> Config:
    """The ledger's Alembic config, pointed at the server's migrations and version table."""
    config = ledger_alembic_config(connection)
    location = resources.files("boundless.server.storage") / "migrations"
    config.set_main_option("script_location", str(location))
    config.set_main_option("version_table", VERSION_TABLE)
    return config


def upgrade_server_database(engine: Engine, revision: str = "head") -> None:
    """Apply the server's migrations (safe to repeat; two processes starting together queue)."""
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK_ID})")
        command.upgrade(alembic_config(connection), revision)


def migrated_engine(database_url: str) -> Engine:
    """An engine on ``database_url`` with the ledger's and the server's tables migrated."""
    engine = make_engine(database_url)
    upgrade_database(engine)
    upgrade_server_database(engine)
    return engine
