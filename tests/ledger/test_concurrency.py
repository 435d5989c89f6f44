"""Concurrent writers of the same key: coins move once (threads and processes)."""

from __future__ import annotations

import multiprocessing
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import (
    LedgerService,
    PostedTransaction,
    grant_key,
    make_engine,
    make_session_factory,
)
from boundless.ledger.repository import LedgerRepository, TransactionRow
from tests.ledger.helpers import Run, assert_books_balance, fund


def test_threads_racing_on_the_same_keys(run: Run, sessions: sessionmaker[Session]) -> None:
    fund(run, "alice", amount=10_000)
    barrier = threading.Barrier(2)

    def bettor(_: int) -> list[bool]:
        replayed = []
        barrier.wait()
        for round_no in range(1, 16):
            with sessions.begin() as session:
                ledger = LedgerService(session)
                posted = ledger.stake("t1", round_no, "alice", "a", "main", 100)
                replayed.append(posted.replayed)
        return replayed

    with ThreadPoolExecutor(2) as pool:
        first, second = pool.map(bettor, range(2))
    assert all(a != b for a, b in zip(first, second, strict=True))  # exactly one wrote each
    assert run(lambda ledger: ledger.wallet_balance("alice")) == 10_000 - 15 * 100
    assert_books_balance(sessions)


def test_writer_blocked_behind_an_uncommitted_twin(
    run: Run, sessions: sessionmaker[Session], backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """B writes the key while A's write of it is not yet committed: B waits (PostgreSQL: on the
    unique index, then takes the IntegrityError path; SQLite: on the write lock) and replays."""
    fund(run, "alice")
    outcome: dict[str, PostedTransaction] = {}
    lookups_by_b: list[str] = []
    real_find = LedgerRepository.find_transaction

    def counting_find(self: LedgerRepository, key: str) -> TransactionRow | None:
        if threading.current_thread().name == "writer-b":
            lookups_by_b.append(key)
        return real_find(self, key)

    monkeypatch.setattr(LedgerRepository, "find_transaction", counting_find)

    backend_pid: list[int] = []

    def second_writer() -> None:
        with sessions.begin() as session:
            if backend == "postgresql":
                backend_pid.append(session.execute(text("SELECT pg_backend_pid()")).scalar_one())
            outcome["b"] = LedgerService(session).stake("t1", 1, "alice", "a", "main", 100)

    with sessions.begin() as session_a:
        first = LedgerService(session_a).stake("t1", 1, "alice", "a", "main", 100)
        thread = threading.Thread(target=second_writer, name="writer-b")
        thread.start()
        if backend == "postgresql":
            # Commit only once B is seen waiting on A's row lock: a fixed sleep let a slow B
            # start after the commit on a loaded machine and find the key at once.
            wait_until_lock_waiting(sessions, backend_pid)
        else:
            time.sleep(0.3)
        assert thread.is_alive(), "the second writer should wait for the first to commit"
    thread.join(timeout=30)
    assert not first.replayed
    assert outcome["b"].replayed and outcome["b"].id == first.id
    # PostgreSQL: missed, lost the insert race, looked again. SQLite: waited, found it at once.
    assert len(lookups_by_b) == (2 if backend == "postgresql" else 1)
    assert run(lambda ledger: ledger.wallet_balance("alice")) == 900
    assert_books_balance(sessions)


def wait_until_lock_waiting(sessions: sessionmaker[Session], backend_pid: list[int]) -> None:
    """Until the PostgreSQL backend in ``backend_pid`` (filled by its thread) waits on a lock."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if backend_pid:
            with sessions() as watcher:
                waiting = watcher.execute(
                    text("SELECT wait_event_type FROM pg_stat_activity WHERE pid = :pid"),
                    {"pid": backend_pid[0]},
                ).scalar_one_or_none()
            if waiting == "Lock":
                return
        time.sleep(0.01)
    raise AssertionError("the second writer never waited on the first one's lock")


def _grant_repeatedly(url: str, start: multiprocessing.synchronize.Event) -> int:
    engine = make_engine(url)
    sessions = make_session_factory(engine)
    wrote = 0
    start.wait(10)
    for number in range(25):
        with sessions.begin() as session:
            posted = LedgerService(session).grant("alice", 10, grant_key("alice", f"bonus{number}"))
            wrote += not posted.replayed
    engine.dispose()
    return wrote


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_processes_retrying_the_same_grants(
    run: Run, sessions: sessionmaker[Session], database_url: str
) -> None:
    run(lambda ledger: ledger.open_wallet("alice"))
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager:
        start = manager.Event()
        with context.Pool(2) as pool:
            results = [pool.apply_async(_grant_repeatedly, (database_url, start)) for _ in "ab"]
            start.set()
            wrote = [result.get(timeout=120) for result in results]
    assert sum(wrote) == 25
    assert run(lambda ledger: ledger.wallet_balance("alice")) == 250
    assert_books_balance(sessions)
