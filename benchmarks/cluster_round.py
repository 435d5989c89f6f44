"""One Boundless round with N bot positions spread over K gateway processes, on real NATS and
PostgreSQL, from the betting window's opening to every slice settled.

    python benchmarks/cluster_round.py --positions 10000 --gateways 2 --json
    python benchmarks/cluster_round.py --positions 1000000 --gateways 4 \\
        --database-url postgresql+psycopg://postgres@127.0.0.1:5432/test \\
        --nats-url nats://127.0.0.1:4222

It makes a scratch database (dropped afterwards) and its own JetStream namespace (deleted
afterwards), starts K ``boundless gateway`` processes with N/K bots each, waits until they
serve, and runs the coordinator here for one round. ``seconds``: the round's first event to its
``round_closed``. ``ledger_seconds``: the two ledger phases seen from the bus (bet close →
``slices``, when every gateway has staked its bets; ``round_settling`` → ``round_closed``,
when every slice has settled). ``settled_once``: every gateway settled and none was dropped;
``books_balanced``: ``check_books`` finds no problem. ``gateway_peak_rss_mib``: each gateway
process's peak resident memory (Linux ``VmHWM``), read after the round. Prints one JSON line
with ``--json``.

The floor, measured after the round in the same database and NATS server with the gateways
stopped: ``ledger_floor_seconds`` (``ledger_floor.py``: each gateway's bets as one batch, then
its extra stakes and settlement as one transaction, the slices written at once on their own
connections, by plain ``COPY`` and one ``UPDATE ... FROM`` each; as many players, extra stakes
and paid players per slice as the round wrote, read from its ledger: ``floor_rows``. The shared
cards decide those: a hand every bot doubles adds a stake per position to the settlement) and
``bus_floor_seconds`` (the round's ``events`` times the median bare JetStream publish/ack round
trip, ``jetstream_floor.py``); ``stake_seconds`` and ``settle_seconds`` split
``ledger_seconds``, beside the ledger floor's two parts. ``floor_seconds`` is the floors' sum
and ``ratio_to_floor`` is ``seconds`` over it (the target: at most 3). The round's fixed windows
(betting, insurance: 0.5 s each here) are in ``seconds`` but not in the floor.
``--seed N`` shuffles the coordinator's shoe from ``N`` instead of the machine's cryptographic
source: the same cards every run, so runs compare like with like (``seed`` in the JSON line).
``load_average``: the 1-minute load average before and after the run. ``checkpointed``: a
PostgreSQL ``CHECKPOINT`` was taken before the round and before the floor, so neither starts
with the other's dirty pages to write back (``ledger_floor.start_clean``).
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

import psycopg
from sqlalchemy.engine import make_url

from boundless.core.random_source import SeededSource
from boundless.ledger import check_books, make_engine, make_session_factory
from boundless.server.cluster import in_sequence
from boundless.server.cluster.coordinator import Coordinator, CoordinatorTimers
from boundless.server.cluster.jetstream_bus import JetStreamBus
from boundless.server.cluster.processes import ShoeDealer, load_rules, open_ledger
from boundless.server.cluster.protocol import Public
from jetstream_floor import percentile, publish_ack_ms
from ledger_floor import measure_floor, start_clean

DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
DEFAULT_NATS_URL = "nats://127.0.0.1:4222"
TABLE = "bench-1"
ROUND_LIMIT_SECONDS = 900.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def scratch_database(base_url: str) -> tuple[str, str, str]:
    """(URL of a new empty database, its name, a libpq DSN of the server for the drop)."""
    name = f"boundless_bench_{uuid.uuid4().hex[:12]}"
    server = make_url(base_url).set(drivername="postgresql")
    dsn = server.render_as_string(hide_password=False)
    with psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return make_url(base_url).set(database=name).render_as_string(hide_password=False), name, dsn


def wait_until_serving(port: int, process: subprocess.Popen[bytes], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"gateway on port {port} exited with code {process.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/cluster", timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    raise SystemExit(f"gateway on port {port} did not start within {seconds:.0f} s")


async def one_round(
    database_url: str, nats_url: str, namespace: str, gateways: list[str], seed: int | None
) -> dict[str, float | bool]:
    rules, _ = load_rules("boundless")
    bus = await JetStreamBus.connect(nats_url, namespace=namespace)
    ledger = open_ledger(database_url, "bench-coordinator")
    timers = CoordinatorTimers(
        betting_seconds=0.5,
        insurance_seconds=0.5,
        decision_seconds=0.5,
        report_seconds=600.0,
        settle_seconds=600.0,
        round_gap_seconds=0.0,
    )
    coordinator = Coordinator(
        bus,
        TABLE,
        "bench-coordinator",
        ShoeDealer(rules, None if seed is None else SeededSource(seed)),
        timers,
        gateways=frozenset(gateways),
        ledger=ledger,
    )
    times: dict[str, float] = {}
    closed: dict[str, object] = {}
    events = [0]

    async def watch() -> None:
        async for stored in in_sequence(bus.events(TABLE, from_seq=1)):
            kind = stored.event.kind
            events[0] += 1
            times.setdefault(kind, time.perf_counter())
            if kind == Public.ROUND_CLOSED:
                closed.update(stored.event.body)
                return
            if kind == Public.ROUND_CANCELLED:
                raise SystemExit(f"the round was cancelled: {stored.event.body}")

    watching = asyncio.ensure_future(watch())
    running = asyncio.ensure_future(coordinator.run(rounds=1))
    # A bound, so that a round that never closes fails the run instead of hanging it; what
    # is still waiting is shown (every task's stack) before it is cancelled.
    jobs = {running: "the coordinator's round", watching: "the watcher of the table's events"}
    done, pending = await asyncio.wait(
        jobs, timeout=ROUND_LIMIT_SECONDS, return_when=asyncio.FIRST_EXCEPTION
    )
    for job in done:
        job.result()  # the round's own error, or the watcher's SystemExit
    if pending:
        for task in asyncio.all_tasks():
            task.print_stack(file=sys.stderr)
        for job in pending:
            job.cancel()
        waiting = " and ".join(jobs[job] for job in pending)
        raise SystemExit(
            f"the round did not end within {ROUND_LIMIT_SECONDS:g} s ({waiting} still waiting; "
            f"their stacks are above); events seen: {sorted(times)}"
        )
    await bus.close()
    seconds = times[Public.ROUND_CLOSED] - times[Public.TABLE]
    stake_seconds = times[Public.SLICES] - times[Public.BETTING_CLOSED]
    settle_seconds = times[Public.ROUND_CLOSED] - times[Public.ROUND_SETTLING]
    ledger_seconds = stake_seconds + settle_seconds
    settled_once = closed.get("settled") == sorted(gateways) and closed.get("dropped") == []
    return {"seconds": seconds, "ledger_seconds": ledger_seconds, "settled_once": settled_once,
            "events": events[0], "stake_seconds": stake_seconds,
            "settle_seconds": settle_seconds}  # fmt: skip


def peak_rss_mib(pid: int) -> float | None:
    """The process's peak resident set size in MiB (Linux), or None where it cannot be read."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return None


ROUND_ROWS = (
    "SELECT s.owner, (SELECT count(DISTINCT t.player_id) FROM ledger_transactions t "
    "WHERE t.round_id = s.round_id AND t.owner = s.owner AND t.category = 'stake'), "
    "(SELECT count(*) FROM ledger_transactions t WHERE t.round_id = s.round_id "
    "AND t.owner = s.owner AND t.category = 'stake' AND t.kind <> 'main'), "
    "(SELECT count(*) FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id "
    "JOIN ledger_accounts a ON a.id = e.account_id WHERE t.round_id = s.round_id "
    "AND t.owner = s.owner AND t.category = 'settle' AND a.kind = 'wallet') "
    "FROM ledger_slices s ORDER BY s.owner"
)
"""Each slice of the round (one gateway's): its players, its stakes beyond the mains (doubles,
splits, insurance, written with the settlement) and its paid players."""


def round_rows(database_url: str) -> list[tuple[int, int, int]]:
    """``(players, extra stakes, paid players)`` of each slice of the round just played."""
    with psycopg.connect(libpq(database_url)) as connection:
        rows = connection.execute(ROUND_ROWS).fetchall()
    return [(int(players), int(extras), int(paid)) for _, players, extras, paid in rows]


def measure_floors(
    database_url: str, nats_url: str, rows: list[tuple[int, int, int]]
) -> dict[str, float]:
    """The round's floor parts: the ledger floor for the rows its slices wrote (``rows``, from
    :func:`round_rows`: each gateway's mains as one batch, the gateways' slices written at once,
    then their extra stakes and settlements at once, each slice's in one transaction) and one
    bare JetStream publish/ack round trip (its median; times the round's events, by the
    caller). The cards decide how many bets are doubled, split or insured and how many players
    are paid: the floor writes as many as the round did."""
    bounds = [0]
    for players, _, _ in rows:
        bounds.append(bounds[-1] + players)
    slices = [range(bounds[i], bounds[i + 1]) for i in range(len(rows))]
    paid_below = [bounds[i] + paid for i, (_, _, paid) in enumerate(rows)]

    def outcome(index: int) -> tuple[int, int]:
        owner = bisect.bisect_right(bounds, index) - 1
        return 100, (200 if index < paid_below[owner] else 0)

    extras = [extra for _, extra, _ in rows]
    ledger = measure_floor(database_url, bounds[-1], slices, len(rows), outcome, parallel=True,
                           extra_stakes=extras)  # fmt: skip
    acks = asyncio.run(publish_ack_ms(nats_url, 200))
    return {
        "ledger_floor_stake_seconds": ledger["stake_seconds"],
        "ledger_floor_settle_seconds": ledger["settle_seconds"],
        "ledger_floor_seconds": ledger["stake_seconds"] + ledger["settle_seconds"],
        "bus_floor_seconds": percentile(acks, 0.5) / 1000,
    }


def libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def drop_namespace(nats_url: str, namespace: str) -> None:
    bus = await JetStreamBus.connect(nats_url, namespace=namespace)
    await bus.delete_namespace()
    await bus.close()


def main() -> None:
    # A terminated run still drops its scratch database and namespace.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=10_000)
    parser.add_argument("--gateways", type=int, default=2)
    parser.add_argument("--database-url", default=DEFAULT_POSTGRES_URL)
    parser.add_argument("--nats-url", default=DEFAULT_NATS_URL)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--seed", type=int, default=None,
        help="shuffle the shoe from this seed: the same cards, so the same rows, every run",
    )  # fmt: skip
    args = parser.parse_args()
    if args.positions < 1 or args.gateways < 1:
        parser.error("--positions and --gateways must be at least 1")
    load_before = os.getloadavg()[0]
    database_url, name, dsn = scratch_database(args.database_url)
    namespace = f"bench{uuid.uuid4().hex[:8]}"
    open_ledger(database_url, "bench-setup")  # migrate once, before the gateways start
    processes: list[subprocess.Popen[bytes]] = []
    names: list[str] = []
    ports: list[int] = []
    try:
        share, extra = divmod(args.positions, args.gateways)
        for index in range(args.gateways):
            port = free_port()
            bots = share + (1 if index < extra else 0)
            names.append(f"gateway-{port}")
            command = [sys.executable, "-m", "boundless.cli.main", "gateway"]
            command += ["--database-url", database_url, "--nats-url", args.nats_url]
            command += ["--port", str(port), "--bots", str(bots), "--table", TABLE]
            command += ["--namespace", namespace]
            with Path(f"{tempfile.gettempdir()}/cluster_round_gateway_{index + 1}.log").open(
                "wb"
            ) as log:
                processes.append(subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT))
            ports.append(port)
        for port, process in zip(ports, processes, strict=True):
            wait_until_serving(port, process, 1800)
        # The bots' wallets were just created in bulk; a long-running database has statistics
        # for its tables (autovacuum), a scratch one not yet: without them the ledger's
        # set-based joins get nested-loop plans that take minutes.
        with psycopg.connect(libpq(database_url), autocommit=True) as connection:
            connection.execute("ANALYZE")
        checkpointed = start_clean(database_url)
        figures = asyncio.run(one_round(database_url, args.nats_url, namespace, names, args.seed))
        engine = make_engine(database_url)
        with make_session_factory(engine)() as session:
            books = check_books(session)
        engine.dispose()
        peaks = [peak_rss_mib(process.pid) for process in processes]
        for process in processes:  # the floor runs with the machine to itself
            process.terminate()
        checkpointed = start_clean(database_url) and checkpointed
        rows = round_rows(database_url)
        floor = measure_floors(database_url, args.nats_url, rows)
        floor["bus_floor_seconds"] *= int(figures["events"])
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        with psycopg.connect(dsn, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        asyncio.run(drop_namespace(args.nats_url, namespace))
    result = {
        "positions": args.positions,
        "gateways": args.gateways,
        "seed": args.seed,
        "seconds": round(float(figures["seconds"]), 3),
        "ledger_seconds": round(float(figures["ledger_seconds"]), 3),
        "floor_seconds": round(floor["ledger_floor_seconds"] + floor["bus_floor_seconds"], 3),
        "ratio_to_floor": round(
            float(figures["seconds"])
            / (floor["ledger_floor_seconds"] + floor["bus_floor_seconds"]),
            2,
        ),
        "ledger_floor_seconds": round(floor["ledger_floor_seconds"], 3),
        "stake_seconds": round(float(figures["stake_seconds"]), 3),
        "ledger_floor_stake_seconds": round(floor["ledger_floor_stake_seconds"], 3),
        "settle_seconds": round(float(figures["settle_seconds"]), 3),
        "ledger_floor_settle_seconds": round(floor["ledger_floor_settle_seconds"], 3),
        "bus_floor_seconds": round(floor["bus_floor_seconds"], 3),
        "floor_rows": {
            "players": [players for players, _, _ in rows],
            "extra_stakes": [extra for _, extra, _ in rows],
            "paid": [paid for _, _, paid in rows],
        },
        "events": figures["events"],
        "load_average": [load_before, os.getloadavg()[0]],
        "settled_once": bool(figures["settled_once"]),
        "books_balanced": books.ok,
        "gateway_peak_rss_mib": peaks,
        "checkpointed": checkpointed,
    }
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
        print(
            f"rerun: python benchmarks/cluster_round.py --positions {args.positions} "
            f"--gateways {args.gateways} --json"
        )


if __name__ == "__main__":
    main()
