"""Ledger tests run against a real SQLite file and, when reachable, a real PostgreSQL.

PostgreSQL: ``$BOUNDLESS_TEST_POSTGRES_URL`` or the machine's ``postgresql+psycopg://postgres@
127.0.0.1:5432/test``. Each test gets its own schema (dropped afterwards), so tests can run in
parallel (``pytest -n 2``). Without PostgreSQL those cases skip, saying why.
"""

from __future__ import annotations

import functools
import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import psycopg
import pytest
from sqlalchemy import Engine
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import LedgerService, make_engine, make_session_factory, upgrade_database

DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
T = TypeVar("T")


def postgres_url() -> str:
    return os.environ.get("BOUNDLESS_TEST_POSTGRES_URL") or DEFAULT_POSTGRES_URL


def _libpq_dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@functools.cache
def postgres_unavailable() -> str | None:
    """Why PostgreSQL cannot be used, or None when it can."""
    try:
        with psycopg.connect(_libpq_dsn(postgres_url()), connect_timeout=3):
            return None
    except Exception as exc:  # any failure means: skip, never fail
        shown = make_url(postgres_url()).render_as_string()  # password hidden
        return f"PostgreSQL not reachable at {shown} ({type(exc).__name__}: {exc})"


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated SQLite file, copied for each test (migrating is the slow part)."""
    path = tmp_path_factory.mktemp("template") / "ledger.sqlite"
    upgrade_database(f"sqlite:///{path}")
    return path


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest) -> str:
    if request.param == "postgresql" and (reason := postgres_unavailable()) is not None:
        pytest.skip(reason)
    return str(request.param)


@pytest.fixture
def empty_database_url(backend: str, tmp_path: Path) -> Iterator[str]:
    """A database with no ledger tables: a new SQLite file, or a new PostgreSQL schema."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'ledger.sqlite'}"
        return
    schema = f"ledger_test_{uuid.uuid4().hex[:16]}"
    dsn = _libpq_dsn(postgres_url())
    with psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute(f'CREATE SCHEMA "{schema}"')
    url = make_url(postgres_url()).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with psycopg.connect(dsn, autocommit=True) as connection:
            connection.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture
def database_url(empty_database_url: str, backend: str, sqlite_template: Path) -> str:
    """A migrated, empty ledger database."""
    if backend == "sqlite":
        shutil.copyfile(sqlite_template, make_url(empty_database_url).database or "")
    else:
        upgrade_database(empty_database_url)
    return empty_database_url


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def sessions(engine: Engine) -> sessionmaker[Session]:
    return make_session_factory(engine)


@pytest.fixture
def run(sessions: sessionmaker[Session]) -> Callable[[Callable[[LedgerService], T]], T]:
    """``run(lambda ledger: ...)``: one committed database transaction, as a request would."""

    def in_transaction(work: Callable[[LedgerService], T]) -> T:
        with sessions.begin() as session:
            return work(LedgerService(session))

    return in_transaction
