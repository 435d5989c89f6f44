"""One live table: the round in play, the players' commands and the operator's.

Everything here runs on the event loop and is synchronous: a command checks, writes to the
database (one transaction, committed) and only then changes the round in memory, so a refused
command changes nothing and two commands never interleave.

The table puts together parts that each do one job, along the line a table split over several
processes would follow:

- coordinator side: the clock (:mod:`.clock`), the shoes (:mod:`.shoes`) and the step sequence
  (:mod:`.runner`, which calls ``open_round``, ``open_step``, ``close_step``, ``settle``);
- gateway side, per player: bet batching (:mod:`.bets`), money bookkeeping (:mod:`.money`) and
  the messages (:mod:`boundless.server.messages`), sent through the hub.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from sqlalchemy.orm import Session, sessionmaker

from boundless.core.errors import PhaseError, RulesError
from boundless.core.random_source import RandomSource
from boundless.core.round import Action, SharedRound
from boundless.core.round.phases import BETTING, CANCELLED, DECISIONS, INSURANCE
from boundless.core.round.views import public_view
from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart
from boundless.ledger import LedgerUnavailableError
from boundless.ledger.outage import write_until_done
from boundless.ledger.records import StakeOrder
from boundless.server import messages
from boundless.server.clock import now_ms
from boundless.server.config import TimerSettings
from boundless.server.errors import (
    ConflictError,
    ForbiddenError,
    SideBetsLockedError,
    TablePausedError,
)
from boundless.server.event_codec import encode_events
from boundless.server.gateway.hub import Hub
from boundless.server.metrics import UNEXPORTED, ServerMetrics
from boundless.server.players.service import PlayerIdentity
from boundless.server.tables.bets import Answer, BetBatcher, PendingBet
from boundless.server.tables.clock import TableClock
from boundless.server.tables.money import TableMoney
from boundless.server.tables.private import decline_insurance
from boundless.server.tables.recent import RecentRounds
from boundless.server.tables.repository import TableRepository
from boundless.server.tables.service import (
    BetRequest,
    RoundRecord,
    TableService,
    bet_columns,
    position_key,
)
from boundless.server.tables.shoes import TableShoes

log = logging.getLogger("boundless.server.table")


class Table:
    def __init__(
        self,
        *,
        table_id: str,
        name: str,
        rules: RuleSet,
        chart: StrategyChart | None,
        randomness: RandomSource,
        hub: Hub,
        sessions: sessionmaker[Session],
        timers: TimerSettings,
        owner: str | None = None,
        offered_side_bets: tuple[str, ...] | None = None,
        bet_batch_seconds: float = 0.01,
    ) -> None:
        self.table_id = table_id
        self.name = name
        self.rules = rules
        self.chart = chart
        self.randomness = randomness
        self.hub = hub
        self.sessions = sessions
        self.owner = owner
        self.offered_side_bets = offered_side_bets
        self.clock = TableClock(timers, rules.timers)
        self.shoes = TableShoes(table_id, rules, randomness, sessions, self._notify)
        self.bets = BetBatcher(bet_batch_seconds, self._write_bets)
        self.money = TableMoney()
        self.round_no = 0
        self.round: SharedRound | None = None
        self.paused = False
        self.pause_reason: str | None = None
        self.waiting: set[int] = set()
        """Positions of the open step whose decision the table waits for."""
        self.recorded = False
        """Whether this round's end (settlement or cancellation) is written."""
        self.rounds_played = 0
        self.recent = RecentRounds()
        self.declined_insurance: set[tuple[str, int]] = set()
        """Insurance offers declined this round (a private table closes the window on answers)."""
        self.seated_elsewhere: Callable[[str, str], bool] = lambda _player, _table: False
        self.metrics: ServerMetrics = UNEXPORTED

    # ---- setup and queries -----------------------------------------------------------------
    def load_counters(self) -> None:
        """Continue round and shoe numbering from the database (after a restart)."""
        with self.sessions.begin() as session:
            repository = TableRepository(session)
            self.round_no = repository.last_round_no(self.table_id)
            self.shoes.load(repository.last_shoe_number(self.table_id))

    @property
    def private(self) -> bool:
        return self.owner is not None

    @property
    def round_id(self) -> str | None:
        return None if self.round is None else f"{self.table_id}:{self.round_no}"

    def check_access(self, player: PlayerIdentity) -> None:
        if self.owner is not None and player.player_id != self.owner:
            raise ForbiddenError(f"table {self.table_id!r} is another player's private table")

    def _seated(self) -> int:
        return 0 if self.round is None else self.round.player_count()

    def lobby_row(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "title": self.rules.key,
            "name": self.name,
            "private": self.private,
            "players": self._seated(),
            "watchers": self.hub.watcher_count(self.table_id),
            "phase": None if self.round is None else self.round.phase,
            "round_no": self.round_no,
            "paused": self.paused,
        }

    # ---- messages out ----------------------------------------------------------------------
    def state_message(self) -> messages.Message:
        round_ = self.round
        return messages.state(
            self.table_id,
            self.round_id,
            self.round_no,
            self.shoes.number,
            None if round_ is None else public_view(round_),
            self.clock.describe(),
            self._seated(),
            self.paused,
        )

    def broadcast_state(self) -> None:
        self.hub.broadcast(self.table_id, self.state_message())

    def _notify(self, kind: str, detail: Any) -> None:
        self.hub.broadcast(self.table_id, messages.notice(self.table_id, kind, detail))

    def you_message(
        self, player_id: str, views: messages.ViewCache | None = None
    ) -> messages.Message | None:
        round_ = self.round
        if round_ is None or not round_.has_player(player_id):
            return None
        assert self.round_id is not None
        part = (views or messages.ViewCache(round_)).player_part(player_id)
        balance = self.money.balances.get(player_id)
        return messages.you(self.table_id, self.round_id, part, balance, round_.phase, round_.step)

    def send_you(self, player_ids: Iterable[str]) -> None:
        if self.round is None:
            return
        views = messages.ViewCache(self.round)
        for player_id in player_ids:
            if self.hub.is_connected(player_id):
                message = self.you_message(player_id, views)
                if message is not None:
                    self.hub.send_player(player_id, message)

    def send_you_all(self) -> None:
        if self.round is not None:
            self.send_you(self.round.player_ids)

    def _results(self, round_: SharedRound) -> dict[str, list[dict[str, Any]]]:
        views = messages.ViewCache(round_)
        return {
            player_id: views.player_part(player_id)["positions"] for player_id in round_.player_ids
        }

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

    def record(self, with_events: bool = True) -> RoundRecord:
        round_, start = self.round, self.shoes.start
        assert round_ is not None and start is not None
        return RoundRecord(
            table_id=self.table_id,
            round_no=self.round_no,
            title=self.rules.key,
            rules_version=self.rules.title.version,
            shoe_number=self.shoes.base + start.shoe_number,
            round_in_shoe=start.round_in_shoe,
            shoe_commitment=start.commitment,
            events=encode_events(round_.events) if with_events else None,
        )

    # ---- bets ------------------------------------------------------------------------------
    def _betting_round(self) -> SharedRound:
        if self.paused:
            raise TablePausedError(f"table {self.table_id!r} is paused: {self.pause_reason}")
        round_ = self.round
        if round_ is None or round_.phase != BETTING:
            raise PhaseError("betting is closed for this round; wait for the next one")
        return round_

    def submit_bet(self, request: BetRequest) -> asyncio.Future[Answer]:
        """Queue a bet for the next batch; the future answers it (ack body or refusal). Outside
        the betting window a retry of a bet already taken still gets its stored answer."""
        try:
            self._betting_round()
        except (RulesError, TablePausedError) as error:
            late = PendingBet(request, asyncio.get_running_loop().create_future())
            self._answer_late([late], error)
            return late.future
        return self.bets.submit(request)

    def _answer_late(self, batch: list[PendingBet], error: Exception) -> None:
        """Bets that missed the window: replays of stored answers, the others ``error``."""
        with self.sessions.begin() as session:
            replayed = TableService(session).replayed_bets([item.request for item in batch])
        for index, item in enumerate(batch):
            item.answer(replayed.get(index, error))

    def _write_bets(self, batch: list[PendingBet]) -> None:
        """One batch: one transaction stakes the bets, then they are placed in the round."""
        try:
            round_ = self._betting_round()
        except (RulesError, TablePausedError) as error:
            self._answer_late(batch, error)
            return
        requests = [item.request for item in batch]
        try:
            with self.sessions.begin() as session:
                outcome = TableService(session).accept_bets(
                    round_, self.record(with_events=False), requests
                )
        except Exception as error:
            log.exception("bets for %s round %s not written", self.table_id, self.round_no)
            for item in batch:
                item.answer(error)
            return
        self.metrics.bets_accepted(self.rules.key, [request for request, _ in outcome.accepted])
        if outcome.accepted:
            try:
                round_.place_bets(*bet_columns(outcome.accepted))
            except RulesError:
                log.exception("staked bets did not fit the round; voiding it")
                self.void("the bets could not be placed after they were staked")
        self.money.bets_staked(outcome.accepted)
        for item, answer in zip(batch, outcome.answers, strict=True):
            item.answer(answer)
        if outcome.accepted:
            self.send_you(request.player_id for request, _ in outcome.accepted)
            self.clock.wake.set()

    def choose_side_bets(self, player: PlayerIdentity, side_bets: list[str]) -> None:
        if not self.private:
            raise ForbiddenError("side bets are chosen at private tables only")
        self.check_access(player)
        round_ = self._betting_round()
        if round_.position_count() or self.bets:
            raise SideBetsLockedError("side bets can be chosen only while no bet is on the table")
        replacement = self._new_round(tuple(side_bets))
        self.offered_side_bets = tuple(side_bets)
        self.round = replacement
        self.broadcast_state()

    # ---- insurance and decisions -----------------------------------------------------------
    def _playing_round(self) -> SharedRound:
        if self.paused:
            raise TablePausedError(f"table {self.table_id!r} is paused: {self.pause_reason}")
        if self.round is None:
            raise PhaseError("no round is in play at this table")
        return self.round

    def take_insurance(self, player: PlayerIdentity, spot: int, kind: str) -> int | None:
        round_ = self._playing_round()
        player_id = player.player_id
        if round_.phase != INSURANCE:
            raise PhaseError(f"the insurance window is not open (the round is in {round_.phase})")
        if kind == "decline":
            decline_insurance(self, round_, player_id, spot)
            return self.money.balances.get(player_id)
        position = round_.position(player_id, spot)
        if kind == "even_money":
            round_.take_even_money(player_id, spot)
        else:
            with self.sessions.begin() as session:
                service = TableService(session)
                balance = service.wallet_balances([player_id]).get(player_id, 0)
                known = round_.player_free_coins(player_id)
                if known is not None and known != balance:
                    round_.set_free_coins([player_id], [balance])  # coins moved elsewhere
                round_.verify_take_insurance(player_id, spot)
                cost = self.rules.insurance.cost.of(round_.main_stake(position))
                order = StakeOrder(player_id, position_key(player_id, spot), "insurance", cost)
                service.stake(self.table_id, self.round_no, [order])
            self.metrics.staked(self.rules.key, [order])
            round_.take_insurance(player_id, spot)
            self.money.balances[player_id] = balance - cost
        self.send_you([player_id])
        self.clock.wake.set()  # a private table's window closes once every offer is answered
        return self.money.balances.get(player_id)

    def decide(self, player: PlayerIdentity, spot: int, step: int, action: str) -> None:
        round_ = self._playing_round()
        if round_.phase == DECISIONS and (spot, step) != (round_.current_spot, round_.step):
            raise PhaseError(
                f"spot {spot} step {step} is not open (open: spot {round_.current_spot} "
                f"step {round_.step})"
            )
        event = round_.decide(player.player_id, spot, action)
        self.waiting.discard(int(event.positions[0]))
        if not self.waiting:
            self.clock.wake.set()

    def open_step(self) -> None:
        """Start waiting for the positions that have a decision to make and whose player
        watches this table (a socket that joined it); the others are autoplayed."""
        round_ = self.round
        assert round_ is not None
        awaiting = round_.positions_awaiting_decision()
        players = round_.players_of(awaiting)
        watching = self.hub.is_watching
        table_id = self.table_id
        self.waiting = {
            position
            for position, player_id in zip(awaiting.tolist(), players, strict=True)
            if watching(player_id, table_id)
        }

    def presence_changed(self, player_id: str, present: bool) -> None:
        """A player started or stopped watching this table: await their decision or not."""
        round_ = self.round
        if round_ is None or round_.phase != DECISIONS or self.clock.kind != "decision":
            return
        position = round_.position_on(player_id, round_.current_spot)
        if position is None:
            return
        if present:
            if position in round_.positions_awaiting_decision():
                self.waiting.add(position)
        else:
            self.waiting.discard(position)
            if not self.waiting:
                self.clock.wake.set()

    def close_step(self) -> np.ndarray:
        """Close the open step: refresh the coins of players whose double or split the round
        may not cover, execute, send the step card to everyone, then stake the extras in the
        ledger. Returns the positions whose view changed (for :meth:`after_step`).

        The stakes are written after the card is out (the step is decided by then: fall-backs
        used the refreshed coins, and nothing else moves coins on this loop in between). If the
        write fails, the round is voided and every stake the ledger holds is returned."""
        round_ = self.round
        assert round_ is not None
        money = self.money
        closed_ms = now_ms()
        spot, step = round_.current_spot, round_.step
        on_spot = round_.positions_on_spot(spot)
        pending = np.array([round_.pending_action(p) for p in on_spot.tolist()], dtype=np.int64)
        movers = on_spot[(pending == int(Action.DOUBLE)) | (pending == int(Action.SPLIT))]
        nodes_before = round_.path_nodes(on_spot)
        doubtful = money.coins_in_doubt(
            round_, movers, lambda player_id: self.seated_elsewhere(player_id, self.table_id)
        )
        if doubtful:
            with self.sessions.begin() as session:
                balances = TableService(session).wallet_balances(doubtful)
            # The round counts coins it paid early (not yet in the wallet) as the player's.
            early = money.uncredited(round_)
            round_.set_free_coins(
                doubtful, [balances.get(player, 0) + early.get(player, 0) for player in doubtful]
            )
        stakes_before = len(round_.extra_stakes)
        event = round_.close_step()
        orders = [
            order
            for stakes in round_.extra_stakes[stakes_before:]
            for order in money.extra_orders(round_, stakes)
        ]
        takers = round_.step_takers.get(spot, [])
        card = None if event.card is None else str(event.card)
        taken = takers[-1] if event.card is not None and takers else 0
        self.hub.broadcast(
            self.table_id,
            messages.step(self.table_id, self.round_id, spot, step, card, taken, closed_ms),
        )
        if orders:
            early = money.uncredited(round_)
            credits = {o.player_id: early[o.player_id] for o in orders if early.get(o.player_id)}
            with self.sessions.begin() as session:
                service = TableService(session)
                # Coins paid early in the round reach the wallet before a double uses them.
                service.credit_early(self.table_id, self.round_no, step, credits)
                service.stake(self.table_id, self.round_no, orders)
                money.balances.update(service.wallet_balances([o.player_id for o in orders]))
            self.metrics.staked(self.rules.key, orders)
            money.credit(credits)
        return np.asarray(on_spot[round_.path_nodes(on_spot) != nodes_before])

    def after_step(self, changed: np.ndarray) -> None:
        """The new public state, then each player whose hands changed or who decides next."""
        round_ = self.round
        assert round_ is not None
        self.broadcast_state()
        touched = np.union1d(changed, round_.positions_awaiting_decision())
        self.send_you(round_.distinct_players_of(touched))

    # ---- settlement and cancellation -------------------------------------------------------
    async def settle(self) -> None:
        """The settled round: pay it and record it in one transaction, then tell each player.
        While the database is away the same write is tried again (never voided for that)."""
        round_ = self.round
        assert round_ is not None
        lines = self.money.round_lines(round_)
        results = self._results(round_)
        record, money = self.record(), self.money
        try:
            after = await write_until_done(
                self.sessions,
                lambda session: TableService(session).settle(
                    record, lines, money.balance_before, results, money.credited
                ),
                what=f"settlement of {self.table_id} round {self.round_no}",
            )
        except LedgerUnavailableError:
            # Given up (logged): voiding could not be written either. The stakes stay in the
            # open ledger round until this server's next start refunds it (crash recovery).
            self.recorded = True  # nothing more is written for this round by this process
            return
        except Exception:
            log.exception("settlement of %s round %s failed; voiding", self.table_id, self.round_no)
            self.void("the settlement could not be written; every stake is returned")
            return
        self.recorded = True
        self.metrics.settled(self.rules.key, results)
        self.money.balances.update(after)
        for line in lines:
            self.hub.send_player(
                line.player_id,
                messages.settled(
                    self.table_id,
                    self.round_id,
                    results[line.player_id],
                    line.staked,
                    line.paid,
                    after.get(line.player_id),
                ),
            )
        self.broadcast_state()

    def void(self, reason: str) -> dict[str, int]:
        """Cancel the round in the core (if still open) and in the ledger; record it once.
        Returns what the cancellation moved into each wallet."""
        round_ = self.round
        assert round_ is not None
        self.bets.fail_all(PhaseError(f"the round was cancelled: {reason}"))
        if round_.phase != CANCELLED and not round_.over:
            round_.cancel(reason)
        if self.recorded:
            return {}
        results = self._results(round_)
        with self.sessions.begin() as session:
            outcome = TableService(session).cancel(
                self.record(), reason, round_.player_ids, self.money.balance_before, results
            )
        self.recorded = True
        if outcome.lines:
            self.metrics.cancelled(self.rules.key, outcome.refunds)
        self.money.balances.update(outcome.balances)
        self.clock.stop()
        self._notify("cancelled", {"round_id": self.round_id, "reason": reason})
        for line in outcome.lines:
            self.hub.send_player(
                line.player_id,
                messages.settled(
                    self.table_id,
                    self.round_id,
                    results.get(line.player_id, []),
                    line.staked,
                    line.paid,
                    outcome.balances.get(line.player_id),
                    cancelled=reason,
                ),
            )
        self.broadcast_state()
        self.clock.wake.set()
        return outcome.refunds

    def void_in_flight(self, reason: str) -> None:
        """At shutdown: cancel and refund the round in play, unless it is settled already."""
        if (
            self.round is not None
            and not self.recorded
            and (self.round.position_count() or self.bets)
        ):
            self.void(reason)

    # ---- operator ----------------------------------------------------------------------------
    def pause(self, reason: str) -> None:
        if self.paused:
            raise ConflictError(f"table {self.table_id!r} is already paused")
        self.paused = True
        self.pause_reason = reason
        if self.round is not None and not self.round.over:
            self.round.pause(reason)
        self.clock.freeze()
        self._notify("paused", reason)
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
        self._notify("resumed", reason)
        self.broadcast_state()
        self.clock.wake.set()

    def cancel(self, reason: str) -> dict[str, Any]:
        round_ = self.round
        if round_ is None or round_.over or (not round_.position_count() and not self.bets):
            raise ConflictError(f"table {self.table_id!r} has no round with bets to cancel")
        round_id = self.round_id
        refunds = self.void(reason)
        return {
            "table_id": self.table_id,
            "round_id": round_id,
            "reason": reason,
            "refunds": [
                {"player_id": player, "amount": amount}
                for player, amount in sorted(refunds.items())
            ],
        }
