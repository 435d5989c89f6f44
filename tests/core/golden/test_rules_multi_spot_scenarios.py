"""Scenario-file goldens of the multi-spot titles: ``boundless replay`` on stacked shoes.

Each ``scenarios/multi_spot/NAME.json`` (Blackjack Unlimited and the Boo Bucks presets: bets and
actions keyed by spot, Boo Bucks' ``side_bets_offered`` and ``wheel_seed``) is replayed and
compared, key for key, with ``NAME.expected.json``, checked by hand against the rules (see
docs/rules-coverage.md). Multi-spot errors exit 2 with one line on stderr and nothing on stdout
(shared/spec/scenario-format.md). The comparison and the runner are those of
``test_replay_scenarios.py``.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from test_replay_scenarios import assert_refused, assert_replays_as_expected, replay

from boundless.core.scenario import run_scenario
from boundless.titles import load_game

SCENARIOS = Path(__file__).parent / "scenarios" / "multi_spot"
INPUTS = sorted(
    path for path in SCENARIOS.glob("*.json") if not path.name.endswith(".expected.json")
)


def test_every_multi_spot_scenario_has_an_expected_output() -> None:
    assert len(INPUTS) >= 12
    titles = {json.loads(path.read_text())["game"] for path in INPUTS}
    assert {"unlimited", "boo-bucks"} <= titles
    for path in INPUTS:
        assert path.with_suffix(".expected.json").exists(), path.name


@pytest.mark.parametrize("path", INPUTS, ids=[path.stem for path in INPUTS])
def test_multi_spot_scenario_golden(path: Path) -> None:
    assert_replays_as_expected(path)


def _entries(player: dict[str, Any]) -> list[dict[str, Any]]:
    """Every hand, side bet and insurance entry of a multi-spot player's output."""
    entries = list(player["hands"])
    for by_key in player["side_bets"].values():
        entries += by_key.values()
    if player["insurance"] is not None:
        entries += player["insurance"]["spots"]
    return entries


@pytest.mark.parametrize("path", INPUTS, ids=[path.stem for path in INPUTS])
def test_multi_spot_scenario_balances_add_up(path: Path) -> None:
    # balance_after - balance_before = payouts - stakes (scenario-format.md, "Output").
    output = json.loads(path.with_suffix(".expected.json").read_text())
    for player in output["players"]:
        entries = _entries(player)
        stakes = sum(entry.get("bet", entry.get("stake", 0)) for entry in entries)
        payouts = sum(entry["payout"] for entry in entries)
        assert player["balance_after"] - player["balance_before"] == payouts - stakes


# ---- error paths ---------------------------------------------------------------------------

UNLIMITED: dict[str, Any] = {
    "game": "unlimited",
    "cards": ["9S", "5H", "6H", "7D", "4C", "TC", "2D", "TD", "8C"],
    "players": [
        {
            "id": "alice",
            "balance": 100000,
            "bets": {"1": {"main": 1000}, "2": {"main": 1000}},
            "actions": {"1": ["stand"], "2": ["hit", "stand"]},
        }
    ],
}
BOO_BUCKS: dict[str, Any] = {
    "game": "boo-bucks",
    "side_bets_offered": ["trifecta", "in_between"],
    "cards": ["9S", "5H", "6H", "7D", "4C", "TC", "2D", "TD", "8C"],
    "players": [
        {
            "id": "solo",
            "balance": 100000,
            "bets": {"1": {"main": 1000, "trifecta": 100}, "2": {"main": 1000}},
            "actions": {"1": ["stand"], "2": ["stand"]},
        }
    ],
}


def with_changes(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """``base`` with top-level keys or ``player__key`` fields of the first player replaced."""
    data = copy.deepcopy(base)
    for name, value in changes.items():
        if name.startswith("player__"):
            data["players"][0][name.removeprefix("player__")] = value
        else:
            data[name] = value
    return data


def first_decision(cards: str, action: str) -> dict[str, Any]:
    """Unlimited with alice on spot 1 only, dealt ``cards``, whose first decision is ``action``."""
    return with_changes(
        UNLIMITED,
        cards=cards.split(),
        player__bets={"1": {"main": 1000}},
        player__actions={"1": [action]},
    )


SECOND_PLAYER = {"id": "bob", "balance": 100000, "bets": {"3": {"main": 100}}}
ERROR_CASES: list[tuple[str, Any, str]] = [
    # spots
    (
        "unlimited bet on spot 4",
        with_changes(UNLIMITED, player__bets={"4": {"main": 1000}}),
        "the table has spots 1..3",
    ),
    (
        "unlimited bets on four spots",
        with_changes(UNLIMITED, player__bets={str(s): {"main": 100} for s in (1, 2, 3, 4)}),
        "spot 4: the table has spots 1..3",
    ),
    ("spot 0", with_changes(UNLIMITED, player__bets={"0": {"main": 1000}}), "'0'"),
    ("spot named", with_changes(UNLIMITED, player__bets={"left": {"main": 1000}}), "'left'"),
    (
        "single-spot bets on a multi-spot title",
        with_changes(UNLIMITED, player__bets={"main": 1000}),
        "has key 'main'",
    ),
    (
        "actions not keyed by spot",
        with_changes(UNLIMITED, player__actions=["stand"]),
        "keyed by spot",
    ),
    (
        "boo bucks seat 4",
        with_changes(BOO_BUCKS, player__bets={"4": {"main": 1000}}),
        "the table has spots 1..3",
    ),
    # Unlimited decisions
    (
        "split a pair the chart does not split",
        first_decision("TS 6H TD 2C", "split"),
        "split is not allowed now",
    ),
    (
        "surrender 20 without a split offer",
        with_changes(UNLIMITED, player__actions={"1": ["surrender20"]}),
        "surrender20 is not allowed now",
    ),
    (
        "stand on a pair offered only split or surrender 20",
        first_decision("8S 6H 8D 2C", "stand"),
        "allowed: split, surrender20",
    ),
    (
        "surrender against an ace",
        first_decision("TS AH 6D 2C 9C", "surrender"),
        "surrender is not allowed now",
    ),
    (
        "unlimited has no side bets",
        with_changes(UNLIMITED, player__bets={"1": {"main": 1000, "pair": 100}}),
        "pair",
    ),
    (
        "too few cards for three spots",
        with_changes(UNLIMITED, cards=["9S", "5H", "6H", "7D"]),
        "too few",
    ),
    # Boo Bucks offer and side bets
    (
        "side bet not offered",
        with_changes(BOO_BUCKS, player__bets={"1": {"main": 1000, "jack_a_tack": 100}}),
        "'jack_a_tack' is not available this round",
    ),
    (
        "one side bet offered",
        with_changes(BOO_BUCKS, side_bets_offered=["trifecta"]),
        "choose exactly 2",
    ),
    (
        "three side bets offered",
        with_changes(BOO_BUCKS, side_bets_offered=["trifecta", "in_between", "jack_a_tack"]),
        "choose exactly 2",
    ),
    (
        "unknown side bet offered",
        with_changes(BOO_BUCKS, side_bets_offered=["trifecta", "pair"]),
        "'pair' is not offered",
    ),
    (
        "offer not a list",
        with_changes(BOO_BUCKS, side_bets_offered="trifecta"),
        "side_bets_offered",
    ),
    (
        "in between over its maximum",
        with_changes(BOO_BUCKS, player__bets={"1": {"main": 1000, "in_between": 5100}}),
        "outside",
    ),
    (
        "base over 5,000.00",
        with_changes(BOO_BUCKS, player__bets={"3": {"main": 500100}}, player__balance=1000000),
        "outside the table limits",
    ),
    (
        "seat rule",
        with_changes(BOO_BUCKS, player__bets={"1": {"main": 1100}, "2": {"main": 200}}),
        "main bet 11.00 on seat 1 exceeds 5 times the 2.00 wagered on seat 2",
    ),
    (
        "seat rule across an empty seat",
        with_changes(BOO_BUCKS, player__bets={"1": {"main": 5000}, "3": {"main": 500}}),
        "exceeds 5 times the 5.00 wagered on seat 3",
    ),
    (
        "dealer wheel bet alone on a seat",
        with_changes(
            BOO_BUCKS,
            side_bets_offered=["bonus_spin_xtreme", "trifecta"],
            player__bets={"1": {"bonus_spin_xtreme_dealer": 100}},
        ),
        "needs another wager on this seat",
    ),
    ("wheel seed negative", with_changes(BOO_BUCKS, wheel_seed=-1), "wheel_seed"),
    ("wheel seed text", with_changes(BOO_BUCKS, wheel_seed="7"), "wheel_seed"),
    (
        "boo bucks double after a hit",
        with_changes(BOO_BUCKS, player__actions={"1": ["hit", "double"]}),
        "double is not allowed now",
    ),
]


@pytest.mark.parametrize(
    "case", ERROR_CASES, ids=[case[0].replace(" ", "-") for case in ERROR_CASES]
)
def test_multi_spot_replay_error_exits_2_with_one_line(
    case: tuple[str, Any, str], tmp_path: Path
) -> None:
    _, content, words = case
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(content))
    assert_refused(path, words)


def test_a_second_player_at_a_boo_bucks_table_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "scenario.json"
    data = copy.deepcopy(BOO_BUCKS)
    data["players"].append(SECOND_PLAYER)
    data["cards"] += ["TC"] * 10  # enough for a third seat
    path.write_text(json.dumps(data))
    code, out, err = replay(path)
    assert (code, out) == (2, "")
    assert "bob" in err


def test_the_error_cases_break_one_thing_of_a_valid_scenario() -> None:
    unlimited = run_scenario(UNLIMITED, load_game)["players"][0]
    assert [hand["outcome"] for hand in unlimited["hands"]] == ["lose", "win"]
    boo_bucks = run_scenario(BOO_BUCKS, load_game)["players"][0]
    assert boo_bucks["side_bets"] == {
        "1": {"trifecta": {"stake": 100, "outcome": "lose", "payout": 0}}
    }
