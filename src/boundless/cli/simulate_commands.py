"""``boundless simulate``: Monte-Carlo play of a title, each bet's return with a 95% interval."""

from __future__ import annotations

import json
import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from boundless.cli.cli_errors import fail
from boundless.cli.progress import stderr_progress
from boundless.cli.rule_files import RulesOption, TitleArgument, read_game
from boundless.cli.words import PLOT_SUFFIXES, checked_output, counted, side_bet_name, write_failed
from boundless.core.rules import RuleSet
from boundless.math.run_limits import MAX_ROUNDS

if TYPE_CHECKING:  # the simulator (numba) loads only when the command runs
    from boundless.math.simulation import ExactFigure, SimulationResult

MAIN_GAME = "main game"


class PolicyChoice(StrEnum):
    basic = "basic"
    autoplay = "autoplay"


class BackendChoice(StrEnum):
    local = "local"
    ray = "ray"


def _table(result: SimulationResult, rules: RuleSet, exact: dict[str, ExactFigure]) -> Table:
    from boundless.math.simulation import MAIN, Z95, z_score

    shoe = "a fresh shoe every round" if result.fresh_shoe else "the title's shoe"
    table = Table(
        title=f"{rules.title.name}: {counted(result.rounds, 'round')}, "
        f"{counted(result.spots, 'spot')}, policy {result.policy}, {shoe}",
        caption=f"seed {result.seed}; {result.rounds_per_second:,.0f} rounds/s, "
        + (counted(result.workers, "worker") if result.backend == "local" else "Ray tasks"),
    )
    columns = ["bet", "return", "± 95%", "rounds"]
    if exact:
        columns += ["exact", "z"]
    for column in columns:
        table.add_column(column, justify="left" if column == "bet" else "right")
    for key, item in result.estimates.items():
        row = [
            MAIN_GAME if key == MAIN else side_bet_name(rules, key),
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


def progress_columns(key: str) -> tuple[ProgressColumn, ...]:
    """The progress line: rounds done of rounds asked, with thousands separators."""
    return (
        TextColumn(f"simulating {key}"),
        BarColumn(),
        TextColumn("{task.completed:,.0f}/{task.total:,.0f} rounds"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )


def simulate_command(
    title: TitleArgument = None,
    rules_file: RulesOption = None,
    rounds: Annotated[
        int, typer.Option("--rounds", min=1, max=MAX_ROUNDS, help="Rounds to play (at least)")
    ] = 1_000_000,
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
    backend: Annotated[
        BackendChoice,
        typer.Option(help="local: worker processes here; ray: tasks on a Ray cluster"),
    ] = BackendChoice.local,
    address: Annotated[
        str | None,
        typer.Option(help="Ray cluster to join (with --backend ray; default: a local one)"),
    ] = None,
) -> None:
    """Monte-Carlo play of a title: its shoe, cut card, burn, side-bet rounds and policy.

    One position plays every spot; every side bet is staked at one unit on every spot in every
    round it is offered. Insurance and even money are never taken.
    """
    if address is not None and backend is not BackendChoice.ray:
        fail("--address names a Ray cluster: give it with --backend ray")
    if plot is not None:  # before the work: the format comes from the name
        checked_output(plot, "--plot", PLOT_SUFFIXES)
    rules, chart = read_game(title, rules_file, need_chart=policy is PolicyChoice.basic)
    if spots is not None and spots > rules.table.spots:
        fail(f"{rules.key} has {counted(rules.table.spots, 'spot')}")
    from boundless.math.simulation import (
        MAIN,
        Z95,
        BackendUnavailableError,
        exact_figures,
        simulate,
    )

    with stderr_progress(*progress_columns(rules.key), quiet_off_terminal=as_json) as progress:
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
                backend=backend.value,
                address=address,
            )
        except (ValueError, BackendUnavailableError) as error:  # no chart, spots, no Ray
            fail(str(error))
    exact: dict[str, ExactFigure] = {}
    if compare or plot is not None:
        with Console(stderr=True).status("computing the exact figures", spinner="dots"):
            exact = exact_figures(rules, chart, policy.value)
    if plot is not None:
        from boundless.cli.convergence_plot import convergence_plot

        try:
            names = {key: side_bet_name(rules, key) for key in result.side_bets}
            convergence_plot(result, exact, plot, rules.title.name, {MAIN: MAIN_GAME, **names})
        except OSError as error:
            write_failed("--plot", plot, error)
        print(f"wrote {plot}", file=sys.stderr)  # not Rich: a long path must not wrap
    if as_json:
        payload = result.to_json()
        if compare:
            payload["exact"] = {key: figure.value for key, figure in exact.items()}
        print(json.dumps(payload))
        return
    Console().print(_table(result, rules, exact if compare else {}))
    half = Z95 * result.main.standard_error
    Console().print(
        f"Main game house edge {1 - result.main.value:.4%} ± {half:.4%} (95%), "
        f"standard deviation {result.main.standard_deviation:.4f} per initial unit."
    )


def register(app: typer.Typer) -> None:
    app.command("simulate")(simulate_command)
