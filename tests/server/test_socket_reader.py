"""The socket reader that stands in for uvicorn's per-socket queue: each client message goes to
the handler from the protocol's callback, one at a time and in order, the socket's reading
paused while a message waits, and the socket's end seen whichever side closes it."""

from __future__ import annotations

import asyncio
import gc
import weakref
from typing import Any

import orjson
import pytest

from boundless.server.gateway import websocket
from boundless.server.gateway.hub import Hub
from boundless.server.messages import payload
from boundless.server.players.service import PlayerIdentity


class FakeTransport:
    def __init__(self) -> None:
        self.paused = False
        self.pauses = 0
        self.written: list[bytes] = []

    def pause_reading(self) -> None:
        self.paused = True
        self.pauses += 1

    def resume_reading(self) -> None:
        self.paused = False

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def is_closing(self) -> bool:
        return False

    def get_write_buffer_size(self) -> int:
        return 0


class FakeProtocol:
    """What uvicorn's WebSocket protocol offers the reader: its queue, its pause flag, its
    transport, and ``send`` as one of its methods."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.read_paused = False
        self.transport = FakeTransport()
        self.sent: list[dict[str, Any]] = []

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    def receive(self, text: str) -> None:
        """As the protocol hands on a parsed text frame (it pauses unless told it is paused)."""
        self.queue.put_nowait({"type": "websocket.receive", "text": text})
        if not self.read_paused:
            self.read_paused = True
            self.transport.pause_reading()


FakeProtocol.__module__ = "uvicorn.protocols.websockets.fake"


class FakeHandler:
    """Signs in on ``hello`` (anything else first is refused, through the hub, as the real
    handler does); ``wait:N`` is answered only when the test says so."""

    def __init__(self) -> None:
        self.hub = Hub()
        self.seen: list[str] = []
        self.waits: dict[str, asyncio.Future[None]] = {}
        self.forgotten = False

    def receive_text(self, connection: Any, text: str) -> asyncio.Future[None] | None:
        self.seen.append(text)
        if text == "hello":
            connection.player = PlayerIdentity(player_id="p", display_name="p", is_bot=False)
        elif connection.player is None:
            self.hub.send(connection, {"type": "error", "code": "not_authenticated"})
        if text.startswith("wait:"):
            future = asyncio.get_running_loop().create_future()
            self.waits[text] = future
            return future
        return None

    def forget(self, _connection: Any) -> None:
        self.forgotten = True


async def _open(handler: FakeHandler) -> tuple[FakeProtocol, asyncio.Task[None]]:
    protocol = FakeProtocol()
    await protocol.queue.put({"type": "websocket.connect"})
    task = asyncio.ensure_future(
        websocket.serve_socket({}, protocol.queue.get, protocol.send, handler)  # type: ignore[arg-type]
    )
    for _ in range(5):
        await asyncio.sleep(0)
    return protocol, task


def test_messages_go_to_the_handler_in_order_one_at_a_time() -> None:
    async def scenario() -> None:
        handler = FakeHandler()
        protocol, task = await _open(handler)
        reader = protocol.queue
        assert isinstance(reader, websocket.SocketReader)
        assert protocol.read_paused  # the protocol leaves pausing to the reader
        protocol.receive("hello")
        protocol.receive("wait:1")
        protocol.receive("now:2")
        protocol.receive("now:3")
        assert handler.seen == ["hello", "wait:1"]  # the rest wait for the answer
        assert protocol.transport.paused
        handler.waits["wait:1"].set_result(None)
        await asyncio.sleep(0)
        assert handler.seen == ["hello", "wait:1", "now:2", "now:3"]
        assert not protocol.transport.paused
        protocol.queue.put_nowait({"type": "websocket.disconnect", "code": 1000})
        await asyncio.wait_for(task, 5)
        assert handler.forgotten

    asyncio.run(scenario())


def test_a_first_message_that_does_not_sign_in_closes_the_socket() -> None:
    async def scenario() -> None:
        handler = FakeHandler()
        protocol, task = await _open(handler)
        protocol.receive("join")
        protocol.receive("join")  # after the refusal: not handled
        await asyncio.wait_for(task, 5)
        assert [orjson.loads(payload(wire)) for wire in protocol.transport.written] == [
            {"type": "error", "code": "not_authenticated"}
        ]  # the refusal is written before the socket closes
        assert protocol.sent[-1] == {"type": "websocket.close", "code": websocket.POLICY_VIOLATION}
        assert handler.seen == ["join"]
        assert handler.forgotten

    asyncio.run(scenario())


def test_a_socket_that_never_speaks_is_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(websocket, "HELLO_SECONDS", 0.05)

    async def scenario() -> None:
        handler = FakeHandler()
        protocol, task = await _open(handler)
        await asyncio.wait_for(task, 5)
        assert protocol.sent[-1] == {"type": "websocket.close", "code": 1000}
        assert handler.seen == []

    asyncio.run(scenario())


def test_messages_queued_before_the_reader_took_over_are_handled_first() -> None:
    async def scenario() -> None:
        handler = FakeHandler()
        protocol = FakeProtocol()
        await protocol.queue.put({"type": "websocket.connect"})
        protocol.receive("hello")  # came in before the app took the socket: reading paused
        task = asyncio.ensure_future(
            websocket.serve_socket({}, protocol.queue.get, protocol.send, handler)  # type: ignore[arg-type]
        )
        await asyncio.sleep(0)
        assert handler.seen == ["hello"]
        assert not protocol.transport.paused  # resumed by the reader
        protocol.receive("now:1")
        assert handler.seen == ["hello", "now:1"]
        protocol.queue.put_nowait({"type": "websocket.disconnect", "code": 1000})
        await asyncio.wait_for(task, 5)

    asyncio.run(scenario())


def test_an_ended_socket_leaves_nothing_behind_in_the_protocol() -> None:
    """uvicorn's protocol object outlives the app's call a little; once the socket's call ends
    the reader is out of its queue, so the connection is freed by reference counting (a cycle
    through the protocol would wait for a full collection of the oldest generation)."""

    async def scenario() -> tuple[FakeProtocol, weakref.ref[Any]]:
        handler = FakeHandler()
        protocol, task = await _open(handler)
        reader = protocol.queue
        assert isinstance(reader, websocket.SocketReader)
        gone = weakref.ref(reader.connection)
        del reader
        protocol.receive("hello")
        protocol.queue.put_nowait({"type": "websocket.disconnect", "code": 1000})
        await asyncio.wait_for(task, 5)
        return protocol, gone

    gc.disable()
    try:
        protocol, gone = asyncio.run(scenario())
        assert not isinstance(protocol.queue, websocket.SocketReader)
        assert gone() is None
    finally:
        gc.enable()
