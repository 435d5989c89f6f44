"""The bet close waits for the coin ledger: a database cut no longer costs a round.

Every gateway stakes its bets at the bet close; while the ledger's database does not answer they
would all be refused, every gateway would sit the round out and the round would be cancelled
with nothing staked, again and again for as long as the cut lasts. Instead, when the betting
window ends and the database does not answer, the coordinator holds the close:

- ``betting_held`` with ``ledger: "away"`` goes on the stream at once and again every
  ``notice_seconds`` while it lasts (how long it has held, and the most it will), so every player
  sees why the round waits and that the table is alive; the window's timer is shown frozen;
- once the database answers, ``betting_held`` with ``ledger: "back"`` opens a short betting
  window (``back_seconds``): players whose bets were refused during the cut may bet again, and a
  gateway whose earlier settlement was written late joins the round (``gateway.py``);
- past ``hold_seconds`` the bet close goes ahead as before (each gateway sits out what it cannot
  stake, and a round nobody could stake is cancelled saying the ledger was why).

The operator's pause and cancel work during a hold as in any betting window (``control``). The
hold never stakes or moves a coin: it only moves the bet close later. The same patience serves
the reads a coordinator cannot lead without (:meth:`LedgerHold.through_outage`): a standby that
takes over during a cut waits for the stored shoe instead of stopping on its error.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from boundless.ledger.outage import is_transient, one_line
from boundless.server.clock import now_ms
from boundless.server.cluster.bus import JsonBody
from boundless.server.cluster.control import Append, TableControl
from boundless.server.cluster.protocol import Public

log = logging.getLogger("boundless.cluster.ledger_hold")
AWAY_REASON = "the coin ledger does not answer: the bet close waits for it"
BACK_REASON = "the coin ledger answers again: betting closes in a moment"
Answers = Callable[[], Awaitable[bool]]
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class HoldTimers:
    hold_seconds: float = 30.0
    """The most a bet close waits for the ledger (past it, the round goes on without stakes)."""
    back_seconds: float = 3.0
    """The betting window given once the ledger answers again."""
    notice_seconds: float = 2.5
    """How often a hold says again that it goes on."""
    probe_seconds: float = 0.5
    """How often the database is asked meanwhile."""


class LedgerHold:
    def __init__(
        self, table: str, answers: Answers | None, control: TableControl, timers: HoldTimers
    ) -> None:
        self.table, self.answers, self.control, self.timers = table, answers, control, timers
        self.holds = 0
        """Bet closes held so far (for status pages and tests)."""

    async def before_bet_close(self, append: Append, round_number: int) -> float:
        """Hold the bet close while the database does not answer; the seconds it was held."""
        if self.answers is None or await self.answers():
            return 0.0
        self.holds += 1
        timers = self.timers
        loop = asyncio.get_running_loop()
        began = loop.time()
        log.warning("table %s round %s: bet close held, the ledger's database does not answer",
                    self.table, round_number)  # fmt: skip
        while (held := loop.time() - began) < timers.hold_seconds:
            seconds = min(timers.notice_seconds, timers.hold_seconds - held)
            await append(Public.BETTING_HELD, self._away(held))
            if await self.control.window("betting", seconds, self._until_answers):
                held = loop.time() - began
                log.warning("table %s round %s: the ledger answers again after %.1f s held",
                            self.table, round_number, held)  # fmt: skip
                await append(Public.BETTING_HELD, self._back(held))
                await self.control.window("betting", timers.back_seconds, asyncio.sleep)
                return loop.time() - began
        log.warning("table %s round %s: bet close held %.0f s, the ledger still away: closing",
                    self.table, round_number, timers.hold_seconds)  # fmt: skip
        return loop.time() - began

    def _away(self, held: float) -> JsonBody:
        # Frozen, as in a pause: the time betting will have once the ledger is back.
        back = round(self.timers.back_seconds * 1000)
        return self._said("away", AWAY_REASON, held, {"deadline_ms": None, "remaining_ms": back})

    def _back(self, held: float) -> JsonBody:
        deadline = now_ms() + round(self.timers.back_seconds * 1000)
        return self._said("back", BACK_REASON, held, {"deadline_ms": deadline})

    def _said(self, ledger: str, reason: str, held: float, timer: JsonBody) -> JsonBody:
        return {
            "ledger": ledger,
            "reason": reason,
            "held_seconds": round(held, 1),
            "hold_limit_seconds": self.timers.hold_seconds,
            "timer": {"kind": "betting", **timer},
        }

    async def _until_answers(self, seconds: float) -> bool:
        """Within ``seconds``: True as soon as the database answers, else False."""
        assert self.answers is not None
        loop = asyncio.get_running_loop()
        until = loop.time() + seconds
        while True:
            if await self.answers():
                return True
            left = until - loop.time()
            if left <= 0:
                return False
            await asyncio.sleep(min(self.timers.probe_seconds, left))

    async def through_outage(self, what: str, call: Callable[..., T], *args: Any) -> T:
        """``call(*args)``, a read the coordinator cannot lead without (the stored shoe of a
        round it takes over, the table's shoes), off the loop so its lease is renewed meanwhile;
        while the database is away, again every probe period for up to ``hold_seconds``, then
        its error is raised."""
        loop = asyncio.get_running_loop()
        until = loop.time() + self.timers.hold_seconds
        while True:
            try:
                return await asyncio.to_thread(call, *args)
            except Exception as error:
                if not is_transient(error) or loop.time() >= until:
                    raise
                log.warning("table %s: %s wait for the ledger, which is away: %s",
                            self.table, what, one_line(error))  # fmt: skip
                await asyncio.sleep(self.timers.probe_seconds)
