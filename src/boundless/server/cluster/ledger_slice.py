"""The cluster's ledger: each gateway writes its own slice of a round; the coordinator opens,
ends and (after a takeover) cancels rounds. One committed transaction per call; every write is
idempotent by its ledger key, so a retry or a second process doing the same moves nothing twice.

Each call is one SQLAlchemy session in a worker thread (the stakes at the bet close, the
settlement, a slice's cancellation and the coordinator's calls), so the process's event loop
serves its sockets, its timers and its lease meanwhile; a slow database slows that process's
reports, which the coordinator's deadlines bound.

While the database is away (:mod:`boundless.ledger.outage`): the coordinator's calls and a
gateway's settlement are tried again under the same keys, the event loop running on between
tries (a coordinator keeps renewing its lease); a gateway's stakes at the bet close are not: its
bots' bets are refused for that round (nothing was staked) and the error makes the gateway sit the
round out (``gateway.py``: every part of its slice refunded, no spot reported). A cancellation
that cannot be written goes on being tried in the background.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np
from sqlalchemy.orm import Session, sessionmaker

from boundless.core.round.follower import BetsReport, FollowerRound
from boundless.ledger import LedgerService
from boundless.ledger.errors import LedgerUnavailableError, RoundClosedError
from boundless.ledger.outage import is_transient, one_line, write_until_done
from boundless.ledger.records import PlayerSettlement, StakeOrder
from boundless.server.cluster.bus import JsonBody
from boundless.server.cluster.slices import FollowerSlice

MAIN_KIND = "main"
EXTRA_KIND = "extra"
"""Doubles, splits and insurance of a position, staked in one order when the slice settles."""
T = TypeVar("T")
log = logging.getLogger("boundless.cluster.ledger")


class ClusterLedger:
    """One process's door to the ledger: ``owner`` is its name (a gateway's slices, a
    coordinator's rounds), which scopes its recovery."""

    def __init__(self, sessions: sessionmaker[Session], owner: str) -> None:
        self.sessions, self.owner = sessions, owner
        self._last_balances: dict[str, int] = {}
        self._background: set[asyncio.Task[None]] = set()

    def _service(self, session: Session) -> LedgerService:
        return LedgerService(session, self.owner)

    async def _until_done(self, what: str, work: Callable[[LedgerService], T]) -> T:
        """``work`` in a transaction of its own, tried again while the database is away."""
        return await write_until_done(
            self.sessions, lambda session: work(self._service(session)), what=what
        )

    # the coordinator's (each tried again while the database is away)
    async def open_round(self, table: str, round_no: int) -> None:
        await self._until_done(
            f"{self.owner}: opening {table} round {round_no}",
            lambda service: service.open_round(table, round_no),
        )

    async def end_round(self, table: str, round_no: int) -> None:
        await self._until_done(
            f"{self.owner}: ending {table} round {round_no}",
            lambda service: service.end_round(table, round_no),
        )

    async def cancel_round(self, table: str, round_no: int) -> None:
        def cancel(service: LedgerService) -> None:
            info = service.round_info(table, round_no)
            if info is not None and info.status == "open":
                service.cancel_round(table, round_no)

        try:
            await self._until_done(f"{self.owner}: cancelling {table} round {round_no}", cancel)
        except RoundClosedError as error:
            # The gateways saw the cancellation on the stream and cancelled every slice between
            # our check and our write: the round closed itself as cancelled, which is the goal.
            if error.status != "cancelled":
                raise

    async def cancel_slice(self, table: str, round_no: int, owner: str) -> None:
        await self._until_done(
            f"{self.owner}: cancelling the slice of {owner} in {table} round {round_no}",
            lambda service: _cancel_open_slice(service, table, round_no, owner),
        )

    # a gateway's
    def grant_once(self, players: Sequence[str], amount: int) -> None:
        with self.sessions.begin() as session:
            service = self._service(session)
            service.open_wallets(list(players))
            service.grant_many([(player, amount, f"grant:{player}") for player in players])

    def balances(self, players: Sequence[str]) -> dict[str, int]:
        """The players' wallets; while the database is away, the wallets as last read (a
        player never read counts 0): bets on them are refused at the bet close anyway."""
        try:
            with self.sessions.begin() as session:
                found = self._service(session).wallet_balances(list(players))
        except Exception as error:
            if not is_transient(error):
                raise
            log.warning("%s: wallets as last read, the ledger is away: %s", self.owner, error)
            return {player: self._last_balances.get(player, 0) for player in players}
        self._last_balances.update(found)
        return found

    def stake(
        self, table: str, round_no: int, orders: Sequence[StakeOrder | tuple[str, str, str, int]]
    ) -> None:
        if orders:
            with self.sessions.begin() as session:
                self._service(session).stake_many(table, round_no, list(orders))

    async def settle(
        self,
        table: str,
        round_no: int,
        extras: Sequence[StakeOrder],
        lines: Sequence[PlayerSettlement],
    ) -> None:
        def settle(service: LedgerService) -> None:
            if extras:
                service.stake_many(table, round_no, list(extras))
            service.settle_slice(table, round_no, list(lines))

        await self._until_done(f"{self.owner}: settlement of {table} round {round_no}", settle)

    async def cancel_own_slice(self, table: str, round_no: int) -> None:
        """Cancel this owner's slice now, in a worker thread; while the database is away, in
        the background until it is back (or the owner's next start's recovery cancels it)."""

        def cancel() -> None:
            with self.sessions.begin() as session:
                _cancel_open_slice(self._service(session), table, round_no, self.owner)

        try:
            await asyncio.to_thread(cancel)
        except Exception as error:
            if not is_transient(error):
                raise
            log.warning(
                "%s: cancelling %s round %s in the background: %s",
                self.owner,
                table,
                round_no,
                one_line(error),
            )
            task = asyncio.get_running_loop().create_task(
                self.cancel_slice(table, round_no, self.owner)
            )
            self._background.add(task)
            task.add_done_callback(self._cancelled_in_background)

    def _cancelled_in_background(self, task: asyncio.Task[None]) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error(
                "%s: a slice cancellation was not written (%s); this owner's next start cancels it",
                self.owner,
                task.exception(),
            )

    def recover(self) -> None:
        """After a restart: cancel what this owner left open (and nothing of anyone else)."""
        with self.sessions.begin() as session:
            self._service(session).recover_owner()


def _cancel_open_slice(service: LedgerService, table: str, round_no: int, owner: str) -> None:
    try:
        if any(
            (item.table_id, item.round_no) == (table, round_no)
            for item in service.open_slices(owner)
        ):
            service.cancel_slice(table, round_no, owner)
    except RoundClosedError as error:
        # The slice's owner (or the round's coordinator) cancelled it first: already done.
        if error.status != "cancelled":
            raise


class LedgerSlice(FollowerSlice):
    """A gateway's slice written to the ledger: mains at the bet close, the rest at settlement."""

    def __init__(self, follower: FollowerRound, ledger: ClusterLedger, table: str) -> None:
        super().__init__(follower)
        self.ledger, self.table = ledger, table
        self.round_no = 0
        self._staked = False

    async def bets_report(self) -> BetsReport:
        report = await super().bets_report()
        orders = stake_orders(self.follower)
        try:
            # Off the loop: the gateway's players' sockets are served while its bots stake.
            await asyncio.to_thread(self.ledger.stake, self.table, self.round_no, orders)
        except Exception as error:
            if not is_transient(error):
                raise
            # Nothing was staked (one transaction), unless the connection dropped during the
            # commit: the slice is cancelled in the ledger too, which finds nothing to cancel
            # in the first case. The gateway sits the round out (gateway.py).
            reason = f"the bets were refused, the ledger is away ({one_line(error)})"
            log.warning("%s: round %s: %s", self.ledger.owner, self.round_no, reason)
            self._staked = bool(orders)
            await self.cancel(reason)
            raise LedgerUnavailableError(reason) from error
        self._staked = bool(orders)
        return report

    async def follow_only(self) -> None:
        # Its bots' bets stay off the ledger (before, they were staked here and their slice
        # left open: the gateway's first round after a start held their coins).
        await FollowerSlice.cancel(self, "joined after the bet close: nothing staked")

    async def settle(self) -> JsonBody:
        summary = await super().settle()
        if not self._staked:
            return summary
        # Off the loop: a slice's lines are one object per player (the settled follower is not
        # touched by anything else meanwhile).
        extras, lines = await asyncio.to_thread(settlement_of, self.follower)
        await self.ledger.settle(self.table, self.round_no, extras, lines)
        return {**summary, "net": sum(line.paid - line.staked for line in lines)}

    async def cancel(self, reason: str) -> None:
        staked, self._staked = self._staked, False  # refunded once, however often cancelled
        await super().cancel(reason)
        if staked:
            await self.ledger.cancel_own_slice(self.table, self.round_no)


def stake_orders(follower: FollowerRound) -> list[tuple[str, str, str, int]]:
    """Each position's main bet as a stake order ``(player, position, kind, amount)``: plain
    tuples made from the book's columns (a StakeOrder and two lookups per bet were most of the
    gateway's own time at the bet close)."""
    book = follower.book
    ids = book.player_ids
    held = np.flatnonzero(book.main)
    players = book.player[held].tolist()
    spots = book.spot[held].tolist()
    return [
        (ids[player], f"{ids[player]}@{spot}", MAIN_KIND, main)
        for player, spot, main in zip(players, spots, book.main[held].tolist(), strict=True)
    ]


def settlement_of(
    follower: FollowerRound,
) -> tuple[list[StakeOrder], list[PlayerSettlement]]:
    """A settled follower's extra stakes (doubles, splits, insurance: what each position put in
    beyond its main bet) and one settlement line per player (all staked, all paid), sorted by
    player; summed per player by numpy, not position by position."""
    book = follower.book
    ids = book.player_ids
    staked = np.asarray(follower.staked(), dtype=np.int64)
    owed = np.asarray(follower.final_payouts(), dtype=np.int64)
    extra = staked - book.main
    added = np.flatnonzero(extra)
    extras = [
        StakeOrder(ids[player], f"{ids[player]}@{spot}", EXTRA_KIND, amount)
        for player, spot, amount in zip(
            book.player[added].tolist(),
            book.spot[added].tolist(),
            extra[added].tolist(),
            strict=True,
        )
    ]
    count = len(ids)
    staked_by = np.zeros(count, dtype=np.int64)
    paid_by = np.zeros(count, dtype=np.int64)
    np.add.at(staked_by, book.player, staked)
    np.add.at(paid_by, book.player, owed)
    betting = np.zeros(count, dtype=np.bool_)
    betting[book.player] = True  # every player with a position (each once)
    order = sorted(np.flatnonzero(betting).tolist(), key=ids.__getitem__)
    lines = [
        PlayerSettlement(ids[index], staked_amount, paid)
        for index, staked_amount, paid in zip(
            order, staked_by[order].tolist(), paid_by[order].tolist(), strict=True
        )
    ]
    return extras, lines
