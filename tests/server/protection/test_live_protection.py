"""Protection on a live ``boundless serve`` (SQLite): exclusion and time-out refuse sign-in,
joining and bets and survive a restart; a reality check refuses new bets but not the round in
play; the limits answer over the socket; a private table keeps the minimum game cycle. Every
refusal leaves the ledger as it was."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import httpx

from boundless.cli.rule_files import titles_catalog
from boundless.jurisdictions import load_profile
from boundless.server.protection import clock
from boundless.server.protection.repository import ProtectionRepository
from boundless.server.protection.service import ProtectionService
from tests.server.live import (
    Client,
    LiveServer,
    assert_books,
    bet,
    open_private_table,
    play_to_settlement,
    served,
    serving,
    start_server,
    wait_until,
)
from tests.server.protection.conftest import Moved
from tests.server.test_resplit_serve import EIGHTS, FOLDER, TITLE, StackedShuffle

UK = load_profile("uk")
PACED = UK.model_copy(update={"key": "paced", "min_cycle_seconds": 1.5})
live = served(jurisdiction=UK)


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def wallet(live: LiveServer, token: str) -> int:
    return int(live.http.get("/api/v1/me", headers=auth(token)).json()["balance"])


def refused_hello(live: LiveServer, token: str) -> dict[str, Any]:
    client = live.client(token)
    client.socket.send(json.dumps({"v": 1, "type": "hello", "request_id": "h", "token": token}))
    answer = client.answer("h")
    client.close()
    return answer


def test_exclusion_refuses_sign_in_and_survives_restart(tmp_path: Path) -> None:
    with serving(tmp_path, jurisdiction=UK) as live:
        player = live.sign_up("Ana")
        token = player["token"]
        client = live.client(token)
        client.hello()
        too_short = live.http.post(
            "/api/v1/me/self-exclusion", json={"months": 5}, headers=auth(token)
        )
        assert too_short.status_code == 422 and "6 to 60 months" in too_short.json()["detail"]
        taken = live.http.post("/api/v1/me/self-exclusion", json={"months": 6}, headers=auth(token))
        assert taken.status_code == 200, taken.text
        wait_until(lambda: not live.app_state.handler.hub.by_player.get(player["player_id"]), 10)
        client.close()
        answer = refused_hello(live, token)
        assert answer["error"] == "self_excluded" and "self-excluded until" in answer["detail"]
        resting = live.sign_up("Bea")["token"]
        hours = live.http.post("/api/v1/me/time-out", json={"hours": 24}, headers=auth(resting))
        assert hours.status_code == 200
    with serving(tmp_path, jurisdiction=UK) as live:  # a restart on the same database
        answer = refused_hello(live, token)
        assert answer["error"] == "self_excluded"
        assert refused_hello(live, resting)["error"] == "timed_out"
        me = live.http.get("/api/v1/me", headers=auth(token))
        assert me.status_code == 403 and me.json()["error"] == "self_excluded"
        limits = live.http.put("/api/v1/me/limits", json={"loss": None}, headers=auth(token))
        assert limits.status_code == 403  # and it cannot be lifted: no route takes it away
        assert_books(live.database_url, {player["player_id"]: 100_000})


def test_time_out_refuses_bets_and_hello(live: LiveServer) -> None:
    player = live.sign_up("Bo")
    client = live.client(player["token"])
    client.hello()
    assert client.request({"type": "join", "table_id": "boundless-1"})["type"] == "ack"
    # Another gateway takes the time-out: this socket stays open, its bets are refused.
    with live.app_state.server.sessions.begin() as session:
        ProtectionService(session, UK).time_out(player["player_id"], 24, "player", None)
    answer = bet(client, 1000)
    assert answer["error"] == "timed_out" and "time-out until" in answer["detail"]
    joined = client.request({"type": "join", "table_id": "boundless-1"})
    assert joined["error"] == "timed_out"
    client.close()
    assert refused_hello(live, player["token"])["error"] == "timed_out"
    assert_books(live.database_url, {player["player_id"]: 100_000})  # nothing moved


def test_limits_refuse_over_the_socket_at_the_boundary(live: LiveServer) -> None:
    player = live.sign_up("Cy")
    token = player["token"]
    put = live.http.put("/api/v1/me/limits", json={"wager": {"day": 1500}}, headers=auth(token))
    assert put.status_code == 200 and put.json()["wager"]["day"] == 1500
    client = live.client(token)
    client.hello()
    client.request({"type": "join", "table_id": "boundless-1"})
    assert bet(client, 1000)["type"] == "ack"
    play_to_settlement(client)
    before = wallet(live, token)
    over = bet(client, 600)  # one unit (100) of the title over
    assert over["error"] == "limit_reached" and "day wager limit of 1500" in over["detail"]
    assert wallet(live, token) == before  # nothing moved
    assert bet(client, 500)["type"] == "ack"  # exactly at the limit
    client.close()


def test_session_figures_and_reality_check(live: LiveServer, moved_clock: Moved) -> None:
    player = live.sign_up("Di")
    token = player["token"]
    chosen = live.http.put("/api/v1/me/reality-check", json={"minutes": 5}, headers=auth(token))
    assert chosen.status_code == 422 and "10 to 120 minutes" in chosen.json()["detail"]
    chosen = live.http.put("/api/v1/me/reality-check", json={"minutes": 10}, headers=auth(token))
    assert chosen.status_code == 200
    client = live.client(token)
    welcome = client.hello()
    assert set(welcome["session"]) >= {"started_ms", "elapsed_ms", "wagered", "net"}
    client.request({"type": "join", "table_id": "boundless-1"})
    assert bet(client, 1000)["type"] == "ack"
    moved_clock.forward(minutes=10)  # the check falls due while the round is in play
    since = len(client.seen)
    assert play_to_settlement(client)["type"] == "settled"  # the round in play plays on
    check = next((m for m in client.seen[since:] if m.get("type") == "reality_check"), None)
    check = check or client.wait_for("reality_check")
    assert check["wagered"] == 1000 and check["elapsed_ms"] >= 10 * 60 * 1000
    before = wallet(live, token)
    refused = bet(client, 1000)
    assert refused["error"] == "reality_check_pending"
    rebet = client.request({"type": "rebet", "table_id": "boundless-1", "bet_id": "again-1"})
    assert rebet["error"] == "reality_check_pending"  # a repeat is a new bet too
    assert wallet(live, token) == before
    answered = client.request({"type": "reality_check", "choice": "continue"})
    assert answered["type"] == "ack" and answered["session"]["wagered"] == 1000
    figures = live.http.get("/api/v1/me/session", headers=auth(token)).json()
    assert figures["wagered"] == 1000 and figures["net"] == before - 100_000
    assert bet(client, 1000)["type"] == "ack"
    client.close()


def test_reality_check_leave_ends_the_session(live: LiveServer, moved_clock: Moved) -> None:
    player = live.sign_up("Ed")
    token = player["token"]
    live.http.put("/api/v1/me/reality-check", json={"minutes": 10}, headers=auth(token))
    client = live.client(token)
    first = client.hello()["session"]["started_ms"]
    moved_clock.forward(minutes=11)
    client.wait_for("reality_check")
    assert client.request({"type": "reality_check", "choice": "leave"})["choice"] == "leave"
    wait_until(lambda: not live.app_state.handler.hub.by_player.get(player["player_id"]), 10)
    again = live.client(token)
    assert again.hello()["session"]["started_ms"] > first  # a new session
    history = live.http.get("/api/v1/me/protection", headers=auth(token)).json()["history"]
    assert [row["kind"] for row in history][:2] == ["reality_answer", "reality_check"]
    again.close()
    client.close()


def deal_times(live: LiveServer, client: Client, table_id: str, rounds: int) -> list[float]:
    table = live.table(table_id)
    times = []
    for _ in range(rounds):
        assert bet(client, 100, table_id=table_id)["type"] == "ack"
        play_to_settlement(client)
        times.append(table.last_deal_at)
    return times


def test_private_table_minimum_cycle(tmp_path: Path) -> None:
    with serving(tmp_path, jurisdiction=PACED) as live:
        _, client, table_id = open_private_table(live, "boo-bucks", "Flo")
        times = deal_times(live, client, table_id, 3)
        gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
        assert min(gaps) >= 1.5, gaps
        client.close()


def test_operator_excludes_with_a_reason_and_the_console_lists_it(live: LiveServer) -> None:
    player = live.sign_up("Gus")
    admin = {"Authorization": "Bearer test-admin-token"}
    path = f"/api/v1/admin/players/{player['player_id']}/self-exclusion"
    unreasoned = live.http.post(path, json={"months": 12}, headers=admin)
    assert unreasoned.status_code == 422
    assert live.http.post(path, json={"months": 12, "reason": "asked by phone"}).status_code == 401
    done = live.http.post(path, json={"months": 12, "reason": "asked by phone"}, headers=admin)
    assert done.status_code == 200
    console = live.http.get("/api/v1/admin/protection", headers=admin).json()
    assert player["player_id"] in console["players"]["self_exclusion"]
    assert console["events"][0]["actor"] == "operator"
    assert console["events"][0]["reason"] == "asked by phone"
    assert refused_hello(live, player["token"])["error"] == "self_excluded"
    metrics = httpx.get(f"{live.base_url}/metrics", headers=admin).text
    assert 'code="self_excluded"' in metrics


def test_a_split_past_the_limit_falls_back_and_one_within_is_made(tmp_path: Path) -> None:
    """The limits are the wallet every table uses (LimitedWallet): a split the wager limit
    cannot fund falls back as for missing coins; with room for it, the same split is made."""
    catalog = titles_catalog(FOLDER)
    assert catalog is not None
    rules, _ = catalog.get(TITLE)
    live = start_server(
        tmp_path,
        catalog=catalog,
        randomness=lambda: StackedShuffle(rules.shoe.decks, list(EIGHTS)),
        jurisdiction=UK,
    )
    try:
        for limit, hands in ((1000, 1), (2000, 2)):
            player, client, table_id = open_private_table(live, TITLE, f"Kai{limit}")
            limits = {"wager": {"day": limit}}
            put = live.http.put("/api/v1/me/limits", json=limits, headers=auth(player["token"]))
            assert put.status_code == 200
            assert bet(client, 1000, table_id=table_id)["type"] == "ack"

            def split(position: dict[str, list[str]]) -> str:
                return "split" if "split" in position["legal_actions"] else "stand"

            settled = play_to_settlement(client, split)
            (result,) = settled["results"]
            assert len(result["hands"]) == hands and settled["staked"] == 1000 * hands
            client.close()
            assert_books(live.database_url, {player["player_id"]: 100_000 + settled["net"]})
    finally:
        live.stop()


def test_a_session_goes_on_while_connected(live: LiveServer, moved_clock: Moved) -> None:
    """Connected for longer than the idle gap, a player who reconnects keeps their session (its
    start, its elapsed time, its session limit); away for longer than it, they begin a new one."""
    player = live.sign_up("Lou")
    client = live.client(player["token"])
    started = client.hello()["session"]["started_ms"]
    handler = live.app_state.handler
    for _ in range(2):  # 50 minutes connected, marked as seen as they pass
        moved_clock.forward(minutes=25)
        seen = moved_clock.at
        wait_until(lambda at=seen: session_row(live, player["player_id"]).last_seen_at >= at, 10)
    client.close()
    wait_until(lambda: not handler.hub.by_player.get(player["player_id"]), 10)
    again = live.client(player["token"])
    assert again.hello()["session"]["started_ms"] == started
    again.close()
    wait_until(lambda: not handler.hub.by_player.get(player["player_id"]), 10)
    moved_clock.forward(minutes=31)
    later = live.client(player["token"])
    assert later.hello()["session"]["started_ms"] > started
    later.close()


def session_row(live: LiveServer, player_id: str) -> Any:
    with live.app_state.server.read_sessions.begin() as session:
        found = ProtectionRepository(session).play_session(player_id)
        assert found is not None
        found.last_seen_at = clock.aware(found.last_seen_at)
        session.expunge(found)
        return found
