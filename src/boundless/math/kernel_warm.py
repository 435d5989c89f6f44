"""Compile the exact-math kernels ahead of use: ``boundless warm-up``, the background compile
after a command that ran on the shipped generic code, and the making of that pack.

    python -m boundless.math.kernel_warm [--background]

Compiles (or loads) every exact kernel: the main-game analysis under each way of playing splits
(each runs kernels of its own), the outcome distribution and insurance. Compiled for this
machine's CPU (no ``NUMBA_CPU_NAME``), it then leaves the marker
(:func:`boundless.math.kernel_pack.host_marker`): later processes use this code, not the pack's.
``--background``: at low priority, and one such process per cache at a time (a lock file beside
the marker).
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


def compile_once_in_background() -> None:
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
            mark_compiled()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--background", action="store_true", help="low priority, one at a time")
    if parser.parse_args().background:
        compile_once_in_background()
        return
    compile_exact_kernels()
    mark_compiled()


if __name__ == "__main__":
    main()
