"""``--rules FILE.toml`` on every command that reads a title, and ``serve --titles-dir``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from cli_helpers import SIX_FIVE
from typer.testing import CliRunner

from boundless.cli import (
    math_commands,
    play_commands,
    replay_commands,
    rule_files,
    simulate_commands,
)

runner = CliRunner()


def app() -> typer.Typer:
    local = typer.Typer()
    for module in (math_commands, simulate_commands, replay_commands, play_commands):
        module.register(local)
    return local


def _file(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _json(arguments: list[str]) -> dict[str, object]:
    result = runner.invoke(app(), arguments)
    assert result.exit_code == 0, result.output
    payload: dict[str, object] = json.loads(result.stdout)
    return payload


def test_rtp_of_a_file_is_that_of_the_rules_it_gives(tmp_path: Path) -> None:
    same = _file(tmp_path, "same.toml", 'extends = "boundless"\n')
    assert _json(["rtp", "--rules", str(same), "--json"]) == _json(["rtp", "boundless", "--json"])
    six_five = _json(["rtp", "--rules", str(_file(tmp_path, "sf.toml", SIX_FIVE)), "--json"])
    three_two = _json(["rtp", "boundless", "--json"])
    assert six_five["title"] == "six-five"
    main, base = six_five["main"], three_two["main"]
    assert isinstance(main, dict) and isinstance(base, dict)
    # 6:5 takes 0.3 of a unit from every blackjack (about 4.5% of rounds)
    assert 0.012 < base["basic"] - main["basic"] < 0.015


def test_strategy_of_a_file_without_a_chart_derives_one_in_memory(tmp_path: Path) -> None:
    mine = _file(tmp_path, "mine.toml", 'extends = "boo-bucks"\n[title]\nkey = "mine"\n')
    result = runner.invoke(app(), ["strategy", "--rules", str(mine), "--format", "csv"])
    assert result.exit_code == 0, result.output
    shipped = runner.invoke(app(), ["strategy", "boo-bucks", "--format", "csv"])
    assert result.stdout == shipped.stdout
    assert sorted(path.name for path in tmp_path.iterdir()) == ["mine.toml"]  # nothing written


def test_simulate_a_file_plays_its_rules(tmp_path: Path) -> None:
    common = ["--rounds", "30000", "--seed", "5", "--workers", "1", "--json"]
    same = _file(tmp_path, "same.toml", 'extends = "boundless"\n[title]\nkey = "same"\n')
    from_file = _json(["simulate", "--rules", str(same), *common])
    shipped = _json(["simulate", "boundless", *common])
    assert from_file["title"] == "same"
    assert from_file["main"] == shipped["main"] and from_file["side_bets"] == shipped["side_bets"]


def test_replay_with_rules_plays_the_files_title_and_refuses_another(tmp_path: Path) -> None:
    rules = _file(tmp_path, "sf.toml", SIX_FIVE)
    scenario = {
        "game": "six-five",
        "cards": ["AS", "9D", "KH", "8C"],
        "players": [{"id": "alice", "balance": 100000, "bets": {"main": 1000}}],
    }
    path = _file(tmp_path, "bj.json", json.dumps(scenario))
    result = _json(["replay", str(path), "--rules", str(rules)])
    players = result["players"]
    assert isinstance(players, list)
    assert players[0]["hands"][0]["payout"] == 2200  # 1,000 back and 6:5
    other = _file(tmp_path, "other.json", json.dumps({**scenario, "game": "boundless"}))
    refused = runner.invoke(app(), ["replay", str(other), "--rules", str(rules)])
    assert refused.exit_code == 2
    assert "the scenario plays 'boundless' but --rules" in refused.output


def test_play_a_file(tmp_path: Path) -> None:
    rules = _file(tmp_path, "sf.toml", SIX_FIVE)
    result = runner.invoke(app(), ["play", "--rules", str(rules), "--seed", "1"], input="")
    assert result.exit_code == 0, result.output
    assert "Boundless at 6:5" in result.output


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (["rtp", "boundless", "--rules", "x.toml"], "give a title or --rules, not both"),
        (["rtp"], "name a title (e.g. boundless) or give --rules FILE.toml"),
        (["strategy", "--rules", "missing.toml"], "cannot read the rule file missing.toml"),
        (["simulate", "--rules", "bad.toml"], "bad.toml (extends boundless): shoe.decks:"),
        (["play", "--rules", "bad.toml"], "bad.toml (extends boundless): shoe.decks:"),
        (["play", "--title", "boundless", "--rules", "bad.toml"], "not both"),
    ],
)
def test_bad_rule_options_are_one_line_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, arguments: list[str], words: str
) -> None:
    monkeypatch.chdir(tmp_path)
    _file(tmp_path, "bad.toml", 'extends = "boundless"\n[shoe]\ndecks = 0\n')
    result = runner.invoke(app(), arguments)
    assert result.exit_code == 2
    assert words in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


def test_a_titles_folder_adds_and_replaces_titles_with_charts(tmp_path: Path) -> None:
    _file(tmp_path, "six-five.toml", SIX_FIVE)
    _file(tmp_path, "boo-bucks.toml", 'extends = "boo-bucks"\n[dealer]\nhits_soft_17 = true\n')
    catalog = rule_files.titles_catalog(tmp_path)
    assert catalog is not None
    assert {"six-five", "boo-bucks", "unlimited"} <= set(catalog.games)
    rules, chart = catalog.get("boo-bucks")
    assert rules.dealer.hits_soft_17 and chart is not None  # derived: boo-bucks needs one
    assert str(catalog.get("six-five")[0].payouts.blackjack) == "6:5"
    assert rule_files.titles_catalog(None) is None


def test_a_bad_titles_folder_stops_serve_before_it_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _file(tmp_path, "oops.toml", 'extends = "boundless"\n[title]\nkey = "other"\n')
    with pytest.raises(typer.Exit) as stopped:
        rule_files.titles_catalog(tmp_path)
    assert stopped.value.exit_code == 2
    assert "oops.toml: title.key is 'other'" in capsys.readouterr().err


def test_a_served_titles_folder_offers_its_titles(tmp_path: Path) -> None:
    from tests.server.live import serving

    titles = tmp_path / "titles"
    titles.mkdir()
    _file(titles, "six-five.toml", SIX_FIVE)
    catalog = rule_files.titles_catalog(titles)
    with serving(tmp_path / "data", catalog=catalog) as server:
        answer = server.http.get("/api/v1/titles/six-five")
        assert answer.status_code == 200, answer.text
        assert answer.json()["payouts"]["blackjack"] == "6:5"
        assert server.http.get("/api/v1/titles/boundless").status_code == 200


@pytest.mark.parametrize(
    ("folder", "words"),
    [
        ("oops", "oops.toml: title.key is 'other'"),
        ("x" * 300, "File name too long"),
        ("missing", "is not a folder"),
    ],
)
def test_a_bad_titles_folder_creates_no_data_folder(
    tmp_path: Path, folder: str, words: str
) -> None:
    from cli_helpers import assert_refused, invoke

    (tmp_path / "oops").mkdir()
    _file(tmp_path / "oops", "oops.toml", 'extends = "boundless"\n[title]\nkey = "other"\n')
    data = tmp_path / "data"
    outcome = invoke(
        "serve", "--titles-dir", str(tmp_path / folder), "--data-dir", str(data), "--port", "1"
    )
    assert_refused(outcome, words)
    assert not data.exists()
