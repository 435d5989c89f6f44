"""Cancelling a desk's round: in the core, then in the ledger (refunds), recorded once.

A desk's :meth:`~boundless.server.tables.desk.TableDesk.void` and ``void_off_loop`` are these
functions: the round is cancelled in the core first (a batch of bets not yet begun writes
nothing), the refund is written under the desk's ledger lock (a batch being written commits
first and is returned with the rest), and then the table and each player are told.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from sqlalchemy.orm import Session

from boundless.core.errors import PhaseError
from boundless.core.round import CANCELLED
from boundless.core.round.players import PlayerRound
from boundless.ledger import LedgerUnavailableError
from boundless.ledger.outage import write_until_done
from boundless.server import messages
from boundless.server.gateway.hub import Hub
from boundless.server.tables.bets import BetBatcher
from boundless.server.tables.desk_protocol import LedgerDesk
from boundless.server.tables.service import CancelOutcome, RoundRecord


class TableDesk(LedgerDesk, Protocol):
    """What a cancellation needs of the desk beyond its ledger writes."""

    recorded: bool
    refund_pending: bool

    @property
    def round_id(self) -> str | None: ...
    @property
    def bets(self) -> BetBatcher: ...
    @property
    def hub(self) -> Hub: ...
    def record(self) -> RoundRecord: ...
    def results(self, round_: PlayerRound) -> dict[str, list[dict[str, Any]]]: ...
    def away(self, players: Iterable[str]) -> list[str]: ...
    def stop_timer(self) -> None: ...
    def notify(self, kind: str, detail: Any) -> None: ...
    def broadcast_state(self) -> None: ...
    def wake(self) -> None: ...


def void(desk: TableDesk, reason: str) -> dict[str, int]:
    """Cancel the round in the core (if still open) and in the ledger; record it once.
    Returns what the cancellation moved into each wallet."""
    round_ = desk.round
    assert round_ is not None
    desk.bets.fail_all(PhaseError(f"the round was cancelled: {reason}"))
    # Under the lock: a batch being written commits first (and is returned with the rest),
    # one not yet begun sees the cancellation and writes nothing.
    with desk.ledger_lock:
        _cancel_in_core(round_, reason)
        if desk.recorded:
            return {}
        results = desk.results(round_)
        with desk.sessions.begin() as session:
            outcome = _write_cancel(desk, session, reason, results)
    desk.recorded = True
    return _voided(desk, reason, results, outcome)


async def void_off_loop(
    desk: TableDesk, reason: str, seconds: float | None = None
) -> dict[str, int]:
    """:func:`void` with its write in a worker thread (a gateway's slice): the loop serves
    sockets while a batch being written commits and while the refund is written, tried
    again under the same keys while the database is away. The round is cancelled in the
    core first, on the loop, so a batch not yet begun writes nothing; ``recorded`` is set
    before the write, so the round is refunded and recorded once."""
    round_ = desk.round
    assert round_ is not None
    desk.bets.fail_all(PhaseError(f"the round was cancelled: {reason}"))
    _cancel_in_core(round_, reason)
    if desk.recorded:
        return {}
    desk.recorded = True
    results = desk.results(round_)
    inputs = cancel_inputs(desk, reason, results)
    try:
        outcome = await write_until_done(
            desk.sessions,
            lambda session: desk.service(session).cancel(*inputs),
            what=f"cancellation of {desk.table_id} round {desk.round_no}",
            seconds=seconds,
            lock=desk.ledger_lock,
        )
    except LedgerUnavailableError:
        # Given up (logged): the stakes stay in this owner's open slice until the
        # coordinator or this gateway's next start cancels it (both by the same key).
        desk.refund_pending = True
        return {}
    except Exception:
        desk.recorded = False  # nothing was written: a later cancellation may try again
        raise
    return _voided(desk, reason, results, outcome)


def cancel_inputs(desk: TableDesk, reason: str, results: dict[str, Any]) -> tuple[Any, ...]:
    """:meth:`~boundless.server.tables.service.TableService.cancel`'s arguments, taken now (a
    worker thread may use them)."""
    money = desk.money
    return (
        desk.record(),
        reason,
        list(results),
        dict(money.balance_before),
        results,
        desk.away(results),
        dict(money.credited),
    )


def _write_cancel(
    desk: TableDesk, session: Session, reason: str, results: dict[str, Any]
) -> CancelOutcome:
    return desk.service(session).cancel(*cancel_inputs(desk, reason, results))


def _voided(
    desk: TableDesk, reason: str, results: dict[str, Any], outcome: CancelOutcome
) -> dict[str, int]:
    """The cancellation is written: update the books, tell the table and each player."""
    if outcome.lines:
        desk.metrics.cancelled(desk.rules.key, outcome.refunds)
    desk.money.balances.update(outcome.balances)
    desk.stop_timer()
    desk.notify("cancelled", {"round_id": desk.round_id, "reason": reason})
    tell_refunds(desk.hub, desk.table_id, desk.round_id, results, outcome, reason)
    desk.broadcast_state()
    desk.wake()
    return outcome.refunds


def has_round_to_void(desk: TableDesk) -> bool:
    """Whether a round with bets is in play and its end is not written yet."""
    return bool(
        desk.round is not None and not desk.recorded and (desk.round.position_count() or desk.bets)
    )


def void_in_flight(desk: TableDesk, reason: str) -> None:
    """At shutdown: cancel and refund the round in play, unless it is settled already."""
    if has_round_to_void(desk):
        void(desk, reason)


def _cancel_in_core(round_: PlayerRound, reason: str) -> None:
    if round_.phase != CANCELLED and not round_.over:
        round_.cancel(reason)


def tell_refunds(
    hub: Hub,
    table_id: str,
    round_id: str | None,
    results: dict[str, Any],
    outcome: CancelOutcome,
    reason: str,
) -> None:
    """Each refunded player their ``settled`` of the cancelled round (built as it is written)."""
    lines = outcome.lines

    def refunded(index: int) -> messages.Message:
        line = lines[index]
        return messages.settled(
            table_id,
            round_id,
            results.get(line.player_id, []),
            line.staked,
            line.paid,
            outcome.balances.get(line.player_id),
            cancelled=reason,
        )

    hub.send_players([line.player_id for line in lines], refunded)
