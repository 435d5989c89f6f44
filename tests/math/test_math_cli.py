"""``boundless strategy`` and ``boundless rtp`` through Typer's test runner."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from typer.testing import CliRunner

from boundless.cli import math_commands
from boundless.math.exact import analyse_main_game
from boundless.titles import load_title

runner = CliRunner()


def app() -> typer.Typer:
    local = typer.Typer()
    math_commands.register(local)
    return local


def test_strategy_text_shows_every_table_and_the_legend() -> None:
    result = runner.invoke(app(), ["strategy", "boundless"])
    assert result.exit_code == 0, result.output
    for heading in (
        "Hard totals",
        "Soft totals",
        "Pairs",
        "double, else hit",
        "surrender, else hit",
    ):
        assert heading in result.output


def test_strategy_csv_has_a_row_per_chart_row() -> None:
    result = runner.invoke(app(), ["strategy", "boundless", "--format", "csv"])
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert lines[0] == "table,hand,2,3,4,5,6,7,8,9,10,A"
    assert len(lines) == 1 + 18 + 10 + 10
    assert "hard,16,S,S,S,S,S,H,H,Rh,H,H" in lines


def test_strategy_html_and_png_files(tmp_path: Path) -> None:
    page = tmp_path / "chart.html"
    result = runner.invoke(
        app(), ["strategy", "boundless", "--format", "html", "--output", str(page)]
    )
    assert result.exit_code == 0, result.output
    assert page.read_text(encoding="utf-8").count("<table>") == 4
    picture = tmp_path / "chart.png"
    result = runner.invoke(
        app(), ["strategy", "boundless", "--format", "png", "--output", str(picture)]
    )
    assert result.exit_code == 0, result.output
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_rtp_json_carries_full_precision_and_side_bets() -> None:
    result = runner.invoke(app(), ["rtp", "boundless", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["title"] == "boundless"
    analysis = analyse_main_game(load_title("boundless"))
    assert payload["main"]["optimal"] == analysis.optimal.return_to_player
    assert payload["main"]["basic"] == analysis.basic.return_to_player
    assert payload["main"]["stdev"] == analysis.basic.standard_deviation
    assert len(repr(payload["main"]["optimal"]).lstrip("0.")) >= 10
    assert set(payload["side_bets"]) == {"pair", "bust_bonus", "lucky_trio", "poker_trio"}


def test_rtp_text_puts_the_documented_claim_beside_the_exact_figure() -> None:
    result = runner.invoke(app(), ["rtp", "boundless"])
    assert result.exit_code == 0, result.output
    assert "99.46%" in result.output
    assert "99.5168" in result.output


def test_unknown_title_is_a_clear_error() -> None:
    result = runner.invoke(app(), ["rtp", "no-such-title"])
    assert result.exit_code == 2
    assert "unknown title" in result.output


def test_strategy_derives_the_chart_of_a_title_without_a_chart_file(tmp_path: Path) -> None:
    rules = tmp_path / "mine.toml"
    rules.write_text('extends = "boundless"\n[title]\nkey = "mine"\n', encoding="utf-8")
    target = tmp_path / "chart.txt"
    result = runner.invoke(app(), ["strategy", "--rules", str(rules), "--output", str(target)])
    assert result.exit_code == 0, result.output
    text = target.read_text(encoding="utf-8")
    assert "Hard totals" in text
    assert "\x1b[" not in text
