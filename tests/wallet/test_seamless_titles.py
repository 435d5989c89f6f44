"""Every title on the operator's wallet moves exactly what the internal wallet moves: the same
seeded rounds (doubles taken where offered) on both, and the resplit scenario (splits to four
hands, two doubles) on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from boundless.cli.rule_files import titles_catalog
from tests.postgres import postgres_schema
from tests.server.live import (
    LiveServer,
    Message,
    assert_books,
    bet,
    open_private_table,
    play_to_settlement,
    serving,
)
from tests.server.test_resplit_serve import DECISIONS, EIGHTS, FOLDER, TITLE, StackedShuffle
from tests.wallet.bench import (
    launch,
    operator_wallet,
    seamless,
    seamless_server,
    settled_calls,
)

START = 100_000
TITLES = ("boundless", "unlimited", "boo-bucks")
"""Boundless and Unlimited at their shared tables, Boo Bucks at a private one."""
ROUNDS = 2


def _double_when_offered(position: Message) -> str:
    return "double" if "double" in position["legal_actions"] else "stand"


def _rounds(live: LiveServer, client: Any, table_id: str) -> list[tuple[int, int]]:
    figures = []
    for _ in range(ROUNDS):
        assert bet(client, 1000, table_id=table_id)["type"] == "ack"
        settled = play_to_settlement(client, _double_when_offered)
        figures.append((settled["staked"], settled["paid"]))
    return figures


def _private(live: LiveServer, title: str, player: Any = None) -> tuple[Any, str]:
    headers = {"Authorization": f"Bearer {player}"}
    created = live.http.post("/api/v1/tables", json={"title": title}, headers=headers)
    assert created.status_code == 201, created.text
    return created.json()["table_id"], headers


def test_every_title_moves_what_the_internal_wallet_moves(tmp_path: Path) -> None:
    internal: dict[str, list[tuple[int, int]]] = {}
    with serving(tmp_path / "internal", seed=5) as live:
        for title in TITLES:
            if title == "boo-bucks":
                _player, client, table_id = open_private_table(live, title, f"I{title[:8]}")
            else:
                table_id = f"{title}-1"
                _player, client = live.seated(f"I{title[:8]}", table_id)
            internal[title] = _rounds(live, client, table_id)
            client.close()
        assert_books(live.database_url)
    with operator_wallet(START) as operator:
        wallets = seamless(operator)
        live = seamless_server(tmp_path / "seamless", wallets, seed=5)
        try:
            for title in TITLES:
                player_id, client = launch(live, f"op-{title}")
                table_id = f"{title}-1"
                if title == "boo-bucks":
                    table_id, _ = _private(live, title, _token_of(client))
                assert client.request({"type": "join", "table_id": table_id})["type"] == "ack"
                figures = _rounds(live, client, table_id)
                client.close()
                assert figures == internal[title], title
                settled_calls(wallets)
                net = sum(paid - staked for staked, paid in figures)
                assert operator.store.balances[player_id] == START + net, title
            assert_books(live.database_url, {f"op-{title}": 0 for title in TITLES})
        finally:
            live.stop()
            wallets.close()


def _token_of(client: Any) -> str:
    return str(client.token)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str | None]:
    if request.param == "sqlite":
        yield None
        return
    with postgres_schema("wallet_resplit") as url:
        yield url


def test_splits_and_doubles_debit_mid_round(tmp_path: Path, database_url: str | None) -> None:
    catalog = titles_catalog(FOLDER)
    assert catalog is not None
    rules, _ = catalog.get(TITLE)
    with operator_wallet(START) as operator:
        wallets = seamless(operator)
        live = seamless_server(
            tmp_path,
            wallets,
            database_url=database_url,
            catalog=catalog,
            randomness=lambda: StackedShuffle(rules.shoe.decks, list(EIGHTS)),
        )
        try:
            player_id, client = launch(live, "op-rosa")
            table_id, _ = _private(live, TITLE, _token_of(client))
            assert client.request({"type": "join", "table_id": table_id})["type"] == "ack"
            assert bet(client, 1000, table_id=table_id)["type"] == "ack"
            queue = list(DECISIONS)
            settled = play_to_settlement(client, lambda position: queue.pop(0))
            client.close()
            assert (settled["staked"], settled["paid"]) == (6000, 8000)  # as internal pays it
            settled_calls(wallets)
            assert operator.store.balances[player_id] == START + 2000
            debits = [t for t in operator.store.transactions.values() if t.kind == "debit"]
            assert sorted(t.amount for t in debits) == [1000, 1000, 1000, 1000, 1000, 1000]
            assert_books(live.database_url, {player_id: 0})
        finally:
            live.stop()
            wallets.close()
