"""``boundless report``: compute every figure of a title and write the certification report."""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import os
import platform
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import Progress, TextColumn, TimeElapsedColumn

from boundless.cli.cli_errors import fail
from boundless.cli.jurisdiction_options import JurisdictionFile, JurisdictionKey, chosen_profile
from boundless.cli.progress import counted_progress
from boundless.cli.rule_files import RulesOption, TitleArgument, read_game_files
from boundless.cli.words import checked_output, write_whole
from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart
from boundless.math.run_limits import MAX_ROUNDS, MAX_SHUFFLES, MIN_SHUFFLES

if TYPE_CHECKING:
    from boundless.cli.report.sections import ExactFigures, SimulationFigures
    from boundless.math.rng_battery import BatteryReport

SUFFIXES = (".html", ".pdf")
DEFAULT_ROUNDS = 1_000_000
DEFAULT_SHUFFLES = 5_000


def exact_figures_of(rules: RuleSet) -> ExactFigures:
    """The figures ``boundless rtp --json`` prints, from the same functions."""
    from boundless.cli.math_commands import side_bet_returns_of
    from boundless.cli.report.sections import ExactFigures
    from boundless.math.exact import (
        analyse_main_game,
        insurance_return,
        main_game_return,
        outcome_distribution,
    )

    analysis = analyse_main_game(rules)
    cdz = main_game_return(rules, "optimal", chart=analysis.chart, split_play="cdz")
    outcomes = outcome_distribution(rules, analysis.chart)
    insurance = insurance_return(rules)
    return ExactFigures(
        optimal=analysis.optimal.return_to_player,
        optimal_cdz=cdz.return_to_player,
        basic=analysis.basic.return_to_player,
        stdev=analysis.basic.standard_deviation,
        stdev_optimal=analysis.optimal.standard_deviation,
        outcomes={str(key): value for key, value in outcomes.to_json().items()},
        win=outcomes.win,
        push=outcomes.push,
        lose=outcomes.lose,
        insurance=float(insurance.insurance_return) if rules.insurance.offered else None,
        side_bets=side_bet_returns_of(rules),
    )


def simulation_figures_of(
    rules: RuleSet, chart: StrategyChart, rounds: int, seed: int | None, progress: Progress
) -> SimulationFigures:
    from boundless.cli.report.sections import SimulatedBet, SimulationFigures
    from boundless.math.simulation import exact_figures, simulate

    task = progress.add_task("simulating", total=rounds)
    result = simulate(
        rules,
        chart,
        rounds,
        seed=seed,
        workers=os.cpu_count() or 1,
        fresh_shoe=True,
        progress=lambda done: progress.update(task, completed=min(done, rounds)),
    )
    exact = exact_figures(rules, chart, "basic")
    bets = tuple(
        SimulatedBet(
            key=key,
            value=item.value,
            low=item.ci_low,
            high=item.ci_high,
            rounds=item.rounds,
            exact=exact[key].value if key in exact else None,
        )
        for key, item in result.estimates.items()
    )
    return SimulationFigures(result.rounds, result.spots, result.seed, bets)


def battery_of(decks: int, shuffles: int, progress: Progress) -> BatteryReport:
    from boundless.entropy import CryptoSource
    from boundless.math.rng_battery import run_battery

    task = progress.add_task("RNG battery (shuffles)", total=shuffles)
    return run_battery(
        CryptoSource(), shuffles, decks, lambda done: progress.update(task, completed=done)
    )


def chart_picture(rules: RuleSet, chart: StrategyChart) -> bytes:
    from boundless.cli.chart_render import chart_note, chart_png

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "chart.png"
        chart_png(chart, rules.title.name, path, chart_note(rules))
        return path.read_bytes()


def report(
    out: Annotated[
        Path,
        typer.Option("--out", help="Report file: .html, or .pdf where WeasyPrint is installed"),
    ],
    rounds: Annotated[
        int,
        typer.Option(
            "--rounds", min=1, max=MAX_ROUNDS, help="Rounds for the simulation cross-check"
        ),
    ] = DEFAULT_ROUNDS,
    shuffles: Annotated[
        int,
        typer.Option(
            "--shuffles", min=MIN_SHUFFLES, max=MAX_SHUFFLES, help="Shoes for the RNG battery"
        ),
    ] = DEFAULT_SHUFFLES,
    seed: Annotated[
        int | None, typer.Option(min=0, help="Simulation seed (default: fresh entropy)")
    ] = None,
    title: TitleArgument = None,
    rules_file: RulesOption = None,
    jurisdiction: JurisdictionKey = "none",
    jurisdiction_file: JurisdictionFile = None,
) -> None:
    """Write a certification report of a title: rules, exact returns, chart, simulation, RNG.

    One self-contained HTML file (or PDF) a lab or regulator can file: the rules in words, the
    exact returns of the main game, side bets and insurance, the outcome distribution, the
    strategy chart, a simulation cross-check with 95% intervals, the RNG battery, the shoe
    commitment scheme, the chosen jurisdiction's player-protection requirements with the feature
    and the tests behind each, and the versions and SHA-256 of the rule-set file."""
    checked_output(out, "--out", SUFFIXES)  # before the work
    profile = chosen_profile(jurisdiction, jurisdiction_file)
    pdf = out.suffix.lower() == ".pdf"
    if pdf and importlib.util.find_spec("weasyprint") is None:
        fail(
            f"--out {out}: writing a PDF needs WeasyPrint (pip install -e '.[pdf]'); "
            "write .html instead"
        )
    (rules, chart), files = read_game_files(title, rules_file, need_chart=True)
    assert chart is not None
    from boundless.cli.report.html import report_html
    from boundless.cli.report.sections import Provenance, ReportFigures, report_sections

    with counted_progress(TextColumn("{task.description}"), TimeElapsedColumn()) as progress:
        step = progress.add_task(f"exact returns of {rules.key}", total=1)
        exact = exact_figures_of(rules)
        progress.update(step, completed=1)
        simulation = simulation_figures_of(rules, chart, rounds, seed, progress)
        battery = battery_of(rules.shoe.decks, shuffles, progress)
        step = progress.add_task("strategy chart", total=1)
        picture = chart_picture(rules, chart)
        progress.update(step, completed=1)
    import numpy

    provenance = Provenance(
        files=tuple((name, hashlib.sha256(data).hexdigest()) for name, data in files),
        software_version=importlib.metadata.version("boundless"),
        python_version=platform.python_version(),
        numpy_version=numpy.__version__,
        generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S"),
    )
    figures = ReportFigures(exact, simulation, battery, picture, provenance)
    heading = f"{rules.title.name}: certification report"
    footer = f"boundless {provenance.software_version}, generated {provenance.generated} UTC"
    from boundless.cli.report.protection_section import protection_section

    sections = [*report_sections(rules, figures), protection_section(profile)]
    text = report_html(heading, sections, footer)
    data = text.encode("utf-8")
    if pdf:
        import weasyprint  # type: ignore[import-not-found, import-untyped, unused-ignore]

        data = weasyprint.HTML(string=text).write_pdf()
    write_whole(out, data, "--out")
    print(f"wrote {out}")


def register(app: typer.Typer) -> None:
    app.command("report")(report)
