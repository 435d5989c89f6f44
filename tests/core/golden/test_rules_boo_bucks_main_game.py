"""Golden rounds of Boo Bucks Blackjack (preset ``boo-bucks``): the main game on three seats.

Boo Bucks document, "TABLE RULES": card values and the blackjack, "THE DEAL BUTTON ...", hit and
stand until 21, split of equal point value, double, surrender, even money and insurance, the
dealer's turn, bust and comparison; DECISIONS.md rules 25 (peek, late surrender, even money,
insurance per hand) and 26 (a seat without a decision follows the chart).
"""

from __future__ import annotations

import golden_helpers as golden
import pytest

from boundless.core.errors import IllegalActionError
from boundless.core.round import Action
from boundless.core.round.views import player_view


def test_the_deal_gives_two_cards_to_every_active_wager_and_the_dealer_one_face_down() -> None:
    """Seat 1 has a base wager, seat 2 a side bet only, seat 3 a base wager: each gets two cards
    (2S 5D, 3S 6D, 4S 7D), the dealer 9H up and 8C face down."""
    round_, shoe = golden.new_round(golden.BOO_BUCKS, "2S 3S 4S 9H 5D 6D 7D 8C")
    golden.bet(round_, "p", 1, main=500)  # at most 5 x the 1.00 on seat 2
    golden.bet(round_, "p", 2, main=0, sides={"trifecta": 100}, balance=None)
    golden.bet(round_, "p", 3, balance=None)
    round_.deal()
    assert shoe.position == 8
    assert {spot: " ".join(map(str, cards)) for spot, cards in round_.spot_cards.items()} == {
        1: "2S 5D",
        2: "3S 6D",
        3: "4S 7D",
    }
    view = player_view(round_, "p")
    assert view["dealer"] == {"cards": ["9H"], "hole_hidden": True, "total": 9}
    assert "8C" not in repr(view)
    golden.play(round_, {("p", 1): ["stand"], ("p", 3): ["stand"]})
    assert golden.dealer(round_) == "9H 8C"
    assert golden.result(round_, "p", 2).hands == ()


@pytest.mark.parametrize("ten", ["TD", "JD", "QD", "KD"])
def test_an_ace_and_a_ten_value_card_as_the_first_two_cards_is_a_blackjack_paid_3_to_2(
    ten: str,
) -> None:
    round_, _ = golden.played(golden.BOO_BUCKS, f"AS 9H {ten} 8C")
    assert golden.hand(round_, "p", 1) == golden.Hand(f"AS {ten}", 21, 1000, "blackjack", 2500)
    assert golden.paid_by_stage(round_) == [("settlement", {"p@1": 2500})]


def test_any_other_21_is_not_a_blackjack_and_pays_1_to_1() -> None:
    # 7S 7D against 9H (hole 8C): hit 7C to 21; the dealer's 17 loses.
    round_, _ = golden.played(golden.BOO_BUCKS, "7S 9H 7D 8C 7C", "hit")
    assert golden.hand(round_, "p", 1) == golden.Hand("7S 7D 7C", 21, 1000, "win", 2000)


def test_hit_until_the_hand_reaches_or_exceeds_21_and_a_bust_wins_nothing() -> None:
    """Seat 1 (5S 6D = 11) hits TC: 21, and is offered nothing more. Seat 2 (TS 6H = 16) hits
    KC: bust. The dealer 9H 8C stands on 17."""
    round_, _ = golden.seated(golden.BOO_BUCKS, "5S TS 9H 6D 6H 8C TC KC", 1000, 1000)
    round_.deal()
    round_.decide("p", 1, "hit")
    round_.close_step()
    assert round_.legal_actions("p", 1) == frozenset()
    assert round_.current_spot == 2
    golden.play(round_, {("p", 2): ["hit"]})
    assert golden.step_cards(round_, 1) == ["TC"] and golden.step_cards(round_, 2) == ["KC"]
    assert golden.hand(round_, "p", 1) == golden.Hand("5S 6D TC", 21, 1000, "win", 2000)
    assert golden.hand(round_, "p", 2) == golden.Hand("TS 6H KC", 26, 1000, "lose", 0)
    assert golden.dealer(round_) == "9H 8C"


def test_stand_deals_no_more_cards_and_play_proceeds_to_the_next_hand() -> None:
    round_, shoe = golden.seated(golden.BOO_BUCKS, "TS 5S 9H 2D 6H 8C 4C", 1000, 1000)
    round_.deal()
    round_.decide("p", 1, "stand")
    round_.close_step()
    assert shoe.position == 6  # no card for a stand
    assert (round_.current_spot, round_.step) == (2, 1)
    golden.play(round_, {("p", 2): ["hit", "stand"]})
    assert golden.hand(round_, "p", 1) == golden.Hand("TS 2D", 12, 1000, "lose", 0)
    assert golden.hand(round_, "p", 2) == golden.Hand("5S 6H 4C", 15, 1000, "lose", 0)


def test_two_cards_of_different_value_may_not_be_split() -> None:
    round_, shoe = golden.dealt(golden.BOO_BUCKS, "TS 6H 9D TC")
    assert Action.SPLIT not in round_.legal_actions("p", 1)
    with golden.refused(round_, shoe, IllegalActionError, "split is not allowed now"):
        round_.decide("p", 1, "split")


def test_a_split_costs_a_wager_equal_to_the_base_and_each_hand_is_played_in_turn() -> None:
    """TS KD against 6H (hole TC): split; hand 1 takes 9C (19) and stands, hand 2 takes that
    step's card 8C (18) and stands. The dealer's 16 draws 9S: bust."""
    round_, _ = golden.played(golden.BOO_BUCKS, "TS 6H KD TC 9C 8C 9S", "split", "stand", "stand")
    assert golden.hands(round_, "p", 1) == [
        golden.Hand("TS 9C", 19, 1000, "win", 2000),
        golden.Hand("KD 8C", 18, 1000, "win", 2000),
    ]
    assert golden.result(round_, "p", 1).staked_amount == 2000
    assert golden.dealer(round_) == "6H TC 9S"


def test_double_down_doubles_the_base_wager_for_exactly_one_card() -> None:
    # 6S 5D = 11 against 6H (hole TC) doubles: 2C, 13, and stands; the dealer's 16 takes 9S.
    round_, _ = golden.decided(golden.BOO_BUCKS, "6S 6H 5D TC 2C 9S", "double")
    assert round_.phase == "dealer"
    golden.play(round_)
    assert golden.hand(round_, "p", 1) == golden.Hand("6S 5D 2C", 13, 2000, "win", 4000)


def test_surrender_returns_half_the_base_wager_and_the_hand_is_not_played() -> None:
    # Seat 1 TS 6C = 16 against TD (hole 7H, no blackjack) surrenders; seat 2 stands on 19.
    round_, _ = golden.seated(golden.BOO_BUCKS, "TS 9S TD 6C TH 7H", 1000, 1000)
    round_.deal()
    round_.decide("p", 1, "surrender")
    round_.close_step()
    assert golden.paid_by_stage(round_) == [("surrender", {"p@1": 500})]
    assert round_.current_spot == 2
    golden.play(round_, {("p", 2): ["stand"]})
    assert golden.hand(round_, "p", 1) == golden.Hand("TS 6C", 16, 1000, "surrender", 500)
    assert golden.hand(round_, "p", 2) == golden.Hand("9S TH", 19, 1000, "win", 2000)


@pytest.mark.parametrize("up", ["AD", "2D", "5D", "9D", "TD", "JD", "QD", "KD"])
def test_late_surrender_against_any_up_card_once_the_peek_finds_no_blackjack(up: str) -> None:
    round_, _ = golden.played(golden.BOO_BUCKS, f"TS {up} 6C 5H 9C 9C", "surrender")
    assert golden.hand(round_, "p", 1) == golden.Hand("TS 6C", 16, 1000, "surrender", 500)


def test_the_peek_ends_the_round_at_once_on_a_dealer_blackjack_under_a_ten() -> None:
    """TD up, AC in the hole: no decision is asked; seat 1's blackjack pushes, seats 2 and 3
    lose their base wagers."""
    round_, shoe = golden.seated(golden.BOO_BUCKS, "AS 9H TS TD KD 7C TC AC", 1000, 1000, 1000)
    round_.deal()
    assert round_.phase == "settling"
    assert round_.hole_card is not None and str(round_.hole_card) == "AC"
    golden.play(round_)
    assert shoe.position == 8
    assert golden.dealer(round_) == "TD AC"
    assert golden.hand(round_, "p", 1) == golden.Hand("AS KD", 21, 1000, "push", 1000)
    assert golden.hand(round_, "p", 2) == golden.Hand("9H 7C", 16, 1000, "lose", 0)
    assert golden.hand(round_, "p", 3) == golden.Hand("TS TC", 20, 1000, "lose", 0)


def test_the_peek_without_a_blackjack_keeps_the_hole_card_hidden() -> None:
    round_, _ = golden.dealt(golden.BOO_BUCKS, "9S TD 8H 7C")
    assert round_.phase == "decisions"
    assert round_.hole_card is None
    assert player_view(round_, "p")["dealer"]["hole_hidden"] is True


def test_insurance_per_hand_costs_half_that_hands_base_wager_and_pays_2_to_1() -> None:
    """Seat 1 AS KD is offered even money, seats 2 (9H 7C, base 10.00) and 3 (TS TC, base
    4.00) insurance, which both take. The hole card KH makes blackjack."""
    round_, _ = golden.seated(golden.BOO_BUCKS, "AS 9H TS AC KD 7C TC KH", 1000, 1000, 400)
    round_.deal()
    assert round_.can_take_even_money("p", 1)
    assert round_.can_take_insurance("p", 2) and round_.can_take_insurance("p", 3)
    golden.play(round_, insurance=[("p", 2), ("p", 3)])
    assert golden.dealer(round_) == "AC KH"
    for spot, stake in ((2, 500), (3, 200)):
        insurance = golden.result(round_, "p", spot).insurance
        assert insurance is not None
        assert (insurance.stake, insurance.outcome, insurance.payout_amount) == (
            stake,
            "win",
            3 * stake,
        )
    assert golden.hand(round_, "p", 1) == golden.Hand("AS KD", 21, 1000, "push", 1000)
    assert golden.net(round_, "p") == 0  # the push and two insured hands that break even


def test_the_dealer_busts_and_every_non_busted_hand_wins() -> None:
    # Seat 1 stands on 12, seat 2 busts; the dealer's 16 (6H TC) draws KS.
    round_, _ = golden.seated(golden.BOO_BUCKS, "TS 9S 6H 2D 5H TC 8C KS", 1000, 1000)
    golden.play(round_, {("p", 1): ["stand"], ("p", 2): ["hit"]})
    assert golden.dealer(round_) == "6H TC KS"
    assert golden.hand(round_, "p", 1) == golden.Hand("TS 2D", 12, 1000, "win", 2000)
    assert golden.hand(round_, "p", 2) == golden.Hand("9S 5H 8C", 22, 1000, "lose", 0)


def test_without_coins_for_the_charts_split_the_second_choice_applies() -> None:
    # 8S 8D against TH (hole 7C): the chart splits; with no coins left, hard 16 against 10 says
    # surrender.
    round_, _ = golden.played(golden.BOO_BUCKS, "8S TH 8D 7C", balance=1000)
    assert golden.hand(round_, "p", 1) == golden.Hand("8S 8D", 16, 1000, "surrender", 500)


def test_card_values_numbers_at_face_value_pictures_ten_aces_one_or_eleven() -> None:
    """Seat 1 AS 6H is soft 17 and hits 9C: 16 (the ace now 1); seat 2 KS QH is 20; seat 3
    2S 9D is 11. The dealer 8H 9H has 17."""
    round_, _ = golden.seated(golden.BOO_BUCKS, "AS KS 2S 8H 6H QH 9D 9H 9C TC", 1000, 1000, 1000)
    round_.deal()
    assert [round_.path_of(p).hand.total for p in round_.positions_of("p")] == [17, 20, 11]
    golden.play(round_, {("p", 1): ["hit", "stand"], ("p", 2): ["stand"], ("p", 3): ["hit"]})
    assert golden.hand(round_, "p", 1) == golden.Hand("AS 6H 9C", 16, 1000, "lose", 0)
    assert golden.hand(round_, "p", 2) == golden.Hand("KS QH", 20, 1000, "win", 2000)
    assert golden.hand(round_, "p", 3) == golden.Hand("2S 9D TC", 21, 1000, "win", 2000)


def test_a_malfunction_voids_all_pays_and_plays() -> None:
    """Seat 1's Trifecta (5S 6S with 7S up: straight flush) is paid with the deal and seat 2
    surrenders; then the round is voided: every stake comes back and nothing more."""
    round_, _ = golden.new_round(
        golden.BOO_BUCKS, "5S TS 7S 6S 6H KH", offered=("trifecta", "in_between")
    )
    golden.bet(round_, "p", 1, main=1000, sides={"trifecta": 100})
    golden.bet(round_, "p", 2, main=1000, balance=None)
    round_.deal()
    round_.decide("p", 1, "stand")
    round_.close_step()
    round_.decide("p", 2, "surrender")
    round_.close_step()
    assert [stage for stage, _ in golden.paid_by_stage(round_)] == [
        "side_bets_initial",
        "surrender",
    ]
    round_.cancel("malfunction")
    assert round_.phase == "cancelled"
    assert round_.paid().tolist() == round_.staked().tolist() == [1100, 1000]
    assert golden.net(round_, "p") == 0
