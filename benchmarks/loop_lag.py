"""``live_load.py``'s loop-lag probe, its two floors and their figures.

The probe asks each server's ``/healthz`` every 0.2 s from a thread of the benchmark's own
process: the answer time is how long the server's event loop takes to get to a new request
(what every socket's next message waits for too). Its floors, asked the same way: a bare
asyncio server beside the run (what the machine's load alone adds) and a bare WebSocket
broadcast of the run's frames right after it (:mod:`broadcast_floor`).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import numpy as np

LAG_PROBE_SECONDS = 0.2


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Served:
    """A server process: ``boundless serve``, a coordinator or a gateway (``port``: its HTTP)."""

    label: str
    process: subprocess.Popen[bytes]
    port: int | None
    lag_ms: list[float] = field(default_factory=list)


def probe_lag(servers: list[Served], stop: threading.Event, floor: Served) -> None:
    """Each HTTP server's answer time to ``/healthz``: the time its event loop takes to get to a
    new request (what every socket's next message waits for too); ``floor``, a bare server,
    asked the same way right after them."""
    with httpx.Client(timeout=30) as http:
        while not stop.wait(LAG_PROBE_SECONDS):
            for served in [*servers, floor]:
                if served.port is None:
                    continue
                began = time.perf_counter()
                with contextlib.suppress(httpx.HTTPError):
                    http.get(f"http://127.0.0.1:{served.port}/healthz")
                served.lag_ms.append((time.perf_counter() - began) * 1000)


def bare_http_server(port: int) -> None:
    """The loop-lag probe's floor: an asyncio loop in a process of its own that only answers
    ``200 ok`` to every request (keep-alive), the time the machine alone adds to a probe."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError):
            while await reader.readuntil(b"\r\n\r\n"):
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                await writer.drain()
        writer.close()

    async def main() -> None:
        server = await asyncio.start_server(answer, "127.0.0.1", port)
        async with server:
            await server.serve_forever()

    asyncio.run(main())


def worst_lag(servers: list[Served]) -> dict[str, float | None]:
    """The loop-lag probe's p99 and maximum of the worst HTTP server (None: nothing probed)."""
    probed = [percentiles(s.lag_ms) for s in servers if s.port is not None and s.lag_ms]
    if not probed:
        return {"loop_lag_p99_ms": None, "loop_lag_max_ms": None}
    return {
        "loop_lag_p99_ms": max(float(p["p99"] or 0) for p in probed),
        "loop_lag_max_ms": max(float(p["max"] or 0) for p in probed),
    }


def broadcast_floor(ours: dict[str, float | None], floor_ms: list[float]) -> dict[str, Any]:
    """The bare broadcast's loop lag (same probe) and ours over it (p99 and max)."""
    floor = percentiles(floor_ms)

    def ratio(mine: float | None, least: float | None) -> float | None:
        return None if mine is None or not least else round(mine / least, 2)

    return {
        "broadcast_floor_p99_ms": floor["p99"],
        "broadcast_floor_max_ms": floor["max"],
        "loop_lag_p99_ratio_to_floor": ratio(ours["loop_lag_p99_ms"], floor["p99"]),
        "loop_lag_max_ratio_to_floor": ratio(ours["loop_lag_max_ms"], floor["max"]),
    }


def percentiles(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p99": None, "max": None}
    array = np.array(values, dtype=float)
    return {
        "p50": round(float(np.percentile(array, 50)), 1),
        "p99": round(float(np.percentile(array, 99)), 1),
        "max": round(float(array.max()), 1),
    }
