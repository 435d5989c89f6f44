"""``boundless simulate``: Monte-Carlo play of a title, each bet's return with a 95% interval."""

from __future__ import annotations

import json
import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from boundless.core.errors import RulesError
from boundless.math.sim_compare import ExactFigure, exact_figures, z_score
from boundless.math.sim_stats import MAIN, Z95
from boundless.math.simulation import SimulationResult, simulate
from boundless.titles import load_game

EXIT_BAD_INPUT = 2


class PolicyChoice(StrEnum):
    basic = "basic"
    autoplay = "autoplay"


def _fail(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)
    raise typer.Exit(EXIT_BAD_INPUT)


def _table(result: SimulationResult, name: str, exact: dict[str, ExactFigure]) -> Table:
    shoe = "a fresh shoe every round" if result.fresh_shoe else "the title's shoe"
    table = Table(
        title=f"{name}: {result.rounds:,} rounds, {result.spots} spot(s), policy "
        f"{result.policy}, {shoe}",
        caption=f"seed {result.seed}; {result.rounds_per_second:,.0f} rounds/s, "
        f"{result.workers} worker(s)",
    )
    columns = ["bet", "return", "± 95%", "rounds"]
    if exact:
        columns += ["exact", "z"]
    for column in columns:
        table.add_column(column, justify="left" if column == "bet" else "right")
    for key, item in result.estimates.items():
        row = [
            "main game" if key == MAIN else key,
            f"{item.value:.4%}",
            f"{Z95 * item.standard_error:.4%}",
            f"{item.rounds:,}",
        ]
        if exact:
            figure = exact.get(key)
            if figure is None:
                row += ["-", ""]
            else:
                row += [f"{figure.value:.4%}", f"{z_score(item, figure):+.2f}"]
        table.add_row(*row)
    return table


def simulate_command(
    title: Annotated[str, typer.Argument(help="Title key, e.g. boundless")],
    rounds: Annotated[int, typer.Option("--rounds", min=1, help="Rounds to play (at least)")] = (
        1_000_000
    ),
    policy: Annotated[
        PolicyChoice,
        typer.Option(help="basic: the title's chart; autoplay: its no-action policy"),
    ] = PolicyChoice.basic,
    seed: Annotated[
        int | None, typer.Option(min=0, help="Seed, 0 or more (default: fresh entropy)")
    ] = None,
    workers: Annotated[
        int, typer.Option(min=1, help="Worker processes (default: all cores)")
    ] = os.cpu_count() or 1,
    spots: Annotated[
        int | None, typer.Option(min=1, help="Occupied spots (default: all of the title's)")
    ] = None,
    fresh_shoe: Annotated[
        bool, typer.Option("--fresh-shoe", help="Reshuffle before every round (exact model)")
    ] = False,
    compare: Annotated[
        bool, typer.Option("--exact", help="Show the exact figures beside the simulated ones")
    ] = False,
    plot: Annotated[
        Path | None, typer.Option("--plot", help="Write a convergence plot (png, svg, pdf)")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object on stdout")] = False,
) -> None:
    """Monte-Carlo play of a title: its shoe, cut card, burn, side-bet rounds and policy.

    One position plays every spot; every side bet is staked at one unit on every spot in every
    round it is offered. Insurance and even money are never taken.
    """
    try:
        rules, chart = load_game(title)
    except RulesError as error:
        _fail(str(error))
        raise AssertionError("unreachable") from error
    if spots is not None and spots > rules.table.spots:
        _fail(f"{title} has {rules.table.spots} spot(s)")
    err = Console(stderr=True)
    with Progress(
        TextColumn(f"simulating {title}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
        disable=as_json and not err.is_terminal,
    ) as progress:
        task = progress.add_task("rounds", total=rounds)
        try:
            result = simulate(
                rules,
                chart,
                rounds,
                policy=policy.value,
                seed=seed,
                workers=workers,
                spots=spots,
                fresh_shoe=fresh_shoe,
                progress=lambda done: progress.update(task, completed=min(done, rounds)),
            )
        except ValueError as error:  # a request the title cannot play (no chart, spots)
            _fail(str(error))
            raise AssertionError("unreachable") from error
    exact: dict[str, ExactFigure] = {}
    if compare or plot is not None:
        with err.status("computing the exact figures", spinner="dots"):
            exact = exact_figures(rules, chart, policy.value)
    if plot is not None:
        from boundless.math.sim_plot import convergence_plot

        convergence_plot(result, exact, plot, rules.title.name)
        err.print(f"wrote {plot}")
    if as_json:
        payload = result.to_json()
        if compare:
            payload["exact"] = {key: figure.value for key, figure in exact.items()}
        print(json.dumps(payload))
        return
    Console().print(_table(result, rules.title.name, exact if compare else {}))
    half = Z95 * result.main.standard_error
    Console().print(
        f"Main game house edge {1 - result.main.value:.4%} ± {half:.4%} (95%), "
        f"standard deviation {result.main.standard_deviation:.4f} per initial unit."
    )


def register(app: typer.Typer) -> None:
    app.command("simulate")(simulate_command)
