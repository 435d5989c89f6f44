"""Golden rounds: hit, stand, surrender, double down, split and the coin fall-backs.

Boundless document, "Seated Player's Action"; DECISIONS.md rules 2, 5, 11 and 12.
"""

from __future__ import annotations

import golden_helpers as golden
import pytest

from boundless.core.errors import InsufficientCoinsError
from boundless.core.round import Action


def words(actions: frozenset[Action]) -> set[str]:
    return {action.word for action in actions}


def offered_by_balance(cards: str, action: str) -> dict[int, bool]:
    """Whether ``action`` is offered on these cards to p, betting 10.00 with a balance of 10.00,
    19.99 or 20.00."""
    offered = {}
    for balance in (1000, 1999, 2000):
        round_, _ = golden.dealt(golden.BOUNDLESS, cards, balance=balance)
        offered[balance] = action in words(round_.legal_actions("p", 1))
    return offered


# ---- hit ----------------------------------------------------------------------------------


def test_hit_gives_exactly_one_card_per_step() -> None:
    # Player TS 2H = 12 hits 3C (15), hits 4D (19), stands. Dealer 9D 8C = 17.
    round_, shoe = golden.played(golden.BOUNDLESS, "TS 9D 2H 8C 3C 4D 5S", "hit", "hit", "stand")
    assert golden.hand(round_, "p") == golden.Hand("TS 2H 3C 4D", 19, 1000, "win", 2000)
    assert golden.step_cards(round_) == ["3C", "4D"]
    assert golden.dealer(round_) == "9D 8C"
    assert shoe.position == 6


def test_hitting_to_21_stands_the_hand_automatically() -> None:
    # 5S 6H = 11, hit 4C = 15, hit 6D = 21: no third decision is asked.
    round_, _ = golden.dealt(golden.BOUNDLESS, "5S 9D 6H 8C 4C 6D KH")
    for _ in range(2):
        assert "hit" in words(round_.legal_actions("p", 1))
        round_.decide("p", 1, "hit")
        round_.close_step()
    assert round_.phase == "dealer"
    assert round_.legal_actions("p", 1) == frozenset()
    round_.run_to_end()
    assert golden.hand(round_, "p") == golden.Hand("5S 6H 4C 6D", 21, 1000, "win", 2000)


def test_hitting_stops_on_a_bust() -> None:
    round_, _ = golden.decided(golden.BOUNDLESS, "TS 9D 2H 8C KC", "hit")
    assert round_.phase == "dealer"
    round_.run_to_end()
    assert golden.hand(round_, "p") == golden.Hand("TS 2H KC", 22, 1000, "lose", 0)


# ---- stand --------------------------------------------------------------------------------


def test_stand_takes_no_more_cards_and_the_next_card_goes_to_the_dealer() -> None:
    # Player TS 2H = 12 stands; dealer 9D 7C = 16 draws 5C = 21.
    round_, _ = golden.decided(golden.BOUNDLESS, "TS 9D 2H 7C 5C", "stand")
    assert round_.legal_actions("p", 1) == frozenset()
    round_.run_to_end()
    assert golden.step_cards(round_) == []
    assert golden.dealer(round_) == "9D 7C 5C"
    assert golden.hand(round_, "p") == golden.Hand("TS 2H", 12, 1000, "lose", 0)


# ---- surrender ----------------------------------------------------------------------------


@pytest.mark.parametrize("up", ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D"])
def test_surrender_against_two_to_nine_returns_half_the_bet(up: str) -> None:
    round_, _ = golden.dealt(golden.BOUNDLESS, f"TS {up} 6H 8C TC TD TH")
    assert "surrender" in words(round_.legal_actions("p", 1))
    round_.decide("p", 1, "surrender")
    round_.close_step()
    assert golden.step_cards(round_) == []  # a surrendered hand takes no card
    round_.run_to_end()
    assert golden.hand(round_, "p") == golden.Hand("TS 6H", 16, 1000, "surrender", 500)
    assert golden.net(round_, "p") == -500
    assert len(round_.dealer_cards) >= 2 and round_.dealer_hand.total >= 17  # dealer completed


@pytest.mark.parametrize("up", ["AD", "TD", "JD", "QD", "KD"])
def test_no_surrender_against_an_ace_or_ten_value_up_card(up: str) -> None:
    round_, shoe = golden.dealt(golden.BOUNDLESS, f"TS {up} 6H 7C TC TD TH")
    if round_.phase == "insurance":
        round_.close_insurance()
    assert round_.phase == "decisions"
    assert words(round_.legal_actions("p", 1)) == {"hit", "stand", "double"}
    golden.assert_rejected(round_, shoe, "p", "surrender")


def test_surrender_only_as_the_first_decision() -> None:
    round_, shoe = golden.decided(golden.BOUNDLESS, "TS 9D 2H 8C 3C TD", "hit")
    assert words(round_.legal_actions("p", 1)) == {"hit", "stand"}
    golden.assert_rejected(round_, shoe, "p", "surrender")


def test_surrender_never_after_a_split() -> None:
    round_, shoe = golden.decided(golden.BOUNDLESS, "8S 9D 8H 8C 3C TD", "split")
    assert words(round_.legal_actions("p", 1)) == {"hit", "stand", "double"}
    golden.assert_rejected(round_, shoe, "p", "surrender")


# ---- double down --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "expected", "won"),
    [
        # 6S 5H = 11 doubles into TC = 21; dealer 9D 7C = 16 draws 8S = 24, bust.
        pytest.param(
            "6S 9D 5H 7C TC 8S", golden.Hand("6S 5H TC", 21, 2000, "win", 4000), 2000, id="win"
        ),
        # 6S 5H = 11 doubles into 6C = 17 against the dealer's 17: the doubled stake comes back.
        pytest.param(
            "6S 9D 5H 8C 6C", golden.Hand("6S 5H 6C", 17, 2000, "push", 2000), 0, id="push"
        ),
    ],
)
def test_double_doubles_the_stake_and_takes_exactly_one_card(
    cards: str, expected: golden.Hand, won: int
) -> None:
    round_, _ = golden.played(golden.BOUNDLESS, cards, "double")
    assert golden.hand(round_, "p") == expected
    assert golden.staked(round_, "p") == 2000
    assert golden.net(round_, "p") == won


def test_a_doubled_hand_stands_after_its_one_card_even_on_a_low_total() -> None:
    # 6S 5H = 11 doubles into 2C = 13 and stands; dealer 9D 8C = 17.
    round_, shoe = golden.decided(golden.BOUNDLESS, "6S 9D 5H 8C 2C 3D", "double")
    assert round_.phase == "dealer"
    round_.run_to_end()
    assert golden.hand(round_, "p") == golden.Hand("6S 5H 2C", 13, 2000, "lose", 0)
    assert golden.net(round_, "p") == -2000
    assert shoe.position == 5


@pytest.mark.parametrize(
    "cards",
    ["TS 9D 7H 8C", "AS 9D 8H 8C", "2S 9D 3H 8C", "TS 9D KH 8C"],
    ids=["hard-17", "soft-19", "five", "twenty"],
)
def test_double_is_offered_on_any_two_card_total(cards: str) -> None:
    round_, _ = golden.dealt(golden.BOUNDLESS, cards + " 2C TC")
    assert "double" in words(round_.legal_actions("p", 1))
    round_.decide("p", 1, "double")
    round_.close_step()
    assert golden.result(round_, "p").hands[0].bet_amount == 2000


def test_no_double_on_three_cards() -> None:
    round_, shoe = golden.decided(golden.BOUNDLESS, "2S 9D 3H 8C 4C TD", "hit")
    assert "double" not in words(round_.legal_actions("p", 1))
    golden.assert_rejected(round_, shoe, "p", "double")


def test_double_after_split_then_the_hand_stands() -> None:
    # Split 8S 8H against 6D (dealer 6D TC = 16).
    # step 1 3C -> hand 1 8S 3C = 11; step 2 double hand 1 -> 9C = 20, stands;
    # step 3 hand 2 takes its second card 2H (no decision) = 10; step 4 double -> KS = 20.
    # Dealer draws 7S = 23, bust.
    round_, _ = golden.played(
        golden.BOUNDLESS, "8S 6D 8H TC 3C 9C 2H KS 7S", "split", "double", "double"
    )
    assert golden.hands(round_, "p") == [
        golden.Hand("8S 3C 9C", 20, 2000, "win", 4000),
        golden.Hand("8H 2H KS", 20, 2000, "win", 4000),
    ]
    assert golden.staked(round_, "p") == 4000
    assert golden.net(round_, "p") == 4000
    assert golden.dealer(round_) == "6D TC 7S"


def test_no_double_on_split_aces_each_ace_takes_one_card_and_stands() -> None:
    # Split AS AH: hand 1 takes 5C (soft 16) and stands without a decision; hand 2 takes 2D at
    # the next step (soft 13) and stands. Dealer 9D 7C = 16 draws TH = 26.
    round_, shoe = golden.decided(golden.BOUNDLESS, "AS 9D AH 7C 5C 2D TH", "split")
    assert round_.undecided_count() == 0  # hand 2 waits for its card, not for a decision
    assert round_.legal_actions("p", 1) == frozenset()
    golden.assert_rejected(round_, shoe, "p", "double")
    golden.assert_rejected(round_, shoe, "p", "hit")
    round_.close_step()
    assert round_.phase == "dealer"
    round_.run_to_end()
    assert golden.hands(round_, "p") == [
        golden.Hand("AS 5C", 16, 1000, "win", 2000),
        golden.Hand("AH 2D", 13, 1000, "win", 2000),
    ]
    assert golden.step_cards(round_) == ["5C", "2D"]


def test_double_is_offered_only_with_enough_free_coins() -> None:
    assert offered_by_balance("6S 9D 5H 8C 2C", "double") == {1000: False, 1999: False, 2000: True}


def test_a_double_the_coins_do_not_cover_is_rejected_when_decided() -> None:
    round_, shoe = golden.dealt(
        golden.BOUNDLESS, "6S 9D 5H 8C 2C 3D", balance=1000
    )  # all on the main bet
    with golden.unchanged(round_, shoe), pytest.raises(InsufficientCoinsError):
        round_.decide("p", 1, "double")


def test_coins_already_committed_in_the_round_count_against_doubles_and_splits() -> None:
    # balance 3000, main 1000: the split takes 1000 more, doubling hand 1 the last 1000, so
    # hand 2 is offered no double, and a double decided anyway is refused.
    round_, shoe = golden.decided(
        golden.BOUNDLESS, "8S 6D 8H TC 3C 9C 2H KS 7S", "split", balance=3000
    )
    assert "double" in words(round_.legal_actions("p", 1))
    round_.decide("p", 1, "double")
    round_.close_step()
    round_.close_step()  # hand 2 takes its second card, 2H
    assert golden.hands(round_, "p")[1].cards == "8H 2H"
    assert words(round_.legal_actions("p", 1)) == {"hit", "stand"}
    golden.assert_rejected(round_, shoe, "p", "double")

    # Insurance and side options also use up free coins.
    # 1400 free, insurance 500 leaves 900 < 1000
    round_, _ = golden.dealt(golden.BOUNDLESS, "6S AD 5H 7C 2C", balance=2400)
    round_.take_insurance("p", 1)
    round_.close_insurance()
    assert words(round_.legal_actions("p", 1)) == {"hit", "stand"}
    round_, _ = golden.dealt(golden.BOUNDLESS, "6S 9D 5H 7C 2C", sides={"pair": 100}, balance=1100)
    assert words(round_.legal_actions("p", 1)) == {"hit", "stand", "surrender"}


def test_double_falls_back_to_hit_when_coins_run_out_at_execution_on_eleven_or_less() -> None:
    # 6S 5H = 11 decides double with coins; before the step executes the free coins drop
    # (spent at another table). The hand hits instead: one card 4C, stake unchanged, and it
    # keeps playing; the player then stands at 15. Dealer 9D 8C = 17.
    round_, _ = golden.dealt(golden.BOUNDLESS, "6S 9D 5H 8C 4C 9S", balance=2000)
    round_.decide("p", 1, "double")
    round_.set_free_coins(["p"], [999])
    round_.close_step()
    assert round_.phase == "decisions"  # the fall-back hit does not stand the hand
    assert words(round_.legal_actions("p", 1)) == {"hit", "stand"}
    round_.decide("p", 1, "stand")
    round_.run_to_end()
    assert golden.hand(round_, "p") == golden.Hand("6S 5H 4C", 15, 1000, "lose", 0)
    (played_hand,) = golden.result(round_, "p").hands
    assert played_hand.fallback
    assert played_hand.decisions[0] == ("hit", "fallback", 1)
    assert golden.staked(round_, "p") == 1000


def test_double_falls_back_to_stand_when_coins_run_out_at_execution_above_eleven() -> None:
    round_, shoe = golden.dealt(golden.BOUNDLESS, "7S 9D 5H 8C 4C", balance=2000)
    round_.decide("p", 1, "double")
    round_.set_free_coins(["p"], [0])
    round_.close_step()
    assert round_.phase == "dealer"
    round_.run_to_end()
    assert golden.hand(round_, "p") == golden.Hand("7S 5H", 12, 1000, "lose", 0)
    assert golden.result(round_, "p").hands[0].decisions == (("stand", "fallback", 1),)
    assert shoe.position == 4  # no step card was drawn


# ---- split --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second"),
    [("8S", "8H"), ("TS", "KH"), ("JS", "QH"), ("KS", "KH"), ("AS", "AH")],
)
def test_split_a_pair_of_the_same_value(first: str, second: str) -> None:
    round_, _ = golden.dealt(golden.BOUNDLESS, f"{first} 6D {second} TC 5C 5D TH TS")
    assert "split" in words(round_.legal_actions("p", 1))
    round_.decide("p", 1, "split")
    round_.close_step()
    path = round_.path_of(round_.position("p", 1))
    assert [str(item.cards[0]) for item in path.hands] == [first, second]
    assert [item.stake_units for item in path.hands] == [1, 1]
    assert golden.staked(round_, "p") == 2000  # the new hand carries the same stake as the seat


@pytest.mark.parametrize("cards", ["KS 6D 9H TC", "AS 6D 7H TC", "2S 6D 3H TC"])
def test_split_of_a_non_pair_is_rejected(cards: str) -> None:
    round_, shoe = golden.dealt(golden.BOUNDLESS, cards + " 5C")
    if round_.phase == "insurance":
        round_.close_insurance()
    assert "split" not in words(round_.legal_actions("p", 1))
    golden.assert_rejected(round_, shoe, "p", "split")


def test_split_hands_hit_as_often_as_wanted() -> None:
    # Split 8S 8H vs 6D (dealer 6D TC = 16). Hand 1: 2C, 3D, 4S = 17; stand.
    # Hand 2 takes 5H at the stand's step (13), hits 2S = 15, stands. Dealer draws 6C = 22.
    round_, _ = golden.played(
        golden.BOUNDLESS,
        "8S 6D 8H TC 2C 3D 4S 5H 2S 6C",
        "split",
        "hit",
        "hit",
        "stand",
        "hit",
        "stand",
    )
    assert golden.hands(round_, "p") == [
        golden.Hand("8S 2C 3D 4S", 17, 1000, "win", 2000),
        golden.Hand("8H 5H 2S", 15, 1000, "win", 2000),
    ]
    assert golden.step_cards(round_) == ["2C", "3D", "4S", "5H", "2S"]
    assert golden.dealer(round_) == "6D TC 6C"


def test_a_split_hand_cannot_be_split_again() -> None:
    round_, shoe = golden.decided(golden.BOUNDLESS, "8S 6D 8H TC 8C 8D", "split")
    assert golden.hands(round_, "p")[0].cards == "8S 8C"
    assert words(round_.legal_actions("p", 1)) == {"hit", "stand", "double"}
    golden.assert_rejected(round_, shoe, "p", "split")


def test_split_is_offered_only_with_enough_free_coins() -> None:
    assert offered_by_balance("8S 6D 8H TC", "split") == {1000: False, 1999: False, 2000: True}


def test_a_split_the_coins_do_not_cover_is_rejected_when_decided() -> None:
    round_, shoe = golden.dealt(golden.BOUNDLESS, "8S 6D 8H TC 2C", balance=1500)
    with golden.unchanged(round_, shoe), pytest.raises(InsufficientCoinsError):
        round_.decide("p", 1, "split")


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        # 4S 4H = 8: hit, one card 9C, the hand plays on (then stands at 17)
        ("4S 6D 4H TC 9C", golden.Hand("4S 4H 9C", 17, 1000, "win", 2000)),
        # 5S 5H = 10: hit
        ("5S 6D 5H TC 9C", golden.Hand("5S 5H 9C", 19, 1000, "win", 2000)),
        # 9S 9H = 18: stand
        ("9S 6D 9H TC", golden.Hand("9S 9H", 18, 1000, "win", 2000)),
        # AS AH scores 12: stand
        ("AS 6D AH TC", golden.Hand("AS AH", 12, 1000, "win", 2000)),
    ],
    ids=["eight-hits", "ten-hits", "eighteen-stands", "aces-twelve-stand"],
)
def test_split_falls_back_when_coins_run_out_at_execution(
    cards: str, expected: golden.Hand
) -> None:
    # Dealer 6D TC = 16 draws 8H = 24 (bust), after the player's cards.
    round_, _ = golden.dealt(golden.BOUNDLESS, cards + " 8H", balance=5000)
    round_.decide("p", 1, "split")
    round_.set_free_coins(["p"], [500])
    round_.close_step()
    if round_.phase == "decisions":
        round_.decide("p", 1, "stand")
    round_.run_to_end()
    assert golden.hand(round_, "p") == expected
    assert golden.result(round_, "p").hands[0].fallback
    assert golden.staked(round_, "p") == 1000
    assert golden.dealer(round_) == "6D TC 8H"
