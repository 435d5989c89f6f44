"""A cluster gateway's table: ``boundless serve``'s players' side, fed by the coordinator's stream.

:class:`GatewayTable` is a :class:`~boundless.server.tables.desk.TableDesk`, so a player on a
gateway gets exactly what ``boundless serve`` sends (``state``, ``you``, ``step``, ``settled``,
notices, errors) and their bets, insurance, doubles, splits, settlement and refunds are written
by the same code, into this gateway's players' slice of the round (ledger owner
``<gateway>:players``). Its round source is the stream: each round is a follower round holding
this gateway's players' positions (:class:`PlayerSlice`, one part of the gateway's slice);
timers, the shoe and the table-wide counts come in the events' bodies. It tells the coordinator
``decided`` (through the gateway) once every watching player has acted, so a step closes early.

A player whose part of a round was cancelled while they were away (their gateway stopped: the
coordinator refunded that slice and recorded it) is told with a ``settled`` message by whichever
gateway they reach: at once when the round closes if they are connected here, else at their next
``hello``; each such line is claimed once in the database, so nobody is told twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, cast

import numpy as np
import orjson
from sqlalchemy.orm import Session, sessionmaker

from boundless.core.errors import PhaseError
from boundless.core.round import events as ev
from boundless.core.round.follower import BetsReport, FollowerRound, StepReport
from boundless.core.round.phases import INSURANCE, SETTLING
from boundless.core.round.players import PlayerRound
from boundless.core.round.views import spot_bets
from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart
from boundless.ledger.outage import is_transient, one_line, write_until_done
from boundless.server import messages
from boundless.server.cluster.bus import JsonBody, StoredEvent
from boundless.server.cluster.control_desk import operator_event
from boundless.server.cluster.gateway import Gateway
from boundless.server.cluster.protocol import OPERATOR_EVENTS, Public, slice_owners
from boundless.server.cluster.slices import empty_step_report
from boundless.server.cluster.spot_totals import published_spot_bets
from boundless.server.errors import NotFoundError
from boundless.server.event_codec import encode_event
from boundless.server.gateway.hub import Hub
from boundless.server.players.service import PlayerIdentity
from boundless.server.storage.models import Round, RoundPlayer
from boundless.server.tables.bets import PendingBet
from boundless.server.tables.desk import TableDesk
from boundless.server.tables.private import open_offers
from boundless.server.tables.recent import RecentRounds
from boundless.server.tables.repository import TableRepository
from boundless.server.tables.runner import STEP_HEAD_START_SECONDS
from boundless.server.tables.service import RoundRecord
from boundless.wallet import INTERNAL, WalletProvider

log = logging.getLogger("boundless.cluster.gateway_table")
BET_BATCH_MAX = 2000
"""Bets per transaction: a window's thousands of bets are written in slices, so the gateway's
loop sends messages and answers the coordinator in between (PostgreSQL is slower than SQLite).
Each transaction has fixed costs (on an operator's wallet: its intents' commit and a request's
latency), so slices of 1,000 made 100,000 debits miss a 15 s window that 2,000 meet
(docs/performance.md); the bets are placed by columns and answered a few hundred a turn."""
SHUTDOWN_REASON = "the gateway is shutting down; every stake is returned"
NOTHING_STAKED_REASON = "no bet was staked on this gateway"
STEP_WALLET_READ_SECONDS = 1.0
"""The most a step close waits for the wallets of its doubles and splits (an operator's wallet
answers over HTTP): a read past it falls back as a short wallet (no double or split that step),
so the takers report stays well inside the coordinator's report deadline (3 s by default)."""


class GatewayTable(TableDesk):
    def __init__(
        self,
        *,
        table_id: str,
        gateway: str,
        rules: RuleSet,
        chart: StrategyChart | None,
        hub: Hub,
        sessions: sessionmaker[Session],
        bet_batch_seconds: float = 0.01,
        wallets: WalletProvider = INTERNAL,
    ) -> None:
        super().__init__(
            table_id=table_id,
            name=rules.title.name,
            rules=rules,
            chart=chart,
            hub=hub,
            sessions=sessions,
            bet_batch_seconds=bet_batch_seconds,
            bet_batch_max=BET_BATCH_MAX,
            slice_owner=slice_owners(gateway)[1],
            wallets=wallets,
        )
        self.round: FollowerRound | None = None
        self.gateway: Gateway | None = None
        """The gateway that follows the table for this desk (set once it exists)."""
        self.recent = RecentRounds()
        # A player may bet through several gateways: their coins are always worth a look.
        self.seated_elsewhere = lambda _player, _table: True
        self._timer: dict[str, Any] | None = None
        self._shoe_number = 0
        self._opened: ev.RoundOpened | None = None
        self._table_seats: tuple[int, int] | None = None
        self._table_spot_bets: dict[str, Any] | None = None
        """The table's bets per spot, from the coordinator's ``slices`` (``spot_totals``)."""
        """Players and positions at the whole table, once the coordinator has counted them."""
        self._closed_ms = 0
        self._reporting = False
        """Between a step's opening and its ``step_closed``: decisions are taken."""
        self._row_written = False
        """Whether this round's play record row is known to exist (see :meth:`_write_bets`)."""
        self._offers: set[tuple[str, int]] = set()
        """The insurance window's offers to watching players that are still unanswered."""
        self._after_step: asyncio.TimerHandle | None = None
        self._changed = np.zeros(0, dtype=np.int64)
        self._tasks: set[asyncio.Task[None]] = set()
        self._extras: asyncio.Future[None] | None = None
        """The last step's write of its doubles and splits."""
        self._greeting: set[str] = set()
        self._held = False
        """The bet close is held for the ledger (its players were told)."""
        hub.on_presence(self._presence)

    # ---- the round source ------------------------------------------------------------------
    def timer(self) -> dict[str, Any] | None:
        return self._timer

    def shoe_number(self) -> int:
        return self._shoe_number

    def seated(self) -> int:
        if self._table_seats is not None:
            return self._table_seats[0]
        return super().seated()

    def public(self) -> dict[str, Any] | None:
        view = super().public()
        if view is not None:
            # The pause is the coordinator's (its follower round here is never paused itself).
            view["paused"] = self.paused
            if self._table_seats is not None:
                view["positions"] = self._table_seats[1]
            if self._table_spot_bets is not None:
                view.update(self._table_spot_bets)
        return view

    def record(self, with_events: bool = True) -> RoundRecord:
        round_, opened = self.round, self._opened
        assert round_ is not None and opened is not None
        return self.round_record(
            self._shoe_number or None,
            opened.round_in_shoe,
            opened.shoe_commitment,
            follower_log(round_, self.rules) if with_events else None,
        )

    def wake(self) -> None:
        gateway = self.gateway
        if gateway is not None and self.all_decided():
            task = asyncio.get_running_loop().create_task(gateway.decision_made())
            self._tasks.add(task)
            task.add_done_callback(self._reported)

    async def _write_bets(self, batch: list[PendingBet]) -> None:
        round_ = self.round
        if not self._row_written and round_ is not None:
            # The round's record row in a transaction of its own, before the first bets: the
            # gateways' bet batches then never wait for each other's commit to learn who made it.
            await asyncio.to_thread(self._open_round_row, round_, self.record(with_events=False))
        await super()._write_bets(batch)

    def _open_round_row(self, round_: FollowerRound, record: RoundRecord) -> None:
        """In a worker thread, under the desk's lock: a cancellation either comes first (no row)
        or finds ``_row_written`` set (and ends the row)."""
        with self.ledger_lock:
            if self.round is not round_ or round_.over:
                return
            with self.sessions.begin() as session:
                self.service(session).open_round_row(record)
            self._row_written = True

    def _reported(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a decided report failed", exc_info=task.exception())

    def stop_timer(self) -> None:
        self._timer = None

    def set_timer(self, timer: dict[str, Any] | None) -> None:
        """The open window's timer as the coordinator last described it."""
        self._timer = timer

    def deciding(self) -> bool:
        return self._reporting

    def all_decided(self) -> bool:
        """Every watching player has acted: their decisions in a step, their insurance offers."""
        round_ = self.round
        if round_ is None:
            return True
        if round_.phase == INSURANCE:
            return not self._offers
        return not self.waiting

    async def insure(self, player: PlayerIdentity, spot: int, kind: str) -> int | None:
        """The desk's insurance (its stake off the loop), the player's offer answered first:
        the window may close on it (the coordinator's close then waits for the stake, see
        :meth:`PlayerSlice.apply`); a refused answer opens the offer again."""
        answered, round_ = (player.player_id, spot), self.round
        was_open = answered in self._offers
        self._offers.discard(answered)
        try:
            return await super().insure(player, spot, kind)
        except Exception:
            if (
                was_open
                and self.round is round_
                and round_ is not None
                and round_.phase == INSURANCE
            ):
                self._offers.add(answered)
            raise

    # ---- the handler's tables (one here) ---------------------------------------------------
    def get(self, table_id: str) -> TableDesk:
        if table_id != self.table_id:
            raise NotFoundError(f"no table {table_id!r}")
        return self

    def greet(self, player_id: str) -> None:
        """Tell the player what ended while they were away: with the other greetings of this
        moment, in one query (thousands of players connect at once after a gateway restart)."""
        if not self._greeting:
            asyncio.get_running_loop().call_soon(self._greet_all)
        self._greeting.add(player_id)

    def _greet_all(self) -> None:
        greeting, self._greeting = self._greeting, set()
        connected = [player for player in greeting if self.hub.is_connected(player)]
        if connected:
            self._unless_ledger_away("telling players what ended", self.tell_untold, connected)

    def _unless_ledger_away(self, what: str, work: Callable[..., None], *args: Any) -> None:
        """``work(*args)``, a read or a record the table can do without while the database is
        away (untold lines stay untold: told at the player's next hello or round end)."""
        try:
            work(*args)
        except Exception as error:
            if not is_transient(error):
                raise
            log.warning("table %s: %s put off, the ledger is away: %s",
                        self.table_id, what, one_line(error))  # fmt: skip

    def lobby(self, viewer: str | None = None) -> list[dict[str, object]]:
        return [{**self.lobby_row(), "recent": self.recent.rows()}]

    def tell_untold(
        self, player_ids: Sequence[str], table_id: str | None = None, round_no: int | None = None
    ) -> None:
        """``settled`` for each round part of these players cancelled while they were away."""
        with self.sessions.begin() as session:
            claimed = TableRepository(session).claim_untold(player_ids, table_id, round_no)
            if not claimed:
                return
            players = sorted({line.player_id for _, line in claimed})
            balances = self.wallets(session, self.slice_owner).balances(players)
            told = [
                (
                    line.player_id,
                    messages.settled(
                        row.table_id,
                        f"{row.table_id}:{row.round_no}",
                        cast(list[dict[str, Any]], _results_of(line.results_json)),
                        line.staked,
                        line.paid,
                        balances.get(line.player_id),
                        cancelled=_cancelled(row, line),
                    ),
                )
                for row, line in claimed
            ]
        self.hub.send_players([player_id for player_id, _ in told], lambda i: told[i][1])

    # ---- the stream ------------------------------------------------------------------------
    def seen(self, stored: StoredEvent) -> None:
        """Every event of the table, before the gateway acts on it: what the players are shown
        beyond the round itself (timers, the shoe, the whole table's counts, late news)."""
        event = stored.event
        kind, body = Public(event.kind), event.body
        timer = body.get("timer")
        if kind is Public.TABLE and isinstance(timer, dict):
            self._timer = {**timer, "remaining_ms": None}
        if kind is Public.TABLE and body.get("type") == "RoundOpened":
            self._table_seats, self._table_spot_bets = None, None
            self._shoe_number = int(cast(int, body.get("shoe_number", self._shoe_number)))
            for notice in cast(list[dict[str, Any]], body.get("notices", [])):
                self.notify(str(notice["kind"]), notice["detail"])
        elif kind is Public.SLICES:
            players, positions = body.get("players"), body.get("positions")
            if isinstance(players, int) and isinstance(positions, int):
                self._table_seats = (players, positions)
            self._table_spot_bets = published_spot_bets(body)
        elif kind is Public.STEP_CLOSED:
            self._timer = None
            self._closed_ms = int(cast(int, body.get("closed_ms", 0)))
        elif kind is Public.BETTING_HELD:
            self._ledger_hold(body)
        elif kind in (Public.BETTING_CLOSED, Public.ROUND_SETTLING, Public.ROUND_CANCELLED):
            self._timer, self._held = None, False
        elif kind in OPERATOR_EVENTS:
            operator_event(self, kind, body)
        if kind in (Public.ROUND_CLOSED, Public.ROUND_CANCELLED):
            self.rounds_played += 1
        round_ = self.round
        if (
            kind is Public.ROUND_CLOSED
            and round_ is not None
            and round_.phase == SETTLING
            and not round_.position_count()
        ):
            self._unless_ledger_away(
                "ending a round without stakes", self.end_settled_without_positions, round_
            )
        if kind is Public.TABLE and body.get("type") == "RoundOpened" and event.round_number > 1:
            # A new coordinator records a gone gateway's players after its round_cancelled.
            self._unless_ledger_away(
                "telling players what ended", self._tell_ended, event.table, event.round_number - 1
            )

    def _ledger_hold(self, body: JsonBody) -> None:
        """The bet close waits for the ledger (``ledger_hold``): the window's timer as it
        stands now, and the players told once when the hold begins and once when it ends."""
        timer = body.get("timer")
        if isinstance(timer, dict):
            self._timer = {"remaining_ms": None, **cast(dict[str, Any], timer)}
        held = body.get("ledger") == "away"
        if held != self._held:
            self._held = held
            self.notify("ledger_away" if held else "ledger_back", body.get("reason"))
        self.broadcast_state()

    def taken(self, stored: StoredEvent) -> None:
        """The round ended and this gateway ended its own part (its refund or settlement
        written, its players told): tell those whose part ended elsewhere."""
        event = stored.event
        if Public(event.kind) in (Public.ROUND_CLOSED, Public.ROUND_CANCELLED):
            self._unless_ledger_away(
                "telling players what ended", self._tell_ended, event.table, event.round_number
            )

    def _tell_ended(self, table_id: str, round_no: int) -> None:
        """The round ended: tell the players connected here whose part of it ended elsewhere (on
        a gateway they left, or one that stopped and whose slice the coordinator refunded)."""
        with self.sessions.begin() as session:
            untold = TableRepository(session).untold_players(table_id, round_no)
        here = [player for player in untold if self.hub.is_connected(player)]
        if here:
            self.tell_untold(here, table_id, round_no)

    def new_slice(self, round_number: int, opened: ev.RoundOpened) -> PlayerSlice:
        """This gateway's players' part of a new round (the desk's round from now on)."""
        self._flush_after_step()
        follower = FollowerRound(self.rules, opened, chart=self.chart)
        self.round, self.round_no, self._opened = follower, round_number, opened
        self.money.new_round()
        self.waiting = set()
        self.recorded = False
        self.declined_insurance = set()
        self._row_written = False
        self._offers = set()
        self._reporting = False
        self.broadcast_state()
        return PlayerSlice(self, follower)

    def _presence(self, player_id: str, table_id: str, present: bool) -> None:
        if table_id != self.table_id:
            return
        round_ = self.round
        if round_ is not None and round_.phase == INSURANCE:
            if present:
                self._offers |= open_offers(self, [player_id])
            else:
                self._offers = {offer for offer in self._offers if offer[0] != player_id}
                self.wake()
        self.presence_changed(player_id, present)

    def applied(self, follower: FollowerRound, event: ev.TableEvent) -> None:
        """What the players see after a table event was applied (as ``boundless serve`` sends
        them at the same moment of its round)."""
        if isinstance(event, ev.StepOpened):
            self.open_step()
            self._reporting = True
            if self._after_step is None:
                self.broadcast_state()
                self.send_you(follower.distinct_players_of(follower.positions_awaiting_decision()))
        elif isinstance(event, ev.DealerRevealed):
            if self._after_step is None:
                self.broadcast_state()
        else:  # the deal, the insurance window's close, the peek
            if follower.phase == INSURANCE:
                watching = self.hub.is_watching
                players = [p for p in follower.player_ids if watching(p, self.table_id)]
                self._offers = open_offers(self, players)
            self.broadcast_state()
            self.send_you_all()

    async def step_dealt(
        self, follower: FollowerRound, event: ev.StepDealt, before: StepMark
    ) -> None:
        """The step card to every watcher first; its doubles and splits staked (off the loop,
        awaited: nothing after the step is shown or reported before they are written); the new
        state and views a moment later (the card reaches every socket first)."""
        self.broadcast_step(event.spot, event.step, event.card, event.takers, self._closed_ms)
        writing = asyncio.ensure_future(
            self.stake_extras_off_loop(follower, before.extra_stakes, event.step)
        )
        self._extras = writing
        # Shielded: a gateway stopping meanwhile still books what the thread wrote (the
        # cancellation that follows waits for it, see end_cancelled).
        await asyncio.shield(writing)
        changed = before.positions[follower.path_nodes(before.positions) != before.nodes]
        self._changed = np.union1d(self._changed, changed)
        if self._after_step is None:
            loop = asyncio.get_running_loop()
            self._after_step = loop.call_later(STEP_HEAD_START_SECONDS, self._flush_after_step)

    def _flush_after_step(self) -> None:
        if self._after_step is None:
            return
        self._after_step.cancel()
        self._after_step = None
        changed, self._changed = self._changed, np.zeros(0, dtype=np.int64)
        if self.round is not None:
            self.after_step(changed)

    async def close_step(self, follower: FollowerRound) -> StepReport:
        """``step_closed``: no more decisions; real coins for pending doubles and splits (the
        wallets read off the loop, within :data:`STEP_WALLET_READ_SECONDS`); the follower's
        step report (its own decisions, autoplay for the rest)."""
        self._reporting = False
        self.waiting = set()
        on_spot = follower.positions_on_spot(follower.current_spot)
        await self.refresh_doubtful_coins(follower, on_spot, STEP_WALLET_READ_SECONDS)
        return follower.step_report()

    async def end_settled(self, follower: FollowerRound) -> None:
        if not follower.position_count():
            self.end_settled_without_positions(follower)
            return
        self._settle_follower(follower)
        await self.settle()  # off the loop; tried again while the database is away
        self.recent.note_settled(self.round_no, follower)

    def end_settled_without_positions(self, follower: FollowerRound) -> None:
        """A round followed here with no positions of this gateway's: shown to its end."""
        self._settle_follower(follower)
        self._end_row_without_stakes(NOTHING_STAKED_REASON)
        self.broadcast_state()
        self.recent.note_settled(self.round_no, follower)

    def _end_row_without_stakes(self, reason: str) -> None:
        """Bets came here but none was staked (every one refused: the ledger away, too few
        coins): the round's row, written before the first batch, ends too. As any slice's end
        it is cancelled unless a slice settled it (one that settles later makes it settled); a
        row that ended already stays as it is."""
        if not self._row_written:
            return
        with self.ledger_lock, self.sessions.begin() as session:
            self._end_row(session, self.round_no, reason)
        self.recorded = True

    async def _end_row_without_stakes_off_loop(self, reason: str) -> None:
        """:meth:`_end_row_without_stakes` in a worker thread (a cancelled slice's)."""
        if not self._row_written:
            return
        round_no = self.round_no  # taken on the loop, for the worker thread
        await write_until_done(
            self.sessions,
            lambda session: self._end_row(session, round_no, reason),
            what=f"ending the play record of {self.table_id} round {round_no}",
            lock=self.ledger_lock,
        )
        self.recorded = True

    def _end_row(self, session: Session, round_no: int, reason: str) -> None:
        repository = TableRepository(session)
        repository.cancel_without_players(self.table_id, round_no, reason, shared=True)

    def _settle_follower(self, follower: FollowerRound) -> None:
        self._flush_after_step()
        follower.settle()

    async def end_cancelled(self, follower: FollowerRound, reason: str) -> None:
        """This gateway's players' part was cancelled: refund and record it once, the writes
        in a worker thread (a batch of bets being written commits first and is refunded too)."""
        self._flush_after_step()
        await self.insurance_written()  # an insurance stake being written is refunded too
        writing = self._extras
        if writing is not None and not writing.done():
            with contextlib.suppress(Exception):  # its failure is its own caller's to handle
                await asyncio.shield(writing)
        if follower.position_count() or self.bets:
            if not self.recorded:
                await self.void_off_loop(reason)
            if not follower.position_count():  # its bets were still being written: refused
                await self._end_row_without_stakes_off_loop(reason)
            return
        self.bets.fail_all(PhaseError(f"the round was cancelled: {reason}"))
        if not follower.over:
            follower.cancel(reason)
        await self._end_row_without_stakes_off_loop(reason)
        self.stop_timer()
        self.broadcast_state()


class StepMark:
    """The spot's positions and their paths before a step card, and the extra stakes so far."""

    def __init__(self, follower: PlayerRound) -> None:
        self.positions = follower.positions_on_spot(follower.current_spot)
        self.nodes = follower.path_nodes(self.positions)
        self.extra_stakes = len(follower.extra_stakes)


class PlayerSlice:
    """The gateway's players' part of one round (a :class:`~.slices.SliceSide`): the desk's
    follower round, driven by the gateway. A part whose ledger write failed is voided (its
    players refunded) and from then on only reports that it holds nothing."""

    def __init__(self, desk: GatewayTable, follower: FollowerRound) -> None:
        self.desk, self.follower = desk, follower
        self.voided = False

    async def apply(self, event: ev.TableEvent) -> None:
        if self.voided:
            return
        follower = self.follower
        await self.desk.insurance_written()  # the window closes once its stakes are written
        if isinstance(event, ev.StepDealt):
            before = StepMark(follower)
            follower.apply_public(event)
            await self._guarded(self.desk.step_dealt(follower, event, before))
            return
        follower.apply_public(event)
        self.desk.applied(follower, event)

    async def _guarded(self, write: Coroutine[Any, Any, None]) -> None:
        try:
            await write
        except Exception:
            log.exception("table %s round %s: a ledger write failed; voiding this gateway's "
                          "players' part", self.desk.table_id, self.desk.round_no)  # fmt: skip
            await self.cancel("a ledger write failed on this gateway; every stake is returned")

    async def bets_report(self) -> BetsReport:
        await self.desk.bets.drain()  # every bet that came in time is written before the close
        return self.follower.bets_report()

    async def follow_only(self) -> None:
        await self.bets_report()  # no player could bet yet: nothing to stake

    def seats(self) -> tuple[int, int]:
        if self.voided:
            return 0, 0
        return self.follower.player_count(), self.follower.position_count()

    def spot_bets(self) -> dict[str, dict[str, int]]:
        return {} if self.voided else spot_bets(self.follower)

    def in_insurance(self) -> bool:
        return not self.voided and self.follower.phase == INSURANCE

    def all_decided(self) -> bool:
        return self.voided or self.desk.all_decided()

    async def step_report(self) -> StepReport:
        if self.voided:
            return empty_step_report(self.follower)
        return await self.desk.close_step(self.follower)

    async def settle(self) -> JsonBody:
        if self.voided:
            return {"positions": 0}
        await self.desk.end_settled(self.follower)
        return {"positions": self.follower.position_count()}

    async def cancel(self, reason: str) -> None:
        if not self.voided:
            self.voided = True
            await self.desk.end_cancelled(self.follower, reason)


def follower_log(round_: FollowerRound, rules: RuleSet) -> list[dict[str, Any]]:
    """The follower's log for the play record; the dealer's revealed hand says whether its
    second card was a hole card (a peek game) or dealt after the players."""
    peeks = rules.dealer.hole_card == "peek"
    logged = []
    for event in round_.log:
        body = encode_event(event)
        if isinstance(event, ev.DealerRevealed) and peeks:
            body["hole"] = True
        logged.append(body)
    return logged


def _cancelled(row: Round, line: RoundPlayer) -> str | None:
    """The reason a player's part of a round was cancelled; None when it was settled."""
    if (line.status or row.status) != "cancelled":
        return None
    return line.reason or row.reason or "cancelled"


def _results_of(text: str) -> object:
    return orjson.loads(text)
