"""Idempotent writes: the same key twice moves coins once; the same key for other content fails."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import IdempotencyConflictError, LedgerService, grant_key
from boundless.ledger.repository import LedgerRepository
from tests.ledger.helpers import Run, assert_books_balance, fund, unchanged


def test_grant_twice_moves_once(run: Run) -> None:
    run(lambda ledger: ledger.open_wallet("alice"))
    first = run(lambda ledger: ledger.grant("alice", 500, grant_key("alice", "signup")))
    again = run(lambda ledger: ledger.grant("alice", 500, grant_key("alice", "signup")))
    assert (first.replayed, again.replayed) == (False, True)
    assert again.id == first.id
    assert again.entries == first.entries
    assert run(lambda ledger: ledger.wallet_balance("alice")) == 500


def test_stake_retried_in_same_and_later_transaction(run: Run) -> None:
    fund(run, "alice")

    def twice(ledger: LedgerService) -> None:
        ledger.stake("t1", 1, "alice", "a", "main", 100)
        assert ledger.stake("t1", 1, "alice", "a", "main", 100).replayed

    run(twice)
    assert run(lambda ledger: ledger.stake("t1", 1, "alice", "a", "main", 100)).replayed
    assert run(lambda ledger: ledger.wallet_balance("alice")) == 900


def test_replay_after_round_closed_still_answers(run: Run) -> None:
    fund(run, "alice")
    original = run(lambda ledger: ledger.stake("t1", 1, "alice", "a", "main", 100))
    run(lambda ledger: ledger.close_round("t1", 1))
    replay = run(lambda ledger: ledger.stake("t1", 1, "alice", "a", "main", 100))
    assert replay.replayed and replay.id == original.id
    assert run(lambda ledger: ledger.close_round("t1", 1)).replayed


@pytest.mark.parametrize(
    ("amount", "player"), [(200, "alice"), (100, "bob")], ids=["other-amount", "other-player"]
)
def test_same_key_different_content_is_refused(
    run: Run, sessions: sessionmaker[Session], amount: int, player: str
) -> None:
    fund(run, "alice", "bob")
    run(lambda ledger: ledger.stake("t1", 1, "alice", "a", "main", 100))
    with unchanged(sessions), pytest.raises(IdempotencyConflictError) as caught:
        run(lambda ledger: ledger.stake("t1", 1, player, "a", "main", amount))
    message = str(caught.value)
    assert "'t1:1:a:main'" in message
    assert "main stake of 100 by player 'alice'" in message
    assert f"main stake of {amount} by player '{player}'" in message


def test_grant_same_key_other_amount_is_refused(run: Run) -> None:
    fund(run, "alice", amount=100)
    with pytest.raises(IdempotencyConflictError, match="grant of 100 to player 'alice'"):
        run(lambda ledger: ledger.grant("alice", 101, grant_key("alice", "signup")))


def test_lost_race_on_the_unique_key_replays(
    run: Run, monkeypatch: pytest.MonkeyPatch, sessions: sessionmaker[Session]
) -> None:
    """The path a concurrent writer takes: the first lookup misses, the insert hits the unique
    key, the savepoint rolls back and the original is returned."""
    fund(run, "alice")
    original = run(lambda ledger: ledger.stake("t1", 1, "alice", "a", "main", 100))
    real_find = LedgerRepository.find_transaction
    calls = {"n": 0}

    def blind_first(self: LedgerRepository, key: str) -> object:
        calls["n"] += 1
        return None if calls["n"] == 1 else real_find(self, key)

    monkeypatch.setattr(LedgerRepository, "find_transaction", blind_first)

    def retry(ledger: LedgerService) -> None:
        replay = ledger.stake("t1", 1, "alice", "a", "main", 100)
        assert replay.replayed and replay.id == original.id
        # the caller's transaction is still usable after the rolled-back savepoint
        ledger.stake("t1", 1, "alice", "a", "double", 100)

    run(retry)
    monkeypatch.undo()
    assert run(lambda ledger: ledger.wallet_balance("alice")) == 800
    assert_books_balance(sessions)


def test_bulk_stakes_replay_individually(run: Run) -> None:
    fund(run, "alice", "bob")
    single = run(lambda ledger: ledger.stake("t1", 1, "alice", "a", "main", 100))
    batch = run(
        lambda ledger: ledger.stake_many(
            "t1", 1, [("alice", "a", "main", 100), ("bob", "b", "main", 70)]
        )
    )
    assert [t.replayed for t in batch] == [True, False]
    assert batch[0].id == single.id
    again = run(lambda ledger: ledger.stake_many("t1", 1, [("bob", "b", "main", 70)]))
    assert again[0].replayed and again[0].id == batch[1].id
    assert run(lambda ledger: ledger.wallet_balance("alice")) == 900
    assert run(lambda ledger: ledger.wallet_balance("bob")) == 930
    with pytest.raises(IdempotencyConflictError):
        run(lambda ledger: ledger.stake_many("t1", 1, [("bob", "b", "main", 71)]))


def test_grant_many_is_idempotent(run: Run) -> None:
    players = [f"p{i}" for i in range(50)]
    run(lambda ledger: ledger.open_wallets(players))
    grants = [(player, 100, grant_key(player, "signup")) for player in players]
    first = run(lambda ledger: ledger.grant_many(grants))
    second = run(lambda ledger: ledger.grant_many(grants))
    assert not any(t.replayed for t in first)
    assert all(t.replayed for t in second)
    assert run(lambda ledger: ledger.balance("issuance")) == -5_000
