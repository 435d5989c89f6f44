"""Alembic environment for the server's tables (version table ``server_alembic_version``).

Run through :func:`boundless.server.storage.database.upgrade_server_database`.
"""

from __future__ import annotations

from alembic import context

from boundless.server.storage.database import VERSION_TABLE, include_name
from boundless.server.storage.models import ServerBase

config = context.config
connection = config.attributes.get("connection")
if connection is None:
    raise RuntimeError("server migrations run through upgrade_server_database(engine)")
context.configure(
    connection=connection,
    target_metadata=ServerBase.metadata,
    version_table=config.get_main_option("version_table") or VERSION_TABLE,
    include_name=include_name,
    render_as_batch=True,
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
