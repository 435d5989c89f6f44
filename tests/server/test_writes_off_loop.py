"""``boundless serve`` writes a double's extra stake and an insurance stake in worker threads:
while another writer holds SQLite's write lock, the event loop still answers every table and
``/healthz`` (one double used to freeze the whole server for as long as the lock), and the write
goes through once the lock is released.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from boundless.server.config import TimerSettings
from tests.server.live import LiveServer, assert_books, serving
from tests.server.test_shutdown_refunds import INSURANCE_SEED

LOCK_SECONDS = 2.5
HEALTH_TIMEOUT = 1.5
"""A loop blocked on the lock would not answer within it (the lock lasts longer)."""
TIMERS = TimerSettings(betting_seconds=0.2, insurance_seconds=20, decision_seconds=20,
                       round_gap_seconds=30)  # fmt: skip


@contextmanager
def write_lock_held(live: LiveServer) -> Iterator[None]:
    connection = sqlite3.connect(live.database_url.removeprefix("sqlite:///"), timeout=5)
    connection.isolation_level = None
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        connection.execute("ROLLBACK")
        connection.close()


def answers_health_while_locked(live: LiveServer) -> int:
    """``/healthz`` polled for the lock's time: every answer within HEALTH_TIMEOUT."""
    answered = 0
    deadline = time.monotonic() + LOCK_SECONDS
    while time.monotonic() < deadline:
        reply = httpx.get(f"{live.base_url}/healthz", timeout=HEALTH_TIMEOUT)
        assert reply.status_code == 200
        answered += 1
        time.sleep(0.2)
    return answered


def test_a_double_during_a_held_write_lock_leaves_the_loop_free(tmp_path: Path) -> None:
    with serving(tmp_path, timers=TIMERS, seed=7) as live:
        player, client = live.seated("Una")
        bet = {
            "type": "bet",
            "table_id": "boundless-1",
            "bet_id": "b",
            "bets": {"1": {"main": 500}},
        }
        assert client.request(bet)["type"] == "ack"
        you = client.wait_for(
            "you", lambda m: "double" in m["player"]["positions"][0]["legal_actions"]
        )
        step = {"type": "decide", "table_id": "boundless-1", "spot": 1, "step": 1}
        with write_lock_held(live):
            client.send({**step, "action": "double"})
            assert answers_health_while_locked(live) >= 3
        settled = client.wait_for("settled", timeout=30)
        assert settled["staked"] == 1000, settled  # the double was written after the lock
        assert you["round_id"] == settled["round_id"]
        client.close()
    assert_books(live.database_url, {player["player_id"]: settled["balance"]})


def test_insurance_during_a_held_write_lock_leaves_the_loop_free(tmp_path: Path) -> None:
    with serving(tmp_path, timers=TIMERS, seed=INSURANCE_SEED) as live:
        player, client = live.seated("Una")
        bet = {
            "type": "bet",
            "table_id": "boundless-1",
            "bet_id": "b",
            "bets": {"1": {"main": 500}},
        }
        assert client.request(bet)["type"] == "ack"
        client.wait_for("state", lambda m: m["public"]["phase"] == "insurance")
        with write_lock_held(live):
            request_id = client.send(
                {"type": "insurance", "table_id": "boundless-1", "spot": 1, "kind": "insurance"}
            )
            assert answers_health_while_locked(live) >= 3
        answer = client.answer(request_id, 30)
        assert answer["type"] == "ack" and answer["balance"] == 100_000 - 750, answer
        client.close()
        staked = live.table().round.staked_by_player()
        assert int(staked.sum()) == 750  # the bet and its insurance, in the round as in the ledger
    assert_books(live.database_url, {player["player_id"]: 100_000})  # the stop refunded both
