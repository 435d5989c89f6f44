"""Bet batching: ``bet`` messages that arrive within a short window are written together.

One database transaction per batch instead of one per bet. A player's second bet in the same
window waits for the next batch, so each batch holds at most one bet per player and every bet
sees the wallet its predecessor left. This is a gateway's job: it batches its own players' bets.

``write`` is a coroutine (the desk runs the transaction in a worker thread, so the event loop
serves sockets meanwhile); batches are written one after the other, never two at once, in the
order they were flushed. Whoever closes the betting window awaits :meth:`BetBatcher.drain`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
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
        write: Callable[[list[PendingBet]], Awaitable[None]],
        max_batch: int | None = None,
    ) -> None:
        self.window_seconds = window_seconds
        self.write = write
        self.max_batch = max_batch
        """At most this many bets per write; the rest follow at once (the loop runs between)."""
        self.pending: list[PendingBet] = []
        self._handle: asyncio.Handle | None = None
        self._batches: list[list[PendingBet]] = []
        """Flushed batches waiting for the writer, in order."""
        self._writer: asyncio.Task[None] | None = None

    def __bool__(self) -> bool:
        """True while any bet waits for its window, for the writer or for its write to end."""
        return bool(self.pending or self._batches or self._writer is not None)

    def submit(self, request: BetRequest) -> asyncio.Future[Answer]:
        """Queue a bet for the next batch; the future answers it (ack body or refusal)."""
        loop = asyncio.get_running_loop()
        pending = PendingBet(request, loop.create_future())
        self.pending.append(pending)
        if self._handle is None:
            self._handle = loop.call_later(self.window_seconds, self.flush)
        return pending.future

    def flush(self) -> None:
        """Hand the queued bets to the writer now, split into batches (the first bet of each
        player in one, their next in the next, at most ``max_batch`` each)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        queued, self.pending = self.pending, []
        while queued:
            batch: list[PendingBet] = []
            later: list[PendingBet] = []
            seen: set[str] = set()
            for item in queued:
                full = self.max_batch is not None and len(batch) >= self.max_batch
                (later if full or item.request.player_id in seen else batch).append(item)
                seen.add(item.request.player_id)
            self._batches.append(batch)
            queued = later
        if self._batches and self._writer is None:
            self._writer = asyncio.get_running_loop().create_task(self._write_all())

    async def drain(self) -> None:
        """Write every queued bet (those that arrive meanwhile too) and wait for the answers."""
        while True:
            self.flush()
            if self._writer is None:
                return
            await asyncio.shield(self._writer)

    async def _write_all(self) -> None:
        try:
            while self._batches:
                batch = self._batches.pop(0)
                try:
                    await self.write(batch)
                except Exception as error:
                    # The write could not even look up stored answers (the ledger's database is
                    # away): every bet of the batch still gets its answer, the refusal.
                    log.warning("a batch of %d bets was refused: %s", len(batch), error)
                    for item in batch:
                        item.answer(error)
        finally:
            self._writer = None

    def fail_all(self, error: Exception) -> None:
        """Refuse every bet not yet handed to a write (the round was cancelled or the table
        paused); a batch being written is answered by its write."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        queued, self.pending = self.pending, []
        batches, self._batches = self._batches, []
        for item in queued + [item for batch in batches for item in batch]:
            item.answer(error)
