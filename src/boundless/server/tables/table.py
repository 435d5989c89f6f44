"""One live table: its shoe, the round in play, the players' commands and the operator's.

Everything here runs on the event loop and is synchronous: a command checks, writes to the
database (one transaction, committed) and only then changes the round in memory, so a refused
command changes nothing and two commands never interleave. The clock that moves the round
forward lives in :mod:`boundless.server.tables.runner`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import numpy as np
from sqlalchemy.orm import Session, sessionmaker

from boundless.core.errors import PhaseError, RulesError
from boundless.core.random_source import RandomSource
from boundless.core.round import Action, SharedRound
from boundless.core.round.state import FINAL_STAGES, ExtraStakes
from boundless.core.round.views import public_view
from boundless.core.rules import RuleSet
from boundless.core.shoe_cycle import RoundStart, ShoeCycle
from boundless.core.strategy_chart import StrategyChart
from boundless.ledger.records import StakeOrder
from boundless.server import messages
from boundless.server.clock import now_ms
from boundless.server.config import TimerSettings
from boundless.server.errors import ConflictError, ForbiddenError, TablePausedError
from boundless.server.event_codec import encode_events
from boundless.server.gateway.hub import Hub
from boundless.server.phases import BETTING, CANCELLED, DECISIONS, INSURANCE
from boundless.server.players.service import PlayerIdentity
from boundless.server.tables.clock import TableClock
from boundless.server.tables.repository import TableRepository
from boundless.server.tables.service import (
    BetRequest,
    RoundRecord,
    TableService,
    bet_columns,
    position_key,
)

log = logging.getLogger("boundless.server.table")
EXTRA_KINDS = {int(Action.DOUBLE): "double", int(Action.SPLIT): "split"}


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
        self.timers = timers
        self.owner = owner
        self.offered_side_bets = offered_side_bets
        self.bet_batch_seconds = bet_batch_seconds
        self.cycle = ShoeCycle(rules, randomness)
        self.shoe_base = 0
        self.round_no = 0
        self.round: SharedRound | None = None
        self.start: RoundStart | None = None
        self.paused = False
        self.pause_reason: str | None = None
        self.clock = TableClock()
        self.wake = asyncio.Event()
        self.pending_bets: list[tuple[BetRequest, asyncio.Future[dict[str, Any]]]] = []
        self._flush_handle: asyncio.TimerHandle | None = None
        self.balance_before: dict[str, int] = {}
        self.balances: dict[str, int] = {}
        self.credited: dict[str, int] = {}
        self.waiting: set[int] = set()
        self.recorded = False
        self.shoe_published = False
        self.rounds_played = 0
        self.seated_elsewhere: Callable[[str, str], bool] = lambda _player, _table: False

    # ---- setup and queries -----------------------------------------------------------------
    def load_counters(self) -> None:
        """Continue round and shoe numbering from the database (after a restart)."""
        with self.sessions.begin() as session:
            repository = TableRepository(session)
            self.round_no = repository.last_round_no(self.table_id)
            self.shoe_base = repository.last_shoe_number(self.table_id)

    @property
    def private(self) -> bool:
        return self.owner is not None

    @property
    def shoe_number(self) -> int:
        return self.shoe_base + self.cycle.shoe_number

    @property
    def round_id(self) -> str | None:
        return None if self.round is None else f"{self.table_id}:{self.round_no}"

    def seconds(self, kind: str) -> float:
        return self.timers.seconds(kind, getattr(self.rules.timers, f"{kind}_seconds"))

    def check_access(self, player: PlayerIdentity) -> None:
        if self.owner is not None and player.player_id != self.owner:
            raise ForbiddenError(f"table {self.table_id!r} is another player's private table")

    def lobby_row(self) -> dict[str, Any]:
        round_ = self.round
        return {
            "table_id": self.table_id,
            "title": self.rules.key,
            "name": self.name,
            "private": self.private,
            "players": 0 if round_ is None else round_.player_count(),
            "watchers": self.hub.watcher_count(self.table_id),
            "phase": None if round_ is None else round_.phase,
            "round_no": self.round_no,
            "paused": self.paused,
        }

    def state_message(self) -> messages.Message:
        round_ = self.round
        return {
            "type": "state",
            "table_id": self.table_id,
            "round_id": self.round_id,
            "round_no": self.round_no,
            "shoe_number": self.shoe_number,
            "public": None if round_ is None else public_view(round_),
            "timer": self.clock.describe(),
            "seated": 0 if round_ is None else round_.player_count(),
            "paused": self.paused,
            "server_ms": now_ms(),
        }

    def broadcast_state(self) -> None:
        self.hub.broadcast(self.table_id, self.state_message())

    def you_message(
        self, player_id: str, views: messages.ViewCache | None = None
    ) -> messages.Message | None:
        round_ = self.round
        if round_ is None or not round_.has_player(player_id):
            return None
        assert self.round_id is not None
        part = (views or messages.ViewCache(round_)).player_part(player_id)
        return messages.you(
            self.table_id,
            self.round_id,
            part,
            self.balances.get(player_id),
            round_.phase,
            round_.step,
        )

    def send_you(self, player_ids: Any) -> None:
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

    # ---- rounds ----------------------------------------------------------------------------
    def open_round(self) -> SharedRound:
        start = self.cycle.start_round()
        if start.finished_shoe is not None and not self.shoe_published:
            self._publish_reveal(start.shoe_number - 1 + self.shoe_base, start.finished_shoe)
        if start.shuffled is not None:
            self._record_shuffle(start)
        self.shoe_published = False
        self.start = start
        self.round_no += 1
        self.round = SharedRound(
            self.rules,
            round_in_shoe=start.round_in_shoe,
            chart=self.chart,
            cards=self.cycle.shoe,
            offered_side_bets=self.offered_side_bets,
            shoe_commitment=start.commitment,
            randomness=self.randomness,
        )
        self.balance_before = {}
        self.credited = {}
        self.waiting = set()
        self.recorded = False
        self.clock.stop()
        return self.round

    def _record_shuffle(self, start: RoundStart) -> None:
        assert start.shuffled is not None and self.cycle.shoe is not None
        reveal = self.cycle.shoe.reveal()
        burn = start.shuffled.burn
        burn_body = (
            None
            if burn is None
            else {"revealed": str(burn.revealed), "burned": [str(card) for card in burn.burned]}
        )
        number = self.shoe_base + start.shuffled.shoe_number
        with self.sessions.begin() as session:
            TableRepository(session).add_shoe(
                self.table_id,
                number,
                reveal.commitment,
                reveal.salt_hex,
                [str(card) for card in reveal.cards],
                burn_body,
            )
        detail = {"shoe_number": number, "commitment": reveal.commitment, "burn": burn_body}
        self.hub.broadcast(self.table_id, messages.notice(self.table_id, "shuffle", detail))

    def _publish_reveal(self, shoe_number: int, reveal: Any) -> None:
        with self.sessions.begin() as session:
            TableRepository(session).finish_shoes(self.table_id, shoe_number)
        detail = {"shoe_number": shoe_number, **reveal.to_json(), "verified": reveal.verify()}
        self.hub.broadcast(self.table_id, messages.notice(self.table_id, "shoe_finished", detail))

    def end_round(self, exhausted: bool = False) -> None:
        """After settlement or cancellation: the shoe may be finished (cut card out)."""
        self.rounds_played += 1
        self.clock.stop()
        finished = self.cycle.end_round(voided_by_exhaustion=exhausted)
        if finished and self.cycle.shoe is not None and not self.shoe_published:
            self._publish_reveal(self.shoe_number, self.cycle.shoe.reveal())
            self.shoe_published = True

    def record(self, with_events: bool = True) -> RoundRecord:
        round_ = self.round
        assert round_ is not None and self.start is not None
        return RoundRecord(
            table_id=self.table_id,
            round_no=self.round_no,
            title=self.rules.key,
            rules_version=self.rules.title.version,
            shoe_number=self.shoe_base + self.start.shoe_number,
            round_in_shoe=self.start.round_in_shoe,
            shoe_commitment=self.start.commitment,
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

    def submit_bet(self, request: BetRequest) -> asyncio.Future[dict[str, Any]]:
        """Queue a bet for the next batch; the future answers it (ack body or refusal)."""
        self._betting_round()
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending_bets.append((request, future))
        if self._flush_handle is None:
            loop = asyncio.get_running_loop()
            self._flush_handle = loop.call_later(self.bet_batch_seconds, self.flush_bets)
        return future

    def flush_bets(self) -> None:
        """Write the queued bets: one transaction for the batch, then place them in the round."""
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        batch, self.pending_bets = self.pending_bets, []
        if not batch:
            return
        now_batch: list[tuple[BetRequest, asyncio.Future[dict[str, Any]]]] = []
        later: list[tuple[BetRequest, asyncio.Future[dict[str, Any]]]] = []
        seen: set[str] = set()
        for item in batch:
            (later if item[0].player_id in seen else now_batch).append(item)
            seen.add(item[0].player_id)
        try:
            round_ = self._betting_round()
        except (RulesError, TablePausedError) as error:
            _fail_all(now_batch + later, error)
            return
        requests = [request for request, _ in now_batch]
        try:
            with self.sessions.begin() as session:
                outcome = TableService(session).accept_bets(
                    round_, self.record(with_events=False), requests
                )
        except Exception as error:
            log.exception("bets for %s round %s not written", self.table_id, self.round_no)
            _fail_all(now_batch + later, error)
            return
        if outcome.accepted:
            try:
                round_.place_bets(*bet_columns(outcome.accepted))
            except RulesError:
                log.exception("staked bets did not fit the round; voiding it")
                self.void("the bets could not be placed after they were staked")
        for request, balance in outcome.accepted:
            self.balance_before.setdefault(request.player_id, balance)
            self.balances[request.player_id] = balance - request.total
        for (_, future), answer in zip(now_batch, outcome.answers, strict=True):
            if future.done():
                continue
            if isinstance(answer, Exception):
                future.set_exception(answer)
            else:
                future.set_result(answer)
        if later:
            self.pending_bets = later + self.pending_bets
            self._flush_handle = asyncio.get_running_loop().call_soon(self.flush_bets)  # type: ignore[assignment]
        if outcome.accepted:
            self.send_you(request.player_id for request, _ in outcome.accepted)
            self.wake.set()

    def choose_side_bets(self, player: PlayerIdentity, side_bets: list[str]) -> None:
        if not self.private:
            raise ForbiddenError("side bets are chosen at private tables only")
        self.check_access(player)
        round_ = self._betting_round()
        if round_.position_count() or self.pending_bets:
            raise ConflictError("side bets can be chosen only while no bet is on the table")
        replacement = SharedRound(
            self.rules,
            round_in_shoe=round_.round_in_shoe,
            chart=self.chart,
            cards=self.cycle.shoe,
            offered_side_bets=tuple(side_bets),
            shoe_commitment=self.start.commitment if self.start else None,
            randomness=self.randomness,
        )
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
            round_.take_insurance(player_id, spot)
            self.balances[player_id] = balance - cost
        self.send_you([player_id])
        return self.balances.get(player_id)

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
            self.wake.set()

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
                self.wake.set()

    def close_step(self) -> np.ndarray:
        """Close the open step: refresh the coins of players whose double or split the round
        may not cover, execute, send the step card to everyone, then stake the extras in the
        ledger. Returns the positions whose view changed (for :meth:`after_step`).

        The stakes are written after the card is out (the step is decided by then: fall-backs
        used the refreshed coins, and nothing else moves coins on this loop in between). If the
        write fails, the round is voided and every stake the ledger holds is returned."""
        round_ = self.round
        assert round_ is not None
        closed_ms = now_ms()
        spot, step = round_.current_spot, round_.step
        on_spot = round_.positions_on_spot(spot)
        pending = np.array([round_.pending_action(p) for p in on_spot.tolist()], dtype=np.int64)
        movers = on_spot[(pending == int(Action.DOUBLE)) | (pending == int(Action.SPLIT))]
        nodes_before = round_.path_nodes(on_spot)
        doubtful = self._coins_in_doubt(round_, movers)
        if doubtful:
            with self.sessions.begin() as session:
                balances = TableService(session).wallet_balances(doubtful)
            # The round counts coins it paid early (not yet in the wallet) as the player's.
            early = self._uncredited(round_)
            round_.set_free_coins(
                doubtful, [balances.get(player, 0) + early.get(player, 0) for player in doubtful]
            )
        stakes_before = len(round_.extra_stakes)
        event = round_.close_step()
        orders = [
            order
            for stakes in round_.extra_stakes[stakes_before:]
            for order in self._extra_orders(round_, stakes)
        ]
        takers = round_.step_takers.get(spot, [])
        self.hub.broadcast(
            self.table_id,
            {
                "type": "step",
                "table_id": self.table_id,
                "round_id": self.round_id,
                "spot": spot,
                "step": step,
                "card": None if event.card is None else str(event.card),
                "takers": takers[-1] if event.card is not None and takers else 0,
                "closed_ms": closed_ms,
                "sent_ms": now_ms(),
            },
        )
        if orders:
            early = self._uncredited(round_)
            credits = {o.player_id: early[o.player_id] for o in orders if early.get(o.player_id)}
            with self.sessions.begin() as session:
                service = TableService(session)
                # Coins paid early in the round reach the wallet before a double uses them.
                service.credit_early(self.table_id, self.round_no, step, credits)
                service.stake(self.table_id, self.round_no, orders)
                self.balances.update(service.wallet_balances([o.player_id for o in orders]))
            for player_id, amount in credits.items():
                self.credited[player_id] = self.credited.get(player_id, 0) + amount
        return np.asarray(on_spot[round_.path_nodes(on_spot) != nodes_before])

    def _uncredited(self, round_: SharedRound) -> dict[str, int]:
        """Coins the round paid before settlement that the ledger has not credited yet."""
        early_stages = {payment.stage for payment in round_.payments} - FINAL_STAGES
        paid = round_.paid_by_player(early_stages)
        owed = {}
        for index in np.flatnonzero(paid).tolist():
            player_id = round_.player_ids[index]
            amount = int(paid[index]) - self.credited.get(player_id, 0)
            if amount > 0:
                owed[player_id] = amount
        return owed

    def _coins_in_doubt(self, round_: SharedRound, movers: np.ndarray) -> list[str]:
        """Players with a pending double or split whose coins the round may overstate: those
        short by the round's count, and those betting at another table too."""
        if not len(movers):
            return []
        short = [round_.free_coins(p) < round_.main_stake(p) for p in movers.tolist()]
        ids = round_.players_of(movers)
        return sorted(
            {
                player_id
                for player_id, is_short in zip(ids, short, strict=True)
                if is_short or self.seated_elsewhere(player_id, self.table_id)
            }
        )

    def after_step(self, changed: np.ndarray) -> None:
        """The new public state, then each player whose hands changed or who decides next."""
        round_ = self.round
        assert round_ is not None
        self.broadcast_state()
        touched = np.union1d(changed, round_.positions_awaiting_decision())
        self.send_you(round_.distinct_players_of(touched))

    @staticmethod
    def _extra_orders(round_: SharedRound, stakes: ExtraStakes) -> list[StakeOrder]:
        """Ledger stakes for the doubles and splits one step executed."""
        return [
            StakeOrder(
                player_id,
                f"{player_id}@{stakes.spot}",
                f"{EXTRA_KINDS[action]}:{stakes.step}",
                amount,
            )
            for player_id, action, amount in zip(
                round_.players_of(stakes.positions),
                stakes.actions.tolist(),
                stakes.amounts.tolist(),
                strict=True,
            )
        ]

    # ---- settlement and cancellation -------------------------------------------------------
    def _lines(self) -> tuple[list[tuple[str, int, int]], dict[str, Any]]:
        round_ = self.round
        assert round_ is not None
        staked = round_.staked_by_player()
        paid = round_.paid_by_player()
        lines = [
            (player_id, int(staked[index]), int(paid[index]))
            for index, player_id in enumerate(round_.player_ids)
        ]
        views = messages.ViewCache(round_)
        results = {
            player_id: views.player_part(player_id)["positions"] for player_id in round_.player_ids
        }
        return lines, results

    def settle(self) -> None:
        """The settled round: pay it and record it in one transaction, then tell each player."""
        lines, results = self._lines()
        try:
            with self.sessions.begin() as session:
                after = TableService(session).settle(
                    self.record(), lines, self.balance_before, results, self.credited
                )
        except Exception:
            log.exception("settlement of %s round %s failed; voiding", self.table_id, self.round_no)
            self.void("the settlement could not be written; every stake is returned")
            return
        self.recorded = True
        self.balances.update(after)
        for player_id, staked, paid in lines:
            self.hub.send_player(
                player_id,
                {
                    "type": "settled",
                    "table_id": self.table_id,
                    "round_id": self.round_id,
                    "results": results[player_id],
                    "staked": staked,
                    "paid": paid,
                    "net": paid - staked,
                    "balance": after.get(player_id),
                },
            )
        self.broadcast_state()

    def void(self, reason: str) -> dict[str, int]:
        """Cancel the round in the core (if still open) and in the ledger; record it once."""
        round_ = self.round
        assert round_ is not None
        _fail_all(self.pending_bets, PhaseError(f"the round was cancelled: {reason}"))
        self.pending_bets = []
        if round_.phase != CANCELLED and not round_.over:
            round_.cancel(reason)
        if self.recorded:
            return {}
        lines, results = self._lines()
        with self.sessions.begin() as session:
            refunds = TableService(session).cancel(
                self.record(), reason, lines, self.balance_before, results
            )
            after = TableService(session).wallet_balances([line[0] for line in lines])
        self.recorded = True
        self.balances.update(after)
        self.clock.stop()
        self.hub.broadcast(
            self.table_id,
            messages.notice(
                self.table_id, "cancelled", {"round_id": self.round_id, "reason": reason}
            ),
        )
        for player_id, staked, _ in lines:
            self.hub.send_player(
                player_id,
                {
                    "type": "settled",
                    "table_id": self.table_id,
                    "round_id": self.round_id,
                    "results": results[player_id],
                    "staked": staked,
                    "paid": refunds.get(player_id, 0),
                    "net": refunds.get(player_id, 0) - staked,
                    "balance": after.get(player_id),
                    "cancelled": reason,
                },
            )
        self.broadcast_state()
        self.wake.set()
        return refunds

    # ---- operator ----------------------------------------------------------------------------
    def pause(self, reason: str) -> None:
        if self.paused:
            raise ConflictError(f"table {self.table_id!r} is already paused")
        self.paused = True
        self.pause_reason = reason
        if self.round is not None and not self.round.over:
            self.round.pause(reason)
        self.clock.freeze()
        self.hub.broadcast(self.table_id, messages.notice(self.table_id, "paused", reason))
        self.broadcast_state()
        self.wake.set()

    def resume(self) -> None:
        if not self.paused:
            raise ConflictError(f"table {self.table_id!r} is not paused")
        self.paused = False
        self.pause_reason = None
        if self.round is not None and not self.round.over and self.round.paused:
            self.round.resume()
        self.clock.thaw()
        self.hub.broadcast(self.table_id, messages.notice(self.table_id, "resumed", None))
        self.broadcast_state()
        self.wake.set()

    def cancel(self, reason: str) -> dict[str, Any]:
        round_ = self.round
        if round_ is None or round_.over or (not round_.position_count() and not self.pending_bets):
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


def _fail_all(
    items: list[tuple[BetRequest, asyncio.Future[dict[str, Any]]]], error: Exception
) -> None:
    for _, future in items:
        if not future.done():
            future.set_exception(error)


WaitCondition = Callable[[], bool]
