"""A shared round with 10,000 players: bulk stakes and one bulk settlement."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import Category, grant_key
from tests.ledger.helpers import Run, assert_books_balance, report, wallet

PLAYERS = 10_000


def outcome(index: int) -> tuple[int, int]:
    """(staked, paid) for player ``index``: losses, pushes, wins, blackjacks."""
    staked = 10 * (1 + index % 7)
    paid = (0, staked, 2 * staked, staked + staked * 3 // 2)[index % 4]
    return staked, paid


def test_settle_ten_thousand_players(run: Run, sessions: sessionmaker[Session]) -> None:
    players = [f"p{i:05d}" for i in range(PLAYERS)]
    run(lambda ledger: ledger.open_wallets(players))
    run(lambda ledger: ledger.grant_many([(p, 1_000, grant_key(p, "signup")) for p in players]))
    orders = [(p, f"{p}.0", "main", outcome(i)[0]) for i, p in enumerate(players)]
    stakes = run(lambda ledger: ledger.stake_many("shared", 1, orders))
    assert len(stakes) == PLAYERS and not any(t.replayed for t in stakes)
    total_staked = sum(outcome(i)[0] for i in range(PLAYERS))
    assert run(lambda ledger: ledger.balance("in_play:shared:1:local")) == total_staked

    lines = [(p, *outcome(i)) for i, p in enumerate(players)]
    settled = run(lambda ledger: ledger.settle_round("shared", 1, lines))
    total_paid = sum(outcome(i)[1] for i in range(PLAYERS))
    assert settled.category is Category.SETTLE
    assert sum(entry.amount for entry in settled.entries) == 0
    assert settled.amount_for("house:local") == total_staked - total_paid
    assert settled.amount_for("in_play:shared:1:local") == -total_staked

    info = run(lambda ledger: ledger.round_info("shared", 1))

    assert info is not None
    assert (info.status, info.in_play_balance) == ("closed", 0)
    for index in (0, 1, 2, 3, 4_321, PLAYERS - 1):
        staked, paid = outcome(index)
        assert wallet(run, players[index]) == 1_000 - staked + paid

    replay = run(lambda ledger: ledger.settle_round("shared", 1, lines))
    assert replay.replayed and replay.id == settled.id
    books = assert_books_balance(sessions)
    assert books.issued_total == 1_000 * PLAYERS
    assert books.house_balance == total_staked - total_paid


@pytest.mark.parametrize("players", [1, 3])
def test_settle_round_with_earlier_payments(
    run: Run, sessions: sessionmaker[Session], players: int
) -> None:
    names = [f"p{i}" for i in range(players)]
    run(lambda ledger: ledger.open_wallets(names))
    run(lambda ledger: ledger.grant_many([(p, 100, grant_key(p, "signup")) for p in names]))
    run(lambda ledger: ledger.stake_many("t", 2, [(p, p, "main", 40) for p in names]))
    run(lambda ledger: ledger.pay("t", 2, names[0], names[0], 100, "payout:blackjack"))
    lines = [(p, 40, 0 if p == names[0] else 80) for p in names]
    run(lambda ledger: ledger.settle_round("t", 2, lines))
    assert run(lambda ledger: ledger.wallet_balance(names[0])) == 160
    assert report(sessions).in_play_total == 0
    assert_books_balance(sessions)
