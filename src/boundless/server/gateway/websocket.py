"""The ``/ws`` endpoint: one socket per client, a writer task per socket, the shared handler."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from starlette.websockets import WebSocket, WebSocketDisconnect

from boundless.server.gateway.handler import MessageHandler
from boundless.server.gateway.hub import Connection

log = logging.getLogger("boundless.server.websocket")
HELLO_SECONDS = 10.0
MAX_QUEUED_FRAMES = 2_000
"""A socket that falls this far behind is closed (it can reconnect and resync)."""
POLICY_VIOLATION = 1008


class SocketConnection(Connection):
    def __init__(self, websocket: WebSocket) -> None:
        super().__init__()
        self.websocket = websocket
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.closed = False
        self.close_reason: str | None = None

    def push(self, frame: str) -> None:
        if self.closed:
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
        """Send queued frames in order until closed."""
        send = self.websocket.send_text
        while True:
            frame = await self.queue.get()
            if frame is None:
                break
            await send(frame)
        with contextlib.suppress(Exception):
            await self.websocket.close(POLICY_VIOLATION if self.close_reason else 1000)


async def serve_socket(websocket: WebSocket, handler: MessageHandler) -> None:
    await websocket.accept()
    connection = SocketConnection(websocket)
    writer = asyncio.get_running_loop().create_task(connection.write())
    try:
        first = await asyncio.wait_for(_receive(websocket), HELLO_SECONDS)
        if first is not None:
            await handler.handle_text(connection, first)
        if connection.player is None:
            connection.close("not authenticated")
        else:
            while not connection.closed:
                frame = await _receive(websocket)
                if frame is None:
                    break
                await handler.handle_text(connection, frame)
    except (WebSocketDisconnect, TimeoutError, RuntimeError):
        pass
    finally:
        handler.forget(connection)
        connection.close("" if connection.close_reason is None else connection.close_reason)
        connection.close_reason = connection.close_reason or None
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, 5.0)
        writer.cancel()


async def _receive(websocket: WebSocket) -> str | bytes | None:
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        return None
    text = message.get("text")
    if text is not None:
        return str(text)
    data = message.get("bytes")
    return b"" if data is None else bytes(data)
