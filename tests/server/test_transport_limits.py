"""Limits at the edge, over a real uvicorn server: every frame is charged to the rate limit, a
WebSocket message is at most 16 KiB in bytes (enforced by the transport, before ``hello``), and
REST bodies are bounded by Content-Length and by the bytes streamed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed

from tests.server.live import LiveServer, start_server

MESSAGE_TOO_BIG = 1009
POLICY_VIOLATION = 1008


@pytest.fixture
def slow_server(tmp_path: Path) -> Iterator[LiveServer]:
    live = start_server(tmp_path, messages_per_second=5.0)
    yield live
    live.stop()


def answers_until_closed(live: LiveServer, token: str, frames: list[str]) -> tuple[list[str], int]:
    """Send ``frames`` after ``hello``; the error codes that came back and the close code."""
    client = live.client(token)
    client.hello()
    codes: list[str] = []
    try:
        for frame in frames:
            client.send_raw(frame)
    except ConnectionClosed:
        pass  # the server hung up mid-flood; what it said before is still buffered
    try:
        while True:
            message = client.recv(5.0)
            if message.get("type") == "error":
                codes.append(message["error"])
    except ConnectionClosed as closed:
        assert closed.rcvd is not None
        return codes, closed.rcvd.code
    raise AssertionError("unreachable")


def test_garbage_frames_are_charged_and_a_flood_is_cut_off(slow_server: LiveServer) -> None:
    token = slow_server.sign_up()["token"]
    codes, close_code = answers_until_closed(slow_server, token, ["not json {"] * 400)
    assert codes.count("bad_message") <= 10  # the burst (twice 5 per second), less hello
    assert "rate_limited" in codes
    assert close_code == POLICY_VIOLATION  # it kept going after rate_limited
    assert len(codes) <= 10 + 10 * 10 + 1  # the burst, then ten bursts' worth refused
    assert len(codes) < 400


def test_valid_but_refused_frames_are_charged_too(slow_server: LiveServer) -> None:
    token = slow_server.sign_up()["token"]
    frame = json.dumps({"v": 1, "type": "join", "table_id": "no-such-table"})
    codes, close_code = answers_until_closed(slow_server, token, [frame] * 400)
    assert "rate_limited" in codes
    assert close_code == POLICY_VIOLATION
