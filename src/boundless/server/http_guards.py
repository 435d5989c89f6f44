"""ASGI guards around the REST app: a server fault answers in the error shape, bodies are bounded.

Starlette's own last-resort handler answers a fault with a plain-text 500 and re-raises, and the
re-raise makes uvicorn drop the keep-alive connection. :class:`FaultGuard` answers
``internal_error`` itself and swallows the exception once the answer is complete, so the client's
next request on the same connection is served. :class:`BodyLimit` refuses a body over the limit
by its ``Content-Length`` before reading it, and a streamed (chunked) one as soon as the bytes
read pass the limit, so a 50 MB POST is never held in memory.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson

from boundless.server.errors import ErrorReply, TooLargeError, error_reply, internal_reply

log = logging.getLogger("boundless.server.http")
Scope = dict[str, Any]
Message = dict[str, Any]


async def send_reply(send: Any, reply: ErrorReply, headers: list[tuple[bytes, bytes]]) -> None:
    body = orjson.dumps(reply.body())
    await send(
        {
            "type": "http.response.start",
            "status": reply.status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class FaultGuard:
    """Any exception that escapes the app's handlers becomes a logged ``internal_error`` 500."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False
        finished = False

        async def tracked_send(message: Message) -> None:
            nonlocal started, finished
            if message["type"] == "http.response.start":
                started = True
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                finished = True
            await send(message)

        try:
            await self.app(scope, receive, tracked_send)
        except Exception:
            log.exception("unexpected error answering %s %s", scope["method"], scope["path"])
            if not started:
                await send_reply(send, internal_reply(), [])
            elif not finished:
                raise  # half a response went out: only closing the connection is honest


class BodyLimit:
    """Refuse request bodies over ``max_bytes`` with 413 ``too_large``."""

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def _reply(self) -> ErrorReply:
        return error_reply(TooLargeError(f"a request body is at most {self.max_bytes:,} bytes"))

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await send_reply(send, self._reply(), [(b"connection", b"close")])
            return
        received = 0
        refused = False
        started = False

        async def limited_receive() -> Message:
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message: Message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    refused = True
                    if not started:
                        await send_reply(send, self._reply(), [(b"connection", b"close")])
                    # the app sees a client that went away and stops reading
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if refused:
                return  # the 413 is the answer; whatever the app says after it is dropped
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        await self.app(scope, limited_receive, guarded_send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            text = value.decode("latin-1").strip()
            # a malformed length is the HTTP server's business (uvicorn refuses it first)
            return int(text) if text.isascii() and text.isdigit() else None
    return None
