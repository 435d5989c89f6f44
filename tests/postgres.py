"""The machine's PostgreSQL for tests: its URL, whether it answers, and a fresh schema per test.

``$BOUNDLESS_TEST_POSTGRES_URL`` or ``postgresql+psycopg://postgres@127.0.0.1:5432/test``. Each
test gets its own schema (dropped afterwards), so tests can run in parallel (``pytest -n 2``);
without PostgreSQL those tests skip, saying why.
"""

from __future__ import annotations

import functools
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest
from sqlalchemy.engine import make_url

DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def postgres_url() -> str:
    return os.environ.get("BOUNDLESS_TEST_POSTGRES_URL") or DEFAULT_POSTGRES_URL


def libpq_dsn(url: str) -> str:
    """The SQLAlchemy URL as a plain libpq connection string (for psycopg directly)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@functools.cache
def postgres_unavailable() -> str | None:
    """Why PostgreSQL cannot be used, or None when it can."""
    try:
        with psycopg.connect(libpq_dsn(postgres_url()), connect_timeout=3):
            return None
    except Exception as exc:  # any failure means: skip, never fail
        shown = make_url(postgres_url()).render_as_string()  # password hidden
        return f"PostgreSQL not reachable at {shown} ({type(exc).__name__}: {exc})"


@contextmanager
def postgres_schema(prefix: str) -> Iterator[str]:
    """A database URL whose search path is a new schema named ``prefix_…``, dropped afterwards.

    Skips the calling test with the reason when the machine's PostgreSQL cannot be reached.
    """
    reason = postgres_unavailable()
    if reason is not None:
        pytest.skip(reason)
    schema = f"{prefix}_{uuid.uuid4().hex[:12]}"
    dsn = libpq_dsn(postgres_url())
    with psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute(f'CREATE SCHEMA "{schema}"')
    url = make_url(postgres_url()).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with psycopg.connect(dsn, autocommit=True) as connection:
            connection.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
