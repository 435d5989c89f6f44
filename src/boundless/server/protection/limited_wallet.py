"""``LimitedWallet(inner)``: the wallet port with the player's limits in front of it.

A bet passes the limits, then the wallet: whatever wallet the server runs on (our own ledger or
an operator's), every debit comes here first. A stake that could take its player past a loss or
wager limit, or one after the session-time limit, is refused with ``limit_reached`` before the
inner wallet sees it (nothing moves); :meth:`LimitedWallet.spendable` is lowered to what the
limits leave, so a double or split beyond them falls back as for missing coins. The players are
locked (PostgreSQL advisory locks; SQLite's write lock) from the check to the commit, so two
gateways staking for one player at once count each other's stakes.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.orm import Session

from boundless.ledger.records import StakeOrder
from boundless.server.protection import clock
from boundless.server.protection.stakes import StakeLimits
from boundless.wallet import BetDebit, Wallet, WalletProvider, WalletWrapper


class LimitedWallet(WalletWrapper):
    """Every player with a pending double or split is asked about (a limit may stop them):
    ``checks_every_extra`` is the wrapper's True. Credits and cancellations pass through."""

    def __init__(self, inner: Wallet, session: Session) -> None:
        super().__init__(inner)
        self.limits = StakeLimits(session)

    def spendable(self, player_ids: Sequence[str]) -> dict[str, int]:
        coins = self.inner.spendable(player_ids)
        now = clock.utc_now()
        for player_id, amounts in self.limits.limited(list(player_ids), now).items():
            room = self.limits.headroom(player_id, amounts, now)
            if room is not None and player_id in coins:
                coins[player_id] = min(coins[player_id], room)
        return coins

    def debit_bets(
        self, table_id: str, round_no: int, bets: Sequence[BetDebit]
    ) -> list[Exception | None]:
        totals: dict[str, int] = {}
        for bet in bets:
            totals[bet.player_id] = totals.get(bet.player_id, 0) + bet.total
        refused = self.limits.check(totals)
        answers: list[Exception | None] = [refused.get(bet.player_id) for bet in bets]
        passing = [bet for bet, answer in zip(bets, answers, strict=True) if answer is None]
        inner = iter(self.inner.debit_bets(table_id, round_no, passing) if passing else [])
        return [answer if answer is not None else next(inner) for answer in answers]

    def debit(self, table_id: str, round_no: int, orders: Sequence[StakeOrder]) -> None:
        totals: dict[str, int] = {}
        for order in orders:
            totals[order.player_id] = totals.get(order.player_id, 0) + order.amount
        refused = self.limits.check(totals)
        if refused:
            raise refused[min(refused)]
        self.inner.debit(table_id, round_no, orders)


class LimitedWallets:
    """The provider: each transaction's inner wallet, wrapped."""

    def __init__(self, inner: WalletProvider) -> None:
        self.inner = inner
        self.name = f"limited({inner.name})"

    def __call__(self, session: Session, slice_owner: str | None = None) -> LimitedWallet:
        return LimitedWallet(self.inner(session, slice_owner), session)
