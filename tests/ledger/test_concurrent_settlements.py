"""The slices of one round settle at once on PostgreSQL (each gateway's house leg goes to its own
house sub-account, the round is only ``write``-locked): one settlement commits while another is
still open, and two finishing together end the round exactly once."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import LedgerService, RoundClosedError, grant_key
from boundless.ledger.accounts import AccountKind, account_kind, house_account
from boundless.ledger.slice_repository import SliceRepository
from tests.ledger.helpers import assert_books_balance

OWNERS = ("gateway:a", "gateway:b")
PER_OWNER = 50


def players_of(owner: str) -> list[str]:
    return [f"{owner[-1]}{i:03d}" for i in range(PER_OWNER)]


def lines_of(owner: str) -> list[tuple[str, int, int]]:
    """(player, staked, paid): wins, losses and one blackjack."""
    players = players_of(owner)
    return [(p, 10, 25 if i == 0 else (20 if i % 2 else 0)) for i, p in enumerate(players)]


def house_result(owner: str) -> int:
    return sum(staked - paid for _, staked, paid in lines_of(owner))


def staked_round(sessions: sessionmaker[Session]) -> None:
    everyone = [p for owner in OWNERS for p in players_of(owner)]
    with sessions.begin() as session:
        ledger = LedgerService(session)
        ledger.open_wallets(everyone)
        ledger.grant_many([(p, 1_000, grant_key(p, "signup")) for p in everyone])
    for owner in OWNERS:
        with sessions.begin() as session:
            LedgerService(session, owner).stake_many(
                "t1", 1, [(p, f"{p}.0", "main", 10) for p in players_of(owner)]
            )


def settle(sessions: sessionmaker[Session], owner: str, lock_timeout: str | None = None) -> bool:
    with sessions.begin() as session:
        if lock_timeout is not None:  # a wait on the other settlement fails instead of hanging
            session.execute(text(f"SET LOCAL lock_timeout = '{lock_timeout}'"))
        return LedgerService(session, owner).settle_slice("t1", 1, lines_of(owner)).replayed


def assert_settled_once(sessions: sessionmaker[Session]) -> None:
    with sessions() as session:
        ledger = LedgerService(session)
        info = ledger.round_info("t1", 1)
        assert info is not None and (info.status, info.in_play_balance) == ("closed", 0)
        assert [s.status for s in ledger.slices_of("t1", 1)] == ["settled", "settled"]
        for owner in OWNERS:
            assert ledger.balance(house_account(owner)) == house_result(owner)
    books = assert_books_balance(sessions)
    # Both sub-accounts, read as the house's result.
    assert books.house_balance == sum(map(house_result, OWNERS))


def _postgres_only(backend: str) -> None:
    if backend != "postgresql":
        pytest.skip("concurrent writers are PostgreSQL's; SQLite has one writer at a time")


def _gated(monkeypatch: pytest.MonkeyPatch, before: Callable[[], None]) -> list[str | None]:
    """Each settlement calls ``before`` on reaching its round-end lock (its payments written,
    not committed); returns the list of what each ``end_round_if_done`` answered."""
    lock_round_end = SliceRepository.lock_round_end
    end_round_if_done = SliceRepository.end_round_if_done
    ended: list[str | None] = []

    def gated_lock(self: SliceRepository, round_id: int) -> None:
        before()
        lock_round_end(self, round_id)

    def recorded_end(self: SliceRepository, round_id: int) -> str | None:
        status = end_round_if_done(self, round_id)
        ended.append(status)
        return status

    monkeypatch.setattr(SliceRepository, "lock_round_end", gated_lock)
    monkeypatch.setattr(SliceRepository, "end_round_if_done", recorded_end)
    return ended


def test_house_sub_accounts_are_house_accounts() -> None:
    assert house_account("gateway:g1") == "house:gateway:g1"
    assert account_kind("house:gateway:g1") is AccountKind.HOUSE


def test_a_slice_settles_and_commits_while_another_settlement_is_open(
    backend: str, sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gateway a's settlement has locked its slice and written its payments (its house leg
    included) and waits, uncommitted; gateway b's settlement runs whole and commits meanwhile
    (with the round's end lock or one house row, it would wait for a and time out). Then a
    finishes and ends the round."""
    _postgres_only(backend)
    staked_round(sessions)
    a_waits, b_done = threading.Event(), threading.Event()

    def before() -> None:
        if threading.current_thread().name == "a":
            a_waits.set()
            assert b_done.wait(120), "b never committed"

    ended = _gated(monkeypatch, before)
    results: dict[str, bool] = {}
    errors: list[BaseException] = []

    def a() -> None:
        try:
            results["a"] = settle(sessions, OWNERS[0])
        except BaseException as error:  # reported by the test below
            errors.append(error)

    thread = threading.Thread(target=a, name="a")
    thread.start()
    try:
        assert a_waits.wait(120)
        results["b"] = settle(sessions, OWNERS[1], lock_timeout="20s")
    finally:
        b_done.set()
        thread.join()
    assert not errors, errors
    assert results == {"a": False, "b": False}
    assert ended == [None, "closed"]  # b saw a's slice open; a, last, ended the round
    assert_settled_once(sessions)


def test_two_settlements_finishing_at_once_end_the_round_once(
    backend: str, sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both settlements reach the round-end lock with their payments written and uncommitted:
    neither may miss ending the round (each sees the other's slice open until it commits) and
    it must not end twice."""
    _postgres_only(backend)
    staked_round(sessions)
    barrier = threading.Barrier(len(OWNERS))
    ended = _gated(monkeypatch, lambda: barrier.wait(120))
    with ThreadPoolExecutor(len(OWNERS)) as pool:
        replayed = list(pool.map(lambda owner: settle(sessions, owner), OWNERS))
    assert replayed == [False, False]
    assert sorted(map(str, ended)) == ["None", "closed"]  # one of them ended it
    assert_settled_once(sessions)
    with sessions.begin() as session:  # a retry of either replays
        assert LedgerService(session, OWNERS[0]).settle_slice("t1", 1, lines_of(OWNERS[0])).replayed


def test_a_twin_settlement_racing_both_slices_replays(
    backend: str, sessions: sessionmaker[Session]
) -> None:
    """Gateway a's settlement sent twice at once (a retry while the first is in flight) beside
    gateway b's: a's slice is settled once, the twin answers as a replay, and the round ends once
    (the twin waits on a's slice holding the round's write lock, which the round's end never
    waits for)."""
    _postgres_only(backend)
    staked_round(sessions)
    barrier = threading.Barrier(3)

    def settler(owner: str) -> bool:
        barrier.wait(120)
        return settle(sessions, owner)

    with ThreadPoolExecutor(3) as pool:
        replayed = list(pool.map(settler, [OWNERS[0], OWNERS[0], OWNERS[1]]))
    assert sorted(replayed[:2]) == [False, True] and replayed[2] is False
    assert_settled_once(sessions)


def test_a_round_cancelled_while_its_slices_settle_never_deadlocks(
    backend: str, sessions: sessionmaker[Session]
) -> None:
    """The coordinator cancels the round while both gateways settle: the cancellation takes the
    round's end lock, so it runs before both settlements or after them (the cancel then voids
    nothing settled); each slice ends exactly once and the books balance."""
    _postgres_only(backend)
    staked_round(sessions)
    barrier = threading.Barrier(3)

    def settler(owner: str) -> str:
        barrier.wait(120)
        try:
            settle(sessions, owner)
            return "settled"
        except RoundClosedError:
            return "refused"

    def cancel() -> str:
        barrier.wait(120)
        try:
            with sessions.begin() as session:
                LedgerService(session, "coordinator:t1").cancel_round("t1", 1)
            return "cancelled"
        except RoundClosedError:
            return "refused"

    with ThreadPoolExecutor(3) as pool:
        futures = [pool.submit(settler, OWNERS[0]), pool.submit(settler, OWNERS[1])]
        futures.append(pool.submit(cancel))
        outcomes = [f.result() for f in futures]
    with sessions() as session:
        ledger = LedgerService(session)
        info = ledger.round_info("t1", 1)
        statuses = [s.status for s in ledger.slices_of("t1", 1)]
    assert info is not None and info.in_play_balance == 0
    expected = ["settled" if o == "settled" else "cancelled" for o in outcomes[:2]]
    assert statuses == expected
    assert info.status == ("closed" if "settled" in statuses else "cancelled")
    assert_books_balance(sessions)
