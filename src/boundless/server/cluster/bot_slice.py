"""A gateway's bots: their wallets read ahead of the round, off the event loop, and their bets
placed at the bet close from that read.

Reading 250,000 wallets takes seconds; read at the round's opening on the event loop (as it was),
it stalled the gateway past the betting window and the whole table's bet close waited for it.
Here the read runs in a worker thread while nothing of this gateway debits its bots' wallets:
when the gateway starts and again as soon as each of its bot slices is done (settled or
refunded). Only this gateway debits them (a bot's name carries the gateway's, which one process
holds at a time) and only at its bet close and its settlement, so a read made between two of its
rounds is exact or too low (a refund someone else writes meanwhile only adds): a bot seated from
it never bets coins it lacks, and the stakes' batch is never refused for a short wallet.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from boundless.core.round.follower import BetsReport, FollowerRound
from boundless.server.cluster.bus import JsonBody
from boundless.server.cluster.ledger_slice import ClusterLedger, LedgerSlice

BOT_STAKE = 100


class BotWallets:
    """The bots' wallets as last read; :meth:`read_ahead` starts the next read in a thread."""

    def __init__(self, ledger: ClusterLedger, players: Sequence[str]) -> None:
        self.ledger, self.players = ledger, list(players)
        self._reading: asyncio.Future[dict[str, int]] | None = None
        self.reads = 0
        """Reads started (tests: one per round, none on the bet close's path once read ahead)."""

    @property
    def reading_ahead(self) -> bool:
        """Whether a read was started that the next bet close will take."""
        return self._reading is not None

    def read_ahead(self) -> None:
        """Start reading the wallets unless a read is under way (call only while no stake or
        settlement of these bots is being written)."""
        if self._reading is None and self.players:
            self.reads += 1
            self._reading = asyncio.ensure_future(
                asyncio.to_thread(self.ledger.balances, self.players)
            )

    async def take(self) -> dict[str, int]:
        """The wallets read ahead (read now if no read was started); the next bet close reads
        again."""
        self.read_ahead()
        reading, self._reading = self._reading, None
        return {} if reading is None else await reading


class BotSlice(LedgerSlice):
    """The bots' part of a gateway's slice: each bot whose wallet holds a stake bets it once,
    at the bet close."""

    def __init__(
        self, follower: FollowerRound, ledger: ClusterLedger, table: str, wallets: BotWallets
    ) -> None:
        super().__init__(follower, ledger, table)
        self.wallets = wallets

    async def bets_report(self) -> BetsReport:
        balances = await self.wallets.take()
        seated = [player for player in self.wallets.players if balances.get(player, 0) >= BOT_STAKE]
        if seated:
            self.follower.place_bets(
                seated,
                [1] * len(seated),
                [BOT_STAKE] * len(seated),
                None,
                [balances[player] for player in seated],
            )
        return await super().bets_report()

    async def settle(self) -> JsonBody:
        summary = await super().settle()
        self.wallets.read_ahead()  # the round's debits are written: the next round's read
        return summary

    async def cancel(self, reason: str) -> None:
        try:
            await super().cancel(reason)
        finally:
            self.wallets.read_ahead()
