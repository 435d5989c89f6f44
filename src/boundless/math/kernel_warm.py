"""Compile the exact-math kernels ahead of use: ``boundless warm-up``, the background compile
after a command that ran on the shipped generic code, and the making of that pack.

    python -m boundless.math.kernel_warm [--background] [--simulation]

Compiles (or loads) every exact kernel: the main-game analysis under each way of playing splits
(each runs kernels of its own), the outcome distribution and insurance. Compiled for this
machine's CPU (no ``NUMBA_CPU_NAME``), it then leaves the marker
(:func:`boundless.math.kernel_pack.host_marker`): later processes use this code, not the pack's.
``--background``: at low priority, and one such process per cache at a time (a lock file beside
the marker). ``--simulation``: the simulator's kernels too (a short run), after a command that
simulated on generic code, so that the next simulation starts on this CPU's code, compiled.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

WARM_UP_TITLE = "boundless"  # any title compiles the same kernels


def compile_exact_kernels(title: str = WARM_UP_TITLE) -> None:
    """Run every exact kernel once on ``title`` (compiling or loading it)."""
    from boundless.math.exact import (
        SPLIT_PLAYS,
        analyse_main_game,
        insurance_return,
        outcome_distribution,
    )
    from boundless.titles import load_title

    rules = load_title(title)
    for split_play in SPLIT_PLAYS:
        analysis = analyse_main_game(rules, split_play=split_play)
    outcome_distribution(rules, analysis.chart)
    insurance_return(rules)


def compile_simulation_kernels(title: str = WARM_UP_TITLE) -> None:
    """Play a few rounds of ``title`` with basic strategy (compiling or loading the kernels)."""
    import numpy as np

    from boundless.math.simulation import build_spec, run_chunk
    from boundless.titles import load_game

    rules, chart = load_game(title)
    run_chunk(build_spec(rules, chart, "basic"), np.random.SeedSequence(0), 1000)


def mark_compiled() -> Path | None:
    """Leave the marker when this process compiled for this machine's CPU; returns it."""
    from boundless.math.kernel_cache import generic_cpu
    from boundless.math.kernel_pack import host_marker

    if generic_cpu() or os.environ.get("NUMBA_CPU_NAME"):
        return None  # generic or another named CPU: not this machine's own code
    marker = host_marker()
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text("the exact kernels are compiled for this CPU in this folder\n")
    return marker


def compile_once_in_background(simulation: bool = False) -> None:
    """The background compile: low priority, and skipped when another one holds the lock."""
    import fcntl

    from boundless.math.kernel_pack import host_marker

    os.nice(10)
    marker = host_marker()
    marker.parent.mkdir(parents=True, exist_ok=True)
    with open(marker.with_suffix(".lock"), "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return  # another command's background compile is at it
        if not marker.exists():
            compile_exact_kernels()
            if simulation:
                compile_simulation_kernels()
            mark_compiled()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--background", action="store_true", help="low priority, one at a time")
    parser.add_argument("--simulation", action="store_true", help="the simulator's kernels too")
    arguments = parser.parse_args()
    if arguments.background:
        compile_once_in_background(arguments.simulation)
        return
    compile_exact_kernels()
    if arguments.simulation:
        compile_simulation_kernels()
    mark_compiled()


if __name__ == "__main__":
    main()
