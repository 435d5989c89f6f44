"""Speed of the exact math and of the simulator.

    .venv/bin/python benchmarks/math_speed.py            # readable figures
    .venv/bin/python benchmarks/math_speed.py --json     # one JSON line

``exact_seconds_warm``: the exact 8-deck main-game analysis of a title, both strategies
(dealer tables, optimal play, chart derivation, the chart's exact return, standard
deviations), in a process where the kernels are already compiled: the median of several
runs (the shoe-independent hand and dealer tables are built once per process and reused).
``exact_seconds_cold``: the same in a fresh Python process with an empty numba cache and the
shipped kernel pack turned off (``BOUNDLESS_KERNEL_PACK=off``), from before
``import boundless.math.exact`` to the result, so JIT compilation is included (a fresh install's
first command loads the pack instead: benchmarks/cold_start.py).
``exact_seconds_first_call``: a fresh process with the compiled kernels already cached
(imports, cache loading and the shared tables included).

``sim_rounds_per_second``: the simulator on every core, Boundless with basic strategy and all
four side bets evaluated (see benchmarks/sim_speed.py, which also gives the one-core figure).

Each figure is one entry of ``MEASUREMENTS``. The kernels run compiled for this machine's CPU;
``--generic`` runs the warm figures on the shipped pack's generic x86-64 code instead (what a
fresh install's commands run until this CPU's compile is done: boundless.math.kernel_pack).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

from sim_speed import machine, sim_rounds_per_second

RERUN = ".venv/bin/python benchmarks/math_speed.py"
COLD_CHILD = """
import time
start = time.perf_counter()
from boundless.math.exact import analyse_main_game
from boundless.titles import load_title
analyse_main_game(load_title({title!r}))
print(time.perf_counter() - start)
"""


def exact_seconds_warm(title: str, repeat: int) -> float:
    from boundless.math.exact import analyse_main_game
    from boundless.titles import load_title

    rules = load_title(title)
    analyse_main_game(rules)  # compile or load the kernels, build the shared tables
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        analyse_main_game(rules)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _fresh_process_seconds(title: str, numba_cache: str | None) -> float:
    environment = dict(os.environ)
    environment.pop("NUMBA_CPU_NAME", None)
    if numba_cache is not None:
        environment["NUMBA_CACHE_DIR"] = numba_cache
        environment["BOUNDLESS_NUMBA_CACHE"] = numba_cache
        environment["BOUNDLESS_KERNEL_PACK"] = "off"  # measure the compile, not the pack
    done = subprocess.run(
        [sys.executable, "-c", COLD_CHILD.format(title=title)],
        check=True,
        capture_output=True,
        text=True,
        env=environment,
    )
    return float(done.stdout.strip().splitlines()[-1])


def exact_seconds_cold(title: str, repeat: int) -> float:
    del repeat
    with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
        return _fresh_process_seconds(title, cache)


def exact_seconds_first_call(title: str, repeat: int) -> float:
    """A fresh process whose numba cache is already filled (imports and tables included)."""
    del repeat
    _fresh_process_seconds(title, None)  # make sure the project's cache is filled
    return _fresh_process_seconds(title, None)


MEASUREMENTS: dict[str, Callable[[str, int], float]] = {
    "exact_seconds_warm": exact_seconds_warm,
    "exact_seconds_cold": exact_seconds_cold,
    "exact_seconds_first_call": exact_seconds_first_call,
    "sim_rounds_per_second": sim_rounds_per_second,  # benchmarks/sim_speed.py
}
TARGETS = {"exact_seconds_warm": 0.2, "exact_seconds_cold": 10.0}
MINIMUMS = {"sim_rounds_per_second": 10_000_000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    parser.add_argument("--title", default="boundless", help="title key (default boundless)")
    parser.add_argument("--repeat", type=int, default=9, help="warm runs (median reported)")
    parser.add_argument("--generic", action="store_true", help="the pack's generic CPU code")
    arguments = parser.parse_args()
    if arguments.generic:  # before the first kernel is imported (sim_speed set the pack off)
        os.environ["NUMBA_CPU_NAME"] = "generic"
        os.environ["BOUNDLESS_KERNEL_PACK"] = "on"
    figures = {
        name: measure(arguments.title, arguments.repeat) for name, measure in MEASUREMENTS.items()
    }
    if arguments.json:
        cpu = "generic" if arguments.generic else "this machine's"
        print(json.dumps({**figures, "title": arguments.title, "cpu": cpu}))
        return
    print(machine())
    for name, value in figures.items():
        target = TARGETS.get(name)
        note = f"  (target <= {target} s)" if target is not None else ""
        if name in MINIMUMS:
            note = f"  (target >= {MINIMUMS[name]:,})"
        print(f"{name:>22}: {value:,.4f}{note}")
    print(f"rerun: {RERUN} [--json] [--title KEY] [--repeat N] [--generic]")


if __name__ == "__main__":
    main()
