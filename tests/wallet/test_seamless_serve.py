"""``serve`` on the reference operator wallet: players launched by the operator, every coin
moved by a signed call, the ledger the game's record of each call (SQLite here)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from boundless.ledger import LedgerService, check_books, make_engine, make_session_factory
from boundless.ledger.models import WALLET_CALLS
from boundless.server.config import default_web_dir
from boundless.wallet.signing import REQUEST_HEADER, sign
from tests.server.live import LiveServer, bet, play_to_settlement, serving
from tests.server.test_insurance import ACE_UP_DEALER_BLACKJACK
from tests.wallet.bench import (
    SECRET,
    launch,
    operator_wallet,
    post_faults,
    seamless,
    seamless_server,
    settled_calls,
)

START = 100_000


def _wallets(live: LiveServer, players: list[str]) -> dict[str, int]:
    engine = make_engine(live.database_url)
    try:
        with make_session_factory(engine).begin() as session:
            return LedgerService(session).wallet_balances(players)
    finally:
        engine.dispose()


def _calls(live: LiveServer) -> list[dict[str, object]]:
    engine = make_engine(live.database_url)
    try:
        with make_session_factory(engine).begin() as session:
            assert check_books(session).ok
            rows = [dict(row) for row in session.execute(select(WALLET_CALLS)).mappings()]
            players = {str(row["player_id"]) for row in rows}
            held = LedgerService(session).wallet_balances(sorted(players))
            assert set(held.values()) <= {0}, held  # nothing held between rounds
            return rows
    finally:
        engine.dispose()


def test_a_round_with_insurance_moves_what_the_internal_wallet_would(tmp_path: Path) -> None:
    with serving(tmp_path / "internal", seed=ACE_UP_DEALER_BLACKJACK) as live:
        _player, client = live.seated("Ivy")
        internal = _insured_round(live, client)
        client.close()
    with operator_wallet(START) as operator:
        wallets = seamless(operator)
        live = seamless_server(tmp_path / "seamless", wallets, seed=ACE_UP_DEALER_BLACKJACK)
        try:
            player_id, client = launch(live, "op-ivy")
            settled = _insured_round(live, client)
            client.close()
            settled_calls(wallets)
            assert (settled["staked"], settled["paid"]) == (internal["staked"], internal["paid"])
            assert operator.store.balances[player_id] == START + settled["net"]
            rows = _calls(live)
        finally:
            live.stop()
            wallets.close()
    kinds = sorted((str(row["kind"]), int(str(row["amount"]))) for row in rows)
    assert kinds == [("credit", 1500), ("debit", 500), ("debit", 1000)]
    assert {row["status"] for row in rows} == {"done"}


def _insured_round(live: LiveServer, client: object) -> dict[str, int]:
    assert bet(client, 1000)["type"] == "ack"  # type: ignore[arg-type]
    client.wait_for(  # type: ignore[attr-defined]
        "you", lambda m: m["player"]["positions"][0]["insurance_offer"] == "insurance", 60
    )
    mark = len(client.seen)  # type: ignore[attr-defined]
    taken = client.request(  # type: ignore[attr-defined]
        {"type": "insurance", "table_id": "boundless-1", "spot": 1, "kind": "insurance"}
    )
    assert taken["type"] == "ack", taken
    return dict(play_to_settlement(client, since=mark))  # type: ignore[arg-type]


def test_a_refused_debit_is_a_refused_bet_with_nothing_staked(tmp_path: Path) -> None:
    with operator_wallet(START) as operator:
        wallets = seamless(operator)
        live = seamless_server(tmp_path, wallets, web_dir=default_web_dir())  # its languages
        try:
            player_id, client = launch(live, "op-rex")
            body = b'{"player_id": "op-eve", "name": "Eve", "currency": "EUR"}'
            forged = live.http.post(
                "/api/v1/operator/sessions",
                content=body,
                headers={REQUEST_HEADER: sign(b"not-the-shared-secret", body)},
            )
            assert (forged.status_code, forged.json()["error"]) == (401, "unauthorized")
            # Signed but wrong: a precise refusal each, and no player made.
            for wrong, answer in [
                (b"{not json", (422, "bad_message", "the body is not JSON")),
                (b"[1, 2]", (422, "bad_message", "Input should be")),
                (
                    b'{"player_id": "a b", "name": "Eve", "currency": "EUR"}',
                    (422, "bad_message", "player_id: String should match"),
                ),
                (
                    b'{"player_id": "op-eve", "name": "Eve", "currency": "USD"}',
                    (409, "conflict", "this server plays in EUR, not USD"),
                ),
                (
                    b'{"player_id": "op-eve", "name": "Eve", "currency": "EUR", "language": "de"}',
                    (422, "bad_message", "language: one of en, ja, ko, not 'de'"),
                ),
            ]:
                refused = live.http.post(
                    "/api/v1/operator/sessions",
                    content=wrong,
                    headers={REQUEST_HEADER: sign(SECRET, wrong)},
                )
                status, code, detail = answer
                assert (refused.status_code, refused.json()["error"]) == (status, code), wrong
                assert detail in refused.json()["detail"], refused.json()
                assert "\n" not in refused.json()["detail"]
            assert _wallets(live, ["op-eve"]) == {}
            unknown = live.http.post("/api/v1/operator/launch", json={"code": "x" * 32})
            assert unknown.status_code == 401
            post_faults(operator, refuse={player_id: "responsible_gaming"})
            refused = bet(client, 1000)
            assert (refused["type"], refused["error"]) == ("error", "responsible_gaming")
            post_faults(operator, refuse={})
            too_much = bet(client, START + 1000)
            assert too_much["type"] == "error"
            client.close()
            assert operator.store.balances[player_id] == START
            rows = _calls(live)
        finally:
            live.stop()
            wallets.close()
    assert [row["status"] for row in rows if row["kind"] == "debit"] == ["refused"]
