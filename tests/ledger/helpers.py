"""Shared helpers for the ledger tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol, TypeVar

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import (
    LedgerError,
    LedgerService,
    ReconciliationReport,
    check_books,
    grant_key,
)
from boundless.ledger.models import ACCOUNTS, ENTRIES, TRANSACTIONS

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., None])


class Run(Protocol):
    """The ``run`` fixture: one committed database transaction around ``work``."""

    def __call__(self, work: Callable[[LedgerService], T], /) -> T: ...


def fund(run: Run, *players: str, amount: int = 1_000) -> None:
    def work(ledger: LedgerService) -> None:
        for player in players:
            ledger.open_wallet(player)
            ledger.grant(player, amount, grant_key(player, "signup"))

    run(work)


def stake_each(
    ledger: LedgerService, table: str, round_no: int, orders: list[tuple[str, str, str, int]]
) -> None:
    """One ``stake`` call per (player, position, kind, amount), as a table sends them."""
    for player, position, kind, amount in orders:
        ledger.stake(table, round_no, player, position, kind, amount)


def wallet(run: Run, player_id: str) -> int:
    return run(lambda ledger: ledger.wallet_balance(player_id))


def report(sessions: sessionmaker[Session]) -> ReconciliationReport:
    with sessions() as session:
        return check_books(session)


def assert_books_balance(sessions: sessionmaker[Session]) -> ReconciliationReport:
    result = report(sessions)
    assert result.ok, result.summary()
    assert result.balance_sum == 0
    return result


def snapshot(session: Session) -> tuple[int, int, dict[str, int]]:
    """(transactions, entries, balances by account name): to prove a refusal changed nothing."""
    transactions = session.execute(select(func.count()).select_from(TRANSACTIONS)).scalar_one()
    entries = session.execute(select(func.count()).select_from(ENTRIES)).scalar_one()
    rows = session.execute(select(ACCOUNTS.c.name, ACCOUNTS.c.balance)).all()
    balances = {str(name): int(balance) for name, balance in rows}
    return int(transactions), int(entries), balances


@contextmanager
def rolled_back(sessions: sessionmaker[Session]) -> Iterator[Session]:
    """A session whose writes are all rolled back at the end, so that every Hypothesis example
    starts from empty books."""
    with sessions() as session:
        yield session
        session.rollback()


def _books(source: Session | sessionmaker[Session]) -> tuple[int, int, dict[str, int]]:
    if isinstance(source, Session):
        return snapshot(source)
    with source() as session:
        return snapshot(session)


@contextmanager
def unchanged(source: Session | sessionmaker[Session], why: str = "") -> Iterator[None]:
    """The block leaves the books exactly as they were (read in ``source``, a session or a
    session factory): ``with unchanged(sessions), pytest.raises(...): run(...)``."""
    before = _books(source)
    yield
    assert _books(source) == before, why


class Named(Protocol):
    @property
    def name(self) -> str: ...


OpT = TypeVar("OpT", bound=Named)


def attempt(session: Session, op: OpT, work: Callable[[OpT], T]) -> T | None:
    """``work(op)`` for one generated operation, or None where the ledger refuses it (a
    Hypothesis event says which refusal); a refusal must leave the books as they were."""
    before = snapshot(session)
    try:
        return work(op)
    except LedgerError as error:
        assert snapshot(session) == before, f"refused {op} changed the books"
        event(f"{op.name} refused: {type(error).__name__}")
        return None


def sequences_of(
    ops: st.SearchStrategy[Any], *, longest: int, retries: int, examples: int
) -> Callable[[F], F]:
    """The ledger's sequence properties: Hypothesis draws ``sequence`` (5 to ``longest``
    operations) and ``retries`` (up to ``retries`` positions in it to send again). The test's
    ``sessions`` fixture serves every example (each example rolls its session back)."""

    def decorate(test: F) -> F:
        drawn = given(
            sequence=st.lists(ops, min_size=5, max_size=longest),
            retries=st.lists(st.integers(0, longest - 1), max_size=retries),
        )(test)
        return settings(
            max_examples=examples,
            deadline=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        )(drawn)  # type: ignore[no-any-return]

    return decorate
