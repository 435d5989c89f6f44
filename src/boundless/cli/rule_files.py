"""A command's title: a shipped key, or ``--rules FILE.toml`` (any rule file, ``extends`` allowed).

Every command that plays or analyses a title reads it here, so they all take the same options
and answer a bad file the same way: one line naming the file, the field and the problem, exit 2.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from boundless.cli.cli_errors import fail
from boundless.core.errors import RulesError
from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart
from boundless.titles import SourceFile, load_game, read_rule_file, shipped_title_files

if TYPE_CHECKING:
    from boundless.server.titles import TitleCatalog

Game = tuple[RuleSet, StrategyChart | None]

RulesOption = Annotated[
    Path | None,
    typer.Option(
        "--rules",
        help="Rule-set file (TOML) instead of a shipped title; it may say "
        'extends = "<title>" and give only what differs.',
    ),
]
TitleArgument = Annotated[
    str | None, typer.Argument(help="Title key, e.g. boundless (or give --rules FILE)")
]


def read_game(
    title: str | None,
    rules_file: Path | None,
    *,
    need_chart: bool = False,
    derive_chart: bool = True,
) -> Game:
    """The title's rules and chart; a chart the rules need (or ``need_chart``) is derived
    in memory when none ships with them, unless ``derive_chart`` is false."""
    game, _ = _read(title, rules_file, need_chart, derive_chart, shipped_files=False)
    return game


def read_game_files(
    title: str | None,
    rules_file: Path | None,
    *,
    need_chart: bool = False,
    derive_chart: bool = True,
) -> tuple[Game, tuple[SourceFile, ...]]:
    """:func:`read_game` with the files the game was read from (``boundless.titles``)."""
    return _read(title, rules_file, need_chart, derive_chart, shipped_files=True)


def _read(
    title: str | None,
    rules_file: Path | None,
    need_chart: bool,
    derive_chart: bool,
    *,
    shipped_files: bool,
) -> tuple[Game, tuple[SourceFile, ...]]:
    """The game, and the files it was read from: a rule file's come with reading it; a
    shipped title's are read again (a second parse), so only where ``shipped_files``."""
    if title is not None and rules_file is not None:
        fail(f"give a title or --rules, not both (got {title!r} and --rules {rules_file})")
    try:
        if rules_file is not None:
            rules, chart, files = read_rule_file(rules_file)
        elif title is not None:
            rules, chart = load_game(title)
            files = shipped_title_files(title) if shipped_files else ()
        else:
            fail("name a title (e.g. boundless) or give --rules FILE.toml")
    except RulesError as error:
        fail(str(error))
    if chart is None and derive_chart and (need_chart or rules.needs_strategy_chart):
        from boundless.math.strategy import with_chart

        with Console(stderr=True).status(
            f"Deriving the basic strategy of {rules.key}", spinner="dots"
        ):
            chart = with_chart(rules, chart, always=True)
    return (rules, chart), files


def titles_catalog(folder: Path | None) -> TitleCatalog | None:
    """The shipped titles plus ``folder``'s rule files, or ``None`` for the shipped ones only."""
    if folder is None:
        return None
    from boundless.server.titles import TitleCatalog

    try:
        return TitleCatalog.shipped().with_folder(folder)
    except RulesError as error:
        fail(str(error))
