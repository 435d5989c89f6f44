"""``boundless replay`` and ``boundless verify-shoe``."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from boundless.cli.rule_files import RulesOption, read_game
from boundless.core.errors import InvalidRuleSetError, RulesError
from boundless.core.rules import RuleSet
from boundless.core.scenario import run_scenario
from boundless.core.shoe import ShoeReveal
from boundless.core.strategy_chart import StrategyChart
from boundless.titles import load_game

EXIT_BAD_INPUT = 2


def _fail(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)
    raise typer.Exit(EXIT_BAD_INPUT)


def _read_json(path: Path) -> object:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        _fail(f"cannot read {path}: {error.strerror or error}")
    except UnicodeDecodeError:
        _fail(f"{path} is not UTF-8 text")
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        _fail(f"{path} is not valid JSON: {error.msg} at line {error.lineno} column {error.colno}")
    raise AssertionError("unreachable")


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
    scenario: Annotated[Path, typer.Argument(help="Scenario JSON file")],
    rules_file: RulesOption = None,
) -> None:
    """Play one round from a stacked shoe and print the result as JSON."""
    load = load_game if rules_file is None else _file_loader(rules_file)
    data = _read_json(scenario)
    try:
        result = run_scenario(data, load)
    except RulesError as error:
        _fail(" ".join(str(error).split()))
    print(json.dumps(result, indent=2))


def verify_shoe(
    reveal: Annotated[Path, typer.Argument(help="Revealed shoe JSON file")],
) -> None:
    """Check a revealed shoe (salt and card order) against its published commitment."""
    data = _read_json(reveal)
    try:
        shoe = ShoeReveal.from_json(data)
    except RulesError as error:
        _fail(str(error))
    if shoe.verify():
        print(f"ok: {len(shoe.cards)} cards match commitment {shoe.commitment}")
        return
    print(f"MISMATCH: the cards and salt do not hash to {shoe.commitment}", file=sys.stderr)
    raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("replay")(replay)
    app.command("verify-shoe")(verify_shoe)
