"""A full disk under ``boundless serve`` (SQLite): every write that hits it answers
``storage_full`` with a precise message and changes nothing, and a settlement that hits it is
tried again until space returns, then settles once: the round is never left open.

No tmpfs can be mounted here, so the full disk is SQLite's own error ("database or disk is
full", SQLITE_FULL) raised for every write statement while the test says the disk is full.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event

from boundless.ledger.outage import STORAGE_FULL_DETAIL
from boundless.server.config import TimerSettings
from tests.server.live import LiveServer, assert_books, serving, wait_until

GRANT = 100_000
TIMERS = TimerSettings(betting_seconds=0.2, insurance_seconds=0.2, decision_seconds=0.2,
                       round_gap_seconds=0.1)  # fmt: skip
WRITES = ("INSERT", "UPDATE", "DELETE")


@pytest.fixture
def disk_full() -> Iterator[threading.Event]:
    """Set: every write statement of every engine fails as on a full disk."""
    full = threading.Event()

    def refuse(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if full.is_set() and statement.lstrip().upper().startswith(WRITES):
            raise sqlite3.OperationalError("database or disk is full")

    event.listen(Engine, "before_cursor_execute", refuse)
    try:
        yield full
    finally:
        event.remove(Engine, "before_cursor_execute", refuse)


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    with serving(tmp_path, timers=TIMERS) as server:
        yield server


def test_a_sign_up_and_a_bet_on_a_full_disk_answer_storage_full(
    live: LiveServer, disk_full: threading.Event
) -> None:
    player, client = live.seated("Una")
    disk_full.set()
    answer = live.http.post("/api/v1/players", json={"display_name": "Ben"})
    assert answer.status_code == 503, answer.text
    assert answer.json() == {"error": "storage_full", "detail": STORAGE_FULL_DETAIL}
    bet = {"type": "bet", "table_id": "boundless-1", "bet_id": "b1", "bets": {"1": {"main": 500}}}
    refused = client.request(bet)
    assert (refused["type"], refused["error"]) == ("error", "storage_full"), refused
    disk_full.clear()
    assert client.request(bet)["type"] == "ack"  # the same bet, once space is back
    settled = client.wait_for("settled", timeout=30)
    client.close()
    assert_books(live.database_url, {player["player_id"]: settled["balance"]})


def test_a_settlement_on_a_full_disk_is_retried_until_space_returns(
    live: LiveServer, disk_full: threading.Event, caplog: pytest.LogCaptureFixture
) -> None:
    player, client = live.seated("Una")
    bet = {"type": "bet", "table_id": "boundless-1", "bet_id": "b1", "bets": {"1": {"main": 500}}}
    assert client.request(bet)["type"] == "ack"
    caplog.set_level(logging.WARNING, logger="boundless.ledger.outage")
    disk_full.set()  # from the deal on: the decisions are autoplayed, the settlement hits it
    wait_until(
        lambda: any("settlement" in r.getMessage() and "is full" in r.getMessage()
                    for r in caplog.records),
        30,
        "the settlement to meet the full disk",
    )  # fmt: skip
    assert not live.table().recorded  # the round waits for its settlement, still open
    disk_full.clear()
    settled = client.wait_for("settled", timeout=30)
    assert "cancelled" not in settled or settled["cancelled"] is None
    client.close()
    assert_books(live.database_url, {player["player_id"]: settled["balance"]})
    assert any("written on try" in r.getMessage() for r in caplog.records)


def test_an_operator_cancel_on_a_full_disk_is_refunded_once_space_returns(
    live: LiveServer, disk_full: threading.Event
) -> None:
    """The round is voided at once; its refund (it used to wait for a restart) is tried until
    written, and the players get ``settled`` with the cancellation then."""
    player, client = live.seated("Una")
    bet = {"type": "bet", "table_id": "boundless-1", "bet_id": "b1", "bets": {"1": {"main": 500}}}
    assert client.request(bet)["type"] == "ack"
    assert live.admin("pause", reason="checking").status_code == 200
    disk_full.set()
    answer = live.admin("cancel", reason="dealer error")
    assert answer.status_code == 503, answer.text
    assert "refunds them as soon as it can" in answer.json()["detail"]
    disk_full.clear()
    settled = client.wait_for("settled", timeout=30)
    assert settled["cancelled"] == "dealer error" and settled["balance"] == GRANT
    assert_books(live.database_url, {player["player_id"]: GRANT})
    client.close()
