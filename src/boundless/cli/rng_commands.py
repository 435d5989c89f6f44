"""``boundless rng-test``: the statistical battery labs run on the production shuffle."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from boundless.math.run_limits import MAX_SHUFFLES, MIN_SHUFFLES

if TYPE_CHECKING:
    from boundless.math.rng_battery import BatteryReport

EXIT_FAILED = 1


def rng_test(
    shuffles: Annotated[
        int,
        typer.Option(
            min=MIN_SHUFFLES,
            max=MAX_SHUFFLES,
            help=f"Shoes to shuffle (at least {MIN_SHUFFLES:,}, so every chi-square cell "
            "expects 5 or more).",
        ),
    ] = 20_000,
    decks: Annotated[int, typer.Option(min=1, max=8, help="Decks in the shoe under test.")] = 6,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the report as JSON instead of a table.")
    ] = False,
) -> None:
    """Run the statistical battery labs use on the production shuffle; exit 1 if a test fails.

    Shuffles with the production source (the OS CSPRNG through the core's Fisher-Yates) and
    prints each test's statistic, p-value and verdict at 99%."""
    from rich.console import Console
    from rich.progress import TimeRemainingColumn

    from boundless.cli.progress import counted_progress
    from boundless.entropy import CryptoSource
    from boundless.math.rng_battery import run_battery

    with counted_progress("shuffling", TimeRemainingColumn()) as progress:
        task = progress.add_task("shuffles", total=shuffles)
        report = run_battery(
            CryptoSource(), shuffles, decks, lambda done: progress.update(task, completed=done)
        )
    if as_json:
        typer.echo(json.dumps(report.to_json(), indent=2))
    else:
        Console().print(_table(report))
    if not report.passed:
        raise typer.Exit(EXIT_FAILED)


def _table(report: BatteryReport) -> object:
    from rich.table import Table

    table = Table(
        title=f"RNG battery: {report.shuffles:,} shuffles of a {report.decks}-deck shoe "
        "(CryptoSource, Fisher-Yates)",
        caption=f"verdict at {1 - report.alpha:.0%}: fail when p < {report.alpha:g}",
    )
    for column in ("test", "statistic", "df", "p-value", "verdict"):
        table.add_column(column, justify="left" if column == "test" else "right", no_wrap=True)
    for result in report.results:
        table.add_row(
            result.name,
            f"{result.statistic:,.3f}",
            "" if result.degrees_of_freedom is None else f"{result.degrees_of_freedom:,}",
            f"{result.p_value:.4f}",
            "[green]pass[/]" if result.passed else "[red]FAIL[/]",
        )
    return table


def register(app: typer.Typer) -> None:
    app.command("rng-test")(rng_test)
