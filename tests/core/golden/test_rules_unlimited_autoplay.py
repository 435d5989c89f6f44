"""Golden rounds of Blackjack Unlimited: the 10-second decision and basic-strategy autoplay.

Unlimited document: "Player will have 10 seconds to take a decision ... basic strategy via auto
play is applied", "when the auto play takes over, the system will double or split hands based on
basic strategy ... up to 4 units", "If the player does not have enough funds ... the second option
in the basic strategy chart"; DECISIONS.md rule 22.
"""

from __future__ import annotations

from dataclasses import dataclass

import golden_helpers as golden
import pytest


@dataclass(frozen=True)
class ShortOfCoins:
    """A hand whose double or split the coins do not cover."""

    cards: str
    action: str
    """The chart's move."""
    fallback: str
    """The chart's second choice."""
    expected: golden.Hand
    """The hand as it ends."""
    autoplayed: list[tuple[str, str, int]]
    """The autoplay's moves on it."""


# The cases, ShortOfCoins' first four fields a row; AUTOPLAYED holds the last one.
SHORT_OF_COINS = [
    ("8S 6C 8D TC TD", "split", "surrender20", golden.Hand("8S 8D", 16, 1000, "surrender20", 800)),
    ("6S 6H 5D 2C TC 9C", "double", "hit", golden.Hand("6S 5D 2C", 13, 1000, "win", 2000)),
    ("AS 3H 7D TC 5C", "double", "stand", golden.Hand("AS 7D", 18, 1000, "push", 1000)),
]
AUTOPLAYED = [
    [("surrender20", "autoplay", 1)],
    [("hit", "autoplay", 1), ("stand", "autoplay", 2)],
    [("stand", "autoplay", 1)],
]
CASES = [
    pytest.param(ShortOfCoins(*case, autoplayed), id=f"{case[1]}-else-{case[2]}")
    for case, autoplayed in zip(SHORT_OF_COINS, AUTOPLAYED, strict=True)
]


def test_the_decision_time_is_ten_seconds_and_a_rule_set_number() -> None:
    assert golden.rules_of(golden.UNLIMITED).timers.decision_seconds == 10
    assert (
        golden.variant(golden.UNLIMITED, timers={"decision_seconds": 7}).timers.decision_seconds
        == 7
    )


def test_the_autoplay_splits_and_doubles_so_one_unit_becomes_four() -> None:
    """8S 8D against 6C, nobody answers: split (P); hand 1 takes 3C (11) and doubles on 4C;
    hand 2 takes 2D (10) and doubles on 5D. The dealer 6C TC TD busts: 8,000 back on 4,000."""
    round_, _ = golden.played(golden.UNLIMITED, "8S 6C 8D 3C 4C 2D 5D TC TD")
    assert golden.hands(round_, "p", 1) == [
        golden.Hand("8S 3C 4C", 15, 2000, "win", 4000),
        golden.Hand("8D 2D 5D", 15, 2000, "win", 4000),
    ]
    assert golden.result(round_, "p", 1).staked_amount == 4000
    assert golden.moves(round_, "p", 1) == [
        ("split", "autoplay", 1),
        ("double", "autoplay", 2),
        ("double", "autoplay", 4),
    ]


@pytest.mark.parametrize("case", CASES)
def test_second_choices_when_the_coins_do_not_cover_the_autoplays_double_or_split(
    case: ShortOfCoins,
) -> None:
    # the bet takes every coin
    round_, _ = golden.played(golden.UNLIMITED, case.cards, balance=1000)
    assert golden.hand(round_, "p", 1) == case.expected
    assert golden.moves(round_, "p", 1) == case.autoplayed


def test_the_autoplay_on_several_spots_shares_the_players_coins() -> None:
    """p plays spot 1 (8S 8D) and spot 2 (6S 5H) against 6C with 1,000 coins beyond the bets.
    Spot 1 splits and spends them; its hands (11 and 10) and spot 2's 11 can only hit."""
    round_, _ = golden.new_round(golden.UNLIMITED, "8S 6S 6C 8D 5H 3C 4C 2D 5D 9C TC TH")
    golden.bet(round_, "p", 1, balance=3000)
    golden.bet(round_, "p", 2, balance=None)
    round_.run_to_end()
    assert golden.hands(round_, "p", 1) == [
        golden.Hand("8S 3C 4C", 15, 1000, "win", 2000),
        golden.Hand("8D 2D 5D", 15, 1000, "win", 2000),
    ]
    assert golden.hand(round_, "p", 2) == golden.Hand("6S 5H 9C", 20, 1000, "win", 2000)
    assert golden.moves(round_, "p", 1)[:2] == [("split", "autoplay", 1), ("hit", "autoplay", 2)]
    assert golden.moves(round_, "p", 2)[0] == ("hit", "autoplay", 1)


def test_the_autoplay_takes_over_after_the_players_own_decisions() -> None:
    # TS 2D = 12 against 2H: p hits 3C (15) and then says nothing: the chart stands on 15 v 2.
    round_, _ = golden.played(golden.UNLIMITED, "TS 2H 2D 3C TC 5C", "hit")
    assert golden.moves(round_, "p", 1) == [("hit", "player", 1), ("stand", "autoplay", 2)]
    assert golden.hand(round_, "p", 1) == golden.Hand("TS 2D 3C", 15, 1000, "lose", 0)


@pytest.mark.parametrize("case", CASES)
def test_a_players_double_or_split_the_coins_no_longer_cover_falls_back_to_the_second_choice(
    case: ShortOfCoins,
) -> None:
    round_, _ = golden.dealt(golden.UNLIMITED, case.cards, balance=5000)
    round_.decide("p", 1, case.action)
    round_.set_free_coins(["p"], [0])  # the coins went elsewhere before the step executed
    round_.close_step()
    round_.run_to_end()
    assert golden.hand(round_, "p", 1) == case.expected
    assert golden.moves(round_, "p", 1)[0] == (case.fallback, "fallback", 1)
    assert golden.result(round_, "p", 1).hands[0].fallback
