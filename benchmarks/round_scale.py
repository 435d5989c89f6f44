"""One shared round with N bot positions, from bets to settlement: seconds and peak memory.

    python benchmarks/round_scale.py                         # 1k, 10k, 100k, 1M (a process each)
    python benchmarks/round_scale.py --positions 100000 --json
    python benchmarks/round_scale.py --title boundless --seeds 5

Bots are spread over four decision styles (silent: the title's autoplay; hit to 17; a
doubler/splitter that also insures; always stand), side bets (a third bet some, a tenth only
side bets) and balances (some too short to cover a double, which triggers the coin fall-back).
Each size runs ``--seeds`` rounds on different shuffles and reports the slowest. Peak memory
is the process's maximum resident set size, interpreter and libraries included.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from boundless.core.errors import InvalidRuleSetError
from boundless.core.random_source import SeededSource
from boundless.core.round import DECISIONS, INSURANCE, SETTLED, Action, SharedRound
from boundless.core.round.paths import DecisionContext, HandStatus, PathState, legal_actions
from boundless.core.shoe import Shoe
from boundless.titles import load_game

SIZES = (1_000, 10_000, 100_000, 1_000_000)
SILENT, HIT_TO_17, AGGRESSIVE, STANDER = range(4)


def bot_action(style: int, path: PathState, context: DecisionContext, rich: bool) -> int:
    """What a bot of ``style`` decides for the hand in play (-1: says nothing). ``rich``:
    its coins cover a double or split (a bot only presses buttons it can pay for)."""
    legal = legal_actions(path, context)
    if not rich:
        legal = legal - {Action.DOUBLE, Action.SPLIT}
    total = path.hand.total
    if style == SILENT:
        return -1
    if style == STANDER:
        choice = Action.STAND
    elif style == HIT_TO_17:
        choice = Action.HIT if total < 17 else Action.STAND
    elif Action.SPLIT in legal and path.hand.cards[0].value in (1, 8):
        choice = Action.SPLIT
    elif Action.DOUBLE in legal and total in (9, 10, 11):
        choice = Action.DOUBLE
    else:
        choice = Action.HIT if total < 15 else Action.STAND
    if choice not in legal:
        # A pair that may only be split (or declined with Surrender 20%) in split-only titles.
        choice = next(
            (option for option in (Action.SPLIT, Action.SURRENDER20) if option in legal), -1
        )
    return int(choice)


def make_bets(
    count: int, rules_spots: int, side_keys: list[str], seed: int
) -> tuple[list[str], np.ndarray, np.ndarray, dict[str, np.ndarray], np.ndarray]:
    rng = np.random.default_rng(seed)
    player_ids = [f"bot{index}" for index in range(count)]
    spots = rng.integers(1, rules_spots + 1, size=count)
    main = rng.choice(np.array([100, 500, 1000, 5000]), size=count)
    side_only = rng.random(count) < 0.1
    main[side_only] = 0
    sides = {key: np.where(rng.random(count) < 0.33, 100, 0) for key in side_keys}
    if side_keys:
        sides[side_keys[0]][side_only] = 100
    else:
        main[side_only] = 100
    balances = rng.choice(np.array([1_000, 20_000, 1_000_000]), size=count)
    balances = np.maximum(balances, main + sum(sides.values(), np.zeros(count, dtype=np.int64)))
    return player_ids, spots, main, sides, balances


def play_round(title: str, count: int, seed: int) -> dict[str, float]:
    rules, chart = load_game(title)
    player_ids, spots, main, sides, balances = make_bets(
        count, rules.table.spots, [bet.key for bet in rules.side_bets if bet.max_round], seed
    )
    styles = np.arange(count) % 4
    started = time.perf_counter()
    round_ = SharedRound(
        rules, chart=chart, cards=Shoe.shuffled(rules.shoe.decks, 0.75, SeededSource(seed))
    )
    round_.place_bets(player_ids, spots, main, sides, balances)
    round_.deal()
    if round_.phase == INSURANCE:
        seated = np.flatnonzero(main > 0)
        insurers = seated[styles[seated] == AGGRESSIVE]
        if rules.insurance.blackjack_offer == "even_money":
            # A blackjack is offered even money, not insurance: those bots say nothing.
            states = [round_.path_state(node) for node in range(round_.path_count())]
            naturals = [
                bool(path.hands) and path.hands[0].status == HandStatus.BLACKJACK for path in states
            ]
            insurers = insurers[~np.array(naturals, dtype=np.bool_)[round_.path_nodes(insurers)]]
        cost = rules.insurance.cost.of_array(round_.main_stakes(insurers))
        round_.take_insurance_many(insurers[round_.free_coins_of(insurers) >= cost])
        round_.close_insurance()
    steps = 0
    while round_.phase == DECISIONS:
        waiting = round_.positions_awaiting_decision()
        if len(waiting):
            context = round_.context()
            # Every hand here costs one main bet to double or split.
            rich = round_.free_coins_of(waiting) >= round_.main_stakes(waiting)
            key = (round_.path_nodes(waiting) * 4 + styles[waiting]) * 2 + rich
            unique_keys, inverse = np.unique(key, return_inverse=True)
            per_key = np.array(
                [
                    bot_action(k // 2 % 4, round_.path_state(k // 8), context, bool(k % 2))
                    for k in unique_keys.tolist()
                ],
                dtype=np.int64,
            )
            actions = per_key[inverse.reshape(-1)]
            speaking = actions >= 0
            round_.decide_many(waiting[speaking], actions[speaking])
        round_.close_step()
        steps += 1
    round_.run_to_end()
    seconds = time.perf_counter() - started
    assert round_.phase == SETTLED
    return {"seconds": seconds, "steps": steps, "paths": round_.path_count()}


def run_one(title: str, count: int, seeds: int) -> dict[str, object]:
    slowest = max(
        (play_round(title, count, seed) for seed in range(seeds)),
        key=lambda result: result["seconds"],
    )
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "positions": count,
        "seconds": round(slowest["seconds"], 4),
        "peak_mib": round(peak_mib, 1),
        "title": title,
        "steps": slowest["steps"],
        "paths": slowest["paths"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--title", default="boundless")
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    try:
        rules = load_game(args.title)[0]
    except InvalidRuleSetError as error:
        parser.error(str(error))
    if not rules.table.shared:
        # N bots at one table need a shared one: a private table seats its one owner.
        parser.error(f"title {args.title!r} deals private tables; choose a shared title")
    if args.positions:
        result = run_one(args.title, args.positions, args.seeds)
        keys = ("positions", "seconds", "peak_mib") if args.json else tuple(result)
        print(json.dumps({key: result[key] for key in keys}))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"One {args.title} round, bets to settlement (slowest of {args.seeds})")
    for column in ("positions", "seconds", "peak MiB", "steps", "distinct paths"):
        table.add_column(column, justify="right")
    for size in SIZES:
        command = [
            sys.executable,
            str(Path(__file__)),
            "--positions",
            str(size),
            "--title",
            args.title,
            "--seeds",
            str(args.seeds),
        ]
        output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        result = json.loads(output)
        table.add_row(
            f"{size:,}",
            f"{result['seconds']:.3f}",
            f"{result['peak_mib']:.0f}",
            str(result["steps"]),
            str(result["paths"]),
        )
    Console().print(table)
    print(f"rerun: python {Path(__file__).name} [--positions N --json] [--title T]")


if __name__ == "__main__":
    main()
