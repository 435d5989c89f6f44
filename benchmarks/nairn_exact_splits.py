"""Exact splitting with resplits against all of J. A. Nairn's single-deck exact split values.

Rerun: ``.venv/bin/python benchmarks/nairn_exact_splits.py [--up 6] [--pair 8] [--out x.csv]``

Each published value (``tests/math/data/nairn_one_deck_exact_splits.csv``, from
http://www.geditcom.com/Blackjack/OneDeck.html, also ``webtables/OneDeck.html`` of
https://github.com/nairnj/Blackjack) is recomputed under his fixed basic strategy by
:func:`boundless.math.exact.split_patterns.pattern_split_value` (pair-card states, a fraction of
a second a value) or, with ``--every-card``,
:func:`boundless.math.exact.split_exact.exact_split_value` (the same values to 1e-16, every card
followed: minutes for the pairs that hit most against an ace or a ten), and
the difference is printed beside half a unit of the printed last digit (he prints six
significant digits). Values that must be equal to one already computed are reused: doubling
rules that give the same two-card decisions, and more hands than the shoe's pair cards allow.
Prints the agreement summary and the CPU time.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "math"))

from nairn_basic_strategy import NairnSplitStrategy  # noqa: E402

from boundless.math.exact.split_exact import (  # noqa: E402
    ExactSplitRules,
    exact_split_value,
    single_deck_shoe,
)
from boundless.math.exact.split_patterns import pattern_split_value  # noqa: E402

PUBLISHED = ROOT / "tests" / "math" / "data" / "nairn_one_deck_exact_splits.csv"


def half_unit(printed: str) -> float:
    """Half a unit in the sixth significant digit of a printed value."""
    value = abs(float(printed))
    return 0.5 * 10 ** (math.floor(math.log10(value)) - 5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--up", type=int, action="append", help="only these up cards")
    parser.add_argument("--pair", type=int, action="append", help="only these pairs")
    parser.add_argument("--out", type=Path, help="write every comparison as CSV")
    parser.add_argument(
        "--every-card",
        action="store_true",
        help="compute with exact_split_value (every card followed; minutes for some pairs)",
    )
    args = parser.parse_args()
    with PUBLISHED.open() as handle:
        rows = [
            row
            for row in csv.DictReader(handle)
            if (not args.up or int(row["up"]) in args.up)
            and (not args.pair or int(row["pair"]) in args.pair)
        ]
    shoe = single_deck_shoe()
    done: dict[tuple[object, ...], float] = {}
    results = []
    started = time.process_time()
    for row in rows:
        up, pair, hands = int(row["up"]), int(row["pair"]), int(row["max_hands"])
        h17 = row["dealer_hits_soft_17"] == "1"
        strategy = NairnSplitStrategy(up, h17, row["doubling"])
        left = shoe[pair - 1] - 2 - (up == pair)
        decisions = tuple(strategy((pair, card)) for card in range(1, 11))
        key = (up, h17, pair, min(hands, 2 + left), decisions if pair != 1 else ())
        if key not in done:
            rules = ExactSplitRules(shoe, up, h17, hands)
            exact = exact_split_value if args.every_card else pattern_split_value
            done[key] = exact(rules, pair, strategy)
        ours = done[key]
        gap = ours - float(row["value"])
        results.append((row, ours, gap, half_unit(row["value"])))
        print(
            f"up {up} {'H17' if h17 else 'S17'} {pair},{pair} hands {hands} "
            f"{row['doubling']:>5}: Nairn {row['value']:>11} ours {ours:+.8f} "
            f"gap {gap:+.1e} (half unit {half_unit(row['value']):.0e})",
            flush=True,
        )
    seconds = time.process_time() - started
    within = sum(abs(gap) <= half for _, _, gap, half in results)
    print(f"{len(results)} values ({len(done)} computed) in {seconds:.0f} CPU seconds")
    print(
        f"within half a printed unit: {within}; largest gap {max(abs(r[2]) for r in results):.2e}"
    )
    for hands in (2, 3, 4):
        gaps = [abs(r[2]) for r in results if int(r[0]["max_hands"]) == hands]
        if gaps:
            print(f"  {hands} hands: largest gap {max(gaps):.2e} over {len(gaps)} values")
    if args.out:
        with args.out.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow([*rows[0].keys(), "ours", "gap", "half_unit"])
            for row, ours, gap, half in results:
                writer.writerow([*row.values(), f"{ours:.10f}", f"{gap:.3e}", f"{half:.0e}"])


if __name__ == "__main__":
    main()
