"""One live table of ``boundless serve``: it deals its own rounds.

A :class:`Table` is a :class:`~.desk.TableDesk` (the players' side: bets, insurance,
decisions, their books and messages) that is also its own round source: it holds the round
(a :class:`~boundless.core.round.SharedRound`), the clock (:mod:`.clock`), the shoes
(:mod:`.shoes`) and the operator's actions, and the step sequence (:mod:`.runner`) drives it
through ``open_round``, ``open_step``, ``close_step`` and ``settle``. A cluster gateway's table
is the same desk driven by a coordinator's stream instead.
"""

from __future__ import annotations

import asyncio
import math
from typing import Any, Unpack

import numpy as np

from boundless.core.random_source import RandomSource
from boundless.core.round import SharedRound
from boundless.core.round.views import spot_bets
from boundless.ledger.outage import is_transient, write_until_done
from boundless.server.clock import now_ms
from boundless.server.config import TimerSettings
from boundless.server.errors import ConflictError, RefundPendingError, SideBetsLockedError
from boundless.server.event_codec import encode_events
from boundless.server.players.service import PlayerIdentity
from boundless.server.tables.cancellation import tell_refunds
from boundless.server.tables.clock import TableClock
from boundless.server.tables.desk import DeskSetup, TableDesk
from boundless.server.tables.recent import RecentRounds
from boundless.server.tables.repository import TableRepository
from boundless.server.tables.service import RoundRecord
from boundless.server.tables.shoes import TableShoes


class Table(TableDesk):
    def __init__(
        self,
        *,
        randomness: RandomSource,
        timers: TimerSettings,
        offered_side_bets: tuple[str, ...] | None = None,
        **setup: Unpack[DeskSetup],
    ) -> None:
        super().__init__(**setup)
        self.randomness = randomness
        self.offered_side_bets = offered_side_bets
        self.clock = TableClock(timers, self.rules.timers)
        self.shoes = TableShoes(self.table_id, self.rules, randomness, self.sessions, self.notify)
        self.round: SharedRound | None = None
        self.recent = RecentRounds()
        self.settling: asyncio.Task[None] | None = None
        """The settlement being written (a shutdown lets it finish, see the runner)."""
        self.refunds_pending: set[asyncio.Task[None]] = set()
        """Refunds of cancelled rounds still being tried (the database was away or full)."""

    # ---- the round source ------------------------------------------------------------------
    def timer(self) -> dict[str, Any] | None:
        return self.clock.describe()

    def shoe_number(self) -> int:
        return self.shoes.number

    def public(self) -> dict[str, Any] | None:
        view = super().public()
        if view is not None and self.round is not None:
            # This desk holds every position, so the spots' totals are exact here (a cluster
            # gateway holds only its own slice and leaves them out).
            view["spot_bets"] = spot_bets(self.round)
        return view

    def wake(self) -> None:
        self.clock.wake.set()

    def stop_timer(self) -> None:
        self.clock.stop()

    def deciding(self) -> bool:
        return self.clock.kind == "decision"

    def record(self, with_events: bool = True) -> RoundRecord:
        round_, start = self.round, self.shoes.start
        assert round_ is not None and start is not None
        return self.round_record(
            self.shoes.base + start.shoe_number,
            start.round_in_shoe,
            start.commitment,
            encode_events(round_.events) if with_events else None,
        )

    def load_counters(self) -> None:
        """Continue round and shoe numbering from the database (after a restart)."""
        with self.sessions.begin() as session:
            repository = TableRepository(session)
            self.round_no = repository.last_round_no(self.table_id)
            self.shoes.load(repository.last_shoe_number(self.table_id))

    # ---- rounds ----------------------------------------------------------------------------
    def _new_round(self, offered_side_bets: tuple[str, ...] | None) -> SharedRound:
        self.declined_insurance = set()
        start = self.shoes.start
        assert start is not None
        return SharedRound(
            self.rules,
            round_in_shoe=start.round_in_shoe,
            chart=self.chart,
            cards=self.shoes.cycle.shoe,
            offered_side_bets=offered_side_bets,
            shoe_commitment=start.commitment,
            randomness=self.randomness,
        )

    def open_round(self) -> SharedRound:
        self.shoes.start_round()
        self.round_no += 1
        self.round = self._new_round(self.offered_side_bets)
        self.money.new_round()
        self.waiting = set()
        self.recorded = False
        self.clock.stop()
        return self.round

    def end_round(self, exhausted: bool = False) -> None:
        """After settlement or cancellation: the shoe may be finished (cut card out)."""
        self.rounds_played += 1
        self.clock.stop()
        self.shoes.end_round(exhausted)

    def choose_side_bets(self, player: PlayerIdentity, side_bets: list[str]) -> None:
        if not self.private:
            super().choose_side_bets(player, side_bets)
        self.check_access(player)
        round_ = self.betting_round()
        if round_.position_count() or self.bets:
            raise SideBetsLockedError("side bets can be chosen only while no bet is on the table")
        replacement = self._new_round(tuple(side_bets))
        self.offered_side_bets = tuple(side_bets)
        self.round = replacement
        self.broadcast_state()

    # ---- steps -----------------------------------------------------------------------------
    async def close_step(self) -> np.ndarray:
        """Close the open step: refresh the coins of players whose double or split the round
        may not cover, execute, send the step card to everyone, then stake the extras in the
        ledger, in a worker thread (the loop serves every table and ``/healthz`` meanwhile;
        the write is tried again while the database is busy). Returns the positions whose view
        changed (for :meth:`after_step`).

        If the stakes' write fails, the round is voided and every stake the ledger holds is
        returned."""
        round_ = self.round
        assert round_ is not None
        closed_ms = now_ms()
        spot, step = round_.current_spot, round_.step
        on_spot = round_.positions_on_spot(spot)
        nodes_before = round_.path_nodes(on_spot)
        await self.refresh_doubtful_coins(round_, on_spot)
        stakes_before = len(round_.extra_stakes)
        event = round_.close_step()
        takers = round_.step_takers.get(spot, [])
        self.broadcast_step(spot, step, event.card, takers[-1] if takers else 0, closed_ms)
        await self.stake_extras_off_loop(round_, stakes_before, step)
        return np.asarray(on_spot[round_.path_nodes(on_spot) != nodes_before])

    def _refund_later(self, reason: str) -> None:
        """The refund of the round just cancelled in the core, written in a worker thread and
        tried until it is (the same keys: exactly once); then its players get ``settled``."""
        round_ = self.round
        assert round_ is not None
        results = self.results(round_)
        inputs = self._cancel_inputs(reason, results)
        round_id = self.round_id
        self.recorded = True  # this round's end is the task's; the next round's is the table's
        self.stop_timer()
        self.broadcast_state()
        self.wake()
        task = asyncio.ensure_future(self._write_refund(inputs, results, reason, round_id))
        self.refunds_pending.add(task)
        task.add_done_callback(self.refunds_pending.discard)

    async def _write_refund(
        self, inputs: tuple[Any, ...], results: dict[str, Any], reason: str, round_id: str | None
    ) -> None:
        outcome = await write_until_done(
            self.sessions,
            lambda session: self.service(session).cancel(*inputs),
            what=f"refund of the cancelled round {round_id}",
            seconds=math.inf,
            lock=self.ledger_lock,
        )
        if outcome.lines:
            self.metrics.cancelled(self.rules.key, outcome.refunds)
        self.money.balances.update(outcome.balances)
        self.notify("cancelled", {"round_id": round_id, "reason": reason})
        tell_refunds(self.hub, self.table_id, round_id, results, outcome, reason)

    # ---- operator ----------------------------------------------------------------------------
    def pause(self, reason: str) -> None:
        if self.paused:
            raise ConflictError(f"table {self.table_id!r} is already paused")
        self.paused = True
        self.pause_reason = reason
        if self.round is not None and not self.round.over:
            self.round.pause(reason)
        self.clock.freeze()
        self.notify("paused", reason)
        self.broadcast_state()
        self.clock.wake.set()

    def resume(self, reason: str | None = None) -> None:
        if not self.paused:
            raise ConflictError(f"table {self.table_id!r} is not paused")
        self.paused = False
        self.pause_reason = None
        if self.round is not None and not self.round.over and self.round.paused:
            self.round.resume()
        self.clock.thaw()
        self.notify("resumed", reason)
        self.broadcast_state()
        self.clock.wake.set()

    def cancel(self, reason: str, round_id: str | None = None) -> dict[str, Any]:
        """Void the round in play; ``round_id``: only if it is still that round."""
        if round_id is not None and round_id != self.round_id:
            raise ConflictError(
                f"round {round_id} is not the round in play (the table is at "
                f"{self.round_id or f'round {self.round_no}'}): nothing was cancelled"
            )
        round_ = self.round
        if round_ is None or round_.over or (not round_.position_count() and not self.bets):
            raise ConflictError(f"table {self.table_id!r} has no round with bets to cancel")
        round_id = self.round_id
        try:
            refunds = self.void(reason)
        except Exception as error:
            if not is_transient(error):
                raise
            # Voided in the core already; the ledger still holds the stakes in the open round:
            # the refund is tried again until written, and the players are told then.
            self._refund_later(reason)
            raise RefundPendingError(
                f"round {round_id} is cancelled, but the database cannot write its refund right "
                "now: the stakes stay held in the ledger and the server refunds them as soon as "
                "it can (tried again until written; a stop first leaves it to the next start)"
            ) from error
        return {
            "table_id": self.table_id,
            "round_id": round_id,
            "reason": reason,
            "refunds": [
                {"player_id": player, "amount": amount}
                for player, amount in sorted(refunds.items())
            ],
        }
