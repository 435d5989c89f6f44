"""The OpenAPI document shows the server's one error shape and every status a route answers."""

from __future__ import annotations

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
        ("post", "/api/v1/players", {"413", "422", "429"}),
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


def test_a_route_without_a_token_does_not_claim_401(document: dict[str, Any]) -> None:
    assert "401" not in responses(document, "get", "/api/v1/titles")
    assert "401" not in responses(document, "get", "/api/v1/shoes/{table_id}/{shoe_number}")
