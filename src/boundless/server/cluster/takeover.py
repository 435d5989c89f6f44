"""A round a coordinator finds in flight when it takes the table's lease, read from its log.

The active coordinator records on the round's events all a successor needs to continue it: the
``RoundOpened`` carries where the reports of the round start (``report_seq``) and the shoe's mark
(its number and the cards dealt before the round), ``slices`` the spots the bets hold. The
successor rebuilds the table dealer from the stored shoe and the logged table events
(:func:`~boundless.core.round.dealer_rebuild.rebuild_dealer`) and plays the round on from where
the log ends; only a round it cannot deal exactly as it began is cancelled, saying why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, cast

from boundless.core.errors import EventLogError
from boundless.core.round import events as ev
from boundless.core.round.dealer_rebuild import Rebuilt, rebuild_dealer
from boundless.core.round.dealer_table import TableDealer
from boundless.core.round.follower import BetsReport
from boundless.ledger.outage import is_transient, one_line
from boundless.server.clock import now_ms
from boundless.server.cluster.bus import JsonBody, StoredEvent
from boundless.server.cluster.ledger_hold import LedgerHold
from boundless.server.cluster.protocol import OPERATOR_EVENTS, Public
from boundless.server.event_codec import decode_event

TAKEOVER_REASON = "the table's coordinator changed during the round"
REPORT_SEQ = "report_seq"


class CannotContinue(Exception):
    """The round in flight cannot be dealt on exactly; the message says why (one line)."""


class DealerResume(Protocol):
    """Deals a round again from where its shoe stood (``StoredShoes`` in ``processes``)."""

    def round_mark(self) -> JsonBody:
        """What the round's opening records to deal it again (asked right after the dealer
        for the round is made)."""
        ...

    def resume(self, mark: JsonBody) -> TableDealer:
        """A fresh dealer of the marked round, its cards where they stood at the opening;
        raises :class:`CannotContinue`."""
        ...


@dataclass
class RoundInFlight:
    number: int
    opened: JsonBody
    table: list[ev.TableEvent] = field(default_factory=list)
    timer: JsonBody | None = None
    """The timer of the last window opened (its ``deadline_ms``)."""
    betting_closed: bool = False
    slices: JsonBody | None = None
    dropped: list[str] = field(default_factory=list)
    step_closed: tuple[int, int] | None = None
    """The step whose ``step_closed`` is the log's last word on it (its card not yet out)."""
    settling: bool = False

    def bets(self) -> BetsReport | None:
        if self.slices is None:
            return None
        spots, seated = self.slices.get("spots"), self.slices.get("seated_spots")
        if not isinstance(spots, list) or not isinstance(seated, list):
            raise CannotContinue("its bets' spots were not recorded")
        return BetsReport(frozenset(cast(list[int], spots)), frozenset(cast(list[int], seated)))

    def playing(self) -> set[str]:
        listed = cast(list[str], (self.slices or {}).get("gateways", []))
        return set(listed) - set(self.dropped)

    def seconds_left(self) -> float:
        deadline = (self.timer or {}).get("deadline_ms")
        if not isinstance(deadline, int):
            return 0.0
        return max(0.0, (deadline - now_ms()) / 1000)

    def rebuild(self, resume: DealerResume | None) -> Rebuilt:
        if resume is None:
            raise CannotContinue("no stored shoe to deal it from")
        dealer = resume.resume(self.opened)
        try:
            return rebuild_dealer(dealer, self.bets(), self.table)
        except EventLogError as error:
            raise CannotContinue(f"the stored shoe does not deal its cards: {error}") from None

    async def rebuild_through(self, hold: LedgerHold, resume: DealerResume | None) -> Rebuilt:
        """:meth:`rebuild` off the loop; a database away for longer than a bet close would be
        held for it cannot continue the round, saying why."""
        try:
            return await hold.through_outage("the stored shoe", self.rebuild, resume)
        except Exception as error:
            if not is_transient(error):
                raise
            raise CannotContinue(
                f"its stored shoe could not be read, the ledger is away: {one_line(error)}"
            ) from None


def round_in_flight(played: Sequence[StoredEvent]) -> RoundInFlight | None:
    """The round of ``played`` (its events, operator events left out) if it has not ended."""
    if not played or played[0].event.kind != Public.TABLE:
        return None
    flight = RoundInFlight(played[0].event.round_number, played[0].event.body)
    for stored in played:
        kind, body = stored.event.kind, stored.event.body
        timer = body.get("timer")
        if kind in (Public.TABLE, Public.BETTING_HELD) and isinstance(timer, dict):
            flight.timer = cast(JsonBody, timer)  # a held bet close's timer as it last stood
        if kind == Public.TABLE:
            flight.table.append(cast(ev.TableEvent, decode_event(dict(body))))
            flight.step_closed = None
        elif kind == Public.BETTING_CLOSED:
            flight.betting_closed = True
        elif kind == Public.SLICES:
            flight.slices = body
        elif kind == Public.STEP_CLOSED:
            flight.step_closed = (int(cast(int, body["spot"])), int(cast(int, body["step"])))
        elif kind == Public.GATEWAY_DROPPED:
            flight.dropped.append(str(body["gateway"]))
        elif kind == Public.ROUND_SETTLING:
            flight.settling = True
        elif kind in (Public.ROUND_CLOSED, Public.ROUND_CANCELLED):
            return None
    if not flight.table or not isinstance(flight.table[0], ev.RoundOpened):
        return None
    return flight


def report_start(replayed: Sequence[StoredEvent]) -> int | None:
    """Where the reports of the round in flight start, if it recorded it."""
    played = [s for s in replayed if s.event.kind not in OPERATOR_EVENTS]
    if round_in_flight(played) is None:
        return None
    seq = played[0].event.body.get(REPORT_SEQ)
    return seq if isinstance(seq, int) and seq > 0 else None


def cancel_reason(why: CannotContinue) -> str:
    return f"{TAKEOVER_REASON}; it could not be continued exactly: {why}"
