"""A cancelled round reverses every movement of the round, exactly once."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import (
    Category,
    LedgerService,
    RoundClosedError,
    grant_key,
)
from tests.ledger.helpers import (
    Run,
    assert_books_balance,
    fund,
    report,
    stake_each,
    unchanged,
    wallet,
)


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


def _spend_an_early_payment(run: Run) -> None:
    """Alice stakes her 100 at t1, is paid 300 early there, and stakes 250 of it at t2."""
    fund(run, "alice", amount=100)
    run(lambda ledger: ledger.stake("t1", 1, "alice", "a", "main", 100))
    run(lambda ledger: ledger.pay("t1", 1, "alice", "a", 300))
    run(lambda ledger: ledger.stake("t2", 1, "alice", "a", "main", 250))


@pytest.mark.parametrize("how", ["round", "slice"])
def test_a_void_takes_back_a_spent_payment_as_far_as_the_wallet_allows(
    run: Run, sessions: sessionmaker[Session], how: str
) -> None:
    """Ruling 38: the operator's cancel (round) and recovery (slice) never fail on a balance:
    the wallet gives back what it holds, the rest is booked to the player's receivable."""
    _spend_an_early_payment(run)
    if how == "round":
        cancelled = run(lambda ledger: ledger.cancel_round("t1", 1))
    else:
        cancelled = run(lambda ledger: ledger.cancel_slice("t1", 1))
    assert cancelled.amount_for("wallet:alice") == -50
    assert cancelled.amount_for("receivable:alice") == -150
    assert cancelled.amount_for("in_play:t1:1:local") == 200
    assert wallet(run, "alice") == 0
    info = run(lambda ledger: ledger.round_info("t1", 1))
    assert info is not None and info.status == "cancelled"
    books = assert_books_balance(sessions)
    assert (books.receivable_players, books.receivable_total) == (1, 150)
    assert "receivable: 150 owed by 1 player(s)" in books.summary()
    # The stake at t2 is untouched and still settles.
    run(lambda ledger: ledger.settle_round("t2", 1, [("alice", 250, 500)]))
    assert wallet(run, "alice") == 500
    assert_books_balance(sessions)


def test_a_void_with_enough_in_the_wallet_books_no_receivable(
    run: Run, sessions: sessionmaker[Session]
) -> None:
    fund(run, "alice", amount=1_000)
    run(lambda ledger: ledger.stake("t1", 1, "alice", "a", "main", 100))
    run(lambda ledger: ledger.pay("t1", 1, "alice", "a", 300))
    cancelled = run(lambda ledger: ledger.cancel_round("t1", 1))
    assert [entry.account for entry in cancelled.entries if "receivable" in entry.account] == []
    assert wallet(run, "alice") == 1_000
    assert assert_books_balance(sessions).receivable_total == 0


def test_the_check_refuses_a_receivable_not_booked_by_a_void(
    run: Run, sessions: sessionmaker[Session]
) -> None:
    """Only a void may book what a player owes: a receivable moved by anything else, or above
    zero, is a problem the check names."""
    _spend_an_early_payment(run)
    run(lambda ledger: ledger.cancel_slice("t1", 1))
    with sessions.begin() as session:
        session.execute(
            text("UPDATE ledger_transactions SET category = 'payout' WHERE category = 'cancel'")
        )
    problems = [str(problem) for problem in report(sessions).problems]
    assert any(
        "[receivable_wrong] receivable account 'receivable:alice' is moved by" in p
        for p in problems
    ), problems


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
