"""Golden rounds: operator pause, resume and cancel with a full refund.

Boundless document, "Error Handling"; DECISIONS.md rule 16.
"""

from __future__ import annotations

import golden_helpers as golden
import pytest

from boundless.core.errors import PhaseError
from boundless.core.round import SharedRound
from boundless.core.round.views import player_view
from boundless.core.shoe import Shoe

ALL_SIDES = {"pair": 100, "bust_bonus": 200, "lucky_trio": 300, "poker_trio": 400}


def _rejected_while_paused(round_: SharedRound, shoe: Shoe, call: object) -> None:
    assert callable(call)
    with golden.refused(round_, shoe, PhaseError, "paused"):
        call()


def test_pause_freezes_the_decisions_and_resume_continues_where_it_stopped() -> None:
    # Split 8S 8H against 6D TC; pause after the split, then finish as an unpaused round would:
    # hand 1 8S 3C hits 2D (13) and stands, hand 2 takes 5S (13) and stands; dealer draws 9H.
    cards = "8S 6D 8H TC 3C 2D 5S 9H 7C"
    script = ["split", "hit", "stand", "stand"]
    reference, _ = golden.played(golden.BOUNDLESS, cards, *script)

    round_, shoe = golden.decided(golden.BOUNDLESS, cards, "split")
    round_.pause("dealer card jam")
    assert round_.paused
    assert round_.legal_actions("p", 1) == frozenset()
    assert player_view(round_, "p")["paused"] is True
    for call in (
        lambda: round_.decide("p", 1, "hit"),
        round_.close_step,
        round_.advance,
        round_.run_to_end,
        round_.pause,
    ):
        _rejected_while_paused(round_, shoe, call)
    round_.resume()
    assert not round_.paused
    with pytest.raises(PhaseError):
        round_.resume()
    golden.play(round_, {"p": script[1:]})
    assert golden.hands(round_, "p") == golden.hands(reference, "p")
    assert golden.hands(round_, "p") == [
        golden.Hand("8S 3C 2D", 13, 1000, "win", 2000),
        golden.Hand("8H 5S", 13, 1000, "win", 2000),
    ]
    assert " ".join(map(str, round_.dealer_cards)) == "6D TC 9H"


def test_pause_in_the_betting_and_insurance_windows_accepts_nothing() -> None:
    round_, shoe = golden.opened(golden.BOUNDLESS, "9S AD 7H 6C TC", "p")
    round_.pause()
    _rejected_while_paused(
        round_, shoe, lambda: round_.place_bet("q", 1, 1000, {}, free_amount=10_000)
    )
    _rejected_while_paused(round_, shoe, round_.deal)
    round_.resume()
    round_.deal()
    round_.pause()
    _rejected_while_paused(round_, shoe, lambda: round_.take_insurance("p", 1))
    _rejected_while_paused(round_, shoe, round_.close_insurance)
    round_.resume()
    round_.take_insurance("p", 1)
    assert golden.staked(round_, "p") == 1500


def test_a_decision_made_before_a_pause_executes_after_the_resume() -> None:
    round_, _ = golden.dealt(golden.BOUNDLESS, "TS 9D 2H 8C 3C 4D 5S")
    round_.decide("p", 1, "hit")
    round_.pause()
    round_.resume()
    round_.close_step()
    assert golden.hands(round_, "p")[0].cards == "TS 2H 3C"


@pytest.mark.parametrize("stage", ["betting", "insurance", "decisions", "dealer", "settling"])
def test_cancel_returns_every_coin_staked_in_the_round(stage: str) -> None:
    # Up card ace, no dealer blackjack. Player a: main + all four side options + insurance,
    # splits 8S 8H and doubles hand 1. b: main only, stands. c: side options only.
    round_, _ = golden.boundless_round("8S AD 8H 6C 3C 9D 5S 7H KC KD")
    golden.seat(round_, "a", sides=ALL_SIDES)
    golden.seat(round_, "b", main=2500)
    golden.seat(round_, "c", main=0, sides=ALL_SIDES)
    if stage != "betting":
        round_.deal()
        if stage != "insurance":
            round_.take_insurance("a", 1)
            round_.close_insurance()
        else:
            round_.take_insurance("a", 1)
    if stage in ("decisions", "dealer", "settling"):
        round_.decide("a", 1, "split")
        round_.decide("b", 1, "stand")
        round_.close_step()
        round_.decide("a", 1, "double")
        round_.close_step()
        if stage != "decisions":
            while round_.phase == "decisions":
                round_.close_step()
        if stage == "settling":
            round_.play_dealer()
        assert round_.phase == stage
    staked_before = {player: golden.staked(round_, player) for player in "abc"}
    round_.cancel("table fault")
    assert round_.phase == "cancelled"
    for player in "abc":
        assert golden.paid(round_, player) == staked_before[player], player
        assert golden.net(round_, player) == 0, player
    if stage in ("decisions", "dealer", "settling"):
        assert staked_before["a"] == 1000 + 1000 + 1000 + 500 + 1000  # main, split, double, ins.
    with pytest.raises(PhaseError):
        round_.cancel()
    with pytest.raises(PhaseError):
        round_.advance()


def test_cancel_voids_winnings_already_paid_during_the_round() -> None:
    # The Pair (8S 8S: 30:1) is paid at the deal and a surrender refunds half at once;
    # cancelling leaves every player exactly where they started.
    round_, _ = golden.boundless_round("8S 6D 8S TC 5C")
    golden.seat(round_, "a", sides={"pair": 100})
    golden.seat(round_, "b")
    round_.deal()
    assert golden.side(round_, "a", 1, "pair") == ("win", "perfect_pair", 3100)
    round_.decide("b", 1, "surrender")
    round_.close_step()
    assert golden.paid(round_, "b") == 500
    round_.cancel()
    assert (golden.net(round_, "a"), golden.net(round_, "b")) == (0, 0)


def test_cancel_while_paused() -> None:
    round_, _ = golden.dealt(golden.BOUNDLESS, "8S 6D 8H TC", sides={"pair": 100})
    round_.pause("supervisor called")
    round_.cancel("no quick fix")
    assert round_.phase == "cancelled"
    assert not round_.paused
    assert golden.net(round_, "p") == 0


def test_a_settled_round_can_be_neither_paused_nor_cancelled() -> None:
    round_, shoe = golden.played(golden.BOUNDLESS, "TS 9D 9H 8C")
    with golden.unchanged(round_, shoe):
        for call in (round_.pause, round_.cancel):
            with pytest.raises(PhaseError):
                call()
