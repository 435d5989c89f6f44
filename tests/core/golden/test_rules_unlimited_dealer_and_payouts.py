"""Golden rounds of Blackjack Unlimited: no hole card, the dealer's rule, results and payouts.

Unlimited document: the paragraph "Win by getting a higher card count ..." (bust, blackjack wins
immediately unless the croupier could have one), "After all players have had a turn, the croupier
takes a second card ...", card values, "House Strategy", "Payouts", and the sentence on doubles
and splits against an eventual dealer blackjack; DECISIONS.md rules 6, 18 and 23.
"""

from __future__ import annotations

import golden_helpers as golden
import pytest

from boundless.core.random_source import SeededSource
from boundless.core.round.views import player_view
from boundless.core.shoe_cycle import ShoeCycle


def test_no_hole_card_the_dealer_has_one_card_until_every_spot_has_played() -> None:
    # Spot 1: 9S 7D = 16 stands against 6H; the dealer's second card TC comes afterwards: 16,
    # then 5C: 21.
    round_, shoe = golden.dealt(golden.UNLIMITED, "9S 6H 7D TC 5C")
    assert shoe.position == 3
    assert round_.dealer_cards == (round_.up_card,)
    assert player_view(round_, "p")["dealer"] == {
        "cards": ["6H"],
        "hole_hidden": False,
        "total": 6,
    }
    golden.play(round_, {("p", 1): ["stand"]})
    assert golden.dealer(round_) == "6H TC 5C"
    assert golden.hand(round_, "p", 1) == golden.Hand("9S 7D", 16, 1000, "lose", 0)


@pytest.mark.parametrize(
    ("dealer_cards", "total"),
    [
        pytest.param("TC 6D 5H", 21, id="hits-16"),
        pytest.param("TC 7D", 17, id="stands-hard-17"),
        pytest.param("6C AD", 17, id="stands-soft-17"),
        pytest.param("5C AD 2C", 18, id="hits-soft-16"),
        pytest.param("2C 3D 4H 5S 3C", 17, id="several-cards"),
        pytest.param("9C 9D", 18, id="stands-18"),
        pytest.param("TC 6D 8S", 24, id="busts"),
    ],
)
def test_the_dealer_hits_16_or_less_and_stands_on_17_or_more(dealer_cards: str, total: int) -> None:
    up, *rest = dealer_cards.split()
    round_, _ = golden.played(golden.UNLIMITED, f"TS {up} KH {' '.join(rest)} 2H 2H 2H", "stand")
    assert golden.dealer(round_) == dealer_cards
    assert round_.dealer_hand.total == total


def test_a_dealer_bust_pays_every_unresolved_hand_and_busted_hands_still_lose() -> None:
    """Spot 1 (TS 2D = 12 against 6H): a stands, b hits KC and busts. Spot 2 (8C 5S = 13): c
    stands. The dealer takes TD (16) and KS: 26, bust."""
    round_, _ = golden.opened(golden.UNLIMITED, "TS 8C 6H 2D 5S KC TD KS", "a", "b", ("c", 2))
    golden.play(round_, {("a", 1): ["stand"], ("b", 1): ["hit"], ("c", 2): ["stand"]})
    assert golden.dealer(round_) == "6H TD KS"
    assert golden.hand(round_, "a", 1) == golden.Hand("TS 2D", 12, 1000, "win", 2000)
    assert golden.hand(round_, "b", 1) == golden.Hand("TS 2D KC", 22, 1000, "lose", 0)
    assert golden.hand(round_, "c", 2) == golden.Hand("8C 5S", 13, 1000, "win", 2000)


def test_a_busted_hand_loses_even_when_the_dealer_busts_later() -> None:
    round_, _ = golden.opened(golden.UNLIMITED, "TS 6H 6D KC TD KS", "a")
    golden.play(round_, {("a", 1): ["hit"]})
    assert golden.dealer(round_) == "6H TD KS"
    assert golden.hand(round_, "a", 1) == golden.Hand("TS 6D KC", 26, 1000, "lose", 0)


def test_card_values_and_aces_at_their_highest_value_without_busting() -> None:
    """Spot 1 AS 9H is 20 (ace 11); spot 2 AD 5C takes 5H: 21 (ace still 11, the hand stands by
    itself); spot 3 JS QH is 20 (pictures 10). The dealer 9D TC has 19."""
    round_, _ = golden.seated(golden.UNLIMITED, "AS AD JS 9D 9H 5C QH 5H TC", 1000, 1000, 1000)
    golden.play(round_, {("p", 1): ["stand"], ("p", 2): ["hit"], ("p", 3): ["stand"]})
    assert golden.hand(round_, "p", 1) == golden.Hand("AS 9H", 20, 1000, "win", 2000)
    assert golden.hand(round_, "p", 2) == golden.Hand("AD 5C 5H", 21, 1000, "win", 2000)
    assert golden.hand(round_, "p", 3) == golden.Hand("JS QH", 20, 1000, "win", 2000)
    assert golden.dealer(round_) == "9D TC"


def test_an_ace_counts_one_when_eleven_would_bust() -> None:
    # AS 6H (soft 17) hits 9C: 16 (ace 1), then TD: 26, bust.
    round_, _ = golden.decided(golden.UNLIMITED, "AS 5D 6H 9C TD TC 4C", "hit")
    assert round_.path_of(round_.position("p", 1)).hand.total == 16
    golden.play(round_, {("p", 1): ["hit"]})
    assert golden.hand(round_, "p", 1) == golden.Hand("AS 6H 9C TD", 26, 1000, "lose", 0)


@pytest.mark.parametrize("up", ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D"])
def test_a_blackjack_is_paid_three_to_two_at_once_against_two_to_nine(up: str) -> None:
    round_, _ = golden.opened(golden.UNLIMITED, f"AS 9H {up} KD 7C TC TD TH", "a", ("b", 2))
    round_.deal()
    # Paid with the deal, before any decision on spot 2 and before the dealer's second card.
    assert golden.paid_by_stage(round_) == [("blackjack_at_once", {"a@1": 2500})]
    assert (round_.phase, round_.current_spot) == ("decisions", 2)
    golden.play(round_, {("b", 2): ["stand"]})
    assert golden.hand(round_, "a", 1) == golden.Hand("AS KD", 21, 1000, "blackjack", 2500)
    assert golden.net(round_, "a") == 1500
    stages = golden.paid_by_stage(round_)
    assert all("a@1" not in amounts for _, amounts in stages[1:])


@pytest.mark.parametrize("up", ["TD", "JD", "QD", "KD"])
@pytest.mark.parametrize(
    ("second", "outcome", "payout"),
    [("7C", "blackjack", 2500), ("AC", "push", 1000)],
    ids=["dealer-17", "dealer-blackjack"],
)
def test_a_blackjack_against_a_ten_value_up_card_waits_for_the_dealers_hand(
    up: str, second: str, outcome: str, payout: int
) -> None:
    round_, _ = golden.opened(golden.UNLIMITED, f"AS {up} KH {second}", "a")
    round_.deal()
    assert golden.paid_by_stage(round_) == []
    assert round_.phase == "dealer"  # no decision is needed: the dealer plays at once
    golden.play(round_)
    assert golden.hand(round_, "a", 1) == golden.Hand("AS KH", 21, 1000, outcome, payout)
    assert golden.paid_by_stage(round_) == [("settlement", {"a@1": payout})]


def test_a_blackjack_beats_a_dealer_twenty_one_of_three_cards() -> None:
    round_, _ = golden.opened(golden.UNLIMITED, "AS TC KD 5H 6S", "a")
    golden.play(round_)
    assert golden.dealer(round_) == "TC 5H 6S"
    assert golden.hand(round_, "a", 1) == golden.Hand("AS KD", 21, 1000, "blackjack", 2500)


def test_against_a_dealer_blackjack_only_the_original_bets_are_lost() -> None:
    """Up TH; the dealer's second card AC makes blackjack after every spot has played.

    Spot 1 (6S 5D = 11): a doubles and takes 9C (20); b hits 9C and stands.
    Spot 2 (8H 8C, split offered against 10): c splits; hand 1 takes 4D, doubles and busts on TC;
    hand 2 takes 3H (11), doubles and takes 9D (20).
    Spot 3 (7S 7D): d hits TD and busts.
    Each player loses exactly the original bet: doubles and the split stake come back, also on
    a busted doubled hand.
    """
    round_, _ = golden.opened(
        golden.UNLIMITED, "6S 8H 7S TH 5D 8C 7D 9C 4D TC 3H 9D TD AC", "a", "b", ("c", 2), ("d", 3)
    )
    golden.play(
        round_,
        {
            ("a", 1): ["double"],
            ("b", 1): ["hit", "stand"],
            ("c", 2): ["split", "double", "double"],
            ("d", 3): ["hit"],
        },
    )
    assert golden.dealer(round_) == "TH AC" and round_.dealer_hand.blackjack
    assert golden.hand(round_, "a", 1) == golden.Hand("6S 5D 9C", 20, 2000, "lose", 1000)
    assert golden.hand(round_, "b", 1) == golden.Hand("6S 5D 9C", 20, 1000, "lose", 0)
    assert golden.hands(round_, "c", 2) == [
        golden.Hand("8H 4D TC", 22, 2000, "lose", 1000),
        golden.Hand("8C 3H 9D", 20, 2000, "lose", 2000),
    ]
    assert golden.hand(round_, "d", 3) == golden.Hand("7S 7D TD", 24, 1000, "lose", 0)
    assert {player: golden.net(round_, player) for player in "abcd"} == {
        "a": -1000,
        "b": -1000,
        "c": -1000,
        "d": -1000,
    }


def test_split_aces_twenty_one_is_no_blackjack_and_loses_only_the_bet_to_a_dealer_blackjack() -> (
    None
):
    # AS AD split against KH: AS KC and AD QD are 21 each; the dealer's AH makes blackjack.
    round_, _ = golden.played(golden.UNLIMITED, "AS KH AD KC QD AH", "split")
    assert golden.dealer(round_) == "KH AH"
    assert golden.hands(round_, "p", 1) == [
        golden.Hand("AS KC", 21, 1000, "lose", 0),
        golden.Hand("AD QD", 21, 1000, "lose", 1000),
    ]
    assert golden.net(round_, "p") == -1000


def test_the_dealer_completes_the_hand_when_every_hand_is_bust_or_surrendered() -> None:
    # Spot 1 a busts (TS 6D KC); spot 2 b surrenders (9C 7H against 9H). Dealer 9H 5S 3D = 17.
    round_, _ = golden.opened(golden.UNLIMITED, "TS 9C 9H 6D 7H KC 5S 3D", "a", ("b", 2))
    golden.play(round_, {("a", 1): ["hit"], ("b", 2): ["surrender"]})
    assert golden.dealer(round_) == "9H 5S 3D"
    assert golden.hand(round_, "b", 2) == golden.Hand("9C 7H", 16, 1000, "surrender", 500)


def test_eight_decks_unless_configured_and_the_dealer_stands_on_all_17s() -> None:
    rules = golden.rules_of(golden.UNLIMITED)
    assert rules.shoe.decks == 8
    assert rules.dealer.hits_soft_17 is False
    assert rules.dealer.hole_card == "none"
    cycle = ShoeCycle(rules, SeededSource(3))
    start = cycle.start_round()
    assert start.shuffled is not None and start.shuffled.card_count == 416
    assert cycle.end_round() is False  # one shoe lasts many rounds
    six = ShoeCycle(
        golden.variant(golden.UNLIMITED, shoe={"decks": 6}), SeededSource(3)
    ).start_round()
    assert six.shuffled is not None and six.shuffled.card_count == 312  # unless configured
