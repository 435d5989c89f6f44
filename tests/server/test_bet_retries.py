"""A retried ``bet_id`` gets its first answer, in the window and after it; a different bet under
the same id is refused with ``idempotency_conflict`` and changes nothing."""

from __future__ import annotations

from typing import Any

from boundless.ledger import LedgerService, make_engine, make_session_factory
from tests.server.live import LiveServer


def _bet(bet_id: str, amount: int) -> dict[str, Any]:
    return {
        "type": "bet",
        "table_id": "boundless-1",
        "bet_id": bet_id,
        "bets": {"1": {"main": amount}},
    }


def test_a_retried_bet_id_replays_its_answer_and_a_changed_one_is_refused(
    server: LiveServer,
) -> None:
    _, client = server.seated("Ana")
    first = client.request(_bet("retry-1", 1000))
    assert first["type"] == "ack" and first["balance"] == 99_000
    again = client.request(_bet("retry-1", 1000))
    assert again["type"] == "ack" and again.get("replayed") is True
    assert (again["round_id"], again["balance"]) == (first["round_id"], first["balance"])
    changed = client.request(_bet("retry-1", 2000))
    assert changed["type"] == "error" and changed["error"] == "idempotency_conflict", changed
    client.wait_for("state", lambda m: (m.get("public") or {}).get("phase") != "betting")
    late = client.request(_bet("retry-1", 1000))
    assert late["type"] == "ack" and late.get("replayed") is True, late
    assert (late["round_id"], late["balance"]) == (first["round_id"], first["balance"])
    late_changed = client.request(_bet("retry-1", 500))
    assert late_changed["error"] == "idempotency_conflict", late_changed
    fresh = client.request(_bet("retry-2", 1000))
    assert fresh["error"] == "wrong_phase", fresh  # a new bet after the window still is late
    client.close()
    engine = make_engine(server.database_url)
    with make_session_factory(engine).begin() as session:
        staked = LedgerService(session).round_transactions("boundless-1", 1)
        assert sum(1 for t in staked if t.kind == "main") == 1
    engine.dispose()


def test_a_bet_id_sent_to_another_table_is_refused_not_replayed(server: LiveServer) -> None:
    """Idempotency is keyed by table too: the id of a bet taken at boundless-1, sent with a bet
    to unlimited-1, used to be acked ``replayed`` with boundless-1's round."""
    _, client = server.seated("Ana")
    assert client.request(_bet("one-id", 1000))["type"] == "ack"
    client.request({"type": "join", "table_id": "unlimited-1"})
    elsewhere = client.request({**_bet("one-id", 1000), "table_id": "unlimited-1"})
    assert elsewhere["type"] == "error" and elsewhere["error"] == "idempotency_conflict", elsewhere
    assert "table 'boundless-1'" in elsewhere["detail"]
    client.close()
    engine = make_engine(server.database_url)
    with make_session_factory(engine).begin() as session:
        assert LedgerService(session).round_transactions("unlimited-1", 1) == []
    engine.dispose()


def test_the_protocol_version_is_the_integer_1(server: LiveServer) -> None:
    _, client = server.seated("Ana")
    client.send_raw(
        '{"v": 1.0, "type": "join", "table_id": "boundless-1", "request_id": "float-v"}'
    )
    answer = client.answer("float-v")
    assert answer["error"] == "unsupported_version", answer
    client.close()
