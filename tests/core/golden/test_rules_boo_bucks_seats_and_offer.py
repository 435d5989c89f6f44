"""Golden rounds of Boo Bucks Blackjack: one player, three seats, limits and the side-bet offer.

Boo Bucks document: "A MAIN HAND BET MAY NOT BE GREATER THAN 5 TIMES THE TOTAL WAGER OF A SEAT TO
ITS RIGHT", the maximum wagers, "WHILE BETS ARE CLEARED, YOU MAY CHOOSE WHICH TWO SIDE BETS ARE
AVAILABLE", "YOU MAY CHOOSE TO WAGER THE BASE GAME WAGER, EITHER SIDE BET, OR ALL THREE FOR ANY
HAND"; DECISIONS.md rules 24 (seats 1-3 from the left), 26 and 27.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import golden_helpers as golden
import pytest

from boundless.core.errors import InvalidBetError, InvalidRuleSetError, RulesError
from boundless.core.round import SharedRound
from boundless.core.shoe import Shoe
from boundless.titles import load_game

CARDS = "2S 3S 4S 9H 5D 6D 7D 8C TC TD TH 9S 9C"
Seats = Mapping[int, tuple[int, Mapping[str, int]]]


def _place(seats: Seats, order: tuple[int, ...] | None = None) -> SharedRound:
    """Place the seats' bets one seat at a time (default: left to right)."""
    round_, _ = golden.new_round(golden.BOO_BUCKS, CARDS, offered=("trifecta", "in_between"))
    for number, spot in enumerate(order or sorted(seats)):
        main, sides = seats[spot]
        golden.bet(
            round_, "p", spot, main=main, sides=sides, balance=1_000_000 if number == 0 else None
        )
    return round_


ACCEPTED: list[tuple[str, Seats]] = [
    ("exactly 5 times the seat to the right", {1: (1000, {}), 2: (200, {})}),
    ("the nearest occupied seat when seat 2 is empty", {1: (1000, {}), 3: (200, {})}),
    ("a side-bet-only seat counts its side bets", {1: (1000, {}), 2: (0, {"trifecta": 200})}),
    ("total wager: base plus side bets", {1: (1500, {}), 2: (200, {"trifecta": 100})}),
    ("no limit from this rule on the last seat", {3: (500_000, {})}),
    ("the rightmost occupied seat is unbounded", {1: (5000, {}), 2: (1000, {})}),
    ("a chain of three seats", {1: (5000, {}), 2: (1000, {}), 3: (200, {})}),
    ("only the main bet is capped", {1: (100, {"trifecta": 5000}), 2: (100, {})}),
    ("a smaller main to the left is always fine", {1: (100, {}), 2: (5000, {})}),
]

REJECTED: list[tuple[str, Seats, str]] = [
    ("over 5 times", {1: (1100, {}), 2: (200, {})}, "seat 1 exceeds 5 times the 2.00"),
    ("over 5 times across the gap", {1: (1100, {}), 3: (200, {})}, "on seat 3"),
    (
        "over 5 times a side-bet-only seat",
        {1: (1100, {}), 2: (0, {"in_between": 200})},
        "seat 1 exceeds 5 times the 2.00",
    ),
    (
        "seat 2 over 5 times seat 3",
        {1: (5000, {}), 2: (1000, {}), 3: (100, {})},
        "seat 2 exceeds 5 times the 1.00 wagered on seat 3",
    ),
    ("over 5 times the total", {1: (1600, {}), 2: (200, {"trifecta": 100})}, "3.00"),
]


@pytest.mark.parametrize(("case", "seats"), ACCEPTED, ids=[case for case, _ in ACCEPTED])
def test_the_seat_rule_accepts(case: str, seats: Seats) -> None:
    round_ = _place(seats)
    assert len(round_.positions_of("p")) == len(seats)


@pytest.mark.parametrize(
    ("case", "seats", "words"), REJECTED, ids=[case for case, _, _ in REJECTED]
)
def test_the_seat_rule_rejects_and_changes_nothing(case: str, seats: Seats, words: str) -> None:
    *first, last = sorted(seats)
    round_ = _place({spot: seats[spot] for spot in first})
    main, sides = seats[last]
    with golden.unchanged(round_), pytest.raises(InvalidBetError, match=re.escape(words)):
        golden.bet(round_, "p", last, main=main, sides=sides, balance=None)


def test_the_seat_rule_holds_whatever_order_the_seats_are_filled_in() -> None:
    round_, shoe = golden.new_round(golden.BOO_BUCKS, CARDS)
    golden.bet(round_, "p", 3, main=200, balance=100_000)
    with golden.refused(
        round_, shoe, InvalidBetError, r"main bet 11\.00 on seat 1 exceeds 5 times"
    ):
        golden.bet(round_, "p", 1, main=1100, balance=None)
    golden.bet(round_, "p", 1, main=1000, balance=None)
    # seat 2 now lies between: its total must allow seat 1's 10.00 and fit under seat 3's cap
    with pytest.raises(
        InvalidBetError, match=r"seat 1 exceeds 5 times the 1\.00 wagered on seat 2"
    ):
        golden.bet(round_, "p", 2, main=100, balance=None)
    golden.bet(round_, "p", 2, main=1000, balance=None)


def test_the_seat_rule_over_a_batch_of_bets_at_once() -> None:
    round_, shoe = golden.new_round(golden.BOO_BUCKS, CARDS)
    with golden.refused(round_, shoe, InvalidBetError, "seat 1 exceeds 5 times"):
        round_.place_bets(["p", "p", "p"], [1, 2, 3], [5000, 900, 200], None, [100_000] * 3)
    round_.place_bets(["p", "p", "p"], [1, 2, 3], [5000, 1000, 200], None, [100_000] * 3)


@pytest.mark.parametrize("spot", [0, 4])
def test_seats_are_numbered_one_to_three(spot: int) -> None:
    round_, _ = golden.new_round(golden.BOO_BUCKS, CARDS)
    with pytest.raises(InvalidBetError, match="the table has spots"):
        golden.bet(round_, "p", spot)


def test_a_private_table_takes_one_player_only() -> None:
    round_, _ = golden.new_round(golden.BOO_BUCKS, CARDS)
    golden.bet(round_, "p", 1)
    with pytest.raises(RulesError):
        golden.bet(round_, "q", 2)


@pytest.mark.parametrize(
    ("key", "maximum"),
    [("main", 500_000), ("trifecta", 500_000), ("jack_a_tack", 50_000), ("in_between", 5000)],
)
def test_maximum_wagers_per_hand(key: str, maximum: int) -> None:
    offered = ("trifecta", "jack_a_tack") if key != "in_between" else ("in_between", "trifecta")
    for amount, accepted in ((maximum, True), (maximum + 100, False)):
        round_, shoe = golden.new_round(golden.BOO_BUCKS, CARDS, offered=offered)
        main, sides = (amount, {}) if key == "main" else (1000, {key: amount})
        if accepted:
            golden.bet(round_, "p", 3, main=main, sides=sides, balance=2_000_000)
            continue
        with golden.refused(round_, shoe, InvalidBetError, "outside"):
            golden.bet(round_, "p", 3, main=main, sides=sides, balance=2_000_000)


def test_the_configured_limits_of_every_side_bet() -> None:
    rules = golden.rules_of(golden.BOO_BUCKS)
    limits = {
        side_bet.key: (side_bet.min_amount, side_bet.max_amount) for side_bet in rules.side_bets
    }
    assert limits == {
        "trifecta": (100, 500_000),
        "jack_a_tack": (100, 50_000),
        "in_between": (100, 5000),
        "match_the_dealer": (100, 50_000),
        "hole_card_bonus": (100, 50_000),
        "bonus_spin_xtreme": (100, 10_000),
        "bonus_spin_xtreme_dealer": (100, 10_000),
    }
    assert (rules.limits.min_main_amount, rules.limits.max_main_amount) == (100, 500_000)


@pytest.mark.parametrize("preset", golden.BOO_BUCKS_PRESETS)
def test_the_player_chooses_two_side_bet_groups_out_of_six(preset: str) -> None:
    rules, chart = load_game(preset)
    assert list(rules.side_bet_groups()) == [
        "trifecta",
        "jack_a_tack",
        "in_between",
        "match_the_dealer",
        "hole_card_bonus",
        "bonus_spin_xtreme",
    ]
    assert rules.side_bet_groups()["bonus_spin_xtreme"] == [
        "bonus_spin_xtreme",
        "bonus_spin_xtreme_dealer",
    ]
    for offered in (["trifecta"], ["trifecta", "in_between", "jack_a_tack"]):
        with pytest.raises(InvalidRuleSetError, match="choose exactly 2 side bets"):
            SharedRound(rules, chart=chart, cards=Shoe.stacked([]), offered_side_bets=offered)
    with pytest.raises(InvalidRuleSetError, match="'pair' is not offered"):
        SharedRound(
            rules, chart=chart, cards=Shoe.stacked([]), offered_side_bets=["pair", "trifecta"]
        )


def test_only_the_two_chosen_side_bets_may_be_wagered() -> None:
    round_, shoe = golden.new_round(
        golden.BOO_BUCKS, CARDS, offered=("match_the_dealer", "bonus_spin_xtreme")
    )
    assert round_.available_side_bets() == frozenset(
        {"match_the_dealer", "bonus_spin_xtreme", "bonus_spin_xtreme_dealer"}
    )
    with golden.unchanged(round_, shoe):
        for key in ("trifecta", "jack_a_tack", "in_between", "hole_card_bonus"):
            with pytest.raises(InvalidBetError, match=f"side bet '{key}' is not available"):
                golden.bet(round_, "p", 1, sides={key: 100})
    golden.bet(round_, "p", 1, sides={"match_the_dealer": 100, "bonus_spin_xtreme": 100})


def test_the_choice_is_made_per_round_before_any_bet() -> None:
    first, _ = golden.new_round(golden.BOO_BUCKS, CARDS, offered=("trifecta", "in_between"))
    second, _ = golden.new_round(
        golden.BOO_BUCKS, CARDS, offered=("hole_card_bonus", "jack_a_tack")
    )
    assert first.offered_side_bets == ("trifecta", "in_between")
    assert second.offered_side_bets == ("hole_card_bonus", "jack_a_tack")
    assert first.events[0].offered_side_bets == ("trifecta", "in_between")  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("main", "sides"),
    [
        pytest.param(1000, {}, id="base-only"),
        pytest.param(0, {"trifecta": 100}, id="side-bet-1-only"),
        pytest.param(0, {"in_between": 100}, id="side-bet-2-only"),
        pytest.param(0, {"trifecta": 100, "in_between": 100}, id="both-side-bets"),
        pytest.param(1000, {"trifecta": 100}, id="base-and-side-bet-1"),
        pytest.param(1000, {"trifecta": 100, "in_between": 100}, id="all-three"),
    ],
)
def test_any_of_base_side_bet_1_side_bet_2_on_each_seat(main: int, sides: dict[str, int]) -> None:
    round_, _ = golden.new_round(golden.BOO_BUCKS, CARDS)
    for spot in (1, 2, 3):
        golden.bet(
            round_, "p", spot, main=main, sides=sides, balance=100_000 if spot == 1 else None
        )
    golden.play(round_, {("p", spot): ["stand"] for spot in (1, 2, 3)})
    assert round_.phase == "settled"


def test_a_seat_needs_at_least_one_wager() -> None:
    round_, shoe = golden.new_round(golden.BOO_BUCKS, CARDS)
    with golden.refused(round_, shoe, InvalidBetError, "a main bet or at least one side bet"):
        golden.bet(round_, "p", 1, main=0)
