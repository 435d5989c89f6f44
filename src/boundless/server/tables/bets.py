"""Bet batching: ``bet`` messages that arrive within a short window are written together.

One database transaction per batch instead of one per bet. A player's second bet in the same
window waits for the next batch, so each batch holds at most one bet per player and every bet
sees the wallet its predecessor left. This is a gateway's job: it batches its own players' bets.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from boundless.server.tables.service import BetRequest

Answer = dict[str, Any]
log = logging.getLogger("boundless.server.bets")


@dataclass(slots=True)
class PendingBet:
    request: BetRequest
    future: asyncio.Future[Answer]

    def answer(self, answer: Answer | Exception) -> None:
        if self.future.done():
            return
        if isinstance(answer, Exception):
            self.future.set_exception(answer)
        else:
            self.future.set_result(answer)


class BetBatcher:
    """Queues bets and hands them to ``write`` one batch at a time (at most one per player)."""

    def __init__(
        self,
        window_seconds: float,
        write: Callable[[list[PendingBet]], None],
        max_batch: int | None = None,
    ) -> None:
        self.window_seconds = window_seconds
        self.write = write
        self.max_batch = max_batch
        """At most this many bets per write; the rest follow at once (the loop may run between)."""
        self.pending: list[PendingBet] = []
        self._handle: asyncio.Handle | None = None

    def __bool__(self) -> bool:
        return bool(self.pending)

    def submit(self, request: BetRequest) -> asyncio.Future[Answer]:
        """Queue a bet for the next batch; the future answers it (ack body or refusal)."""
        loop = asyncio.get_running_loop()
        pending = PendingBet(request, loop.create_future())
        self.pending.append(pending)
        if self._handle is None:
            self._handle = loop.call_later(self.window_seconds, self.flush)
        return pending.future

    def flush(self) -> None:
        """Write the queued bets now: the first of each player's, the others right after."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        queued, self.pending = self.pending, []
        if not queued:
            return
        batch: list[PendingBet] = []
        later: list[PendingBet] = []
        seen: set[str] = set()
        for item in queued:
            full = self.max_batch is not None and len(batch) >= self.max_batch
            (later if full or item.request.player_id in seen else batch).append(item)
            seen.add(item.request.player_id)
        if later:
            self.pending = later + self.pending
            self._handle = asyncio.get_running_loop().call_soon(self.flush)
        try:
            self.write(batch)
        except Exception as error:
            # The write could not even look up stored answers (the ledger's database is away):
            # every bet of the batch still gets its answer, the refusal, and nothing was staked.
            log.warning("a batch of %d bets was refused: %s", len(batch), error)
            for item in batch:
                item.answer(error)

    def fail_all(self, error: Exception) -> None:
        """Refuse every queued bet (the round was cancelled or the table paused)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        queued, self.pending = self.pending, []
        for item in queued:
            item.answer(error)
