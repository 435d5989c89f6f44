"""The reference operator wallet refuses a malformed call (400, one line, nothing applied), as
an operator reading it should: a negative or string amount, a body that is not an object, an
amount beyond 64 bits, a report day that is not a day."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from boundless.wallet.demo_operator import Store, create_demo_operator
from boundless.wallet.signing import REQUEST_HEADER, sign

SECRET = b"a-secret-for-the-reference-wallet"
START = 1_000


def call(client: TestClient, path: str, body: Any) -> tuple[int, dict[str, Any]]:
    data = orjson.dumps(body)
    answer = client.post(f"/{path}", content=data, headers={REQUEST_HEADER: sign(SECRET, data)})
    return answer.status_code, answer.json()


def money(amount: Any, **changes: Any) -> dict[str, Any]:
    return {"transaction_id": "d-1", "player_id": "p1", "round_id": "t:1", "amount": amount,
            "currency": "EUR", **changes}  # fmt: skip


@pytest.mark.parametrize(
    ("path", "body", "detail"),
    [
        ("debit", money(-5), "debit: amount must be 1 to"),
        ("debit", money(0), "debit: amount must be 1 to"),
        ("debit", money("5"), "debit: amount must be an integer"),
        ("debit", money(5.0), "debit: amount must be an integer"),
        ("debit", money(True), "debit: amount must be an integer"),
        ("debit", money(5, player_id=7), "debit: player_id must be a string"),
        ("debit", money(5, currency="eur"), "debit: currency must be three capital letters"),
        ("credit", money(2**62), "credit: amount must be 0 to"),
        ("debit", [1], "the body must be a JSON object"),
        ("credit_batch", {"credits": "x"}, "credits must be a list"),
        ("report", {"date": "garbage"}, "report: date must be YYYY-MM-DD"),
        ("balance", {"player_id": ["p1"]}, "balance: player_id must be a string"),
    ],
)
def test_a_malformed_call_is_refused_and_applies_nothing(path: str, body: Any, detail: str) -> None:
    store = Store(starting_balance=START)
    with TestClient(create_demo_operator(SECRET, store)) as client:
        status, answer = call(client, path, body)
        assert (status, answer["error"]) == (400, "bad_request"), answer
        assert detail in answer["detail"] and "\n" not in answer["detail"]
        assert store.transactions == {} and set(store.balances.values()) <= {START}


def test_a_bad_debit_in_a_batch_is_refused_alone() -> None:
    store = Store(starting_balance=START)
    with TestClient(create_demo_operator(SECRET, store)) as client:
        good = money(100, transaction_id="d-good")
        status, answer = call(client, "debit_batch", {"debits": [money(-100), good]})
        assert status == 200
        first, second = answer["results"]
        assert first["status"] == "error" and "amount must be 1 to" in first["detail"]
        assert (second["status"], second["balance"]) == ("ok", START - 100)
        assert list(store.transactions) == ["d-good"]


@pytest.mark.parametrize(
    ("switches", "detail"),
    [
        ([1], "the body must be a JSON object of switches"),
        ({"no_such": 1}, "no switch 'no_such'"),
        ({"latency_ms": "slow"}, "switch 'latency_ms' takes a float"),
        ({"down": 1}, "switch 'down' takes a bool"),
        ({"fail_next": {"debit": "x"}}, "switch 'fail_next' takes a dict"),
        ({"refuse": {"p1": 5}}, "switch 'refuse' takes a dict"),
        ({"down": True, "hang_seconds": -1}, "switch 'hang_seconds' takes a float"),
    ],
)
def test_a_bad_fault_switch_is_refused_and_changes_nothing(switches: Any, detail: str) -> None:
    app = create_demo_operator(SECRET, Store())
    with TestClient(app) as client:
        before = dict(app.state.faults.__dict__)
        answer = client.post("/admin/faults", json=switches)
        assert (answer.status_code, answer.json()["error"]) == (400, "bad_request")
        assert answer.json()["detail"] == detail
        assert app.state.faults.__dict__ == before
        assert client.post("/admin/faults", json={"down": True}).json()["faults"]["down"]
