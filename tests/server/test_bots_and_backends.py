"""Bots play rounds through the protocol; a full round on PostgreSQL where one is reachable."""

from __future__ import annotations

from pathlib import Path

from boundless.ledger import check_books, make_engine, make_session_factory
from tests.postgres import postgres_schema
from tests.server.live import (
    BOT_TIMERS,
    assert_books,
    bet,
    play_to_settlement,
    serving,
    wait_until,
)


def _count(database_url: str, sql: str) -> int:
    engine = make_engine(database_url)
    with engine.connect() as connection:
        value = int(connection.exec_driver_sql(sql).scalar_one())
    engine.dispose()
    return value


def test_bots_play_rounds_through_the_protocol(tmp_path: Path) -> None:
    with serving(tmp_path, bots=4, timers=BOT_TIMERS) as live:
        settled = "SELECT count(*) FROM server_rounds WHERE status = 'settled'"
        wait_until(lambda: _count(live.database_url, settled) >= 2, 60, "two bot rounds")
        bot_lines = _count(
            live.database_url,
            "SELECT count(*) FROM server_round_players WHERE player_id LIKE 'bot-%'",
        )
        assert bot_lines >= 4
        lobby = live.http.get("/api/v1/tables").json()[0]
        assert lobby["watchers"] == 4
        bots = live.app_state.bots
        assert all(bot.connection.player is not None for bot in bots)
    assert_books(live.database_url)


def test_a_round_on_postgresql(tmp_path: Path) -> None:
    with postgres_schema("server_test") as database_url:
        with serving(tmp_path, database_url=database_url) as live:
            player, client = live.seated("Pat")
            assert bet(client, 1000, pair=100)["type"] == "ack"
            settled = play_to_settlement(client)
            assert settled["balance"] == 100_000 - 1100 + settled["paid"]
            record = live.http.get(
                f"/api/v1/records/{settled['round_id']}",
                headers={"Authorization": f"Bearer {player['token']}"},
            )
            assert record.status_code == 200 and record.json()["status"] == "settled"
            client.close()
        engine = make_engine(database_url)
        with make_session_factory(engine).begin() as session:
            assert check_books(session).ok
        engine.dispose()
