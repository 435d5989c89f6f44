"""``/ws`` as a plain ASGI app: one socket per client, the shared message handler.

Outgoing messages are written straight to the socket as pre-built RFC 6455 frames when the
ASGI server exposes its transport (uvicorn does: the ``send`` callable is a method of the
connection's protocol object). A broadcast then costs one serialisation and one framing for all
sockets and one ``transport.write`` per socket, in call order, so messages stay in order. Where
no transport is exposed, frames go through a per-socket queue and the ASGI ``send``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable
from typing import Any

from boundless.server.errors import ERROR_COUNTER
from boundless.server.gateway.handler import MessageHandler
from boundless.server.gateway.hub import Connection
from boundless.server.messages import Frame

log = logging.getLogger("boundless.server.websocket")
HELLO_SECONDS = 10.0
MAX_BUFFERED_BYTES = 8 * 2**20
"""A socket that falls this far behind is closed (it can reconnect and resync)."""
MAX_QUEUED_FRAMES = 2_000
POLICY_VIOLATION = 1008
MESSAGES_PER_TURN = 256
"""Client messages handled per turn of the event loop; the rest wait for the next turn."""
Scope = dict[str, Any]


class Intake:
    """Paces the handling of client messages: after the ``you`` of a step thousands of clients
    answer at once, and handling them all in one turn of the loop would hold every other socket
    (and ``/healthz``) behind them. Over the limit a message waits in line (a future, not a
    poll) and the next turn lets the next ones through, in arrival order; each socket's
    messages stay in order (one at a time)."""

    def __init__(self) -> None:
        self.handled = 0
        self.waiting: deque[asyncio.Future[None]] = deque()

    async def turn(self) -> None:
        """Wait until a turn of the loop has room for one more message."""
        loop = asyncio.get_running_loop()
        if self.handled >= MESSAGES_PER_TURN or self.waiting:
            future = loop.create_future()
            self.waiting.append(future)
            await future  # counted by the turn that let it through
            return
        if not self.handled:
            loop.call_soon(self._new_turn)  # runs in the next turn
        self.handled += 1

    def _new_turn(self) -> None:
        self.handled = 0
        while self.waiting and self.handled < MESSAGES_PER_TURN:
            future = self.waiting.popleft()
            if not future.done():  # a closed socket's wait was cancelled
                future.set_result(None)
                self.handled += 1
        if self.handled:
            asyncio.get_running_loop().call_soon(self._new_turn)


def raw_transport(send: Any) -> Any | None:
    """uvicorn's transport behind an ASGI ``send``, or None (then the queue path is used)."""
    protocol = getattr(send, "__self__", None)
    if not type(protocol).__module__.startswith("uvicorn.protocols.websockets"):
        return None
    transport = getattr(protocol, "transport", None)
    needed = ("write", "is_closing", "get_write_buffer_size")
    if transport is None or not all(hasattr(transport, name) for name in needed):
        return None
    return transport


class SocketConnection(Connection):
    def __init__(self, send: Any) -> None:
        super().__init__()
        self.send = send
        self.transport: Any | None = None
        self.queue: asyncio.Queue[Frame | None] = asyncio.Queue()
        self.closed = False
        self.close_reason: str | None = None

    def push(self, frame: Frame) -> None:
        if self.closed:
            return
        transport = self.transport
        if transport is not None:
            if transport.is_closing():
                self.close("the socket closed")
                return
            transport.write(frame.wire)
            if transport.get_write_buffer_size() > MAX_BUFFERED_BYTES:
                self.close("the client is not reading its messages")
            return
        if self.queue.qsize() >= MAX_QUEUED_FRAMES:
            self.close("the client is not reading its messages")
            return
        self.queue.put_nowait(frame)

    def close(self, reason: str) -> None:
        if not self.closed:
            self.closed = True
            self.close_reason = reason
            self.queue.put_nowait(None)

    async def write(self) -> None:
        """The queue path: send queued frames in order until closed, then close the socket."""
        while True:
            frame = await self.queue.get()
            if frame is None:
                break
            await self.send({"type": "websocket.send", "text": frame.text})
        with contextlib.suppress(Exception):
            code = POLICY_VIOLATION if self.close_reason else 1000
            await self.send({"type": "websocket.close", "code": code})


async def serve_socket(
    scope: Scope, receive: Any, send: Any, handler: MessageHandler, intake: Intake | None = None
) -> None:
    first = await receive()
    if first["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    connection = SocketConnection(send)
    connection.transport = raw_transport(send)
    writer = asyncio.get_running_loop().create_task(connection.write())
    try:
        frame = await asyncio.wait_for(_receive(receive), HELLO_SECONDS)
        if frame is not None:
            await handler.handle_text(connection, frame)
        if connection.player is None:
            connection.close("not authenticated")
        else:
            while not connection.closed:
                frame = await _receive(receive)
                if frame is None:
                    break
                if intake is not None:
                    await intake.turn()
                await handler.handle_text(connection, frame)
    except (TimeoutError, OSError, RuntimeError):
        pass
    finally:
        handler.forget(connection)
        connection.close(connection.close_reason or "")
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, 5.0)
        writer.cancel()


async def _receive(receive: Any) -> str | bytes | None:
    message = await receive()
    if message["type"] == "websocket.disconnect":
        return None
    text = message.get("text")
    if text is not None:
        return str(text)
    data = message.get("bytes")
    return b"" if data is None else bytes(data)


class WebSocketFront:
    """The outermost ASGI app: ``/ws`` goes to :func:`serve_socket` with the server's own
    ``send``; everything else (HTTP, lifespan) to the FastAPI app."""

    def __init__(
        self, app: Any, path: str = "/ws", count_error: Callable[[str], None] | None = None
    ) -> None:
        self.app = app
        self.path = path
        self.count_error = count_error
        """Counts every error reply of this app (REST, WebSocket, its tables and bots)."""
        self.intake = Intake()

    @property
    def state(self) -> Any:
        return self.app.state

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        ERROR_COUNTER.set(self.count_error)  # this call's context (and the tasks it starts)
        if scope["type"] == "websocket" and scope.get("path") == self.path:
            await serve_socket(scope, receive, send, self.app.state.handler, self.intake)
            return
        await self.app(scope, receive, send)
