"""Boundless side options (Pair, Bust Bonus, Lucky Trio, Poker Trio) with the title's pay table."""

from __future__ import annotations

import pytest
from side_bet_helpers import cases, evaluate, paid

from boundless.core.side_bets import PENDING

# The best-paying pattern of each option on (player, up card), or None.
THREE_CARD = {
    "lucky_trio": [
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
    "poker_trio": [
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
    # Pair looks at the player's two cards only (the up card 5C plays no part).
    "pair": [
        ("8D 8D", "5C", "perfect_pair"),
        ("8D 8H", "5C", "colored_pair"),
        ("8S 8C", "5C", "colored_pair"),
        ("8S 8H", "5C", "mixed_pair"),
        ("8C 8D", "5C", "mixed_pair"),
        ("TS KS", "5C", None),  # same value, different rank: not a pair here (DECISIONS.md rule 2)
        ("AS 2S", "5C", None),
    ],
}


@pytest.mark.parametrize(("key", "player", "up", "expected"), cases(THREE_CARD))
def test_the_best_paying_pattern_of_the_players_cards_and_the_up_card(
    key: str, player: str, up: str, expected: str | None
) -> None:
    assert paid("boundless", key, player, up) == expected


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
    assert paid("boundless", "bust_bonus", "9S 9H", up, dealer) == expected


def test_bust_bonus_waits_for_the_dealer() -> None:
    assert evaluate("bust_bonus", "9S 9H", "6D") is PENDING
