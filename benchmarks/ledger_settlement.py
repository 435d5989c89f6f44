"""Ledger throughput for one shared round: N players' wallets, grants, bets and one bulk settlement.

    python benchmarks/ledger_settlement.py                          # SQLite file, 10,000 players
    python benchmarks/ledger_settlement.py --players 50000 --json
    python benchmarks/ledger_settlement.py --postgres               # machine's PostgreSQL
    python benchmarks/ledger_settlement.py --database-url postgresql+psycopg://user@host/db

Each phase is one database transaction (committed), timed wall-clock: open_wallets, grant_many,
stake_many, settle_round (pays every player, squares in-play with the house, closes the round),
the same settle_round again (a retry: replays, moves nothing), and check_books. PostgreSQL runs
in a fresh schema that is dropped afterwards; SQLite in a temporary file.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import psycopg
from sqlalchemy.engine import make_url

from boundless.ledger import (
    LedgerService,
    check_books,
    grant_key,
    make_engine,
    make_session_factory,
    upgrade_database,
)

DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
T = TypeVar("T")


@contextmanager
def database(url: str | None, postgres: bool) -> Iterator[str]:
    if url is None and not postgres:
        with tempfile.TemporaryDirectory() as folder:
            yield f"sqlite:///{Path(folder) / 'ledger.sqlite'}"
        return
    url = url or DEFAULT_POSTGRES_URL
    if make_url(url).get_backend_name() != "postgresql":
        yield url
        return
    schema = f"ledger_bench_{uuid.uuid4().hex[:12]}"
    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute(f'CREATE SCHEMA "{schema}"')
    try:
        scoped = make_url(url).update_query_dict({"options": f"-csearch_path={schema}"})
        yield scoped.render_as_string(hide_password=False)
    finally:
        with psycopg.connect(dsn, autocommit=True) as connection:
            connection.execute(f'DROP SCHEMA "{schema}" CASCADE')


def outcome(index: int) -> tuple[int, int]:
    staked = 100 * (1 + index % 5)
    return staked, (0, staked, 2 * staked, staked * 5 // 2)[index % 4]


def run(url: str, players: int) -> dict[str, float]:
    upgrade_database(url)
    engine = make_engine(url)
    sessions = make_session_factory(engine)
    names = [f"p{i:07d}" for i in range(players)]
    timings: dict[str, float] = {}

    def phase(name: str, work: Callable[[LedgerService], T]) -> T:
        start = time.perf_counter()
        with sessions.begin() as session:
            result = work(LedgerService(session))
        timings[name] = round(time.perf_counter() - start, 4)
        return result

    phase("open_wallets_s", lambda ledger: ledger.open_wallets(names))
    phase("grant_many_s", lambda ledger: ledger.grant_many([(n, 10_000, grant_key(n, "signup"))
                                                            for n in names]))  # fmt: skip
    orders = [(n, f"{n}.0", "main", outcome(i)[0]) for i, n in enumerate(names)]
    phase("stake_many_s", lambda ledger: ledger.stake_many("bench", 1, orders))
    lines = [(n, *outcome(i)) for i, n in enumerate(names)]
    settled = phase("settle_round_s", lambda ledger: ledger.settle_round("bench", 1, lines))
    replay = phase("settle_round_retry_s", lambda ledger: ledger.settle_round("bench", 1, lines))
    assert replay.replayed and replay.id == settled.id
    start = time.perf_counter()
    with sessions() as session:
        report = check_books(session)
    timings["check_books_s"] = round(time.perf_counter() - start, 4)
    assert report.ok, report.summary()
    engine.dispose()
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--postgres", action="store_true", help=f"use {DEFAULT_POSTGRES_URL}")
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    args = parser.parse_args()
    with database(args.database_url, args.postgres) as url:
        backend = make_url(url).get_backend_name()
        timings = run(url, args.players)
    result = {"players": args.players, "backend": backend, **timings}
    if args.json:
        print(json.dumps(result))
        return
    print(f"ledger, {args.players:,} players, {backend}, {platform.machine()} "
          f"Python {platform.python_version()}")  # fmt: skip
    for name, seconds in timings.items():
        print(f"  {name.removesuffix('_s'):<20} {seconds:8.3f} s")
    print(f"rerun: {sys.executable} {' '.join(sys.argv)}")


if __name__ == "__main__":
    main()
