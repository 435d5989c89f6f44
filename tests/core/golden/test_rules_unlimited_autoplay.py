"""Golden rounds of Blackjack Unlimited: the 10-second decision and basic-strategy autoplay.

Unlimited document: "Player will have 10 seconds to take a decision ... basic strategy via auto
play is applied", "when the auto play takes over, the system will double or split hands based on
basic strategy ... up to 4 units", "If the player does not have enough funds ... the second option
in the basic strategy chart"; DECISIONS.md rule 22.
"""

from __future__ import annotations

import pytest
from golden_helpers import (
    UNLIMITED,
    Hand,
    bet,
    dealt,
    hand,
    hands,
    new_round,
    played,
    result,
    rules_of,
    variant,
)

FILLER = " ".join(["2C"] * 12)


def _moves(round_: object, player: str, spot: int) -> list[tuple[str, str, int]]:
    return [
        decision
        for item in result(round_, player, spot).hands  # type: ignore[arg-type]
        for decision in item.decisions
    ]


def test_the_decision_time_is_ten_seconds_and_a_rule_set_number() -> None:
    assert rules_of(UNLIMITED).timers.decision_seconds == 10
    assert variant(UNLIMITED, timers={"decision_seconds": 7}).timers.decision_seconds == 7


@pytest.mark.parametrize(
    ("cards", "first_move"),
    [
        pytest.param("TS 4H 2D", "stand", id="hard-12-v-4-S"),
        pytest.param("TS 2H 2D", "hit", id="hard-12-v-2-H"),
        pytest.param("TS TH 6D", "surrender", id="hard-16-v-10-Rs"),
        pytest.param("TS 9H 6D", "surrender", id="hard-16-v-9-Rh"),
        pytest.param("9S KH 6D", "surrender", id="hard-15-v-10-Rh"),
        pytest.param("6S TH 5D", "double", id="hard-11-v-10-Dh"),
        pytest.param("AS 3H 7D", "double", id="soft-18-v-3-Ds"),
        pytest.param("AS 9H 7D", "hit", id="soft-18-v-9-H"),
        pytest.param("TS 7H 7D", "stand", id="hard-17-v-7-S"),
        pytest.param("5S 6H 5D", "double", id="pair-of-fives-v-6-Dh"),
        pytest.param("9S 6H 9D", "split", id="nines-v-6-P"),
        # Rp (surrender, else split) on a pair offered only Split or Surrender 20%: the
        # chart's surrender is the Surrender 20% (ruling of commit ee0a095).
        pytest.param("8S TH 8D", "surrender20", id="eights-v-10-Rp-surrenders-20"),
        pytest.param("AS AH AD", "surrender20", id="aces-v-ace-Rp-surrenders-20"),
        pytest.param("8S 7H 8D", "split", id="eights-v-7-P-splits"),
    ],
)
def test_a_silent_hand_is_played_by_the_titles_chart(cards: str, first_move: str) -> None:
    round_, _ = played(UNLIMITED, f"{cards} {FILLER}")
    assert _moves(round_, "p", 1)[0] == (first_move, "autoplay", 1)
    assert all(item.autoplayed for item in result(round_, "p", 1).hands)


def test_the_autoplay_splits_and_doubles_so_one_unit_becomes_four() -> None:
    """8S 8D against 6C, nobody answers: split (P); hand 1 takes 3C (11) and doubles on 4C;
    hand 2 takes 2D (10) and doubles on 5D. The dealer 6C TC TD busts: 8,000 back on 4,000."""
    round_, _ = played(UNLIMITED, "8S 6C 8D 3C 4C 2D 5D TC TD")
    assert hands(round_, "p", 1) == [
        Hand("8S 3C 4C", 15, 2000, "win", 4000),
        Hand("8D 2D 5D", 15, 2000, "win", 4000),
    ]
    assert result(round_, "p", 1).staked_amount == 4000
    assert _moves(round_, "p", 1) == [
        ("split", "autoplay", 1),
        ("double", "autoplay", 2),
        ("double", "autoplay", 4),
    ]


@pytest.mark.parametrize(
    ("cards", "expected", "moves"),
    [
        pytest.param(
            "8S 6C 8D TC TD",
            Hand("8S 8D", 16, 1000, "surrender20", 800),
            [("surrender20", "autoplay", 1)],
            id="split-becomes-surrender-20",
        ),
        pytest.param(
            "6S 6H 5D 2C TC 9C",
            Hand("6S 5D 2C", 13, 1000, "win", 2000),
            [("hit", "autoplay", 1), ("stand", "autoplay", 2)],
            id="double-else-hit-hits",
        ),
        pytest.param(
            "AS 3H 7D TC 5C",
            Hand("AS 7D", 18, 1000, "push", 1000),
            [("stand", "autoplay", 1)],
            id="double-else-stand-stands",
        ),
    ],
)
def test_second_choices_when_the_coins_do_not_cover_the_autoplays_double_or_split(
    cards: str, expected: Hand, moves: list[tuple[str, str, int]]
) -> None:
    # the bet takes every coin
    round_, _ = played(UNLIMITED, cards, balance=1000)
    assert hand(round_, "p", 1) == expected
    assert _moves(round_, "p", 1) == moves


def test_the_autoplay_on_several_spots_shares_the_players_coins() -> None:
    """p plays spot 1 (8S 8D) and spot 2 (6S 5H) against 6C with 1,000 coins beyond the bets.
    Spot 1 splits and spends them; its hands (11 and 10) and spot 2's 11 can only hit."""
    round_, _ = new_round(UNLIMITED, "8S 6S 6C 8D 5H 3C 4C 2D 5D 9C TC TH")
    bet(round_, "p", 1, balance=3000)
    bet(round_, "p", 2, balance=None)
    round_.run_to_end()
    assert hands(round_, "p", 1) == [
        Hand("8S 3C 4C", 15, 1000, "win", 2000),
        Hand("8D 2D 5D", 15, 1000, "win", 2000),
    ]
    assert hand(round_, "p", 2) == Hand("6S 5H 9C", 20, 1000, "win", 2000)
    assert _moves(round_, "p", 1)[:2] == [("split", "autoplay", 1), ("hit", "autoplay", 2)]
    assert _moves(round_, "p", 2)[0] == ("hit", "autoplay", 1)


def test_the_autoplay_takes_over_after_the_players_own_decisions() -> None:
    # TS 2D = 12 against 2H: p hits 3C (15) and then says nothing: the chart stands on 15 v 2.
    round_, _ = played(UNLIMITED, "TS 2H 2D 3C TC 5C", "hit")
    assert _moves(round_, "p", 1) == [("hit", "player", 1), ("stand", "autoplay", 2)]
    assert hand(round_, "p", 1) == Hand("TS 2D 3C", 15, 1000, "lose", 0)


@pytest.mark.parametrize(
    ("cards", "action", "fallback", "expected"),
    [
        pytest.param(
            "6S 6H 5D 2C TC 9C",
            "double",
            "hit",
            Hand("6S 5D 2C", 13, 1000, "win", 2000),
            id="Dh-hits",
        ),
        pytest.param(
            "AS 3H 7D TC 5C",
            "double",
            "stand",
            Hand("AS 7D", 18, 1000, "push", 1000),
            id="Ds-stands",
        ),
        pytest.param(
            "8S 6C 8D TC TD",
            "split",
            "surrender20",
            Hand("8S 8D", 16, 1000, "surrender20", 800),
            id="P-surrenders-20",
        ),
    ],
)
def test_a_players_double_or_split_the_coins_no_longer_cover_falls_back_to_the_second_choice(
    cards: str, action: str, fallback: str, expected: Hand
) -> None:
    round_, _ = dealt(UNLIMITED, cards, balance=5000)
    round_.decide("p", 1, action)
    round_.set_free_coins(["p"], [0])  # the coins went elsewhere before the step executed
    round_.close_step()
    round_.run_to_end()
    assert hand(round_, "p", 1) == expected
    assert _moves(round_, "p", 1)[0] == (fallback, "fallback", 1)
    assert result(round_, "p", 1).hands[0].fallback
