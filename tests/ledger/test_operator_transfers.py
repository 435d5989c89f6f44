"""An operator's coins in and out of players' wallets (``take_in`` and ``hand_back``): one
transaction for many players, written from the stage, with the poster's replays and refusals."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import (
    IdempotencyConflictError,
    InsufficientFundsError,
    LedgerService,
    UnknownAccountError,
)
from tests.ledger.helpers import Run, assert_books_balance, unchanged, wallet

PLAYERS = [f"op{index:03d}" for index in range(120)]


def open_all(run: Run) -> None:
    run(lambda ledger: ledger.open_wallets(PLAYERS))


def test_take_in_is_one_transaction_source_leg_first(
    run: Run, sessions: sessionmaker[Session]
) -> None:
    open_all(run)
    amounts = {player: 10 + index for index, player in enumerate(PLAYERS)}
    posted = run(lambda ledger: ledger.take_in("take_in:t1", amounts, "debits of t:1"))
    assert posted is not None and not posted.replayed
    assert posted.kind == "take_in" and posted.category.value == "grant"
    assert posted.entries[0].account == "issuance"
    assert posted.entries[0].amount == -sum(amounts.values())
    assert {entry.account: entry.amount for entry in posted.entries[1:]} == {
        f"wallet:{player}": amount for player, amount in amounts.items()
    }
    assert [wallet(run, player) for player in PLAYERS] == list(amounts.values())
    assert_books_balance(sessions)


def test_the_same_key_replays_and_other_amounts_conflict(
    run: Run, sessions: sessionmaker[Session]
) -> None:
    open_all(run)
    amounts = {player: 5 for player in PLAYERS}
    run(lambda ledger: ledger.take_in("take_in:t2", amounts, "debits"))
    with unchanged(sessions):
        again = run(lambda ledger: ledger.take_in("take_in:t2", amounts, "debits"))
    assert again is not None and again.replayed
    with unchanged(sessions), pytest.raises(IdempotencyConflictError):
        run(lambda ledger: ledger.take_in("take_in:t2", {**amounts, PLAYERS[0]: 6}, "debits"))
    assert wallet(run, PLAYERS[0]) == 5


def test_an_unknown_wallet_is_named_and_nothing_moves(
    run: Run, sessions: sessionmaker[Session]
) -> None:
    open_all(run)
    amounts = {**{player: 5 for player in PLAYERS}, "nobody": 5}
    with unchanged(sessions), pytest.raises(UnknownAccountError, match="wallet:nobody"):
        run(lambda ledger: ledger.take_in("take_in:t3", amounts, "debits"))


def test_hand_back_returns_the_coins_and_refuses_a_short_wallet(
    run: Run, sessions: sessionmaker[Session]
) -> None:
    open_all(run)
    run(lambda ledger: ledger.take_in("take_in:t4", {p: 50 for p in PLAYERS}, "debits"))
    short = {player: 50 for player in PLAYERS} | {PLAYERS[7]: 51}
    with unchanged(sessions), pytest.raises(InsufficientFundsError):
        run(lambda ledger: ledger.hand_back("hand_back:t4", short, "credits"))
    posted = run(
        lambda ledger: ledger.hand_back("hand_back:t4", {p: 50 for p in PLAYERS}, "credits")
    )
    assert posted is not None and posted.entries[-1].account == "issuance"
    assert all(wallet(run, player) == 0 for player in PLAYERS)
    assert_books_balance(sessions)


def test_nothing_to_move_writes_nothing(run: Run, sessions: sessionmaker[Session]) -> None:
    open_all(run)
    with unchanged(sessions):
        assert run(lambda ledger: ledger.take_in("take_in:t5", {PLAYERS[0]: 0}, "none")) is None


def test_the_same_key_twice_in_one_transaction_replays(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        ledger = LedgerService(session)
        ledger.open_wallets(PLAYERS[:3])
        first = ledger.take_in("take_in:t6", {p: 7 for p in PLAYERS[:3]}, "debits")
        second = ledger.take_in("take_in:t6", {p: 7 for p in PLAYERS[:3]}, "debits")
        assert first is not None and second is not None
        assert not first.replayed and second.replayed
        assert ledger.wallet_balance(PLAYERS[0]) == 7
