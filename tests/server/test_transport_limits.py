"""Limits at the edge, over a real uvicorn server: every frame is charged to the rate limit, a
WebSocket message is at most 16 KiB in bytes (enforced by the transport, before ``hello``), and
REST bodies are bounded by Content-Length and by the bytes streamed."""

from __future__ import annotations

import base64
import contextlib
import json
import logging
import os
import socket

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from boundless.server.errors import BadMessageError
from boundless.server.protocol import MAX_MESSAGE_BYTES, decode_text
from tests.server.live import LiveServer, served

MESSAGE_TOO_BIG = 1009
INVALID_DATA = 1007
POLICY_VIOLATION = 1008


slow_server = served(messages_per_second=5.0)


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


live = served()


def host_port(live: LiveServer) -> tuple[str, int]:
    return "127.0.0.1", live.config.port


def read_until(sock: socket.socket, marker: bytes) -> bytes:
    data = b""
    while marker not in data:
        chunk = sock.recv(65_536)
        if not chunk:
            break
        data += chunk
    return data


def test_a_16_mb_frame_header_before_hello_is_closed_with_1009_unread(live: LiveServer) -> None:
    """Only the frame header and 1,000 of the 16 MiB announced bytes are sent: the server must
    answer from the header (before hello), not wait to buffer the payload."""
    with socket.create_connection(host_port(live), timeout=10) as sock:
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall(
            (
                f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                f"Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        handshake = read_until(sock, b"\r\n\r\n")
        assert handshake.startswith(b"HTTP/1.1 101"), handshake
        announced = 16 * 2**20
        header = bytes([0x81, 0x80 | 127]) + announced.to_bytes(8, "big") + os.urandom(4)
        sock.sendall(header + b"x" * 1000)
        close = handshake.partition(b"\r\n\r\n")[2] or sock.recv(2)
        while len(close) < 4:
            close += sock.recv(4 - len(close))
        assert close[0] == 0x88  # a close frame
        assert int.from_bytes(close[2:4], "big") == MESSAGE_TOO_BIG


def test_an_invalid_utf8_text_frame_before_hello_is_closed_with_1007_in_one_log_line(
    live: LiveServer, caplog: pytest.LogCaptureFixture
) -> None:
    """It used to log a 7-line traceback per socket (a cheap log flood)."""
    caplog.set_level(logging.INFO, logger="uvicorn.error")
    for _ in range(2):
        with socket.create_connection(host_port(live), timeout=10) as sock:
            key = base64.b64encode(os.urandom(16)).decode()
            sock.sendall(
                (
                    f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                    f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                    f"Sec-WebSocket-Version: 13\r\n\r\n"
                ).encode()
            )
            handshake = read_until(sock, b"\r\n\r\n")
            assert handshake.startswith(b"HTTP/1.1 101"), handshake
            payload, mask = b"\xff\xfe\xfd", os.urandom(4)
            masked = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
            sock.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + masked)
            close = handshake.partition(b"\r\n\r\n")[2] or sock.recv(2)
            while len(close) < 4:
                close += sock.recv(4 - len(close))
            assert close[0] == 0x88
            assert int.from_bytes(close[2:4], "big") == INVALID_DATA
    about = [record for record in caplog.records if "UTF-8" in record.getMessage()]
    assert len(about) == 2, [record.getMessage() for record in caplog.records]
    assert all(record.exc_info is None and "\n" not in record.getMessage() for record in about)
    assert "Traceback" not in caplog.text


@pytest.mark.parametrize(
    ("text", "closed"),
    [
        ("x" * MAX_MESSAGE_BYTES, False),
        ("x" * (MAX_MESSAGE_BYTES + 1), True),
        ("€" * (MAX_MESSAGE_BYTES // 3), False),  # 16,383 bytes in 5,461 characters
        ("€" * (MAX_MESSAGE_BYTES // 3 + 1), True),  # 16,386 bytes: counted in bytes
    ],
)
def test_the_message_limit_counts_bytes(live: LiveServer, text: str, closed: bool) -> None:
    token = live.sign_up()["token"]
    with connect(live.ws_url, compression=None) as sock:
        sock.send(json.dumps({"v": 1, "type": "hello", "token": token}))
        assert json.loads(sock.recv(5))["type"] == "welcome"
        sock.send(text)
        if closed:
            with pytest.raises(ConnectionClosed) as error:
                sock.recv(5)
            assert error.value.rcvd is not None
            assert error.value.rcvd.code == MESSAGE_TOO_BIG
        else:
            assert json.loads(sock.recv(5))["error"] == "bad_message"  # read, then refused


def test_the_in_process_path_counts_bytes_too() -> None:
    with pytest.raises(BadMessageError, match="at most 16,384 bytes"):
        decode_text("€" * (MAX_MESSAGE_BYTES // 3 + 1))
    with pytest.raises(BadMessageError, match="not JSON"):
        decode_text("€" * (MAX_MESSAGE_BYTES // 3))


def http_exchange(live: LiveServer, request: bytes, then: bytes = b"") -> bytes:
    with socket.create_connection(host_port(live), timeout=10) as sock:
        sock.sendall(request)
        if then:
            with contextlib.suppress(OSError):  # the server may hang up once it has answered
                sock.sendall(then)
        return read_until(sock, b"}")


def test_a_50_mb_post_is_refused_by_its_content_length(live: LiveServer) -> None:
    request = (
        b"POST /api/v1/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 50000000\r\n\r\n" + b"{" + b" " * 1000
    )
    answer = http_exchange(live, request)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b'"error":"too_large"' in answer


def test_a_streamed_body_is_refused_once_it_passes_the_limit(live: LiveServer) -> None:
    headers = (
        b"POST /api/v1/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    chunk = b"4000\r\n" + b" " * 0x4000 + b"\r\n"  # 16 KiB per chunk, no length announced
    answer = http_exchange(live, headers, chunk * 8)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b'"error":"too_large"' in answer


def test_a_body_within_the_limit_is_served(live: LiveServer) -> None:
    padded = json.dumps({"display_name": "Ana"}) + " " * (MAX_MESSAGE_BYTES - 100)
    answer = live.http.post(
        "/api/v1/players", content=padded, headers={"content-type": "application/json"}
    )
    assert answer.status_code == 201, answer.text
