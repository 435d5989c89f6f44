"""``boundless strategy``, ``rtp`` and ``warm-up``: the exact math of a title, on the terminal."""

from __future__ import annotations

import importlib
import io
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from boundless.cli.chart_render import chart_csv, chart_html, chart_note, chart_png, chart_rich
from boundless.cli.cli_errors import fail
from boundless.cli.rule_files import RulesOption, TitleArgument, read_game
from boundless.cli.words import checked_output, counted, side_bet_name, write_failed
from boundless.core.rules import RuleSet

if TYPE_CHECKING:
    from boundless.math.exact import OutcomeDistribution

SIDE_BET_MODULE = "boundless.math.side_bets"
WARM_UP_TITLE = "boundless"


class ChartFormat(StrEnum):
    text = "text"
    csv = "csv"
    html = "html"
    png = "png"


class SplitPlayChoice(StrEnum):
    """``boundless.math.exact.SPLIT_PLAYS`` (kept here so the CLI starts without numba)."""

    post_split = "post-split"
    cdz = "cdz"


SplitPlayOption = Annotated[
    SplitPlayChoice,
    typer.Option(
        "--split-play",
        help="How the optimal player decides split hands: post-split (for the shoe the hand "
        "sees) or cdz (CDZ-: as the unsplit hand of its cards would); basic is unchanged",
    ),
]


@contextmanager
def _working(message: str) -> Iterator[None]:
    """A spinner on stderr while the exact computation runs (its first run compiles)."""
    console = Console(stderr=True)
    with console.status(message, spinner="dots"):
        yield


def side_bet_returns_of(rules: RuleSet) -> dict[str, float]:
    """Each side bet's return per unit staked, from ``boundless.math.side_bets``.

    That module provides ``side_bet_returns(rules) -> dict[str, report]`` whose reports carry
    ``rtp``; a rule set without side bets, or a build without the module, gives ``{}``.
    """
    try:
        module = importlib.import_module(SIDE_BET_MODULE)
    except ModuleNotFoundError:
        return {}
    compute: Callable[[RuleSet], dict[str, Any]] = module.side_bet_returns
    return {key: float(report.rtp) for key, report in compute(rules).items()}


def strategy(
    title: TitleArgument = None,
    rules_file: RulesOption = None,
    output_format: Annotated[
        ChartFormat, typer.Option("--format", help="text, csv, html or png")
    ] = ChartFormat.text,
    output: Annotated[Path | None, typer.Option("--output", help="Write to this file")] = None,
) -> None:
    """The title's basic-strategy chart: hard and soft totals and pairs by dealer up card."""
    if output is not None:  # before the work: a bad path is a one-line error, not a traceback
        png = output_format is ChartFormat.png
        checked_output(output, "--output", (".png", "") if png else None)
    rules, chart = read_game(title, rules_file, need_chart=True)
    assert chart is not None
    name = rules.title.name
    note = chart_note(rules)
    if output_format is ChartFormat.png:
        target = output or Path(f"{rules.key}-strategy.png")
        try:
            chart_png(chart, name, target, note)
        except OSError as error:
            write_failed("--output", target, error)
        print(f"wrote {target}")
        return
    if output_format is ChartFormat.text:
        if output is None:
            Console().print(chart_rich(chart, name, note))
            return
        console = Console(record=True, file=io.StringIO(), width=100)
        console.print(chart_rich(chart, name, note))
        text = console.export_text()
    elif output_format is ChartFormat.csv:
        text = chart_csv(chart)
    else:
        text = chart_html(chart, name, note)
    if output is None:
        sys.stdout.write(text)
    else:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as error:
            write_failed("--output", output, error)
        print(f"wrote {output}")


def _warn_player_edge(rules: RuleSet, optimal: float, basic: float) -> None:
    """On stderr, so ``--json`` stays one object on stdout."""
    if optimal > 1:
        Console(stderr=True).print(
            f"[bold yellow]warning:[/] these rules give the player the edge: the exact return "
            f"is {optimal:.2%} with optimal play and {basic:.2%} with the basic chart "
            f"({rules.key} pays out more than it takes in)."
        )


def _outcome_table(outcomes: OutcomeDistribution) -> Table:
    table = Table(title="Round results (basic chart, exact)")
    table.add_column("result", justify="right")
    table.add_column("chance", justify="right")
    for value, chance in outcomes.chances.items():
        table.add_row(f"{float(value):+g}" if value else "0", f"{chance:.6%}")
    return table


def rtp(
    title: TitleArgument = None,
    rules_file: RulesOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object on stdout")] = False,
    split_play: SplitPlayOption = SplitPlayChoice.post_split,
) -> None:
    """Exact return of the title's main game (optimal and basic strategy) and its side bets."""
    from boundless.math.exact import analyse_main_game, insurance_return, outcome_distribution

    rules, _ = read_game(title, rules_file, derive_chart=False)
    with _working(f"Computing the exact returns of {rules.key}"):
        analysis = analyse_main_game(rules, split_play=split_play.value)
        outcomes = outcome_distribution(rules, analysis.chart)
        insurance = insurance_return(rules)
        side_bets = side_bet_returns_of(rules)
    documented = rules.title.documented_rtp
    _warn_player_edge(rules, analysis.optimal.return_to_player, analysis.basic.return_to_player)
    if as_json:
        payload = {
            "title": rules.key,
            "main": {
                "optimal": analysis.optimal.return_to_player,
                "basic": analysis.basic.return_to_player,
                "stdev": analysis.basic.standard_deviation,
                "stdev_optimal": analysis.optimal.standard_deviation,
                "house_edge_optimal": analysis.optimal.house_edge,
                "house_edge_basic": analysis.basic.house_edge,
                "split_play": split_play.value,
                "documented": documented,
                "decks": rules.shoe.decks,
            },
            "outcomes": outcomes.to_json(),
            "win_push_lose": {"win": outcomes.win, "push": outcomes.push, "lose": outcomes.lose},
            "side_bets": side_bets,
            "insurance": insurance.to_json() if rules.insurance.offered else None,
        }
        print(json.dumps(payload))
        return
    console = Console()
    decks = counted(rules.shoe.decks, "deck")
    table = Table(title=f"{rules.title.name}: main game, {decks}, exact")
    for column in ("strategy", "return", "house edge", "stdev / round", "documented"):
        table.add_column(column, justify="right")
    claim = f"{documented:.2%}" if documented is not None else "-"
    for report in (analysis.optimal, analysis.basic):
        table.add_row(
            report.strategy,
            f"{report.return_to_player:.6%}",
            f"{report.house_edge:.4%}",
            f"{report.standard_deviation:.4f}",
            claim if report.strategy == "optimal" else "",
        )
    console.print(table)
    console.print(f"Optimal split hands: {split_play.value} (--split-play; see docs/math.md).")
    if documented is not None:
        gap = analysis.optimal.return_to_player - documented
        console.print(
            f"Exact optimal return minus the documented {documented:.2%}: {gap:+.4%} "
            "(see docs/math.md)."
        )
    console.print(_outcome_table(outcomes))
    console.print(
        f"Net result per initial unit: win {outcomes.win:.4%}, push {outcomes.push:.4%}, "
        f"lose {outcomes.lose:.4%} (a surrender counts as a loss)."
    )
    if rules.insurance.offered:
        console.print(
            f"Insurance returns {float(insurance.insurance_return):.4%} per unit insured "
            f"(house edge {float(insurance.insurance_house_edge):.2%}); not in the main figure."
        )
    if side_bets:
        bets = Table(title="Side bets (exact)")
        bets.add_column("bet")
        bets.add_column("return", justify="right")
        for key, value in side_bets.items():
            bets.add_row(side_bet_name(rules, key), f"{value:.6%}")
        console.print(bets)


def warm_up(
    title: TitleArgument = None,
    rules_file: RulesOption = None,
) -> None:
    """Compile the exact-math kernels once, so the next rtp, strategy or report starts warm."""
    import os
    import subprocess
    from time import perf_counter

    from boundless.math.kernel_cache import cache_root
    from boundless.math.kernel_pack import PACK_ENV

    if title is None and rules_file is None:
        title = WARM_UP_TITLE  # any title compiles the same kernels
    rules, _ = read_game(title, rules_file, derive_chart=False)
    # In a process of its own: this one may already run the shipped generic code
    # (boundless.math.kernel_pack), and the point is code for this machine's CPU.
    env = {**os.environ, PACK_ENV: "off"}
    env.pop("NUMBA_CPU_NAME", None)
    started = perf_counter()
    with _working(f"Compiling the exact-math kernels on {rules.key}"):
        done = subprocess.run([sys.executable, "-m", "boundless.math.kernel_warm"], env=env)
    if done.returncode != 0:
        fail(
            f"compiling the kernels failed (exit status {done.returncode}; its error is above)",
            code=1,
        )
    print(f"kernels ready in {perf_counter() - started:.1f} s; cached under {cache_root()}")


def register(app: typer.Typer) -> None:
    app.command("strategy")(strategy)
    app.command("rtp")(rtp)
    app.command("warm-up")(warm_up)
