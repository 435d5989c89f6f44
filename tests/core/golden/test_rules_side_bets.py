"""Golden rounds: the four side options, their pay tables and their availability by round.

Boundless document: "Playing" phase (side options with or without a main play), "Rewards"
(Pair, Bust Bonus, Lucky Trio, Poker Trio, Max Round Availability); DECISIONS.md rules 2, 4, 7
and 14. Every stake is 1.00 coin (100), so ``N:1`` pays ``100 + N * 100``.
"""

from __future__ import annotations

import golden_helpers as golden
import pytest

from boundless.core.errors import InvalidBetError, RulesError
from boundless.core.round.views import player_view

PAD = " KC KD KH KS"  # cards enough for any autoplay and dealer draws


def side_only_result(key: str, player: str, up: str, hole: str = "7C", extra: str = PAD):
    """Deal ``player`` (two cards) against ``up``/``hole`` to a seated player and a
    side-option-only player betting 100 on ``key``; returns the side bet's result."""
    first, second = player.split()
    round_, _ = golden.opened(golden.BOUNDLESS, f"{first} {up} {second} {hole}{extra}", "seated")
    golden.seat(round_, "s", main=0, sides={key: 100})
    golden.play(round_)
    return golden.side(round_, "s", 1, key)


# ---- Pair (player's first two cards, by rank) ---------------------------------------------


@pytest.mark.parametrize(
    ("player", "expected"),
    [
        ("8S 8S", ("win", "perfect_pair", 3100)),  # same rank, same suit: 30:1
        ("8H 8D", ("win", "colored_pair", 1100)),  # same rank, both red: 10:1
        ("8S 8C", ("win", "colored_pair", 1100)),  # same rank, both black: 10:1
        ("8S 8H", ("win", "mixed_pair", 600)),  # same rank, black and red: 5:1
        ("KS QS", ("lose", None, 0)),  # same value, different rank: no pair (rule 2)
        ("8S 9S", ("lose", None, 0)),
    ],
)
def test_pair(player: str, expected: tuple[str, str | None, int]) -> None:
    assert side_only_result("pair", player, "5D") == expected


def test_pair_pays_only_the_highest_pattern() -> None:
    # A perfect pair is also a same-colour and a same-rank pair: only 30:1 is paid.
    assert side_only_result("pair", "AD AD", "5D") == ("win", "perfect_pair", 3100)


def test_pair_is_paid_whatever_becomes_of_the_hand() -> None:
    # 8S 8S split and both hands bust later: the pair was decided by the first two cards.
    round_, _ = golden.played(
        golden.BOUNDLESS, "8S 6D 8S TC 6C KH KD KS 9C", "split", "hit", "hit", sides={"pair": 100}
    )
    assert golden.side(round_, "p", 1, "pair") == ("win", "perfect_pair", 3100)
    assert [h.outcome for h in golden.result(round_, "p").hands] == ["lose", "lose"]


# ---- Bust Bonus (cards in the dealer's bust hand) -----------------------------------------


@pytest.mark.parametrize(
    ("dealer", "expected"),
    [
        ("6D TC 9S", ("win", "bust_3", 200)),  # 1:1
        ("5D 7C 2S 9S", ("win", "bust_4", 300)),  # 2:1
        ("2D 2C 2S 8S KS", ("win", "bust_5", 1000)),  # 9:1
        ("2D 2C 2S 2H 6S KS", ("win", "bust_6", 5100)),  # 50:1
        ("2D 2C 2S 2H 2C 2D KS", ("win", "bust_7", 10100)),  # 100:1
        ("2D 2C 2S 2H 2C 2D 2S KS", ("win", "bust_8", 25100)),  # 250:1
        ("2D 2C 2S 2H 2C 2D 2S 2H KS", ("win", "bust_8", 25100)),  # nine cards: 8+ row
        ("6D TC AS", ("lose", None, 0)),  # 17, no bust
        ("9D 8C", ("lose", None, 0)),
    ],
)
def test_bust_bonus_pays_by_the_number_of_cards_in_the_dealers_bust_hand(
    dealer: str, expected: tuple[str, str | None, int]
) -> None:
    up, hole, *draws = dealer.split()
    # The seated player holds TS TH = 20 and stands (autoplay), so every draw is the dealer's.
    round_, _ = golden.played(
        golden.BOUNDLESS, " ".join(["TS", up, "TH", hole, *draws, "KC"]), sides={"bust_bonus": 100}
    )
    assert " ".join(str(card) for card in round_.dealer_cards) == dealer
    assert golden.side(round_, "p", 1, "bust_bonus") == expected


def test_bust_bonus_loses_to_a_dealer_blackjack() -> None:
    assert side_only_result("bust_bonus", "TS TH", "AD", hole="KC") == ("lose", None, 0)


def test_bust_bonus_is_paid_even_when_the_player_busted_first() -> None:
    # Player TS 6H hits KC (26); dealer 6D TC draws 9S: bust with three cards.
    round_, _ = golden.played(
        golden.BOUNDLESS, "TS 6D 6H TC KC 9S", "hit", sides={"bust_bonus": 100}
    )
    assert golden.hand(round_, "p").outcome == "lose"
    assert golden.side(round_, "p", 1, "bust_bonus") == ("win", "bust_3", 200)


# ---- Lucky Trio (player's two cards + dealer's up card) -----------------------------------


@pytest.mark.parametrize(
    ("player", "up", "expected"),
    [
        ("9S 7H", "3D", ("win", "total_19_20", 300)),  # 19: 2:1
        ("TS 5H", "5D", ("win", "total_19_20", 300)),  # 20: 2:1
        ("AS 9H", "9D", ("win", "total_19_20", 300)),  # ace counts 1: 19
        ("9S 7H", "5D", ("win", "unsuited_21", 400)),  # 3:1
        ("AS KH", "QD", ("win", "unsuited_21", 400)),  # ace counts 1: 21
        ("AS AH", "9D", ("win", "unsuited_21", 400)),  # one ace 11, one ace 1: 21
        ("9S 7S", "5S", ("win", "suited_21", 1100)),  # 10:1
        ("6S 8H", "7D", ("win", "unsuited_678", 3100)),  # 30:1 (also 21: highest only)
        ("7S 7H", "7D", ("win", "unsuited_777", 5100)),  # 50:1
        ("6H 8H", "7H", ("win", "suited_678", 10100)),  # 100:1
        ("7C 7C", "7C", ("win", "suited_777", 20100)),  # 200:1
        ("2S 3H", "4D", ("lose", None, 0)),
        ("TS 8H", "KD", ("lose", None, 0)),  # 28: no pattern
    ],
)
def test_lucky_trio(player: str, up: str, expected: tuple[str, str | None, int]) -> None:
    assert side_only_result("lucky_trio", player, up) == expected


def test_lucky_trio_uses_the_up_card_not_the_hole_card() -> None:
    # Player 9S 7H, up 2D (18: nothing), hole 3C would make 19 with the hand.
    assert side_only_result("lucky_trio", "9S 7H", "2D", hole="3C") == ("lose", None, 0)


# ---- Poker Trio (player's two cards + dealer's up card) -----------------------------------


@pytest.mark.parametrize(
    ("player", "up", "expected"),
    [
        ("2S 9S", "5S", ("win", "flush", 600)),  # 5:1
        ("4S 5H", "6D", ("win", "straight", 1100)),  # 10:1
        ("AS 2H", "3D", ("win", "straight", 1100)),  # A-2-3 counts
        ("QS KH", "AD", ("win", "straight", 1100)),  # Q-K-A counts
        ("8S 8H", "8D", ("win", "three_of_a_kind", 3100)),  # 30:1
        ("8S 8S", "8H", ("win", "three_of_a_kind", 3100)),  # not all one suit
        ("4H 5H", "6H", ("win", "straight_flush", 4100)),  # 40:1, not flush + straight
        ("8S 8S", "8S", ("win", "suited_trips", 10100)),  # 100:1
        ("KS AH", "2D", ("lose", None, 0)),  # K-A-2 does not count
        ("KS 2H", "AD", ("lose", None, 0)),
        ("2S 9H", "5D", ("lose", None, 0)),
    ],
)
def test_poker_trio(player: str, up: str, expected: tuple[str, str | None, int]) -> None:
    assert side_only_result("poker_trio", player, up) == expected


# ---- availability by round in the shoe ------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "last_round"),
    [("pair", 40), ("bust_bonus", 45), ("lucky_trio", 45), ("poker_trio", 45)],
)
def test_side_options_are_available_up_to_their_last_round_in_the_shoe(
    key: str, last_round: int
) -> None:
    for round_in_shoe in (1, last_round):
        round_, _ = golden.boundless_round("TS 9D TH 8C", round_in_shoe=round_in_shoe)
        assert key in round_.available_side_bets()
        assert round_.side_bet_rounds_left()[key] == last_round - round_in_shoe + 1
        golden.seat(round_, "p", sides={key: 100})
        assert golden.staked(round_, "p") == 1100

    round_, shoe = golden.boundless_round("TS 9D TH 8C", round_in_shoe=last_round + 1)
    assert key not in round_.available_side_bets()
    assert round_.side_bet_rounds_left()[key] == 0
    golden.seat(round_, "other")
    with golden.refused(round_, shoe, InvalidBetError, f"{key}.*not available"):
        round_.place_bet("p", 1, 1000, {key: 100}, free_amount=100_000)
    golden.seat(round_, "p")  # the main bet alone is still fine


def test_the_four_side_options_pay_independently_in_one_round() -> None:
    # Player 7S 7S, up 7S: perfect pair 30:1, suited 777 200:1, suited trips 100:1.
    # Player stands on 14 (autoplay); dealer 7S 9C = 16 draws KC: bust with 3 cards, 1:1.
    every_side = {"pair": 100, "bust_bonus": 100, "lucky_trio": 100, "poker_trio": 100}
    round_, _ = golden.played(golden.BOUNDLESS, "7S 7S 7S 9C KC", sides=every_side)
    assert golden.side(round_, "p", 1, "pair") == ("win", "perfect_pair", 3100)
    assert golden.side(round_, "p", 1, "lucky_trio") == ("win", "suited_777", 20100)
    assert golden.side(round_, "p", 1, "poker_trio") == ("win", "suited_trips", 10100)
    assert golden.side(round_, "p", 1, "bust_bonus") == ("win", "bust_3", 200)
    assert golden.hand(round_, "p").outcome == "win"
    assert golden.net(round_, "p") == 3100 + 20100 + 10100 + 200 + 2000 - 1400


# ---- side-option-only players --------------------------------------------------------------


def test_a_side_option_only_player_sees_the_shared_cards_and_has_no_hand() -> None:
    round_, shoe = golden.opened(golden.BOUNDLESS, "8S 6D 8H TC 3C 9S", "seated")
    golden.seat(round_, "s", main=0, sides={"pair": 100, "bust_bonus": 100})
    round_.deal()
    view = player_view(round_, "s")
    assert view["spots"]["1"]["cards"] == ["8S", "8H"]
    assert view["dealer"]["cards"] == ["6D"]
    assert round_.legal_actions("s", 1) == frozenset()
    with golden.refused(round_, shoe, RulesError, "player 's'"):
        round_.decide("s", 1, "hit")
    round_.decide("seated", 1, "hit")
    round_.run_to_end()
    assert golden.result(round_, "s").hands == ()
    assert golden.drawn(round_, "seated") == ["3C"]
    assert golden.side(round_, "s", 1, "pair") == ("win", "mixed_pair", 600)
    assert golden.side(round_, "s", 1, "bust_bonus") == ("win", "bust_3", 200)  # 6D TC 9S
    assert (golden.staked(round_, "s"), golden.net(round_, "s")) == (200, 600)


def test_a_bet_needs_a_main_play_or_a_side_option() -> None:
    round_, shoe = golden.boundless_round("8S 6D 8H TC")
    with golden.unchanged(round_, shoe), pytest.raises(InvalidBetError):
        round_.place_bet("p", 1, 0, {}, free_amount=100_000)
