"""A fresh PostgreSQL schema for a server test; the test skips when PostgreSQL is absent."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest
from sqlalchemy.engine import make_url

from tests.ledger.conftest import _libpq_dsn, postgres_unavailable, postgres_url


@contextmanager
def postgres_schema(prefix: str) -> Iterator[str]:
    """A database URL whose search path is a new schema named ``prefix_…``, dropped afterwards.

    Skips the calling test with the reason when the machine's PostgreSQL cannot be reached.
    """
    reason = postgres_unavailable()
    if reason is not None:
        pytest.skip(reason)
    schema = f"{prefix}_{uuid.uuid4().hex[:12]}"
    dsn = _libpq_dsn(postgres_url())
    with psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute(f'CREATE SCHEMA "{schema}"')
    url = make_url(postgres_url()).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with psycopg.connect(dsn, autocommit=True) as connection:
            connection.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
