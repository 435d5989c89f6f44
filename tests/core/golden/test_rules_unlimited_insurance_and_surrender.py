"""Golden rounds of Blackjack Unlimited: insurance, even money and surrender.

Unlimited document: "Insurance and Even Money", "Surrender", the payout line "Surrender pays half
of the initial bet back"; DECISIONS.md rules 19 and 20 (and 22: autoplay takes no insurance).
"""

from __future__ import annotations

import golden_helpers as golden
import pytest

from boundless.core.errors import IllegalActionError, InsufficientCoinsError, PhaseError
from boundless.core.round import Action
from boundless.core.round.views import player_view


def test_insurance_is_offered_against_an_ace_and_costs_half_the_bet() -> None:
    # 9S 7H = 16 against AD; the dealer's second card 6C makes soft 17: insurance lost.
    round_, _ = golden.dealt(golden.UNLIMITED, "9S AD 7H 6C", main=3000, balance=10_000)
    assert round_.phase == "insurance"
    assert player_view(round_, "p")["player"]["positions"][0]["insurance_offer"] == "insurance"
    round_.take_insurance("p", 1)
    assert player_view(round_, "p")["player"]["free_coins"] == 5500
    golden.play(round_, {("p", 1): ["stand"]})
    assert golden.dealer(round_) == "AD 6C"
    insurance = golden.result(round_, "p", 1).insurance
    assert insurance is not None
    assert (insurance.kind, insurance.stake, insurance.outcome) == ("insurance", 1500, "lose")
    assert golden.net(round_, "p") == -4500


def test_insurance_pays_two_to_one_on_a_dealer_blackjack_and_the_double_comes_back() -> None:
    """9S 7H = 16 against AD, both p and q insure. p stands; q doubles and takes 5C (21).
    The dealer's second card KC makes blackjack: each loses the original bet only, and the
    insurance returns 1,500 on 500, so both break even."""
    round_, _ = golden.opened(golden.UNLIMITED, "9S AD 7H 5C KC", "p", "q")
    golden.play(round_, {("p", 1): ["stand"], ("q", 1): ["double"]}, insurance=[("p", 1), ("q", 1)])
    assert golden.dealer(round_) == "AD KC"
    assert golden.hand(round_, "p", 1) == golden.Hand("9S 7H", 16, 1000, "lose", 0)
    assert golden.hand(round_, "q", 1) == golden.Hand("9S 7H 5C", 21, 2000, "lose", 1000)
    for player in ("p", "q"):
        insurance = golden.result(round_, player, 1).insurance
        assert insurance is not None
        assert (insurance.stake, insurance.outcome, insurance.payout_amount) == (500, "win", 1500)
        assert golden.net(round_, player) == 0


def test_insurance_is_answered_per_spot() -> None:
    # p holds spot 1 (TS 9H) and spot 2 (9S 8H) against AD and insures spot 2 only; KC: blackjack.
    round_, _ = golden.opened(golden.UNLIMITED, "TS 9S AD 9H 8H KC", "p")
    golden.bet(round_, "p", 2, balance=None)
    golden.play(round_, {("p", 1): ["stand"], ("p", 2): ["stand"]}, insurance=[("p", 2)])
    assert golden.result(round_, "p", 1).insurance is None
    insurance = golden.result(round_, "p", 2).insurance
    assert insurance is not None and insurance.payout_amount == 1500
    assert golden.net(round_, "p") == -1000 - 1000 - 500 + 1500


def test_insurance_needs_the_coins() -> None:
    round_, shoe = golden.dealt(golden.UNLIMITED, "9S AD 7H 6C", balance=1400)
    with golden.refused(round_, shoe, InsufficientCoinsError, r"insurance costs 5\.00"):
        round_.take_insurance("p", 1)


@pytest.mark.parametrize("up", ["KD", "TD", "9D", "2D"])
def test_no_insurance_or_even_money_against_any_other_up_card(up: str) -> None:
    round_, shoe = golden.opened(golden.UNLIMITED, f"AS 9S {up} KH 7H", "a", ("b", 2))
    round_.deal()
    assert round_.phase in ("decisions", "dealer")
    with golden.unchanged(round_, shoe):
        with pytest.raises(PhaseError):
            round_.take_insurance("b", 2)
        with pytest.raises(PhaseError):
            round_.take_even_money("a", 1)


def test_a_blackjack_against_an_ace_is_offered_even_money_and_other_hands_insurance() -> None:
    round_, shoe = golden.opened(golden.UNLIMITED, "AS 9H AD KD 7C 7S", "a", ("b", 2))
    round_.deal()
    assert round_.can_take_even_money("a", 1) and not round_.can_take_insurance("a", 1)
    assert round_.can_take_insurance("b", 2) and not round_.can_take_even_money("b", 2)
    assert player_view(round_, "a")["player"]["positions"][0]["insurance_offer"] == "even_money"
    with golden.unchanged(round_, shoe):
        with pytest.raises(IllegalActionError, match="even money is only offered to a blackjack"):
            round_.take_even_money("b", 2)
        with pytest.raises(IllegalActionError, match="offered even money, not insurance"):
            round_.take_insurance("a", 1)


@pytest.mark.parametrize(
    ("second", "outcome", "payout"),
    [("KC", "push", 1000), ("7C", "blackjack", 2500)],
    ids=["dealer-blackjack-push", "paid-3-to-2-after-the-dealer"],
)
def test_a_blackjack_that_declines_even_money_waits_for_the_dealers_hand(
    second: str, outcome: str, payout: int
) -> None:
    round_, _ = golden.opened(golden.UNLIMITED, f"AS AD KD {second}", "a")
    golden.play(round_)
    assert golden.hand(round_, "a", 1) == golden.Hand("AS KD", 21, 1000, outcome, payout)
    assert golden.paid_by_stage(round_) == [("settlement", {"a@1": payout})]


def test_nobody_is_insured_without_answering() -> None:
    # TS 9H = 19 against AD: no answer, no insurance; the autoplay stands; KC: blackjack.
    round_, _ = golden.played(golden.UNLIMITED, "TS AD 9H KC")
    assert golden.result(round_, "p", 1).insurance is None
    assert golden.hand(round_, "p", 1) == golden.Hand("TS 9H", 19, 1000, "lose", 0)


def test_surrender_returns_half_the_bet_at_once() -> None:
    # TS 6H = 16 against 9D surrenders; the dealer then draws 5C and 5D: 19.
    round_, _ = golden.decided(golden.UNLIMITED, "TS 9D 6H 5C 5D", "surrender")
    assert round_.phase == "dealer"
    assert golden.paid_by_stage(round_) == [("surrender", {"p@1": 500})]
    golden.play(round_)
    assert golden.dealer(round_) == "9D 5C 5D"
    assert golden.hand(round_, "p", 1) == golden.Hand("TS 6H", 16, 1000, "surrender", 500)
    assert golden.paid_by_stage(round_) == [("surrender", {"p@1": 500})]


def test_a_surrendered_hand_keeps_its_half_when_the_dealer_then_makes_blackjack() -> None:
    round_, _ = golden.opened(golden.UNLIMITED, "TS TD 6C AC", "a", "b")
    golden.play(round_, {("a", 1): ["surrender"], ("b", 1): ["stand"]})
    assert golden.dealer(round_) == "TD AC" and round_.dealer_hand.blackjack
    assert golden.hand(round_, "a", 1) == golden.Hand("TS 6C", 16, 1000, "surrender", 500)
    assert golden.hand(round_, "b", 1) == golden.Hand("TS 6C", 16, 1000, "lose", 0)
    assert golden.net(round_, "a") == -500


@pytest.mark.parametrize(
    "up", ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD"]
)
def test_surrender_is_offered_against_two_to_ten_value(up: str) -> None:
    round_, _ = golden.dealt(golden.UNLIMITED, f"TS {up} 6H")
    assert Action.SURRENDER in round_.legal_actions("p", 1)


def test_surrender_is_not_offered_against_an_ace() -> None:
    round_, shoe = golden.dealt(golden.UNLIMITED, "TS AD 6H 7C")
    round_.close_insurance()
    assert round_.legal_actions("p", 1) == frozenset({Action.HIT, Action.STAND, Action.DOUBLE})
    with golden.refused(round_, shoe, IllegalActionError, "surrender is not allowed now"):
        round_.decide("p", 1, "surrender")


def test_surrender_only_as_the_first_decision_of_each_spots_initial_hand() -> None:
    """p plays spot 1 (TS 2H = 12) and spot 2 (9S 7C = 16) against 9D. On spot 1 p hits (4C)
    and may no longer surrender; spot 2's first decision may still be a surrender."""
    round_, shoe = golden.opened(golden.UNLIMITED, "TS 9S 9D 2H 7C 4C 2C TC", "p")
    golden.bet(round_, "p", 2, balance=None)
    round_.deal()
    round_.decide("p", 1, "hit")
    round_.close_step()
    assert Action.SURRENDER not in round_.legal_actions("p", 1)
    with golden.refused(round_, shoe, IllegalActionError, "surrender is not allowed now"):
        round_.decide("p", 1, "surrender")
    round_.decide("p", 1, "stand")
    round_.close_step()
    assert Action.SURRENDER in round_.legal_actions("p", 2)
    golden.play(round_, {("p", 2): ["surrender"]})
    assert golden.hand(round_, "p", 1) == golden.Hand("TS 2H 4C", 16, 1000, "lose", 0)
    assert golden.hand(round_, "p", 2) == golden.Hand("9S 7C", 16, 1000, "surrender", 500)
    assert golden.dealer(round_) == "9D 2C TC"
