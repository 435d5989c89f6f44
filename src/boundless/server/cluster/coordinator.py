"""The table's coordinator: one active per table, holding the lease; any number of standbys.

While it holds the lease it runs rounds on the core's table dealer: it opens and closes the
betting window, deals, runs the insurance window and the steps (closing each at its deadline or
as soon as every gateway reports its players decided), hands the gateways' step reports to the
dealer so each step's card goes out once, and closes the round when the gateways have settled.
Every event it appends names the log's last sequence, so a coordinator that lost its lease
cannot write after its successor. A coordinator that takes over finds the round its predecessor
left in flight and continues it from the log and the stored shoe (``takeover``): the same cards
and steps, every slice settled; only a round it cannot deal on exactly is cancelled (exactly
once: the append is fenced), its reason saying why.

For the gateways' players it stamps each window's deadline on the event that opens it, the close
time on each ``step_closed``, the shoe's number and notices on ``RoundOpened``, and it records the
play record of a dropped gateway's players (their part refunded, to be told when they are back).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from boundless.core.round import events as ev
from boundless.core.round.dealer_rebuild import Rebuilt, same_event
from boundless.core.round.dealer_table import TableDealer
from boundless.core.round.phases import DECISIONS, INSURANCE
from boundless.server.clock import now_ms
from boundless.server.cluster.bus import (
    Bus,
    JsonBody,
    Lease,
    LeaseLostError,
    ReportKind,
    RoundEvent,
    StaleWriterError,
    StoredEvent,
    in_sequence,
)
from boundless.server.cluster.bus_trouble import BusTrouble
from boundless.server.cluster.control import OperatorCancel, TableControl
from boundless.server.cluster.gateway_presence import GatewayPresence, watch_gateways
from boundless.server.cluster.ledger_chores import DroppedRecords, RoundBooks, RoundLedger
from boundless.server.cluster.ledger_hold import Answers, HoldTimers, LedgerHold
from boundless.server.cluster.protocol import (
    INSURANCE_KEY,
    OPERATOR_EVENTS,
    ROUND_ENDS,
    Public,
    step_key,
)
from boundless.server.cluster.reports import ReportBox, bets_report_of, step_report_of
from boundless.server.cluster.spot_totals import table_spot_bets
from boundless.server.cluster.takeover import (
    REPORT_SEQ,
    CannotContinue,
    DealerResume,
    RoundInFlight,
    cancel_reason,
    report_start,
    round_in_flight,
)
from boundless.server.event_codec import encode_event

log = logging.getLogger("boundless.cluster.coordinator")
Continuation = tuple[RoundInFlight, Rebuilt]
STOP_REASON = "the table was stopped during the round; every stake was returned"
NO_BETS_REASON = "no bets were placed"
NO_STAKES_REASON = "no bets could be staked: the coin ledger is away; nothing was taken"
"""A round every gateway with bets sat out for the ledger (``sat_out`` on its bet report)."""


@dataclass(frozen=True, slots=True)
class CoordinatorTimers:
    betting_seconds: float = 15.0
    insurance_seconds: float = 10.0
    decision_seconds: float = 10.0
    report_seconds: float = 3.0
    """How long a gateway has to answer a close before it is dropped from the round."""
    alive_report_seconds: float = 12.0
    """How much longer a late gateway is waited for while the bus shows trouble (``BusTrouble``)
    and the gateway a live process (``GatewayPresence.alive``): a NATS leader election holds
    every report for seconds. With the bus well, a late gateway is dropped at the deadline."""
    settle_seconds: float = 30.0
    round_gap_seconds: float = 3.0
    lease_renew_seconds: float = 1.5
    standby_poll_seconds: float = 1.0
    presence_poll_seconds: float = 0.5
    """How often the gateways' name leases are read (a gone one is awaited no longer)."""
    ledger_wait_seconds: float = 1.0
    """How long the round waits for one of the coordinator's ledger writes before it goes on
    while the write is tried again (``ledger_chores``: the database away holds no round)."""
    ledger_hold: HoldTimers = field(default_factory=HoldTimers)
    """How a bet close waits for a ledger that does not answer (``ledger_hold``)."""


class ShoeNews(Protocol):
    """What the coordinator's shoes tell the players (``StoredShoes`` in ``processes``)."""

    def lead(self) -> None:
        """This coordinator deals the table from now on (retire a predecessor's shoe)."""
        ...

    @property
    def shoe_number(self) -> int: ...

    def take_notices(self) -> list[tuple[str, dict[str, Any]]]:
        """Shoe notices (``shuffle``, ``shoe_finished``) since the last call."""
        ...


class _Writer:
    """Appends one round's events, each fenced on the sequence of the one before."""

    def __init__(self, bus: Bus, table: str, last_seq: int, trouble: BusTrouble) -> None:
        self._bus, self._table, self.last_seq = bus, table, last_seq
        self._trouble = trouble
        self.round_number = 0
        self._index = 0
        self._round_start: int | None = None
        self._lock = asyncio.Lock()
        """The round and the operator's pause and resume append through one writer."""

    def start_round(self, round_number: int, *, index: int = 0, start: int | None = None) -> None:
        self.round_number, self._index, self._round_start = round_number, index, start

    async def append(self, kind: Public, body: JsonBody) -> int:
        async with self._lock:
            event = RoundEvent(self._table, self.round_number, self._index, kind.value, body)
            started = time.monotonic()
            result = await self._bus.append_event(
                event, expected_last_seq=self.last_seq, round_start_seq=self._round_start
            )
            self._trouble.timed(f"appending {kind.value}", started)
            self.last_seq = result.seq
            self._round_start = self._round_start or result.seq
            self._index += 1
            return result.seq


class Coordinator:
    def __init__(
        self,
        bus: Bus,
        table: str,
        holder: str,
        new_dealer: Callable[[int], TableDealer],
        timers: CoordinatorTimers = CoordinatorTimers(),
        *,
        gateways: frozenset[str] = frozenset(),
        ledger: RoundLedger | None = None,
        records: DroppedRecords | None = None,
        shoes: ShoeNews | None = None,
        control: TableControl | None = None,
        resume: DealerResume | None = None,
        presence: GatewayPresence | None = None,
        ledger_answers: Answers | None = None,
    ) -> None:
        """``ledger_answers``: whether the ledger's database answers now; with it, a bet close
        waits for a database that does not (``ledger_hold``)."""
        self.ledger, self.records, self.shoes = ledger, records, shoes
        self.presence = presence or GatewayPresence(bus, table)
        """Tells which gateways' processes are gone (their reports are then awaited no more)."""
        self.trouble = BusTrouble(bus, table)
        """Whether the bus was in trouble lately (a late report is then waited for)."""
        self.resume = resume
        """Deals a predecessor's round on (without it, a round in flight is cancelled)."""
        self.control = control or TableControl(table)
        self.hold = LedgerHold(table, ledger_answers, self.control, timers.ledger_hold)
        self.bus, self.table, self.holder = bus, table, holder
        self._new_dealer = new_dealer
        self.timers = timers
        self.rounds_played = 0
        self.active = asyncio.Event()
        """Set while this coordinator holds the lease (tests and status pages watch it)."""
        self._dropped: set[str] = set()
        self._lease: Lease | None = None
        self.stopping = asyncio.Event()
        self._known: set[str] = set(gateways)
        """Gateways expected at the next bet close: the betting report waits for these at most
        (others may still join within the report deadline)."""
        self.books = RoundBooks(table, ledger, records, timers.ledger_wait_seconds)
        """The ledger writes the round need not wait for (opening, ending, dropped slices)."""

    async def run(self, *, rounds: int | None = None) -> None:
        """Stand by for the lease, then play rounds while holding it (``rounds``: stop after;
        :meth:`stop`: end the round in flight and stop)."""
        while rounds is None or self.rounds_played < rounds:
            lease = await self._wait_for_lease()
            if lease is None:
                return  # stopped while standing by
            self._lease = lease
            self.active.set()
            stopped = False
            try:
                stopped = await self._lead_until_stopped(lease, rounds)
            except* (LeaseLostError, StaleWriterError) as lost:
                log.warning("%s lost table %s: %s", self.holder, self.table, lost.exceptions[0])
            finally:
                self.active.clear()
            if stopped:
                await self._stop_leading()
                await self.books.drain(self.timers.settle_seconds)
                return
            await self.books.drain(self.timers.settle_seconds)
            if rounds is not None and self.rounds_played >= rounds:
                with contextlib.suppress(LeaseLostError):
                    await self.bus.release_lease(self._lease)

    def stop(self) -> None:
        """An orderly stop (SIGTERM): the round in flight is cancelled and ended in the ledger,
        the lease released."""
        self.stopping.set()

    async def _wait_for_lease(self) -> Lease | None:
        while not self.stopping.is_set():
            lease = await self.bus.acquire_lease(self.table, self.holder)
            if lease is not None:
                log.info("%s holds the lease of table %s", self.holder, self.table)
                return lease
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stopping.wait(), self.timers.standby_poll_seconds)
        return None

    async def _lead_until_stopped(self, lease: Lease, rounds: int | None) -> bool:
        """Lead until done (False) or until :meth:`stop` (True: leading was interrupted)."""
        leading = asyncio.ensure_future(self._lead(lease, rounds))
        stopping = asyncio.ensure_future(self.stopping.wait())
        try:
            await asyncio.wait({leading, stopping}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            leading.cancel()  # this coordinator itself is cancelled: its leading with it
            raise
        finally:
            stopping.cancel()
        if leading.done():
            leading.result()
            return False
        leading.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await leading
        return True

    async def _stop_leading(self) -> None:
        """Cancel the round the interrupted leading left in flight (its slices refunded, the
        ledger round ended; a settling one is let finish), then give the lease back."""
        assert self._lease is not None
        box = ReportBox()
        reading = asyncio.ensure_future(self._read_reports(box, await self._report_start()))
        try:
            writer, settling = await self._recover(box, stop_reason=STOP_REASON)
            if settling is not None:
                await self._continue_round(writer, box, *settling)
        except (LeaseLostError, StaleWriterError) as lost:
            log.warning("%s stopping: %s", self.holder, lost)  # a successor has the round
        finally:
            reading.cancel()
        with contextlib.suppress(LeaseLostError):
            await self.bus.release_lease(self._lease)

    async def _lead(self, lease: Lease, rounds: int | None) -> None:
        box = ReportBox()
        async with asyncio.TaskGroup() as group:
            renewing = group.create_task(self._renew(lease))
            reading = group.create_task(self._read_reports(box, await self._report_start()))
            watching = group.create_task(
                watch_gateways(
                    box,
                    self.presence,
                    lambda: self._known,
                    every=self.timers.presence_poll_seconds,
                )
            )
            writer, continuation = await self._recover(box)
            if continuation is None and self.shoes is not None:
                await self.hold.through_outage("the shoes", self.shoes.lead)
            stop_answering = await self.bus.answer_control(self.table, self.control.answer)
            try:
                while rounds is None or self.rounds_played < rounds:
                    await self.control.between_rounds()  # a paused table opens no round
                    try:
                        if continuation is not None:
                            await self._continue_round(writer, box, *continuation)
                        else:
                            await self._play_round(writer, box)
                    except OperatorCancel as cancel:
                        await self._cancel_round(writer, box, cancel.reason)
                        self.control.cancelled(self._cancel_answer(writer, cancel.reason))
                    self.control.round_closing()
                    self.rounds_played += 1
                    if continuation is not None:
                        # The predecessor's shoe is retired once its round is over (not before:
                        # its reveal would show the cards still to come).
                        continuation = None
                        if self.shoes is not None:
                            await self.hold.through_outage("the shoes", self.shoes.lead)
                    if rounds is None or self.rounds_played < rounds:
                        await asyncio.sleep(self.timers.round_gap_seconds)
            finally:
                await stop_answering()
            renewing.cancel()
            reading.cancel()
            watching.cancel()

    async def _renew(self, lease: Lease) -> None:
        while True:
            await asyncio.sleep(self.timers.lease_renew_seconds)
            lease = self._lease = await self.bus.renew_lease(lease)

    async def _report_start(self) -> int:
        """The first report of a round in flight (its successor reads them all again), else the
        next one."""
        in_flight = report_start(await self.bus.replay_round(self.table))
        return in_flight or await self.bus.last_report_seq(self.table) + 1

    async def _read_reports(self, box: ReportBox, from_seq: int) -> None:
        async for stored in in_sequence(self.bus.reports(self.table, from_seq=from_seq)):
            box.add(stored.report)

    async def _recover(
        self, box: ReportBox, *, stop_reason: str | None = None
    ) -> tuple[_Writer, Continuation | None]:
        """The writer, and the round the previous coordinator left in flight rebuilt to go on
        (one that cannot be is cancelled here; every one is, with ``stop_reason``)."""
        while True:
            last = await self.bus.last_event_seq(self.table)
            replayed = await self.bus.replay_round(self.table)
            writer = _Writer(self.bus, self.table, last, self.trouble)
            self.control.lead(writer.append, replayed)
            played = [s for s in replayed if s.event.kind not in OPERATOR_EVENTS]
            if not played:
                return writer, None
            self._known |= _gateways_in(played)
            tail = played[-1]
            writer.round_number = tail.event.round_number
            writer.start_round(
                tail.event.round_number, index=replayed[-1].event.index + 1, start=replayed[0].seq
            )
            if tail.event.kind in ROUND_ENDS:
                return writer, None
            try:
                flight = round_in_flight(played)
                if flight is None:
                    raise CannotContinue("its opening is not in the log")
                if stop_reason is None or flight.settling:  # a settling round is let finish
                    return writer, (flight, await flight.rebuild_through(self.hold, self.resume))
                reason = stop_reason
            except CannotContinue as why:
                log.warning("table %s round %s: %s", self.table, writer.round_number, why)
                reason = cancel_reason(why)
            try:
                await self._cancel_round(writer, box, reason)
                return writer, None
            except StaleWriterError:
                continue  # the old coordinator appended meanwhile; read the log's end again

    async def _cancel_round(self, writer: _Writer, box: ReportBox, reason: str) -> None:
        """End the round in flight unsettled: live gateways cancel their own slices; the rest
        (their gateway is gone) are cancelled and recorded together, exactly once."""
        await writer.append(Public.ROUND_CANCELLED, {"reason": reason})
        if self.records is not None:
            await self.records.cancel_in_flight(
                box, self.table, writer.round_number, reason, self.timers.report_seconds
            )
        elif self.ledger is not None:
            # Exactly once whoever gets here: the ledger's key for the cancellation.
            await self.ledger.cancel_round(self.table, writer.round_number)

    def _cancel_answer(self, writer: _Writer, reason: str) -> JsonBody:
        """The operator's answer, as ``boundless serve`` gives it."""
        number = writer.round_number
        answer: JsonBody = {"ok": True, "table_id": self.table,
                            "round_id": f"{self.table}:{number}", "reason": reason}  # fmt: skip
        try:
            refunds = {} if self.records is None else self.records.refunds(self.table, number)
        except Exception as error:  # the cancellation is done; only its figures are missing
            log.warning("table %s round %s: refunds not read: %s", self.table, number, error)
            return {**answer, "refunds": None, "detail": "cancelled; the refunds could not be read"}
        refunds_list = [{"player_id": p, "amount": a} for p, a in sorted(refunds.items())]
        return {**answer, "refunds": refunds_list}

    async def _play_round(self, writer: _Writer, box: ReportBox) -> None:
        timers = self.timers
        number = writer.round_number + 1
        writer.start_round(number)
        box.forget_before(number)
        self._dropped = set()
        # A shuffle is stored before its round opens: through a cut, the round waits for it.
        dealer = await self.hold.through_outage("the next shoe", self._new_dealer, number)
        await self.books.open(number)
        self.control.round_open(number)
        opened: dict[str, object] = {"timer": _timer("betting", timers.betting_seconds)}
        # What a successor needs to deal this round on: where its reports start, the shoe.
        opened[REPORT_SEQ] = await self.bus.last_report_seq(self.table) + 1
        if self.resume is not None:
            opened |= self.resume.round_mark()
        if self.shoes is not None:
            notices = [{"kind": k, "detail": d} for k, d in self.shoes.take_notices()]
            opened |= {"shoe_number": self.shoes.shoe_number, "notices": notices}
        await self._table(writer, [dealer.opened], opened)
        await self.control.window("betting", timers.betting_seconds, asyncio.sleep)
        await self.hold.before_bet_close(writer.append, number)
        await writer.append(Public.BETTING_CLOSED, {})
        playing = await self._close_bets(writer, box, dealer, number)
        if playing:
            await self._play_on(writer, box, dealer, playing)

    async def _continue_round(
        self, writer: _Writer, box: ReportBox, flight: RoundInFlight, rebuilt: Rebuilt
    ) -> None:
        """Play a predecessor's round on from where its log ends; cancel it (saying why) if it
        turns out it cannot be dealt on exactly."""
        number, dealer = flight.number, rebuilt.dealer
        log.warning("table %s round %s: continued after a coordinator change", self.table, number)
        box.forget_before(number)
        self._dropped = set(flight.dropped)
        self.control.round_open(number)
        for gateway in flight.dropped:  # a drop whose refund the predecessor may not have made
            await self.books.refund_dropped(number, gateway)
        if not flight.betting_closed:
            await self.control.window("betting", flight.seconds_left(), asyncio.sleep)
            await self.hold.before_bet_close(writer.append, number)
            await writer.append(Public.BETTING_CLOSED, {})
        if flight.slices is None:
            playing = await self._close_bets(writer, box, dealer, number)
            if playing:
                await self._play_on(writer, box, dealer, playing)
            return
        left: float | None = flight.seconds_left()
        if rebuilt.unlogged:
            await self._table(writer, rebuilt.unlogged, self._window(dealer))
            left = None  # the window those events open has its full time
        closed = flight.step_closed
        if rebuilt.step_dealt is not None:
            closed = (rebuilt.step_dealt.spot, rebuilt.step_dealt.step)
        try:
            await self._play_on(
                writer,
                box,
                dealer,
                flight.playing(),
                left=left,
                closed=closed,
                dealt=rebuilt.step_dealt,
                settling=flight.settling,
            )
        except CannotContinue as why:
            await self._cancel_round(writer, box, cancel_reason(why))

    async def _close_bets(
        self, writer: _Writer, box: ReportBox, dealer: TableDealer, number: int
    ) -> set[str]:
        """The gateways' bets: the deal, or the round cancelled when nobody bet."""
        timers = self.timers
        self._known |= box.senders(number, ReportKind.JOINED, 0)  # restarted gateways too
        bets = await box.wait(
            number,
            ReportKind.BETS_CLOSED,
            0,
            expected=self._known or None,
            # A known gateway writes the window's last bets before it reports: under load that
            # can take as long as the window, and a late report cancels all its players' bets.
            seconds=timers.report_seconds + (timers.betting_seconds if self._known else 0.0),
        )
        bets = await self._wait_for_alive(box, number, ReportKind.BETS_CLOSED, 0, self._known, bets)
        await self._drop_silent_at_bet_close(writer, set(bets))
        self._known = set(bets)
        reports = {gateway: bets_report_of(body) for gateway, body in bets.items()}
        playing = {gateway for gateway, report in reports.items() if report.spots}
        if not playing:
            # Nothing taken from anyone; the reason says whether the ledger was why.
            sat_out = any(body.get("sat_out") for body in bets.values())
            reason = NO_STAKES_REASON if sat_out else NO_BETS_REASON
            await writer.append(Public.ROUND_CANCELLED, {"reason": reason})
            await self.books.end(number, unplayed=(box, reason, self.timers.report_seconds))
            self._known |= box.senders(number, ReportKind.BETS_CLOSED, 0) - set(bets)
            return set()
        held = [reports[g] for g in sorted(playing)]
        await writer.append(
            Public.SLICES,
            {
                "gateways": sorted(playing),
                "players": _total(bets, "players", playing),
                "positions": _total(bets, "positions", playing),
                # What a successor deals on from (``takeover``).
                "spots": sorted(set().union(*(report.spots for report in held))),
                "seated_spots": sorted(set().union(*(report.seated_spots for report in held))),
                **table_spot_bets(bets, playing),  # the table's bets per spot, for the players
            },
        )
        deal = dealer.close_bets(held)
        await self._table(writer, deal, self._window(dealer))
        # Gateways that answered after the known ones (too late for this round) are alive.
        self._known |= box.senders(number, ReportKind.BETS_CLOSED, 0) - set(bets)
        return playing

    async def _play_on(
        self,
        writer: _Writer,
        box: ReportBox,
        dealer: TableDealer,
        playing: set[str],
        *,
        left: float | None = None,
        closed: tuple[int, int] | None = None,
        dealt: ev.StepDealt | None = None,
        settling: bool = False,
    ) -> None:
        """The insurance window, the steps and the settlement. A continued round passes where
        its log ended: ``left`` (the open window's time left), ``closed`` (a step already
        closed), ``dealt`` (that step's card already out), ``settling`` (already said)."""
        timers = self.timers
        number = writer.round_number
        while not dealer.done:
            if dealer.phase == INSURANCE:
                decided = _decided(box, number, INSURANCE_KEY, playing)
                seconds = timers.insurance_seconds if left is None else left
                await self.control.window("insurance", seconds, decided)
                left = None
                await self._table(writer, dealer.close_insurance(), self._window(dealer))
                continue
            key = step_key(dealer.current_spot, dealer.step)
            if (dealer.current_spot, dealer.step) != closed:
                decided = _decided(box, number, key, playing)
                seconds = timers.decision_seconds if left is None else left
                await self.control.window("decision", seconds, decided)
                await writer.append(
                    Public.STEP_CLOSED,
                    {"spot": dealer.current_spot, "step": dealer.step, "closed_ms": now_ms()},
                )
            left, closed = None, None
            got = await self._gather(writer, box, playing, ReportKind.TAKERS, key)
            made = dealer.close_step(step_report_of(b) for b in got.values())
            if dealt is not None:  # the log has this step's card: it must be the same
                if not same_event(made[0], dealt):
                    raise CannotContinue("its step reports no longer give the logged card")
                made, dealt = made[1:], None
            await self._table(writer, made, self._window(dealer))
        self.control.round_closing()
        if not settling:
            await writer.append(Public.ROUND_SETTLING, {})
        # A gateway whose settlement waits for the database (``settling``) holds the table no
        # longer: its players' outcome is fixed and its write lands once, by its keys.
        settled = await box.wait(
            number,
            ReportKind.SETTLED,
            0,
            expected=playing,
            seconds=timers.settle_seconds,
            or_kind=ReportKind.SETTLING,
        )
        writing = box.senders(number, ReportKind.SETTLING, 0) & playing - set(settled)
        ended: dict[str, object] = {
            "settled": sorted(settled),
            "dropped": sorted(self._dropped | (playing - set(settled) - writing)),
        }
        if writing:  # still writing their settlement: not dropped, their slices not cancelled
            ended["settling"] = sorted(writing)
        await writer.append(Public.ROUND_CLOSED, ended)
        self._known |= set(settled) | writing
        await self.books.end(number)

    async def _drop_silent_at_bet_close(self, writer: _Writer, reported: set[str]) -> None:
        """A gateway known from earlier rounds that did not report the bet close is gone (lost
        during betting): dropped as one lost mid-step, the stakes its players placed during
        betting refunded and recorded for them to be told (``slice_records``)."""
        for gateway in sorted(self._known - reported):
            log.warning("table %s: gateway %s missed the bet close", self.table, gateway)
            await writer.append(
                Public.GATEWAY_DROPPED,
                {"gateway": gateway, "missed": ReportKind.BETS_CLOSED.value, "key": 0},
            )
            self._dropped.add(gateway)
            await self.books.refund_dropped(writer.round_number, gateway)

    async def _table(
        self, writer: _Writer, events: Iterable[ev.TableEvent], last: JsonBody | None = None
    ) -> None:
        """Append table events; ``last``: what the last one also carries (its window's timer)."""
        events = list(events)
        for index, event in enumerate(events):
            body = encode_event(event)
            if last and index == len(events) - 1:
                body |= last
            await writer.append(Public.TABLE, body)

    def _window(self, dealer: TableDealer) -> JsonBody | None:
        """The timer of the window the dealer's phase opens, for the event that opens it."""
        if dealer.done:
            return None
        if dealer.phase == INSURANCE:
            return {"timer": _timer("insurance", self.timers.insurance_seconds)}
        if dealer.phase == DECISIONS:
            return {"timer": _timer("decision", self.timers.decision_seconds)}
        return None

    async def _gather(
        self, writer: _Writer, box: ReportBox, playing: set[str], kind: ReportKind, key: int
    ) -> dict[str, JsonBody]:
        """Every playing gateway's report; those that miss the deadline leave the round."""
        got = await box.wait(
            writer.round_number, kind, key, expected=playing, seconds=self.timers.report_seconds
        )
        got = await self._wait_for_alive(box, writer.round_number, kind, key, playing, got)
        for gateway in sorted(playing - set(got)):
            log.warning("table %s: gateway %s missed its %s report", self.table, gateway, kind)
            await writer.append(
                Public.GATEWAY_DROPPED, {"gateway": gateway, "missed": kind.value, "key": key}
            )
            playing.discard(gateway)
            self._known.discard(gateway)
            self._dropped.add(gateway)
            await self.books.refund_dropped(writer.round_number, gateway)
        return {gateway: body for gateway, body in got.items() if gateway in playing}

    async def _wait_for_alive(
        self,
        box: ReportBox,
        number: int,
        kind: ReportKind,
        key: int,
        expected: set[str],
        got: dict[str, JsonBody],
    ) -> dict[str, JsonBody]:
        """Past a report deadline: while the bus was in trouble lately, wait on, up to
        ``alive_report_seconds``, for the late gateways that still show a live process. Those
        that do not, and every late one while the bus is well, are left to be dropped."""
        loop = asyncio.get_running_loop()
        until = loop.time() + self.timers.alive_report_seconds
        told: set[str] = set()
        while (left := until - loop.time()) > 0:
            late = self.presence.alive(expected - got.keys() - box.gone(number))
            if not late or not await self.trouble.probe():
                break
            for gateway in sorted(late - told):
                log.warning(
                    "table %s round %s: gateway %s is late with its %s report but alive; "
                    "waiting on (the bus may be electing a leader)",
                    self.table, number, gateway, kind,
                )  # fmt: skip
            told |= late
            poll = min(left, self.timers.presence_poll_seconds)
            got = await box.wait(number, kind, key, expected=set(got) | late, seconds=poll)
        return got


def _gateways_in(played: Iterable[StoredEvent]) -> set[str]:
    """The gateways a predecessor's last round had in play: the next bet close waits for them
    (under load a new coordinator's first round would otherwise close on nobody's bets)."""
    found: set[str] = set()
    for stored in played:
        kind, body = stored.event.kind, stored.event.body
        listed = body.get("gateways") if kind == Public.SLICES else None
        listed = body.get("settled") if kind == Public.ROUND_CLOSED else listed
        if isinstance(listed, list):
            found = {str(gateway) for gateway in listed}
        elif kind == Public.GATEWAY_DROPPED:
            found.discard(str(body.get("gateway")))
    return found


def _decided(
    box: ReportBox, number: int, key: int, playing: set[str]
) -> Callable[[float], Awaitable[dict[str, JsonBody]]]:
    """A players' window's wait: until every playing gateway reports ``decided``."""
    return lambda left: box.wait(number, ReportKind.DECIDED, key, expected=playing, seconds=left)


def _timer(kind: str, seconds: float) -> dict[str, object]:
    return {"kind": kind, "deadline_ms": now_ms() + round(seconds * 1000)}


def _total(reports: dict[str, JsonBody], field: str, gateways: set[str]) -> int:
    return sum(int(cast(int, reports[g].get(field, 0))) for g in gateways)
