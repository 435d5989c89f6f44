"""Where the protocol meets protection: sign-in, joining, new bets, the reality-check answer, and
the watch that shows each connected player their reality check when it falls due and ends the
session of one whose session-time limit has passed once no round of theirs is in play.

One gate per process (``boundless serve`` or a cluster gateway), used by its message handler;
the state it reads and writes is in the shared database, so every process agrees. Bots are not
players under protection: the gate lets them through without a look.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from boundless.jurisdictions import JurisdictionProfile
from boundless.ledger.outage import is_transient
from boundless.server.players.service import PlayerIdentity
from boundless.server.protection import clock
from boundless.server.protection.service import ProtectionService

log = logging.getLogger("boundless.server.protection")
WATCH_SECONDS = 1.0
"""How often the watch looks for reality checks that fell due (a read; a write only when one
did)."""
SEEN_EVERY = timedelta(minutes=1)
"""How often the connected players' sessions are marked as still going (a player reloading the
page after an hour of play keeps the session and its elapsed time)."""

Notify = Callable[[str, dict[str, Any]], None]
"""Send a message to every socket of a player on this process."""
End = Callable[[str, dict[str, Any]], None]
"""Send a player's sockets on this process a last message, then close them."""


@dataclass(eq=False)
class ProtectionGate:
    sessions: sessionmaker[Session]
    read_sessions: sessionmaker[Session]
    profile: JurisdictionProfile
    _task: asyncio.Task[None] | None = field(default=None, init=False)

    def sign_in(self, player: PlayerIdentity) -> dict[str, Any] | None:
        """Refuse a timed-out or excluded player; else their session (begun now after a long
        absence) with its figures and whether a reality check waits."""
        if player.is_bot:
            return None
        with self.read_sessions.begin() as session:
            ProtectionService(session, self.profile).check_sign_in(player.player_id)
        with self.sessions.begin() as session:
            service = ProtectionService(session, self.profile)
            pending = service.begin_session(player.player_id).check_pending
            figures = service.session_figures(player.player_id)
        return {**figures, "reality_check_pending": pending}

    def check_join(self, player: PlayerIdentity) -> None:
        """Refuse a timed-out or excluded player; while the database is away a player already
        signed in watches on (watching moves no coin, and every bet waits for the database)."""
        if player.is_bot:
            return
        try:
            with self.read_sessions.begin() as session:
                ProtectionService(session, self.profile).check_sign_in(player.player_id)
        except Exception as error:
            if not is_transient(error):
                raise

    def check_bet(self, player: PlayerIdentity) -> None:
        if not player.is_bot:
            with self.read_sessions.begin() as session:
                ProtectionService(session, self.profile).check_bet(player.player_id)

    def answer(self, player: PlayerIdentity, choice: str) -> dict[str, Any]:
        with self.sessions.begin() as session:
            service = ProtectionService(session, self.profile)
            service.answer_reality_check(player.player_id, choice)
            return service.session_figures(player.player_id)

    # -- the watch ---------------------------------------------------------------------------
    def watch(self, players: Callable[[], list[str]], notify: Notify, end: End) -> None:
        """Start the watch on the running loop (once); ``players()``: the ids of the connected
        players who are not bots."""
        if self._task is None:
            loop = asyncio.get_running_loop()
            watching = self._watch(players, notify, end)
            self._task = loop.create_task(watching, name="reality checks")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _watch(self, players: Callable[[], list[str]], notify: Notify, end: End) -> None:
        marked: datetime | None = None
        while True:
            await asyncio.sleep(WATCH_SECONDS)
            ids = players()  # a copy of the hub's set: sorted in the worker thread
            if not ids:
                continue
            now = clock.utc_now()
            mark = marked is None or now - marked >= SEEN_EVERY
            try:
                due, ended = await asyncio.to_thread(self._due, ids, mark)
            except Exception as error:  # the database away: the next look tries again
                log.warning("reality checks not looked at: %s", error)
                continue
            marked = now if mark else marked
            for player_id, figures in due.items():
                if player_id not in ended:
                    notify(player_id, reality_check(self.profile, figures))
            for player_id, figures in ended.items():
                end(player_id, session_ended(SESSION_LIMIT, figures))

    def _due(self, player_ids: list[str], mark_seen: bool) -> tuple[Figures, Figures]:
        """The reality checks that fell due, and the sessions their limit ended (each player's
        figures); the write transaction only when there may be one or the other."""
        player_ids = sorted(player_ids)  # the same order at every look, whatever the hub held
        now = clock.utc_now()
        if not mark_seen:
            with self.read_sessions.begin() as session:
                service = ProtectionService(session, self.profile)
                if not service.repository.any_due(player_ids, now) and not (
                    service.spent_sessions(player_ids)
                ):
                    return {}, {}
        with self.sessions.begin() as session:
            service = ProtectionService(session, self.profile)
            if mark_seen:
                service.repository.seen(player_ids, now)
            ended = service.end_spent_sessions(player_ids)
            due = {
                player_id: service.session_figures(player_id)
                for player_id in service.due_checks(player_ids)
            }
            return due, ended


SESSION_LIMIT = "session_limit"
"""Why a session ended: the player's session-time limit was reached (after the round)."""
SESSION_END_REASONS = (SESSION_LIMIT,)
"""Every reason a ``session_ended`` message gives (the web client has words for each)."""
Figures = dict[str, dict[str, int]]


def session_ended(reason: str, figures: dict[str, int]) -> dict[str, Any]:
    """The ``session_ended`` message: why, and the session's final figures; the sockets close
    right after it."""
    return {"type": "session_ended", "reason": reason, **figures}


def reality_check(profile: JurisdictionProfile, figures: dict[str, int]) -> dict[str, Any]:
    """The ``reality_check`` message: the session's figures; new bets wait for the answer."""
    return {"type": "reality_check", **figures}
