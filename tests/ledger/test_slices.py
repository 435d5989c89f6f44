"""Slices: each owner's (gateway's) part of a round, settled or cancelled on its own; the round
closes when none is open. Retries replay; a closed slice refuses new writes."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

import pytest
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import (
    IdempotencyConflictError,
    LedgerService,
    RoundClosedError,
    SliceClosedError,
    SlicesStillOpenError,
    grant_key,
)
from tests.ledger.helpers import assert_books_balance, snapshot, unchanged

T = TypeVar("T")
A, B = "gateway:a", "gateway:b"
PLAYERS_A = [f"a{i}" for i in range(30)]
PLAYERS_B = [f"b{i}" for i in range(20)]


class AsOwner:
    """``as_owner(sessions, owner)(lambda ledger: ...)``: one committed transaction as ``owner``."""

    def __init__(self, sessions: sessionmaker[Session], owner: str) -> None:
        self.sessions = sessions
        self.owner = owner

    def __call__(self, work: Callable[[LedgerService], T]) -> T:
        with self.sessions.begin() as session:
            return work(LedgerService(session, self.owner))


as_owner = AsOwner


def funded(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        ledger = LedgerService(session)
        ledger.open_wallets(PLAYERS_A + PLAYERS_B)
        ledger.grant_many([(p, 1_000, grant_key(p, "signup")) for p in PLAYERS_A + PLAYERS_B])


def orders(players: list[str]) -> list[tuple[str, str, str, int]]:
    return [(p, f"{p}.0", "main", 10 + i) for i, p in enumerate(players)]


def lines(players: list[str], factor: int) -> list[tuple[str, int, int]]:
    return [(p, 10 + i, (10 + i) * factor) for i, p in enumerate(players)]


def both_staked(sessions: sessionmaker[Session]) -> None:
    funded(sessions)
    as_owner(sessions, "coordinator:t1")(lambda ledger: ledger.open_round("t1", 1))
    as_owner(sessions, A)(lambda ledger: ledger.stake_many("t1", 1, orders(PLAYERS_A)))
    as_owner(sessions, B)(lambda ledger: ledger.stake_many("t1", 1, orders(PLAYERS_B)))


def wallets(sessions: sessionmaker[Session]) -> dict[str, int]:
    with sessions() as session:
        return LedgerService(session).wallet_balances(PLAYERS_A + PLAYERS_B)


def status(sessions: sessionmaker[Session]) -> tuple[str, dict[str, str]]:
    with sessions() as session:
        ledger = LedgerService(session)
        info = ledger.round_info("t1", 1)
        assert info is not None
        return info.status, {s.owner: s.status for s in ledger.slices_of("t1", 1)}


def test_each_owner_stakes_into_its_own_in_play_account(sessions: sessionmaker[Session]) -> None:
    both_staked(sessions)
    with sessions() as session:
        ledger = LedgerService(session)
        held_a = sum(10 + i for i in range(len(PLAYERS_A)))
        held_b = sum(10 + i for i in range(len(PLAYERS_B)))
        assert ledger.balance("in_play:t1:1:gateway:a") == held_a
        assert ledger.balance("in_play:t1:1:gateway:b") == held_b
        assert ledger.balance("in_play:t1:1") == 0
        info = ledger.round_info("t1", 1)
        assert info is not None and info.in_play_balance == held_a + held_b
        assert info.owner == "coordinator:t1"
        assert [s.in_play_balance for s in ledger.open_slices(A)] == [held_a]
    assert_books_balance(sessions)


def test_round_closes_when_the_last_slice_settles(sessions: sessionmaker[Session]) -> None:
    both_staked(sessions)
    as_owner(sessions, A)(lambda ledger: ledger.settle_slice("t1", 1, lines(PLAYERS_A, 2)))
    assert status(sessions) == ("open", {A: "settled", B: "open"})
    as_owner(sessions, B)(lambda ledger: ledger.settle_slice("t1", 1, lines(PLAYERS_B, 0)))
    assert status(sessions) == ("closed", {A: "settled", B: "settled"})
    after = wallets(sessions)
    assert all(after[p] == 1_000 + 10 + i for i, p in enumerate(PLAYERS_A))
    assert all(after[p] == 1_000 - 10 - i for i, p in enumerate(PLAYERS_B))
    books = assert_books_balance(sessions)
    assert books.slices == {"settled": 2} and books.rounds == {"closed": 1}


def test_a_cancelled_slice_refunds_its_players_only(sessions: sessionmaker[Session]) -> None:
    both_staked(sessions)
    cancelled = as_owner(sessions, "coordinator:t1")(lambda ledger: ledger.cancel_slice("t1", 1, B))
    assert cancelled.key == "t1:1:*gateway:b:cancel"
    assert status(sessions) == ("open", {A: "open", B: "cancelled"})
    as_owner(sessions, A)(lambda ledger: ledger.settle_slice("t1", 1, lines(PLAYERS_A, 1)))
    assert status(sessions) == ("closed", {A: "settled", B: "cancelled"})
    assert all(balance == 1_000 for balance in wallets(sessions).values())
    assert_books_balance(sessions)


def test_every_slice_cancelled_cancels_the_round(sessions: sessionmaker[Session]) -> None:
    both_staked(sessions)
    as_owner(sessions, A)(lambda ledger: ledger.cancel_slice("t1", 1))
    as_owner(sessions, A)(lambda ledger: ledger.cancel_slice("t1", 1, B))
    assert status(sessions) == ("cancelled", {A: "cancelled", B: "cancelled"})
    assert_books_balance(sessions)


def test_retries_of_slice_writes_move_nothing(sessions: sessionmaker[Session]) -> None:
    both_staked(sessions)
    with unchanged(sessions):
        again = as_owner(sessions, A)(lambda ledger: ledger.stake_many("t1", 1, orders(PLAYERS_A)))
    assert all(t.replayed for t in again)
    settle = as_owner(sessions, A)
    first = settle(lambda ledger: ledger.settle_slice("t1", 1, lines(PLAYERS_A, 2)))
    with sessions() as session:
        after_settle = snapshot(session)
    retried = settle(lambda ledger: ledger.settle_slice("t1", 1, lines(PLAYERS_A, 2)))
    assert retried.replayed and retried.id == first.id
    # a late retry of a stake into the settled slice is still answered, as a replay
    late = settle(lambda ledger: ledger.stake_many("t1", 1, orders(PLAYERS_A)[:3]))
    assert all(t.replayed for t in late)
    cancel = as_owner(sessions, B)
    first_cancel = cancel(lambda ledger: ledger.cancel_slice("t1", 1))
    second_cancel = cancel(lambda ledger: ledger.cancel_slice("t1", 1))
    assert second_cancel.replayed and second_cancel.id == first_cancel.id
    with sessions() as session:
        final = snapshot(session)
    assert final[0] == after_settle[0] + 1  # the one cancellation, nothing else
    assert_books_balance(sessions)


def test_the_same_bet_key_from_another_owner_is_a_conflict(
    sessions: sessionmaker[Session],
) -> None:
    both_staked(sessions)
    with pytest.raises(IdempotencyConflictError, match=re.escape("t1:1:a0.0:main")):
        as_owner(sessions, B)(lambda ledger: ledger.stake_many("t1", 1, orders(PLAYERS_A)[:1]))


def test_an_ended_slice_refuses_new_writes(sessions: sessionmaker[Session]) -> None:
    both_staked(sessions)
    as_owner(sessions, "coordinator:t1")(lambda ledger: ledger.cancel_slice("t1", 1, B))
    with sessions() as session:
        before = snapshot(session)
    message = "cannot stake: the slice of 'gateway:b' in round 1 of table 't1' is cancelled"
    with pytest.raises(SliceClosedError, match=message) as refused:
        as_owner(sessions, B)(lambda ledger: ledger.stake("t1", 1, "b0", "b0.0", "double", 10))
    assert refused.value.code == "round_closed"
    with pytest.raises(SliceClosedError, match="is cancelled"):
        as_owner(sessions, B)(lambda ledger: ledger.settle_slice("t1", 1, lines(PLAYERS_B, 1)))
    as_owner(sessions, A)(lambda ledger: ledger.settle_slice("t1", 1, lines(PLAYERS_A, 1)))
    with pytest.raises(RoundClosedError, match="round 1 of table 't1' is closed"):
        as_owner(sessions, A)(lambda ledger: ledger.cancel_slice("t1", 1))
    with pytest.raises(RoundClosedError, match="is closed"):
        as_owner(sessions, "coordinator:t1")(lambda ledger: ledger.cancel_round("t1", 1))
    with sessions() as session:
        assert snapshot(session)[0] == before[0] + 1  # only A's settlement was written


def test_cancel_round_cancels_the_open_slices_and_keeps_the_settled(
    sessions: sessionmaker[Session],
) -> None:
    both_staked(sessions)
    as_owner(sessions, A)(lambda ledger: ledger.settle_slice("t1", 1, lines(PLAYERS_A, 2)))
    cancelled = as_owner(sessions, "coordinator:t1")(lambda ledger: ledger.cancel_round("t1", 1))
    assert cancelled.owner is None
    assert status(sessions) == ("closed", {A: "settled", B: "cancelled"})
    after = wallets(sessions)
    assert all(after[p] == 1_000 + 10 + i for i, p in enumerate(PLAYERS_A))
    assert all(after[p] == 1_000 for p in PLAYERS_B)
    assert_books_balance(sessions)


def test_end_round_needs_every_slice_ended(sessions: sessionmaker[Session]) -> None:
    both_staked(sessions)
    coordinator = as_owner(sessions, "coordinator:t1")
    with pytest.raises(
        SlicesStillOpenError, match="still has open slices: 'gateway:a', 'gateway:b'"
    ):
        coordinator(lambda ledger: ledger.end_round("t1", 1))
    coordinator(lambda ledger: ledger.open_round("t1", 2))
    ended = coordinator(lambda ledger: ledger.end_round("t1", 2))  # nobody bet
    assert ended.status == "closed"
    again = coordinator(lambda ledger: ledger.end_round("t1", 2))
    assert again.status == "closed"
    assert_books_balance(sessions)


def test_recovery_of_one_owner_leaves_the_other_slice_alone(
    sessions: sessionmaker[Session],
) -> None:
    both_staked(sessions)
    funded_b_before = wallets(sessions)
    recovered = as_owner(sessions, A)(lambda ledger: ledger.recover_owner())
    assert [t.key for t in recovered] == ["t1:1:*gateway:a:cancel"]
    assert as_owner(sessions, A)(lambda ledger: ledger.recover_owner()) == []
    assert status(sessions) == ("open", {A: "cancelled", B: "open"})
    after = wallets(sessions)
    assert all(after[p] == 1_000 for p in PLAYERS_A)
    assert all(after[p] == funded_b_before[p] for p in PLAYERS_B)
    as_owner(sessions, B)(lambda ledger: ledger.settle_slice("t1", 1, lines(PLAYERS_B, 2)))
    assert status(sessions) == ("closed", {A: "cancelled", B: "settled"})
    assert_books_balance(sessions)


def test_coordinator_recovery_cancels_only_the_rounds_it_opened(
    sessions: sessionmaker[Session],
) -> None:
    both_staked(sessions)
    as_owner(sessions, "coordinator:t2")(lambda ledger: ledger.open_round("t2", 1))
    as_owner(sessions, A)(lambda ledger: ledger.stake("t2", 1, "a0", "a0.0", "main", 5))
    recovered = as_owner(sessions, "coordinator:t1")(lambda ledger: ledger.recover_owner())
    assert [t.key for t in recovered] == ["t1:1:*:cancel"]
    assert status(sessions) == ("cancelled", {A: "cancelled", B: "cancelled"})
    with sessions() as session:
        ledger = LedgerService(session)
        t2 = ledger.round_info("t2", 1)
        assert t2 is not None and t2.status == "open" and t2.in_play_balance == 5
    assert_books_balance(sessions)


def test_open_round_claims_a_round_a_stake_created(sessions: sessionmaker[Session]) -> None:
    funded(sessions)
    as_owner(sessions, A)(lambda ledger: ledger.stake("t1", 1, "a0", "a0.0", "main", 5))
    with sessions() as session:
        info = LedgerService(session).round_info("t1", 1)
        assert info is not None and info.owner is None
    claimed = as_owner(sessions, "coordinator:t1")(lambda ledger: ledger.open_round("t1", 1))
    assert claimed.owner == "coordinator:t1"
    assert as_owner(sessions, A)(lambda ledger: ledger.recover_owner())  # its slice only
    assert status(sessions)[0] == "cancelled"  # its only slice cancelled: the round ends


def test_single_process_keeps_the_round_api(sessions: sessionmaker[Session]) -> None:
    """``boundless serve`` is one owner (``local``) with one slice per round."""
    funded(sessions)
    with sessions.begin() as session:
        ledger = LedgerService(session)
        ledger.stake_many("t1", 1, orders(PLAYERS_A))
        settled = ledger.settle_round("t1", 1, lines(PLAYERS_A, 1))
        assert settled.key == "t1:1:*local:settle" and settled.owner == "local"
        info = ledger.round_info("t1", 1)
        assert info is not None and info.status == "closed"
    assert_books_balance(sessions)
