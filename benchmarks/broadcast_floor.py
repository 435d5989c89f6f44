"""The floor of ``live_load.py``'s loop lag: a bare WebSocket broadcast of the same frames.

One plain process (an asyncio loop on uvloop, no framework, no game) accepts as many WebSocket
clients as the run had players and sends every socket the frames one player received in the
run, in the same order and at the same moments (gaps over a second cut to one), each frame to
every socket in one go. ``/healthz`` on the same port answers ``ok``, and the same probe as the
run's asks it every 0.2 s: its answer times are what sending those frames to that many sockets
costs the loop of one process on this machine now, the least a server can do.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import multiprocessing
import os
import struct
import threading
import time
from typing import Any

import httpx

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
MAX_GAP_SECONDS = 1.0
PROBE_SECONDS = 0.2


def server_frame(payload: bytes) -> bytes:
    """An unmasked RFC 6455 text frame, as a server sends it."""
    length = len(payload)
    if length < 126:
        return struct.pack("!BB", 0x81, length) + payload
    if length < 65536:
        return struct.pack("!BBH", 0x81, 126, length) + payload
    return struct.pack("!BBQ", 0x81, 127, length) + payload


class FloorServerSide(asyncio.Protocol):
    """One accepted connection: a WebSocket (after its upgrade) or the probe's HTTP."""

    def __init__(self, sockets: list[Any], everyone: asyncio.Event, expected: int) -> None:
        self.sockets = sockets
        self.everyone = everyone
        self.expected = expected
        self.buffer = b""
        self.transport: Any = None
        self.upgraded = False

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        if self.upgraded:
            return  # the clients' bets and decisions: a bare broadcast ignores them
        self.buffer += data
        while b"\r\n\r\n" in self.buffer:
            head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
            key = _header(head, b"sec-websocket-key")
            if key is None:
                self.transport.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                continue
            accept = base64.b64encode(hashlib.sha1(key + GUID).digest())
            self.transport.write(
                b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                b"Connection: Upgrade\r\nSec-WebSocket-Accept: " + accept + b"\r\n\r\n"
            )
            self.upgraded = True
            self.sockets.append(self.transport)
            if len(self.sockets) >= self.expected:
                self.everyone.set()
            return


def _header(head: bytes, name: bytes) -> bytes | None:
    for line in head.split(b"\r\n")[1:]:
        key, _, value = line.partition(b":")
        if key.strip().lower() == name:
            return value.strip()
    return None


def floor_server(port: int, expected: int, frames: list[tuple[float, bytes]]) -> None:
    """Accept ``expected`` WebSockets, replay ``frames`` (offset seconds, payload) to all of
    them, close them."""
    import uvloop

    async def main() -> None:
        loop = asyncio.get_running_loop()
        sockets: list[Any] = []
        everyone = asyncio.Event()
        server = await loop.create_server(
            lambda: FloorServerSide(sockets, everyone, expected), "127.0.0.1", port, backlog=4096
        )
        await everyone.wait()
        started = loop.time()
        for offset, payload in frames:
            delay = started + offset - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            wire = server_frame(payload)
            for transport in sockets:
                transport.write(wire)
        await asyncio.sleep(0.5)
        for transport in sockets:
            transport.write(b"\x88\x02\x03\xe8")  # close, 1000
            transport.close()
        server.close()
        await asyncio.sleep(0.5)

    uvloop.run(main())


class FloorClient(asyncio.Protocol):
    def __init__(self, port: int, opened: asyncio.Future[None], done: asyncio.Future[None]):
        self.port = port
        self.opened = opened
        self.done = done
        self.received = 0

    def connection_made(self, transport: Any) -> None:
        key = base64.b64encode(os.urandom(16)).decode()
        transport.write(
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )

    def data_received(self, data: bytes) -> None:
        if not self.opened.done() and b"\r\n\r\n" in data:
            self.opened.set_result(None)
        self.received += len(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_result(None)


def floor_clients(count: int, port: int, pipe: Any) -> None:
    """``count`` sockets that read everything until the server closes them."""
    import uvloop

    async def main() -> None:
        loop = asyncio.get_running_loop()
        limit = asyncio.Semaphore(200)
        done: list[asyncio.Future[None]] = []

        async def connect() -> None:
            async with limit:
                opened, finished = loop.create_future(), loop.create_future()
                for attempt in range(20):
                    try:
                        await loop.create_connection(
                            lambda: FloorClient(port, opened, finished), "127.0.0.1", port
                        )
                        break
                    except OSError:
                        await asyncio.sleep(0.1 * (attempt + 1))
                await opened
                done.append(finished)

        await asyncio.gather(*(connect() for _ in range(count)))
        pipe.send("connected")
        await asyncio.gather(*done)
        pipe.send("done")

    uvloop.run(main())


def replayed(frames: list[tuple[float, bytes]]) -> list[tuple[float, bytes]]:
    """The frames at their offsets from the first, each gap over a second cut to one."""
    out: list[tuple[float, bytes]] = []
    offset, last = 0.0, None
    for at, payload in frames:
        if last is not None:
            offset += min(MAX_GAP_SECONDS, max(0.0, at - last))
        last = at
        out.append((offset, payload))
    return out


def measure_floor(
    frames: list[tuple[float, bytes]], sockets: int, processes: int, port: int
) -> list[float]:
    """Replay ``frames`` to ``sockets`` clients from a bare process on ``port``; the probe's
    answer times (ms) of that process while it does."""
    context = multiprocessing.get_context("spawn")
    server = context.Process(target=floor_server, args=(port, sockets, replayed(frames)))
    server.start()
    pipes, workers = [], []
    shares = [sockets // processes + (i < sockets % processes) for i in range(processes)]
    for share in shares:
        ours, theirs = context.Pipe()
        worker = context.Process(target=floor_clients, args=(share, port, theirs))
        worker.start()
        pipes.append(ours)
        workers.append(worker)
    for pipe in pipes:
        pipe.recv()  # connected
    lag_ms: list[float] = []
    stop = threading.Event()

    def probe() -> None:
        with httpx.Client(timeout=30) as http:
            while not stop.wait(PROBE_SECONDS):
                began = time.perf_counter()
                with contextlib.suppress(httpx.HTTPError):
                    http.get(f"http://127.0.0.1:{port}/healthz")
                    lag_ms.append((time.perf_counter() - began) * 1000)

    prober = threading.Thread(target=probe, daemon=True)
    prober.start()
    for pipe in pipes:
        if pipe.poll(600):
            pipe.recv()  # done
    stop.set()
    prober.join(timeout=30)
    for process in [*workers, server]:
        process.join(timeout=30)
        if process.is_alive():
            process.terminate()
    return lag_ms
