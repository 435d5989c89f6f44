"""Ledger tests run against a real SQLite file and, when reachable, a real PostgreSQL.

PostgreSQL comes from :mod:`tests.postgres`: each test gets its own schema, and without
PostgreSQL those cases skip, saying why.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest
from sqlalchemy import Engine
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import LedgerService, make_engine, make_session_factory, upgrade_database
from tests.postgres import postgres_schema, postgres_unavailable

T = TypeVar("T")


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
    with postgres_schema("ledger_test") as url:
        yield url


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
