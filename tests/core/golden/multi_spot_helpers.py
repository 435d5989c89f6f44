"""Helpers for the golden stacked-shoe rounds of the multi-spot titles (not a test module).

Blackjack Unlimited (three shared spots, no hole card) and the Boo Bucks presets (one player on
up to three seats, peek) deal in the order of ``shared/spec/scenario-format.md``: the first card
of each occupied spot left to right, the dealer's up card, the second card of each occupied spot,
the hole card (Boo Bucks only), then each spot's step cards, spot by spot, then the dealer
(Unlimited: its second card first). The single-spot helpers of ``golden_helpers`` (``Hand``,
``MAIN``, ``BALANCE``, ``SKIP``, ``snapshot``) are reused as they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from golden_helpers import BALANCE, MAIN, SKIP, Hand

from boundless.core.cards import parse_cards
from boundless.core.random_source import SeededSource
from boundless.core.round import SharedRound
from boundless.core.round.results import PositionResult, position_result
from boundless.core.rules import RuleSet, rule_set_from_data
from boundless.core.shoe import Shoe
from boundless.titles import load_game

UNLIMITED = "unlimited"
BOO_BUCKS = "boo-bucks"
BOO_BUCKS_PRESETS = (
    "boo-bucks",
    "boo-bucks-h17",
    "boo-bucks-no-das",
    "boo-bucks-single-deck",
    "boo-bucks-split-aces-hit",
)
# A pair of Boo Bucks side-bet groups to offer when a test does not care which.
PLAIN_OFFER = ("trifecta", "in_between")

Decisions = Mapping[tuple[str, int], Sequence[str]]

__all__ = [
    "BALANCE",
    "BOO_BUCKS",
    "BOO_BUCKS_PRESETS",
    "MAIN",
    "PLAIN_OFFER",
    "SKIP",
    "UNLIMITED",
    "Hand",
    "bet",
    "dealer",
    "drawn",
    "hand",
    "hands",
    "net",
    "new_round",
    "paid_by_stage",
    "play",
    "result",
    "rules_of",
    "side",
    "step_cards",
    "variant",
    "with_side_bet",
]


def rules_of(game: str) -> RuleSet:
    return load_game(game)[0]


def variant(game: str, **sections: Mapping[str, Any]) -> RuleSet:
    """A shipped rule set with some fields replaced, e.g. ``table={"max_spots_per_player": 2}``."""
    data = rules_of(game).model_dump(mode="json")
    for section, fields in sections.items():
        data[section] = {**data[section], **fields}
    return rule_set_from_data(data, f"{game} (test variant)")


def with_side_bet(game: str, key: str, **fields: Any) -> RuleSet:
    """A shipped rule set with one side bet's fields replaced, e.g. ``variant="player_only"``."""
    data = rules_of(game).model_dump(mode="json")
    for item in data["side_bets"]:
        if item["key"] == key:
            item.update(fields)
    return rule_set_from_data(data, f"{game} (test variant of {key})")


def new_round(
    game: str,
    cards: str,
    *,
    offered: Sequence[str] | None = None,
    wheel_seed: int = 0,
    rules: RuleSet | None = None,
) -> tuple[SharedRound, Shoe]:
    """A round of ``game`` dealing from exactly these cards, and its shoe.

    Boo Bucks rounds offer ``offered`` side-bet groups (default :data:`PLAIN_OFFER`); the bonus
    wheels spin from ``SeededSource(wheel_seed)``, as in ``boundless replay``.
    """
    shipped, chart = load_game(game)
    rules = rules or shipped
    if offered is None and rules.side_bet_offer.mode == "player_chooses":
        offered = PLAIN_OFFER
    shoe = Shoe.stacked(parse_cards(cards.split()))
    round_ = SharedRound(
        rules,
        chart=chart,
        cards=shoe,
        offered_side_bets=offered,
        randomness=SeededSource(wheel_seed),
    )
    return round_, shoe


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


def play(
    round_: SharedRound,
    decisions: Decisions | None = None,
    insurance: Sequence[tuple[str, int]] = (),
    even_money: Sequence[tuple[str, int]] = (),
) -> None:
    """Deal, answer the insurance window, run every spot's scripted steps, finish the round.

    ``decisions[(player, spot)]`` lists one word per step in which that position's hand awaits
    a decision; ``SKIP`` leaves that step to the autoplay, as does a list that has run out.
    """
    queues = {key: list(words) for key, words in (decisions or {}).items()}
    if round_.phase == "betting":
        round_.deal()
    if round_.phase == "insurance":
        for player, spot in insurance:
            round_.take_insurance(player, spot)
        for player, spot in even_money:
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


def result(round_: SharedRound, player: str, spot: int) -> PositionResult:
    return position_result(round_, round_.position(player, spot))


def hands(round_: SharedRound, player: str, spot: int) -> list[Hand]:
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


def hand(round_: SharedRound, player: str, spot: int) -> Hand:
    (only,) = hands(round_, player, spot)
    return only


def net(round_: SharedRound, player: str) -> int:
    """Coins won (positive) or lost (negative) by the player over all their spots."""
    positions = round_.positions_of(player)
    return int(sum(int(round_.paid()[p]) - int(round_.staked()[p]) for p in positions))


def side(
    round_: SharedRound, player: str, spot: int, key: str
) -> tuple[str | None, str | None, int | None]:
    """(outcome, pattern, payout) of one side bet on one spot."""
    for item in result(round_, player, spot).side_bets:
        if item.key == key:
            return item.outcome, item.pattern, item.payout_amount
    raise AssertionError(f"{player} has no {key} bet on spot {spot}")


def dealer(round_: SharedRound) -> str:
    return " ".join(str(card) for card in round_.dealer_cards)


def step_cards(round_: SharedRound, spot: int) -> list[str]:
    return [str(card) for card in round_.step_cards.get(spot, [])]


def drawn(round_: SharedRound, player: str, spot: int) -> list[str]:
    """The step cards the position drew, in order (initial cards left out)."""
    path = round_.path_of(round_.position(player, spot))
    cards: list[str] = []
    for item in path.hands:
        start = 1 if item.from_split else 2
        cards.extend(str(card) for card in item.cards[start:])
    return cards


def paid_by_stage(round_: SharedRound) -> list[tuple[str, dict[str, int]]]:
    """``round.payments`` in order: (stage, {"player@spot": amount})."""
    book = round_.book
    stages: list[tuple[str, dict[str, int]]] = []
    for payment in round_.payments:
        amounts: dict[str, int] = {}
        for position, amount in zip(
            payment.positions.tolist(), payment.amounts.tolist(), strict=True
        ):
            who = f"{book.player_ids[int(book.player[position])]}@{int(book.spot[position])}"
            amounts[who] = int(amount)
        stages.append((payment.stage, amounts))
    return stages
