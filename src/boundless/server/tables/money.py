"""Money bookkeeping of a table's players: wallets as last seen, what each round has credited
early, whose coins the round may overstate, the ledger orders for doubles and splits, and each
player's staked and paid figures.

This is a gateway's job (it keeps the books of its own players); nothing here touches the
database: the table writes what these figures say through :class:`TableService`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from boundless.core.round import Action, RoundState
from boundless.core.round.state import FINAL_STAGES, ExtraStakes
from boundless.ledger.records import PlayerSettlement, StakeOrder
from boundless.server.tables.service import BetRequest, position_key

"""Payment stages paid with the settlement; the others are paid during the round (early)."""
EXTRA_KINDS = {int(Action.DOUBLE): "double", int(Action.SPLIT): "split"}


@dataclass(slots=True)
class TableMoney:
    balances: dict[str, int] = field(default_factory=dict)
    """Each player's wallet as this table last saw it (shown in ``you`` and ``settled``)."""
    balance_before: dict[str, int] = field(default_factory=dict)
    """This round: each player's wallet before their first bet."""
    credited: dict[str, int] = field(default_factory=dict)
    """This round: coins paid early that the ledger has already credited to the wallet."""

    def new_round(self) -> None:
        self.balance_before = {}
        self.credited = {}

    def bets_staked(self, accepted: Iterable[tuple[BetRequest, int]]) -> None:
        """Bets the ledger took, each with the player's wallet before it."""
        for request, balance in accepted:
            self.balance_before.setdefault(request.player_id, balance)
            self.balances[request.player_id] = balance - request.total

    def credit(self, credits: dict[str, int]) -> None:
        for player_id, amount in credits.items():
            self.credited[player_id] = self.credited.get(player_id, 0) + amount

    def uncredited(self, round_: RoundState) -> dict[str, int]:
        """Coins the round paid before settlement that the ledger has not credited yet."""
        early_stages = {payment.stage for payment in round_.payments} - FINAL_STAGES
        paid = round_.paid_by_player(early_stages)
        owed = {}
        for index in np.flatnonzero(paid).tolist():
            player_id = round_.player_ids[index]
            amount = int(paid[index]) - self.credited.get(player_id, 0)
            if amount > 0:
                owed[player_id] = amount
        return owed

    @staticmethod
    def coins_in_doubt(
        round_: RoundState, movers: np.ndarray, seated_elsewhere: Callable[[str], bool]
    ) -> list[str]:
        """Players with a pending double or split whose coins the round may overstate: those
        short by the round's count, and those betting at another table too."""
        if not len(movers):
            return []
        short = [round_.free_coins(p) < round_.main_stake(p) for p in movers.tolist()]
        ids = round_.players_of(movers)
        return sorted(
            {
                player_id
                for player_id, is_short in zip(ids, short, strict=True)
                if is_short or seated_elsewhere(player_id)
            }
        )

    @staticmethod
    def extra_orders(round_: RoundState, stakes: ExtraStakes) -> list[StakeOrder]:
        """Ledger stakes for the doubles and splits one step executed."""
        return [
            StakeOrder(
                player_id,
                position_key(player_id, stakes.spot),
                f"{EXTRA_KINDS[action]}:{stakes.step}",
                amount,
            )
            for player_id, action, amount in zip(
                round_.players_of(stakes.positions),
                stakes.actions.tolist(),
                stakes.amounts.tolist(),
                strict=True,
            )
        ]

    @staticmethod
    def round_lines(round_: RoundState) -> list[PlayerSettlement]:
        """Each player's staked and paid as the round counts them (for a settlement)."""
        staked = round_.staked_by_player()
        paid = round_.paid_by_player()
        return [
            PlayerSettlement(player_id, int(staked[index]), int(paid[index]))
            for index, player_id in enumerate(round_.player_ids)
        ]
