"""Boundless side options (Pair, Bust Bonus, Lucky Trio, Poker Trio) with the title's pay table."""

from __future__ import annotations

import pytest

from boundless.core.cards import Card, parse_cards
from boundless.core.side_bets import PENDING, SIDE_BET_KINDS, best_paying_pattern
from boundless.titles import load_title


def paid(key: str, player: str, up: str, dealer: str | None = None) -> str | None:
    bet = load_title("boundless").side_bet(key)
    assert bet is not None
    dealer_cards = parse_cards(dealer.split()) if dealer is not None else None
    matched = SIDE_BET_KINDS[bet.kind].evaluate(
        parse_cards(player.split()), Card.parse(up), dealer_cards, bet.variant
    )
    assert matched is not PENDING
    return best_paying_pattern(matched, bet.pays)


@pytest.mark.parametrize(
    ("player", "expected"),
    [
        ("8D 8D", "perfect_pair"),
        ("8D 8H", "colored_pair"),
        ("8S 8C", "colored_pair"),
        ("8S 8H", "mixed_pair"),
        ("8C 8D", "mixed_pair"),
        ("TS KS", None),  # same value, different rank: not a pair here (DECISIONS.md rule 2)
        ("AS 2S", None),
    ],
)
def test_pair(player: str, expected: str | None) -> None:
    assert paid("pair", player, "5C") == expected


@pytest.mark.parametrize(
    ("dealer", "expected"),
    [
        ("TS 6H 9D", "bust_3"),
        ("5S 7H 2D KC", "bust_4"),
        ("2S 2H 2D 2C 5S KC", "bust_6"),
        ("2S 3H 2D 3C 2S 2H 2D 9C", "bust_8"),
        ("2S 2H 2D 2C 3S AS AH AD AC TC", "bust_8"),  # 10 cards pay as 8+
        ("2S 3H 2D 3C 2S 2H KC", "bust_7"),
        ("AS 5H TD 7C", "bust_4"),  # soft 16 becomes hard 16, then busts
        ("AS KH", None),  # a dealer blackjack loses the bet
        ("TS 7H", None),
        ("5S 7H 2D 4C", None),
    ],
)
def test_bust_bonus_counts_the_cards_of_the_bust_hand(dealer: str, expected: str | None) -> None:
    up = dealer.split()[0]
    assert paid("bust_bonus", "9S 9H", up, dealer) == expected


def test_bust_bonus_waits_for_the_dealer() -> None:
    kind = SIDE_BET_KINDS["bust_bonus"]
    assert kind.evaluate(parse_cards(["9S", "9H"]), Card.parse("6D"), None, None) is PENDING


@pytest.mark.parametrize(
    ("player", "up", "expected"),
    [
        ("7H 7H", "7H", "suited_777"),
        ("7H 7S", "7H", "unsuited_777"),
        ("6D 8D", "7D", "suited_678"),
        ("6D 8C", "7D", "unsuited_678"),
        ("9S 2S", "TS", "suited_21"),
        ("AS 9S", "AS", "suited_21"),  # aces count as in blackjack: A+9+A = 21
        ("9S 2H", "TS", "unsuited_21"),
        ("AS AH", "7D", "total_19_20"),  # soft 19
        ("TS 4H", "6D", "total_19_20"),
        ("TS 5H", "4D", "total_19_20"),
        ("TS 5H", "7D", None),  # 22
        ("2S 3H", "4D", None),
    ],
)
def test_lucky_trio(player: str, up: str, expected: str | None) -> None:
    assert paid("lucky_trio", player, up) == expected


@pytest.mark.parametrize(
    ("player", "up", "expected"),
    [
        ("QH QH", "QH", "suited_trips"),
        ("QH QS", "QH", "three_of_a_kind"),
        ("AD 2D", "3D", "straight_flush"),
        ("QD KD", "AD", "straight_flush"),
        ("AS 2H", "3D", "straight"),
        ("QS KH", "AD", "straight"),
        ("KS AH", "2D", None),  # no going round the corner
        ("KS AS", "2S", "flush"),
        ("4C 6C", "5C", "straight_flush"),
        ("4C 9C", "KC", "flush"),
        ("4C 4H", "5C", None),
    ],
)
def test_poker_trio(player: str, up: str, expected: str | None) -> None:
    assert paid("poker_trio", player, up) == expected
