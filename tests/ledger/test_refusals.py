"""Refused writes raise precise errors and change nothing."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import (
    InsufficientFundsError,
    InvalidLedgerInputError,
    LedgerService,
    SettlementMismatchError,
    UnknownAccountError,
    grant_key,
)
from tests.ledger.helpers import Run, assert_books_balance, fund, unchanged


def test_wallet_never_goes_negative(run: Run, sessions: sessionmaker[Session]) -> None:
    fund(run, "alice", amount=100)
    run(lambda ledger: ledger.stake("t1", 1, "alice", "a", "main", 60))
    with unchanged(sessions), pytest.raises(InsufficientFundsError) as caught:
        run(lambda ledger: ledger.stake("t1", 1, "alice", "a", "double", 41))
    error = caught.value
    assert (error.player_id, error.account, error.balance, error.amount) == (
        "alice", "wallet:alice", 40, 41,
    )  # fmt: skip
    assert str(error) == (
        "player 'alice' cannot pay 41 from 'wallet:alice': its balance is 40, short by 1"
    )
    # exactly the balance is fine
    run(lambda ledger: ledger.stake("t1", 1, "alice", "a", "double", 40))
    assert run(lambda ledger: ledger.wallet_balance("alice")) == 0


def test_refusal_leaves_the_callers_transaction_usable(
    run: Run, sessions: sessionmaker[Session]
) -> None:
    fund(run, "alice", "bob", amount=100)

    def request(ledger: LedgerService) -> None:
        ledger.stake("t1", 1, "bob", "b", "main", 10)
        with pytest.raises(InsufficientFundsError):
            ledger.stake("t1", 1, "alice", "a", "main", 1_000)
        ledger.stake("t1", 1, "alice", "a", "main", 100)

    run(request)
    assert run(lambda ledger: ledger.wallet_balance("alice")) == 0
    assert run(lambda ledger: ledger.wallet_balance("bob")) == 90
    assert_books_balance(sessions)


def test_refused_key_can_be_used_later(run: Run) -> None:
    """A refused write leaves no trace, so the same bet succeeds once coins arrive."""
    fund(run, "alice", amount=50)
    with pytest.raises(InsufficientFundsError):
        run(lambda ledger: ledger.stake("t1", 1, "alice", "a", "main", 80))
    run(lambda ledger: ledger.grant("alice", 30, grant_key("alice", "bonus")))
    assert not run(lambda ledger: ledger.stake("t1", 1, "alice", "a", "main", 80)).replayed


def test_bulk_stake_is_all_or_nothing(run: Run, sessions: sessionmaker[Session]) -> None:
    fund(run, "alice", "bob", amount=100)
    orders = [("alice", "a", "main", 60), ("bob", "b", "main", 60), ("alice", "a", "side:pair", 50)]
    with (
        unchanged(sessions),
        pytest.raises(InsufficientFundsError, match="player 'alice' cannot pay 110"),
    ):
        run(lambda ledger: ledger.stake_many("t1", 1, orders))


def test_settlement_must_match_the_stakes(run: Run, sessions: sessionmaker[Session]) -> None:
    fund(run, "alice", "bob")
    run(
        lambda ledger: ledger.stake_many(
            "t1", 1, [("alice", "a", "main", 100), ("bob", "b", "main", 50)]
        )
    )
    with unchanged(sessions):
        with pytest.raises(
            SettlementMismatchError, match="player 'bob' staked 50 but is not listed"
        ):
            run(lambda ledger: ledger.settle_round("t1", 1, [("alice", 100, 200)]))
        with pytest.raises(
            SettlementMismatchError, match="player 'alice' staked 100, settlement says 90"
        ):
            run(lambda ledger: ledger.settle_round("t1", 1, [("alice", 90, 0), ("bob", 50, 0)]))
        with pytest.raises(InvalidLedgerInputError, match="listed twice"):
            run(lambda ledger: ledger.settle_round("t1", 1, [("bob", 50, 0), ("bob", 50, 0)]))


@pytest.mark.parametrize("amount", [10.0, True, 0, -5])
def test_bad_amounts_are_refused(run: Run, amount: object) -> None:
    fund(run, "alice")
    with pytest.raises(InvalidLedgerInputError, match="main stake must be"):
        run(lambda ledger: ledger.stake("t1", 1, "alice", "a", "main", amount))  # type: ignore[arg-type]


def test_unknown_accounts(run: Run) -> None:
    with pytest.raises(UnknownAccountError, match="'wallet:nobody' does not exist"):
        run(lambda ledger: ledger.grant("nobody", 10, grant_key("nobody", "signup")))
    with pytest.raises(UnknownAccountError, match="in_play:t9:3"):
        run(lambda ledger: ledger.pay("t9", 3, "nobody", "n", 10))
    with pytest.raises(UnknownAccountError, match="house"):
        run(lambda ledger: ledger.balance("house"))
