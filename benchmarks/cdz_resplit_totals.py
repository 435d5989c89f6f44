"""The Wizard of Odds' resplit totals against both split plays of the optimal player.

Rerun: ``.venv/bin/python benchmarks/cdz_resplit_totals.py [--games 1,2] [--json]``

For each of the twelve published games (``WIZARD_RESPLIT_TOTALS`` in
``tests/math/test_main_game_published.py``: resplits to four hands, not aces), the optimal
expected value under ``post-split`` (the default) and ``cdz`` (CDZ-, resplits valued exactly
by the pattern method), each minus the Wizard's figure in units of 1e-6, and the seconds each
took. CDZ- with resplits takes a minute or two a game.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "math"))

from main_game_rules import classic, resplitting  # noqa: E402
from test_main_game_published import WIZARD_RESPLIT_TOTALS  # noqa: E402

from boundless.math.exact import SPLIT_PLAYS, main_game_return  # noqa: E402


def game_name(decks: int, h17: bool, das: bool, peek: tuple[int, ...]) -> str:
    name = f"{decks} deck{'s' if decks > 1 else ''} {'H17' if h17 else 'S17'}"
    name += " DAS" if das else ""
    return name + ("" if 10 in peek else ", no hole card")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", help="1-based game numbers, comma-separated (default: all)")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args()
    games = list(enumerate(WIZARD_RESPLIT_TOTALS, start=1))
    if args.games:
        wanted = {int(number) for number in args.games.split(",")}
        games = [(number, game) for number, game in games if number in wanted]
    rows = []
    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("games", total=len(games) * len(SPLIT_PLAYS))
        for number, (decks, h17, das, peek, wizard) in games:
            rules = resplitting(
                classic(decks, hits_soft_17=h17, double_after_split=das, peek_up_values=peek)
            )
            row: dict[str, object] = {"game": number, "name": game_name(decks, h17, das, peek)}
            row["wizard"] = wizard
            for play in SPLIT_PLAYS:
                started = time.process_time()
                value = main_game_return(rules, split_play=play).expected_value
                row[play] = value
                row[f"{play} gap e-6"] = round((value - wizard) * 1e6, 2)
                row[f"{play} seconds"] = round(time.process_time() - started, 1)
                progress.advance(task)
            rows.append(row)
    if args.json:
        print(json.dumps(rows))
        return
    table = Table(title="Optimal total minus the Wizard's, units of 1e-6 (CPU seconds)")
    for column in ("game", "Wizard", *SPLIT_PLAYS):
        table.add_column(column, justify="right")
    for row in rows:
        cells = [
            f"{row[f'{play} gap e-6']:+.2f} ({row[f'{play} seconds']} s)" for play in SPLIT_PLAYS
        ]
        table.add_row(str(row["name"]), str(row["wizard"]), *cells)
    Console().print(table)


if __name__ == "__main__":
    main()
