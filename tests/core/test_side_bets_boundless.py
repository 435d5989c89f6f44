"""Boundless side options (Pair, Bust Bonus, Lucky Trio, Poker Trio) with the title's pay table."""

from __future__ import annotations

import pytest
from side_bet_helpers import cases, evaluate, paid

from boundless.core.side_bets import PENDING

# Each option's best-paying pattern (None: none pays) on example hands: the player's two cards,
# then the dealer's up card.
THREE_CARD = {
    "lucky_trio": {
        "suited_777": ["7H 7H 7H"],
        "unsuited_777": ["7H 7S 7H"],
        "suited_678": ["6D 8D 7D"],
        "unsuited_678": ["6D 8C 7D"],
        "suited_21": ["9S 2S TS", "AS 9S AS"],  # aces count as in blackjack: A+9+A = 21
        "unsuited_21": ["9S 2H TS"],
        "total_19_20": ["AS AH 7D", "TS 4H 6D", "TS 5H 4D"],  # AS AH 7D: soft 19
        None: ["TS 5H 7D", "2S 3H 4D"],  # TS 5H 7D: 22
    },
    "poker_trio": {
        "suited_trips": ["QH QH QH"],
        "three_of_a_kind": ["QH QS QH"],
        "straight_flush": ["AD 2D 3D", "QD KD AD", "4C 6C 5C"],
        "straight": ["AS 2H 3D", "QS KH AD"],
        "flush": ["KS AS 2S", "4C 9C KC"],
        None: ["KS AH 2D", "4C 4H 5C"],  # KS AH 2D: no going round the corner
    },
    # Pair looks at the player's two cards only (the up card 5C plays no part); TS KS: same
    # value, different rank, is no pair here (DECISIONS.md rule 2).
    "pair": {
        "perfect_pair": ["8D 8D 5C"],
        "colored_pair": ["8D 8H 5C", "8S 8C 5C"],
        "mixed_pair": ["8S 8H 5C", "8C 8D 5C"],
        None: ["TS KS 5C", "AS 2S 5C"],
    },
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
