"""The OpenAPI document shows the server's one error shape and every status a route answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.server.live import serving

ERROR_REF = {"$ref": "#/components/schemas/Error"}


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    with serving(tmp_path_factory.mktemp("openapi")) as live:
        answer: dict[str, Any] = live.http.get("/openapi.json").json()
        return answer


def responses(document: dict[str, Any], method: str, path: str) -> dict[str, Any]:
    found: dict[str, Any] = document["paths"][path][method]["responses"]
    return found


def test_no_array_shaped_validation_error_is_documented(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    assert "HTTPValidationError" not in schemas and "ValidationError" not in schemas
    assert set(schemas["Error"]["properties"]) == {"error", "detail"}
    assert schemas["Error"]["required"] == ["error", "detail"]
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for status, answer in operation["responses"].items():
                if status.startswith(("4", "5")):
                    schema = answer["content"]["application/json"]["schema"]
                    assert schema == ERROR_REF, (method, path, status)
            assert "500" in operation["responses"], (method, path)


@pytest.mark.parametrize(
    ("method", "path", "statuses"),
    [
        ("post", "/api/v1/players", {"413", "422", "429", "503"}),
        ("patch", "/api/v1/tables/{table_id}", {"401", "403", "404", "413", "422"}),
        ("delete", "/api/v1/tables/{table_id}", {"401", "403", "404", "409", "422"}),
        ("get", "/api/v1/me", {"401"}),
        ("post", "/api/v1/tables", {"401", "404", "409", "413", "422"}),
        ("get", "/api/v1/records/{round_id}", {"401", "403", "404", "422"}),
        ("get", "/api/v1/shoes/{table_id}/{shoe_number}", {"404", "422"}),
        ("post", "/api/v1/admin/tables/{table_id}/pause", {"401", "403", "404", "409"}),
        ("post", "/api/v1/admin/tables/{table_id}/cancel", {"401", "403", "404", "409"}),
        ("get", "/api/v1/admin/returns", {"401", "403"}),
        ("get", "/api/v1/admin/ledger-check", {"401", "403"}),
    ],
)
def test_each_route_lists_its_refusals(
    document: dict[str, Any], method: str, path: str, statuses: set[str]
) -> None:
    assert statuses <= set(responses(document, method, path))


def test_what_the_table_routes_answer_is_what_the_document_lists(tmp_path: Path) -> None:
    """The answers themselves, each checked against the route's listed statuses."""
    with serving(tmp_path) as live:
        document = live.http.get("/openapi.json").json()
        owner = {"Authorization": f"Bearer {live.sign_up('Owner')['token']}"}
        table = "/api/v1/tables/{table_id}"
        answers = [
            ("patch", live.http.patch("/api/v1/tables/boundless-1", json={"name": "x"},
                                      headers=owner)),
            ("delete", live.http.delete("/api/v1/tables/boundless-1", headers=owner)),
            ("patch", live.http.patch("/api/v1/tables/nothing-9", json={"name": "x"},
                                      headers=owner)),
            ("delete", live.http.delete("/api/v1/tables/nothing-9", headers=owner)),
        ]  # fmt: skip
        for method, answer in answers:
            assert answer.status_code in (403, 404), answer.text
            assert str(answer.status_code) in responses(document, method, table)
        # bytes that are not UTF-8: 422 bad_message like any malformed body, never 400
        unreadable = live.http.post(
            "/api/v1/players",
            content=b'{"display_name": "\xff"}',
            headers={"Content-Type": "application/json"},
        )
        assert unreadable.status_code == 422, unreadable.text
        assert unreadable.json()["error"] == "bad_message"


def test_a_route_without_a_token_does_not_claim_401(document: dict[str, Any]) -> None:
    assert "401" not in responses(document, "get", "/api/v1/titles")
    assert "401" not in responses(document, "get", "/api/v1/shoes/{table_id}/{shoe_number}")
