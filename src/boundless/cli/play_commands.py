"""``boundless play``: a title's shared table in the terminal, you and a few bots.

The table itself is :class:`~boundless.cli.table_driver.TableDriver` (no I/O); the screen and
keyboard are :class:`~boundless.cli.play_console.TerminalTable`; the bots are in
:mod:`boundless.cli.bots`. Nothing here branches on the title: it is a parameter.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from boundless.cli.bots import bot_seats, policy_label
from boundless.cli.cli_errors import fail
from boundless.cli.play_console import InputFn, TerminalTable
from boundless.cli.rule_files import RulesOption, read_game
from boundless.cli.table_driver import TableDriver
from boundless.cli.table_events import ShoeRetired, TableEvent
from boundless.cli.table_seats import Seat
from boundless.cli.title_words import strings_file, words_of
from boundless.core.amount_limits import MAX_AMOUNT
from boundless.core.errors import RulesError
from boundless.core.money import format_amount
from boundless.core.random_source import RandomSource, SeededSource
from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart
from boundless.entropy import CryptoSource
from boundless.titles import load_game, shipped_title_keys

HUMAN_ID = "you"
HUMAN_NAME = "you"
DEFAULT_TITLE = "boundless"


def run_game(
    rules: RuleSet,
    chart: StrategyChart | None,
    source: RandomSource,
    *,
    balance: int,
    bots: int,
    rounds: int | None,
    console: Console,
    input_fn: InputFn | None = None,
    reveal_dir: Path | None = None,
    redraw: bool = False,
) -> TableDriver:
    """Play until the player quits, runs out of coins, or ``rounds`` rounds are played.

    ``redraw``: redraw the table in place before each question instead of printing a log.
    """
    screen = TerminalTable(console, rules, HUMAN_ID, input_fn, redraw=redraw)
    screen.set_name(HUMAN_ID, HUMAN_NAME)

    def observe(event: TableEvent) -> None:
        screen(event)
        if reveal_dir is not None and isinstance(event, ShoeRetired):
            screen.say(_save_reveal(reveal_dir, event))

    human = Seat(HUMAN_ID, HUMAN_NAME, screen, balance, host=True)
    private = not rules.table.shared
    if private:
        bots = 0  # a private table has one player: you
    seats = [human, *bot_seats(bots, balance, side_bets=bool(rules.side_bets))]
    driver = TableDriver(rules, chart, source, seats, observer=observe)
    words = screen.words
    if not redraw:  # the redrawn screen shows the title's name at its top
        screen.rule(f"[bold]{rules.title.name}[/bold]")
    screen.say(
        f"Your {words.coins}: [bold]{format_amount(balance)}[/bold] · "
        f"main {words.bet} {format_amount(rules.limits.min_main_amount)}–"
        f"{format_amount(rules.limits.max_main_amount)} · type q (or Ctrl-D) to leave",
    )
    if private:
        screen.say(
            f"A private table: you play alone, on up to {rules.table.max_spots_per_player} "
            f"seat(s) numbered 1-{rules.table.spots} from your left.",
        )
    elif rules.table.spots > 1:
        screen.say(
            f"{rules.table.spots} shared spots: play up to {rules.table.max_spots_per_player} "
            "of them; everyone on a spot shares its cards.",
        )
    if len(seats) > 1:
        at_table = ", ".join(f"{seat.name} ({policy_label(seat)})" for seat in seats[1:])
        screen.say(f"At the table: {at_table}")
    screen.say(
        "[dim]Each step line shows the card drawn and who took it; in brackets, what everyone "
        "did (* = the autoplay rule, † = a coin fall-back).[/dim]",
    )
    played = 0
    try:
        while driver.open and (rounds is None or played < rounds):
            driver.play_round()
            played += 1
    except KeyboardInterrupt:
        if driver.round is not None and not driver.round.over:
            driver.round.cancel("interrupted")
            screen.say("Interrupted: the round in progress is void and its stakes returned.")
    driver.close()
    screen.refresh()
    change = human.balance - balance
    sign = "+" if change > 0 else ""
    console.rule()
    console.print(
        f"Final {words.coins}: [bold]{format_amount(human.balance)}[/bold] "
        f"({sign}{format_amount(change)} over {driver.rounds_played} round(s))",
    )
    return driver


def _save_reveal(folder: Path, event: ShoeRetired) -> str:
    path = folder / f"shoe-{event.shoe_number}-{event.reveal.commitment[:12]}.json"
    path.write_text(json.dumps(event.reveal.to_json()) + "\n", encoding="utf-8")
    return f"  saved to {path} (check it with: boundless verify-shoe {path})"


def play(
    title: Annotated[
        str | None,
        typer.Option(
            help=f"Title to play: {', '.join(shipped_title_keys())} (see `boundless titles`);"
            f" default {DEFAULT_TITLE}."
        ),
    ] = None,
    rules_file: RulesOption = None,
    balance: Annotated[
        int,
        typer.Option(
            min=1,
            max=MAX_AMOUNT,
            help=f"Starting coins in minor units (100000 = 1,000.00; at most {MAX_AMOUNT:,}).",
        ),
    ] = 100000,
    bots: Annotated[int, typer.Option(min=0, max=50, help="Bot players at the table.")] = 4,
    seed: Annotated[
        int | None,
        typer.Option(help="Seeded shuffle for a reproducible demo (default: cryptographic)."),
    ] = None,
    rounds: Annotated[int | None, typer.Option(min=1, help="Stop after this many rounds.")] = None,
    reveal_dir: Annotated[
        Path | None,
        typer.Option(help="Save each finished shoe's reveal here (for `boundless verify-shoe`)."),
    ] = None,
    log: Annotated[
        bool,
        typer.Option(
            "--log",
            help="Print a growing log instead of redrawing the table (always so off a terminal).",
        ),
    ] = False,
) -> None:
    """Play a title's table in the terminal: a shared table with bots, or a private one."""
    if rules_file is not None:
        rules, chart = read_game(title, rules_file)
    else:
        try:
            rules, chart = load_game(title or DEFAULT_TITLE)
        except RulesError as error:
            fail(f"--title {title!r}: {error}")
    if reveal_dir is not None:
        check_reveal_dir(reveal_dir)
    try:
        words_of(rules)
    except (OSError, ValueError, KeyError) as error:
        fail(f"cannot read the title words in {strings_file()}: {error}")
    source: RandomSource = SeededSource(seed) if seed is not None else CryptoSource()
    console = Console()
    run_game(
        rules,
        chart,
        source,
        balance=balance,
        bots=bots,
        rounds=rounds,
        console=console,
        reveal_dir=reveal_dir,
        redraw=console.is_terminal and not console.is_dumb_terminal and not log,
    )


def check_reveal_dir(folder: Path) -> None:
    """Create the reveal folder and prove it takes files now, not at the first reveal."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".boundless-write-check"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as error:
        fail(f"--reveal-dir {folder}: cannot write there ({error.strerror or error})")


def register(app: typer.Typer) -> None:
    app.command("play")(play)
