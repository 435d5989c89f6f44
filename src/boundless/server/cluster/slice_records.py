"""Refunds and play records of players' slices that ended without the gateway that held them.

A gateway that stops mid-round cannot refund or record its players. Whoever cancels such a
slice in the ledger writes its players' play record lines in the same transaction, marked
*untold* (the player's next gateway sends them ``settled`` once): the coordinator when it drops
a gateway from a round, a new coordinator when it cancels the round its predecessor left in
flight (for the slices no live gateway cancelled itself), and a gateway restarting under the same
name for the slices its recovery cancels. The ledger cancels a slice once (its key), and only the
transaction that cancels it writes its lines, so each line is written exactly once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import ROUND_SCOPE, LedgerService, round_key, slice_key
from boundless.ledger.errors import RoundClosedError
from boundless.ledger.outage import write_until_done
from boundless.server.cluster.bus import ReportKind
from boundless.server.cluster.protocol import PLAYERS_SUFFIX, slice_owners
from boundless.server.cluster.reports import ReportBox
from boundless.server.tables.service import TableService
from boundless.wallet import wallet_amounts

RESTARTED_REASON = (
    "the gateway holding your bets restarted during this round; every stake was returned"
)
T = TypeVar("T")


class SliceRecords:
    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions

    async def cancel_dropped(self, table: str, round_no: int, gateway: str, reason: str) -> None:
        """A gateway dropped from a round: cancel both its slices and record its players, in one
        transaction (tried again while the database is away)."""
        owners = slice_owners(gateway)
        await self._off_the_loop(
            lambda session: self._cancel_slices(session, table, round_no, owners, reason),
            f"cancelling the slices of {gateway} in {table} round {round_no}",
        )

    async def cancel_in_flight(
        self, box: ReportBox, table: str, round_no: int, reason: str, seconds: float
    ) -> list[str]:
        """A new coordinator cancelled round ``round_no`` on the stream: wait up to ``seconds``
        for every gateway holding an open slice to cancel and record its own (its ``cancelled``
        report), then cancel the rest of the round with its players' lines in one transaction.
        Returns the owners whose slices this cancelled (their gateways are gone)."""
        holding = {_gateway_of(owner) for owner in self._open_owners(table, round_no)}
        await box.wait(round_no, ReportKind.CANCELLED, 0, expected=holding, seconds=seconds)
        return await self._off_the_loop(
            lambda session: self._cancel_rest(session, table, round_no, reason),
            f"cancelling {table} round {round_no}",
        )

    async def _off_the_loop(self, work: Callable[[Session], T], what: str) -> T:
        """``work`` in one transaction, tried again while the database is away; each try runs
        in a worker thread (``write_until_done``): a large round's play record takes a while,
        and the coordinator's lease must renew."""
        return await write_until_done(self.sessions, work, what=what)

    def _open_owners(self, table: str, round_no: int) -> list[str]:
        with self.sessions.begin() as session:
            found = LedgerService(session).slices_of(table, round_no)
        return [item.owner for item in found if item.status == "open"]

    def _cancel_rest(self, session: Session, table: str, round_no: int, reason: str) -> list[str]:
        ledger = LedgerService(session)
        info = ledger.round_info(table, round_no)
        if info is None or info.status != "open":
            return []
        owners = [item.owner for item in ledger.slices_of(table, round_no) if item.status == "open"]
        try:
            ledger.cancel_round(table, round_no)
        except RoundClosedError as error:
            # Every gateway cancelled its own slice meanwhile: the round closed itself.
            if error.status != "cancelled":
                raise
            return []
        for owner in owners:
            if owner.endswith(f":{PLAYERS_SUFFIX}"):
                TableService(session, owner).record_reversed(table, round_no, reason, untold=True)
        return owners

    def _cancel_slices(
        self, session: Session, table: str, round_no: int, owners: Sequence[str], reason: str
    ) -> list[str]:
        """Cancel those of ``owners``' slices that are open; record the players' ones."""
        cancelled = []
        for owner in owners:
            service = TableService(session, owner)
            if not _is_open(service.ledger, table, round_no, owner):
                continue
            try:
                service.ledger.cancel_slice(table, round_no)
            except RoundClosedError as error:
                # The round's other writer cancelled it first: it wrote the lines too.
                if error.status != "cancelled":
                    raise
                continue
            cancelled.append(owner)
            if owner.endswith(f":{PLAYERS_SUFFIX}"):
                service.record_reversed(table, round_no, reason, untold=True)
        return cancelled

    def has_bets(self, table: str, round_no: int) -> bool:
        """Whether the round holds any stake (a slice in the ledger)."""
        with self.sessions.begin() as session:
            return bool(LedgerService(session).slices_of(table, round_no))

    def refunds(self, table: str, round_no: int) -> dict[str, int]:
        """What the round's cancellations (each slice's, the round's) put back into each
        wallet, less what the round had paid early: each player's refund."""
        moved: dict[str, int] = {}
        with self.sessions.begin() as session:
            ledger = LedgerService(session)
            keys = [slice_key(table, round_no, item.owner, "cancel")
                    for item in ledger.slices_of(table, round_no)]  # fmt: skip
            keys.append(round_key(table, round_no, ROUND_SCOPE, "cancel"))
            for key in keys:
                reversal = ledger.transaction(key)
                if reversal is not None:
                    for player, amount in wallet_amounts(reversal).items():
                        moved[player] = moved.get(player, 0) + amount
        return moved

    def recover(self, owner: str) -> list[str]:
        """After a restart: cancel and record every slice ``owner`` left open (nobody else's);
        the round ids."""
        with self.sessions.begin() as session:
            service = TableService(session, owner)
            found = service.ledger.open_slices(owner)
            for item in found:
                service.ledger.cancel_slice(item.table_id, item.round_no)
                service.record_reversed(item.table_id, item.round_no, RESTARTED_REASON, untold=True)
        return [f"{item.table_id}:{item.round_no}" for item in found]


def _is_open(ledger: LedgerService, table: str, round_no: int, owner: str) -> bool:
    return any(
        item.owner == owner and item.status == "open" for item in ledger.slices_of(table, round_no)
    )


def _gateway_of(owner: str) -> str:
    return owner.removesuffix(f":{PLAYERS_SUFFIX}")
