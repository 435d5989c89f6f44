"""Golden rounds: stakes in integer minor units within the limits, and rejected operations.

DECISIONS.md rules 1 (integer money, stakes within limits), 4 (N:1 returns stake plus N times
the stake) and 5 (an illegal decision is rejected with a clear error and changes nothing).
"""

from __future__ import annotations

import golden_helpers as golden
import pytest

from boundless.core.errors import (
    IllegalActionError,
    InsufficientCoinsError,
    InvalidBetError,
    PhaseError,
    RulesError,
    UnknownPositionError,
)
from boundless.core.round import SharedRound


@pytest.mark.parametrize(
    ("main", "sides", "error", "words"),
    [
        (50, {}, InvalidBetError, "outside the table limits"),  # under the 1.00 minimum
        (100_100, {}, InvalidBetError, "outside the table limits"),  # over the 1,000.00 maximum
        (150, {}, InvalidBetError, "multiple"),  # not a whole table unit
        (-100, {}, InvalidBetError, "negative"),
        (0, {}, InvalidBetError, "main bet or at least one side bet"),
        (1000, {"pair": 50}, InvalidBetError, "pair"),
        (1000, {"pair": 10_100}, InvalidBetError, "pair"),
        (1000, {"lucky_trio": 150}, InvalidBetError, "lucky_trio"),
        (1000, {"poker_trio": -100}, InvalidBetError, "negative"),
        (1000, {"side_show": 100}, RulesError, "side_show"),
        (100_000, {"pair": 100}, InsufficientCoinsError, "free coins"),  # balance 100,000
    ],
)
def test_bets_outside_the_rules_are_rejected_and_change_nothing(
    main: int, sides: dict[str, int], error: type[Exception], words: str
) -> None:
    round_, shoe = golden.opened(golden.BOUNDLESS, "TS 9D 9H 8C", "other")
    with golden.refused(round_, shoe, error, words):
        round_.place_bet("p", 1, main, sides, free_amount=100_000)


def test_smallest_and_largest_bets_are_accepted() -> None:
    round_, _ = golden.boundless_round("TS 9D 9H 8C")
    golden.seat(round_, "low", main=100, sides={"pair": 100})
    golden.seat(round_, "high", main=100_000, sides={"pair": 10_000}, balance=110_000)
    golden.play(round_, {"low": ["stand"], "high": ["stand"]})
    assert [h.payout for h in golden.hands(round_, "low")] == [200]
    assert [h.payout for h in golden.hands(round_, "high")] == [200_000]


def test_one_main_play_per_player_on_the_one_spot() -> None:
    round_, shoe = golden.opened(golden.BOUNDLESS, "TS 9D 9H 8C", "p")
    with golden.unchanged(round_, shoe):
        with pytest.raises(InvalidBetError, match="already has a bet"):
            round_.place_bet("p", 1, 1000, {}, free_amount=100_000)
        with pytest.raises(InvalidBetError, match=r"spots 1\.\.1"):
            round_.place_bet("q", 2, 1000, {}, free_amount=100_000)


def test_no_bets_after_the_deal() -> None:
    round_, shoe = golden.dealt(golden.BOUNDLESS, "TS 9D 9H 8C")
    with golden.unchanged(round_, shoe), pytest.raises(PhaseError):
        round_.place_bet("q", 1, 1000, {}, free_amount=100_000)


def test_money_is_integer_minor_units_everywhere() -> None:
    round_, _ = golden.played(
        golden.BOUNDLESS,
        "8S 6D 8H TC 3C 2D 5S 9H 7C",
        "split",
        "double",
        "hit",
        "stand",
        sides={"pair": 100, "bust_bonus": 100},
    )
    outcome = golden.result(round_, "p")
    amounts = [outcome.staked_amount, outcome.paid_amount]
    amounts += [h.bet_amount for h in outcome.hands] + [h.payout_amount for h in outcome.hands]
    amounts += [bet.stake for bet in outcome.side_bets]
    amounts += [bet.payout_amount for bet in outcome.side_bets]
    assert all(type(amount) is int for amount in amounts), amounts
    for payment in round_.payments:
        assert payment.amounts.dtype.kind == "i"


# ---- rejected decisions --------------------------------------------------------------------


def test_decisions_outside_the_decision_phase_are_rejected() -> None:
    round_, shoe = golden.opened(golden.BOUNDLESS, "TS 9D 6H 8C 5C", "p")
    with golden.unchanged(round_, shoe), pytest.raises(PhaseError):
        round_.decide("p", 1, "hit")
    round_.deal()
    round_.decide("p", 1, "stand")
    round_.run_to_end()
    with golden.unchanged(round_, shoe), pytest.raises(PhaseError):
        round_.decide("p", 1, "hit")


@pytest.mark.parametrize(
    ("cards", "setup", "action", "error", "words"),
    [
        ("TS 9D 6H 8C 2C 4C", [], "fold", IllegalActionError, "unknown action 'fold'"),
        ("TS 9D 6H 8C 2C 4C", ["hit"], "surrender", IllegalActionError, "surrender is not"),
        ("TS 9D 6H 8C 2C 4C", ["hit"], "double", IllegalActionError, "double is not"),
        ("TS 9D 6H 8C 2C 4C", ["hit"], "split", IllegalActionError, "split is not"),
        ("TS 9D 6H 8C 2C 4C", [], "split", IllegalActionError, "split is not"),  # no pair
        ("8S 9D 8H 8C AC 4C", ["split"], "split", IllegalActionError, "split is not"),  # 8S AC
        # split aces: hand 1 is done, hand 2 waits for its card, not for a decision
        ("AS 9D AH 8C 5C 4C", ["split"], "stand", IllegalActionError, "awaits a decision"),
        # a blackjack has nothing to decide: the round is already past the decisions
        ("AS 9D KH 8C 5C 4C", [], "hit", PhaseError, "dealer phase"),
    ],
)
def test_illegal_decisions_are_rejected_never_turned_into_another_action(
    cards: str, setup: list[str], action: str, error: type[Exception], words: str
) -> None:
    round_, shoe = golden.dealt(golden.BOUNDLESS, cards)
    for word in setup:
        round_.decide("p", 1, word)
        round_.close_step()
    with golden.refused(round_, shoe, error, words):
        round_.decide("p", 1, action)


def test_one_decision_per_step() -> None:
    round_, shoe = golden.dealt(golden.BOUNDLESS, "TS 9D 6H 8C 5C")
    round_.decide("p", 1, "hit")
    golden.assert_rejected(round_, shoe, "p", "stand")


def test_decisions_for_unknown_players_are_rejected() -> None:
    round_, shoe = golden.dealt(golden.BOUNDLESS, "TS 9D 6H 8C 5C")
    with golden.refused(round_, shoe, UnknownPositionError, "nobody"):
        round_.decide("nobody", 1, "hit")


def test_the_event_log_rebuilds_a_golden_round_exactly() -> None:
    round_, _ = golden.boundless_round("8S 6D 8H TC 3C 2D 5S 9H 2C")
    for player in "abc":
        golden.seat(round_, player, sides={"pair": 100})
    golden.play(round_, {"a": ["split", "stand", "hit"], "b": ["double"], "c": ["surrender"]})
    rebuilt = SharedRound.rebuild(golden.RULES, round_.events, golden.CHART)
    assert rebuilt.phase == "settled"
    for player in "abc":
        assert golden.hands(rebuilt, player) == golden.hands(round_, player)
        assert golden.result(rebuilt, player) == golden.result(round_, player)
    assert rebuilt.dealer_cards == round_.dealer_cards
