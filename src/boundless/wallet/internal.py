"""The ``internal`` wallet: coins Boundless grants and holds itself, in its own ledger.

Every call is the ledger write the server made before the port existed: a debit stakes
wallet -> the round's in-play (its owner's slice), a credit pays in-play -> wallet, a
cancellation reverses the round (or the owner's slice) once.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.orm import Session

from boundless.ledger import InsufficientFundsError, LedgerService, PostedTransaction
from boundless.ledger.accounts import DEFAULT_OWNER
from boundless.ledger.errors import RoundClosedError
from boundless.ledger.records import PlayerSettlement, StakeOrder
from boundless.wallet.port import BetDebit

WALLET_PREFIX = "wallet:"


class InternalWallet:
    """The :class:`~boundless.wallet.port.Wallet` on our own ledger (``slice_owner`` as there)."""

    checks_every_extra = False

    def __init__(self, session: Session, slice_owner: str | None = None) -> None:
        self.slice_owner = slice_owner
        self.ledger = LedgerService(session, slice_owner or DEFAULT_OWNER)

    def balances(self, player_ids: Sequence[str]) -> dict[str, int]:
        return self.ledger.wallet_balances(player_ids)

    def spendable(self, player_ids: Sequence[str]) -> dict[str, int]:
        return self.ledger.wallet_balances(player_ids)

    def debit_bets(
        self, table_id: str, round_no: int, bets: Sequence[BetDebit]
    ) -> list[Exception | None]:
        """The whole batch in one set-based write; if a wallet moved meanwhile (one bet is
        short), bet by bet, refusing only those short."""
        answers: list[Exception | None] = [None] * len(bets)
        if not bets:
            return answers
        try:
            self._stake(table_id, round_no, [o for bet in bets for o in bet.orders])
            return answers
        except InsufficientFundsError:
            pass
        for index, bet in enumerate(bets):
            try:
                self._stake(table_id, round_no, list(bet.orders))
            except InsufficientFundsError as error:
                answers[index] = error
        return answers

    def _stake(self, table_id: str, round_no: int, orders: list[StakeOrder]) -> None:
        self.ledger.stake_many(table_id, round_no, orders)

    def debit(self, table_id: str, round_no: int, orders: Sequence[StakeOrder]) -> None:
        if orders:
            self.ledger.stake_many(table_id, round_no, list(orders))

    def credit_early(
        self, table_id: str, round_no: int, step: int, credits: dict[str, int]
    ) -> None:
        for player_id, amount in sorted(credits.items()):
            self.ledger.pay(
                table_id, round_no, player_id, f"{player_id}@early", amount, f"payout:early{step}"
            )

    def settle(
        self,
        table_id: str,
        round_no: int,
        owed: Sequence[PlayerSettlement],
        early: dict[str, int],
    ) -> None:
        if any(line.staked for line in owed):
            self.ledger.settle_slice(table_id, round_no, list(owed))

    def cancel(self, table_id: str, round_no: int) -> dict[str, int]:
        if self.slice_owner is not None:
            return self._cancel_slice(table_id, round_no)
        info = self.ledger.round_info(table_id, round_no)
        if info is None or info.status == "closed":
            return {}
        return wallet_amounts(self.ledger.cancel_round(table_id, round_no))

    def _cancel_slice(self, table_id: str, round_no: int) -> dict[str, int]:
        owner = self.ledger.owner
        mine = [item for item in self.ledger.slices_of(table_id, round_no) if item.owner == owner]
        if not mine or mine[0].status != "open":
            return {}
        try:
            return wallet_amounts(self.ledger.cancel_slice(table_id, round_no))
        except RoundClosedError as error:
            # The coordinator (a dropped gateway's slice, a takeover's whole round) got there
            # between our look and our write: reversed already, which is the point.
            if error.status != "cancelled":
                raise
            return {}


class InternalWallets:
    """The ``internal`` :class:`~boundless.wallet.port.WalletProvider` (the default)."""

    name = "internal"

    def __call__(self, session: Session, slice_owner: str | None = None) -> InternalWallet:
        return InternalWallet(session, slice_owner)


INTERNAL = InternalWallets()


def wallet_amounts(transaction: PostedTransaction) -> dict[str, int]:
    """What a transaction moved into each player's wallet."""
    amounts: dict[str, int] = {}
    for entry in transaction.entries:
        if entry.account.startswith(WALLET_PREFIX):
            player = entry.account[len(WALLET_PREFIX) :]
            amounts[player] = amounts.get(player, 0) + entry.amount
    return amounts
