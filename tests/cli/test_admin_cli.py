"""``boundless admin``: plain sentences for what happened, and a clear word for a wrong token."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from cli_helpers import assert_refused, invoke

TOKEN = "right-token"
PAUSED_STATE = {
    "type": "state",
    "table_id": "boundless-1",
    "round_no": 12,
    "public": {"phase": "decisions"},
    "timer": {"kind": "decision", "deadline_ms": None, "remaining_ms": 7500},
    "paused": True,
}


class FakeAdminApi(BaseHTTPRequestHandler):
    def _answer(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        if self.headers.get("Authorization") != f"Bearer {TOKEN}":
            self._answer(401, {"error": "unauthorized", "detail": "the admin token is required"})
        elif self.path.endswith("/resume"):
            self._answer(409, {"error": "conflict", "detail": "table 'boundless-1' is not paused"})
        else:
            self._answer(200, PAUSED_STATE)

    def log_message(self, *args: object) -> None:
        return None


@pytest.fixture
def api_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeAdminApi)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_pause_says_what_happened_in_words(api_url: str) -> None:
    outcome = invoke("admin", "pause", "boundless-1", "--url", api_url, "--token", TOKEN)
    assert outcome.code == 0, outcome.output
    assert outcome.stdout.strip() == (
        "boundless-1 paused: round 12, decisions, decision timer, 7.5 s left; "
        "the players see: operator pause"
    )
    assert "{" not in outcome.stdout


def test_a_wrong_token_is_called_rejected(api_url: str) -> None:
    outcome = invoke("admin", "pause", "boundless-1", "--url", api_url, "--token", "nope")
    assert_refused(outcome, "rejected the admin token")


def test_a_refusal_is_one_sentence_from_the_error_shape(api_url: str) -> None:
    outcome = invoke("admin", "resume", "boundless-1", "--url", api_url, "--token", TOKEN)
    assert outcome.code == 1
    assert outcome.stderr.strip() == (
        "error: the server refused: conflict: table 'boundless-1' is not paused"
    )


def test_a_url_that_is_not_http_is_refused() -> None:
    assert_refused(invoke("admin", "tables", "--url", "nowhere", "--token", TOKEN), "--url")
