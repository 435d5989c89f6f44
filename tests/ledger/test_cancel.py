"""A cancelled round reverses every movement of the round, exactly once."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import (
    Category,
    InsufficientFundsError,
    LedgerService,
    RoundClosedError,
    grant_key,
)
from tests.ledger.helpers import Run, assert_books_balance, fund, stake_each, unchanged, wallet


def test_cancel_returns_every_stake(run: Run, sessions: sessionmaker[Session]) -> None:
    fund(run, "alice", "bob")

    def play(ledger: LedgerService) -> None:
        alice = [("main", 100), ("insurance", 50), ("split", 100), ("double:2", 100)]
        stake_each(ledger, "t1", 3, [("alice", "a", kind, amount) for kind, amount in alice])
        stake_each(ledger, "t1", 3, [("bob", "b", "main", 20), ("bob", "b", "side:bust_bonus", 5)])
        ledger.pay("t1", 3, "bob", "b", 10, "refund:surrender")

    run(play)
    cancelled = run(lambda ledger: ledger.cancel_round("t1", 3))
    assert cancelled.category is Category.CANCEL
    assert cancelled.amount_for("wallet:alice") == 350
    assert cancelled.amount_for("wallet:bob") == 15
    assert cancelled.amount_for("in_play:t1:3:local") == -365
    assert run(lambda ledger: ledger.wallet_balance("alice")) == 1_000
    assert run(lambda ledger: ledger.wallet_balance("bob")) == 1_000
    info = run(lambda ledger: ledger.round_info("t1", 3))
    assert info is not None
    assert (info.status, info.in_play_balance) == ("cancelled", 0)
    assert_books_balance(sessions)


def test_cancel_is_exactly_once(run: Run, sessions: sessionmaker[Session]) -> None:
    fund(run, "alice")
    run(lambda ledger: ledger.stake("t1", 1, "alice", "a", "main", 100))
    first = run(lambda ledger: ledger.cancel_round("t1", 1))
    with unchanged(sessions):
        second = run(lambda ledger: ledger.cancel_round("t1", 1))
    assert second.replayed and second.id == first.id
    with pytest.raises(RoundClosedError, match="cannot stake: round 1 of table 't1' is cancelled"):
        run(lambda ledger: ledger.stake("t1", 1, "alice", "a", "double", 100))


def test_cancel_reverses_payouts_already_made(run: Run, sessions: sessionmaker[Session]) -> None:
    fund(run, "alice")
    run(lambda ledger: ledger.stake("t1", 1, "alice", "a", "main", 100))
    run(lambda ledger: ledger.pay("t1", 1, "alice", "a", 250, "payout:blackjack"))
    cancelled = run(lambda ledger: ledger.cancel_round("t1", 1))
    assert cancelled.amount_for("wallet:alice") == -150
    assert run(lambda ledger: ledger.wallet_balance("alice")) == 1_000
    assert_books_balance(sessions)


def test_cancel_refused_when_a_payout_was_spent(run: Run, sessions: sessionmaker[Session]) -> None:
    fund(run, "alice", amount=100)
    run(lambda ledger: ledger.stake("t1", 1, "alice", "a", "main", 100))
    run(lambda ledger: ledger.pay("t1", 1, "alice", "a", 300))
    run(lambda ledger: ledger.stake("t2", 1, "alice", "a", "main", 250))
    with (
        unchanged(sessions),
        pytest.raises(InsufficientFundsError, match="player 'alice' cannot pay 200"),
    ):
        run(lambda ledger: ledger.cancel_round("t1", 1))


def test_settled_round_cannot_be_cancelled(run: Run) -> None:
    fund(run, "alice")
    run(lambda ledger: ledger.stake("t1", 1, "alice", "a", "main", 100))
    run(lambda ledger: ledger.settle_round("t1", 1, [("alice", 100, 200)]))
    with pytest.raises(RoundClosedError, match="cannot cancel: round 1 of table 't1' is closed"):
        run(lambda ledger: ledger.cancel_round("t1", 1))


def test_cancel_of_a_round_without_bets(run: Run, sessions: sessionmaker[Session]) -> None:
    cancelled = run(lambda ledger: ledger.cancel_round("t1", 77))
    assert cancelled.entries == ()
    info = run(lambda ledger: ledger.round_info("t1", 77))
    assert info is not None and info.status == "cancelled"
    assert_books_balance(sessions)


def test_crash_recovery_cancels_every_open_round_once(
    run: Run, sessions: sessionmaker[Session]
) -> None:
    players = [f"p{i}" for i in range(20)]
    run(lambda ledger: ledger.open_wallets(players))
    run(lambda ledger: ledger.grant_many([(p, 500, grant_key(p, "signup")) for p in players]))
    orders = [(p, f"{p}.0", "main", 10 + i) for i, p in enumerate(players)]

    def bet_at(table: str) -> None:
        run(lambda ledger: ledger.stake_many(table, 4, orders))

    bet_at("t1")
    bet_at("t2")

    def recover(ledger: LedgerService) -> int:
        rounds = ledger.rounds("open")
        for info in rounds:
            ledger.cancel_round(info.table_id, info.round_no)
        return len(rounds)

    assert run(recover) == 2
    assert run(recover) == 0
    assert all(wallet(run, player) == 500 for player in players)
    assert_books_balance(sessions)
