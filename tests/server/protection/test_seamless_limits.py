"""The limits sit in front of the operator's wallet as in front of ours: a loss limit counts the
rounds played on the operator's wallet, and a bet past it is refused with ``limit_reached``
before the operator is called (it is never debited, and no call is recorded), on SQLite and
PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger.records import PlayerSettlement, StakeOrder
from boundless.server.protection.limited_wallet import LimitedWallets
from boundless.wallet import BetDebit, WalletRefusal
from boundless.wallet.calls import CallBook
from tests.server.live import wait_until
from tests.server.protection.conftest import new_player
from tests.server.protection.test_limits import set_limits
from tests.wallet.bench import operator_wallet, seamless

START = 10_000


def _bet(player: str, amount: int, bet_id: str) -> BetDebit:
    return BetDebit(player, bet_id, (StakeOrder(player, f"{player}@1", "main", amount),))


def test_a_loss_limit_refuses_a_bet_before_the_operator_is_debited(
    sessions: sessionmaker[Session],
) -> None:
    player = new_player(sessions, grant=0)  # an operator's player: no coins of ours
    set_limits(sessions, player, loss_day=1000)
    with operator_wallet(START) as operator:
        provider = seamless(operator)
        provider.start(sessions)
        limited = LimitedWallets(provider)
        try:
            with sessions.begin() as session:  # a lost round of 800 on the operator's wallet
                wallet = limited(session)
                assert wallet.debit_bets("lim-1", 1, [_bet(player, 800, "b1")]) == [None]
            with sessions.begin() as session:
                limited(session).settle("lim-1", 1, [PlayerSettlement(player, 800, 0)], {})
            wait_until(lambda: provider.pending_count() == 0, 30, "the loss's credit of 0")
            assert operator.store.balances[player] == START - 800
            seen = set(operator.store.transactions)

            with sessions.begin() as session:  # 800 lost + 201 would pass the day's 1000
                (refused,) = limited(session).debit_bets("lim-1", 2, [_bet(player, 201, "b2")])
            assert isinstance(refused, WalletRefusal) and refused.code == "limit_reached"
            assert "day loss limit of 1000 (800 lost)" in refused.detail
            assert operator.store.balances[player] == START - 800
            assert set(operator.store.transactions) == seen  # the operator never saw it
            with sessions.begin() as session:
                calls = CallBook(session).between(
                    datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC)
                )
            assert not [call for call in calls if call.round_id == "lim-1:2"]

            with sessions.begin() as session:  # exactly at the limit: taken
                (taken,) = limited(session).debit_bets("lim-1", 2, [_bet(player, 200, "b3")])
            assert taken is None and operator.store.balances[player] == START - 1000
        finally:
            provider.close()
