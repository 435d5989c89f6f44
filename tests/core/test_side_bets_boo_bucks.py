"""Boo Bucks side-bet evaluators, pattern by pattern, with explicit cards and the title's pay
tables."""

from __future__ import annotations

import pytest
from side_bet_helpers import cases, evaluate, paid

from boundless.core.side_bets import PENDING

BOO_BUCKS = "boo-bucks"

# Each bet's best-paying pattern (None: none pays) on example hands: the player's two cards, then
# the dealer's up card.
BEST = {
    "trifecta": {
        "three_fives": ["5S 5H 5D", "5S 5S 5S"],
        "straight_flush": ["9H TH JH", "AD 2D 3D", "QC KC AC"],
        "three_of_a_kind": ["KS KS KS", "7S 7H 7C"],
        "straight": ["AS 2H 3D", "QS KH AD", "4S 2H 3D"],
        "flush": ["2H 9H KH", "KH AH 2H"],
        None: ["KS AH 2D", "4S 4H 5D", "2S 4H 6D"],
    },
    # The ace ranks high, never low (nothing lies between K and A; 2 and A around a 3 is a wide
    # spread); a card equal to an end is not between.
    "in_between": {
        "triple_match": ["7S 7H 7D", "AS AS AS"],
        "spread_1": ["6S 8H 7D", "QS AH KD", "TS 8H 9C"],
        "spread_2": ["5S 8H 6D", "TS KH JD"],
        "spread_3": ["5S 9H 8D"],
        "spread_over_3": ["2S AH KD", "AH 2S 3D"],
        None: ["KS AH QD", "2S 5H 5D", "2S 3H 3D", "7S 7H 8D"],
    },
    # TS 9C against KS: the same value is not the same rank.
    "match_the_dealer": {
        "two_suited_matches": ["9H 9H 9H"],
        "suited_plus_unsuited": ["9H 9C 9H", "9C 9H 9H"],
        "suited_match": ["9H 4C 9H"],
        "two_unsuited_matches": ["9S 9C 9H", "9S 9S 9H"],
        "one_unsuited_match": ["2S 9C 9H"],
        None: ["TS 9C KS", "2H 3H 9H"],
    },
}
JACK_A_TACK_TWO_CARD = {
    "jack_a_tack": {
        "suited_one_eyed_jacks": ["JH JH 2C", "JS JS 9D"],
        "any_two_one_eyed_jacks": ["JH JS 5C"],
        "two_suited_jacks": ["JD JD 5C", "JC JC JC"],
        "any_two_jacks": ["JD JC 5C", "JH JD 5C"],
        "any_20": ["KH QH 5C", "TS JS 5C", "AS 9D 5C", "KH KH 5C"],
        None: ["JH 9D 5C", "AS KS 5C", "5S 5H TC"],
    },
}


@pytest.mark.parametrize(("key", "player", "up", "expected"), cases(BEST))
def test_each_bet_pays_its_highest_pattern(
    key: str, player: str, up: str, expected: str | None
) -> None:
    assert paid(BOO_BUCKS, key, player, up) == expected


def test_trifecta_reports_every_pattern_that_holds() -> None:
    assert evaluate("trifecta", "5S 5S", "5S") == {"three_fives", "three_of_a_kind", "flush"}
    assert evaluate("trifecta", "9H TH", "JH") == {"straight_flush", "straight", "flush"}


@pytest.mark.parametrize("variant", ["player_only", "with_dealer"])
@pytest.mark.parametrize(("key", "player", "up", "expected"), cases(JACK_A_TACK_TWO_CARD))
def test_jack_a_tack_two_card_pays(
    variant: str, key: str, player: str, up: str, expected: str | None
) -> None:
    assert paid(BOO_BUCKS, key, player, up, variant=variant) == expected


def test_jack_a_tack_four_jacks_wait_for_the_hole_card() -> None:
    assert evaluate("jack_a_tack", "JH JS", "JS", variant="with_dealer") is PENDING
    assert evaluate("jack_a_tack", "JH JH", "JH", variant="with_dealer") is PENDING
    # A two-eyed jack up, or two-eyed jacks in hand, never wait.
    assert evaluate("jack_a_tack", "JH JS", "JD", variant="with_dealer") is not PENDING
    assert evaluate("jack_a_tack", "JD JC", "JS", variant="with_dealer") is not PENDING
    # The player-only variant never waits.
    assert evaluate("jack_a_tack", "JH JS", "JS", variant="player_only") == {
        "any_two_one_eyed_jacks",
        "any_two_jacks",
        "any_20",
    }


@pytest.mark.parametrize(
    ("player", "up", "dealer", "expected"),
    [
        ("JH JH", "JH", "JH JH", "four_identical_one_eyed_jacks"),
        ("JS JS", "JS", "JS JS 5D", "four_identical_one_eyed_jacks"),
        ("JH JH", "JH", "JH JS", "any_four_one_eyed_jacks"),
        ("JH JS", "JS", "JS JH", "any_four_one_eyed_jacks"),
        ("JH JH", "JH", "JH JD", "suited_one_eyed_jacks"),
        ("JH JS", "JH", "JH 4C 7D", "any_two_one_eyed_jacks"),
    ],
)
def test_jack_a_tack_four_jack_pays_with_the_dealer(
    player: str, up: str, dealer: str, expected: str
) -> None:
    assert paid(BOO_BUCKS, "jack_a_tack", player, up, dealer) == expected


def test_jack_a_tack_four_jacks_need_the_dealer_variant() -> None:
    matched = evaluate("jack_a_tack", "JH JH", "JH", "JH JH", variant="player_only")
    assert matched == {
        "suited_one_eyed_jacks",
        "any_two_one_eyed_jacks",
        "two_suited_jacks",
        "any_two_jacks",
        "any_20",
    }


def test_jack_a_tack_rejects_an_unknown_variant() -> None:
    with pytest.raises(ValueError, match="variant"):
        evaluate("jack_a_tack", "JH JH", "2C", variant=None)


def test_match_the_dealer_reports_contained_patterns() -> None:
    assert evaluate("match_the_dealer", "9H 9C", "9H") == {
        "suited_plus_unsuited",
        "suited_match",
        "one_unsuited_match",
    }


@pytest.mark.parametrize(
    ("player", "expected"),
    [
        ("QD QD", {"suited_pair"}),
        ("QD QH", {"non_suited_pair"}),
        ("QD QS", {"non_suited_pair"}),
        ("QD KD", set()),
        ("TD KD", set()),
    ],
)
def test_hole_card_bonus(player: str, expected: set[str]) -> None:
    assert evaluate("hole_card_bonus", player, "5C") == expected


@pytest.mark.parametrize(
    ("player", "up", "dealer", "expected"),
    [
        ("AS KH", "2C", None, {"player_blackjack"}),
        ("TS AH", "9C", None, {"player_blackjack"}),
        ("AS 9H", "2C", None, set()),
        ("AS KH", "6C", "6C TD", {"player_blackjack", "xtreme_16"}),
        ("2S 3H", "KC", "KC 6D", {"xtreme_16"}),
        ("2S 3H", "6C", "6C JD", {"xtreme_16"}),
        ("2S 3H", "6C", "6C QD 5S", {"xtreme_16"}),
        ("2S 3H", "6C", "6C AD", set()),
        ("2S 3H", "6C", "6C 6D", set()),
        ("2S 3H", "TC", "TC 5H AD", set()),  # a drawn 16 is not an Xtreme 16
        ("2S 3H", "9C", "9C 7D", set()),
    ],
)
def test_bonus_spin_xtreme_triggers(
    player: str, up: str, dealer: str | None, expected: set[str]
) -> None:
    assert evaluate("bonus_spin_xtreme", player, up, dealer) == expected


@pytest.mark.parametrize("up", ["6C", "TC", "JD", "QH", "KS"])
def test_bonus_spin_xtreme_waits_when_an_xtreme_16_is_possible(up: str) -> None:
    assert evaluate("bonus_spin_xtreme", "AS KH", up) is PENDING
