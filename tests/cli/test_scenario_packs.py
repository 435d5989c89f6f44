"""``boundless replay`` on scenario packs, and the examples the scenario-format doc ships."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import assert_refused, invoke

from boundless.cli.scenario_pack import differences

EXAMPLES = Path(__file__).parents[2] / "docs" / "examples"
PACK = EXAMPLES / "pack"
GOLDEN = Path(__file__).parents[1] / "core" / "golden" / "scenarios"


def _money_holds(output: dict[str, Any]) -> None:
    for player in output["players"]:
        paid = sum(hand["payout"] for hand in player["hands"])
        staked = sum(hand["bet"] for hand in player["hands"])
        sides = player["side_bets"]
        bets = (
            [bet for spot in sides.values() for bet in spot.values()]
            if any(isinstance(value, dict) and "stake" not in value for value in sides.values())
            else list(sides.values())
        )
        paid += sum(bet["payout"] for bet in bets)
        staked += sum(bet["stake"] for bet in bets)
        assert player["balance_after"] - player["balance_before"] == paid - staked


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.json")), ids=lambda path: path.name)
def test_every_example_replays(path: Path) -> None:
    outcome = invoke("replay", str(path))
    assert outcome.code == 0, outcome.output
    output = json.loads(outcome.stdout)
    assert output["game"] == json.loads(path.read_text())["game"]
    _money_holds(output)


def test_the_shared_steps_example_plays_as_the_doc_says() -> None:
    output = json.loads(invoke("replay", str(EXAMPLES / "boundless-shared-steps.json")).stdout)
    alice, bob = output["players"]
    assert alice["hands"][0]["cards"] == ["9H", "7C", "4C"]  # the step card went to alice only
    assert bob["hands"][0]["cards"] == ["9H", "7C"]
    assert output["dealer"]["cards"] == ["6D", "TS", "9D"] and output["dealer"]["bust"]
    assert alice["side_bets"]["bust_bonus"]["pattern"] == "bust_3"


def test_the_shipped_pack_passes() -> None:
    outcome = invoke("replay", str(PACK))
    assert outcome.code == 0, outcome.output
    lines = outcome.stdout.splitlines()
    scenarios = sorted(PACK.glob("*.json"))
    assert len(scenarios) >= 5
    assert lines[-1] == f"{len(scenarios)} passed, 0 failed"
    assert all(line.startswith("ok ") for line in lines[:-1])


def test_the_golden_scenarios_pass_as_a_pack_with_their_expected_files() -> None:
    outcome = invoke("replay", str(GOLDEN))
    assert outcome.code == 0, outcome.output
    count = len([p for p in GOLDEN.rglob("*.json") if not p.name.endswith(".expected.json")])
    assert outcome.stdout.splitlines()[-1] == f"{count} passed, 0 failed"


def test_a_failing_pack_names_each_difference_and_exits_one(tmp_path: Path) -> None:
    shutil.copytree(PACK, tmp_path / "pack")
    wrong = tmp_path / "pack" / "blackjack-pays-3-to-2.json"
    data = json.loads(wrong.read_text())
    data["expect"]["players"][0]["hands"][0]["payout"] = 2000
    data["expect"]["dealer"]["blackjack"] = 0  # 0 is not false
    wrong.write_text(json.dumps(data))
    should_refuse = tmp_path / "pack" / "plays-but-should-be-refused.json"
    playable = json.loads((PACK / "dealer-stands-on-soft-17.json").read_text())
    playable["expect"] = {"error": True}
    should_refuse.write_text(json.dumps(playable))
    (tmp_path / "pack" / "broken.json").write_text("{not json")
    outcome = invoke("replay", str(tmp_path / "pack"))
    assert outcome.code == 1, outcome.output
    lines = outcome.stdout.splitlines()
    assert f"FAIL  {wrong}: dealer.blackjack: expected 0, got false" in lines
    assert f"FAIL  {wrong}: players[0].hands[0].payout: expected 2000, got 2500" in lines
    assert f"FAIL  {should_refuse}: expected the engine to refuse this scenario, but it played" in (
        lines
    )
    assert any(
        line.startswith(f"FAIL  {tmp_path / 'pack' / 'broken.json'}: not valid JSON")
        for line in lines
    )
    total = len(list((tmp_path / "pack").glob("*.json")))
    assert lines[-1] == f"{total - 3} passed, 3 failed"


def test_a_refusal_nobody_expected_fails_with_the_reason(tmp_path: Path) -> None:
    data = json.loads((PACK / "pair-closed-after-round-40.json").read_text())
    data["expect"] = {"players": [{"id": "alice"}]}
    path = tmp_path / "closed.json"
    path.write_text(json.dumps(data))
    outcome = invoke("replay", str(path))
    assert outcome.code == 1
    assert "FAIL" in outcome.stdout and "'pair' is not available this round" in outcome.stdout
    assert outcome.stdout.splitlines()[-1] == "0 passed, 1 failed"


def test_a_refusal_with_other_words_than_expected_fails(tmp_path: Path) -> None:
    data = json.loads((PACK / "pair-closed-after-round-40.json").read_text())
    data["expect"] = {"error": "table limits"}
    path = tmp_path / "closed.json"
    path.write_text(json.dumps(data))
    outcome = invoke("replay", str(path))
    assert outcome.code == 1 and "expected 'table limits' in it" in outcome.stdout


def test_several_files_are_one_pack() -> None:
    files = sorted(PACK.glob("*.json"))[:2]
    outcome = invoke("replay", *map(str, files))
    assert outcome.code == 0 and outcome.stdout.splitlines()[-1] == "2 passed, 0 failed"


def test_a_missing_path_or_an_empty_folder_is_refused(tmp_path: Path) -> None:
    assert_refused(invoke("replay", str(tmp_path / "nowhere")), "no such file or folder")
    assert_refused(invoke("replay", str(tmp_path)), "no scenario files")


def test_differences_match_objects_by_key_and_lists_by_position() -> None:
    actual = {"a": 1, "b": [1, {"c": True, "d": 2}], "e": None}
    assert differences({"a": 1, "b": [1, {"c": True}]}, actual) == []
    assert differences({"b": [1]}, actual) == [
        'b: expected 1 items, got 2: [1, {"c": true, "d": 2}]'
    ]
    assert differences({"b": [2, {"c": 1}]}, actual) == [
        "b[0]: expected 2, got 1",
        "b[1].c: expected 1, got true",
    ]
    assert differences({"x": 3}, actual) == ["x: missing (expected 3)"]
    assert differences({"e": {}}, actual) == ["e: expected an object, got null"]


def _pack_with(tmp_path: Path, **expects: object) -> Path:
    """A folder with the 3:2 blackjack scenario once per ``expect`` given (file name: key)."""
    data = json.loads((PACK / "blackjack-pays-3-to-2.json").read_text())
    folder = tmp_path / "pack"
    folder.mkdir()
    for name, expect in expects.items():
        (folder / f"{name}.json").write_text(json.dumps({**data, "expect": expect}))
    return folder


def test_an_expect_that_is_not_an_object_fails_the_scenario(tmp_path: Path) -> None:
    folder = _pack_with(tmp_path, null=None, number=5, words="win", listed=[{}])
    outcome = invoke("replay", str(folder))
    assert outcome.code == 1, outcome.output
    lines = outcome.stdout.splitlines()
    for name, shown in (("null", "null"), ("number", "5"), ("words", '"win"'), ("listed", "[{}]")):
        problem = f"FAIL  {folder / name}.json: expect: must be an object (a part of the result)"
        assert f'{problem} or {{"error": ...}}, got {shown}' in lines
    assert lines[-1] == "0 passed, 4 failed"


def test_an_expected_error_stands_alone(tmp_path: Path) -> None:
    folder = _pack_with(tmp_path, both={"error": True, "players": []})
    outcome = invoke("replay", str(folder))
    assert outcome.code == 1
    assert f'FAIL  {folder / "both"}.json: expect: "error" stands alone' in outcome.stdout


def test_json_nested_too_deeply_is_a_one_line_problem(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    assert_refused(invoke("replay", str(deep)), f"{deep}: not valid JSON: nested too deeply")
    outcome = invoke("replay", str(tmp_path))
    assert outcome.code == 1
    assert f"FAIL  {deep}: not valid JSON: nested too deeply" in outcome.stdout.splitlines()


def test_a_path_the_system_refuses_is_a_one_line_error(tmp_path: Path) -> None:
    name = str(tmp_path / ("x" * 300 + ".json"))
    assert_refused(invoke("replay", name), "File name too long")


def test_a_scenario_saved_with_a_byte_order_mark_plays(tmp_path: Path) -> None:
    path = tmp_path / "marked.json"
    path.write_bytes(b"\xef\xbb\xbf" + (PACK / "blackjack-pays-3-to-2.json").read_bytes())
    outcome = invoke("replay", str(path))
    assert outcome.code == 0 and outcome.stdout.splitlines() == [
        f"ok    {path}",
        "1 passed, 0 failed",
    ]


def test_a_scenario_path_that_never_ends_is_refused(tmp_path: Path) -> None:
    outcome = invoke("replay", "/dev/zero")  # not a plain file: read as a pack of one
    assert outcome.code == 1 and "Traceback" not in outcome.output
    assert outcome.stdout.splitlines() == [
        "FAIL  /dev/zero: cannot read it: larger than 1,048,576 bytes",
        "0 passed, 1 failed",
    ]
