"""Balanced transactions: grants, stakes, payouts, settlement, closing, statements."""

from __future__ import annotations

import itertools

import pytest
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import (
    Category,
    LedgerService,
    RoundClosedError,
    StatementPage,
    UnknownAccountError,
    check_books,
)
from tests.ledger.helpers import Run, assert_books_balance, fund, stake_each


def test_grant_comes_from_issuance(run: Run, sessions: sessionmaker[Session]) -> None:
    fund(run, "alice", amount=5_000)
    assert run(lambda ledger: ledger.wallet_balance("alice")) == 5_000
    assert run(lambda ledger: ledger.balance("issuance")) == -5_000
    with sessions() as session:
        report = check_books(session)
    assert report.issued_total == 5_000
    assert report.wallets_total == 5_000


def test_every_transaction_sums_to_zero(run: Run, sessions: sessionmaker[Session]) -> None:
    fund(run, "alice", "bob")

    def play(ledger: LedgerService) -> None:
        bets = [("alice", "main", 100), ("alice", "double", 100),
                ("bob", "main", 50), ("bob", "side:pair", 10)]  # fmt: skip
        stake_each(ledger, "t1", 1, [(p, f"{p}.0", kind, amount) for p, kind, amount in bets])
        ledger.settle_position("t1", 1, "alice", "alice.0", 400)
        ledger.settle_position("t1", 1, "bob", "bob.0", 0)
        ledger.close_round("t1", 1)

    run(play)
    transactions = run(lambda ledger: ledger.round_transactions("t1", 1))
    assert [t.kind for t in transactions] == [
        "main", "double", "main", "side:pair", "settle", "settle", "close",
    ]  # fmt: skip
    for transaction in transactions:
        assert sum(entry.amount for entry in transaction.entries) == 0
    assert run(lambda ledger: ledger.wallet_balance("alice")) == 1_200
    assert run(lambda ledger: ledger.wallet_balance("bob")) == 940
    assert run(lambda ledger: ledger.balance("house")) == -140
    assert run(lambda ledger: ledger.balance("in_play:t1:1:local")) == 0
    assert_books_balance(sessions)


def test_settle_position_zeroes_that_positions_share(run: Run) -> None:
    fund(run, "alice")

    def play(ledger: LedgerService) -> None:
        ledger.stake("t1", 1, "alice", "a", "main", 100)
        ledger.pay("t1", 1, "alice", "a", 150, "payout:blackjack")  # early 3:2 payment
        settled = ledger.settle_position("t1", 1, "alice", "a", 0)
        # in-play was at -50 for this position: the house covers it.
        assert settled.amount_for("in_play:t1:1:local") == 50
        assert settled.amount_for("house") == -50

    run(play)
    assert run(lambda ledger: ledger.balance("in_play:t1:1:local")) == 0
    assert run(lambda ledger: ledger.wallet_balance("alice")) == 1_050


def test_close_round_sends_the_remainder_to_the_house(
    run: Run, sessions: sessionmaker[Session]
) -> None:
    fund(run, "alice")
    run(lambda ledger: ledger.stake("t1", 5, "alice", "a", "main", 300))
    closed = run(lambda ledger: ledger.close_round("t1", 5))
    assert closed.category is Category.CLOSE
    assert closed.amount_for("house") == 300
    info = run(lambda ledger: ledger.round_info("t1", 5))
    assert info is not None
    assert (info.status, info.in_play_balance) == ("closed", 0)
    with pytest.raises(RoundClosedError, match="round 5 of table 't1' is closed"):
        run(lambda ledger: ledger.stake("t1", 5, "alice", "a", "double", 300))
    assert_books_balance(sessions)


def test_close_round_has_the_house_cover_winnings(run: Run) -> None:
    fund(run, "alice")
    run(lambda ledger: ledger.stake("t1", 1, "alice", "a", "main", 100))
    run(lambda ledger: ledger.pay("t1", 1, "alice", "a", 250))
    closed = run(lambda ledger: ledger.close_round("t1", 1))
    assert closed.amount_for("house") == -150
    assert closed.amount_for("in_play:t1:1:local") == 150


def test_stake_without_wallet_is_refused(run: Run) -> None:
    with pytest.raises(UnknownAccountError, match="wallet:ghost"):
        run(lambda ledger: ledger.stake("t1", 1, "ghost", "g", "main", 10))


def test_statement_newest_first_with_running_balance(run: Run) -> None:
    fund(run, "alice", amount=1_000)

    def bet(round_no: int) -> None:
        run(lambda ledger: ledger.stake("t1", round_no, "alice", "a", "main", 10 * round_no))

    def page(before: int | None) -> StatementPage:
        return run(lambda ledger: ledger.statement("alice", limit=3, before_entry_id=before))

    for round_no in range(1, 8):
        bet(round_no)
    first = page(None)
    assert first.balance == 1_000 - 10 * sum(range(1, 8))
    assert [line.round_no for line in first.lines] == [7, 6, 5]
    assert first.lines[0].balance_after == first.balance
    assert first.lines[1].balance_after == first.balance + 70
    pages = [first]
    while pages[-1].next_before is not None:
        pages.append(page(pages[-1].next_before))
    lines = [line for page in pages for line in page.lines]
    assert [line.round_no for line in lines] == [7, 6, 5, 4, 3, 2, 1, None]
    assert lines[-1].category is Category.GRANT
    assert lines[-1].balance_after == 1_000
    for newer, older in itertools.pairwise(lines):
        assert newer.balance_after - newer.amount == older.balance_after


def test_open_rounds_are_listed_for_crash_recovery(run: Run) -> None:
    fund(run, "alice")
    run(lambda ledger: ledger.stake("t1", 1, "alice", "a", "main", 10))
    run(lambda ledger: ledger.stake("t2", 9, "alice", "a", "main", 10))
    run(lambda ledger: ledger.close_round("t1", 1))
    open_rounds = run(lambda ledger: ledger.rounds("open"))
    assert [(r.table_id, r.round_no, r.in_play_balance) for r in open_rounds] == [("t2", 9, 10)]
