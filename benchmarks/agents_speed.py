"""Speed of the agents' environments beside Gymnasium's Blackjack-v1, in one run.

    python benchmarks/agents_speed.py --json
    python benchmarks/agents_speed.py --tables 4096 --seconds 5

* ``vector_steps_per_second``: :class:`VectorBlackjack` (numba, ``shuffle="fast"``), K tables
  stepped together; a step is one action of one table (bets, insurance answers and decisions
  all count), the policy picks the first legal action from the masks in numpy;
* ``single_hands_per_second``: ``boundless/Blackjack-v0`` as ``gym.make`` gives it for the
  Boundless title (the kernel path: the numba kernel with one table), rounds per second with
  the first legal action at every step (bet, then play); ``single_engine_hands_per_second``:
  the same on the engine path (``path="engine"``, what side bets, betting and grading take);
* ``gymnasium_blackjack_v1_hands_per_second``: Gymnasium's own ``Blackjack-v1``, standing on
  every hand (one step per hand: its cheapest play).

Each figure is measured for ``--seconds`` of wall clock after a warm-up (numba compiled),
per wall-clock second (the keys above) and per CPU second of this process (``*_per_cpu_second``:
what a quiet core would give, every loop here being single-threaded); the machine's load
average is printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import gymnasium as gym
import numpy as np

from boundless.agents.blackjack_env import BlackjackEnv
from boundless.agents.vector_env import VectorBlackjack

Rates = tuple[float, float]
"""(per wall-clock second, per CPU second of this process): on a shared machine the second
stays near what a quiet core gives (every loop here is single-threaded)."""


def rates(count: float, wall: float, cpu: float) -> Rates:
    return count / (time.perf_counter() - wall), count / (time.process_time() - cpu)


def vector_steps_per_second(tables: int, seconds: float) -> Rates:
    vector = VectorBlackjack(tables, title="boundless", shuffle="fast")
    _, info = vector.reset(1)
    for _ in range(50):  # warm-up: compiled kernels loaded
        _, _, _, _, info = vector.step(np.argmax(info["action_mask"], axis=1))
    steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        for _ in range(20):
            _, _, _, _, info = vector.step(np.argmax(info["action_mask"], axis=1))
        steps += 20 * tables
    return rates(steps, start, cpu)


def single_hands_per_second(seconds: float, path: str) -> Rates:
    env = BlackjackEnv(title="boundless", path=path)
    _, info = env.reset(seed=1)
    for _ in range(20):  # warm-up: compiled kernels loaded
        _, _, done, _, info = env.step(int(np.argmax(info["action_mask"])))
        if done:
            _, info = env.reset()
    hands = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        done = False
        while not done:
            _, _, done, _, info = env.step(int(np.argmax(info["action_mask"])))
        _, info = env.reset()
        hands += 1
    return rates(hands, start, cpu)


def gymnasium_hands_per_second(seconds: float) -> Rates:
    env = gym.make("Blackjack-v1").unwrapped
    env.reset(seed=1)
    hands = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        done = False
        while not done:
            _, _, done, _, _ = env.step(0)
        env.reset()
        hands += 1
    return rates(hands, start, cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--tables", type=int, default=4096, help="vector tables (K)")
    parser.add_argument("--seconds", type=float, default=3.0, help="wall clock per figure")
    args = parser.parse_args()
    vector = vector_steps_per_second(args.tables, args.seconds)
    single = single_hands_per_second(args.seconds, "kernel")
    engine = single_hands_per_second(args.seconds, "engine")
    anchor = gymnasium_hands_per_second(args.seconds)
    figures = {
        "vector_steps_per_second": vector[0],
        "single_hands_per_second": single[0],
        "single_engine_hands_per_second": engine[0],
        "gymnasium_blackjack_v1_hands_per_second": anchor[0],
        "vector_steps_per_cpu_second": vector[1],
        "single_hands_per_cpu_second": single[1],
        "single_engine_hands_per_cpu_second": engine[1],
        "gymnasium_blackjack_v1_hands_per_cpu_second": anchor[1],
        "load_average_1m": os.getloadavg()[0],
        "cpus": os.cpu_count(),
        "machine": platform.platform(),
        "tables": args.tables,
    }
    if args.json:
        print(json.dumps(figures))
        return
    for name, value in figures.items():
        print(f"{name:>42}: {value:,.0f}" if isinstance(value, float) else f"{name:>42}: {value}")
    print("rerun: python benchmarks/agents_speed.py --json")


if __name__ == "__main__":
    main()
