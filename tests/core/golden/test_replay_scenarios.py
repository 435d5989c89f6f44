"""Scenario-file goldens: ``boundless replay`` on stacked shoes, and every error path.

Each ``scenarios/NAME.json`` is replayed and its output compared, key for key, with
``scenarios/NAME.expected.json`` (checked by hand against the rules; see docs/rules-coverage.md).
Errors must exit with status 2, print one line on stderr naming the problem, and nothing on
stdout (shared/spec/scenario-format.md).
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from boundless.cli.main import app
from boundless.core.scenario import run_scenario
from boundless.titles import load_game

SCENARIOS = Path(__file__).parent / "scenarios"
INPUTS = sorted(
    path for path in SCENARIOS.glob("*.json") if not path.name.endswith(".expected.json")
)
RUNNER = CliRunner()


def replay(path: Path) -> tuple[int, str, str]:
    outcome = RUNNER.invoke(app, ["replay", str(path)])
    return outcome.exit_code, outcome.stdout, outcome.stderr


def replay_installed(path: Path) -> subprocess.CompletedProcess[str]:
    """``boundless replay`` run as its own process, as an installed command is."""
    return subprocess.run(
        [sys.executable, "-m", "boundless.cli.main", "replay", str(path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def assert_refused(path: Path, words: str) -> None:
    """Replaying ``path`` exits 2 with one ``error:`` line naming ``words``, and prints nothing."""
    code, out, err = replay(path)
    assert code == 2, err
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("error: ")
    assert words in err


def assert_replays_as_expected(path: Path) -> None:
    """Replaying ``path`` succeeds and its output has every key of ``NAME.expected.json``."""
    code, out, err = replay(path)
    assert (code, err) == (0, "")
    expected = json.loads(path.with_suffix(".expected.json").read_text())
    assert differences(expected, json.loads(out)) == []


def test_every_scenario_has_an_expected_output() -> None:
    assert len(INPUTS) >= 15
    for path in INPUTS:
        assert path.with_suffix(".expected.json").exists(), path.name


def differences(expected: Any, actual: Any, where: str = "$") -> list[str]:
    """Where ``actual`` departs from ``expected``; keys added to objects are allowed
    (scenario-format.md: keys may be added, the listed ones may not change meaning)."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where}: expected an object, got {actual!r}"]
        found: list[str] = []
        for key, value in expected.items():
            if key not in actual:
                found.append(f"{where}.{key}: missing")
            else:
                found.extend(differences(value, actual[key], f"{where}.{key}"))
        return found
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{where}: expected {expected!r}, got {actual!r}"]
        return [
            problem
            for index, (one, other) in enumerate(zip(expected, actual, strict=True))
            for problem in differences(one, other, f"{where}[{index}]")
        ]
    if type(expected) is not type(actual) or expected != actual:
        return [f"{where}: expected {expected!r}, got {actual!r}"]
    return []


@pytest.mark.parametrize("path", INPUTS, ids=[path.stem for path in INPUTS])
def test_scenario_golden(path: Path) -> None:
    assert_replays_as_expected(path)


def test_the_golden_comparison_allows_added_keys_only() -> None:
    expected = {"a": [{"b": 1}], "c": None}
    assert differences(expected, {"a": [{"b": 1, "new": 2}], "c": None, "d": 0}) == []
    assert differences(expected, {"a": [{"b": 2}], "c": None}) == ["$.a[0].b: expected 1, got 2"]
    assert differences(expected, {"a": [{"b": 1}]}) == ["$.c: missing"]
    assert differences({"x": 1}, {"x": True}) == ["$.x: expected 1, got True"]


@pytest.mark.parametrize("path", INPUTS, ids=[path.stem for path in INPUTS])
def test_scenario_balances_add_up(path: Path) -> None:
    # balance_after - balance_before = payouts - stakes (scenario-format.md, "Output").
    output = json.loads(path.with_suffix(".expected.json").read_text())
    for player in output["players"]:
        stakes = sum(hand["bet"] for hand in player["hands"])
        payouts = sum(hand["payout"] for hand in player["hands"])
        for bet in player["side_bets"].values():
            stakes += bet["stake"]
            payouts += bet["payout"]
        if player["insurance"] is not None:
            stakes += player["insurance"]["stake"]
            payouts += player["insurance"]["payout"]
        assert player["balance_after"] - player["balance_before"] == payouts - stakes


def test_the_installed_command_replays_a_scenario() -> None:
    path = SCENARIOS / "hit_then_bust.json"
    done = replay_installed(path)
    assert (done.returncode, done.stderr) == (0, "")
    expected = json.loads(path.with_suffix(".expected.json").read_text())
    assert differences(expected, json.loads(done.stdout)) == []


# ---- error paths ---------------------------------------------------------------------------

BASE: dict[str, Any] = {
    "game": "boundless",
    "round_in_shoe": 1,
    "cards": ["KS", "9D", "4H", "QC", "2S", "3C", "4D", "5H"],
    "players": [
        {
            "id": "alice",
            "balance": 100000,
            "bets": {"main": 1000, "pair": 100},
            "insurance": False,
            "actions": ["hit", "stand"],
        }
    ],
}


def changed(path: str, value: Any) -> dict[str, Any]:
    """BASE with one field replaced; ``path`` like ``players.0.bets.main``."""
    data = copy.deepcopy(BASE)
    keys = path.split(".")
    target: Any = data
    for key in keys[:-1]:
        target = target[int(key)] if isinstance(target, list) else target[key]
    last = keys[-1]
    if value is DELETE:
        del target[last]
    elif isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return data


DELETE = object()
PLAYER: dict[str, Any] = BASE["players"][0]

ERROR_CASES: list[tuple[str, Any, str]] = [
    # the file itself
    ("malformed JSON", "{not json", "not valid JSON"),
    ("empty file", "", "not valid JSON"),
    ("not an object", [BASE], "must be a JSON object"),
    ("a JSON string", '"boundless"', "must be a JSON object"),
    ("a JSON number", "42", "must be a JSON object"),
    # top level
    ("unknown title", changed("game", "poker"), "unknown title 'poker'"),
    ("game missing", changed("game", DELETE), "'game'"),
    ("game not text", changed("game", 7), "'game'"),
    ("unknown top-level key", {**BASE, "seed": 1}, "seed"),
    ("round_in_shoe zero", changed("round_in_shoe", 0), "round_in_shoe"),
    ("round_in_shoe text", changed("round_in_shoe", "1"), "round_in_shoe"),
    ("round_in_shoe negative", changed("round_in_shoe", -3), "round_in_shoe"),
    ("players missing", changed("players", DELETE), "'players'"),
    ("players empty", changed("players", []), "'players'"),
    ("players object", changed("players", {"alice": {}}), "'players'"),
    # cards
    ("bad card code", changed("cards.2", "ZZ"), "'ZZ'"),
    ("bad suit", changed("cards.2", "7X"), "'7X'"),
    ("rank 1", changed("cards.2", "1S"), "'1S'"),
    ("card not text", changed("cards.2", 7), "7"),
    ("cards not a list", changed("cards", "KS 9D 7H QC"), "'cards'"),
    ("too few for the deal", changed("cards", ["KS", "9D", "4H"]), "too few"),
    ("too few for the steps", changed("cards", ["KS", "9D", "4H", "QC"]), "too few"),
    (
        "too few for the dealer",
        {
            **changed("cards", ["KS", "6D", "9H", "QC"]),
            "players": [{**PLAYER, "actions": ["stand"]}],
        },
        "too few",
    ),
    # players
    ("unknown player key", changed("players.0.stack", 5), "stack"),
    ("player not an object", changed("players.0", "alice"), "players[0]"),
    ("id missing", changed("players.0.id", DELETE), "id"),
    ("id not text", changed("players.0.id", 5), "id"),
    ("id empty", changed("players.0.id", ""), "id"),
    ("duplicate ids", {**BASE, "players": [PLAYER, PLAYER]}, "unique"),
    ("balance text", changed("players.0.balance", "100000"), "balance"),
    ("balance negative", changed("players.0.balance", -1), "balance"),
    ("balance float", changed("players.0.balance", 1000.5), "balance"),
    ("balance missing", changed("players.0.balance", DELETE), "balance"),
    ("bets missing", changed("players.0.bets", DELETE), "bets"),
    ("bets a list", changed("players.0.bets", [1000]), "bets"),
    ("insurance text", changed("players.0.insurance", "yes"), "insurance"),
    ("actions text", changed("players.0.actions", "hit"), "actions"),
    ("actions numbers", changed("players.0.actions", [1]), "actions"),
    # bets
    ("main negative", changed("players.0.bets.main", -100), "main"),
    ("main text", changed("players.0.bets.main", "1000"), "main"),
    ("main bool", changed("players.0.bets.main", True), "main"),
    ("main float", changed("players.0.bets.main", 1000.0), "main"),
    ("side negative", changed("players.0.bets.pair", -100), "pair"),
    ("main under the limit", changed("players.0.bets.main", 50), "outside the table limits"),
    ("main over the limit", changed("players.0.bets.main", 100100), "outside the table limits"),
    ("main off the unit", changed("players.0.bets.main", 1050), "multiple"),
    ("side over its limit", changed("players.0.bets.pair", 20000), "pair"),
    ("unknown side option", changed("players.0.bets.side_show", 100), "side_show"),
    ("no bet at all", changed("players.0.bets", {"main": 0}), "main bet or at least one side"),
    ("bets over the balance", changed("players.0.balance", 1000), "free coins"),
    ("pair after round 40", changed("round_in_shoe", 41), "'pair' is not available"),
    (
        "bust bonus after round 45",
        {
            **changed("round_in_shoe", 46),
            "players": [{**PLAYER, "bets": {"main": 100, "bust_bonus": 100}}],
        },
        "'bust_bonus' is not available",
    ),
    # actions
    ("unknown action", changed("players.0.actions", ["fold"]), "fold"),
    ("surrender after a hit", changed("players.0.actions", ["hit", "surrender"]), "surrender"),
    ("double after a hit", changed("players.0.actions", ["hit", "double"]), "double"),
    ("split of a non-pair", changed("players.0.actions", ["split"]), "split"),
    ("surrender20 in Boundless", changed("players.0.actions", ["surrender20"]), "surrender20"),
    (
        "double the balance does not cover",
        {**BASE, "players": [{**PLAYER, "balance": 1100, "actions": ["double"]}]},
        "double costs",
    ),
    (
        "split the balance does not cover",
        {
            **changed("cards", ["8S", "6D", "8H", "TC", "2C", "3C", "4C"]),
            "players": [{**PLAYER, "balance": 1100, "actions": ["split"]}],
        },
        "split costs",
    ),
]


def error_case_id(case: tuple[str, Any, str]) -> str:
    return case[0].replace(" ", "-")


@pytest.mark.parametrize("case", ERROR_CASES, ids=[error_case_id(c) for c in ERROR_CASES])
def test_replay_error_exits_2_with_one_line_on_stderr_and_nothing_on_stdout(
    case: tuple[str, Any, str], tmp_path: Path
) -> None:
    _, content, words = case
    path = tmp_path / "scenario.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    assert_refused(path, words)


def test_replay_of_a_missing_file(tmp_path: Path) -> None:
    code, out, err = replay(tmp_path / "absent.json")
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "absent.json" in err


def test_replay_error_through_the_installed_command(tmp_path: Path) -> None:
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(changed("players.0.actions", ["split"])))
    done = replay_installed(path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.count("\n") == 1 and "split" in done.stderr


def test_insurance_asked_for_but_not_offered_is_simply_not_taken() -> None:
    data = changed("players.0.insurance", True)  # the up card is 9D: no insurance window
    output = run_scenario(data, load_game)
    assert output["players"][0]["insurance"] is None


def test_insurance_the_coins_do_not_cover_is_an_error(tmp_path: Path) -> None:
    data = {
        "game": "boundless",
        "cards": ["9S", "AD", "7H", "6C", "TC"],
        "players": [{"id": "p", "balance": 1000, "bets": {"main": 1000}, "insurance": True}],
    }
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(data))
    code, out, err = replay(path)
    assert (code, out) == (2, "")
    assert "insurance" in err and err.count("\n") == 1


def test_ten_may_be_written_10_and_codes_are_case_insensitive() -> None:
    data = {
        "game": "boundless",
        "cards": ["10S", "9D", "10h", "8c"],
        "players": [{"id": "p", "balance": 100000, "bets": {"main": 1000}, "actions": ["stand"]}],
    }
    output = run_scenario(data, load_game)
    assert output["players"][0]["hands"][0]["cards"] == ["TS", "TH"]
    assert output["dealer"]["cards"] == ["9D", "8C"]
    assert output["players"][0]["hands"][0]["outcome"] == "win"


def test_insurance_may_be_given_as_a_list_with_one_answer_per_spot() -> None:
    data = {
        "game": "boundless",
        "cards": ["9S", "AD", "7H", "KC"],
        "players": [{"id": "p", "balance": 100000, "bets": {"main": 1000}, "insurance": [True]}],
    }
    output = run_scenario(data, load_game)
    assert output["players"][0]["insurance"] == {
        "spot": 1,
        "kind": "insurance",
        "stake": 500,
        "outcome": "win",
        "payout": 1500,
    }
    assert output["players"][0]["balance_after"] == 100000
