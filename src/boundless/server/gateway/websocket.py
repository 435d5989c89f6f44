"""``/ws`` as a plain ASGI app: one socket per client, the shared message handler.

Out: messages are written straight to the socket as pre-built RFC 6455 frames when the ASGI
server exposes its transport (uvicorn does: the ``send`` callable is a method of the
connection's protocol object). A broadcast then costs one serialisation and one framing for all
sockets and one ``transport.write`` per socket, in call order, so messages stay in order. Where
no transport is exposed, frames go through a per-socket queue and the ASGI ``send``.

In: uvicorn's WebSocket protocols put each client message in a per-socket ``asyncio.Queue`` for
the app's ``receive`` and pause reading until the app takes it. Awaiting ``receive`` costs a
chain of coroutines and a future per message, alive until the player's next message (seconds),
which at 10,000 players filled the garbage collector's young generation and made each of its
collections a stall of the loop. So once a socket is accepted its queue is replaced by a
:class:`SocketReader`, which hands each message to the handler from the protocol's own callback
and pauses the socket's reading itself while a message waits; the socket's ASGI call only waits
for its end. Elsewhere (a test client) a small loop feeds ``receive`` into the same reader.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from boundless.server.errors import ERROR_COUNTER
from boundless.server.gateway.handler import MessageHandler
from boundless.server.gateway.hub import Connection
from boundless.server.messages import payload

log = logging.getLogger("boundless.server.websocket")
HELLO_SECONDS = 10.0
MAX_BUFFERED_BYTES = 8 * 2**20
"""A socket that falls this far behind is closed (it can reconnect and resync)."""
MAX_QUEUED_FRAMES = 2_000
POLICY_VIOLATION = 1008
MESSAGES_PER_TURN = 128
"""Client messages handled per turn of the event loop; the rest wait for the next turn."""
Scope = dict[str, Any]


class Intake:
    """Paces the handling of client messages: after the ``you`` of a step thousands of clients
    answer at once, and handling them all in one turn of the loop would hold every other socket
    (and ``/healthz``) behind them. Over the limit a message waits in line and the next turn
    lets the next ones through, in arrival order."""

    def __init__(self) -> None:
        self.handled = 0
        self.waiting: deque[Callable[[], None]] = deque()

    def admit(self, handle: Callable[[], None]) -> None:
        """``handle()`` now if this turn of the loop has room, else in a later turn."""
        if self.handled >= MESSAGES_PER_TURN or self.waiting:
            self.waiting.append(handle)  # counted by the turn that lets it through
            return
        if not self.handled:
            asyncio.get_running_loop().call_soon(self._new_turn)  # runs in the next turn
        self.handled += 1
        handle()

    def _new_turn(self) -> None:
        self.handled = 0
        while self.waiting and self.handled < MESSAGES_PER_TURN:
            self.handled += 1
            self.waiting.popleft()()
        if self.handled:
            asyncio.get_running_loop().call_soon(self._new_turn)


class SocketConnection(Connection):
    def __init__(self, send: Any, ended: asyncio.Future[None]) -> None:
        super().__init__()
        self.send = send
        self.ended = ended
        """Done once the socket is closed by either side: its ASGI call then cleans up."""
        self.transport: Any | None = None
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.closed = False
        self.close_reason: str | None = None

    def push(self, wire: bytes) -> None:
        if self.closed:
            return
        transport = self.transport
        if transport is not None:
            self._write(transport, wire)
            return
        if self.queue.qsize() >= MAX_QUEUED_FRAMES:
            self.close("the client is not reading its messages")
            return
        self.queue.put_nowait(wire)

    def push_many(self, wires: Sequence[bytes]) -> None:
        """The frames in one write (one system call) where the transport is used."""
        transport = self.transport
        if transport is None or self.closed:
            super().push_many(wires)
            return
        self._write(transport, b"".join(wires))

    def _write(self, transport: Any, data: bytes) -> None:
        if transport.is_closing():
            self.close("the socket closed")
            return
        transport.write(data)
        if transport.get_write_buffer_size() > MAX_BUFFERED_BYTES:
            self.close("the client is not reading its messages")

    def close(self, reason: str) -> None:
        if not self.closed:
            self.closed = True
            self.close_reason = reason
            self.queue.put_nowait(None)
        self.end()

    def end(self) -> None:
        if not self.ended.done():
            self.ended.set_result(None)

    async def write(self) -> None:
        """The queue path: send queued frames in order until closed, then close the socket."""
        while True:
            wire = await self.queue.get()
            if wire is None:
                break
            await self.send({"type": "websocket.send", "text": payload(wire).decode("utf-8")})
        await self.send_close()

    async def send_close(self) -> None:
        """The closing handshake's first frame (1008 with a reason, else 1000). A socket whose
        writes are backed up is given 5 s (``send`` waits until it can write)."""
        message = {
            "type": "websocket.close",
            "code": POLICY_VIOLATION if self.close_reason else 1000,
        }
        with contextlib.suppress(Exception):
            transport = self.transport
            if transport is not None and transport.get_write_buffer_size() == 0:
                await self.send(message)
            else:
                await asyncio.wait_for(self.send(message), 5.0)


class SocketReader:
    """One socket's client messages to the handler, one at a time and in order.

    It stands in for uvicorn's per-socket queue (``put_nowait``, ``empty``, ``qsize``: what the
    protocol calls) or is fed by :meth:`pump`. A message that arrives while another is handled
    waits in ``backlog``, and the socket's reading is paused meanwhile (the kernel holds the
    rest), as uvicorn itself does. The handler runs in the context of the socket's ASGI call
    (its error counter)."""

    def __init__(
        self,
        connection: SocketConnection,
        handler: MessageHandler,
        intake: Intake | None,
        context: contextvars.Context,
    ) -> None:
        self.connection = connection
        self.handler = handler
        self.intake = intake
        self.context = context
        self.backlog: deque[str | bytes] = deque()
        self.busy = False
        """A message is being handled or waits for its turn."""
        self.heard = False
        """A first message has been handled (it must have signed the socket in)."""
        self.refused = False
        """The first message did not sign the socket in: it closes once told why."""
        self.pause: Callable[[], None] | None = None
        self.resume: Callable[[], None] | None = None
        self.paused = False
        self._idle: asyncio.Future[None] | None = None
        self._protocol: Any = None
        """uvicorn's protocol while this reader is its queue."""

    # ---- what uvicorn's protocol calls on its queue ------------------------------------------
    def put_nowait(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "websocket.disconnect":
            self.connection.end()
            return
        if kind != "websocket.receive" or self.connection.closed or self.refused:
            return
        text = message.get("text")
        data = message.get("bytes")
        self.backlog.append(str(text) if text is not None else b"" if data is None else bytes(data))
        if self.busy:
            if not self.paused and self.pause is not None:
                self.paused = True
                self.pause()
            return
        self._next()

    def empty(self) -> bool:
        return True

    def qsize(self) -> int:
        return 0

    # ---- handling ----------------------------------------------------------------------------
    def _next(self) -> None:
        self.busy = True
        if self.intake is None:
            self._handle()
        else:
            self.intake.admit(self._handle)

    def _handle(self) -> None:
        connection = self.connection
        if connection.closed or not self.backlog:
            self._handled()
            return
        text = self.backlog.popleft()
        try:
            pending = self.context.run(self.handler.receive_text, connection, text)
            if pending is not None:
                pending.add_done_callback(self._answered)
                return
        except Exception:  # the handler answers refusals itself: this is a defect
            log.exception("unexpected error handling a client message")
            connection.close("internal error")
        self._handled()

    def _answered(self, _answer: asyncio.Future[Any]) -> None:
        self._handled()  # the handler sent the answer (or the refusal) before this runs

    def _handled(self) -> None:
        self.busy = False
        connection = self.connection
        if not self.heard:
            self.heard = True
            if connection.player is None:  # after the refusal queued for it
                self.refused = True
                self.handler.hub.close_after_sent([connection], "not authenticated")
        if connection.closed or self.refused:
            self.backlog.clear()
        elif self.backlog:
            self._next()
            return
        if self.paused and self.resume is not None:
            self.paused = False
            self.resume()
        if self._idle is not None and not self._idle.done():
            self._idle.set_result(None)

    def hello_overdue(self) -> None:
        """No first message within :data:`HELLO_SECONDS`: the socket is closed."""
        if not self.heard and not self.busy:
            self.connection.close("")

    # ---- reading from ``receive`` where the protocol's queue cannot be taken over -------------
    async def pump(self, receive: Any) -> None:
        try:
            while not self.connection.ended.done():
                message = await receive()
                self.put_nowait(message)
                if self.busy:  # one message at a time, as a paused socket
                    self._idle = asyncio.get_running_loop().create_future()
                    await self._idle
        except (OSError, RuntimeError):
            pass
        self.connection.end()

    def take_over(self, send: Any) -> bool:
        """Become the queue of uvicorn's protocol behind ``send``; False where there is none."""
        protocol: Any = uvicorn_protocol(send)
        queue = getattr(protocol, "queue", None)
        transport = getattr(protocol, "transport", None)
        if (
            not isinstance(queue, asyncio.Queue)
            or not isinstance(getattr(protocol, "read_paused", None), bool)
            or not hasattr(transport, "pause_reading")
            or not hasattr(transport, "resume_reading")
        ):
            return False
        assert transport is not None
        self.pause = transport.pause_reading
        self.resume = transport.resume_reading
        was_paused = protocol.read_paused
        # uvicorn resumes a paused socket only in the ``receive`` no longer called: from now on
        # the reader pauses and resumes it, and the protocol is told it is paused already.
        protocol.read_paused = True
        protocol.queue = self
        self._protocol = protocol
        while not queue.empty():
            self.put_nowait(queue.get_nowait())
        if was_paused:
            if self.busy:
                self.paused = True
            else:
                self.resume()
        return True

    def release(self) -> None:
        """The socket's call ended: out of the protocol's queue (the protocol outlives the call
        a little, and protocol → reader → connection → ``send`` → protocol is a cycle that only
        a full collection would free)."""
        if self._protocol is not None:
            self._protocol.queue = asyncio.Queue()  # what it may still say, nobody reads
            self._protocol = None


def uvicorn_protocol(send: Any) -> Any | None:
    """uvicorn's WebSocket protocol object behind an ASGI ``send``, or None."""
    protocol = getattr(send, "__self__", None)
    if not type(protocol).__module__.startswith("uvicorn.protocols.websockets"):
        return None
    return protocol


def raw_transport(send: Any) -> Any | None:
    """uvicorn's transport behind an ASGI ``send``, or None (then the queue path is used)."""
    transport = getattr(uvicorn_protocol(send), "transport", None)
    needed = ("write", "is_closing", "get_write_buffer_size")
    if transport is None or not all(hasattr(transport, name) for name in needed):
        return None
    return transport


async def serve_socket(
    scope: Scope, receive: Any, send: Any, handler: MessageHandler, intake: Intake | None = None
) -> None:
    first = await receive()
    if first["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    loop = asyncio.get_running_loop()
    connection = SocketConnection(send, loop.create_future())
    connection.transport = raw_transport(send)
    reader = SocketReader(connection, handler, intake, contextvars.copy_context())
    # The queue path's writer; with the transport, frames are written as they are pushed.
    writer = None if connection.transport is not None else loop.create_task(connection.write())
    pump = None if reader.take_over(send) else loop.create_task(reader.pump(receive))
    overdue = loop.call_later(HELLO_SECONDS, reader.hello_overdue)
    try:
        await connection.ended
    finally:
        overdue.cancel()
        reader.release()
        if pump is not None:
            pump.cancel()
        handler.forget(connection)
        connection.close(connection.close_reason or "")
        if writer is None:
            await connection.send_close()
        else:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, 10.0)
            writer.cancel()


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
