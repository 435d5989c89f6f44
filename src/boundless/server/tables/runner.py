"""The clock around a table's rounds: betting window, insurance window, decision steps, dealer,
settlement, the next round. One asyncio task per table.

The betting window's timer starts with the first bet of the round (an empty table waits without
a clock). A step ends at its deadline or as soon as every connected position on the spot has
decided; the rest are autoplayed by the core. A pause freezes the running timer and keeps its
remaining time for the resume.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from boundless.core.errors import ShoeExhaustedError
from boundless.core.round.phases import DEALER, DECISIONS, INSURANCE, SETTLING
from boundless.server.clock import now
from boundless.server.tables.private import insurance_answered, pace, ready_to_deal
from boundless.server.tables.table import Table

log = logging.getLogger("boundless.server.runner")
STEP_HEAD_START_SECONDS = 0.05
"""After a step card is sent, the state and the players' views follow this much later: the card
reaches every socket first (and, on one machine, the readers get the CPU to take it)."""
SHUTDOWN_REASON = "the server is shutting down; every stake is returned"
SHUTDOWN_WRITE_SECONDS = 3.0
"""How long the refund of a round in flight is retried at shutdown while the database is busy."""


async def wait_until(table: Table, done: Callable[[], bool], *, timed: bool) -> None:
    """Sleep until ``done()``, the round ends or (``timed``) the table clock runs out.

    A pause holds the wait (the clock is frozen meanwhile); every change wakes ``table.clock.wake``.
    """
    while True:
        table.clock.wake.clear()
        round_ = table.round
        if round_ is None or round_.over:
            return
        if table.paused:
            await table.clock.wake.wait()
            continue
        if done():
            return
        timeout: float | None = None
        if timed and table.clock.deadline is not None:
            timeout = table.clock.deadline - now()
            if timeout <= 0:
                return
        # Not ``asyncio.wait_for``: on Python 3.11 it can swallow a cancel that arrives as the
        # wake fires, and a table told to stop then plays on forever.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await table.clock.wake.wait()


def _close_window(table: Table, close: Callable[[], object]) -> None:
    """End a timed window: stop the clock, make the move that closes it, tell everyone."""
    table.clock.stop()
    close()
    table.broadcast_state()
    table.send_you_all()


async def play_round(table: Table) -> None:
    """One round from its betting window to its settlement (or cancellation)."""
    table.open_round()
    table.broadcast_state()
    await wait_until(
        table, lambda: table.round is not None and table.round.position_count() > 0, timed=False
    )
    round_ = table.round  # choose_side_bets may have replaced the empty round
    assert round_ is not None
    if round_.over:
        return
    table.clock.start("betting", paused=table.paused)
    table.broadcast_state()
    await wait_until(table, lambda: ready_to_deal(table), timed=True)
    await table.bets.drain()  # every bet that came in time is written before the deal
    await pace(table)
    await table.bets.drain()  # bets that came while the pace held the deal
    if round_.over:
        return
    _close_window(table, round_.deal)
    table.last_deal_at = now()
    while not round_.over:
        if round_.phase == INSURANCE:
            table.clock.start("insurance")
            table.broadcast_state()
            table.send_you_all()
            await wait_until(table, lambda: insurance_answered(table), timed=True)
            await table.insurance_written()
            if round_.over:
                return
            _close_window(table, round_.close_insurance)
        elif round_.phase == DECISIONS:
            if round_.needs_decisions:
                table.open_step()
                if table.waiting:
                    table.clock.start("decision")
                    table.broadcast_state()
                    await wait_until(table, lambda: not table.waiting, timed=True)
                    if round_.over:
                        return
            table.clock.stop()
            with table.metrics.step_timer(table.rules.key):
                changed = await table.close_step()
            await asyncio.sleep(STEP_HEAD_START_SECONDS)
            table.after_step(changed)
        elif round_.phase == DEALER:
            round_.play_dealer()
            table.broadcast_state()
        elif round_.phase == SETTLING:
            round_.settle()
            # shielded: a shutdown lets a settlement being written finish (see stop_in_flight)
            table.settling = asyncio.ensure_future(table.settle())
            await asyncio.shield(table.settling)
            table.recent.note_settled(table.round_no, round_)
        else:
            round_.advance()


async def stop_in_flight(table: Table) -> None:
    """At shutdown, before the sockets close: a settlement being written finishes (its players
    are told by it), else the round in flight is cancelled and refunded and every player of it
    gets ``settled`` with the cancellation. The registry bounds how long this may take
    (:data:`~boundless.server.tables.registry.SHUTDOWN_SECONDS`); a write still waiting on the
    database then is left to the next start's recovery, and the log says so."""
    settling = table.settling
    if settling is not None and not settling.done():
        await asyncio.shield(settling)
    if table.refunds_pending:  # an operator's cancel whose refund waits for the database
        await asyncio.shield(asyncio.gather(*table.refunds_pending, return_exceptions=True))
    if not table.has_round_to_void():
        return
    round_id = table.round_id
    await table.void_off_loop(SHUTDOWN_REASON, seconds=SHUTDOWN_WRITE_SECONDS)
    if table.refund_pending:
        log.error(
            "shutdown: the refund of %s could not be written (the database is busy or away); "
            "the next start's recovery refunds it",
            round_id,
        )
    else:
        log.warning("shutdown: %s cancelled and refunded, its players told", round_id)


async def run_table(table: Table) -> None:
    """Rounds forever (until the task is cancelled); a failing round is voided, not fatal.
    Cancelled (the server is stopping) wherever it waits, even between rounds or while
    paused: :func:`stop_in_flight` first."""
    table.load_counters()
    try:
        while True:
            await _next_round(table)
    except asyncio.CancelledError:
        try:
            await stop_in_flight(table)
        except Exception:  # the next start's crash recovery refunds it then
            log.exception("could not cancel %s round %s", table.table_id, table.round_no)
        raise


async def _next_round(table: Table) -> None:
    exhausted = False
    try:
        await play_round(table)
    except ShoeExhaustedError as error:
        exhausted = True
        table.void(f"the shoe ran out of cards ({error}); every stake is returned")
    except Exception:
        log.exception("table %s round %s failed", table.table_id, table.round_no)
        if table.round is not None and not table.recorded:
            try:
                table.void("the round failed on the server; every stake is returned")
            except Exception:
                log.exception("could not void %s round %s", table.table_id, table.round_no)
                await asyncio.sleep(1.0)
    if table.round is not None and table.round.over:
        table.end_round(exhausted)
    gap = table.clock.round_gap()
    if gap:
        await asyncio.sleep(gap)
    while table.paused:
        table.clock.wake.clear()
        await table.clock.wake.wait()
