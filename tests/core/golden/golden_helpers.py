"""Helpers for the golden stacked-shoe rounds of every title (not a test module).

A golden round fixes every card with :meth:`Shoe.stacked` and every decision by script, then
asserts exact cards, totals, outcomes and integer payouts. Card strings use the scenario
notation (``"AS KH 9D"``). Cards are dealt in this order: the first card of each occupied spot
left to right, the dealer's up card, the second card of each occupied spot, the hole card
(titles that peek), then each spot's step cards, spot by spot, then the dealer's cards.

The helpers take a spot; Boundless Blackjack has one, so for it the spot defaults to 1
(``boundless_round``, ``seat``, ``play`` with player keys) and the single-spot helpers are the
multi-spot ones at spot 1.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from boundless.core.cards import parse_cards
from boundless.core.errors import RulesError
from boundless.core.random_source import SeededSource
from boundless.core.round import SharedRound
from boundless.core.round.follower import FollowerRound
from boundless.core.round.results import PositionResult, position_result
from boundless.core.round.state import RoundState
from boundless.core.rules import RuleSet, rule_set_from_data
from boundless.core.shoe import Shoe
from boundless.titles import load_game

BOUNDLESS = "boundless"
UNLIMITED = "unlimited"
BOO_BUCKS = "boo-bucks"
BOO_BUCKS_PRESETS = (
    "boo-bucks",
    "boo-bucks-h17",
    "boo-bucks-no-das",
    "boo-bucks-single-deck",
    "boo-bucks-split-aces-hit",
)
RULES, CHART = load_game(BOUNDLESS)
MAIN = 1000  # 10.00 coins
BALANCE = 100_000  # 1,000.00 coins
SKIP = "-"  # in a decision script: no decision at this step (timeout / disconnection)
# A pair of Boo Bucks side-bet groups to offer when a test does not care which.
PLAIN_OFFER = ("trifecta", "in_between")

Key = str | tuple[str, int]  # a player (spot 1) or (player, spot)
Decisions = Mapping[Key, Sequence[str]]


# ---- rule sets ---------------------------------------------------------------------------
def rules_of(game: str) -> RuleSet:
    return load_game(game)[0]


def variant(game: str, **sections: Mapping[str, Any]) -> RuleSet:
    """A shipped rule set with some fields replaced, e.g. ``table={"max_spots_per_player": 2}``."""
    data = rules_of(game).model_dump(mode="json")
    for section, fields in sections.items():
        data[section] = {**data[section], **fields}
    return rule_set_from_data(data, f"{game} (test variant)")


def rules_with(**sections: Mapping[str, Any]) -> RuleSet:
    """The Boundless rule set with some fields replaced, e.g. ``limits={"unit_amount": 1}``."""
    return variant(BOUNDLESS, **sections)


def with_side_bet(game: str, key: str, **fields: Any) -> RuleSet:
    """A shipped rule set with one side bet's fields replaced, e.g. ``variant="player_only"``."""
    data = rules_of(game).model_dump(mode="json")
    for item in data["side_bets"]:
        if item["key"] == key:
            item.update(fields)
    return rule_set_from_data(data, f"{game} (test variant of {key})")


# ---- a round -------------------------------------------------------------------------------
def new_round(
    game: str,
    cards: str,
    *,
    round_in_shoe: int = 1,
    offered: Sequence[str] | None = None,
    wheel_seed: int = 0,
    rules: RuleSet | None = None,
) -> tuple[SharedRound, Shoe]:
    """A round of ``game`` dealing from exactly these cards, and its shoe.

    Titles whose player chooses the side bets offer ``offered`` groups (default
    :data:`PLAIN_OFFER`); bonus wheels spin from ``SeededSource(wheel_seed)``, as in
    ``boundless replay``.
    """
    shipped, chart = load_game(game)
    rules = rules or shipped
    if offered is None and rules.side_bet_offer.mode == "player_chooses":
        offered = PLAIN_OFFER
    shoe = Shoe.stacked(parse_cards(cards.split()))
    round_ = SharedRound(
        rules,
        round_in_shoe=round_in_shoe,
        chart=chart,
        cards=shoe,
        offered_side_bets=offered,
        randomness=SeededSource(wheel_seed),
    )
    return round_, shoe


def boundless_round(
    cards: str, *, round_in_shoe: int = 1, rules: RuleSet = RULES
) -> tuple[SharedRound, Shoe]:
    """A Boundless round dealing from exactly these cards, and its shoe."""
    return new_round(BOUNDLESS, cards, round_in_shoe=round_in_shoe, rules=rules)


def bet(
    round_: SharedRound,
    player: str,
    spot: int,
    main: int = MAIN,
    sides: Mapping[str, int] | None = None,
    balance: int | None = BALANCE,
) -> None:
    """One player's bet on one spot; ``balance`` is the free coins given with it (None: known)."""
    round_.place_bet(player, spot, main, dict(sides or {}), free_amount=balance)


def seat(round_: SharedRound, player: str, **terms: Any) -> None:
    """A bet on spot 1 (Boundless has one); ``terms``: :func:`bet`'s ``main``, ``sides`` and
    ``balance``."""
    bet(round_, player, 1, **terms)


def dealt(
    game: str,
    cards: str,
    *,
    main: int = MAIN,
    sides: Mapping[str, int] | None = None,
    balance: int = BALANCE,
    rules: RuleSet | None = None,
) -> tuple[SharedRound, Shoe]:
    """A round of ``game`` from these cards with player "p" betting on spot 1, already dealt."""
    round_, shoe = new_round(game, cards, rules=rules)
    bet(round_, "p", 1, main, sides, balance)
    round_.deal()
    return round_, shoe


def decided(game: str, cards: str, *words: str, **terms: Any) -> tuple[SharedRound, Shoe]:
    """:func:`dealt` (``terms``: its keywords), then p's decisions on spot 1, one step each
    (each step is closed)."""
    round_, shoe = dealt(game, cards, **terms)
    for word in words:
        round_.decide("p", 1, word)
        round_.close_step()
    return round_, shoe


def played(
    game: str, cards: str, *words: str, insured: bool = False, **terms: Any
) -> tuple[SharedRound, Shoe]:
    """A whole round: :func:`dealt` (``terms``: its keywords), p takes the insurance where
    ``insured`` and plays ``words`` as in :func:`play`; the autoplay does the rest."""
    round_, shoe = dealt(game, cards, **terms)
    play(round_, {"p": words}, insurance=["p"] if insured else [])
    return round_, shoe


def opened(game: str, cards: str, *keys: Key) -> tuple[SharedRound, Shoe]:
    """A round of ``game`` from these cards with a bet of :data:`MAIN` (and :data:`BALANCE`
    beyond the round) for each key: a player on spot 1, or ``(player, spot)``."""
    round_, shoe = new_round(game, cards)
    for player, spot in map(_key, keys):
        bet(round_, player, spot)
    return round_, shoe


def seated(game: str, cards: str, *mains: int, balance: int = BALANCE) -> tuple[SharedRound, Shoe]:
    """A round of ``game`` from these cards in which p bets ``mains[0]`` on spot 1,
    ``mains[1]`` on spot 2, ... (0: no bet there), with ``balance`` beyond the round."""
    round_, shoe = new_round(game, cards)
    known: int | None = balance
    for spot, main in enumerate(mains, start=1):
        if main:
            bet(round_, "p", spot, main, balance=known)
            known = None  # the round knows p's coins from the first bet on
    return round_, shoe


def _key(key: Key) -> tuple[str, int]:
    return (key, 1) if isinstance(key, str) else key


def play(
    round_: SharedRound,
    decisions: Decisions | None = None,
    insurance: Sequence[Key] = (),
    even_money: Sequence[Key] = (),
) -> None:
    """Deal, answer the insurance window, run every spot's scripted steps, finish the round.

    ``decisions[(player, spot)]`` (or ``decisions[player]`` for spot 1) lists one word per step
    in which that position's hand awaits a decision; ``SKIP`` leaves that step to the
    autoplay, as does a list that has run out (as on a timeout).
    """
    queues = {_key(key): list(words) for key, words in (decisions or {}).items()}
    if round_.phase == "betting":
        round_.deal()
    if round_.phase == "insurance":
        for player, spot in map(_key, insurance):
            round_.take_insurance(player, spot)
        for player, spot in map(_key, even_money):
            round_.take_even_money(player, spot)
        round_.close_insurance()
    while round_.phase == "decisions":
        spot = round_.current_spot
        for (player, on_spot), queue in queues.items():
            if on_spot != spot or not queue:
                continue
            if round_.path_of(round_.position(player, spot)).needs_decision:
                word = queue.pop(0)
                if word != SKIP:
                    round_.decide(player, spot, word)
        round_.close_step()
    round_.run_to_end()


# ---- what came out -----------------------------------------------------------------------
@dataclass(frozen=True)
class Hand:
    cards: str
    total: int
    bet: int
    outcome: str | None
    payout: int | None


def result(round_: SharedRound, player: str, spot: int = 1) -> PositionResult:
    return position_result(round_, round_.position(player, spot))


def hands(round_: SharedRound, player: str, spot: int = 1) -> list[Hand]:
    return [
        Hand(
            " ".join(str(card) for card in item.cards),
            item.total,
            item.bet_amount,
            item.outcome,
            item.payout_amount,
        )
        for item in result(round_, player, spot).hands
    ]


def hand(round_: SharedRound, player: str, spot: int = 1) -> Hand:
    (only,) = hands(round_, player, spot)
    return only


def net(round_: SharedRound, player: str) -> int:
    """Coins won (positive) or lost (negative) by the player over all their spots."""
    positions = round_.positions_of(player)
    return int(sum(int(round_.paid()[p]) - int(round_.staked()[p]) for p in positions))


def staked(round_: SharedRound, player: str, spot: int = 1) -> int:
    return result(round_, player, spot).staked_amount


def paid(round_: SharedRound, player: str, spot: int = 1) -> int:
    return result(round_, player, spot).paid_amount


def side(
    round_: SharedRound, player: str, spot: int, key: str
) -> tuple[str | None, str | None, int | None]:
    """(outcome, pattern, payout) of one side bet on one spot."""
    for item in result(round_, player, spot).side_bets:
        if item.key == key:
            return item.outcome, item.pattern, item.payout_amount
    raise AssertionError(f"{player} has no {key} bet on spot {spot}")


def moves(round_: SharedRound, player: str, spot: int = 1) -> list[tuple[str, str, int]]:
    """The position's decisions hand by hand: (action, "player" / "autoplay" / "fallback",
    step)."""
    return [move for item in result(round_, player, spot).hands for move in item.decisions]


def dealer(round_: SharedRound) -> str:
    return " ".join(str(card) for card in round_.dealer_cards)


def step_cards(round_: SharedRound, spot: int = 1) -> list[str]:
    return [str(card) for card in round_.step_cards.get(spot, [])]


def drawn(round_: SharedRound, player: str, spot: int = 1) -> list[str]:
    """The step cards the position drew, in order (initial cards left out)."""
    path = round_.path_of(round_.position(player, spot))
    cards: list[str] = []
    for item in path.hands:
        start = 1 if item.from_split else 2
        cards.extend(str(card) for card in item.cards[start:])
    return cards


def paid_by_stage(round_: SharedRound) -> list[tuple[str, dict[str, int]]]:
    """``round.payments`` in order: (stage, {"player@spot": amount})."""
    stages: list[tuple[str, dict[str, int]]] = []
    for payment in round_.payments:
        amounts: dict[str, int] = {}
        for position, amount in zip(
            payment.positions.tolist(), payment.amounts.tolist(), strict=True
        ):
            amounts[f"{round_.player_of(position)}@{round_.spot_of(position)}"] = int(amount)
        stages.append((payment.stage, amounts))
    return stages


# ---- a rejected call changes nothing -----------------------------------------------------
def snapshot(round_: RoundState, shoe: Shoe | None = None) -> tuple[object, ...]:
    """Everything a rejected operation must leave untouched (a follower's logs included)."""
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
        (
            (len(round_.log), len(round_.table_events))
            if isinstance(round_, FollowerRound)
            else None
        ),
    )


@contextmanager
def unchanged(round_: RoundState, shoe: Shoe | None = None) -> Iterator[None]:
    """The block leaves the round (and the shoe) exactly as it was.

    ``with unchanged(round_, shoe), pytest.raises(PhaseError): round_.deal()``
    """
    before = snapshot(round_, shoe)
    yield
    assert snapshot(round_, shoe) == before


@contextmanager
def refused(
    round_: SharedRound, shoe: Shoe | None, error: type[Exception], match: str
) -> Iterator[None]:
    """The block raises ``error`` (its message matching ``match``) and changes nothing."""
    with unchanged(round_, shoe), pytest.raises(error, match=match):
        yield


def assert_rejected(
    round_: SharedRound, shoe: Shoe | None, player: str, action: str, spot: int = 1
) -> None:
    """The decision raises a RulesError naming the player and leaves the round untouched."""
    with refused(round_, shoe, RulesError, f"player '{player}'"):
        round_.decide(player, spot, action)
