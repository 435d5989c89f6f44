"""Golden rounds: insurance, the peek and the dealer's natural blackjack.

Boundless document: the note on the playing phases (the round ends at once on a dealer
blackjack), "Insurance", "Round Result" (BJ row); DECISIONS.md rules 9, 10 and 13 (no insurance
by default).
"""

from __future__ import annotations

import golden_helpers as golden
import pytest

from boundless.core.errors import IllegalActionError, InsufficientCoinsError, PhaseError
from boundless.core.round.views import player_view


def test_insurance_is_offered_when_the_up_card_is_an_ace() -> None:
    round_, _ = golden.dealt(golden.BOUNDLESS, "9S AD 7H 6C")
    assert round_.phase == "insurance"
    assert round_.can_take_insurance("p", 1)
    assert player_view(round_, "p")["player"]["positions"][0]["insurance_offer"] == "insurance"


@pytest.mark.parametrize("up", ["KD", "TD", "9D", "2D"])
def test_no_insurance_against_any_other_up_card(up: str) -> None:
    round_, shoe = golden.dealt(golden.BOUNDLESS, f"9S {up} 7H 6C")
    assert round_.phase == "decisions"
    with golden.unchanged(round_, shoe), pytest.raises(PhaseError):
        round_.take_insurance("p", 1)


def test_insurance_costs_half_the_main_bet() -> None:
    round_, _ = golden.dealt(golden.BOUNDLESS, "9S AD 7H 6C", main=3000, balance=10_000)
    round_.take_insurance("p", 1)
    assert golden.staked(round_, "p") == 4500
    assert player_view(round_, "p")["player"]["free_coins"] == 5500
    assert golden.result(round_, "p").insurance.stake == 1500  # type: ignore[union-attr]


def test_insurance_pays_two_to_one_on_a_dealer_blackjack() -> None:
    # Player 9S 7H = 16 loses the main bet to AD KC; insurance 500 returns 1500.
    round_, _ = golden.played(golden.BOUNDLESS, "9S AD 7H KC", insured=True)
    assert golden.hand(round_, "p") == golden.Hand("9S 7H", 16, 1000, "lose", 0)
    insurance = golden.result(round_, "p").insurance
    assert insurance is not None
    assert (insurance.stake, insurance.outcome, insurance.payout_amount) == (500, "win", 1500)
    assert (golden.staked(round_, "p"), golden.paid(round_, "p"), golden.net(round_, "p")) == (
        1500,
        1500,
        0,
    )


def test_insurance_is_lost_without_a_dealer_blackjack_even_when_the_hand_wins() -> None:
    # Player TS 9H = 19 stands; dealer AD 5C (soft 16) draws 8S (14) and TC (24): bust.
    round_, _ = golden.played(golden.BOUNDLESS, "TS AD 9H 5C 8S TC", "stand", insured=True)
    assert golden.dealer(round_) == "AD 5C 8S TC"
    assert golden.hand(round_, "p") == golden.Hand("TS 9H", 19, 1000, "win", 2000)
    insurance = golden.result(round_, "p").insurance
    assert insurance is not None
    assert (insurance.outcome, insurance.payout_amount) == ("lose", 0)
    assert golden.net(round_, "p") == 500


def test_insurance_is_allowed_with_a_player_blackjack_and_pays_beside_the_push() -> None:
    # Player AS KH, dealer AD KC: the blackjacks push (1000 back) and insurance pays 1500.
    round_, _ = golden.dealt(golden.BOUNDLESS, "AS AD KH KC")
    assert round_.can_take_insurance("p", 1)
    round_.take_insurance("p", 1)
    round_.run_to_end()
    assert golden.hand(round_, "p") == golden.Hand("AS KH", 21, 1000, "push", 1000)
    assert (golden.staked(round_, "p"), golden.paid(round_, "p"), golden.net(round_, "p")) == (
        1500,
        2500,
        1000,
    )


def test_insured_blackjack_without_dealer_blackjack_is_paid_three_to_two() -> None:
    # Dealer AD 7C = soft 18 stands; the insurance is lost, the blackjack pays 2500.
    round_, _ = golden.played(golden.BOUNDLESS, "AS AD KH 7C", insured=True)
    assert golden.hand(round_, "p") == golden.Hand("AS KH", 21, 1000, "blackjack", 2500)
    assert golden.net(round_, "p") == 1000


def test_no_even_money_in_boundless() -> None:
    round_, shoe = golden.dealt(golden.BOUNDLESS, "AS AD KH 7C")
    with golden.unchanged(round_, shoe), pytest.raises(IllegalActionError):
        round_.take_even_money("p", 1)
    assert player_view(round_, "p")["player"]["positions"][0]["insurance_offer"] == "insurance"


def test_insurance_needs_enough_free_coins() -> None:
    # 499 free, insurance costs 500
    round_, shoe = golden.dealt(golden.BOUNDLESS, "9S AD 7H 6C", main=1000, balance=1499)
    assert not round_.can_take_insurance("p", 1)
    with golden.refused(round_, shoe, InsufficientCoinsError, "insurance"):
        round_.take_insurance("p", 1)

    round_, _ = golden.dealt(golden.BOUNDLESS, "9S AD 7H 6C", main=1000, balance=1500)
    round_.take_insurance("p", 1)
    assert golden.staked(round_, "p") == 1500


def test_insurance_can_be_bought_once_and_only_in_the_window() -> None:
    round_, shoe = golden.dealt(golden.BOUNDLESS, "9S AD 7H 6C TC")
    round_.take_insurance("p", 1)
    with golden.unchanged(round_, shoe), pytest.raises(IllegalActionError):
        round_.take_insurance("p", 1)
    round_.close_insurance()
    with pytest.raises(PhaseError):
        round_.take_insurance("p", 1)


def test_a_side_option_only_player_is_not_offered_insurance() -> None:
    round_, shoe = golden.opened(golden.BOUNDLESS, "9S AD 7H 6C", "seated")
    golden.seat(round_, "side", main=0, sides={"pair": 100})
    round_.deal()
    assert not round_.can_take_insurance("side", 1)
    with golden.unchanged(round_, shoe), pytest.raises(IllegalActionError):
        round_.take_insurance("side", 1)


def test_no_insurance_is_taken_for_a_player_who_does_not_answer() -> None:
    # DECISIONS rule 13: the window closes with no insurance for anyone who did not buy it.
    round_, _ = golden.played(golden.BOUNDLESS, "9S AD 7H KC")
    assert golden.result(round_, "p").insurance is None
    assert (golden.staked(round_, "p"), golden.paid(round_, "p")) == (1000, 0)


# ---- peek -------------------------------------------------------------------------------


def test_ace_up_dealer_blackjack_ends_the_round_right_after_the_insurance_window() -> None:
    round_, shoe = golden.dealt(golden.BOUNDLESS, "9S AD 7H KC 2C 3C")
    assert round_.phase == "insurance"
    assert round_.hole_card is None  # not checked in public before the window closes
    round_.close_insurance()
    assert round_.phase == "settling"  # no decisions at all
    assert round_.hole_card is not None
    assert shoe.position == 4  # nobody drew a card
    round_.run_to_end()
    assert golden.dealer(round_) == "AD KC"
    assert round_.dealer_hand.blackjack
    assert golden.hand(round_, "p") == golden.Hand("9S 7H", 16, 1000, "lose", 0)


@pytest.mark.parametrize("up", ["TD", "JD", "QD", "KD"])
def test_ten_up_dealer_blackjack_ends_the_round_at_once(up: str) -> None:
    round_, shoe = golden.dealt(golden.BOUNDLESS, f"9S {up} 7H AC 2C 3C")
    assert round_.phase == "settling"  # no insurance window, no decisions
    assert shoe.position == 4
    round_.run_to_end()
    assert golden.dealer(round_) == f"{up} AC"
    assert golden.hand(round_, "p") == golden.Hand("9S 7H", 16, 1000, "lose", 0)


def test_dealer_blackjack_against_player_blackjack_is_a_push() -> None:
    round_, _ = golden.played(golden.BOUNDLESS, "AS KD KH AC")
    assert golden.hand(round_, "p") == golden.Hand("AS KH", 21, 1000, "push", 1000)
    assert golden.net(round_, "p") == 0


def test_dealer_blackjack_takes_every_non_blackjack_hand_and_spares_blackjacks() -> None:
    # Same initial cards for all: a non-blackjack hand (TS 9H = 19) for every seated player.
    round_, _ = golden.opened(golden.BOUNDLESS, "TS AD 9H KC", "a", "b", "c")
    golden.play(round_, insurance=["b"])
    assert golden.hand(round_, "a") == golden.Hand("TS 9H", 19, 1000, "lose", 0)
    assert golden.hand(round_, "c") == golden.Hand("TS 9H", 19, 1000, "lose", 0)
    assert (golden.net(round_, "a"), golden.net(round_, "b"), golden.net(round_, "c")) == (
        -1000,
        0,
        -1000,
    )


def test_peek_without_blackjack_keeps_the_hole_card_hidden() -> None:
    round_, _ = golden.dealt(golden.BOUNDLESS, "9S KD 7H 8C 2C")
    assert round_.phase == "decisions"
    view = player_view(round_, "p")
    assert view["dealer"]["cards"] == ["KD"]
    assert view["dealer"]["hole_hidden"] is True
    assert "8C" not in repr(view)
    assert round_.hole_card is None
    round_.decide("p", 1, "stand")
    round_.run_to_end()
    assert golden.dealer(round_) == "KD 8C"
    assert golden.hand(round_, "p").outcome == "lose"


def test_dealer_blackjack_settles_the_side_options_that_do_not_need_more_cards() -> None:
    # Pair (8S 8S perfect) pays 30:1, Bust Bonus loses to a dealer blackjack (rule 14),
    # Poker Trio 8S 8S + KD is nothing.
    round_, _ = golden.played(
        golden.BOUNDLESS, "8S KD 8S AC", sides={"pair": 100, "bust_bonus": 100, "poker_trio": 100}
    )
    assert golden.side(round_, "p", 1, "pair") == ("win", "perfect_pair", 3100)
    assert golden.side(round_, "p", 1, "bust_bonus") == ("lose", None, 0)
    assert golden.side(round_, "p", 1, "poker_trio") == ("lose", None, 0)
    assert golden.hand(round_, "p").outcome == "lose"
    assert golden.net(round_, "p") == 3100 - 1300


def test_a_table_of_side_option_players_only_sees_the_dealer_blackjack_at_once() -> None:
    # No seated player: no insurance window; the peek still ends the round at once.
    round_, shoe = golden.boundless_round("9S AD 7H KC 2C")
    golden.seat(round_, "s", main=0, sides={"pair": 100, "bust_bonus": 100})
    round_.deal()
    assert round_.phase == "settling"
    round_.run_to_end()
    assert golden.dealer(round_) == "AD KC"
    assert shoe.position == 4
    assert golden.side(round_, "s", 1, "bust_bonus") == ("lose", None, 0)
