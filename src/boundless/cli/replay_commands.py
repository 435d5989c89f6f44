"""``boundless replay`` and ``boundless verify-shoe``."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from boundless.cli.cli_errors import fail
from boundless.cli.rule_files import RulesOption, read_game
from boundless.cli.scenario_pack import check_scenario, read_json, scenario_files
from boundless.cli.shoe_documents import ShoeDocumentError, reveal_fields
from boundless.core.errors import InvalidRuleSetError, RulesError
from boundless.core.rules import RuleSet
from boundless.core.scenario import run_scenario
from boundless.core.shoe import ShoeReveal
from boundless.core.strategy_chart import StrategyChart
from boundless.titles import load_game


def _read_json(path: Path) -> object:
    data, problem = read_json(path)
    if problem is not None:
        fail(f"{path}: {problem}")
    return data


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError as error:  # a name the system refuses (too long, ...)
        fail(f"{path}: {error.strerror or error}")


def _file_loader(rules_file: Path) -> Callable[[str], tuple[RuleSet, StrategyChart | None]]:
    """The scenario's title must be the one the file defines."""
    game = read_game(None, rules_file)

    def load(key: str) -> tuple[RuleSet, StrategyChart | None]:
        if key != game[0].key:
            raise InvalidRuleSetError(
                f"the scenario plays {key!r} but --rules {rules_file} defines {game[0].key!r}"
            )
        return game

    return load


def replay(
    scenarios: Annotated[
        list[Path],
        typer.Argument(
            help="Scenario JSON file(s), or folders of them (a scenario pack).",
            show_default=False,
        ),
    ],
    rules_file: RulesOption = None,
) -> None:
    """Play one round from a stacked shoe and print the result as JSON; check a scenario pack.

    One scenario file: its result as JSON. Several files, a folder, or a file with "expect":
    each is played and compared with what it expects, one line per difference, then
    "N passed, M failed" (exit status 1 if any failed). See docs/scenario-format.md.
    """
    load = load_game if rules_file is None else _file_loader(rules_file)
    for path in scenarios:
        if not _exists(path):
            fail(f"{path}: no such file or folder")
    if len(scenarios) == 1 and scenarios[0].is_file():
        data = _read_json(scenarios[0])
        if not (isinstance(data, dict) and "expect" in data):
            try:
                result = run_scenario(data, load)
            except RulesError as error:
                fail(" ".join(str(error).split()))
            print(json.dumps(result, indent=2))
            return
    _replay_pack(scenarios, load)


def _replay_pack(
    paths: list[Path], load: Callable[[str], tuple[RuleSet, StrategyChart | None]]
) -> None:
    files = scenario_files(paths)
    if not files:
        fail(f"no scenario files (*.json) in {', '.join(map(str, paths))}")
    failed = 0
    for path in files:
        verdict = check_scenario(path, lambda data: run_scenario(data, load), RulesError)
        if verdict.passed:
            print(f"ok    {path}")
            continue
        failed += 1
        for problem in verdict.problems:
            print(f"FAIL  {path}: {problem}")
    print(f"{len(files) - failed} passed, {failed} failed")
    if failed:
        raise typer.Exit(1)


def verify_shoe(
    reveal: Annotated[
        Path,
        typer.Argument(
            help="A shoe JSON file: a saved reveal, the REST shoe document "
            "(/api/v1/shoes/<table>/<n>) or its 'reveal', or the 'shoe_finished' notice."
        ),
    ],
    commitment: Annotated[
        str | None,
        typer.Option(
            help="The commitment published at the shuffle (hex); needed for a 'reveal' alone, "
            "and checked instead of the document's own when given."
        ),
    ] = None,
) -> None:
    """Check a revealed shoe (salt and card order) against its published commitment."""
    data = _read_json(reveal)
    try:
        shoe = ShoeReveal.from_json(reveal_fields(data, commitment))
    except (RulesError, ShoeDocumentError) as error:
        fail(f"{reveal}: {error}")
    if shoe.verify():
        print(f"ok: {len(shoe.cards)} cards match commitment {shoe.commitment}")
        return
    print(f"MISMATCH: the cards and salt do not hash to {shoe.commitment}", file=sys.stderr)
    raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("replay")(replay)
    app.command("verify-shoe")(verify_shoe)
