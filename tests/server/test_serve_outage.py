"""``boundless serve`` on PostgreSQL while its database is briefly away (a TCP proxy between the
server and PostgreSQL, cut and restored by the test): a bet is refused with ``ledger_unavailable``
and changes nothing; a settlement is tried again under the same keys until the database is back
and the round settles exactly once."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from boundless.ledger import Category, LedgerService, make_engine, make_session_factory
from boundless.server.storage.models import Round, RoundPlayer
from boundless.server.tables import admin_endpoints
from boundless.server.tables.service import TableService
from tests.outage_proxy import OutageProxy, outage_proxy
from tests.postgres import postgres_schema
from tests.server.live import LiveServer, assert_books, play_to_settlement, start_server

GRANT = 100_000
TABLE = "boundless-1"


def bet_message(bet_id: str, amount: int) -> dict[str, Any]:
    return {"type": "bet", "table_id": TABLE, "bet_id": bet_id, "bets": {"1": {"main": amount}}}


@pytest.fixture
def proxied_server(tmp_path: Path) -> Iterator[tuple[LiveServer, OutageProxy, str]]:
    """A live server whose database connections all pass through a proxy the test can cut; and
    the direct URL, for the test's own look at the books."""
    with postgres_schema("serve_outage") as url, outage_proxy(url) as (proxy, through_proxy):
        live = start_server(tmp_path, database_url=through_proxy)
        try:
            yield live, proxy, url
        finally:
            proxy.restore()
            live.stop()


def play_record(url: str) -> tuple[list[Any], list[Any]]:
    """The table's play record rows (round, status, reason) and lines (player, status)."""
    engine = make_engine(url)
    try:
        with make_session_factory(engine).begin() as session:
            rows = session.scalars(select(Round).where(Round.table_id == TABLE)).all()
            lines = session.scalars(select(RoundPlayer)).all()
            return (
                [(row.round_no, row.status, row.reason) for row in rows],
                [(line.player_id, line.status) for line in lines],
            )
    finally:
        engine.dispose()


def round_transactions(url: str, round_no: int) -> list[Any]:
    engine = make_engine(url)
    try:
        with make_session_factory(engine).begin() as session:
            return LedgerService(session).round_transactions(TABLE, round_no)
    finally:
        engine.dispose()


def wallet(url: str, player_id: str) -> int:
    engine = make_engine(url)
    try:
        with make_session_factory(engine).begin() as session:
            return LedgerService(session).wallet_balance(player_id)
    finally:
        engine.dispose()


def test_a_bet_during_an_outage_is_refused_and_changes_nothing(
    proxied_server: tuple[LiveServer, OutageProxy, str],
) -> None:
    live, proxy, url = proxied_server
    player, client = live.seated("Ana")
    proxy.cut()
    refused = client.request(bet_message("during-outage", 1000))
    assert refused["type"] == "error", refused
    assert refused["error"] == "ledger_unavailable", refused
    assert "nothing was written" in refused["detail"]
    assert "127.0.0.1" not in refused["detail"]  # no driver text reaches a player
    me = live.http.get("/api/v1/me", headers={"Authorization": f"Bearer {player['token']}"})
    assert me.status_code == 503 and me.json()["error"] == "ledger_unavailable", me.text
    proxy.restore()
    # Nothing of the refused bet anywhere: the wallet is whole, the round holds nothing.
    assert wallet(url, player["player_id"]) == GRANT
    assert round_transactions(url, 1) == []
    # Every bet of the round refused: no play record row (serve writes it with the first
    # stake, and the round waits for one), so none is left open.
    assert play_record(url) == ([], [])
    # The same bet sent again once the database is back is a new bet, taken now.
    taken = client.request(bet_message("during-outage", 1000))
    assert taken["type"] == "ack", taken
    assert not taken.get("replayed") and taken["balance"] == GRANT - 1000
    settled = play_to_settlement(client)
    client.close()
    assert_books(url, {player["player_id"]: GRANT - settled["staked"] + settled["paid"]})
    assert play_record(url) == ([(1, "settled", None)], [(player["player_id"], None)])


def test_a_settlement_during_an_outage_is_retried_and_settles_once(
    proxied_server: tuple[LiveServer, OutageProxy, str],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    live, proxy, url = proxied_server
    tries: list[int] = []
    settle = TableService.settle

    def cut_first(self: TableService, *args: Any, **kwargs: Any) -> Any:
        """The database goes away just as the first try of the settlement starts."""
        tries.append(1)
        if len(tries) == 1:
            proxy.cut()
            threading.Timer(1.5, proxy.restore).start()
        return settle(self, *args, **kwargs)

    monkeypatch.setattr(TableService, "settle", cut_first)
    caplog.set_level(logging.WARNING, logger="boundless.ledger.outage")
    players = [live.seated(name) for name in ("Ana", "Bo")]
    for index, (_, client) in enumerate(players):
        assert client.request(bet_message(f"b{index}", 1000 + 500 * index))["type"] == "ack"
    results = [play_to_settlement(client) for _, client in players]
    for _, client in players:
        client.close()
    assert len(tries) >= 2  # the first try failed, a later one wrote it
    assert proxy.cuts == 1
    retried = [r.getMessage() for r in caplog.records if "unreachable" in r.getMessage()]
    assert retried and "settlement of boundless-1 round 1" in retried[0], retried
    settles = [t for t in round_transactions(url, 1) if t.category == Category.SETTLE]
    assert len(settles) == 1  # exactly once, never voided
    assert not [t for t in round_transactions(url, 1) if t.category == Category.CANCEL]
    round_id = results[0]["round_id"]
    assert all(result["round_id"] == round_id and "cancelled" not in result for result in results)
    record = live.http.get(
        f"/api/v1/records/{round_id}",
        headers={"Authorization": f"Bearer {players[0][0]['token']}"},
    )
    assert record.status_code == 200 and record.json()["status"] == "settled"
    assert_books(
        url,
        {
            player["player_id"]: GRANT - result["staked"] + result["paid"]
            for (player, _), result in zip(players, results, strict=True)
        },
    )


def test_an_operator_cancel_during_an_outage_is_refused_and_changes_nothing(
    proxied_server: tuple[LiveServer, OutageProxy, str],
) -> None:
    """The answer says nothing changed: then the round must still be in play, its stakes
    held, and the same cancel once the database is back must refund them (not 409)."""
    live, proxy, url = proxied_server
    player, client = live.seated("Ana")
    assert client.request(bet_message("before-outage", 1000))["type"] == "ack"
    assert live.admin("pause", reason="checking").status_code == 200  # the round stays put
    table = live.table(TABLE)
    round_id, phase = table.round_id, table.round.phase
    proxy.cut()
    refused = live.admin("cancel", reason="dealer error")
    assert refused.status_code == 503, refused.text
    assert refused.json()["error"] == "ledger_unavailable"
    assert table.round_id == round_id and table.round.phase == phase and not table.round.over
    proxy.restore()
    answer = live.admin("cancel", reason="dealer error")
    assert answer.status_code == 200, answer.text
    assert answer.json()["round_id"] == round_id
    assert answer.json()["refunds"] == [{"player_id": player["player_id"], "amount": 1000}]
    notice = client.wait_for("notice", lambda m: m["kind"] == "cancelled")
    assert notice["detail"]["reason"] == "dealer error"
    client.close()
    assert_books(url, {player["player_id"]: GRANT})


def test_a_cancel_whose_refund_cannot_be_written_says_so_and_is_refunded_later(
    proxied_server: tuple[LiveServer, OutageProxy, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database goes away after the cancel's check and before its write: the round is
    voided already, so the answer must not say that nothing changed; the refund comes later
    (here at the orderly stop, else at the next start), once."""
    live, proxy, url = proxied_server
    player, client = live.seated("Ana")
    assert client.request(bet_message("before-outage", 1000))["type"] == "ack"
    assert live.admin("pause", reason="checking").status_code == 200
    monkeypatch.setattr(admin_endpoints, "check_database", lambda sessions: None)
    proxy.cut()
    answer = live.admin("cancel", reason="dealer error")
    assert answer.status_code == 503, answer.text
    body = answer.json()
    assert body["error"] == "ledger_unavailable" and "refunds them" in body["detail"]
    assert "nothing was written" not in body["detail"]
    client.close()
    proxy.restore()
    live.stop()
    assert_books(url, {player["player_id"]: GRANT})
