"""A fresh install's first ``boundless rtp boundless``, against the same command warm.

    .venv/bin/python benchmarks/cold_start.py           # readable figures
    .venv/bin/python benchmarks/cold_start.py --json    # one JSON line

"Fresh install": the package's sources copied to a new folder (new modification times, no
``__pycache__``: Python compiles every module's bytecode, as after a clone) and run from there
with an empty user cache (``XDG_CACHE_HOME`` a new folder; no ``BOUNDLESS_NUMBA_CACHE``), by this
environment's Python and libraries. ``cold_seconds``: that first command, wall clock, with the
shipped kernel pack (``boundless.math.kernel_pack``). ``warm_seconds`` (the floor): the same
command again once the background compile it started has left its marker (this CPU's kernels
and the bytecode cached). ``compile_cold_seconds``: a first command in another fresh copy with
``BOUNDLESS_KERNEL_PACK=off``: what every fresh install paid before the pack (numba compiles the
kernels). ``background_seconds``: from the end of the cold command to the marker.

``exact_warm_seconds_generic`` and ``exact_warm_seconds_this_cpu``: the exact analysis warm
(math_speed.py's ``exact_seconds_warm``: median of 9 in-process runs) on the pack's generic code
and on this CPU's, in fresh processes taking turns (3 each, the best reported), and
``generic_ratio`` (generic ÷ this CPU's): whether the pack's code slows the warm figure.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RERUN = ".venv/bin/python benchmarks/cold_start.py"
ROOT = Path(__file__).resolve().parents[1]
COMMAND = ["-m", "boundless.cli.main", "rtp", "boundless"]
TARGET_SECONDS = 3.0
WARM_CHILD = """
import statistics, time
from boundless.math.exact import analyse_main_game
from boundless.titles import load_title
rules = load_title("boundless")
analyse_main_game(rules)
times = []
for _ in range(9):
    start = time.perf_counter()
    analyse_main_game(rules)
    times.append(time.perf_counter() - start)
print(statistics.median(times))
"""


def fresh_copy(folder: Path) -> Path:
    """The package's sources under ``folder/src``, new files, no bytecode."""
    target = folder / "src"
    shutil.copytree(
        ROOT / "src",
        target,
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"),
        copy_function=shutil.copy,  # new modification times, as a clone's
    )
    return target


def environment(source: Path, cache: Path, pack: bool) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(source), "XDG_CACHE_HOME": str(cache)}
    for name in (
        "BOUNDLESS_NUMBA_CACHE",
        "NUMBA_CACHE_DIR",
        "NUMBA_CPU_NAME",
        "PYTHONPYCACHEPREFIX",
        "PYTHONDONTWRITEBYTECODE",
    ):
        env.pop(name, None)
    env["BOUNDLESS_KERNEL_PACK"] = "on" if pack else "off"
    return env


def timed(env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, *COMMAND], env=env, check=True, stdout=subprocess.DEVNULL, cwd="/"
    )
    return time.perf_counter() - started


def wait_for_marker(cache: Path, limit: float = 300.0) -> float | None:
    """Seconds until the background compile's marker appears under ``cache`` (None: never)."""
    started = time.perf_counter()
    while time.perf_counter() - started < limit:
        if list((cache / "boundless" / "numba").glob("compiled-*.done")):
            return time.perf_counter() - started
        time.sleep(0.2)
    return None


def warm_exact(cache: Path, generic: bool) -> float:
    env = {**os.environ, "BOUNDLESS_NUMBA_CACHE": str(cache), "BOUNDLESS_KERNEL_PACK": "on"}
    env.pop("NUMBA_CPU_NAME", None)
    if generic:
        env["NUMBA_CPU_NAME"] = "generic"
    else:
        env["BOUNDLESS_KERNEL_PACK"] = "off"
    done = subprocess.run(
        [sys.executable, "-c", WARM_CHILD], env=env, check=True, capture_output=True, text=True
    )
    return float(done.stdout.split()[-1])


def compare_warm(base: Path, turns: int = 3) -> dict[str, float]:
    """The exact analysis warm on generic and on this CPU's code, taking turns."""
    best = {True: float("inf"), False: float("inf")}
    for _ in range(turns):
        for generic in (True, False):
            cache = base / ("generic-cache" if generic else "cpu-cache")
            best[generic] = min(best[generic], warm_exact(cache, generic))
    return {
        "exact_warm_seconds_generic": round(best[True], 4),
        "exact_warm_seconds_this_cpu": round(best[False], 4),
        "generic_ratio": round(best[True] / best[False], 3),
    }


def measure() -> dict[str, object]:
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="boundless-cold-") as scratch:
        base = Path(scratch)
        source = fresh_copy(base / "packed")
        cache = base / "packed" / "cache"
        env = environment(source, cache, pack=True)
        cold = timed(env)
        used_pack = (cache / "boundless" / "numba" / "generic").is_dir()
        background = wait_for_marker(cache)
        warm = timed(env)
        unpacked = fresh_copy(base / "unpacked")
        compile_cold = timed(environment(unpacked, base / "unpacked" / "cache", pack=False))
        pack = source / "boundless" / "math" / "packed_kernels" / "generic.zip"
        pack_kib = pack.stat().st_size / 1024 if pack.exists() else 0.0
        warm_figures = compare_warm(base)
    return {
        "cold_seconds": round(cold, 3),
        "warm_seconds": round(warm, 3),
        "ratio_to_warm": round(cold / warm, 3),
        "compile_cold_seconds": round(compile_cold, 3),
        "background_seconds": None if background is None else round(background, 1),
        "used_pack": used_pack,
        "pack_kib": round(pack_kib),
        **warm_figures,
        "target_seconds": TARGET_SECONDS,
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "command": "boundless " + " ".join(COMMAND[2:]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    arguments = parser.parse_args()
    figures = measure()
    if arguments.json:
        print(json.dumps(figures))
        return
    for name, value in figures.items():
        print(f"{name:>22}: {value}")
    print(f"rerun: {RERUN} [--json]")


if __name__ == "__main__":
    main()
