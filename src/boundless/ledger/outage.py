"""The ledger's database briefly away: which errors say so, and the one retry policy for the writes
that must not be lost to it (a settlement, a coordinator's round calls).

A write that fails this way wrote nothing (its database transaction never committed) or, if the
connection dropped during the commit, wrote everything: every ledger write is idempotent by its
key, so sending the same request again either writes it now or finds it and replays it. That is
what makes the retry safe; it must always repeat the *same* request (the same keys and content).

Bets are never retried here: a bet refused during an outage is answered ``ledger_unavailable`` at
once and the player may send it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import errno
import logging
import math
import sqlite3
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import TypeVar

import psycopg
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    RetryError,
    retry_if_exception,
    stop_after_delay,
    wait_exponential,
)

from boundless.ledger.errors import LedgerUnavailableError

T = TypeVar("T")
log = logging.getLogger("boundless.ledger.outage")

WRITE_RETRY_SECONDS = 120.0
"""How long a settlement or a coordinator's round call is retried while the database is away
(measured from the first try); after that it fails with :class:`LedgerUnavailableError`."""
RETRY_FIRST_WAIT_SECONDS = 0.25
RETRY_LONGEST_WAIT_SECONDS = 1.0
"""Short, so a write lands within about a second of the database coming back: a cluster table
reopens only a few seconds of betting after a bet close held for the ledger, and a gateway still
waiting for an earlier round's write joins that round only if the write lands inside them (with
5 s pauses, 4 rounds in a 10-minute chaos run were sat out by every gateway and cancelled)."""
STORAGE_FULL_DETAIL = (
    "the server's database has no space left to write (its disk is full); nothing was written "
    "or changed, send it again once the operator has freed space"
)
DISK_FULL_SQLSTATE = "53100"
UNAVAILABLE_DETAIL = (
    "the coin ledger's database cannot be reached right now; nothing was written or changed, "
    "send it again in a moment"
)


def _causes(error: BaseException) -> list[BaseException]:
    """The error, the driver's error inside it and every cause and context, once each."""
    seen: dict[int, BaseException] = {}
    pending: list[BaseException | None] = [error]
    while pending:
        item = pending.pop()
        if item is None or id(item) in seen:
            continue
        seen[id(item)] = item
        if isinstance(item, DBAPIError):
            pending.append(item.orig)
        pending += [item.__cause__, item.__context__]
    return list(seen.values())


def is_storage_full(error: BaseException) -> bool:
    """True when the database could not write for want of space: SQLite's "database or disk
    is full" (SQLITE_FULL), PostgreSQL's ``disk_full`` (SQLSTATE 53100), or the operating
    system's ENOSPC. Transient: the write succeeds once space is freed."""
    for item in _causes(error):
        if isinstance(item, sqlite3.OperationalError) and "is full" in str(item).lower():
            return True
        if getattr(item, "sqlstate", None) == DISK_FULL_SQLSTATE:
            return True
        if isinstance(item, OSError) and item.errno == errno.ENOSPC:
            return True
    return False


def is_transient(error: BaseException) -> bool:
    """True for a failure of the database connection or server, not of the request: the
    connection was lost or refused (SQLAlchemy's ``connection_invalidated``), PostgreSQL is
    shutting down, starting or out of resources, a deadlock or serialization failure (psycopg's
    ``OperationalError`` and its subclasses), or SQLite's write lock still busy. Bad SQL and
    constraint violations are not transient. Looks through the exception's causes, since a
    failed rollback can hide the first error. A full disk is transient too
    (:func:`is_storage_full`)."""
    if is_storage_full(error):
        return True
    seen: set[int] = set()
    pending: list[BaseException | None] = [error]
    while pending:
        item = pending.pop()
        if item is None or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, LedgerUnavailableError):
            return True
        if isinstance(item, DBAPIError):
            if item.connection_invalidated:
                return True
            pending.append(item.orig)
        if isinstance(item, psycopg.OperationalError):
            return True
        if isinstance(item, sqlite3.OperationalError):
            text = str(item).lower()
            if "locked" in text or "busy" in text:
                return True
        pending += [item.__cause__, item.__context__]
    return False


def one_line(error: BaseException) -> str:
    """The first line of an error's text (drivers add SQL and hints on further lines)."""
    cause = error.orig if isinstance(error, DBAPIError) and error.orig is not None else error
    lines = str(cause).strip().splitlines()
    return f"{type(cause).__name__}: {lines[0] if lines else ''}".rstrip(": ")


async def in_daemon_thread(work: Callable[[], T]) -> T:
    """``work()`` in a thread of its own that never holds the process up at exit.

    ``asyncio.to_thread`` uses the loop's default executor, whose threads are joined when the
    loop closes (and at interpreter exit): one write waiting on a database lock would then hold
    a stopping server for as long as the lock, past any bound the shutdown sets. A daemon thread
    left behind is dropped at exit instead, its transaction uncommitted (the database rolls it
    back, and the next start's recovery finishes the round)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    context = contextvars.copy_context()

    def answer(result: T | None, error: BaseException | None) -> None:
        if future.done():  # the awaiting coroutine was cancelled (a bounded shutdown)
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)  # type: ignore[arg-type]

    def run() -> None:
        result: T | None = None
        error: BaseException | None = None
        try:
            result = context.run(work)
        except BaseException as failure:  # handed to the awaiting coroutine, as to_thread does
            error = failure
        with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits any more
            loop.call_soon_threadsafe(answer, result, error)

    threading.Thread(target=run, name="ledger-write", daemon=True).start()
    return await future


def _log_retry(what: str, seconds: float) -> Callable[[RetryCallState], None]:
    def before_sleep(state: RetryCallState) -> None:
        failure = state.outcome.exception() if state.outcome is not None else None
        wait = state.next_action.sleep if state.next_action is not None else 0.0
        until = "until it is written" if math.isinf(seconds) else f"{seconds:.0f} s"
        log.warning(
            "%s: the ledger's database %s (%s); try %d failed, next in %.1f s, trying %s",
            what,
            "is full" if failure is not None and is_storage_full(failure) else "is unreachable",
            "?" if failure is None else one_line(failure),
            state.attempt_number,
            wait,
            until,
        )

    return before_sleep


async def write_until_done(
    sessions: sessionmaker[Session],
    work: Callable[[Session], T],
    *,
    what: str,
    seconds: float | None = None,
    lock: AbstractContextManager[object] | None = None,
) -> T:
    """``work(session)`` in a committed transaction of its own, tried again on a transient
    failure (each try a fresh transaction, the same ``work``: the same idempotency keys) with
    growing pauses, for up to ``seconds`` (default :data:`WRITE_RETRY_SECONDS`). Each try runs
    in a worker thread (:func:`in_daemon_thread`) with a session of its own (sessions are not
    shared across threads), so the event loop runs on during a try and between tries: ``work``
    must not touch state the loop changes meanwhile (compute its inputs before the call). Any
    other error is raised at once; when time runs out, :class:`LedgerUnavailableError` saying
    what was given up.

    ``what`` names the write in the log lines ("settlement of boundless-1 round 42"). ``lock``
    (a :class:`threading.Lock`) is held around each try's transaction, its commit included, in
    the worker thread: writes that must not overlap wait for each other there, not on the loop.
    """
    budget = WRITE_RETRY_SECONDS if seconds is None else seconds
    tries = 0

    def attempt() -> T:
        with lock or nullcontext(), sessions.begin() as session:
            return work(session)

    async def once() -> T:
        nonlocal tries
        tries += 1
        return await in_daemon_thread(attempt)

    retrying = AsyncRetrying(
        retry=retry_if_exception(is_transient),
        stop=stop_after_delay(budget),
        wait=wait_exponential(
            multiplier=RETRY_FIRST_WAIT_SECONDS,
            min=RETRY_FIRST_WAIT_SECONDS,
            max=RETRY_LONGEST_WAIT_SECONDS,
        ),
        before_sleep=_log_retry(what, budget),
    )
    try:
        result: T = await retrying(once)
    except RetryError as gave_up:
        last = gave_up.last_attempt.exception()
        shown = "?" if last is None else one_line(last)
        log.error("%s: given up after %d tries over %.0f s: %s", what, tries, budget, shown)
        raise LedgerUnavailableError(
            f"{what} could not be written: the ledger's database was unreachable for "
            f"{budget:.0f} s ({shown})"
        ) from last
    if tries > 1:
        log.warning("%s: written on try %d, the ledger's database is back", what, tries)
    return result
