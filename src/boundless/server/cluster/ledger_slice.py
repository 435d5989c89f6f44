"""The cluster's ledger: each gateway writes its own slice of a round; the coordinator opens,
ends and (after a takeover) cancels rounds. One committed transaction per call; every write is
idempotent by its ledger key, so a retry or a second process doing the same moves nothing twice.

The calls are synchronous (SQLAlchemy sessions); they run between bus events, so a slow
database slows that process's reports, which the coordinator's deadlines bound.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sqlalchemy.orm import Session, sessionmaker

from boundless.core.round.follower import BetsReport, FollowerRound
from boundless.ledger import LedgerService
from boundless.ledger.errors import RoundClosedError
from boundless.ledger.records import PlayerSettlement, StakeOrder
from boundless.server.cluster.bus import JsonBody
from boundless.server.cluster.slices import FollowerSlice

MAIN_KIND = "main"
EXTRA_KIND = "extra"
"""Doubles, splits and insurance of a position, staked in one order when the slice settles."""


class ClusterLedger:
    """One process's door to the ledger: ``owner`` is its name (a gateway's slices, a
    coordinator's rounds), which scopes its recovery."""

    def __init__(self, sessions: sessionmaker[Session], owner: str) -> None:
        self.sessions, self.owner = sessions, owner

    def _service(self, session: Session) -> LedgerService:
        return LedgerService(session, self.owner)

    # the coordinator's
    def open_round(self, table: str, round_no: int) -> None:
        with self.sessions.begin() as session:
            self._service(session).open_round(table, round_no)

    def end_round(self, table: str, round_no: int) -> None:
        with self.sessions.begin() as session:
            self._service(session).end_round(table, round_no)

    def cancel_round(self, table: str, round_no: int) -> None:
        try:
            with self.sessions.begin() as session:
                service = self._service(session)
                info = service.round_info(table, round_no)
                if info is not None and info.status == "open":
                    service.cancel_round(table, round_no)
        except RoundClosedError as error:
            # The gateways saw the cancellation on the stream and cancelled every slice between
            # our check and our write: the round closed itself as cancelled, which is the goal.
            if error.status != "cancelled":
                raise

    def cancel_slice(self, table: str, round_no: int, owner: str) -> None:
        try:
            with self.sessions.begin() as session:
                service = self._service(session)
                if any(
                    (item.table_id, item.round_no) == (table, round_no)
                    for item in service.open_slices(owner)
                ):
                    service.cancel_slice(table, round_no, owner)
        except RoundClosedError as error:
            # The slice's owner (or the round's coordinator) cancelled it first: already done.
            if error.status != "cancelled":
                raise

    # a gateway's
    def grant_once(self, players: Sequence[str], amount: int) -> None:
        with self.sessions.begin() as session:
            service = self._service(session)
            service.open_wallets(list(players))
            service.grant_many([(player, amount, f"grant:{player}") for player in players])

    def balances(self, players: Sequence[str]) -> dict[str, int]:
        with self.sessions.begin() as session:
            return self._service(session).wallet_balances(list(players))

    def stake(self, table: str, round_no: int, orders: Sequence[StakeOrder]) -> None:
        if orders:
            with self.sessions.begin() as session:
                self._service(session).stake_many(table, round_no, list(orders))

    def settle(
        self,
        table: str,
        round_no: int,
        extras: Sequence[StakeOrder],
        lines: Sequence[PlayerSettlement],
    ) -> None:
        with self.sessions.begin() as session:
            service = self._service(session)
            if extras:
                service.stake_many(table, round_no, list(extras))
            service.settle_slice(table, round_no, list(lines))

    def recover(self) -> None:
        """After a restart: cancel what this owner left open (and nothing of anyone else)."""
        with self.sessions.begin() as session:
            self._service(session).recover_owner()


class LedgerSlice(FollowerSlice):
    """A gateway's slice written to the ledger: mains at the bet close, the rest at settlement."""

    def __init__(self, follower: FollowerRound, ledger: ClusterLedger, table: str) -> None:
        super().__init__(follower)
        self.ledger, self.table = ledger, table
        self.round_no = 0
        self._staked = False

    def bets_report(self) -> BetsReport:
        report = super().bets_report()
        follower = self.follower
        mains = follower.main_stakes(np.arange(follower.position_count()))
        orders = [
            StakeOrder(follower.player_of(p), _position(follower, p), MAIN_KIND, int(main))
            for p, main in enumerate(mains.tolist())
            if main
        ]
        self.ledger.stake(self.table, self.round_no, orders)
        self._staked = bool(orders)
        return report

    def settle(self) -> JsonBody:
        summary = super().settle()
        if not self._staked:
            return summary
        follower = self.follower
        staked, owed = follower.staked(), follower.final_payouts()
        mains = follower.main_stakes(np.arange(follower.position_count()))
        extras: list[StakeOrder] = []
        by_player: dict[str, list[int]] = {}
        for position in range(follower.position_count()):
            player = follower.player_of(position)
            extra = int(staked[position]) - int(mains[position])
            if extra:
                extras.append(StakeOrder(player, _position(follower, position), EXTRA_KIND, extra))
            line = by_player.setdefault(player, [0, 0])
            line[0] += int(staked[position])
            line[1] += int(owed[position])
        lines = [PlayerSettlement(p, s, paid) for p, (s, paid) in sorted(by_player.items())]
        self.ledger.settle(self.table, self.round_no, extras, lines)
        return {**summary, "net": sum(paid - s for s, paid in by_player.values())}

    def cancel(self, reason: str) -> None:
        super().cancel(reason)
        if self._staked:
            self.ledger.cancel_slice(self.table, self.round_no, self.ledger.owner)


def _position(follower: FollowerRound, position: int) -> str:
    return f"{follower.player_of(position)}@{follower.spot_of(position)}"
