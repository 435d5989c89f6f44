"""One shared round on an operator's wallet: N positions' debits, then their credits.

    python benchmarks/wallet_round.py --positions 100000 --latency-ms 20 --json
    python benchmarks/wallet_round.py --positions 10000 --latency-ms 20 --no-credit-batch
    python benchmarks/wallet_round.py --positions 10000 --latency-ms 20 --no-debit-batch --json
    python benchmarks/wallet_round.py --positions 100000 --latency-ms 20 --postgres --json

The reference operator wallet (``boundless wallet demo-operator``) runs in a process of its own
with ``--latency-ms`` added to every call. This process plays the server's side through the
``seamless`` wallet exactly as a table does: the betting window's bets in batches of
``--batch`` (a gateway writes up to ``BET_BATCH_MAX``, 2,000, bets per transaction, one batch
after another), each
batch's debits sent through ``debit_batch`` (unless ``--no-debit-batch``: then one call per debit,
in parallel over a pool of ``--pool`` connections), then granted and staked
in the ledger (SQLite file; ``--postgres``: a scratch database on the machine's PostgreSQL,
dropped afterwards; or ``--database-url``) in that batch's transaction; then one
settlement transaction (every player's credit, 0 for a loss, queued with the settlement) and
the delivery task sending the credits, through ``credit_batch`` unless ``--no-credit-batch``.

``debit_seconds``: from the first debit to the last batch committed (the target: inside a 15 s
betting window). ``credit_seconds``: from the settlement's start to the last credit
acknowledged (the target: within 30 s of the round's end). ``calls`` counts HTTP calls,
``retries`` the tries beyond each call's first; ``balances_match``: every operator balance is
its start less the stake plus the payout. ``load_average`` is the machine's 1-minute load at the
end (the machine may be shared).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import subprocess
import sys
import time
from typing import Any

import httpx
from sqlalchemy.engine import make_url

from boundless.ledger import LedgerService, make_engine, make_session_factory, upgrade_database
from boundless.ledger.records import PlayerSettlement, StakeOrder
from boundless.server.cluster.gateway_table import BET_BATCH_MAX
from boundless.wallet import BetDebit
from boundless.wallet.operator_client import ClientSettings
from boundless.wallet.seamless import STAGE_SIZE, SeamlessWallets
from ledger_settlement import database

START = 1_000_000
STAKE = 100
SECRET = "benchmark-secret-shared-with-the-operator"
PAYOUTS = (0, 0, 0, 200, 200, 250, 100)
"""A loss, a win, a blackjack, a push: drawn per position (seeded)."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_operator(
    port: int, latency_ms: float, batch: bool, debit_batch: bool
) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "boundless.cli.main", "wallet", "demo-operator"]
    command += ["--port", str(port), "--starting-balance", str(START)]
    command += ["--latency-ms", str(latency_ms)]
    if not batch:
        command.append("--no-batch")
    if not debit_batch:
        command.append("--no-debit-batch")
    env = {**os.environ, "BOUNDLESS_WALLET_SECRET": SECRET}
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return child
        except OSError:
            time.sleep(0.2)
    child.kill()
    raise SystemExit("the reference operator wallet did not start")


def run(args: argparse.Namespace, database_url: str) -> dict[str, Any]:
    port = free_port()
    operator = start_operator(
        port, args.latency_ms, not args.no_credit_batch, not args.no_debit_batch
    )
    url = f"http://127.0.0.1:{port}"
    engine = make_engine(database_url)
    upgrade_database(engine)
    sessions = make_session_factory(engine)
    settings = ClientSettings(url, SECRET.encode(), max_connections=args.pool, timeout_seconds=30)
    wallets = SeamlessWallets(
        settings, currency="EUR", delivery_seconds=0.05, stage_size=args.stage
    )
    try:
        players = [f"w{index}" for index in range(args.positions)]
        with sessions.begin() as session:
            LedgerService(session).open_wallets(players)
        wallets.start(sessions)
        table, round_no = "bench-1", 1
        started = time.perf_counter()
        for first in range(0, len(players), args.batch):
            chunk = players[first : first + args.batch]
            bets = [
                BetDebit(p, f"bet-{p}", (StakeOrder(p, f"{p}@1", "main", STAKE),)) for p in chunk
            ]
            with sessions.begin() as session:
                refused = [r for r in wallets(session).debit_bets(table, round_no, bets) if r]
            if refused:
                raise SystemExit(f"{len(refused)} debits refused: {refused[0]}")
        debit_seconds = time.perf_counter() - started
        draw = random.Random(7)
        paid = {player: draw.choice(PAYOUTS) for player in players}
        lines = [PlayerSettlement(p, STAKE, paid[p]) for p in players]
        started = time.perf_counter()
        with sessions.begin() as session:
            wallets(session).settle(table, round_no, lines, {})
        wallets.wake()
        while wallets.pending_count():
            time.sleep(0.05)
        credit_seconds = time.perf_counter() - started
        balances = httpx.get(f"{url}/admin/balances", timeout=60).json()["balances"]
        match = all(balances.get(p) == START - STAKE + paid[p] for p in players)
        return {
            "positions": args.positions,
            "latency_ms": args.latency_ms,
            "debit_seconds": round(debit_seconds, 3),
            "credit_seconds": round(credit_seconds, 3),
            "calls": wallets.client.calls,
            "retries": wallets.client.retries,
            "balances_match": match,
            "credit_batch": bool(wallets.batch),
            "debit_batch": wallets.debit_batch,
            "pool": args.pool,
            "batch": args.batch,
            "stage": args.stage,
            "database": make_url(database_url).get_backend_name(),
            "load_average": round(os.getloadavg()[0], 2),
            "cpus": os.cpu_count(),
        }
    finally:
        wallets.close()
        engine.dispose()
        operator.terminate()
        operator.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=10_000)
    parser.add_argument("--latency-ms", type=float, default=20.0)
    parser.add_argument("--pool", type=int, default=128, help="calls in flight at most")
    parser.add_argument("--batch", type=int, default=BET_BATCH_MAX, help="bets per transaction")
    parser.add_argument(
        "--stage", type=int, default=STAGE_SIZE, help="debits per stage of a transaction's bets"
    )
    parser.add_argument("--no-credit-batch", action="store_true")
    parser.add_argument("--no-debit-batch", action="store_true")
    parser.add_argument("--database-url", default=None)
    parser.add_argument(
        "--postgres", action="store_true", help="a scratch database on the machine's PostgreSQL"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if min(args.positions, args.batch, args.pool, args.stage) < 1 or args.latency_ms < 0:
        parser.error("--positions, --batch, --pool and --stage must be positive, --latency-ms >= 0")
    with database(args.database_url, args.postgres) as url:
        figures = run(args, url)
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:>16}: {value}")
        print(
            f"rerun: python benchmarks/wallet_round.py --positions {args.positions} "
            f"--latency-ms {args.latency_ms}{' --postgres' if args.postgres else ''} --json"
        )


if __name__ == "__main__":
    main()
