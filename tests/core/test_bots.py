"""The bot policies, shared by the terminal table, the live server and the benchmarks."""

from __future__ import annotations

import pytest

from boundless.core.bots import TRAITS, Policy, decide, lineup, parse_sight
from boundless.core.round import Action

FIRST_TWO = ["hit", "stand", "double"]


@pytest.mark.parametrize(
    ("cards", "doubles"),
    [
        (["AS", "2D"], True),  # soft 13
        (["AS", "7D"], True),  # soft 18
        (["AS", "8D"], False),  # soft 19: stands
        (["5S", "4D"], True),  # hard 9
        (["6S", "5D"], True),  # hard 11
        (["TS", "2D"], False),  # hard 12
        (["7S", "6D"], False),  # hard 13: the soft rule is for soft hands only
    ],
)
def test_the_doubler_doubles_9_to_11_and_soft_13_to_18(cards: list[str], doubles: bool) -> None:
    action = decide(Policy.DOUBLER, parse_sight(cards, "6H", FIRST_TWO))
    assert (action is Action.DOUBLE) is doubles


def test_the_doubler_doubles_on_two_cards_only_and_splits_every_pair() -> None:
    three = parse_sight(["AS", "2D", "3C"], "6H", FIRST_TWO)  # soft 16 on three cards
    assert decide(Policy.DOUBLER, three) is Action.STAND
    pair = parse_sight(["8S", "8D"], "TH", [*FIRST_TWO, "split"])
    assert decide(Policy.DOUBLER, pair) is Action.SPLIT


def test_each_policy_plays_only_legal_actions_and_autoplay_says_nothing() -> None:
    low = parse_sight(["TS", "2D"], "TH", ["hit", "stand"])
    assert decide(Policy.HIT_TO_17, low) is Action.HIT
    assert decide(Policy.CAUTIOUS, low) is Action.STAND
    assert decide(Policy.AUTOPLAY, low) is None
    no_hit = parse_sight(["TS", "2D"], "TH", ["stand"])
    assert decide(Policy.HIT_TO_17, no_hit) is None  # left to the title's autoplay
    sixteen = parse_sight(["TS", "6D"], "9H", ["hit", "stand", "surrender"])
    assert decide(Policy.CAUTIOUS, sixteen) is Action.SURRENDER
    assert (
        decide(Policy.CAUTIOUS, parse_sight(["TS", "6D"], "8H", ["hit", "stand"])) is Action.STAND
    )


def test_the_lineup_cycles_the_policies_and_drops_side_bets_only_without_side_bets() -> None:
    assert [policy for _, policy in lineup(5)] == list(Policy)
    assert Policy.SIDE_BETS not in {policy for _, policy in lineup(8, side_bets=False)}
    assert [name for name, _ in lineup(12)][9:] == ["Jun", "Ana 2", "Ben 2"]
    assert TRAITS[Policy.DOUBLER].insures and not TRAITS[Policy.HIT_TO_17].insures
