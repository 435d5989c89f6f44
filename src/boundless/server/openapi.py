"""The OpenAPI document tells the truth about refusals: every one is ``{"error", "detail"}``.

FastAPI documents its own array-shaped 422 and nothing else; the server answers every refusal in
one shape (``boundless.server.errors``). Here each operation gets the statuses it can answer:
422 where it takes parameters, 413 where it takes a body, 401 where it reads a token, 500
everywhere, and the refusals its service raises (listed below, by route).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel, Field

ERROR_SCHEMA = "Error"


class ErrorBody(BaseModel):
    """Every refusal, over HTTP and WebSocket alike."""

    error: str = Field(
        description="stable code: a rules or ledger code, or one of the server's "
        "(unauthorized, forbidden, not_found, bad_message, rate_limited, conflict, "
        "too_large, internal_error, ...)"
    )
    detail: str = Field(description="for people; never parsed")


STATUS_TEXT = {
    400: "Refused by the rules or the ledger",
    401: "No token, or an unknown one (`unauthorized`)",
    403: "Not yours, or a player's token on an admin route (`forbidden`)",
    404: "No such item (`not_found`)",
    409: "Conflicts with the table's state (`conflict`, `table_paused`, ...)",
    413: "Body over 16 KiB (`too_large`)",
    422: "Malformed parameters or body (`bad_message`)",
    429: "Too many requests (`rate_limited`)",
    500: "Server fault (`internal_error`; the cause is logged, never sent)",
    503: "The database cannot write now (`ledger_unavailable`, `storage_full`); nothing changed",
}

ROUTE_REFUSALS: dict[tuple[str, str], set[int]] = {
    ("POST", "/api/v1/players"): {429, 503},
    ("POST", "/api/v1/tables"): {400, 404, 409, 503},
    ("PATCH", "/api/v1/tables/{table_id}"): {403, 404},
    ("DELETE", "/api/v1/tables/{table_id}"): {403, 404, 409},
    ("GET", "/api/v1/titles/{key}"): {404},
    ("GET", "/api/v1/records"): {404},
    ("GET", "/api/v1/records/{round_id}"): {403, 404},
    ("GET", "/api/v1/shoes/{table_id}/{shoe_number}"): {404},
    ("GET", "/api/v1/tables/{table_id}/stats"): {404},
    ("POST", "/api/v1/admin/tables/{table_id}/pause"): {404, 409},
    ("POST", "/api/v1/admin/tables/{table_id}/resume"): {404, 409},
    ("POST", "/api/v1/admin/tables/{table_id}/cancel"): {404, 409, 503},
}
"""What each route's service can refuse beyond what its signature shows."""


def statuses_of(method: str, path: str, operation: dict[str, Any]) -> set[int]:
    """Read from the generated operation itself, so no route is missed or listed twice."""
    statuses = {500, *ROUTE_REFUSALS.get((method, path), set())}
    if "422" in operation["responses"]:
        statuses.add(422)
    if "requestBody" in operation:
        statuses.add(413)
    parameters = operation.get("parameters", [])
    if any(item["in"] == "header" and item["name"] == "authorization" for item in parameters):
        statuses.add(401)  # every way of reading a token (player or admin) takes this header
    if path.startswith("/api/v1/admin/"):
        statuses.add(403)  # a player's token is refused by the admin routes
    return statuses


def document_errors(app: FastAPI) -> None:
    """Replace ``app.openapi`` with one that documents the server's real error answers."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = get_openapi(title=app.title, version=app.version, routes=app.routes)
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        components.pop("HTTPValidationError", None)
        components.pop("ValidationError", None)
        components[ERROR_SCHEMA] = ErrorBody.model_json_schema()
        reference = {"$ref": f"#/components/schemas/{ERROR_SCHEMA}"}
        for path, operations in schema["paths"].items():
            for method, operation in operations.items():
                for status in sorted(statuses_of(method.upper(), path, operation)):
                    operation["responses"][str(status)] = {
                        "description": STATUS_TEXT[status],
                        "content": {"application/json": {"schema": reference}},
                    }
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
