"""Fixtures: a migrated database (SQLite file, and PostgreSQL where it answers) with players,
and a clock the test moves."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import make_session_factory
from boundless.server.players.service import PlayerService
from boundless.server.protection import clock
from boundless.server.storage.database import migrated_engine
from tests.postgres import postgres_schema


@dataclass
class Moved:
    """The protection clock, moved by the test."""

    at: datetime

    def __call__(self) -> datetime:
        return self.at

    def forward(self, **delta: float) -> None:
        self.at += timedelta(**delta)


@pytest.fixture
def moved_clock(monkeypatch: pytest.MonkeyPatch) -> Moved:
    moved = Moved(datetime.now(UTC))
    monkeypatch.setattr(clock, "utc_now", moved)
    return moved


@pytest.fixture(params=["sqlite", "postgresql"])
def sessions(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[sessionmaker[Session]]:
    if request.param == "sqlite":
        engine = migrated_engine(f"sqlite:///{tmp_path / 'protection.sqlite'}")
        yield make_session_factory(engine)
        engine.dispose()
        return
    with postgres_schema("protection") as url:
        engine = migrated_engine(url)
        yield make_session_factory(engine)
        engine.dispose()


def new_player(sessions: sessionmaker[Session], grant: int = 100_000) -> str:
    with sessions.begin() as session:
        player, _ = PlayerService(session).sign_up("Ana", grant)
    return player.player_id
