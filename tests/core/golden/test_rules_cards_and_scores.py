"""Golden rounds: the cards, card values, scores, bust and the natural blackjack.

Boundless document, sections "Cards" and "Calculating the Score"; DECISIONS.md rules 2-3.
"""

from __future__ import annotations

from collections import Counter

import golden_helpers as golden
import pytest

from boundless.core.cards import ALL_CARDS
from boundless.core.random_source import SeededSource
from boundless.core.shoe import Shoe


def test_the_shoe_holds_eight_standard_decks_without_jokers() -> None:
    assert golden.RULES.shoe.decks == 8
    shoe = Shoe.shuffled(golden.RULES.shoe.decks, golden.RULES.shoe.penetration, SeededSource(7))
    cards = shoe.undealt()
    assert len(cards) == 8 * 52
    counts = Counter(cards)
    assert set(counts) == set(ALL_CARDS)  # 52 distinct cards, nothing else
    assert set(counts.values()) == {8}


@pytest.mark.parametrize(
    ("rank", "total"),
    [
        ("A", 13),  # ace counts 11 here (soft 13)
        ("2", 4),
        ("3", 5),
        ("4", 6),
        ("5", 7),
        ("6", 8),
        ("7", 9),
        ("8", 10),
        ("9", 11),
        ("T", 12),
        ("J", 12),
        ("Q", 12),
        ("K", 12),
    ],
)
def test_card_values_ace_one_or_eleven_pips_face_value_pictures_ten(rank: str, total: int) -> None:
    # Player {rank}S + 2H, dealer 9D 8C (17); the player stands at once.
    round_, _ = golden.played(golden.BOUNDLESS, f"{rank}S 9D 2H 8C", "stand")
    assert golden.hand(round_, "p").cards == f"{rank}S 2H"
    assert golden.hand(round_, "p").total == total


def test_suits_do_not_matter_in_the_main_game_only_in_side_options() -> None:
    results = []
    for player_cards in (("8S", "8S"), ("8S", "8H")):
        first, second = player_cards
        round_, _ = golden.played(
            golden.BOUNDLESS, f"{first} 9D {second} TC", "stand", sides={"pair": 100}
        )
        results.append((golden.hand(round_, "p"), golden.side(round_, "p", 1, "pair")))
    (main_same, pair_same), (main_mixed, pair_mixed) = results
    assert (main_same.total, main_same.outcome, main_same.payout) == (16, "lose", 0)
    assert (main_mixed.total, main_mixed.outcome, main_mixed.payout) == (16, "lose", 0)
    assert pair_same == ("win", "perfect_pair", 3100)
    assert pair_mixed == ("win", "mixed_pair", 600)


def test_document_example_ace_eleven_and_nine_is_twenty() -> None:
    # Player AS 9H = 20 against dealer 7C TD = 17.
    round_, _ = golden.played(golden.BOUNDLESS, "AS 7C 9H TD", "stand")
    assert golden.hand(round_, "p") == golden.Hand("AS 9H", 20, 1000, "win", 2000)


def test_document_example_ace_one_nine_and_five_is_fifteen() -> None:
    # Player AS 9D (soft 20) hits 5C: the ace now counts 1, the hand is 15, not a bust.
    round_, _ = golden.played(golden.BOUNDLESS, "AS 7C 9D TD 5C", "hit", "stand")
    result = golden.hand(round_, "p")
    assert (result.cards, result.total, result.outcome, result.payout) == (
        "AS 9D 5C",
        15,
        "lose",
        0,
    )


def test_two_aces_score_twelve() -> None:
    round_, _ = golden.played(golden.BOUNDLESS, "AS 9D AH 8C", "stand")
    assert golden.hand(round_, "p").total == 12


def test_a_hand_over_21_is_bust_and_loses_at_once() -> None:
    # Player KS 6H = 16 hits 9C = 25: bust, no further decision, payout 0.
    round_, shoe = golden.decided(golden.BOUNDLESS, "KS 7C 6H TD 9C", "hit")
    assert round_.phase == "dealer"  # nothing left to decide
    assert round_.legal_actions("p", 1) == frozenset()
    round_.run_to_end()
    assert golden.hand(round_, "p") == golden.Hand("KS 6H 9C", 25, 1000, "lose", 0)
    assert shoe.position == 5  # dealer 7C TD = 17 drew nothing


def test_twenty_one_is_not_a_bust() -> None:
    round_, _ = golden.played(golden.BOUNDLESS, "KS 7C 6H TD 5C", "hit")
    assert golden.hand(round_, "p") == golden.Hand("KS 6H 5C", 21, 1000, "win", 2000)


def test_ace_and_ten_value_as_first_two_cards_is_a_natural_blackjack() -> None:
    # The document's example: heart ace and spade jack.
    round_, _ = golden.dealt(golden.BOUNDLESS, "AH 7C JS TD")
    assert round_.path_of(round_.position("p", 1)).hands[0].status == "blackjack"
    assert round_.phase == "dealer"  # a blackjack is never asked for a decision
    round_.run_to_end()
    assert golden.hand(round_, "p") == golden.Hand("AH JS", 21, 1000, "blackjack", 2500)


@pytest.mark.parametrize("ten", ["TS", "JS", "QS", "KS"])
def test_every_ten_value_card_makes_blackjack_with_an_ace(ten: str) -> None:
    round_, _ = golden.played(golden.BOUNDLESS, f"{ten} 7C AD TD")
    assert (golden.hand(round_, "p").outcome, golden.hand(round_, "p").payout) == (
        "blackjack",
        2500,
    )


def test_blackjack_beats_a_dealer_twenty_one_of_three_cards() -> None:
    # Dealer 7C 4D = 11 draws KC = 21; the player's blackjack still wins 3:2.
    round_, _ = golden.played(golden.BOUNDLESS, "AH 7C JS 4D KC")
    assert round_.dealer_hand.total == 21
    assert not round_.dealer_hand.blackjack
    assert golden.hand(round_, "p").outcome == "blackjack"
    assert golden.hand(round_, "p").payout == 2500


def test_split_aces_with_a_ten_are_twenty_one_not_blackjack() -> None:
    # Split AS AH; hand 1 takes KC (21, paid 1:1 not 3:2), hand 2 takes 9H (20).
    # Dealer 9D 8C = 17.
    round_, _ = golden.played(golden.BOUNDLESS, "AS 9D AH 8C KC 9H", "split")
    first, second = golden.hands(round_, "p")
    assert (first.cards, first.total, first.outcome, first.payout) == ("AS KC", 21, "win", 2000)
    assert (second.cards, second.total, second.outcome, second.payout) == ("AH 9H", 20, "win", 2000)
    assert round_.path_of(round_.position("p", 1)).hands[0].status == "stood"


def test_split_hand_twenty_one_only_pushes_a_dealer_twenty_one() -> None:
    # Dealer 9D 2C = 11 draws KD = 21. Split aces: AS KC = 21 pushes (a blackjack would win);
    # AH 9H = 20 loses.
    round_, _ = golden.played(golden.BOUNDLESS, "AS 9D AH 2C KC 9H KD", "split")
    first, second = golden.hands(round_, "p")
    assert (first.cards, first.outcome, first.payout) == ("AS KC", "push", 1000)
    assert (second.cards, second.outcome, second.payout) == ("AH 9H", "lose", 0)


def test_split_tens_with_an_ace_are_twenty_one_not_blackjack() -> None:
    # Split KS KH; hand 1 takes AC = 21 and stands by itself; hand 2 takes 7D at the next step
    # without a decision (17), then stands. Dealer 9D 8C = 17.
    round_, _ = golden.played(golden.BOUNDLESS, "KS 9D KH 8C AC 7D", "split", "stand")
    assert golden.hands(round_, "p") == [
        golden.Hand("KS AC", 21, 1000, "win", 2000),
        golden.Hand("KH 7D", 17, 1000, "push", 1000),
    ]
