"""The coordinator's stored shoes through a database cut: a round whose new shoe could not be
written (or whose finished shoe could not be published) is started again by the next call with
the same shoe, stored once, numbered on without a gap, the round counted once; a try whose
commit landed but whose answer was lost is not stored twice."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from boundless.server.cluster.processes import StoredShoes
from boundless.server.tables.repository import TableRepository
from tests.cluster.harness import RULES
from tests.cluster.players import ledger_sessions


def away(*_: Any, **__: Any) -> None:
    raise OperationalError("shoe", {}, sqlite3.OperationalError("database is locked"))


def stored_shoes(sessions: Any) -> list[tuple[int, str, bool]]:
    from sqlalchemy import select

    from boundless.server.storage.models import Shoe

    with sessions.begin() as session:
        rows = session.scalars(select(Shoe).order_by(Shoe.shoe_number)).all()
        return [(row.shoe_number, row.commitment, row.finished) for row in rows]


@pytest.fixture
def leading(tmp_path: Path) -> tuple[Any, StoredShoes]:
    """A fresh ledger and the shoes of the coordinator that leads table ``t1`` on it."""
    sessions = ledger_sessions(tmp_path)
    shoes = StoredShoes("t1", RULES, sessions)
    shoes.lead()
    return sessions, shoes


def test_a_shuffle_not_written_is_written_by_the_next_try_with_the_same_shoe(
    leading: tuple[Any, StoredShoes], monkeypatch: pytest.MonkeyPatch
) -> None:
    sessions, shoes = leading
    real_add = TableRepository.add_shoe
    monkeypatch.setattr(TableRepository, "add_shoe", away)
    with pytest.raises(OperationalError):
        shoes(1)
    assert stored_shoes(sessions) == []
    monkeypatch.setattr(TableRepository, "add_shoe", real_add)
    dealer = shoes(1)
    ((number, commitment, finished),) = stored_shoes(sessions)
    assert (number, finished) == (1, False)
    assert dealer.opened.shoe_commitment == commitment
    assert dealer.opened.round_in_shoe == 1  # the round counted once
    assert [kind for kind, _ in shoes.take_notices()] == ["shuffle"]  # announced once


def test_a_shuffle_whose_answer_was_lost_is_not_stored_twice(
    leading: tuple[Any, StoredShoes], monkeypatch: pytest.MonkeyPatch
) -> None:
    sessions, shoes = leading
    real_add = TableRepository.add_shoe

    def landed_then_lost(self: TableRepository, *args: Any) -> None:
        real_add(self, *args)
        self.session.commit()
        away()

    monkeypatch.setattr(TableRepository, "add_shoe", landed_then_lost)
    with pytest.raises(OperationalError):
        shoes(1)
    monkeypatch.setattr(TableRepository, "add_shoe", real_add)
    dealer = shoes(1)
    ((number, commitment, _),) = stored_shoes(sessions)
    assert number == 1 and dealer.opened.shoe_commitment == commitment
