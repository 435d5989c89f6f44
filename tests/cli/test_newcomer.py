"""What a newcomer meets first: ``boundless titles``, quick and complete help, the title's words."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from cli_helpers import invoke

from boundless.cli.main import COMMANDS, load_command
from boundless.cli.title_returns import compute_return, rules_fingerprint, stored_returns
from boundless.cli.title_words import in_title_words, words_of
from boundless.titles import load_title, shipped_title_keys

HEAVY = ("numpy", "numba", "sqlalchemy", "fastapi", "matplotlib", "uvicorn", "pydantic")


def test_titles_lists_every_shipped_title_with_its_facts() -> None:
    outcome = invoke("titles", "--json")
    assert outcome.code == 0, outcome.output
    rows = {row["key"]: row for row in json.loads(outcome.stdout)}
    assert sorted(rows) == shipped_title_keys()
    for key, row in rows.items():
        rules = load_title(key)
        assert row["name"] == rules.title.name
        assert row["decks"] == rules.shoe.decks
        assert row["spots"] == rules.table.spots
        assert row["documented_return"] == rules.title.documented_rtp
    assert rows["boo-bucks-single-deck"]["exact_return"] > 1.0  # the player's edge


def test_titles_table_says_one_deck_not_one_decks() -> None:
    outcome = invoke("titles")
    assert outcome.code == 0, outcome.output
    assert "1 deck " in outcome.stdout and "1 decks" not in outcome.stdout
    assert "6 decks" in outcome.stdout and "3 private seats" in outcome.stdout
    assert "100.1761%" in outcome.stdout


def test_stored_exact_returns_match_a_fresh_computation() -> None:
    stored = stored_returns()
    assert sorted(stored) == shipped_title_keys(), "run: python -m boundless.cli.title_returns"
    for key, entry in stored.items():
        rules = load_title(key)
        assert entry["rules_sha256"] == rules_fingerprint(rules), (
            f"{key} changed: run python -m boundless.cli.title_returns"
        )
        assert entry["optimal_return"] == pytest.approx(compute_return(rules), abs=1e-12)


def test_top_level_help_imports_nothing_heavy() -> None:
    script = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from boundless.cli.main import app\n"
        "result = CliRunner().invoke(app, ['--help'])\n"
        "assert result.exit_code == 0, result.output\n"
        f"print([name for name in {HEAVY!r} if name in sys.modules])\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_listing_matches_each_command_help() -> None:
    for name, lazy in COMMANDS.items():
        command: Any = load_command(name)
        first = (command.help or "").strip().splitlines()[0]
        assert first == lazy.summary, name


def _every_command() -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    for name in COMMANDS:
        command: Any = load_command(name)
        found += [(f"{name} {sub}", c) for sub, c in getattr(command, "commands", {}).items()]
        if not hasattr(command, "commands"):
            found.append((name, command))
    return found


@pytest.mark.parametrize(("name", "command"), _every_command(), ids=lambda item: str(item))
def test_every_option_and_argument_has_help(name: str, command: Any) -> None:
    missing = [param.name for param in command.params if not (param.help or "").strip()]
    assert missing == [], f"boundless {name}: {missing} have no help text"


@pytest.mark.parametrize("args", [["--help"], ["rtp", "--help"], ["serve", "--help"]])
def test_flags_show_no_value_type(args: list[str]) -> None:
    outcome = invoke(*args)
    assert outcome.code == 0
    assert "<bool>" not in outcome.stdout


def test_play_title_help_names_the_titles() -> None:
    outcome = invoke("play", "--help")
    text = " ".join(outcome.stdout.replace("│", " ").split())
    for key in shipped_title_keys():
        assert key in text


def test_engine_refusals_read_in_the_title_words() -> None:
    boo_bucks = load_title("boo-bucks")
    assert (
        in_title_words(
            "player 'you' spot 3: bets of 5,000.00 exceed the 10.00 free coins", boo_bucks
        )
        == "seat 3: bets of 5,000.00 exceed the 10.00 free chips"
    )
    boundless = load_title("boundless")
    assert (
        in_title_words("player 'you' spot 1: main bet 50.00 is outside the table limits", boundless)
        == "spot 1: main play 50.00 is outside the table limits"
    )
    assert in_title_words("side bet 'pair' is not available", boundless) == (
        "side option Pair is not available"
    )
    assert in_title_words("title 'boundless' has no 'x'", boundless) == (
        "title 'boundless' has no 'x'"
    )


def test_vocabulary_words_come_from_the_web_strings() -> None:
    from boundless.cli.title_words import strings_file

    strings = json.loads(strings_file().read_text(encoding="utf-8"))
    for key in shipped_title_keys():
        rules = load_title(key)
        words = words_of(rules)
        name = rules.title.vocabulary
        assert words.coins == strings[f"vocab.{name}.coins"]
        assert words.dealer == strings[f"vocab.{name}.dealer"]
        assert words.outcomes["lose"] == strings[f"vocab.{name}.loss"]


def test_play_refusal_uses_chips_and_seat_at_boo_bucks() -> None:
    outcome = invoke(
        "play",
        "--title",
        "boo-bucks",
        "--seed",
        "3",
        "--balance",
        "1000",
        input_text="\n\n5000\nq\n",  # the side bets, the seats to play, seat 3's main bet
    )
    assert "✗ seat 3: bets of 5,000.00 exceed the 10.00 free chips" in outcome.stdout
