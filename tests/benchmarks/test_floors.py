"""Each benchmark, run tiny, prints its figure beside its floor, their ratio and the load average
under the JSON names the issue fixed (checks and docs rely on them). No timing is asserted: only
that the names are there and the ratios are positive numbers. A benchmark that needs PostgreSQL
or NATS skips, saying why, where the service is absent."""

from __future__ import annotations

import json
import math
import statistics
import subprocess
import sys
from itertools import count
from pathlib import Path
from typing import Any

import pytest

from tests.cluster.conftest import NATS_URL, nats_unavailable
from tests.postgres import postgres_unavailable, postgres_url

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from ledger_floor import EXTRA_STAKE, extra_stake_rows, measure_floor  # noqa: E402


def run_json(script: str, *args: str, timeout: float = 240) -> dict[str, Any]:
    """The last line of the benchmark's output, as JSON (it must exit cleanly)."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args, "--json"],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def positive(value: object) -> bool:
    return isinstance(value, int | float) and math.isfinite(value) and value > 0


def assert_ledger_floor(result: dict[str, Any]) -> None:
    for name in ("floor_stakes_per_second", "floor_settlements_per_second",
                 "stakes_ratio_to_floor", "settlements_ratio_to_floor",
                 "stakes_per_second", "settlements_per_second"):  # fmt: skip
        assert positive(result[name]), (name, result[name])
    assert len(result["load_average"]) == 2
    assert all(load >= 0 for load in result["load_average"])


def test_ledger_settlement_on_sqlite_prints_its_floor() -> None:
    result = run_json("ledger_settlement.py", "--players", "300", "--batch", "100",
                      "--owners", "2")  # fmt: skip
    assert result["backend"] == "sqlite"
    assert result["checkpointed"] is False  # SQLite has no checkpoint to take
    assert_ledger_floor(result)


def test_ledger_settlement_repeated_reports_the_median_of_its_runs() -> None:
    result = run_json("ledger_settlement.py", "--players", "200", "--batch", "100",
                      "--repeat", "3")  # fmt: skip
    assert_ledger_floor(result)
    runs = result["runs"]
    assert len(runs) == 3
    for name in ("stakes_ratio_to_floor", "settlements_ratio_to_floor", "stakes_per_second"):
        assert result[name] == statistics.median(run[name] for run in runs)
        assert all(positive(run[name]) for run in runs)


def test_the_settlements_sql_alone_is_reported_against_the_floor() -> None:
    result = run_json("ledger_settlement.py", "--players", "200", "--batch", "100",
                      "--repeat", "2", "--statements")  # fmt: skip
    assert_ledger_floor(result)
    for name in ("settle_statements_s", "settle_statements_ratio_to_floor"):
        assert positive(result[name]), (name, result[name])
        assert result[name] == statistics.median(run[name] for run in result["runs"])
    # The SQL is part of the settlement phase, never more than all of it.
    for run in result["runs"]:
        assert run["settle_statements_s"] <= run["settle_s"]
        assert run["settle_statements_ratio_to_floor"] <= run["settlements_ratio_to_floor"] + 0.01
    assert result["settle_statement_us"]


def test_the_indexed_floor_is_reported_beside_the_plain_one() -> None:
    result = run_json("ledger_settlement.py", "--players", "200", "--batch", "100",
                      "--repeat", "2", "--indexed-floor")  # fmt: skip
    assert_ledger_floor(result)
    for name in ("indexed_floor_stake_s", "indexed_floor_settle_s",
                 "indexed_floor_stakes_ratio", "indexed_floor_settlements_ratio"):  # fmt: skip
        assert positive(result[name]), (name, result[name])
        assert result[name] == statistics.median(run[name] for run in result["runs"])


def test_ledger_settlement_on_postgres_prints_its_floor() -> None:
    reason = postgres_unavailable()
    if reason is not None:
        pytest.skip(reason)
    result = run_json("ledger_settlement.py", "--players", "300", "--batch", "100",
                      "--owners", "2", "--database-url", postgres_url())  # fmt: skip
    assert result["backend"] == "postgresql"
    assert isinstance(result["checkpointed"], bool)  # True where the role may checkpoint
    assert_ledger_floor(result)


def test_the_ledger_floor_writes_its_rows_and_drops_its_tables(tmp_path: Path) -> None:
    import sqlite3

    url = f"sqlite:///{tmp_path / 'floor.sqlite'}"
    batches = [range(0, 40), range(40, 70), range(70, 100)]
    for indexed in (False, True):
        seconds = measure_floor(
            url, 100, batches, 2, lambda i: (100, 150 if i % 2 else 0), indexed=indexed
        )
        assert positive(seconds["stake_seconds"]) and positive(seconds["settle_seconds"])
        with sqlite3.connect(tmp_path / "floor.sqlite") as connection:
            left = connection.execute("SELECT name FROM sqlite_master").fetchall()
        assert left == []  # tables, and with them the indexed floor's indexes


def test_bus_overhead_prints_its_floor() -> None:
    reason = nats_unavailable()
    if reason is not None:
        pytest.skip(reason)
    result = run_json("bus_overhead.py", "--gateways", "1", "--rounds", "3",
                      "--nats-url", NATS_URL)  # fmt: skip
    assert result["runs"][0]["steps"] > 0, "no step was measured"
    for name in ("p99_ms", "floor_p99_ms", "ratio_to_floor"):
        assert positive(result[name]), (name, result[name])
    assert result["load_average"] >= 0


def test_cluster_round_prints_its_floor() -> None:
    reason = nats_unavailable() or postgres_unavailable()
    if reason is not None:
        pytest.skip(reason)
    result = run_json("cluster_round.py", "--positions", "300", "--gateways", "2", "--seed", "3",
                      "--database-url", postgres_url(), "--nats-url", NATS_URL)  # fmt: skip
    assert result["settled_once"] and result["books_balanced"]
    assert result["seed"] == 3
    assert isinstance(result["checkpointed"], bool)
    for name in ("seconds", "floor_seconds", "ratio_to_floor", "ledger_floor_seconds",
                 "bus_floor_seconds"):  # fmt: skip
        assert positive(result[name]), (name, result[name])
    assert len(result["load_average"]) == 2
    # The floor wrote what the round wrote: every position's player, in its gateway's slice.
    rows = result["floor_rows"]
    assert sum(rows["players"]) == 300 and len(rows["players"]) == 2
    sizes = zip(rows["paid"], rows["players"], strict=True)
    assert all(0 <= paid <= players for paid, players in sizes)
    assert all(extra >= 0 for extra in rows["extra_stakes"])


def test_the_floors_extra_stakes_are_balanced_transfers_taken_in_turn() -> None:
    lines = [(1, 100, 0), (2, 100, 200), (3, 100, 0)]
    headers, entries, changes = extra_stake_rows(lines, 5, 0, 99, count(1), "now")
    assert len(headers) == 5 and len(entries) == 10
    assert [header[7] for header in headers] == ["p0000000", "p0000001", "p0000002",
                                                 "p0000000", "p0000001"]  # fmt: skip
    assert len({header[1] for header in headers}) == 5  # one key each
    assert sum(amount for *_, amount in entries) == 0
    assert sum(delta for _, delta in changes) == 0
    assert sum(delta for account, delta in changes if account == 99) == 5 * EXTRA_STAKE
    assert extra_stake_rows([], 3, 0, 99, count(1), "now") == ([], [], [])


def test_the_ledger_floor_writes_a_slices_extra_stakes_with_its_settlement(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'floor.sqlite'}"
    batches = [range(0, 50), range(50, 100)]
    seconds = measure_floor(url, 100, batches, 2, lambda i: (100, 200), extra_stakes=[120, 0])
    assert positive(seconds["stake_seconds"]) and positive(seconds["settle_seconds"])


def test_live_load_prints_its_loop_lag() -> None:
    result = run_json("live_load.py", "--players", "20", "--rounds", "1", "--processes", "1",
                      "--decision-seconds", "1")  # fmt: skip
    assert result["settled_once"]
    names = ("loop_lag_p99_ms", "loop_lag_max_ms", "loop_lag_floor_p99_ms")
    names += ("broadcast_floor_p99_ms", "broadcast_floor_max_ms")
    names += ("loop_lag_p99_ratio_to_floor", "loop_lag_max_ratio_to_floor")
    for name in names:
        assert positive(result[name]), (name, result[name])
    assert result["loop_lag_max_ms"] >= result["loop_lag_p99_ms"]
    assert len(result["load_average"]) == 2
