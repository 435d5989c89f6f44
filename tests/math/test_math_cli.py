"""``boundless strategy`` and ``boundless rtp`` through Typer's test runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from boundless.cli import math_commands
from boundless.math.exact import analyse_main_game
from boundless.titles import load_rule_file, load_title

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


@pytest.mark.parametrize("output_format", ["text", "csv", "html", "png"])
@pytest.mark.parametrize(
    ("output", "words"),
    [
        ("/nonexistent-dir/x.out", "the folder /nonexistent-dir does not exist"),
        (".", "--output . is a folder"),
    ],
)
def test_strategy_output_that_cannot_be_written_is_a_one_line_error(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    output_format: str,
    output: str,
    words: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    arguments = ["strategy", "boundless", "--format", output_format, "--output", output]
    result = runner.invoke(app(), arguments)
    assert result.exit_code == 2
    assert words in result.output and len(result.output.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_a_png_chart_is_written_exactly_where_it_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    wrong = runner.invoke(app(), ["strategy", "boundless", "--format", "png", "--output", "x.bmp"])
    assert wrong.exit_code == 2 and "--output x.bmp: the file name must end in .png" in wrong.output
    bare = runner.invoke(app(), ["strategy", "boundless", "--format", "png", "--output", "foo"])
    assert bare.exit_code == 0 and bare.output.strip() == "wrote foo"
    assert [path.name for path in tmp_path.iterdir()] == ["foo"]
    assert (tmp_path / "foo").read_bytes()[:4] == b"\x89PNG"


def test_rtp_words_one_deck_side_bet_names_and_the_player_edge_warning() -> None:
    single = runner.invoke(app(), ["rtp", "boo-bucks-single-deck"])
    assert single.exit_code == 0, single.output
    assert "main game, 1 deck, exact" in single.output and "1 decks" not in single.output
    assert "Jack A-Tack (your two cards)" in single.output and "jack_a_tack" not in single.output
    assert "warning: these rules give the player the edge" in " ".join(single.output.split())
    six = runner.invoke(app(), ["rtp", "boo-bucks"])
    assert "main game, 6 decks, exact" in six.output and "warning" not in six.output
    as_json = runner.invoke(app(), ["rtp", "boo-bucks-single-deck", "--json"])
    assert json.loads(as_json.stdout)["main"]["optimal"] > 1  # the warning went to stderr


RESPLIT_RULES = Path(__file__).parent / "rules" / "resplit-aces.toml"


def test_rtp_and_strategy_of_a_resplit_rule_file() -> None:
    """``--rules`` with pairs split again up to four hands, aces too: the exact figures, the
    distribution out to -8 and +8, and the chart."""
    result = runner.invoke(app(), ["rtp", "--rules", str(RESPLIT_RULES), "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    rules, _ = load_rule_file(RESPLIT_RULES)
    analysis = analyse_main_game(rules)
    assert payload["main"]["optimal"] == pytest.approx(analysis.optimal.return_to_player, abs=1e-12)
    assert payload["main"]["basic"] == pytest.approx(analysis.basic.return_to_player, abs=1e-12)
    once = analyse_main_game(load_title("boo-bucks"))
    assert analysis.optimal.return_to_player > once.optimal.return_to_player + 0.001
    assert {"-8", "-5", "5", "8"} <= set(payload["outcomes"])
    chart = runner.invoke(app(), ["strategy", "--rules", str(RESPLIT_RULES), "--format", "csv"])
    assert chart.exit_code == 0, chart.output
    assert 'pairs,"8,8",P,P,P,P,P,P,P,P,P,P' in chart.output


@pytest.fixture(scope="module")
def warm_up_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache for the warm-up tests: the first compiles (in a process of its own), the
    second loads."""
    return tmp_path_factory.mktemp("warm-up-cache")


def test_warm_up_compiles_for_this_cpu_and_says_where_the_cache_is(
    warm_up_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOUNDLESS_NUMBA_CACHE", str(warm_up_cache))
    monkeypatch.setenv("NUMBA_CPU_NAME", "generic")  # as in a process on the shipped pack
    result = runner.invoke(app(), ["warm-up", "boundless"])
    assert result.exit_code == 0, result.output
    assert "kernels ready in" in result.output
    assert str(warm_up_cache) in " ".join(result.output.split())
    # this CPU's code, not the pack's: the marker later processes go by, and host folders
    assert list(warm_up_cache.glob("compiled-*.done"))
    assert list(warm_up_cache.glob("fast_kernels-*/*.nbi"))
    assert not (warm_up_cache / "generic").exists()


def test_warm_up_of_an_unknown_title_is_a_one_line_error() -> None:
    result = runner.invoke(app(), ["warm-up", "no-such-title"])
    assert result.exit_code == 2
    assert "no-such-title" in result.output


def test_warm_up_needs_no_title(warm_up_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOUNDLESS_NUMBA_CACHE", str(warm_up_cache))
    result = runner.invoke(app(), ["warm-up"])
    assert result.exit_code == 0, result.output
    assert "kernels ready in" in result.output
