"""The operator's pause, resume and cancel of a cluster's table, owned by its coordinator.

Any gateway's admin routes send the request over the bus (plain NATS request/reply on
``<namespace>.control.<table>``; only the coordinator holding the lease answers). The
coordinator owns the table's phase, so it decides and answers ``{"ok": true, ...}`` or
``{"ok": false, "error": code, "detail": one line}`` with ``boundless serve``'s codes and words:

- ``pause``: the betting, insurance and decision windows stop their clocks (each keeps its time
  left) and no round opens while paused; ``table_paused`` goes on the stream (with the open
  window's time left), and every gateway refuses bets and decisions and tells its players.
- ``resume``: ``table_resumed`` (with the open window's new deadline); the windows go on.
- ``cancel``: the round in play, if it holds bets and is not settling yet, ends with
  ``round_cancelled`` and the operator's reason; every gateway cancels its own slices and a
  gateway that is gone has its slices cancelled and recorded by the coordinator (as after a
  takeover). The answer lists what the cancellation put back into each wallet.

A pause outlives a coordinator: a new one finds it on the stream and starts paused.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from boundless.ledger.outage import is_transient, one_line
from boundless.server.clock import now_ms
from boundless.server.cluster.bus import BusError, JsonBody, StoredEvent
from boundless.server.cluster.protocol import Public

T = TypeVar("T")
ACTIONS = ("pause", "resume", "cancel")
REASON_MAX = 200
DEFAULT_REASON = "operator action"
Append = Callable[[Public, JsonBody], Awaitable[int]]


class OperatorCancel(Exception):
    """Raised in the round's open window: the operator cancelled the round."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(slots=True)
class _Window:
    kind: str
    remaining: float
    deadline: float | None = None
    """Loop time the window closes at, while it runs (None while the table is paused)."""

    def left(self) -> float:
        if self.deadline is None:
            return self.remaining
        return max(0.0, self.deadline - asyncio.get_running_loop().time())


def refusal(code: str, detail: str) -> JsonBody:
    return {"ok": False, "error": code, "detail": detail}


class TableControl:
    """The coordinator's side: the table's pause, an operator's cancel, and the windows they hold.

    ``bets_in(round_no)``: whether the round holds bets (slices in the ledger); without a ledger
    every open round counts as holding some."""

    def __init__(self, table: str, bets_in: Callable[[int], bool] | None = None) -> None:
        self.table = table
        self.paused = False
        self.pause_reason: str | None = None
        self._bets_in = bets_in
        self._append: Append | None = None
        self._round: int | None = None
        """The round that may be cancelled (opened, not settling yet)."""
        self._window: _Window | None = None
        self._cancel: tuple[str, asyncio.Future[JsonBody]] | None = None
        self._changed = asyncio.Event()

    # ---- the coordinator's hooks ----------------------------------------------------------
    def lead(self, append: Append, replayed: Sequence[StoredEvent]) -> None:
        """This coordinator leads the table: its appends, and a pause its predecessor left."""
        self._append = append
        for stored in replayed:
            if stored.event.kind == Public.TABLE_PAUSED:
                self.paused, self.pause_reason = True, _reason_of(stored.event.body)
            elif stored.event.kind == Public.TABLE_RESUMED:
                self.paused, self.pause_reason = False, None

    def round_open(self, round_no: int) -> None:
        self._round = round_no

    def round_closing(self) -> None:
        """No more cancelling this round (it settles, or ended); a waiting cancel is refused."""
        self._round = None
        self.cancelled(refusal("conflict", self._no_round()))

    def cancelled(self, reply: JsonBody) -> None:
        """The operator's waiting cancel, if any, gets ``reply`` (done, or refused)."""
        if self._cancel is not None:
            _, answered = self._cancel
            self._cancel = None
            if not answered.done():
                answered.set_result(reply)

    async def window(self, kind: str, seconds: float, wait: Callable[[float], Awaitable[T]]) -> T:
        """``wait(seconds)`` for a players' window (betting, insurance, a decision): a pause
        stops its clock, keeping the time left; an operator's cancel raises
        :class:`OperatorCancel`."""
        loop = asyncio.get_running_loop()
        window = self._window = _Window(kind, seconds)
        try:
            while True:
                if self._cancel is not None:
                    raise OperatorCancel(self._cancel[0])
                if self.paused:
                    await self._next_change()
                    continue
                window.deadline = loop.time() + window.remaining
                waiting = asyncio.ensure_future(wait(window.remaining))
                if await self._first(waiting):
                    return waiting.result()
                window.remaining, window.deadline = window.left(), None
        finally:
            self._window = None

    async def between_rounds(self) -> None:
        """Hold the next round while the table is paused."""
        while self.paused:
            await self._next_change()

    # ---- the operator's requests ----------------------------------------------------------
    async def answer(self, body: JsonBody) -> JsonBody:
        """One operator request (from any gateway): its answer."""
        action, reason = body.get("action"), body.get("reason", DEFAULT_REASON)
        if action not in ACTIONS:
            return refusal("bad_message", f"action must be one of {', '.join(ACTIONS)}")
        if reason is not None and not (isinstance(reason, str) and 0 < len(reason) <= REASON_MAX):
            return refusal("bad_message", f"reason must be text of 1 to {REASON_MAX} characters")
        if self._append is None:
            return refusal("conflict", f"table {self.table!r} has no coordinator leading it yet")
        try:
            if action == "pause":
                return await self._pause(str(reason or DEFAULT_REASON))
            if action == "resume":
                return await self._resume(None if reason is None else str(reason))
            return await self._request_cancel(str(reason or DEFAULT_REASON), body.get("round_no"))
        except BusError as error:  # this coordinator lost the table meanwhile
            return refusal("coordinator_unavailable", one_line(error))
        except Exception as error:
            if not is_transient(error):
                raise
            return refusal("ledger_unavailable", one_line(error))

    async def _pause(self, reason: str) -> JsonBody:
        if self.paused:
            return refusal("conflict", f"table {self.table!r} is already paused")
        self.paused, self.pause_reason = True, reason
        self._signal()
        body: dict[str, object] = {"reason": reason}
        if self._window is not None:
            left = self._window.left()
            body["timer"] = {"kind": self._window.kind, "deadline_ms": None,
                             "remaining_ms": round(left * 1000)}  # fmt: skip
        assert self._append is not None
        try:
            await self._append(Public.TABLE_PAUSED, body)
        except BaseException:
            self.paused, self.pause_reason = False, None  # not on the stream: not paused
            self._signal()
            raise
        return {"ok": True, "paused": True, "reason": reason}

    async def _resume(self, reason: str | None) -> JsonBody:
        if not self.paused:
            return refusal("conflict", f"table {self.table!r} is not paused")
        body: dict[str, object] = {"reason": reason}
        if self._window is not None:
            left = self._window.left()
            body["timer"] = {"kind": self._window.kind,
                             "deadline_ms": now_ms() + round(left * 1000)}  # fmt: skip
        assert self._append is not None
        await self._append(Public.TABLE_RESUMED, body)
        self.paused, self.pause_reason = False, None
        self._signal()
        return {"ok": True, "paused": False, "reason": reason}

    async def _request_cancel(self, reason: str, wanted: object = None) -> JsonBody:
        """``wanted``: the round number the operator means, if given; another round in play
        (or none) is not cancelled in its place."""
        number = self._round
        if wanted is not None:
            if not isinstance(wanted, int) or isinstance(wanted, bool):
                return refusal("bad_message", "round_no must be a round number")
            if wanted != number:
                return refusal(
                    "conflict",
                    f"round {self.table}:{wanted} is not the round in play: nothing was cancelled",
                )
        if number is None or self._cancel is not None:
            return refusal("conflict", self._no_round())
        if self._bets_in is not None and not await asyncio.to_thread(self._bets_in, number):
            return refusal("conflict", self._no_round())
        answered: asyncio.Future[JsonBody] = asyncio.get_running_loop().create_future()
        self._cancel = (reason, answered)
        self._signal()
        return await answered

    def _no_round(self) -> str:
        return f"table {self.table!r} has no round with bets to cancel"

    # ---- waiting ----------------------------------------------------------------------------
    def _signal(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def _next_change(self) -> None:
        await self._changed.wait()

    async def _first(self, waiting: asyncio.Future[Any]) -> bool:
        """True once ``waiting`` is done; False (it is cancelled) if a change came first."""
        changed = asyncio.ensure_future(self._changed.wait())
        try:
            await asyncio.wait({waiting, changed}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:  # the coordinator stops: nothing of ours goes on waiting
            waiting.cancel()
            raise
        finally:
            changed.cancel()
        if waiting.done():
            return True
        waiting.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await waiting
        return False


def _reason_of(body: JsonBody) -> str | None:
    reason = body.get("reason")
    return reason if isinstance(reason, str) else None
