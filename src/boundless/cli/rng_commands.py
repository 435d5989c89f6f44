"""``boundless rng-test``: the statistical battery labs run on the production shuffle."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from boundless.cli.cli_errors import fail
from boundless.math.run_limits import MAX_SHUFFLES, MIN_SHUFFLES

if TYPE_CHECKING:
    from boundless.cli.dieharder import DieharderRun
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
    dieharder: Annotated[
        bool,
        typer.Option(
            "--dieharder",
            help="Also stream the source into Debian's dieharder (skipped where not installed).",
        ),
    ] = False,
    dieharder_test: Annotated[
        list[int] | None,
        typer.Option(
            "--dieharder-test",
            min=0,
            max=209,
            help="A dieharder test number (-d); repeat for more; default: every test (-a, hours).",
        ),
    ] = None,
    psamples: Annotated[
        int | None,
        typer.Option(min=1, max=100_000, help="dieharder's p-samples per test (-p)."),
    ] = None,
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
    run = _dieharder(list(dieharder_test or []), psamples) if dieharder else None
    if as_json:
        body = report.to_json()
        if run is not None:
            body["dieharder"] = _dieharder_json(run)
        typer.echo(json.dumps(body, indent=2))
    else:
        Console().print(_table(report))
        if run is not None:
            Console().print(_dieharder_table(run))
    if not report.passed or (run is not None and not run.passed):
        raise typer.Exit(EXIT_FAILED)


def _dieharder(tests: list[int], psamples: int | None) -> DieharderRun | None:
    """dieharder on the production source, or None (one line said why) where not installed."""
    from boundless.cli.dieharder import dieharder_path, run_dieharder
    from boundless.entropy import CryptoSource

    executable = dieharder_path()
    if executable is None:
        typer.echo(
            "dieharder: not installed (Debian: apt-get install dieharder); skipped", err=True
        )
        return None
    try:
        return run_dieharder(executable, CryptoSource(), tests, psamples)
    except RuntimeError as error:
        fail(str(error))


def _dieharder_json(run: DieharderRun) -> dict[str, object]:
    return {
        "passed": run.passed,
        "bytes_streamed": run.bytes_streamed,
        "uniformity_p": run.uniformity_p,
        "results": [
            {
                "test": r.test,
                "ntup": r.ntup,
                "tsamples": r.tsamples,
                "psamples": r.psamples,
                "p_value": r.p_value,
                "verdict": r.verdict,
            }
            for r in run.results
        ],
    }


def _dieharder_table(run: DieharderRun) -> object:
    from rich.table import Table

    uniform = (
        ""
        if run.uniformity_p is None
        else f"; KS uniformity of the p-values: p = {run.uniformity_p:.4f}"
    )
    table = Table(
        title=f"dieharder on CryptoSource ({run.bytes_streamed:,} bytes streamed)",
        caption=f"dieharder's own verdicts (WEAK is not a failure){uniform}",
    )
    for column in ("test", "ntup", "tsamples", "psamples", "p-value", "verdict"):
        table.add_column(column, justify="left" if column == "test" else "right", no_wrap=True)
    colours = {"PASSED": "green", "WEAK": "yellow", "FAILED": "red"}
    for r in run.results:
        table.add_row(
            r.test,
            str(r.ntup),
            f"{r.tsamples:,}",
            f"{r.psamples:,}",
            f"{r.p_value:.4f}",
            f"[{colours[r.verdict]}]{r.verdict}[/]",
        )
    return table


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
