"""The players' side of a table: their bets, insurance and decisions, their books and messages.

Two kinds of table drive a round. ``boundless serve``'s :class:`~.table.Table` deals it itself
(its own shared round, clock and shoes); a cluster gateway's
:class:`~boundless.server.cluster.gateway_table.GatewayTable` follows a coordinator's event
stream with a follower round holding its own players' positions. Both are a :class:`TableDesk`,
so the message handler, every message a player gets (``state``, ``you``, ``step``,
``settled``, notices) and every ledger write for a player's bet, insurance, double, split,
settlement or refund are the same code either way.

What a desk reads of whoever drives its round is the **round source** (the members marked
below): the round in play and its number, the timer, the shoe, how many are seated, the round's
record, and two signals (``wake``: something a window may end on happened; ``deciding``: a
decision step is waiting for players). A command checks, writes to the database (one
transaction, committed) and only then changes the round in memory, so a refused command changes
nothing. The big writes (a batch of bets, the settlement, a step's doubles and splits and the
wallet reads before them, an insurance stake and its wallet read, a cancellation's refund) run
in a worker thread with a session of their own (an operator's wallet answers each over HTTP),
so the loop serves every other socket meanwhile; the others run on the loop. One lock
(:attr:`TableDesk.ledger_lock`) orders them all: two writes of a desk never overlap, and a
cancellation waits for a batch being written, so it returns those stakes too.
"""

from __future__ import annotations

import asyncio
import logging
import math
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NotRequired, TypedDict, Unpack

import numpy as np
from sqlalchemy.orm import Session, sessionmaker

from boundless.core.cards import Card
from boundless.core.errors import PhaseError, RulesError
from boundless.core.round import BETTING, CANCELLED, DECISIONS, INSURANCE, Action
from boundless.core.round.players import PlayerRound
from boundless.core.round.views import public_view
from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart
from boundless.ledger import LedgerUnavailableError
from boundless.ledger.outage import in_daemon_thread, is_transient, one_line, write_until_done
from boundless.ledger.records import PlayerSettlement, StakeOrder
from boundless.server import messages
from boundless.server.errors import ForbiddenError, TablePausedError
from boundless.server.gateway.hub import Hub
from boundless.server.metrics import UNEXPORTED, ServerMetrics
from boundless.server.players.service import PlayerIdentity
from boundless.server.tables import cancellation, insurance
from boundless.server.tables.bets import Answer, BetBatcher, PendingBet
from boundless.server.tables.money import TableMoney
from boundless.server.tables.private import decline_insurance
from boundless.server.tables.service import (
    BetBatchOutcome,
    BetRequest,
    RoundRecord,
    TableService,
    bet_columns,
)
from boundless.wallet import INTERNAL, WalletProvider

log = logging.getLogger("boundless.server.table")
ANSWERS_PER_TURN = 500
"""Bets of a batch answered per turn of the event loop."""


class DeskSetup(TypedDict):
    """What every table is made with (each kind adds its own round source's)."""

    table_id: str
    name: str
    rules: RuleSet
    chart: StrategyChart | None
    hub: Hub
    sessions: sessionmaker[Session]
    owner: NotRequired[str | None]
    """The private table's player; none for a shared table."""
    bet_batch_seconds: NotRequired[float]
    bet_batch_max: NotRequired[int | None]
    """At most this many bets in one database transaction (none: every bet of the window)."""
    slice_owner: NotRequired[str | None]
    """None: the desk writes whole rounds (``boundless serve``); a name: it writes its own slice
    of rounds that other processes share (a gateway)."""
    wallets: NotRequired[WalletProvider]
    """The wallet port every coin of a player moves through (default: ``internal``)."""


class TableDesk:
    def __init__(self, **setup: Unpack[DeskSetup]) -> None:
        self.table_id = setup["table_id"]
        self.name = setup["name"]
        self.rules = setup["rules"]
        self.chart = setup["chart"]
        self.hub = setup["hub"]
        self.sessions = setup["sessions"]
        self.owner = setup.get("owner")
        self.slice_owner = setup.get("slice_owner")
        self.wallets: WalletProvider = setup.get("wallets", INTERNAL)
        self.bets = BetBatcher(
            setup.get("bet_batch_seconds", 0.01), self._write_bets, setup.get("bet_batch_max")
        )
        self.money = TableMoney()
        self.ledger_lock = threading.Lock()
        """Held by each of the desk's ledger writes, in whichever thread it runs."""
        self.waiting: set[int] = set()
        """Positions of the open step whose decision the table waits for."""
        self.recorded = False
        """Whether this round's end (settlement or cancellation) is written."""
        self.min_cycle_seconds = 0.0
        """(A private table) the shortest time from one deal to the next (the jurisdiction's)."""
        self.last_deal_at: float | None = None
        self.refund_pending = False
        """A cancellation given up while the database was away: the next start refunds it."""
        self.declined_insurance: set[tuple[str, int]] = set()
        """Insurance offers declined this round (a private table closes the window on answers)."""
        self.insurance_writes: set[asyncio.Task[int | None]] = set()
        """Insurance stakes being written: the window closes only once they are."""
        self.seated_elsewhere: Callable[[str, str], bool] = lambda _player, _table: False
        self.metrics: ServerMetrics = UNEXPORTED
        # ---- the round source (kept up to date by whoever drives the round) ----------------
        self.round: PlayerRound | None = None
        self.round_no = 0
        self.rounds_played = 0
        self.paused = False
        self.pause_reason: str | None = None

    def timer(self) -> dict[str, Any] | None:
        """The open window's timer as the ``state`` message shows it (round source)."""
        raise NotImplementedError

    def shoe_number(self) -> int:
        """The shoe the round is dealt from (round source)."""
        raise NotImplementedError

    def seated(self) -> int:
        """Players with a bet in the round (round source)."""
        return 0 if self.round is None else self.round.player_count()

    def public(self) -> dict[str, Any] | None:
        """The round's public view for ``state`` (round source)."""
        return None if self.round is None else public_view(self.round)

    def record(self, with_events: bool = True) -> RoundRecord:
        """What the play record stores about the round (round source)."""
        raise NotImplementedError

    def round_record(
        self,
        shoe_number: int | None,
        round_in_shoe: int | None,
        commitment: str | None,
        events: Any,
    ) -> RoundRecord:
        return RoundRecord(
            table_id=self.table_id,
            round_no=self.round_no,
            title=self.rules.key,
            rules_version=self.rules.title.version,
            shoe_number=shoe_number,
            round_in_shoe=round_in_shoe,
            shoe_commitment=commitment,
            events=events,
        )

    def wake(self) -> None:
        """Something a window may end on happened: a bet, a decision, an answer (round source)."""
        raise NotImplementedError

    def stop_timer(self) -> None:
        """The round was cancelled: no window is open any more (round source)."""
        raise NotImplementedError

    def deciding(self) -> bool:
        """Whether a decision step is open and waiting for players (round source)."""
        raise NotImplementedError

    def away(self, players: Iterable[str]) -> list[str]:
        """Of these players, those a shared round's other processes are to tell how the round
        ended (no socket of theirs is here); one process has nobody else to tell them."""
        if self.slice_owner is None:
            return []
        return [player for player in players if not self.hub.is_connected(player)]

    def recorded_players(self, round_: PlayerRound) -> Sequence[str]:
        """The players whose results are recorded and sent (every player of the round)."""
        return round_.player_ids

    # ---- queries ---------------------------------------------------------------------------
    @property
    def private(self) -> bool:
        return self.owner is not None

    @property
    def round_id(self) -> str | None:
        return None if self.round is None else f"{self.table_id}:{self.round_no}"

    def service(self, session: Session) -> TableService:
        return TableService(session, slice_owner=self.slice_owner, wallets=self.wallets)

    def check_access(self, player: PlayerIdentity) -> None:
        if self.owner is not None and player.player_id != self.owner:
            raise ForbiddenError(f"table {self.table_id!r} is another player's private table")

    def lobby_row(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "title": self.rules.key,
            "name": self.name,
            "private": self.private,
            "players": self.seated(),
            "watchers": self.hub.watcher_count(self.table_id),
            "phase": None if self.round is None else self.round.phase,
            "round_no": self.round_no,
            "paused": self.paused,
            # The side bets open at this table (a private table offers the ones its owner chose).
            "side_bets": None if self.round is None else list(self.round.offered_side_bets),
        }

    # ---- messages out ----------------------------------------------------------------------
    def state_message(self) -> messages.Message:
        return messages.state(
            self.table_id,
            self.round_id,
            self.round_no,
            self.shoe_number(),
            self.public(),
            self.timer(),
            self.seated(),
            self.paused,
        )

    def broadcast_state(self) -> None:
        self.hub.broadcast(self.table_id, self.state_message())

    def notify(self, kind: str, detail: Any) -> None:
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
        """Each connected player of ``player_ids`` their ``you``, the views built in one pass
        (thousands of players share a few distinct views)."""
        round_ = self.round
        if round_ is None:
            return
        connected = [player_id for player_id in player_ids if self.hub.is_connected(player_id)]
        if not connected:
            return
        assert self.round_id is not None
        parts = messages.ViewCache(round_).player_parts(connected)
        balances = self.money.balances
        table_id, round_id, phase, step = self.table_id, self.round_id, round_.phase, round_.step
        shown = [
            (player_id, part, balances.get(player_id))
            for player_id, part in zip(connected, parts, strict=True)
            if part is not None
        ]

        def you(index: int) -> messages.Message:
            _, part, balance = shown[index]
            return messages.you(table_id, round_id, part, balance, phase, step)

        self.hub.send_players([player_id for player_id, _, _ in shown], you)

    def send_you_all(self) -> None:
        if self.round is not None:
            self.send_you(self.round.player_ids)

    def results(self, round_: PlayerRound) -> dict[str, list[dict[str, Any]]]:
        """The recorded players' positions as the play record and ``settled`` show them."""
        players = list(self.recorded_players(round_))
        parts = messages.ViewCache(round_).player_parts(players)
        return {
            player_id: [] if part is None else part["positions"]
            for player_id, part in zip(players, parts, strict=True)
        }

    def broadcast_step(
        self, spot: int, step: int, card: Card | None, takers: int, closed_ms: int
    ) -> None:
        """A closed step's card to every watcher (sent before the new state)."""
        shown = None if card is None else str(card)
        taken = takers if card is not None else 0
        self.hub.broadcast(
            self.table_id,
            messages.step(self.table_id, self.round_id, spot, step, shown, taken, closed_ms),
        )

    # ---- bets ------------------------------------------------------------------------------
    def betting_round(self) -> PlayerRound:
        """The round taking bets now (``wrong_phase`` or ``table_paused`` otherwise)."""
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
            self.betting_round()
        except (RulesError, TablePausedError) as error:
            late = PendingBet(request, asyncio.get_running_loop().create_future())
            self._answer_late([late], error)
            return late.future
        return self.bets.submit(request)

    def _replayed(self, requests: list[BetRequest]) -> dict[int, Any]:
        with self.sessions.begin() as session:
            return self.service(session).replayed_bets(requests, self.table_id)

    def _answer_late(self, batch: list[PendingBet], error: Exception) -> None:
        """Bets that missed the window: replays of stored answers, the others ``error``."""
        _answer_replays(batch, self._replayed([item.request for item in batch]), error)

    def stake_bets(
        self, round_: PlayerRound, record: RoundRecord, requests: list[BetRequest]
    ) -> BetBatchOutcome:
        """A batch's transaction (in a worker thread); refused if the round was cancelled or
        replaced before it took the lock."""
        with self.ledger_lock:
            if self.round is not round_ or round_.phase == CANCELLED:
                raise PhaseError("the round was cancelled while the bets waited")
            with self.sessions.begin() as session:
                return self.service(session).accept_bets(round_, record, requests)

    async def _write_bets(self, batch: list[PendingBet]) -> None:
        """One batch: one transaction stakes the bets (off the loop), then they are placed in
        the round."""
        requests = [item.request for item in batch]
        try:
            round_ = self.betting_round()
        except (RulesError, TablePausedError) as error:
            _answer_replays(batch, await asyncio.to_thread(self._replayed, requests), error)
            return
        try:
            outcome = await asyncio.to_thread(
                self.stake_bets, round_, self.record(with_events=False), requests
            )
        except Exception as error:
            if is_transient(error):  # the database away or full: one line, the bets refused
                log.warning(
                    "bets for %s round %s not written: %s",
                    self.table_id,
                    self.round_no,
                    one_line(error),
                )
            elif not isinstance(error, RulesError):
                log.exception("bets for %s round %s not written", self.table_id, self.round_no)
            for item in batch:
                item.answer(error)
            return
        if self.round is not round_ or round_.over:
            # Cancelled after the stakes were written: the cancellation returned them too.
            for item in batch:
                item.answer(PhaseError("the round was cancelled; every stake is returned"))
            return
        self.metrics.bets_accepted(self.rules.key, [request for request, _ in outcome.accepted])
        if outcome.accepted:
            try:
                self._place_staked(round_, outcome)
            except RulesError:
                log.exception("staked bets did not fit the round; voiding it")
                self.void("the bets could not be placed after they were staked")
        self.money.bets_staked(outcome.accepted)
        # A few hundred answers per turn of the loop: each wakes its socket's handler, and
        # 10,000 of them at once would hold the loop for all their acks.
        answers = list(zip(batch, outcome.answers, strict=True))
        for start in range(0, len(answers), ANSWERS_PER_TURN):
            if start:
                await asyncio.sleep(0)
            for item, answer in answers[start : start + ANSWERS_PER_TURN]:
                item.answer(answer)
        if outcome.accepted:
            self.send_you(request.player_id for request, _ in outcome.accepted)
            self.wake()

    def _place_staked(self, round_: PlayerRound, outcome: BetBatchOutcome) -> None:
        """Place bets already staked. A pause that came while they were written comes after
        them: they are placed as of before it (the log's replay applies events unchecked)."""
        paused, round_.paused = round_.paused, False
        try:
            round_.place_bets(*bet_columns(outcome.accepted))
        finally:
            round_.paused = paused

    def choose_side_bets(self, player: PlayerIdentity, side_bets: list[str]) -> None:
        raise ForbiddenError("side bets are chosen at private tables only")

    # ---- insurance and decisions -----------------------------------------------------------
    def _playing_round(self) -> PlayerRound:
        if self.paused:
            raise TablePausedError(f"table {self.table_id!r} is paused: {self.pause_reason}")
        if self.round is None:
            raise PhaseError("no round is in play at this table")
        return self.round

    async def insure(self, player: PlayerIdentity, spot: int, kind: str) -> int | None:
        """The handler's call for insurance. Taking it reads the wallet and writes the stake in
        worker threads (an operator's wallet answers over HTTP), the write tried again while
        the database is busy: the loop serves every other socket meanwhile. The window waits for
        it (:meth:`insurance_written`). Even money and a decline write nothing."""
        round_ = self._playing_round()
        player_id = player.player_id
        if round_.phase != INSURANCE:
            raise PhaseError(f"the insurance window is not open (the round is in {round_.phase})")
        if kind == "decline":
            decline_insurance(self, round_, player_id, spot)
            return self.money.balances.get(player_id)
        if kind == "even_money":
            round_.take_even_money(player_id, spot)
            return self._insurance_answered(player_id)
        task = asyncio.ensure_future(self._insure(round_, player_id, spot))
        self.insurance_writes.add(task)
        task.add_done_callback(self.insurance_writes.discard)
        return await asyncio.shield(task)  # a socket closing meanwhile does not stop the write

    async def _insure(self, round_: PlayerRound, player_id: str, spot: int) -> int | None:
        await insurance.stake_off_loop(self, round_, player_id, spot)
        return self._insurance_answered(player_id)

    def _insurance_answered(self, player_id: str) -> int | None:
        self.send_you([player_id])
        self.wake()  # a window that closes on answers (a private table's) may close now
        return self.money.balances.get(player_id)

    async def insurance_written(self) -> None:
        """Wait for the insurance stakes being written (before the window closes)."""
        while self.insurance_writes:
            await asyncio.gather(*self.insurance_writes, return_exceptions=True)

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
            self.wake()

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
        if round_ is None or round_.phase != DECISIONS or not self.deciding():
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
                self.wake()

    # ---- closing a step --------------------------------------------------------------------
    async def refresh_doubtful_coins(
        self, round_: PlayerRound, on_spot: np.ndarray, seconds: float | None = None
    ) -> None:
        """Before a step executes: the wallets of players whose double or split the round may
        not cover (see :meth:`doubtful_players`), so fall-backs use the coins the wallet would
        let each add now. Read in a worker thread (SQLite may be busy writing; an operator's
        wallet answers over HTTP); a read not done within ``seconds`` counts as unreadable."""
        doubtful = self.doubtful_players(round_, on_spot)
        if not doubtful:
            return
        try:
            reading = in_daemon_thread(lambda: self.spendable_of(doubtful))
            balances = await asyncio.wait_for(reading, seconds)
        except Exception as error:
            self.wallets_unreadable(round_, doubtful, error)
            return
        self.refreshed_coins(round_, doubtful, balances)

    def spendable_of(self, player_ids: list[str]) -> dict[str, int]:
        """What the wallet lets each add to the round now (the fall-backs' coins)."""
        with self.sessions.begin() as session:
            return self.service(session).wallet.spendable(player_ids)

    def wallets_unreadable(
        self, round_: PlayerRound, doubtful: list[str], error: Exception
    ) -> None:
        """The wallets of ``doubtful`` could not be read at a step close: no coins are known to
        cover their doubles and splits, so they fall back as for a short wallet (the step goes
        on; nothing is staked). An error that is not the database away (or a read too slow)
        is raised."""
        if not is_transient(error) and not isinstance(error, TimeoutError):
            raise error
        log.warning("table %s: wallets unreadable at a step close, doubles and splits fall "
                    "back: %s", self.table_id, one_line(error))  # fmt: skip
        round_.set_free_coins(doubtful, [0] * len(doubtful))

    def doubtful_players(self, round_: PlayerRound, on_spot: np.ndarray) -> list[str]:
        """The players of ``on_spot`` with a pending double or split whose coins the round may
        overstate (their wallets are read before the step closes): every one of them where the
        wallet checks every extra stake (a limit, an operator's wallet), else those short by the
        round's count or betting elsewhere too."""
        pending = np.array([round_.pending_action(p) for p in on_spot.tolist()], dtype=np.int64)
        movers = on_spot[(pending == int(Action.DOUBLE)) | (pending == int(Action.SPLIT))]
        if not len(movers):
            return []
        with self.sessions() as session:  # no query: the wallet only says what it checks
            every = self.service(session).wallet.checks_every_extra
        if every:
            return sorted(set(round_.players_of(movers)))
        return self.money.coins_in_doubt(
            round_, movers, lambda player_id: self.seated_elsewhere(player_id, self.table_id)
        )

    def refreshed_coins(
        self, round_: PlayerRound, doubtful: list[str], balances: dict[str, int]
    ) -> None:
        """The round's free coins of ``doubtful`` from their wallets as just read."""
        # The round counts coins it paid early (not yet in the wallet) as the player's.
        early = self.money.uncredited(round_)
        round_.set_free_coins(
            doubtful, [balances.get(player, 0) + early.get(player, 0) for player in doubtful]
        )

    async def stake_extras_off_loop(
        self, round_: PlayerRound, stakes_before: int, step: int
    ) -> None:
        """After a step executed (its card already sent): stake its doubles and splits, in a
        worker thread, tried again under the same keys while the database is away (the loop
        serves sockets meanwhile). The step is decided by then: fall-backs used the refreshed
        coins. The caller awaits it before it shows or reports anything after the step."""
        planned = self._extra_orders(round_, stakes_before)
        if planned is None:
            return
        round_no = self.round_no  # taken on the loop, for the worker thread
        balances = await write_until_done(
            self.sessions,
            lambda session: self._write_extras(session, round_no, step, *planned),
            what=f"doubles and splits of {self.table_id} round {round_no} step {step}",
            lock=self.ledger_lock,
        )
        self._extras_staked(*planned, balances)

    def _extra_orders(
        self, round_: PlayerRound, stakes_before: int
    ) -> tuple[list[StakeOrder], dict[str, int]] | None:
        """The ledger orders of the doubles and splits since ``stakes_before``, and the early
        payments to credit first; None when the step made none."""
        money = self.money
        orders = [
            order
            for stakes in round_.extra_stakes[stakes_before:]
            for order in money.extra_orders(round_, stakes)
        ]
        if not orders:
            return None
        early = money.uncredited(round_)
        credits = {o.player_id: early[o.player_id] for o in orders if early.get(o.player_id)}
        return orders, credits

    def _write_extras(
        self,
        session: Session,
        round_no: int,
        step: int,
        orders: list[StakeOrder],
        credits: dict[str, int],
    ) -> dict[str, int]:
        """The extra stakes' transaction (the caller holds the desk's lock): the wallets after."""
        service = self.service(session)
        # Coins paid early in the round reach the wallet before a double uses them.
        service.credit_early(self.table_id, round_no, step, credits)
        service.stake(self.table_id, round_no, orders)
        return service.wallet_balances([o.player_id for o in orders])

    def _extras_staked(
        self, orders: list[StakeOrder], credits: dict[str, int], balances: dict[str, int]
    ) -> None:
        self.money.balances.update(balances)
        self.metrics.staked(self.rules.key, orders)
        self.money.credit(credits)

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
        before, credited = dict(self.money.balance_before), dict(self.money.credited)

        def inputs() -> tuple[list[PlayerSettlement], dict[str, list[dict[str, Any]]], RoundRecord]:
            """Read from the settled round alone, which nothing changes any more."""
            return self.money.round_lines(round_), self.results(round_), self.record()

        # Each player's lines and results and the play record's events (thousands of
        # decisions) are made off the loop: 10,000 players' worth took 100-200 ms of one turn.
        lines, results, record = await asyncio.to_thread(inputs)
        away = self.away(results)

        def write(session: Session) -> dict[str, int]:
            with self.ledger_lock:
                return self.service(session).settle(record, lines, before, results, credited, away)

        try:
            # In a worker thread: the inputs are taken here, the loop serves sockets meanwhile.
            # Tried until written (a database away, a full disk): the round is never left open
            # while the server runs; a stop leaves it to the next start's recovery.
            after = await write_until_done(
                self.sessions,
                write,
                what=f"settlement of {self.table_id} round {self.round_no}",
                seconds=math.inf,
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
        told = [line for line in lines if line.player_id in results]
        table_id, round_id = self.table_id, self.round_id

        def settled(index: int) -> messages.Message:
            line = told[index]
            return messages.settled(
                table_id,
                round_id,
                results[line.player_id],
                line.staked,
                line.paid,
                after.get(line.player_id),
            )

        self.hub.send_players([line.player_id for line in told], settled)
        self.broadcast_state()

    def void(self, reason: str) -> dict[str, int]:
        """Cancel the round in the core and in the ledger, record it once; what the
        cancellation moved into each wallet (see :mod:`.cancellation`)."""
        return cancellation.void(self, reason)

    async def void_off_loop(self, reason: str, seconds: float | None = None) -> dict[str, int]:
        """:meth:`void` with its write in a worker thread (see :mod:`.cancellation`)."""
        return await cancellation.void_off_loop(self, reason, seconds)

    def _cancel_inputs(self, reason: str, results: dict[str, Any]) -> tuple[Any, ...]:
        return cancellation.cancel_inputs(self, reason, results)

    def has_round_to_void(self) -> bool:
        return cancellation.has_round_to_void(self)

    def void_in_flight(self, reason: str) -> None:
        cancellation.void_in_flight(self, reason)


def _answer_replays(batch: list[PendingBet], replayed: dict[int, Any], error: Exception) -> None:
    """Each bet its stored answer where it has one (by its index in ``batch``), else ``error``."""
    for index, item in enumerate(batch):
        item.answer(replayed.get(index, error))
