"""``boundless simulate`` through Typer's test runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from boundless.cli import simulate_commands
from boundless.cli.main import app as main_app

runner = CliRunner()


def app() -> typer.Typer:
    local = typer.Typer()
    simulate_commands.register(local)
    local.command("noop", hidden=True)(lambda: None)  # keep "simulate" a subcommand
    return local


def test_json_has_every_bet_with_an_interval() -> None:
    result = runner.invoke(
        app(),
        ["simulate", "boundless", "--rounds", "50000", "--seed", "1", "--workers", "1", "--json"],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["title"] == "boundless" and payload["rounds"] >= 50_000
    assert payload["seed"] == 1 and payload["policy"] == "basic" and payload["spots"] == 1
    assert set(payload["side_bets"]) == {"pair", "bust_bonus", "lucky_trio", "poker_trio"}
    main = payload["main"]
    low, high = main["ci95"]
    assert low < main["return"] < high and 0.97 < main["return"] < 1.02
    assert 1.0 < main["standard_deviation"] < 1.3
    # Side bets are offered in the first 40 or 45 rounds of a shoe only.
    assert payload["side_bets"]["pair"]["rounds"] < payload["rounds"]


def test_a_seed_gives_the_same_figures_on_any_number_of_workers() -> None:
    common = ["simulate", "unlimited", "--rounds", "60000", "--seed", "5", "--json"]
    one = runner.invoke(app(), [*common, "--workers", "1"])
    two = runner.invoke(app(), [*common, "--workers", "2"])
    assert one.exit_code == two.exit_code == 0, one.output + two.output
    first, second = json.loads(one.stdout), json.loads(two.stdout)
    assert first["main"] == second["main"] and first["rounds"] == second["rounds"]


def test_table_with_exact_figures_and_a_plot(tmp_path: Path) -> None:
    target = tmp_path / "convergence.png"
    result = runner.invoke(
        app(),
        [
            "simulate",
            "boo-bucks-no-das",
            "--rounds",
            "30000",
            "--seed",
            "2",
            "--workers",
            "1",
            "--exact",
            "--plot",
            str(target),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "main game" in result.stdout and "Bonus Spin Xtreme" in result.stdout
    assert "bonus_spin" not in result.stdout  # side bets by their names, not their keys
    assert "30,000 rounds" in result.stdout and "3 spots" in result.stdout
    assert "exact" in result.stdout and "house edge" in result.stdout
    assert target.stat().st_size > 10_000


def test_autoplay_policy_and_one_spot() -> None:
    result = runner.invoke(
        app(),
        ["simulate", "boundless", "--rounds", "30000", "--policy", "autoplay", "--spots", "1",
         "--workers", "1", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    # Hitting until over 11 never doubles, splits or surrenders: a much worse game.
    assert payload["policy"] == "autoplay" and payload["main"]["return"] < 0.98


def test_unknown_title_and_too_many_spots_are_errors() -> None:
    unknown = runner.invoke(app(), ["simulate", "no-such-title", "--rounds", "10"])
    assert unknown.exit_code == 2 and "unknown title" in unknown.output
    spots = runner.invoke(app(), ["simulate", "boundless", "--rounds", "10", "--spots", "3"])
    assert spots.exit_code == 2 and "1 spot" in spots.output


def test_the_command_is_registered() -> None:
    result = runner.invoke(main_app, ["simulate", "--help"])
    assert result.exit_code == 0 and "--rounds" in result.output


@pytest.mark.parametrize(
    ("plot", "words"),
    [
        ("/nonexistent-dir/x.png", "--plot /nonexistent-dir/x.png: the folder /nonexistent-dir"),
        ("x.bmp", "--plot x.bmp: the file name must end in .png, .svg or .pdf"),
        ("x", "--plot x: the file name must end in"),
        (".", "--plot . is a folder"),
    ],
)
def test_a_plot_that_cannot_be_written_is_refused_before_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plot: str, words: str
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app(), ["simulate", "boundless", "--rounds", "10", "--plot", plot])
    assert result.exit_code == 2
    assert result.output.strip() == f"error: {words}" or words in result.output
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == []


def test_the_plot_is_written_in_the_format_its_name_says(tmp_path: Path) -> None:
    target = tmp_path / "plot.svg"
    arguments = ["simulate", "boundless", "--rounds", "20000", "--seed", "3", "--workers", "1"]
    result = runner.invoke(app(), [*arguments, "--plot", str(target)])
    assert result.exit_code == 0, result.output
    assert f"wrote {target}" in result.output and target.read_text().lstrip().startswith("<?xml")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["plot.svg"]


def test_progress_counts_have_thousands_separators() -> None:
    from rich.progress import Progress

    from boundless.cli.simulate_commands import progress_columns

    columns = progress_columns("boundless")
    with Progress(*columns, auto_refresh=False) as progress:
        task = progress.add_task("rounds", total=1_000_000, completed=250_000)
        texts = [str(column.render(progress.tasks[task])) for column in columns]
    assert "250,000/1,000,000 rounds" in texts


@pytest.mark.parametrize("weights", [(2048,), (2**63 - 1, 1), (2**62, 2**62)])
def test_wheel_weights_the_kernel_cannot_draw_are_refused(
    tmp_path: Path, weights: tuple[int, ...]
) -> None:
    inner = ", ".join(
        f'{{ label = "w{index}", weight = {weight}, multiplier = 2 }}'
        for index, weight in enumerate(weights)
    )
    rules = tmp_path / "heavy.toml"
    rules.write_text(
        'extends = "boo-bucks"\n[title]\nkey = "heavy"\nname = "Heavy"\n'
        '[[side_bets]]\nkey = "bonus_spin_xtreme"\n[side_bets.wheel]\nexample = true\n'
        f'inner = [{inner}]\nouter = [{{ label = "o", weight = 1, multiplier = 2 }}]\n'
    )
    result = runner.invoke(app(), ["simulate", "--rules", str(rules), "--rounds", "1000"])
    assert result.exit_code == 2, result.output
    assert "'bonus_spin_xtreme': inner weights above 2047" in result.output
