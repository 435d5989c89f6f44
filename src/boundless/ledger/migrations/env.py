"""Alembic environment for the ledger's tables (its own version table: ``ledger_alembic_version``).

Run through :func:`boundless.ledger.database.upgrade_database`, which hands over a connection.
"""

from __future__ import annotations

from typing import Any

from alembic import context
from sqlalchemy import Connection

from boundless.ledger.database import (
    VERSION_TABLE,
    default_database_url,
    include_name,
    make_engine,
)
from boundless.ledger.models import LedgerBase

config = context.config
target_metadata = LedgerBase.metadata


def _configure(**options: Any) -> None:
    context.configure(
        target_metadata=target_metadata,
        version_table=config.get_main_option("version_table") or VERSION_TABLE,
        include_name=include_name,
        render_as_batch=True,
        compare_type=True,
        **options,
    )


def _run(connection: Connection) -> None:
    _configure(connection=connection)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = make_engine(config.get_main_option("sqlalchemy.url") or default_database_url())
    try:
        with engine.begin() as new_connection:
            _run(new_connection)
    finally:
        engine.dispose()


def run_migrations_offline() -> None:
    _configure(
        url=config.get_main_option("sqlalchemy.url") or default_database_url(),
        literal_binds=True,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
