"""Ledger throughput for one shared round: N players' wallets, grants, bets and settlement.

    python benchmarks/ledger_settlement.py                          # SQLite file, 10,000 players
    python benchmarks/ledger_settlement.py --players 100000 --json
    python benchmarks/ledger_settlement.py --postgres               # machine's PostgreSQL
    python benchmarks/ledger_settlement.py --database-url postgresql+psycopg://user@host/db --json
    python benchmarks/ledger_settlement.py --postgres --owners 4 --batch 5000

Each phase is one committed database transaction, timed wall-clock: open_wallets, grant_many,
stake_many (in batches of ``--batch`` bets, each its own transaction, spread over ``--owners``
slices as gateways would write them), settle_slice of each slice (pays its players, squares its
in-play with the house, ends it; the last one closes the round), the same settlement again (a
retry: replays, moves nothing), and check_books. ``stakes_per_second`` and
``settlements_per_second`` are players divided by the time of all stake batches and of all
settlements; ``stake_batch_rates`` shows each batch's rate, first to last, to see it stay flat as
the round grows.

The floor (``ledger_floor.py``): the same rows written by a plain ``COPY`` into unindexed tables
and one ``UPDATE ... FROM`` per transaction (SQLite: plain ``INSERT``s), in the same run and
database, after the ledger's phases. ``floor_stakes_per_second`` and
``floor_settlements_per_second`` are its rates; ``stakes_ratio_to_floor`` and
``settlements_ratio_to_floor`` the floor's rate divided by the ledger's (1: as fast as the
floor; the target is at most 2). ``load_average``: the machine's 1-minute load average before and
after the run. On PostgreSQL it makes a scratch database and drops it afterwards; on SQLite a
temporary file. ``checkpointed``: a PostgreSQL ``CHECKPOINT`` was taken before the stakes and
before the floor, so neither starts with dirty pages left by what ran before it.

On a shared machine wall-clock rates fall with the load, so each phase also reports its CPU
seconds: this process's plus, when PostgreSQL runs on this machine, its server process's (read
from /proc). ``*_per_cpu_second`` is what the same work gets from an otherwise idle machine,
where client and server take turns on the CPU.

``stake_cpu_us_per_bet`` splits the stake phase's CPU time per bet into this process's
(``client``) and its PostgreSQL server process's (``server``).

``--repeat K`` runs the whole benchmark K times, each on a fresh database with its own floor
measured right after it, and reports the median of each rate and of each run's ratio, with
every run's figures under ``runs``: on a shared machine the floor alone moves by half from one
run to the next, so one run's ratio can be luck.

``--indexed-floor`` also writes the floor's rows into tables carrying the ledger's six indexes
(``ledger_floor.LEDGER_INDEXES``), right after the plain floor: ``indexed_floor_stakes_ratio``
and ``indexed_floor_settlements_ratio`` (its seconds ÷ the plain floor's) are the lowest ratios
any writer keeping those indexes could reach in that run.

``--statements`` adds ``stake_statement_us`` and ``settle_statement_us``: the wall time of each
SQL statement (and each ``COPY``) of the stake and of the settlement phase, in microseconds per
bet, keyed by the statement's first words; and ``settle_statements_s``, the settlement phase's
statements added up, with ``settle_statements_ratio_to_floor`` (that sum ÷ the floor's
settlement): the part of the settlements' ratio that is SQL the database runs, whatever the
client does around it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import psycopg
from sqlalchemy import event, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from boundless.ledger import (
    LedgerService,
    PostedTransaction,
    check_books,
    grant_key,
    make_engine,
    make_session_factory,
    staging,
    upgrade_database,
)
from ledger_floor import measure_floor, start_clean

DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
T = TypeVar("T")


@contextmanager
def database(url: str | None, postgres: bool) -> Iterator[str]:
    """A URL to an empty scratch database: a temporary SQLite file, or a new PostgreSQL database
    next to the one ``url`` names (dropped afterwards)."""
    if url is None and not postgres:
        with tempfile.TemporaryDirectory() as folder:
            yield f"sqlite:///{Path(folder) / 'ledger.sqlite'}"
        return
    url = url or DEFAULT_POSTGRES_URL
    if make_url(url).get_backend_name() != "postgresql":
        yield url
        return
    scratch = f"ledger_bench_{uuid.uuid4().hex[:12]}"
    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{scratch}"')
    try:
        yield make_url(url).set(database=scratch).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(dsn, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{scratch}" WITH (FORCE)')


def server_cpu_seconds(session: Session) -> float:
    """CPU seconds used so far by the PostgreSQL process serving ``session`` (0 if unknown)."""
    if session.get_bind().dialect.name != "postgresql":
        return 0.0
    pid = session.execute(text("SELECT pg_backend_pid()")).scalar_one()
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def outcome(index: int) -> tuple[int, int]:
    staked = 100 * (1 + index % 5)
    return staked, (0, staked, 2 * staked, staked * 5 // 2)[index % 4]


def stake(ledger: LedgerService, *, orders: list[tuple[str, str, str, int]]) -> object:
    return ledger.stake_many("bench", 1, orders)


def settle(ledger: LedgerService, *, lines: list[tuple[str, int, int]]) -> PostedTransaction:
    return ledger.settle_slice("bench", 1, lines)


def time_statements(engine: Any, spent: dict[str, float]) -> None:
    """Add each statement's (and each COPY's) wall time to ``spent``, by its first words."""
    started: list[float] = []

    @event.listens_for(engine, "before_cursor_execute")
    def before(*_: Any) -> None:
        started.append(time.perf_counter())

    @event.listens_for(engine, "after_cursor_execute")
    def after(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        head = " ".join(statement.split()[:4])
        spent[head] = spent.get(head, 0.0) + time.perf_counter() - started.pop()

    def timed(name: str, label: Callable[..., str]) -> None:
        # The stage's own driver-level statements bypass SQLAlchemy's events.
        method = getattr(staging.Stage, name, None)
        if method is None:  # older code (a run against another checkout)
            return

        def run_timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                head = label(*args)
                spent[head] = spent.get(head, 0.0) + time.perf_counter() - start

        setattr(staging.Stage, name, run_timed)

    timed("copy_into", lambda _self, table, *_: f"COPY {table}")
    timed("load_changes", lambda *_: "COPY ledger_stage (changes)")
    timed("lock_wallets", lambda *_: "wallet lock (SELECT FOR UPDATE)")
    timed("apply_changes", lambda *_: "balances, locked in id order (UPDATE)")
    timed("new_ids", lambda *_: "new ids (nextval)")


def per_bet(spent: dict[str, float], players: int) -> dict[str, float]:
    return {
        head: round(seconds / players * 1e6, 1)
        for head, seconds in sorted(spent.items(), key=lambda item: -item[1])
        if seconds / players >= 1e-7
    }


def run(
    url: str,
    players: int,
    batch: int,
    owners: int,
    statements: bool = False,
    indexed_floor: bool = False,
) -> dict[str, Any]:
    upgrade_database(url)
    engine = make_engine(url)
    sessions = make_session_factory(engine)
    spent: dict[str, float] = {}
    if statements:
        time_statements(engine, spent)
    names = [f"p{i:07d}" for i in range(players)]
    timings: dict[str, Any] = {}
    split: dict[str, tuple[float, float]] = {}  # phase: (client, server) CPU seconds

    def phase(name: str, work: Callable[[LedgerService], T], owner: str = "local") -> T:
        cpu_name = name.removesuffix("_s") + "_cpu_s"
        start, cpu = time.perf_counter(), time.process_time()
        with sessions.begin() as session:
            server = server_cpu_seconds(session)
            result = work(LedgerService(session, owner))
            session.flush()
            server = server_cpu_seconds(session) - server
        timings[name] = round(timings.get(name, 0) + time.perf_counter() - start, 4)
        client = time.process_time() - cpu
        timings[cpu_name] = round(timings.get(cpu_name, 0) + client + server, 4)
        before_client, before_server = split.get(name, (0.0, 0.0))
        split[name] = (before_client + client, before_server + server)
        return result

    phase("open_wallets_s", lambda ledger: ledger.open_wallets(names))
    phase("grant_many_s", lambda ledger: ledger.grant_many([(n, 10_000, grant_key(n, "signup"))
                                                            for n in names]))  # fmt: skip
    slices = [f"gateway:g{k}" for k in range(owners)]
    batches = [range(start, min(start + batch, players)) for start in range(0, players, batch)]
    rates = []
    lines_by_owner: dict[str, list[tuple[str, int, int]]] = {owner: [] for owner in slices}
    checkpointed = start_clean(url)  # the grants' dirty pages are not the stakes' to write
    spent.clear()  # only the stake phase
    for number, part in enumerate(batches):
        owner = slices[number % owners]
        orders = [(names[i], f"{names[i]}.0", "main", outcome(i)[0]) for i in part]
        before = timings.get("stake_many_s", 0)
        phase("stake_many_s", partial(stake, orders=orders), owner)
        rates.append(round(len(orders) / (timings["stake_many_s"] - before)))
        lines_by_owner[owner].extend((names[i], *outcome(i)) for i in part)
    if statements:
        timings["stake_statement_us"] = per_bet(spent, players)
    settled = {}
    spent.clear()
    for owner, lines in lines_by_owner.items():
        settled[owner] = phase("settle_s", partial(settle, lines=lines), owner)
    if statements:
        timings["settle_statement_us"] = per_bet(spent, players)
        timings["settle_statements_s"] = round(sum(spent.values()), 4)
    for owner, lines in lines_by_owner.items():
        replay = phase("settle_retry_s", partial(settle, lines=lines), owner)
        assert replay.replayed and replay.id == settled[owner].id
    start_check = time.perf_counter()
    with sessions() as session:
        report = check_books(session)
    timings["check_books_s"] = round(time.perf_counter() - start_check, 4)
    assert report.ok, report.summary()
    assert report.rounds == {"closed": 1}, report.summary()
    engine.dispose()
    timings["stakes_per_second"] = round(players / timings["stake_many_s"])
    timings["settlements_per_second"] = round(players / timings["settle_s"])
    timings["stake_batch_rates"] = rates
    timings["stakes_per_cpu_second"] = round(players / timings["stake_many_cpu_s"])
    client, server = split["stake_many_s"]
    timings["stake_cpu_us_per_bet"] = {
        "client": round(client / players * 1e6, 1),
        "server": round(server / players * 1e6, 1),
    }
    timings["settlements_per_cpu_second"] = round(players / timings["settle_cpu_s"])
    timings["checkpointed"] = start_clean(url) and checkpointed
    floor = measure_floor(url, players, batches, owners, outcome)
    timings["floor_stake_s"] = round(floor["stake_seconds"], 4)
    timings["floor_settle_s"] = round(floor["settle_seconds"], 4)
    timings["floor_stakes_per_second"] = round(players / floor["stake_seconds"])
    timings["floor_settlements_per_second"] = round(players / floor["settle_seconds"])
    # floor rate / our rate = our seconds / floor seconds: 1 is the floor itself.
    timings["stakes_ratio_to_floor"] = round(timings["stake_many_s"] / floor["stake_seconds"], 2)
    timings["settlements_ratio_to_floor"] = round(timings["settle_s"] / floor["settle_seconds"], 2)
    if statements:
        # The settlement's SQL alone (each statement's wall time: the server's work and the
        # round trip) against the whole floor: what no client-side speed-up can remove.
        timings["settle_statements_ratio_to_floor"] = round(
            timings["settle_statements_s"] / floor["settle_seconds"], 2
        )
    if indexed_floor:
        start_clean(url)
        indexed = measure_floor(url, players, batches, owners, outcome, indexed=True)
        timings["indexed_floor_stake_s"] = round(indexed["stake_seconds"], 4)
        timings["indexed_floor_settle_s"] = round(indexed["settle_seconds"], 4)
        # The lowest ratio a writer keeping the ledger's indexes could reach in this run.
        timings["indexed_floor_stakes_ratio"] = round(
            indexed["stake_seconds"] / floor["stake_seconds"], 2
        )
        timings["indexed_floor_settlements_ratio"] = round(
            indexed["settle_seconds"] / floor["settle_seconds"], 2
        )
    return timings


REPEATED = ("stake_many_s", "settle_s", "stakes_per_second", "settlements_per_second",
            "floor_stake_s", "floor_settle_s", "floor_stakes_per_second",
            "floor_settlements_per_second", "stakes_ratio_to_floor",
            "settlements_ratio_to_floor")  # fmt: skip
STATEMENTS = ("settle_statements_s", "settle_statements_ratio_to_floor")
INDEXED = ("indexed_floor_stake_s", "indexed_floor_settle_s", "indexed_floor_stakes_ratio",
           "indexed_floor_settlements_ratio")  # fmt: skip


def medians(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The last run's figures, with each of :data:`REPEATED` the median over ``runs`` (each a
    ratio of its own run: the floor and ours side by side), and ``runs`` listing them all."""
    merged = dict(runs[-1])
    names = REPEATED + tuple(name for name in INDEXED + STATEMENTS if name in merged)
    for name in names:
        merged[name] = statistics.median(run[name] for run in runs)
    merged["checkpointed"] = all(run["checkpointed"] for run in runs)
    merged["runs"] = [{name: run[name] for name in names} for run in runs]
    return merged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=10_000, help="bets per stake_many call")
    parser.add_argument("--owners", type=int, default=1, help="slices (gateways) in the round")
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--postgres", action="store_true", help=f"use {DEFAULT_POSTGRES_URL}")
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    parser.add_argument(
        "--statements", action="store_true", help="time each statement of the stake phase"
    )
    parser.add_argument(
        "--indexed-floor", action="store_true",
        help="also time the floor on tables carrying the ledger's indexes",
    )  # fmt: skip
    parser.add_argument(
        "--repeat", type=int, default=1,
        help="run it all this many times, each on a fresh database; report the medians",
    )  # fmt: skip
    args = parser.parse_args()
    if args.players < 1 or args.batch < 1 or args.owners < 1 or args.repeat < 1:
        parser.error("--players, --batch, --owners and --repeat must be at least 1")
    load_before = os.getloadavg()[0]
    runs = []
    for _ in range(args.repeat):
        with database(args.database_url, args.postgres) as url:
            backend = make_url(url).get_backend_name()
            runs.append(
                run(url, args.players, args.batch, args.owners, args.statements, args.indexed_floor)
            )
    timings = runs[0] if len(runs) == 1 else medians(runs)
    result = {"players": args.players, "backend": backend, "batch": args.batch,
              "owners": args.owners, "load_average": [load_before, os.getloadavg()[0]],
              **timings}  # fmt: skip
    if args.json:
        print(json.dumps(result))
        return
    print(f"ledger, {args.players:,} players, {backend}, {platform.machine()} "
          f"Python {platform.python_version()}")  # fmt: skip
    for name, value in timings.items():
        print(f"  {name.removesuffix('_s'):<24} {value}")
    print(f"rerun: {sys.executable} {' '.join(sys.argv)}")


if __name__ == "__main__":
    main()
