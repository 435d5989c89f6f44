"""Speed of the simulator: rounds per second of a title with every side bet evaluated.

    .venv/bin/python benchmarks/sim_speed.py                  # readable figures
    .venv/bin/python benchmarks/sim_speed.py --json           # one JSON line
    .venv/bin/python benchmarks/sim_speed.py --title boo-bucks --rounds 50000000

``sim_rounds_per_second``: ``boundless.math.simulation.simulate`` of the title with basic
strategy on all its spots, every side bet staked and evaluated in every round it is offered, on
one worker process per core; the wall-clock time of the whole call (chunk planning, the worker
pool, merging) with the kernels already compiled; the median of ``--repeat`` runs.
``sim_rounds_per_cpu_second``: one chunk in this process, rounds per second of CPU time (the
single-core speed, less sensitive to other jobs on the machine).

The kernels run compiled for this machine's CPU (the shipped generic pack is turned off here:
``boundless.math.kernel_pack``; its code runs this simulator 5-9% slower).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from boundless.math.simulation import SimSpec

# Before any kernel is imported: this CPU's code, the figure the targets are about.
os.environ.setdefault("BOUNDLESS_KERNEL_PACK", "off")

RERUN = ".venv/bin/python benchmarks/sim_speed.py"
ROUNDS = 200_000_000
CHUNK_ROUNDS = 4_000_000
TARGET = 10_000_000


def _spec(title: str) -> SimSpec:
    from boundless.math.simulation import build_spec
    from boundless.titles import load_game

    rules, chart = load_game(title)
    return build_spec(rules, chart, "basic")


def sim_rounds_per_second(title: str, repeat: int, rounds: int = ROUNDS) -> float:
    """Both cores (one worker each), warm kernels: rounds per wall-clock second."""
    from boundless.math.simulation import run_chunk, simulate_spec

    spec = _spec(title)
    run_chunk(spec, np.random.SeedSequence(0), 1000)  # compile or load the kernels
    workers = os.cpu_count() or 1
    rates = []
    for run in range(max(1, min(repeat, 3))):
        start = time.perf_counter()
        result = simulate_spec(spec, rounds, seed=run, workers=workers, chunk_rounds=CHUNK_ROUNDS)
        rates.append(result.rounds / (time.perf_counter() - start))
    return statistics.median(rates)


def sim_rounds_per_cpu_second(title: str, repeat: int, rounds: int = 20_000_000) -> float:
    """One core: rounds per second of this process's CPU time (best of the runs)."""
    from boundless.math.simulation import run_chunk

    spec = _spec(title)
    run_chunk(spec, np.random.SeedSequence(0), 1000)
    rates = []
    for run in range(max(1, min(repeat, 3))):
        start = time.process_time()
        _, counts = run_chunk(spec, np.random.SeedSequence(run), rounds)
        rates.append(int(counts[0]) / (time.process_time() - start))
    return max(rates)


def machine() -> str:
    """The line a speed report starts with: what it ran on, and how busy that was."""
    return (
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"load {os.getloadavg()[0]:.2f}, Python {platform.python_version()}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    parser.add_argument("--title", default="boundless", help="title key (default boundless)")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="rounds per timed run")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs (median reported)")
    arguments = parser.parse_args()
    figures = {
        "sim_rounds_per_second": sim_rounds_per_second(
            arguments.title, arguments.repeat, arguments.rounds
        ),
        "sim_rounds_per_cpu_second": sim_rounds_per_cpu_second(arguments.title, arguments.repeat),
    }
    if arguments.json:
        print(json.dumps({**figures, "title": arguments.title}))
        return
    print(machine())
    for name, value in figures.items():
        note = f"  (target >= {TARGET:,})" if name == "sim_rounds_per_second" else ""
        print(f"{name:>26}: {value:,.0f}{note}")
    print(f"rerun: {RERUN} [--json] [--title KEY] [--rounds N] [--repeat N]")


if __name__ == "__main__":
    main()
