"""Helpers for the golden stacked-shoe rounds of Boundless Blackjack (not a test module).

A golden round fixes every card with :meth:`Shoe.stacked` and every decision by script, then
asserts exact cards, totals, outcomes and integer payouts. Card strings use the scenario
notation (``"AS KH 9D"``); the dealing order for the one Boundless spot is player card 1,
dealer up card, player card 2, dealer hole card, then one card per decision step, then the
dealer's draws (DECISIONS.md rules 7-8).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from boundless.core.cards import parse_cards
from boundless.core.errors import RulesError
from boundless.core.round import SharedRound
from boundless.core.round.results import PositionResult, position_result
from boundless.core.rules import RuleSet, rule_set_from_data
from boundless.core.shoe import Shoe
from boundless.titles import load_game

RULES, CHART = load_game("boundless")
MAIN = 1000  # 10.00 coins
BALANCE = 100_000  # 1,000.00 coins
SKIP = "-"  # in a decision script: no decision at this step (timeout / disconnection)


def rules_with(**sections: Mapping[str, Any]) -> RuleSet:
    """The Boundless rule set with some fields replaced, e.g. ``limits={"unit_amount": 1}``."""
    data = RULES.model_dump(mode="json")
    for section, fields in sections.items():
        data[section] = {**data[section], **fields}
    return rule_set_from_data(data, "boundless (test variant)")


def new_round(
    cards: str, *, round_in_shoe: int = 1, rules: RuleSet = RULES
) -> tuple[SharedRound, Shoe]:
    """A Boundless round dealing from exactly these cards, and its shoe."""
    shoe = Shoe.stacked(parse_cards(cards.split()))
    round_ = SharedRound(rules, round_in_shoe=round_in_shoe, chart=CHART, cards=shoe)
    return round_, shoe


def seat(
    round_: SharedRound,
    player_id: str,
    main: int = MAIN,
    sides: Mapping[str, int] | None = None,
    balance: int = BALANCE,
) -> None:
    round_.place_bet(player_id, 1, main, dict(sides or {}), free_amount=balance)


def play(
    round_: SharedRound,
    decisions: Mapping[str, Sequence[str]] | None = None,
    insurance: Sequence[str] = (),
) -> None:
    """Deal, answer insurance, run the scripted steps, then let the round finish.

    ``decisions[player]`` lists one word per step in which that player's hand awaits a
    decision; ``SKIP`` leaves that step to the autoplay. When a list runs out the autoplay
    decides the rest, as on a timeout.
    """
    queues = {player: list(words) for player, words in (decisions or {}).items()}
    if round_.phase == "betting":
        round_.deal()
    if round_.phase == "insurance":
        for player in insurance:
            round_.take_insurance(player, 1)
        round_.close_insurance()
    while round_.phase == "decisions":
        for player, queue in queues.items():
            position = round_.position(player, 1)
            if queue and round_.path_of(position).needs_decision:
                word = queue.pop(0)
                if word != SKIP:
                    round_.decide(player, 1, word)
        round_.close_step()
    round_.run_to_end()


def result(round_: SharedRound, player_id: str) -> PositionResult:
    return position_result(round_, round_.position(player_id, 1))


@dataclass(frozen=True)
class Hand:
    cards: str
    total: int
    bet: int
    outcome: str | None
    payout: int | None


def hands(round_: SharedRound, player_id: str) -> list[Hand]:
    return [
        Hand(
            " ".join(str(card) for card in hand.cards),
            hand.total,
            hand.bet_amount,
            hand.outcome,
            hand.payout_amount,
        )
        for hand in result(round_, player_id).hands
    ]


def hand(round_: SharedRound, player_id: str) -> Hand:
    (only,) = hands(round_, player_id)
    return only


def net(round_: SharedRound, player_id: str) -> int:
    """Coins won (positive) or lost (negative) by the player in this round."""
    outcome = result(round_, player_id)
    return outcome.paid_amount - outcome.staked_amount


def staked(round_: SharedRound, player_id: str) -> int:
    return result(round_, player_id).staked_amount


def paid(round_: SharedRound, player_id: str) -> int:
    return result(round_, player_id).paid_amount


def side(
    round_: SharedRound, player_id: str, key: str
) -> tuple[str | None, str | None, int | None]:
    """(outcome, pattern, payout) of one side bet of the player."""
    for bet in result(round_, player_id).side_bets:
        if bet.key == key:
            return bet.outcome, bet.pattern, bet.payout_amount
    raise AssertionError(f"{player_id} has no {key} bet")


def dealer(round_: SharedRound) -> str:
    return " ".join(str(card) for card in round_.dealer_cards)


def step_cards(round_: SharedRound) -> list[str]:
    return [str(card) for card in round_.step_cards.get(1, [])]


def drawn(round_: SharedRound, player_id: str) -> list[str]:
    """The cards the player drew in steps, in the order drawn (initial cards left out)."""
    path = round_.path_of(round_.position(player_id, 1))
    cards: list[str] = []
    for item in path.hands:
        start = 1 if item.from_split else 2
        cards.extend(str(card) for card in item.cards[start:])
    return cards


def snapshot(round_: SharedRound, shoe: Shoe | None = None) -> tuple[object, ...]:
    """Everything a rejected operation must leave untouched."""
    book = round_.book
    arrays = tuple(
        np.array(column, copy=True).tolist()
        for column in (
            book.free,
            book.main,
            book.sides,
            book.node,
            book.insurance,
            book.even_money,
            book.pending,
            book.extra,
            book.paid,
        )
    )
    return (
        len(round_.events),
        round_.phase,
        round_.paused,
        round_.step,
        round_.current_spot,
        len(round_.payments),
        len(round_.nodes.states),
        tuple(round_.dealer_cards),
        round_.hole_revealed,
        len(book),
        arrays,
        None if shoe is None else shoe.position,
    )


def assert_rejected(
    round_: SharedRound, shoe: Shoe | None, player: str, action: str, spot: int = 1
) -> None:
    """The decision raises a RulesError naming the player and leaves the round untouched."""
    before = snapshot(round_, shoe)
    with pytest.raises(RulesError, match=f"player '{player}'"):
        round_.decide(player, spot, action)
    assert snapshot(round_, shoe) == before
