"""Player protection as the players and operators see it: limits, time-outs, self-exclusion,
the play session and its reality checks. No commits: the caller owns the transaction."""

from __future__ import annotations

import calendar
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from boundless.jurisdictions import JurisdictionProfile
from boundless.server.errors import (
    BadMessageError,
    RealityCheckPendingError,
    SelfExcludedError,
    TimedOutError,
)
from boundless.server.protection import clock
from boundless.server.protection.clock import aware, epoch_ms
from boundless.server.protection.limits import FIELDS, SESSION_FIELD, is_decrease, replay
from boundless.server.protection.repository import (
    ProtectionRepository,
    in_open_round,
    wagered_and_net,
)
from boundless.server.storage.models import PlaySession, ProtectionEvent

SESSION_IDLE = timedelta(minutes=30)
"""A player seen again after this long without a socket starts a new session."""


def add_months(moment: datetime, months: int) -> datetime:
    """The same day and time ``months`` calendar months later (the month's last day if shorter)."""
    index = moment.month - 1 + months
    year, month = moment.year + index // 12, index % 12 + 1
    day = min(moment.day, calendar.monthrange(year, month)[1])
    return moment.replace(year=year, month=month, day=day)


def _when(moment: datetime) -> str:
    return aware(moment).strftime("%Y-%m-%d %H:%M UTC")


class ProtectionService:
    def __init__(self, session: Session, profile: JurisdictionProfile) -> None:
        self.repository = ProtectionRepository(session)
        self.profile = profile

    # -- refusals ----------------------------------------------------------------------------
    def check_sign_in(self, player_id: str) -> None:
        """``timed_out`` or ``self_excluded`` while one is in force."""
        block = self.repository.block(player_id, clock.utc_now())
        if block is None or block.until_at is None:
            return
        if block.kind == "self_exclusion":
            raise SelfExcludedError(f"you are self-excluded until {_when(block.until_at)}")
        raise TimedOutError(f"you are taking a time-out until {_when(block.until_at)}")

    def check_bet(self, player_id: str) -> None:
        """A new bet: no time-out or exclusion, no reality check waiting for an answer."""
        self.check_sign_in(player_id)
        found = self.repository.play_session(player_id)
        if found is not None and found.check_pending:
            raise RealityCheckPendingError(
                "answer the reality check (continue or leave) before a new bet"
            )

    # -- limits ------------------------------------------------------------------------------
    def limits(self, player_id: str) -> dict[str, Any]:
        """Each limit in force (the form of ``PUT``), the pending changes and the interval."""
        now = clock.utc_now()
        states = replay(self.repository.limit_rows([player_id]).get(player_id, []), now)
        shaped: dict[str, Any] = {"loss": {}, "wager": {}}
        pending = []
        for field, state in states.items():
            kind, _, window = field.partition(".")
            if window:
                shaped[kind][window] = state.amount
            else:
                shaped[field] = state.amount
            if state.pending is not None:
                pending.append(
                    {
                        "limit": field,
                        "amount": state.pending.amount,
                        "effective_ms": epoch_ms(state.pending.effective_at),
                    }
                )
        shaped["pending"] = pending
        shaped["reality_check_minutes"] = self.reality_minutes(player_id)
        shaped["cooling_off_hours"] = self.profile.limit_increase_cooling_off_hours
        return shaped

    def set_limits(
        self, player_id: str, wanted: dict[str, int | None], actor: str, reason: str | None
    ) -> dict[str, Any]:
        """Ask for limits (field -> amount, None: none): a decrease at once, an increase or a
        removal after the cooling-off. Only fields given change."""
        now = clock.utc_now()
        states = replay(self.repository.limit_rows([player_id]).get(player_id, []), now)
        cooling = timedelta(hours=self.profile.limit_increase_cooling_off_hours)
        for field in FIELDS:
            if field not in wanted:
                continue
            amount = wanted[field]
            state = states[field]
            if amount == state.amount and state.pending is None:
                continue  # nothing changes: no row
            at_once = is_decrease(state.amount, amount)  # an operator waits the same
            self.repository.add_event(
                player_id=player_id,
                kind="limit",
                field=field,
                amount=amount,
                actor=actor,
                reason=reason,
                created_at=now,
                effective_at=now if at_once else now + cooling,
            )
        return self.limits(player_id)

    # -- time-out and self-exclusion ---------------------------------------------------------
    def time_out(self, player_id: str, hours: int, actor: str, reason: str | None) -> datetime:
        rules = self.profile.time_out
        if actor == "player" and not rules.min_hours <= hours <= rules.max_hours:
            raise BadMessageError(
                f"a time-out is {rules.min_hours} to {rules.max_hours} hours here; not {hours}"
            )
        now = clock.utc_now()
        return self._block(player_id, "time_out", now + timedelta(hours=hours), actor, reason)

    def self_exclude(self, player_id: str, months: int, actor: str, reason: str | None) -> datetime:
        rules = self.profile.self_exclusion
        if actor == "player" and not rules.min_months <= months <= rules.max_months:
            raise BadMessageError(
                f"a self-exclusion is {rules.min_months} to {rules.max_months} months here;"
                f" not {months}"
            )
        now = clock.utc_now()
        return self._block(player_id, "self_exclusion", add_months(now, months), actor, reason)

    def _block(
        self, player_id: str, kind: str, until: datetime, actor: str, reason: str | None
    ) -> datetime:
        now = clock.utc_now()
        self.repository.add_event(
            player_id=player_id,
            kind=kind,
            until_at=until,
            actor=actor,
            reason=reason,
            created_at=now,
            effective_at=now,
        )
        self.repository.end_session(player_id)
        return until

    # -- the play session and its reality checks ---------------------------------------------
    def reality_minutes(self, player_id: str) -> int:
        chosen = self.repository.latest(player_id, "reality_check")
        if chosen is None or chosen.amount is None:
            return self.profile.reality_check.default_minutes
        return chosen.amount

    def set_reality_minutes(self, player_id: str, minutes: int) -> None:
        rules = self.profile.reality_check
        off_allowed = "reality_check" not in self.profile.mandatory
        if not (
            (minutes == 0 and off_allowed) or rules.min_minutes <= minutes <= rules.max_minutes
        ):
            allowed = f"{rules.min_minutes} to {rules.max_minutes} minutes"
            raise BadMessageError(
                f"a reality check comes every {allowed}{' (or 0: none)' if off_allowed else ''};"
                f" not {minutes}"
            )
        now = clock.utc_now()
        self.repository.add_event(
            player_id=player_id,
            kind="reality_check",
            amount=minutes,
            actor="player",
            created_at=now,
            effective_at=now,
        )
        found = self.repository.play_session(player_id)
        if found is not None and not found.check_pending:
            self.repository.answer_check(player_id, self._due(now, minutes))

    @staticmethod
    def _due(start: datetime, minutes: int) -> datetime | None:
        return start + timedelta(minutes=minutes) if minutes else None

    def begin_session(self, player_id: str) -> PlaySession:
        """At sign-in: the player's session, a new one after a long absence."""
        now = clock.utc_now()
        found = self.repository.play_session(player_id)
        going_on = found is not None and now - aware(found.last_seen_at) < SESSION_IDLE
        # A session whose limit passed while the player was away ends here: a new one begins.
        if found is not None and going_on and not self.end_spent_sessions([player_id]):
            found.last_seen_at = now
            return found
        due = self._due(now, self.reality_minutes(player_id))
        return self.repository.start_session(player_id, now, due)

    def answer_reality_check(self, player_id: str, choice: str) -> None:
        """``continue``: the next check one interval from now; ``leave``: the session ends."""
        found = self.repository.play_session(player_id)
        if found is None or not found.check_pending:
            raise BadMessageError("no reality check is waiting for an answer")
        now = clock.utc_now()
        self.repository.add_event(
            player_id=player_id,
            kind="reality_answer",
            field=choice,
            actor="player",
            created_at=now,
            effective_at=now,
        )
        if choice == "leave":
            self.repository.end_session(player_id)
        else:
            self.repository.answer_check(player_id, self._due(now, self.reality_minutes(player_id)))

    def session_figures(self, player_id: str) -> dict[str, int]:
        """``started_ms``, ``elapsed_ms``, ``wagered`` and ``net`` of the player's session."""
        now = clock.utc_now()
        found = self.repository.play_session(player_id)
        started = now if found is None else aware(found.started_at)
        wagered, net = wagered_and_net(self.repository.round_movements(player_id, started))
        return {
            "started_ms": epoch_ms(started),
            "elapsed_ms": epoch_ms(now) - epoch_ms(started),
            "wagered": wagered,
            "net": net,
        }

    def session_minutes(self, player_ids: list[str]) -> dict[str, int]:
        """The session-time limit in force of those players who have one."""
        now = clock.utc_now()
        found = {}
        for player_id, rows in self.repository.limit_rows(player_ids, SESSION_FIELD).items():
            amount = replay(rows, now)[SESSION_FIELD].amount
            if amount is not None:
                found[player_id] = amount
        return found

    def spent_sessions(self, player_ids: list[str]) -> dict[str, tuple[PlaySession, int]]:
        """Those of these players whose session has reached their session-time limit: the
        session and the limit's minutes."""
        now = clock.utc_now()
        spent = {}
        for player_id, minutes in self.session_minutes(player_ids).items():
            found = self.repository.play_session(player_id)
            if found is not None and now - aware(found.started_at) >= timedelta(minutes=minutes):
                spent[player_id] = (found, minutes)
        return spent

    def end_spent_sessions(self, player_ids: list[str]) -> dict[str, dict[str, int]]:
        """End the sessions of these players that reached their session-time limit and have no
        round in play (a round in play settles first); each one's final figures. Only one
        process ends each session, so the player gets one notice."""
        now = clock.utc_now()
        ended = {}
        for player_id, (found, minutes) in self.spent_sessions(player_ids).items():
            if in_open_round(self.repository.session, player_id, aware(found.started_at)):
                continue
            figures = self.session_figures(player_id)
            if self.repository.end_session_begun(player_id, found.started_at):
                self.repository.add_event(
                    player_id=player_id,
                    kind="session_end",
                    field="session_limit",
                    amount=minutes,
                    actor="player",
                    created_at=now,
                    effective_at=now,
                )
                ended[player_id] = figures
        return ended

    def due_checks(self, player_ids: list[str]) -> list[str]:
        return self.repository.due_checks(player_ids, clock.utc_now())

    # -- history -----------------------------------------------------------------------------
    def history(self, player_id: str) -> list[dict[str, Any]]:
        return [event_row(row) for row in self.repository.events(player_id)]


def event_row(row: ProtectionEvent) -> dict[str, Any]:
    return {
        "player_id": row.player_id,
        "kind": row.kind,
        "field": row.field,
        "amount": row.amount,
        "until_ms": None if row.until_at is None else epoch_ms(row.until_at),
        "actor": row.actor,
        "reason": row.reason,
        "created_ms": epoch_ms(row.created_at),
        "effective_ms": epoch_ms(row.effective_at),
    }
