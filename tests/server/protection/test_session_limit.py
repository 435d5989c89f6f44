"""The session-time limit on a live ``boundless serve``: reached mid-round, new stakes are
refused ``limit_reached`` (nothing moves), the round in play settles, then the player gets one
``session_ended`` notice with the session's figures and their sockets close; the next sign-in
begins a new session with its figures at zero. And the same end, counted in the database, on
SQLite and PostgreSQL: one ending per session, never while a round of the player's is open."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from boundless.jurisdictions import load_profile
from boundless.server.protection.clock import aware
from boundless.server.protection.repository import ProtectionRepository
from boundless.server.protection.service import ProtectionService
from boundless.server.protection.stakes import StakeLimits
from tests.server.live import LiveServer, assert_books, bet, play_to_settlement, served, wait_until
from tests.server.protection.conftest import Moved, new_player

UK = load_profile("uk")
live = served(jurisdiction=UK)


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def balance(live: LiveServer, token: str) -> int:
    return int(live.http.get("/api/v1/me", headers=auth(token)).json()["balance"])


def test_session_limit_ends_the_session_after_the_round(
    live: LiveServer, moved_clock: Moved
) -> None:
    player = live.sign_up("Sal")
    token, player_id = player["token"], player["player_id"]
    put = live.http.put("/api/v1/me/limits", json={"session_minutes": 10}, headers=auth(token))
    assert put.status_code == 200 and put.json()["session_minutes"] == 10
    client = live.client(token)
    first = client.hello()["session"]
    created = live.http.post("/api/v1/tables", json={"title": "boo-bucks"}, headers=auth(token))
    private = str(created.json()["table_id"])
    client.request({"type": "join", "table_id": private})
    client.request({"type": "join", "table_id": "boundless-1"})
    assert bet(client, 1000)["type"] == "ack"
    moved_clock.forward(minutes=10)  # the limit is reached while the round is in play
    staked = balance(live, token)
    refused = bet(client, 500, table_id=private)  # a new stake at another table
    assert refused["error"] == "limit_reached", refused
    assert "session limit of 10 minutes" in refused["detail"]
    assert balance(live, token) == staked  # nothing moved on the refusal
    since = len(client.seen)
    settled = play_to_settlement(client)
    assert settled["type"] == "settled"  # the round in play plays on and settles
    ended = next((m for m in client.seen[since:] if m.get("type") == "session_ended"), None)
    ended = ended or client.wait_for("session_ended")
    seen = client.seen[since:]
    assert seen.index(settled) < seen.index(ended)  # the notice comes after the settlement
    assert [m.get("type") for m in seen].count("session_ended") == 1
    final = balance(live, token)
    assert ended["reason"] == "session_limit"
    assert ended["started_ms"] == first["started_ms"]
    assert ended["elapsed_ms"] >= 10 * 60 * 1000
    assert ended["wagered"] == 1000 and ended["net"] == final - 100_000
    wait_until(lambda: not live.app_state.handler.hub.by_player.get(player_id), 10)
    assert_books(live.database_url, {player_id: final})
    history = live.http.get("/api/v1/me/protection", headers=auth(token)).json()["history"]
    assert history[0]["kind"] == "session_end" and history[0]["field"] == "session_limit"
    client.close()
    again = live.client(token)  # a new sign-in: a new session, its figures from zero
    fresh = again.hello()["session"]
    assert fresh["started_ms"] > first["started_ms"]
    assert fresh["wagered"] == 0 and fresh["net"] == 0
    again.request({"type": "join", "table_id": "boundless-1"})
    assert bet(again, 1000)["type"] == "ack"
    again.close()


def end_spent(sessions: sessionmaker[Session], player_id: str) -> dict[str, Any]:
    with sessions.begin() as session:
        return ProtectionService(session, UK).end_spent_sessions([player_id])


def test_only_a_spent_session_ends_and_only_once(
    sessions: sessionmaker[Session], moved_clock: Moved
) -> None:
    player_id = new_player(sessions)
    with sessions.begin() as session:
        service = ProtectionService(session, UK)
        service.set_limits(player_id, {"session_minutes": 30}, "player", None)
        service.begin_session(player_id)
    moved_clock.forward(minutes=29)
    assert end_spent(sessions, player_id) == {}  # not yet
    moved_clock.forward(minutes=1)
    ended = end_spent(sessions, player_id)
    assert ended[player_id]["elapsed_ms"] == 30 * 60 * 1000
    assert ended[player_id]["wagered"] == 0
    assert end_spent(sessions, player_id) == {}  # one ending: one notice
    with sessions.begin() as session:
        assert ProtectionRepository(session).play_session(player_id) is None
        kinds = [row.kind for row in ProtectionRepository(session).events(player_id)]
        # A socket left open on another gateway stakes nothing until a new sign-in.
        refused = StakeLimits(session).check({player_id: 100})
    assert kinds[0] == "session_end"
    assert "a new sign-in begins a new session" in refused[player_id].detail
    with sessions.begin() as session:
        ProtectionService(session, UK).begin_session(player_id)
        assert StakeLimits(session).check({player_id: 100}) == {}


def test_a_sign_in_after_the_limit_passed_begins_a_new_session(
    sessions: sessionmaker[Session], moved_clock: Moved
) -> None:
    """Away (not for long enough to lose the session) while the limit passed: the next sign-in
    ends the spent session and begins a new one, rather than a welcome the notice cuts short."""
    player_id = new_player(sessions)
    with sessions.begin() as session:
        service = ProtectionService(session, UK)
        service.set_limits(player_id, {"session_minutes": 10}, "player", None)
        first = aware(service.begin_session(player_id).started_at)
    moved_clock.forward(minutes=5)
    with sessions.begin() as session:  # within the limit: the same session goes on
        assert aware(ProtectionService(session, UK).begin_session(player_id).started_at) == first
    moved_clock.forward(minutes=6)
    with sessions.begin() as session:
        service = ProtectionService(session, UK)
        again = service.begin_session(player_id)
        assert aware(again.started_at) == moved_clock.at != first
        assert service.session_figures(player_id)["elapsed_ms"] == 0
        assert service.repository.events(player_id)[0].kind == "session_end"
