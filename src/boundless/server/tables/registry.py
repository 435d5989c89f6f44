"""The lobby: every open table and its runner task; shared tables at start, private on demand."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sqlalchemy.orm import Session, sessionmaker

from boundless.core.errors import InvalidRuleSetError
from boundless.core.random_source import RandomSource
from boundless.core.round import SharedRound
from boundless.entropy import CryptoSource
from boundless.server.config import ServerConfig
from boundless.server.errors import (
    BadMessageError,
    NotFoundError,
    PrivateTableLimitError,
    SharedTitleError,
)
from boundless.server.gateway.hub import Hub
from boundless.server.metrics import UNEXPORTED, ServerMetrics
from boundless.server.players.service import PlayerIdentity
from boundless.server.tables.runner import run_table
from boundless.server.tables.table import Table
from boundless.server.titles import TitleCatalog
from boundless.wallet import INTERNAL, WalletProvider

MAX_PRIVATE_TABLES_PER_PLAYER = 3
SHUTDOWN_SECONDS = 5.0
FLUSH_SECONDS = 2.0
"""At shutdown, how long the messages still queued for sockets may take to be written."""
"""How long ``boundless serve`` waits at shutdown for its tables to refund their rounds."""
log = logging.getLogger("boundless.server.registry")


@dataclass(eq=False)
class TableRegistry:
    hub: Hub
    sessions: sessionmaker[Session]
    config: ServerConfig
    catalog: TitleCatalog
    randomness: Callable[[], RandomSource] = CryptoSource
    metrics: ServerMetrics = UNEXPORTED
    wallets: WalletProvider = INTERNAL
    tables: dict[str, Table] = field(default_factory=dict, init=False)
    tasks: dict[str, asyncio.Task[None]] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        self.hub.on_presence(self._presence)

    def _presence(self, player_id: str, table_id: str, present: bool) -> None:
        table = self.tables.get(table_id)
        if table is not None:
            table.presence_changed(player_id, present)

    def _new_table(
        self,
        table_id: str,
        title: str,
        owner: str | None = None,
        offered: tuple[str, ...] | None = None,
    ) -> Table:
        rules, chart = self.catalog.get(title)
        table = Table(
            table_id=table_id,
            name=rules.title.name,
            rules=rules,
            chart=chart,
            randomness=self.randomness(),
            hub=self.hub,
            sessions=self.sessions,
            timers=self.config.timers,
            owner=owner,
            offered_side_bets=offered,
            bet_batch_seconds=self.config.bet_batch_seconds,
            wallets=self.wallets,
        )
        table.seated_elsewhere = self.seated_elsewhere
        if owner is not None:
            table.min_cycle_seconds = self.config.jurisdiction.min_cycle_seconds
        table.metrics = self.metrics
        self.tables[table_id] = table
        self.tasks[table_id] = asyncio.get_running_loop().create_task(
            run_table(table), name=f"table {table_id}"
        )
        return table

    def seated_elsewhere(self, player_id: str, table_id: str) -> bool:
        """Whether the player has a bet in a round in play at another table."""
        for other in self.tables.values():
            round_ = other.round
            if (
                other.table_id != table_id
                and round_ is not None
                and not round_.over
                and round_.has_player(player_id)
            ):
                return True
        return False

    def open_shared_tables(self) -> list[Table]:
        return [self._new_table(f"{key}-1", key) for key in self.catalog.shared_keys()]

    def create_private(
        self, owner: PlayerIdentity, title: str, side_bets: Sequence[str] | None
    ) -> Table:
        rules, _ = self.catalog.get(title)
        if rules.table.shared:
            raise SharedTitleError(
                f"title {title!r} is played at its shared table {title}-1, not at private tables"
            )
        offered = None if side_bets is None else tuple(side_bets)
        try:
            SharedRound(rules, chart=self.catalog.get(title)[1], offered_side_bets=offered)
        except InvalidRuleSetError as error:
            raise BadMessageError(str(error)) from None
        mine = [table for table in self.tables.values() if table.owner == owner.player_id]
        if len(mine) >= MAX_PRIVATE_TABLES_PER_PLAYER:
            raise PrivateTableLimitError(
                f"at most {MAX_PRIVATE_TABLES_PER_PLAYER} private tables per player"
            )
        table_id = f"{title}-{secrets.token_hex(4)}"
        return self._new_table(table_id, title, owner=owner.player_id, offered=offered)

    def get(self, table_id: str) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise NotFoundError(f"no table {table_id!r}")
        return table

    def greet(self, player_id: str) -> None:
        """A player signed in: one process has nothing to tell them (a cluster gateway tells
        them about rounds cancelled while they were away)."""

    def lobby(self, viewer: str | None = None) -> list[dict[str, object]]:
        return [
            {**table.lobby_row(), "recent": table.recent.rows()}
            for table in self.tables.values()
            if table.owner is None or table.owner == viewer
        ]

    async def stop(self, seconds: float | None = None) -> None:
        """Stop every table: each cancels and refunds its round in flight and tells its players
        (or lets a settlement being written finish). ``seconds`` bounds the wait; a table still
        waiting on the database then is named in the log and left to the next start's
        recovery."""
        tasks = dict(self.tasks)
        self.tasks.clear()
        for task in tasks.values():
            task.cancel()
        if not tasks:
            return
        _, pending = await asyncio.wait(tasks.values(), timeout=seconds)
        # The players' last messages (their refunds) leave before the sockets close.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.hub.flushed(), FLUSH_SECONDS)
        for table_id, task in tasks.items():
            if task in pending:
                table = self.tables.get(table_id)
                log.error(
                    "shutdown: table %s did not stop within %.0f s (round %s waits on the "
                    "database); the next start's recovery refunds or finishes it",
                    table_id,
                    seconds or 0,
                    None if table is None else table.round_id,
                )
