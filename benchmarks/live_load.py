"""Load: N real WebSocket clients at one Boundless table, betting and deciding, round after round.

    python benchmarks/live_load.py                          # 1,000, 5,000 and 10,000 players
    python benchmarks/live_load.py --players 10000 --json   # one JSON line (with loop lag, CPU)
    python benchmarks/live_load.py --players 20000 --gateways 2   # a cluster (NATS, PostgreSQL)
    python benchmarks/live_load.py --players 10000 --think-seconds 2 --json   # human-paced

The server runs as ``boundless serve`` in its own process (SQLite in a temporary folder), or with
``--gateways K`` as a cluster: ``boundless coordinator`` and K ``boundless gateway`` processes on
the machine's NATS (a namespace of the run's own) and PostgreSQL (a scratch database), the
players spread evenly over the gateways. The clients run in ``--processes`` other processes,
each an asyncio loop with a minimal WebSocket client (RFC 6455 framing by hand, so the clients
cost little CPU). Players are created directly in the database before the server starts
(sign-up is not what this measures). By default every client bets and decides the moment it
may (all of them within milliseconds: the worst case, a burst no human table makes);
``--think-seconds T`` makes each wait a random 0-T s first (seeded by its player), as people do.

Measured: the step broadcast latency (the ``step`` message's ``closed_ms``, the server's clock when
the step closed (a cluster: the coordinator's), to the moment a client parsed it), messages per
second through the server, each server process's CPU and peak memory, each HTTP server's event
loop lag (how long ``/healthz`` takes to answer, polled every 0.2 s: a loop-lag probe from
outside; ``loop_lag_p99_ms`` and ``loop_lag_max_ms`` are the worst server's, the targets 100 and
250 ms; ``loop_lag_floor_p99_ms`` and ``loop_lag_floor_max_ms`` the same probe's answer times
from a bare asyncio server in a process of its own, what the machine's load alone adds;
``broadcast_floor_p99_ms`` and ``broadcast_floor_max_ms`` the same probe against a bare
WebSocket broadcast of the same frames to as many sockets from one process, run right after
(``broadcast_floor.py``), and ``loop_lag_*_ratio_to_floor`` ours over it), the load average
before and after the run (``load_average``), and whether every round settled exactly once in
the ledger (one ``settle`` transaction per round and slice, each player one ``settled`` message
per round, ``check_books`` clean).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import multiprocessing
import os
import random
import resource
import secrets
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
import psutil
from sqlalchemy import insert

from boundless.core.bots import Policy, decide, parse_sight
from boundless.ledger import (
    LedgerService,
    check_books,
    grant_key,
    make_engine,
    make_session_factory,
)
from boundless.server.players.service import hash_token
from boundless.server.storage.database import migrated_engine
from boundless.server.storage.models import Player, utc_now

sys.path.insert(0, str(Path(__file__).parent))
from broadcast_floor import measure_floor
from cluster_round import drop_namespace, scratch_database
from loop_lag import (
    Served,
    bare_http_server,
    broadcast_floor,
    free_port,
    percentiles,
    probe_lag,
    worst_lag,
)

TABLE = "boundless-1"
DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
DEFAULT_NATS_URL = "nats://127.0.0.1:4222"
GRANT = 1_000_000
BET = 1_000
CONNECT_CONCURRENCY = 200
DOUBLE_PERCENT = int(os.environ.get("LOAD_DOUBLE_PERCENT", "10"))


FD_MARGIN = 200
"""Open files a server process needs besides its players' sockets (database, logs, probes)."""


def raise_fd_limit(players: int, servers: int) -> None:
    """The soft open-files limit up to the hard one; a one-line error when a server process
    (each holding ``players / servers`` sockets) cannot hold its players under it (otherwise
    its accepts fail and the clients wait for ever)."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    per_server = -(-players // servers)
    if per_server + FD_MARGIN > hard:
        raise SystemExit(
            f"live_load: one process would hold {per_server} sockets, over this machine's "
            f"open-files limit ({hard}, less {FD_MARGIN} of its own): use more --gateways or "
            "raise the limit (ulimit -Hn)"
        )


# ---- players -------------------------------------------------------------------------------
def seed_players(database_url: str, count: int) -> list[tuple[str, str]]:
    """``count`` players with tokens and coins, written straight to the database."""
    engine = migrated_engine(database_url)
    players = [(f"load{index:06d}", secrets.token_urlsafe(16)) for index in range(count)]
    now = utc_now()
    with make_session_factory(engine).begin() as session:
        session.execute(
            insert(Player),
            [
                {
                    "id": player_id,
                    "display_name": f"Load {index}",
                    "token_hash": hash_token(token),
                    "is_bot": True,
                    "created_at": now,
                }
                for index, (player_id, token) in enumerate(players)
            ],
        )
        ledger = LedgerService(session)
        ids = [player_id for player_id, _ in players]
        ledger.open_wallets(ids)
        ledger.grant_many([(p, GRANT, grant_key(p, "load")) for p in ids])
    engine.dispose()
    return players


# ---- a minimal WebSocket client ------------------------------------------------------------
def client_frame(text: bytes) -> bytes:
    """A masked text frame (the zero mask: valid, and the payload stays as it is)."""
    length = len(text)
    if length < 126:
        header = struct.pack("!BB", 0x81, 0x80 | length)
    elif length < 65536:
        header = struct.pack("!BBH", 0x81, 0x80 | 126, length)
    else:
        header = struct.pack("!BBQ", 0x81, 0x80 | 127, length)
    return header + b"\x00\x00\x00\x00" + text


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    server_part: list[float] = field(default_factory=list)
    by_step: dict[str, list[float]] = field(default_factory=dict)
    received: int = 0
    sent: int = 0
    settled: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    bets: int = 0
    frames: list[tuple[float, bytes]] = field(default_factory=list)
    """What the recording client received (the floor replays it to every socket)."""


class LoadClient(asyncio.Protocol):
    def __init__(
        self, player_id: str, token: str, rounds: int, stats: Stats, port: int, think: float
    ) -> None:
        self.player_id = player_id
        self.token = token
        self.rounds = rounds
        self.stats = stats
        self.port = port
        self.transport: Any = None
        self.buffer = bytearray()
        self.open = asyncio.get_running_loop().create_future()
        self.handshaken = False
        self.bet_rounds: set[str] = set()
        self.done_rounds = 0
        self.step = 0
        self.phase = ""
        self.round_id: str | None = None
        self.decided: set[tuple[str, int]] = set()
        self.finished = asyncio.get_running_loop().create_future()
        self.counter = 0
        doubler = int(player_id[4:]) % 100 < DOUBLE_PERCENT
        self.policy = Policy.DOUBLER if doubler else Policy.HIT_TO_17
        """A tenth of the players play the doubler bot (doubles and splits: extra stakes)."""
        self.up_card: str | None = None
        self.records = False
        self.think = think
        self.draw = random.Random(player_id)

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        key = base64.b64encode(os.urandom(16)).decode()
        transport.write(
            (
                f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )

    def send(self, body: dict[str, Any]) -> None:
        assert self.transport is not None
        self.counter += 1
        self.transport.write(client_frame(orjson.dumps({"v": 1, **body})))
        self.stats.sent += 1

    def send_after_thinking(self, body: dict[str, Any]) -> None:
        """Send now, or after a random 0 to ``think`` seconds (``--think-seconds``)."""
        if self.think <= 0:
            self.send(body)
            return
        delay = self.draw.uniform(0.0, self.think)
        asyncio.get_running_loop().call_later(delay, self._send_if_open, body)

    def _send_if_open(self, body: dict[str, Any]) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.send(body)

    def data_received(self, data: bytes) -> None:
        received = time.time() * 1000.0  # the bytes reached this process now
        if self.buffer:
            self.buffer += data
            data = bytes(self.buffer)
            self.buffer.clear()
        if not self.handshaken:
            end = data.find(b"\r\n\r\n")
            if end < 0:
                self.buffer += data
                return
            if not data.startswith(b"HTTP/1.1 101"):
                self.open.set_exception(RuntimeError(data[:200].decode()))
                return
            data = data[end + 4 :]
            self.handshaken = True
            self.open.set_result(None)
        start, size = 0, len(data)
        while size - start >= 2:
            opcode = data[start] & 0x0F
            length = data[start + 1] & 0x7F
            offset = start + 2
            if length == 126:
                if size - start < 4:
                    break
                length = struct.unpack_from("!H", data, start + 2)[0]
                offset = start + 4
            elif length == 127:
                if size - start < 10:
                    break
                length = struct.unpack_from("!Q", data, start + 2)[0]
                offset = start + 10
            if size < offset + length:
                break
            payload = data[offset : offset + length]
            start = offset + length
            if opcode == 0x1:
                self.on_message(payload, received)
            elif opcode == 0x9 and self.transport is not None:  # pong echoes the ping's data
                self.transport.write(
                    struct.pack("!BB", 0x8A, 0x80 | len(payload)) + bytes(4) + payload
                )
            elif opcode == 0x8 and not self.finished.done():
                self.finished.set_result(None)
        if start < size:
            self.buffer += data[start:]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.finished.done():
            self.finished.set_result(None)

    def on_message(self, payload: bytes, received: float) -> None:
        self.stats.received += 1
        if self.records and go.is_set():
            self.stats.frames.append((received / 1000.0, payload))
        message = orjson.loads(payload)
        kind = message.get("type")
        if kind == "step":
            self.stats.latencies.append(received - message["closed_ms"])
            step_key = f"{message['round_id']}/{message['step']}"
            self.stats.by_step.setdefault(step_key, []).append(received - message["closed_ms"])
            self.stats.server_part.append(message["sent_ms"] - message["closed_ms"])
        elif kind == "state":
            public = message.get("public") or {}
            self.phase = public.get("phase", "")
            self.step = public.get("step", 0)
            self.round_id = message.get("round_id")
            self.up_card = ((public.get("dealer") or {}).get("cards") or [None])[0]
            self.maybe_bet()
        elif kind == "you":
            self.decide(message)
        elif kind == "settled":
            round_id = message["round_id"]
            self.stats.settled[round_id] = self.stats.settled.get(round_id, 0) + 1
            self.done_rounds += 1
            if self.done_rounds >= self.rounds and not self.finished.done():
                self.finished.set_result(None)
        elif kind == "error":
            code = message.get("error", "?")
            self.stats.errors[code] = self.stats.errors.get(code, 0) + 1

    def maybe_bet(self) -> None:
        round_id = self.round_id
        if (
            self.phase == "betting"
            and round_id is not None
            and round_id not in self.bet_rounds
            and self.done_rounds < self.rounds
            and go.is_set()
        ):
            self.bet_rounds.add(round_id)
            self.stats.bets += 1
            self.send_after_thinking(
                {
                    "type": "bet",
                    "table_id": TABLE,
                    "bet_id": f"{round_id.replace(':', '-')}-{self.player_id}",
                    "bets": {"1": {"main": BET}},
                }
            )

    def decide(self, message: dict[str, Any]) -> None:
        if self.phase != "decisions":
            return
        for position in message["player"]["positions"]:
            legal = position["legal_actions"]
            current = position["current_hand"]
            key = (message["round_id"], self.step)
            if not legal or current is None or key in self.decided:
                continue
            self.decided.add(key)
            sight = parse_sight(position["hands"][current]["cards"], self.up_card, legal)
            action = decide(self.policy, sight)
            if action is None:
                continue
            self.send_after_thinking(
                {
                    "type": "decide",
                    "table_id": TABLE,
                    "spot": position["spot"],
                    "step": self.step,
                    "action": action.word,
                }
            )


go = asyncio.Event()


Seat = tuple[str, str, int]
"""A player, their token and the port of the server they play through."""


async def run_clients(
    players: Sequence[Seat], rounds: int, pipe: Any, timeout: float, think: float
) -> None:
    loop = asyncio.get_running_loop()
    stats = Stats()
    clients: list[LoadClient] = []
    limit = asyncio.Semaphore(CONNECT_CONCURRENCY)

    async def connect(player_id: str, token: str, port: int) -> None:
        async with limit:
            for attempt in range(5):
                try:
                    _, client = await loop.create_connection(
                        lambda: LoadClient(player_id, token, rounds, stats, port, think),
                        "127.0.0.1",
                        port,
                    )
                    await client.open
                    break
                except (OSError, RuntimeError):
                    await asyncio.sleep(0.2 * (attempt + 1))
            else:
                raise RuntimeError(f"{player_id} could not connect")
            client.send({"type": "hello", "token": token})
            client.send({"type": "join", "table_id": TABLE})
            clients.append(client)

    await asyncio.gather(*(connect(p, t, port) for p, t, port in players))
    if clients:
        clients[0].records = True
    pipe.send(("connected", len(clients)))
    await loop.run_in_executor(None, pipe.recv)  # the coordinator says go
    go.set()
    for client in clients:  # bet in the window that is open now
        client.maybe_bet()
    started = time.time()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*(c.finished for c in clients)), timeout)
    elapsed = time.time() - started
    for client in clients:
        if client.transport is not None:
            client.transport.close()
    pipe.send(
        (
            "done",
            {
                "latencies": stats.latencies,
                "server_part": stats.server_part,
                "by_step": stats.by_step,
                "received": stats.received,
                "sent": stats.sent,
                "settled": stats.settled,
                "errors": stats.errors,
                "bets": stats.bets,
                "frames": stats.frames,
                "elapsed": elapsed,
                "finished": sum(1 for c in clients if c.done_rounds >= rounds),
            },
        )
    )


def client_process(
    players: Sequence[Seat], rounds: int, pipe: Any, timeout: float, think: float
) -> None:
    raise_fd_limit(len(players), 1)
    import uvloop

    uvloop.run(run_clients(players, rounds, pipe, timeout, think))


# ---- the run -------------------------------------------------------------------------------
def betting_seconds(players: int) -> float:
    return max(3.0, players / 1500)


def wait_serving(served: Served, path: str, seconds: float) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if served.process.poll() is not None:
            raise RuntimeError(f"{served.label} exited with {served.process.returncode}")
        try:
            url = f"http://127.0.0.1:{served.port}{path}"
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise RuntimeError(f"{served.label} did not start")


def start_server(data_dir: Path, port: int, players: int, decision: float) -> list[Served]:
    command = [sys.executable, "-m", "boundless.cli.main", "serve", "--port", str(port)]
    command += ["--data-dir", str(data_dir), "--admin-token", "load", "--log-level", "warning"]
    command += ["--betting-seconds", f"{betting_seconds(players):.1f}"]
    command += ["--decision-seconds", str(decision)]
    command += ["--insurance-seconds", "2", "--round-gap-seconds", "1"]
    env = {k: v for k, v in os.environ.items() if k != "BOUNDLESS_DATABASE_URL"}
    log = (data_dir / "serve.log").open("wb")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    served = Served("serve", process, port)
    wait_serving(served, "/healthz", 60)
    return [served]


def start_cluster(
    data_dir: Path, players: int, decision: float, gateways: int, urls: tuple[str, str, str]
) -> list[Served]:
    """A coordinator and ``gateways`` gateways on the database, NATS and namespace ``urls``."""
    database_url, nats_url, namespace = urls
    command = [sys.executable, "-m", "boundless.cli.main"]
    common = ["--database-url", database_url, "--nats-url", nats_url, "--namespace", namespace]
    timers = ["--betting-seconds", f"{betting_seconds(players):.1f}"]
    timers += ["--decision-seconds", str(decision), "--insurance-seconds", "2"]
    timers += ["--round-gap-seconds", "1"]
    served: list[Served] = []
    for index in range(gateways):
        port = free_port()
        log = (data_dir / f"gateway{index + 1}.log").open("wb")
        process = subprocess.Popen(
            [*command, "gateway", *common, "--port", str(port)], stdout=log, stderr=log
        )
        served.append(Served(f"gateway {index + 1}", process, port))
    for gateway in served:
        wait_serving(gateway, "/api/cluster", 120)
    log = (data_dir / "coordinator.log").open("wb")
    process = subprocess.Popen([*command, "coordinator", *common, *timers], stdout=log, stderr=log)
    return [Served("coordinator", process, None), *served]


def settled_once(
    database_url: str, players: int, per_client_settled: dict[str, int], slices: int
) -> dict[str, Any]:
    """Every round with bets closed, with one ``settle`` per slice (``slices``: one for
    ``serve``, one per gateway for a cluster), every player told once per round, books clean.
    A cluster's coordinator also opens rounds nobody bet in (no slice): those are left out."""
    engine = make_engine(database_url)
    with make_session_factory(engine).begin() as session:
        ledger = LedgerService(session)
        closed = [i for i in ledger.rounds("closed", TABLE) if ledger.slices_of(TABLE, i.round_no)]
        open_rounds = [
            i for i in ledger.rounds("open", TABLE) if ledger.slices_of(TABLE, i.round_no)
        ]
        settle_counts = []
        for info in closed:
            kinds = [t.kind for t in ledger.round_transactions(TABLE, info.round_no)]
            settle_counts.append(kinds.count("settle"))
        books = check_books(session)
    engine.dispose()
    rounds = len(closed)
    messages_ok = all(count == players for count in per_client_settled.values())
    once = (
        rounds > 0
        and books.ok
        and not open_rounds
        and all(count == slices for count in settle_counts)
        and len(per_client_settled) == rounds
        and messages_ok
    )
    return {
        "rounds": rounds,
        "settled_once": once,
        "books_ok": books.ok,
        "settle_transactions": settle_counts,
        "settled_messages": per_client_settled,
    }


def run(
    players: int,
    rounds: int,
    processes: int,
    decision: float,
    gateways: int = 0,
    urls: tuple[str, str] = (DEFAULT_POSTGRES_URL, DEFAULT_NATS_URL),
    think: float = 0.0,
) -> dict[str, Any]:
    raise_fd_limit(players, max(1, gateways))
    workdir = Path(tempfile.mkdtemp(prefix="boundless-load-"))
    scratch: tuple[str, str] | None = None
    namespace = f"load{uuid.uuid4().hex[:8]}"
    if gateways:
        database_url, name, dsn = scratch_database(urls[0])
        scratch = (name, dsn)
    else:
        database_url = f"sqlite:///{workdir / 'boundless.sqlite'}"
    try:
        seeded = seed_players(database_url, players)
        if gateways:
            servers = start_cluster(
                workdir, players, decision, gateways, (database_url, urls[1], namespace)
            )
            ports = [served.port for served in servers if served.port is not None]
        else:
            servers = start_server(workdir, free_port(), players, decision)
            ports = [servers[0].port or 0]
        seats = [(p, t, ports[index % len(ports)]) for index, (p, t) in enumerate(seeded)]
        result = drive(servers, seats, players, rounds, processes, decision, think)
        check = settled_once(database_url, players, result.pop("settled"), max(1, gateways))
    finally:
        if scratch is not None:
            import psycopg

            with psycopg.connect(scratch[1], autocommit=True) as connection:
                connection.execute(f'DROP DATABASE IF EXISTS "{scratch[0]}" WITH (FORCE)')
            asyncio.run(drop_namespace(urls[1], namespace))
    return {
        "players": players,
        "gateways": gateways,
        "think_seconds": think,
        **result,
        "rounds": check["rounds"],
        "settled_once": check["settled_once"],
        "settle_transactions": check["settle_transactions"],
        "settled_messages": check["settled_messages"],
        "workdir": str(workdir),
    }


def drive(
    servers: list[Served],
    seats: list[Seat],
    players: int,
    rounds: int,
    processes: int,
    decision: float,
    think: float = 0.0,
) -> dict[str, Any]:
    """Connect every client, say go, measure until every client has played ``rounds``."""
    handles = {served.label: psutil.Process(served.process.pid) for served in servers}
    context = multiprocessing.get_context("spawn")
    pipes = []
    workers = []
    share = [seats[index::processes] for index in range(processes)]
    timeout = 60.0 + rounds * (40 + decision * 8 + betting_seconds(players))
    for part in share:
        ours, theirs = context.Pipe()
        worker = context.Process(target=client_process, args=(part, rounds, theirs, timeout, think))
        worker.start()
        pipes.append(ours)
        workers.append(worker)
    connected = sum(pipe.recv()[1] for pipe in pipes)
    load_before = os.getloadavg()[0]
    cpu_before = {label: handle.cpu_times() for label, handle in handles.items()}
    stop = threading.Event()
    floor_port = free_port()
    bare = context.Process(target=bare_http_server, args=(floor_port,), daemon=True)
    bare.start()
    floor = Served("floor", None, floor_port)  # type: ignore[arg-type]
    deadline = time.time() + 30
    while time.time() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            httpx.get(f"http://127.0.0.1:{floor_port}/healthz", timeout=1)
            break
        time.sleep(0.1)
    floor.lag_ms.clear()
    prober = threading.Thread(target=probe_lag, args=(servers, stop, floor), daemon=True)
    prober.start()
    started = time.time()
    for pipe in pipes:
        pipe.send("go")
    peak_rss = dict.fromkeys(handles, 0)
    results: list[dict[str, Any]] = []
    waiting = list(pipes)
    while waiting:
        for label, handle in handles.items():
            peak_rss[label] = max(peak_rss[label], handle.memory_info().rss)
        for pipe in list(waiting):
            if pipe.poll(0.25):
                results.append(pipe.recv()[1])
                waiting.remove(pipe)
    elapsed = time.time() - started
    stop.set()
    prober.join(timeout=60)
    bare.terminate()
    cpu_after = {label: handle.cpu_times() for label, handle in handles.items()}
    for worker in workers:
        worker.join(timeout=30)
    for served in servers:
        served.process.send_signal(signal.SIGTERM)
    for served in servers:
        served.process.wait(timeout=60)
    floor_lag = measure_floor(results[0]["frames"], connected, processes, free_port())
    latencies = [x for result in results for x in result["latencies"]]
    server_part = [x for result in results for x in result["server_part"]]
    settled: dict[str, int] = {}
    for result in results:
        for round_id, count in result["settled"].items():
            settled[round_id] = settled.get(round_id, 0) + count
    by_step: dict[str, list[float]] = {}
    for result in results:
        for key, values in result["by_step"].items():
            by_step.setdefault(key, []).extend(values)
    received = sum(result["received"] for result in results)
    sent = sum(result["sent"] for result in results)
    step = percentiles(latencies)
    processes_seen = {}
    for label in handles:
        cpu = sum(cpu_after[label][:2]) - sum(cpu_before[label][:2])
        processes_seen[label] = {
            "cpu_s": round(cpu, 1),
            "cpu_pct": round(100 * cpu / elapsed),
            "peak_mib": round(peak_rss[label] / 2**20),
        }
    return {
        "connected": connected,
        "p50_ms": step["p50"],
        "p99_ms": step["p99"],
        "max_ms": step["max"],
        "close_to_send_p50_ms": percentiles(server_part)["p50"],
        "steps_measured": len(latencies),
        "messages_per_s": round((received + sent) / elapsed),
        "processes": processes_seen,
        "loop_lag_ms": {s.label: percentiles(s.lag_ms) for s in servers if s.port is not None},
        **worst_lag(servers),
        "loop_lag_floor_p99_ms": percentiles(floor.lag_ms)["p99"],
        "loop_lag_floor_max_ms": percentiles(floor.lag_ms)["max"],
        **broadcast_floor(worst_lag(servers), floor_lag),
        "load_average": [load_before, os.getloadavg()[0]],
        "seconds": round(elapsed, 1),
        "errors": {k: v for r in results for k, v in r["errors"].items()},
        "p99_ms_by_step": {key: percentiles(values)["p99"] for key, values in by_step.items()},
        "clients_finished": sum(result["finished"] for result in results),
        "settled": settled,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument(
        "--players", type=int, action="append", help="repeatable; default 1k, 5k, 10k"
    )
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--processes", type=int, default=2, help="client processes")
    parser.add_argument("--decision-seconds", type=float, default=10.0)
    parser.add_argument(
        "--think-seconds",
        type=float,
        default=0.0,
        help="each client waits a random 0 to T s before a bet or a decision (default 0: at once)",
    )
    parser.add_argument(
        "--gateways", type=int, default=0, help="0: boundless serve; K: a cluster of K gateways"
    )
    parser.add_argument("--database-url", default=DEFAULT_POSTGRES_URL, help="(cluster) server")
    parser.add_argument("--nats-url", default=DEFAULT_NATS_URL, help="(cluster)")
    parser.add_argument("--json", action="store_true", help="one JSON line per size")
    args = parser.parse_args()
    sizes = args.players or [1_000, 5_000, 10_000]
    urls = (args.database_url, args.nats_url)
    for players in sizes:
        result = run(
            players,
            args.rounds,
            args.processes,
            args.decision_seconds,
            args.gateways,
            urls,
            args.think_seconds,
        )
        if args.json:
            keys: tuple[str, ...] = ("players", "gateways", "think_seconds", "p50_ms", "p99_ms")
            keys += ("rounds", "settled_once")
            keys += ("loop_lag_p99_ms", "loop_lag_max_ms", "loop_lag_floor_p99_ms")
            keys += ("loop_lag_floor_max_ms", "broadcast_floor_p99_ms", "broadcast_floor_max_ms")
            keys += ("loop_lag_p99_ratio_to_floor", "loop_lag_max_ratio_to_floor")
            keys += ("load_average", "loop_lag_ms")
            keys += ("processes", "errors")
            print(json.dumps({key: result[key] for key in keys}), flush=True)
        else:
            print(json.dumps(result, indent=1), flush=True)
    if not args.json:
        print(f"rerun: python benchmarks/live_load.py {' '.join(sys.argv[1:])}".rstrip())


if __name__ == "__main__":
    main()
